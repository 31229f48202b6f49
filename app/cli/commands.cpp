#include "app/cli/commands.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/cli/arguments.h"
#include "app/cli/json_output.h"
#include "core/corpus/synthetic_generator.h"
#include "core/corpus/text_import.h"
#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"
#include "core/eval/metrics.h"
#include "core/pipeline/private_run.h"
#include "core/pipeline/spectral_pipeline.h"
#include "core/privacy/budget.h"

namespace dplda::cli {

void require(const Status& status) {
  switch (status.code()) {
    case StatusCode::Ok: return;
    case StatusCode::InvalidArgument:
    case StatusCode::BadInput:
    case StatusCode::IoError:
    case StatusCode::ResourceLimit: throw InputError(status.message());
    default: throw RunError(status.toString());
  }
}

template <class T>
T take(Result<T> r) {
  require(r.status());
  return std::move(r).value();
}

std::string usageText() {
  return R"(dplda - differentially private spectral LDA (DP-LDA Explorer command line)

Commands:
  dplda generate --vocab D --topics K --docs N [--alpha0 A] [--prior random|symmetric]
                 [--beta B] [--doc-length L] [--fixed-length] [--seed S] --out DIR
      Draws a synthetic LDA corpus; writes DIR/docword.txt, DIR/vocab.txt, DIR/truth.json.
  dplda import-text --input PATH --vocab D --out DIR [--min-token-length M]
                 [--separator LINE] [--keep-stopwords] [--keep-case] [--numbers]
      Turns plain text (a file with one document per line, or a folder with one document
      per file) into the UCI bag-of-words files. --separator '%' ends a document at every
      '%' line instead (fortune files; also in every file of a folder). In a folder, files
      that are not UTF-8 text are skipped and listed, and links are read once.
  dplda run --corpus DIR --topics K [--alpha0 A] [--truth FILE] [--decomposer robust|simultaneous]
                 [--seed S] [--top-words N] [--json FILE]
                 [--config 1|2|3|4|input|none | --edges e5,e6] [--epsilon E] [--delta D]
                 [--mechanism analytic|classic|closed-form|laplace] [--bounds sound|printed]
                 [--split uniform|w1,w2,...] [--share-releases] [--noise-seed S] [--max-length L]
      Fits spectral LDA, privately when an edge set is given (noise from the kernel's secure
      generator unless --noise-seed asks for reproducible noise); prints a summary and the
      privacy ledger, and writes JSON.
  dplda sweep --preset figure2|figure2-small-corpus|figure2-alpha|figure4|tpm-noise --out DIR
                 [--trials T] [--formats png,pdf,svg|none] [--bounds sound|printed] [--threads N] [--seed S]
  dplda sweep --corpus DIR --topics K[,K2..] --out DIR [--truth FILE] [--alpha0 A[,A2..]]
                 [--configs none,1,2,3,4|e5+e6,...] [--epsilons LO:HI:COUNT|E1,E2,..] [--delta D]
                 [--trials T] [--mechanism M] [--bounds sound|printed] [--decomposer D] [--share-releases]
                 [--max-length L] [--formats ...] [--threads N] [--seed S]
      Repeated private runs over a grid of epsilons (log-spaced) and configurations, with seeded
      noise and common random numbers; writes DIR/results.csv, summary.csv, timings.csv, the
      figures (DIR/figures, with their CSV data) and DIR/report.md. Progress goes to stderr.

Exit status: 0 success, 2 usage error, 3 bad input, 4 the computation failed.
)";
}

int generateCommand(const std::vector<std::string>& args) {
  const Arguments a(args, {"vocab", "topics", "docs", "alpha0", "prior", "beta", "doc-length", "seed", "out"},
                    {"fixed-length"});
  GeneratorParams p;
  p.vocabSize = a.integer("vocab");
  p.topicCount = a.integer("topics");
  p.docCount = a.integer("docs");
  p.alpha0 = a.number("alpha0", p.alpha0);
  const std::string prior = a.text("prior", "random");
  if (prior == "random") p.prior = GeneratorParams::Prior::Random;
  else if (prior == "symmetric") p.prior = GeneratorParams::Prior::Symmetric;
  else throw UsageError("--prior must be random or symmetric, got '" + prior + "'");
  p.beta = a.number("beta", p.beta);
  p.meanLength = a.number("doc-length", p.meanLength);
  p.fixedLength = a.flag("fixed-length");
  p.seed = a.seed("seed", p.seed);
  const std::string out = a.text("out");
  const SyntheticCorpus sc = take(generateLdaCorpus(p));
  require(writeUciCorpus(sc.corpus, out));
  require(writeTruthJson(sc.truth, (std::filesystem::path(out) / "truth.json").string()));
  std::cout << "wrote " << sc.corpus.docCount() << " documents, vocabulary " << sc.corpus.vocabSize() << ", "
            << sc.corpus.nnz() << " non-zeros, " << p.topicCount << " topics (seed " << p.seed << ") to " << out
            << "\n";
  return kExitOk;
}

