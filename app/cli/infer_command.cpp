// dplda infer: each document's topic proportions under a saved model (core/model/topic_inference.h),
// for a UCI corpus with the model's vocabulary or for plain text tokenized against it. For
// documents outside the training set this is post-processing of the model's release; for the
// training documents it is not private, and the output says so (docs/MODEL_FORMAT.md).
#include <QJsonArray>
#include <QJsonObject>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/output_paths.h"
#include "core/common/safe_file.h"
#include "core/common/text_escape.h"
#include "core/corpus/corpus_cache.h"
#include "core/corpus/document_ids.h"
#include "core/corpus/uci_io.h"
#include "core/eval/perplexity.h"
#include "core/experiments/table_text.h"
#include "core/model/inference_privacy.h"
#include "core/model/model_file.h"
#include "core/model/text_documents.h"
#include "core/model/topic_inference.h"

namespace dplda::cli {

namespace {

struct Documents {
  Corpus corpus;
  std::vector<std::string> ids;
  std::string source;  // "corpus" or "text"
  std::optional<TextDocuments> text;  // the counts of a text input (corpus moved out)
};

std::string canonical(const std::string& path) {
  std::error_code ec;
  const auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : p.string();
}

Documents readDocuments(const Arguments& a, const ModelFile& m) {
  Documents docs;
  if (a.has("corpus")) {
    const std::string dir = a.text("corpus");
    docs.corpus = take(loadUciCorpus(dir, corpusCacheOptionsFromEnvironment(!a.flag("no-cache"))));
    require(checkSameVocabulary(m.vocabulary, docs.corpus, "the corpus " + escapeText(dir)));
    // The ids import-text kept (documents.txt: file names, id columns, line numbers), else the row.
    docs.ids = take(readDocumentIds(dir, docs.corpus.docCount()));
    if (docs.ids.empty())
      for (int n = 0; n < docs.corpus.docCount(); ++n) docs.ids.push_back(std::to_string(n));
    docs.source = "corpus";
    return docs;
  }
  TextImportParams p;
  p.minTokenLength = a.integer("min-token-length", p.minTokenLength);
  p.separator = a.text("separator", "");
  p.removeStopWords = !a.flag("keep-stopwords");
  p.lowercase = !a.flag("keep-case");
  p.numbersAsTokens = a.flag("numbers");
  TextDocuments t = take(readTextDocuments(a.text("input"), m.vocabulary, p));
  docs.corpus = std::move(t.corpus);
  docs.ids = std::move(t.ids);
  docs.source = "text";
  docs.text = std::move(t);
  return docs;
}

}  // namespace

int inferCommand(const std::vector<std::string>& args) {
  const Arguments a(args,
                    {"model", "corpus", "input", "csv", "json", "min-token-length", "separator", "tolerance",
                     "max-iterations", "perplexity-seed"},
                    {"release-only", "keep-stopwords", "keep-case", "numbers", "perplexity", "no-cache"});
  if (a.has("corpus") == a.has("input")) throw UsageError("give either --corpus DIR or --input TEXT_FILE_OR_FOLDER");
  if (a.has("corpus")) {
    for (const char* o : {"min-token-length", "separator", "keep-stopwords", "keep-case", "numbers"})
      if (a.has(o)) throw UsageError("--" + std::string(o) + " tokenizes text: it needs --input, not --corpus");
  }
  if (!a.has("csv") && !a.has("json")) throw UsageError("give --csv FILE and/or --json FILE for the topic proportions");
  if (a.has("perplexity-seed") && !a.flag("perplexity")) throw UsageError("--perplexity-seed needs --perplexity");
  InferenceOptions o;
  o.tolerance = a.number("tolerance", o.tolerance);
  o.maxIterations = a.count("max-iterations", 1, 1000000, o.maxIterations);
  if (!(o.tolerance > 0)) throw UsageError("--tolerance must be > 0, got " + a.text("tolerance"));
  const std::string modelPath = a.text("model");
  std::vector<std::string> inputs{modelPath};
  if (a.has("corpus")) for (const auto& f : uciCorpusFiles(a.text("corpus"))) inputs.push_back(f);
  else inputs.push_back(a.text("input"));
  OutputRules rules = outputRules(a, inputs);
  rules.replace = true;  // an earlier result is replaced, an input never
  for (const char* opt : {"csv", "json"})
    if (a.has(opt)) require(checkOutputFile(a.text(opt), rules));
  if (a.has("csv") && a.has("json") && canonical(a.text("csv")) == canonical(a.text("json")))
    throw UsageError("--csv and --json name the same file");

  const ModelFile m = take(readModelFile(modelPath));
  Documents docs = readDocuments(a, m);
  const std::string match = trainingDocumentsMatch(m, docs.corpus, a.has("corpus") ? a.text("corpus") : "");
  const bool training = !match.empty();
  const std::string label = inferencePrivacyLabel(m.isPrivate, m.claim, match);
  if (a.flag("release-only") && (training || !m.isPrivate)) {
    throw InputError("--release-only refuses this output: " + label);
  }
  const DocumentTopics r = take(inferTopics(m.lda, docs.corpus, o));
  const int k = m.lda.topicCount();
  const char* rowLabel = !m.isPrivate ? "not private (model)" : training ? "NOT private (training document)" : "post-processing";

  std::ostringstream out;
  out.precision(4);
  out << "model: " << escapeText(modelPath) << " (" << m.model << ", " << k << " topics, vocabulary "
      << m.vocabulary.size() << ")\n";
  out << "documents: " << docs.corpus.docCount() << " from " << (docs.source == "corpus" ? "the corpus " : "the text ")
      << escapeText(a.has("corpus") ? a.text("corpus") : a.text("input")) << "\n";
  if (docs.text) {
    out << "tokens: " << docs.text->tokens << ", of which " << docs.text->tokensOutOfVocabulary << " ("
        << docs.text->distinctOutOfVocabulary << " distinct words) are not in the model's vocabulary and were dropped\n";
    if (!docs.text->skippedFiles.empty()) out << "skipped " << docs.text->skippedFiles.size() << " files that are not UTF-8 text\n";
  }
  out << "privacy: " << label << "\n";
  if (!training && m.isPrivate) {
    out << "  (" << kTrainingRecognitionNote << ")\n";
  }
  out << "E-step: tolerance " << o.tolerance << ", at most " << o.maxIterations << " updates; " << r.notConverged
      << " documents reached the limit\n";

  QJsonArray documents;
  std::string csv = "document,tokens";
  for (int i = 0; i < k; ++i) csv += ",topic_" + std::to_string(i + 1);
  csv += ",privacy\n";
  for (int n = 0; n < docs.corpus.docCount(); ++n) {
    const double tokens = docs.corpus.lengths.size() ? docs.corpus.lengths[n] : 0.0;
    csv += csvCell(docs.ids[n]) + "," + csvNumberText(tokens);
    for (int i = 0; i < k; ++i) csv += "," + csvNumberText(r.proportions(i, n));
    csv += std::string(",") + rowLabel + "\n";
    documents.append(QJsonObject{{"id", QString::fromStdString(docs.ids[n])},
                                 {"tokens", tokens},
                                 {"proportions", toJson(r.proportions.col(n))},
                                 {"gamma", toJson(r.gamma.col(n))}});
  }
  QJsonObject json{{"format", "dplda-document-topics"},
                   {"model_file", QString::fromStdString(modelPath)},
                   {"model", QString::fromStdString(m.model)},
                   {"topics_k", k},
                   {"source", QString::fromStdString(docs.source)},
                   {"input", QString::fromStdString(a.has("corpus") ? a.text("corpus") : a.text("input"))},
                   {"privacy", QJsonObject{{"private", m.isPrivate && !training},
                                           {"training_documents", training},
                                           {"label", QString::fromStdString(label)}}},
                   {"estep", QJsonObject{{"tolerance", o.tolerance},
                                         {"max_iterations", o.maxIterations},
                                         {"not_converged", r.notConverged}}},
                   {"documents", documents}};
  if (docs.text) {
    json.insert("tokens", static_cast<double>(docs.text->tokens));
    json.insert("tokens_out_of_vocabulary", static_cast<double>(docs.text->tokensOutOfVocabulary));
    json.insert("distinct_out_of_vocabulary", docs.text->distinctOutOfVocabulary);
    QJsonArray skipped;
    for (const auto& s : docs.text->skippedFiles) skipped.append(QString::fromStdString(s));
    json.insert("skipped_files", skipped);
  }
  if (a.flag("perplexity")) {  // the saved model scored on these documents (document completion)
    const std::uint64_t seed = a.seed("perplexity-seed", 1);
    const PerplexityResult p = take(heldOutPerplexity(m.lda, docs.corpus, seed));
    json.insert("perplexity", QJsonObject{{"perplexity", p.perplexity},
                                          {"elbo_bound_perplexity", p.elboBoundPerplexity},
                                          {"scored_tokens", static_cast<double>(p.scoredTokens)},
                                          {"seed", QString::number(seed)},
                                          {"estimator", QString::fromStdString(p.estimator)},
                                          {"smoothing", QString::fromStdString(p.smoothing)},
                                          {"note", "an exact statistic of these documents: as private as they are public"}});
    out << "perplexity: " << p.perplexity << " (document completion, seed " << seed << "), ELBO bound "
        << p.elboBoundPerplexity << " [an exact statistic of these documents]\n";
  }
  if (a.has("csv")) require(writeFileAtomically(a.text("csv"), csv, rules));
  if (a.has("json")) require(writeJsonFile(a.text("json"), json, rules));
  std::cout << out.str();
  return kExitOk;
}

}  // namespace dplda::cli
