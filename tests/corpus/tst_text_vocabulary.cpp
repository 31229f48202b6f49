// The vocabulary of text imports and what a claim may assume about it (issue 23, SPEC §17,
// docs/PRIVACY.md §13): the private partition selection (calibration, the "zebra" construction,
// frequent words kept), the public list, N equal on neighbours (empty documents), provenance.json
// and the labels of runs on each kind of corpus.
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/corpus/corpus_cache.h"
#include "core/corpus/text_import.h"
#include "core/corpus/text_vocabulary.h"
#include "core/corpus/uci_io.h"
#include "core/moments/moments.h"
#include "core/pipeline/private_run.h"
#include "core/privacy/mechanisms.h"
#include "core/privacy/sensitivity.h"
#include "core/privacy/vocabulary_selection.h"

using namespace dplda;
namespace fs = std::filesystem;

namespace {

const char* kEveryday[] = {"apple", "bread",  "chair", "dance", "earth", "field", "grass", "house", "island",
                           "jacket", "kettle", "lemon", "market", "night", "ocean",  "pencil", "queen", "river",
                           "stone", "table",  "umbrella", "valley", "window", "yellow", "garden"};

// The construction: 400 lines over 25 everyday words, two overlapping halves (words 0-14
// and 10-24), 20-40 words per line; `zebraLine` replaces line 1 by "zebra" x 800.
std::string everydayText(bool zebraLine, int lines = 400) {
  SeededRandom rng(23);
  std::string text;
  for (int n = 0; n < lines; ++n) {
    if (n == 1 && zebraLine) {
      for (int t = 0; t < 800; ++t) text += "zebra ";
    } else {
      const int lo = n % 2 == 0 ? 0 : 10, len = 20 + static_cast<int>(uniformIndex(rng, 21));
      for (int t = 0; t < len; ++t) text += std::string(kEveryday[lo + uniformIndex(rng, 15)]) + " ";
    }
    text += "\n";
  }
  return text;
}

fs::path tempDir(const char* name) {
  const fs::path dir = fs::temp_directory_path() / (std::string("dplda_vocab_") + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

bool hasWord(const Corpus& c, const std::string& w) {
  return std::find(c.vocab.begin(), c.vocab.end(), w) != c.vocab.end();
}

TextImportParams paramsFor(const fs::path& input, int vocab) {
  TextImportParams p;
  p.input = input.string();
  p.vocabSize = vocab;
  return p;
}

Corpus importOrFail(const TextImportParams& p, RandomSource* noise = nullptr, TextImportReport* report = nullptr) {
  auto r = importText(p, report, nullptr, noise);
  if (!r.ok()) qFatal("import failed: %s", r.status().message().c_str());
  return std::move(r).value();
}

PrivateRunResult whitenedRun(const Corpus& corpus, std::uint64_t noiseSeed) {
  SpectralPipeline pipeline;
  pipeline.setCorpus(std::make_shared<Corpus>(corpus));
  SpectralOptions so;
  so.topicCount = 2;
  so.alpha0 = 1.0;
  pipeline.setOptions(so);
  PrivacyOptions o;
  o.edges = (1u << 2) | (1u << 5) | (1u << 6);
  o.whitened.enabled = true;
  o.accountant = Accountant::GaussianDp;
  o.epsilon = 1.0;
  o.delta = 1e-5;
  o.nonPrivateDiagnostics = false;
  SeededRandom noise(noiseSeed);
  auto r = runPrivate(pipeline, o, noise);
  if (!r.ok()) qFatal("run failed: %s", r.status().message().c_str());
  return std::move(r).value();
}

}  // namespace

class TestTextVocabulary : public QObject {
  Q_OBJECT

 private slots:
  void calibrationMatchesTheProof() {
    VocabularySelectionParams p;
    p.epsilon = 1.0;
    p.delta = 1e-6;
    p.maxWordsPerDocument = 20;
    const auto cal = calibrateVocabularySelection(p, 400);
    QVERIFY(cal.ok());
    QCOMPARE(cal.value().sensitivity, std::sqrt(40.0));
    // σ: the analytic Gaussian for (ε, δ/2) at √(2m), with the sampler reserve for m·N draws.
    const auto g = calibrate(Mechanism::AnalyticGaussian, 1.0, 0.5e-6, std::sqrt(40.0), 20.0 * 400);
    QVERIFY(g.ok());
    QCOMPARE(cal.value().sigma, g.value().scale);
    // τ: a single-document word passes with probability at most (δ/2)/((1 + e^ε) m), and not far below.
    const double target = 0.5e-6 / ((1.0 + std::exp(1.0)) * 20.0);
    const double keep = singleDocumentKeepProbability(cal.value());
    QVERIFY(keep <= target);
    QVERIFY(keep > 0.999 * target);
    // Refusals name the parameter.
    for (double bad : {0.0, -1.0, std::nan(""), 31.0}) {
      VocabularySelectionParams q = p;
      q.epsilon = bad;
      const auto r = calibrateVocabularySelection(q, 400);
      QVERIFY(!r.ok());
      QVERIFY(r.status().message().find("epsilon") != std::string::npos);
    }
    VocabularySelectionParams q = p;
    q.maxWordsPerDocument = 0;
    QVERIFY(!calibrateVocabularySelection(q, 400).ok());
    q = p;
    q.delta = 1.0;
    QVERIFY(!calibrateVocabularySelection(q, 400).ok());
  }

  // With a large δ the threshold's share is measurable: a word that one document alone contributes
  // is kept at the rate Φ̄((τ − 1)/σ), and that rate is below (δ/2)/((1 + e^ε) m) <= δ.
  void singleDocumentWordKeptAtTheCalibratedRate() {
    VocabularySelectionParams p;
    p.epsilon = 1.0;
    p.delta = 0.3;
    p.maxWordsPerDocument = 1;
    const auto cal = calibrateVocabularySelection(p, 100);
    QVERIFY(cal.ok());
    const double expected = singleDocumentKeepProbability(cal.value());
    QVERIFY(expected <= 0.15 / (1.0 + std::exp(1.0)));
    SeededRandom rng(5);
    const int draws = 40000;
    int kept = 0;
    for (int t = 0; t < draws; ++t) kept += !selectVocabulary({1}, cal.value(), 10, rng).empty();
    const double rate = static_cast<double>(kept) / draws;
    const double sd = std::sqrt(expected * (1 - expected) / draws);
    QVERIFY2(std::abs(rate - expected) < 5 * sd,
             qPrintable(QString("rate %1, expected %2 (sd %3)").arg(rate).arg(expected).arg(sd)));
  }

  // The construction: "zebra" x 800 in one line. The old rule (the corpus's counts) always
  // puts it in the vocabulary; the private selection never does (it counts documents, not tokens,
  // and one document is below the threshold), while the everyday words, each used by hundreds of
  // lines, are kept.
  void zebraIsNotSelectedButFrequentWordsAre() {
    const fs::path dir = tempDir("zebra");
    writeFile(dir / "d.txt", everydayText(false));
    writeFile(dir / "dprime.txt", everydayText(true));
    TextImportParams counts = paramsFor(dir / "dprime.txt", 20);
    counts.vocabularyRule = VocabularyRule::CorpusCounts;
    QVERIFY(hasWord(importOrFail(counts), "zebra"));  // the leak this issue is about

    int zebra = 0, sharedKept = 0;
    const int imports = 200;
    for (int t = 0; t < imports; ++t) {
      SeededRandom noise(1000 + t);
      const Corpus c = importOrFail(paramsFor(dir / "dprime.txt", 20), &noise);
      zebra += hasWord(c, "zebra");
      // Words 10-14 are in both halves: each is used by about 350 of the 400 lines.
      for (int w = 10; w < 15; ++w) sharedKept += hasWord(c, kEveryday[w]);
      QVERIFY(std::is_sorted(c.vocab.begin(), c.vocab.end()));  // a public order, not the counts
      QVERIFY(c.vocab.size() <= 20);
    }
    QCOMPARE(zebra, 0);
    QCOMPARE(sharedKept, imports * 5);
    // The document counts and the selection directly, many more draws: zebra's count is 1.
    const auto cal = calibrateVocabularySelection(VocabularySelectionParams{}, 400);
    QVERIFY(cal.ok());
    qInfo("default selection at N = 400: sigma %.4g, threshold %.4g documents", cal.value().sigma,
          cal.value().threshold);
    SeededRandom rng(7);
    int kept = 0;
    for (int t = 0; t < 20000; ++t) kept += !selectVocabulary({1}, cal.value(), 20, rng).empty();
    QCOMPARE(kept, 0);  // P = Φ̄((τ−1)/σ) < 1e-8
    fs::remove_all(dir);
  }

  // N is public: a line that the vocabulary empties stays a document (empty), so both neighbours
  // have N = 400; under --vocab-from-counts it would be dropped.
  void neighboursKeepTheSameN() {
    const fs::path dir = tempDir("n");
    std::string d = everydayText(false), dprime = d;
    const std::size_t line2 = dprime.find('\n') + 1;
    dprime.replace(line2, dprime.find('\n', line2) - line2, "zebra zebra zebra quagga");
    writeFile(dir / "d.txt", d);
    writeFile(dir / "dprime.txt", dprime);
    writeFile(dir / "vocab.txt", "apple\nbread\nchair\ndance\nearth\nfield\ngrass\nhouse\n");
    for (const char* input : {"d.txt", "dprime.txt"}) {
      TextImportParams p = paramsFor(dir / input, 20);
      p.vocabularyRule = VocabularyRule::PublicFile;
      p.vocabularyFile = (dir / "vocab.txt").string();
      TextImportReport report;
      const Corpus c = importOrFail(p, nullptr, &report);
      QCOMPARE(c.docCount(), 400);
      QCOMPARE(c.emptyDocuments, report.emptyDocuments);
      QCOMPARE(c.droppedDocuments, 0);
      QVERIFY(c.provenance.shortDocumentsKept);
      // The coordinates follow the file.
      QCOMPARE(c.vocab.front(), std::string("apple"));
      QCOMPARE(c.vocab.back(), std::string("house"));
      QCOMPARE(c.provenance.vocabulary, VocabularyOrigin::Public);
    }
    TextImportParams counts = paramsFor(dir / "dprime.txt", 20);
    counts.vocabularyRule = VocabularyRule::CorpusCounts;
    counts.vocabSize = 8;
    const Corpus dropped = importOrFail(counts);
    QVERIFY(dropped.docCount() < 400 || hasWord(dropped, "zebra"));
    fs::remove_all(dir);
  }

  void publicListErrorsNameTheLine() {
    const fs::path dir = tempDir("list");
    const auto errorOf = [&](const std::string& text) {
      writeFile(dir / "v.txt", text);
      const auto r = readVocabularyList((dir / "v.txt").string());
      return r.ok() ? std::string() : r.status().message();
    };
    QVERIFY(errorOf("alpha\nbeta\nalpha\n").find("line 3") != std::string::npos);
    QVERIFY(errorOf("alpha\nbeta\nalpha\n").find("already on line 1") != std::string::npos);
    QVERIFY(errorOf("alpha\n\nbeta\n").find("line 2 is empty") != std::string::npos);
    QVERIFY(errorOf("alpha beta\n").find("white space") != std::string::npos);
    QVERIFY(errorOf(std::string("al\xff") + "pha\n").find("invalid UTF-8") != std::string::npos);
    QVERIFY(errorOf("").find("no words") != std::string::npos);
    QVERIFY(errorOf("alpha\r\nbeta\n\n\n").empty());  // CRLF and trailing blank lines are fine
    // A few lines: no word reaches the private selection's threshold, and the message says what to do.
    writeFile(dir / "few.txt", "alpha beta gamma\nalpha beta gamma\n");
    const auto none = importText(paramsFor(dir / "few.txt", 10));
    QVERIFY(!none.ok());
    QVERIFY(none.status().message().find("kept no word") != std::string::npos);
    QVERIFY(none.status().message().find("--vocabulary") != std::string::npos);
    TextImportParams p = paramsFor(dir / "missing-input.txt", 10);
    writeFile(dir / "in.txt", "alpha beta gamma\n");
    p.input = (dir / "in.txt").string();
    p.vocabularyRule = VocabularyRule::PublicFile;
    p.vocabularyFile = (dir / "nope.txt").string();
    const auto r = importText(p);
    QVERIFY(!r.ok());
    QVERIFY(r.status().message().find("nope.txt") != std::string::npos);
    fs::remove_all(dir);
  }

  // provenance.json and the empty documents survive the round trip through docword.txt, with and
  // without the binary cache.
  void provenanceAndEmptyDocumentsRoundTrip() {
    const fs::path dir = tempDir("roundtrip");
    std::string text = everydayText(false, 60);
    text += "zebra quagga\n";  // no vocabulary word: an empty document
    writeFile(dir / "in.txt", text);
    SeededRandom noise(3);
    TextImportParams p = paramsFor(dir / "in.txt", 20);
    p.selection.epsilon = 5.0;  // 61 documents: a large budget so that words pass
    p.selection.maxWordsPerDocument = 5;
    const Corpus c = importOrFail(p, &noise);
    QCOMPARE(c.docCount(), 61);
    QVERIFY(c.emptyDocuments >= 1);
    QVERIFY(writeUciCorpus(c, (dir / "corpus").string()).isOk());
    QVERIFY(writeCorpusProvenance(c.provenance, (dir / "corpus").string()).isOk());
    for (bool cache : {false, true, true}) {  // the second cached load reads the cache
      auto back = loadUciCorpus((dir / "corpus").string(), CorpusCacheOptions{cache});
      QVERIFY2(back.ok(), back.ok() ? "" : back.status().message().c_str());
      QCOMPARE(back.value().docCount(), 61);
      QCOMPARE(back.value().emptyDocuments, c.emptyDocuments);
      QCOMPARE(back.value().provenance.vocabulary, VocabularyOrigin::PrivateSelection);
      QCOMPARE(back.value().provenance.selection.sigma, c.provenance.selection.sigma);
      QCOMPARE(back.value().provenance.selection.threshold, c.provenance.selection.threshold);
      QCOMPARE(back.value().vocab, c.vocab);
    }
    writeFile(dir / "corpus" / "provenance.json", "{\"format\": \"dplda-corpus-provenance\", \"version\": 1}");
    const auto broken = loadUciCorpus((dir / "corpus").string(), CorpusCacheOptions{false});
    QVERIFY(!broken.ok());
    QVERIFY(broken.status().message().find("provenance.json") != std::string::npos);
    fs::remove_all(dir);
  }

  // Empty documents count in N and add nothing: M̂2 of a corpus with them is the formula of SPEC §3
  // with N including them, and replacing the largest documents by empty ones moves M̂2 and M̂3 by at
  // most Δ2 and Δ3 (the bounds' proofs only use per-document norms, which 0 satisfies).
  void emptyDocumentMovesMomentsWithinTheirBounds() {
    const double alpha0 = 1.0, a = alpha0 / (alpha0 + 1.0);
    SeededRandom rng(11);
    const int N = 30, d = 6;
    std::vector<CountTriplet> t;
    for (int n = 0; n < N; ++n) {
      const int words = 3 + static_cast<int>(uniformIndex(rng, 8));
      for (int w = 0; w < words; ++w) t.push_back({n, static_cast<int>(uniformIndex(rng, d)), 1.0});
    }
    t.push_back({0, 0, 40.0});  // one long document (its replacement moves M̂2 the most)
    const Corpus full = buildCorpus(N, d, t).value();
    QCOMPARE(full.docCount(), N);
    std::vector<CountTriplet> t2;
    for (const CountTriplet& x : t)
      if (x.doc != 0) t2.push_back(x);
    Corpus emptied = buildCorpus(N, d, t2).value();  // document 0 dropped ...
    keepDroppedAsEmpty(emptied);                     // ... and kept as an empty row
    QCOMPARE(emptied.docCount(), N);
    QCOMPARE(emptied.emptyDocuments, 1);
    const Eigen::MatrixXd m2 = secondMomentDense(full, alpha0).value();
    const Eigen::MatrixXd m2e = secondMomentDense(emptied, alpha0).value();
    QVERIFY(m2e.allFinite());
    // SPEC §3 by hand with document 0's terms zero and N = 30.
    Eigen::VectorXd S1 = Eigen::VectorXd::Zero(d);
    Eigen::MatrixXd S2 = Eigen::MatrixXd::Zero(d, d), A1 = Eigen::MatrixXd::Zero(d, d);
    for (int n = 0; n < N; ++n) {
      const double l = emptied.lengths[n];
      if (l == 0) continue;
      const Eigen::VectorXd c = emptied.counts.row(n).transpose();
      S1 += c / l;
      A1 += (c / l) * (c / l).transpose();
      S2 += (c * c.transpose() - Eigen::MatrixXd(c.asDiagonal())) / (l * (l - 1));
    }
    const Eigen::MatrixXd byHand = S2 / N - a / (N * (N - 1.0)) * (S1 * S1.transpose() - A1);
    QVERIFY((m2e - byHand).norm() < 1e-14);
    const double delta2 = secondMomentSensitivity(N, alpha0);
    QVERIFY2((m2 - m2e).norm() <= delta2,
             qPrintable(QString("|dM2| %1 > Delta2 %2").arg((m2 - m2e).norm()).arg(delta2)));
    const Tensor3 m3 = thirdMomentExplicit(full, alpha0).value();
    const Tensor3 m3e = thirdMomentExplicit(emptied, alpha0).value();
    const double delta3 = thirdMomentSensitivity(N, alpha0, BoundSet::Sound);
    QVERIFY((m3 - m3e).frobeniusNorm() <= delta3);
    QVERIFY((m3 - m3e).frobeniusNorm() > 0.0);
  }

  // The labels (docs/PRIVACY.md §13.4): counts -> not-private; private selection -> proven with its
  // ledger row and totals; unknown -> the caution; public -> proven.
  void claimsFollowTheVocabulary() {
    const fs::path dir = tempDir("claims");
    writeFile(dir / "in.txt", everydayText(false));
    TextImportParams counts = paramsFor(dir / "in.txt", 20);
    counts.vocabularyRule = VocabularyRule::CorpusCounts;
    const PrivateRunResult fromCounts = whitenedRun(importOrFail(counts), 1);
    QCOMPARE(fromCounts.statement.claim, PrivacyClaim::NotPrivate);
    QVERIFY(fromCounts.statement.summary.find("own word counts") != std::string::npos);

    SeededRandom noise(2);
    const Corpus selected = importOrFail(paramsFor(dir / "in.txt", 20), &noise);
    const PrivateRunResult priv = whitenedRun(selected, 1);
    QCOMPARE(priv.statement.claim, PrivacyClaim::Proven);
    QVERIFY(!priv.ledger.empty());
    QCOMPARE(priv.ledger.front().node, std::string("vocabulary"));
    QCOMPARE(priv.ledger.front().epsilon, 1.0);
    QVERIFY(priv.ledger.front().spent);
    double eps = 0.0;
    for (const LedgerEntry& e : priv.ledger)
      if (e.spent) eps += e.epsilon;
    QCOMPARE(priv.epsilonSpent, eps);  // the totals include the selection
    QVERIFY(priv.epsilonSpent > 1.0);

    Corpus unknown = selected;
    unknown.provenance = CorpusProvenance{};
    const PrivateRunResult u = whitenedRun(unknown, 1);
    QCOMPARE(u.statement.claim, PrivacyClaim::Proven);
    bool caution = false;
    for (const std::string& c : u.statement.cautions) caution = caution || c.find("vocabulary assumed public") == 0;
    QVERIFY(caution);
    QCOMPARE(u.ledger.front().node == "vocabulary", false);
    fs::remove_all(dir);
  }
};

QTEST_GUILESS_MAIN(TestTextVocabulary)
#include "tst_text_vocabulary.moc"