int importTextCommand(const std::vector<std::string>& args) {
  const Arguments a(args, {"input", "vocab", "out", "min-token-length", "separator"},
                    {"keep-stopwords", "keep-case", "numbers"});
  TextImportParams p;
  p.input = a.text("input");
  p.vocabSize = a.integer("vocab");
  p.minTokenLength = a.integer("min-token-length", p.minTokenLength);
  p.separator = a.text("separator", "");
  p.removeStopWords = !a.flag("keep-stopwords");
  p.lowercase = !a.flag("keep-case");
  p.numbersAsTokens = a.flag("numbers");
  const std::string out = a.text("out");
  TextImportReport report;
  const Corpus corpus = take(importText(p, &report));
  require(writeUciCorpus(corpus, out));
  std::cout << "read " << report.documentsRead << " documents; kept " << report.documentsKept << " (dropped "
            << report.droppedDocuments << " with fewer than 3 vocabulary tokens); vocabulary "
            << corpus.vocabSize() << " of " << report.distinctWords << " distinct words; wrote " << out << "\n";
  if (report.filesRead > 0) {
    std::cout << "folder: " << report.filesRead << " text files read";
    if (report.duplicateFiles) std::cout << ", " << report.duplicateFiles << " links to files already read skipped";
    if (!report.skippedFiles.empty()) {
      std::cout << ", " << report.skippedFiles.size() << " files that are not UTF-8 text skipped (";
      for (std::size_t i = 0; i < std::min<std::size_t>(report.skippedFiles.size(), 5); ++i)
        std::cout << (i ? ", " : "") << report.skippedFiles[i];
      std::cout << (report.skippedFiles.size() > 5 ? ", ...)" : ")");
    }
    std::cout << "\n";
  }
  return kExitOk;
}

namespace {

QJsonArray preconditionsToJson(const std::vector<Precondition>& pre) {
  QJsonArray a;
  for (const auto& p : pre) {
    a.append(QJsonObject{{"name", QString::fromStdString(p.name)},
                         {"holds", p.holds},
                         {"detail", QString::fromStdString(p.detail)}});
  }
  return a;
}

QJsonValue numberOrNull(double x) { return std::isfinite(x) ? QJsonValue(x) : QJsonValue(QJsonValue::Null); }

QJsonObject privacyToJson(const PrivacyOptions& o, const PrivateRunResult& r) {
  QJsonArray edges;
  for (int e = 0; e < kEdgeCount; ++e)
    if (contains(o.edges, e)) edges.append("e" + QString::number(e));
  QJsonArray leak;
  for (Node n : r.decision.leakPath) leak.append(nodeName(n));
  QJsonArray ledger;
  for (const LedgerEntry& e : r.ledger) {
    QJsonArray le;
    for (int x : e.edges) le.append("e" + QString::number(x));
    ledger.append(QJsonObject{{"release", QString::fromStdString(e.release)},
                              {"node", QString::fromStdString(e.node)},
                              {"edges", le},
                              {"mechanism", QString::fromStdString(e.mechanism)},
                              {"sensitivity", numberOrNull(e.sensitivity)},
                              {"sensitivity_formula", QString::fromStdString(e.sensitivityFormula)},
                              {"epsilon", e.epsilon},
                              {"delta", e.delta},
                              {"sigma", numberOrNull(e.sigma)},
                              {"bounds", QString::fromStdString(e.bounds)},
                              {"spent", e.spent},
                              {"preconditions", preconditionsToJson(e.preconditions)},
                              {"note", QString::fromStdString(e.note)}});
  }
  QJsonArray warnings;
  for (const auto& w : r.warnings) warnings.append(QString::fromStdString(w));
  const auto preset = presetOf(o.edges);
  return QJsonObject{{"edges", edges},
                     {"config", preset ? QJsonValue(presetName(*preset)) : QJsonValue("custom")},
                     {"private", r.decision.isPrivate},
                     {"explanation", QString::fromStdString(r.decision.explanation)},
                     {"leak_path", leak},
                     {"epsilon_total", o.edges ? o.epsilon : 0.0},
                     {"delta_total", o.edges ? o.delta : 0.0},
                     {"epsilon_spent", r.epsilonSpent},
                     {"delta_spent", r.deltaSpent},
                     {"composition", "basic (sum of the parts)"},
                     {"mechanism", mechanismName(o.mechanism)},
                     {"bounds", boundSetName(o.bounds)},
                     {"shared_releases", o.shareReleases},
                     {"noise_source", QString::fromStdString(r.noiseSource)},
                     {"ledger", ledger},
                     {"warnings", warnings}};
}

QJsonObject diagnosticsToJson(const PrivacyDiagnostics& d) {
  QJsonObject o{{"sigma_k", d.sigmaK},
                {"sigma_k_plus_1", d.sigmaKPlus1},
                {"gamma_s", d.gammaS},
                {"sigma_k_tilde", d.sigmaKTilde ? QJsonValue(*d.sigmaKTilde) : QJsonValue(QJsonValue::Null)},
                {"gamma_s_tilde", d.gammaSTilde ? QJsonValue(*d.gammaSTilde) : QJsonValue(QJsonValue::Null)},
                {"preconditions", preconditionsToJson(d.preconditions)},
                {"note", "sigma_k and gamma_s are the non-private values, shown for teaching; only the "
                         "tilde values enter noise scales"}};
  if (d.releasedEigenvalues.size()) o.insert("released_m2_eigenvalues", toJson(d.releasedEigenvalues));
  return o;
}

// Reads the privacy options of `dplda run`; edges stay empty when none were asked for.
PrivacyOptions privacyOptionsFrom(const Arguments& a) {
  PrivacyOptions o;
  if (a.has("config") && a.has("edges")) throw UsageError("give either --config or --edges, not both");
  if (a.has("config")) {
    auto preset = parsePreset(a.text("config"));
    if (!preset.ok()) throw UsageError(preset.status().message());
    o.edges = presetEdges(preset.value());
  } else if (a.has("edges")) {
    auto edges = parseEdgeSet(a.text("edges"));
    if (!edges.ok()) throw UsageError(edges.status().message());
    o.edges = edges.value();
  }
  o.epsilon = a.number("epsilon", o.epsilon);
  o.delta = a.number("delta", o.delta);
  if (a.has("mechanism")) {
    auto m = parseMechanism(a.text("mechanism"));
    if (!m.ok()) throw UsageError(m.status().message());
    o.mechanism = m.value();
  }
  if (a.has("bounds")) {
    auto b = parseBoundSet(a.text("bounds"));
    if (!b.ok()) throw UsageError(b.status().message());
    o.bounds = b.value();
  }
  if (a.has("split")) {
    auto w = parseSplit(a.text("split"));
    if (!w.ok()) throw UsageError(w.status().message());
    o.splitWeights = w.value();
  }
  o.shareReleases = a.flag("share-releases");
  o.maxLength = a.number("max-length", o.maxLength);
  return o;
}

}  // namespace

