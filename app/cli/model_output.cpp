#include "app/cli/model_output.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "app/cli/commands.h"
#include "app/cli/output_paths.h"
#include "core/common/safe_file.h"
#include "core/common/text_escape.h"
#include "core/corpus/corpus_cache.h"
#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"
#include "core/eval/coherence.h"
#include "core/model/model_file.h"

namespace dplda::cli {

namespace {

const char* const kTrainingLabel =
    "computed on the training documents: a non-private diagnostic (exact statistics of the data, not part of any "
    "release); left out with --release-only";
const char* const kConventions =
    "document co-occurrence over the reference documents that hold a token; NPMI and UMass averaged over the "
    "N(N-1)/2 pairs of each topic's top N words; a pair never together has NPMI -1; UMass log((D(w_i,w_j)+1)/D(w_j)), "
    "a word in no document counted as D = 1 (docs/MODEL_FORMAT.md)";

std::string referenceLabel(const std::string& dir) {
  return "computed on the reference corpus " + escapeText(dir) +
         ": post-processing of the released topics (as private as the release when the reference is public and "
         "outside the training data)";
}

// The run's parameters as its JSON reports them.
QJsonObject parametersOf(const QJsonObject& json) {
  QJsonObject p;
  for (const char* key : {"model", "topics_k", "alpha0", "decomposer", "init_seed", "vi", "holdout"}) {
    if (json.contains(key)) p.insert(key, json.value(key));
  }
  return p;
}

std::string absolutePath(const std::string& path) {
  std::error_code ec;
  const auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : p.string();
}

void reportCoherence(const Arguments& a, const RunModelContext& run, QJsonObject& json, std::ostream& out) {
  const bool onReference = a.has("coherence-reference");
  if (!onReference && !run.teaching) {
    out << "coherence: withheld (on the training documents it is an exact statistic of them, which --release-only "
           "leaves out; --coherence-reference DIR computes it on a public corpus)\n";
    return;
  }
  const int d = run.released->vocabSize();
  const int n = a.has("coherence-top-words") ? a.count("coherence-top-words", 2, kMaxVocabularySize)
                                             : std::min(kDefaultCoherenceTopWords, d);
  if (n > d) {
    throw UsageError("--coherence-top-words " + std::to_string(n) + " is more than the vocabulary's " +
                     std::to_string(d) + " words");
  }
  if (n < 2) return;  // a vocabulary of one word has no pairs
  Corpus reference;
  const Corpus* on = run.training;
  std::string label = kTrainingLabel;
  if (onReference) {
    const std::string dir = a.text("coherence-reference");
    reference = take(loadUciCorpus(dir, corpusCacheOptionsFromEnvironment(!a.flag("no-cache"))));
    require(checkSameVocabulary(corpusWords(*run.training), reference, "the coherence reference " + escapeText(dir)));
    on = &reference;
    label = referenceLabel(dir);
  }
  const CoherenceResult c = take(topicCoherence(run.released->topics, *on, n));
  QJsonArray topics;
  for (const TopicCoherence& t : c.topics) {
    topics.append(QJsonObject{{"npmi", t.npmi}, {"umass", t.umass}, {"absent_words", t.absentWords}});
  }
  json.insert("coherence", QJsonObject{{"top_words", n},
                                       {"reference", onReference ? QString::fromStdString(a.text("coherence-reference"))
                                                                 : QString("training documents")},
                                       {"reference_documents", c.referenceDocuments},
                                       {"private_data", !onReference},
                                       {"label", QString::fromStdString(label)},
                                       {"conventions", kConventions},
                                       {"mean_npmi", c.meanNpmi},
                                       {"mean_umass", c.meanUmass},
                                       {"topics", topics}});
  out << "coherence (top " << n << " words, " << c.referenceDocuments << " documents; " << label
      << "): NPMI " << c.meanNpmi << ", UMass " << c.meanUmass << " (means over topics)\n  per topic (NPMI / UMass):";
  for (std::size_t i = 0; i < c.topics.size(); ++i) {
    out << " " << i + 1 << ": " << c.topics[i].npmi << " / " << c.topics[i].umass;
    if (c.topics[i].absentWords) out << " (" << c.topics[i].absentWords << " top words absent)";
  }
  out << "\n";
}

void saveModel(const Arguments& a, const RunModelContext& run, QJsonObject& json, std::ostream& out) {
  const QJsonObject privacy = json.value("privacy").toObject();
  ModelFile m;
  m.model = run.model;
  m.isPrivate = privacy.value("private").toBool();  // the claim holds: a private release
  m.claim = privacy.value("claim").toString().toStdString();
  m.vocabulary = corpusWords(*run.training);
  m.lda = *run.released;
  m.privacyJson = QJsonDocument(privacy).toJson(QJsonDocument::Compact).toStdString();
  m.parametersJson = QJsonDocument(parametersOf(json)).toJson(QJsonDocument::Compact).toStdString();
  m.training.path = absolutePath(a.text("corpus"));
  m.training.documents = run.training->docCount();
  m.training.heldOutSplit = run.heldOutSplit;
  if (run.teaching) m.training.fingerprint = corpusFingerprint(*run.training);  // not private: never in a release
  const std::string path = a.text("save-model");
  require(writeModelFile(m, path, runJsonRules(a)));
  json.insert("saved_model", QString::fromStdString(path));
  out << "model saved to " << escapeText(path) << " (" << kModelFormatName << " version " << kModelFormatVersion
      << (m.training.fingerprint ? "; holds a fingerprint of the training documents, not private" : "") << ")\n";
}

}  // namespace

void checkModelOutputs(const Arguments& a) {
  if (a.has("coherence-top-words")) a.count("coherence-top-words", 2, kMaxVocabularySize);
  if (a.has("save-model")) require(checkOutputFile(a.text("save-model"), runJsonRules(a)));
  if (a.has("json") && a.has("save-model") && absolutePath(a.text("json")) == absolutePath(a.text("save-model"))) {
    throw UsageError("--json and --save-model name the same file");
  }
}

void reportModelOutputs(const Arguments& a, const RunModelContext& run, QJsonObject& json, std::ostream& out) {
  reportCoherence(a, run, json, out);
  if (a.has("save-model")) saveModel(a, run, json, out);
}

LdaModel readScoredModel(const std::string& path, const Corpus& corpus) {
  require(requireRegularFile(path));
  std::string head(4096, '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.find(std::string("\"") + kModelFormatName + "\"") == std::string::npos) {  // a truth.json
    LdaModel m = take(readTruthJson(path, TruthShape{corpus.vocabSize(), 0}));
    if (m.vocabSize() != corpus.vocabSize()) {
      throw InputError("--score-model has topics over " + std::to_string(m.vocabSize()) +
                       " words but the corpus vocabulary has " + std::to_string(corpus.vocabSize()));
    }
    return m;
  }
  const ModelFile m = take(readModelFile(path));
  require(checkSameVocabulary(m.vocabulary, corpus, "the corpus"));
  return m.lda;
}

}  // namespace dplda::cli