int runCommand(const std::vector<std::string>& args) {
  const Arguments a(args,
                    {"corpus", "topics", "alpha0", "truth", "decomposer", "seed", "json", "top-words", "config",
                     "edges", "epsilon", "delta", "mechanism", "bounds", "split", "noise-seed", "max-length"},
                    {"share-releases"});
  const std::string corpusPath = a.text("corpus");
  SpectralOptions o;
  o.topicCount = a.integer("topics");
  o.alpha0 = a.number("alpha0", o.alpha0);
  o.decomposer = a.text("decomposer", o.decomposer);
  o.initSeed = a.seed("seed", o.initSeed);
  const int nTop = a.integer("top-words", 10);
  if (nTop < 1) throw UsageError("--top-words must be >= 1, got " + std::to_string(nTop));
  require(makeDecomposer(o.decomposer).status());
  const bool privacyAsked = a.has("config") || a.has("edges");
  const PrivacyOptions privacy = privacyOptionsFrom(a);
  require(validatePrivacyOptions(privacy));
  std::unique_ptr<RandomSource> noise;
  if (a.has("noise-seed")) noise = std::make_unique<SeededRandom>(a.seed("noise-seed", 0));
  else noise = std::make_unique<SecureRandom>();

  auto corpus = std::make_shared<Corpus>(take(readUciCorpus(corpusPath)));
  std::optional<LdaModel> truth;
  if (a.has("truth")) {
    truth = take(readTruthJson(a.text("truth")));
    if (truth->vocabSize() != corpus->vocabSize()) {
      throw InputError("the truth file has topics over " + std::to_string(truth->vocabSize()) +
                       " words but the corpus vocabulary has " + std::to_string(corpus->vocabSize()));
    }
  }
  SpectralPipeline pipeline;
  pipeline.setCorpus(corpus);
  pipeline.setOptions(o);
  const SpectralModel model = take(pipeline.run());
  const std::vector<StageTiming> timings = pipeline.timings();
  const PrivateRunResult priv = take(runPrivate(pipeline, privacy, *noise));

  QJsonObject json;
  json.insert("status", priv.status.isOk() ? QString("ok") : QString::fromStdString(priv.status.toString()));
  json.insert("released", priv.released);
  json.insert("corpus", corpusSummary(*corpus));
  json.insert("topics_k", o.topicCount);
  json.insert("alpha0", o.alpha0);
  json.insert("decomposer", QString::fromStdString(model.eigenpairs.method));
  json.insert("init_seed", QString::number(o.initSeed));
  json.insert("privacy", privacyToJson(privacy, priv));
  json.insert("diagnostics", diagnosticsToJson(priv.diagnostics));
  json.insert("eigenvalues", toJson(model.eigen.values));
  json.insert("eigen_method", QString::fromStdString(model.eigen.method));
  json.insert("tensor_eigenvalues", toJson(model.eigenpairs.lambda));
  json.insert("gamma_s", model.gammaS);
  json.insert("decomposer_iterations", model.eigenpairs.iterations);
  json.insert("decomposer_converged", model.eigenpairs.converged);
  json.insert("timings_ms", timingsToJson(timings));

  std::ostringstream out;
  out.precision(4);
  out << "corpus: " << corpus->docCount() << " documents, vocabulary " << corpus->vocabSize() << ", "
      << corpus->nnz() << " non-zeros";
  if (corpus->droppedDocuments) out << " (" << corpus->droppedDocuments << " short documents dropped)";
  out << "\nM2 eigenvalues:";
  for (Eigen::Index i = 0; i < model.eigen.values.size(); ++i) out << " " << model.eigen.values[i];
  out << "  (gap sigma_k - sigma_k+1 = " << model.whitening.gap() << ")\n";
  out << "tensor eigengap gamma_s = " << model.gammaS
      << (model.eigenpairs.converged ? "" : "  [warning: the decomposer hit its iteration limit]") << "\n";
  if (privacy.edges) {
    out << "privacy: edges " << edgeSetToString(privacy.edges) << " - " << priv.decision.explanation << "\n";
    out << "  total epsilon " << privacy.epsilon << ", delta " << privacy.delta << " (" << boundSetName(privacy.bounds)
        << " bounds, noise " << priv.noiseSource << ")\n";
    for (const LedgerEntry& e : priv.ledger) {
      out << "  " << e.release << ": " << e.mechanism << ", sensitivity " << e.sensitivity << ", epsilon "
          << e.epsilon << ", delta " << e.delta << ", scale " << e.sigma << (e.spent ? "" : " (not spent)") << "\n";
    }
    if (priv.diagnostics.sigmaKTilde) out << "  sigma_k~ = " << *priv.diagnostics.sigmaKTilde << "\n";
    if (priv.diagnostics.gammaSTilde) out << "  gamma_s~ = " << *priv.diagnostics.gammaSTilde << "\n";
  }
  if (priv.released) {
    const UnwhitenedTopics& result = *priv.output;
    json.insert("alpha", toJson(result.alpha));
    json.insert("topics", columnsToJson(result.topics));
    json.insert("top_words", topWords(*corpus, result.topics, nTop));
    if (privacy.edges) {
      const TopicErrors loss = compareTopics(model.output.topics, model.output.alpha, result.topics, result.alpha);
      json.insert("utility_loss",
                  QJsonObject{{"l2_mean", loss.l2Mean}, {"l1_mean", loss.l1Mean}, {"alpha", loss.alphaError}});
      out << "utility loss vs the non-private output: l2 " << loss.l2Mean << ", l1 " << loss.l1Mean << "\n";
    }
    if (truth) {
      const TopicErrors err = compareTopics(truth->topics, truth->alpha, result.topics, result.alpha);
      json.insert("error", QJsonObject{{"l2_mean", err.l2Mean}, {"l1_mean", err.l1Mean}, {"alpha", err.alphaError}});
      QJsonArray m;
      for (int x : err.matching) m.append(x);
      json.insert("matching", m);
      out << "error vs truth: l2 " << err.l2Mean << ", l1 " << err.l1Mean << ", alpha " << err.alphaError << "\n";
    }
    out << "topics (alpha, top words):\n";
    for (Eigen::Index c = 0; c < result.topics.cols(); ++c) {
      out << "  " << c + 1 << "  alpha " << result.alpha[c] << ":";
      for (int i : topIndices(result.topics.col(c), nTop)) out << " " << corpus->wordName(i);
      out << "\n";
    }
  } else {
    out << priv.status.message() << "\n";
  }
  out << "time (ms):";
  double total = 0;
  for (const auto& t : timings) {
    out << " " << t.stage << " " << t.milliseconds;
    total += t.milliseconds;
  }
  out << "  total " << total << "\n";
  std::cout << out.str();
  if (privacyAsked) {
    for (const auto& w : priv.warnings) std::cerr << "dplda run: warning: " << w << "\n";
  }
  if (a.has("json")) {
    std::string error;
    if (!writeJsonFile(a.text("json"), json, &error)) throw InputError(error);
  }
  if (!priv.released) {
    std::cerr << "dplda run: " << priv.status.message() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace dplda::cli
