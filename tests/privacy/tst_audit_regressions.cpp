// The constructions of the independent privacy audit (issue 9), each a regression test:
//  1. a release or refusal decided by non-private data (σ_k(M̂2) <= 0 on one neighbour);
//  2. sign conventions: the sound bounds hold for the sign-aligned W, W⁺, T̂ (docs/PRIVACY.md §3),
//     and what follows a release depends only on the released value up to those signs;
//  3. the whitening-stability precondition checked privately (a corpus whose eigengap is below Δ2);
//  4. mixed edge sets (not covered by a proven bound) and Laplace on l2-only nodes;
//  6. the ledger of a run that stops early, refusals before any draw, the privacy statement.
#include <QtTest>
#include <cmath>
#include <map>
#include <sstream>

#include "core/corpus/synthetic_generator.h"
#include "core/moments/moments.h"
#include "core/pipeline/private_run.h"
#include "core/tensor/sign_conventions.h"
#include "core/whitening/unwhitening.h"
#include "core/whitening/whitening.h"

using namespace dplda;

namespace {

std::vector<CountTriplet> tripletsOf(const Corpus& c) {
  std::vector<CountTriplet> t;
  for (int n = 0; n < c.docCount(); ++n)
    for (SparseCounts::InnerIterator it(c.counts, n); it; ++it) t.push_back({n, static_cast<int>(it.col()), it.value()});
  return t;
}

// The corpus with document `doc` replaced by `words` (word id -> count): a neighbour.
Corpus replaceDocument(const Corpus& c, int doc, const std::vector<std::pair<int, double>>& words) {
  std::vector<CountTriplet> t;
  for (const CountTriplet& x : tripletsOf(c))
    if (x.doc != doc) t.push_back(x);
  for (const auto& [w, count] : words) t.push_back({doc, w, count});
  return buildCorpus(c.docCount(), c.vocabSize(), t, c.vocab).value();
}

EigenpairsTopK exactEigen(const Corpus& c, double alpha0, int k) {
  return topEigenpairs(secondMomentDense(c, alpha0).value(), k).value();
}

std::string fourDigits(double x) {
  std::ostringstream s;
  s.precision(4);
  s << x;
  return s.str();
}

struct Releases {
  int released = 0;
  std::vector<std::string> messages;
};

Releases releaseRate(const Corpus& c, int k, EdgeSet edges, double epsilon, int trials) {
  SpectralPipeline p;
  p.setCorpus(std::make_shared<const Corpus>(c));
  SpectralOptions o;
  o.topicCount = k;
  p.setOptions(o);
  PrivacyOptions po;
  po.edges = edges;
  po.epsilon = epsilon;
  Releases r;
  for (int t = 0; t < trials; ++t) {
    SeededRandom noise(1000 + t);
    const PrivateRunResult res = runPrivate(p, po, noise).value();
    r.released += res.released ? 1 : 0;
    r.messages.push_back(res.status.message());
    for (const std::string& w : res.warnings) r.messages.push_back(w);
    for (const Precondition& pre : res.diagnostics.preconditions) r.messages.push_back(pre.detail);
  }
  return r;
}

// A corpus whose M̂2 commutes with a cyclic shift of the words by d/3: every document comes with
// its two shifted images, so the top eigenvalues are degenerate to rounding.
Corpus cyclicCorpus(int d, int docs, std::uint64_t seed) {
  GeneratorParams g;
  g.vocabSize = d;
  g.topicCount = 3;
  g.docCount = docs;
  g.seed = seed;
  const Corpus base = generateLdaCorpus(g).value().corpus;
  std::vector<CountTriplet> t;
  for (const CountTriplet& x : tripletsOf(base))
    for (int shift = 0; shift < 3; ++shift) t.push_back({x.doc * 3 + shift, (x.word + shift * d / 3) % d, x.count});
  return buildCorpus(docs * 3, d, t).value();
}

}  // namespace

class TestAuditRegressions : public QObject {
  Q_OBJECT
 private slots:
  // 1. d = 12, N = 400, k = 7; one document replaced by a 6-word one flips the sign of the exact
  // σ_7. Neither configuration 1 nor input perturbation needs σ_k: both must release at the
  // same rate on both corpora, and no message may carry the exact σ_7.
  void nonPrivateFailureDecidesNothing() {
    GeneratorParams g;
    g.vocabSize = 12;
    g.topicCount = 6;  // σ_7 of M̂2 is sampling noise: small, and either sign
    g.docCount = 400;
    g.meanLength = 6;
    const int k = 7;
    std::optional<Corpus> positive, negative;
    for (std::uint64_t seed = 1; seed < 10 && !(positive && negative); ++seed) {
      g.seed = seed;
      const Corpus base = generateLdaCorpus(g).value().corpus;
      const double s0 = exactEigen(base, 1.0, k).values[k - 1];
      // Six-token replacements: three words twice each (repeats allowed).
      for (int w1 = 0; w1 < 12 && !(positive && negative); ++w1)
        for (int w2 = w1; w2 < 12 && !(positive && negative); ++w2)
          for (int w3 = w2; w3 < 12 && !(positive && negative); ++w3) {
            std::map<int, double> words;
            for (int w : {w1, w2, w3}) words[w] += 2.0;
            const Corpus nb = replaceDocument(base, 0, {words.begin(), words.end()});
            const double s1 = exactEigen(nb, 1.0, k).values[k - 1];
            if (std::min(std::abs(s0), std::abs(s1)) < 1e-9) continue;  // not a rounding-level zero
            if (s0 > 0 && s1 < 0) positive = base, negative = nb;
            if (s0 < 0 && s1 > 0) positive = nb, negative = base;
          }
    }
    QVERIFY2(positive && negative, "no neighbouring pair with opposite signs of sigma_7 found");
    const double sigmaNeg = exactEigen(*negative, 1.0, k).values[k - 1];
    const double sigmaPos = exactEigen(*positive, 1.0, k).values[k - 1];
    QVERIFY(sigmaPos > 0 && sigmaNeg < 0);
    {  // the exact pipeline really fails on D' (the old runner refused there, every time)
      SpectralPipeline p;
      p.setCorpus(std::make_shared<const Corpus>(*negative));
      SpectralOptions o;
      o.topicCount = k;
      p.setOptions(o);
      QVERIFY(!p.run().ok());
    }
    const int trials = 20;
    for (const auto& [edges, epsilon] : {std::pair{presetEdges(Preset::Input), 1.0},
                                         std::pair{presetEdges(Preset::Config1), 1000.0}}) {
      const Releases a = releaseRate(*positive, k, edges, epsilon, trials);
      const Releases b = releaseRate(*negative, k, edges, epsilon, trials);
      qInfo("%s at epsilon %g: released %d/20 on D (sigma_7 = %.3g), %d/20 on D' (sigma_7 = %.3g)",
            edgeSetToString(edges).c_str(), epsilon, a.released, sigmaPos, b.released, sigmaNeg);
      // Same noise seeds, neighbouring data: the rates differ only through the noise.
      QVERIFY(std::abs(a.released - b.released) <= 6);
      QVERIFY(a.released + b.released > 0);
      for (const Releases* r : {&a, &b})
        for (const std::string& m : r->messages)
          QVERIFY2(m.find(fourDigits(sigmaNeg)) == std::string::npos && m.find(fourDigits(sigmaPos)) == std::string::npos,
                   m.c_str());
    }
    // The teaching diagnostics report the failure, apart from the release.
    SpectralPipeline p;
    p.setCorpus(std::make_shared<const Corpus>(*negative));
    SpectralOptions o;
    o.topicCount = k;
    p.setOptions(o);
    PrivacyOptions po;
    po.edges = presetEdges(Preset::Config1);
    po.epsilon = 1000.0;
    SeededRandom noise(1);
    const PrivateRunResult r = runPrivate(p, po, noise).value();
    QVERIFY(!r.diagnostics.nonPrivate.available);
    QVERIFY(!r.diagnostics.nonPrivate.failure.empty());
  }

  // 2. d = 10, k = 3, generic topics, one document replaced by a single-word one. The change of
  // W, W⁺ and T̂ after the best sign alignment stays within the sound bounds evaluated at the
  // exact σ_k and eigengap of D (the local sensitivity the private bounds then cover).
  void signAlignedBoundsHold_data() {
    QTest::addColumn<int>("docs");
    QTest::newRow("N = 2e5") << 200000;
    QTest::newRow("N = 2e6") << 2000000;
  }
  void signAlignedBoundsHold() {
    QFETCH(int, docs);
    GeneratorParams g;
    g.vocabSize = 10;
    g.topicCount = 3;
    g.docCount = docs;
    g.beta = 0.5;
    g.meanLength = 10;
    g.seed = 3;
    const int k = 3;
    const Corpus D = generateLdaCorpus(g).value().corpus;
    double worst[3] = {0, 0, 0};
    for (int word = 0; word < 10; ++word) {
      const Corpus Dp = replaceDocument(D, 0, {{word, 3.0}});
      const EigenpairsTopK e = exactEigen(D, 1.0, k), ep = exactEigen(Dp, 1.0, k);
      const Whitening w = whitenFromEigenpairs(e, k).value(), wp = whitenFromEigenpairs(ep, k).value();
      Eigen::VectorXd s(k);
      for (int i = 0; i < k; ++i) s[i] = w.U.col(i).dot(wp.U.col(i)) < 0 ? -1.0 : 1.0;
      SensitivityInputs in;
      in.docCount = D.docCount();
      in.topicCount = k;
      in.alpha0 = 1.0;
      in.sigmaKTilde = e.values[k - 1];
      in.gapTilde = eigengap(e.values, k);
      const double dW = (w.W - wp.W * s.asDiagonal()).norm() / whiteningSensitivity(in);
      const double dWplus = (w.unwhitening - wp.unwhitening * s.asDiagonal()).norm() / unwhiteningSensitivity(in);
      Tensor3 t = whitenedThirdMoment(D, 1.0, w.W).value();
      Tensor3 tp = whitenedThirdMoment(Dp, 1.0, wp.W).value();
      applyCoordinateSigns(tp, s);
      const double dT = (t - tp).frobeniusNorm() / whitenedTensorSensitivity(in, BoundSet::Sound);
      worst[0] = std::max(worst[0], dW);
      worst[1] = std::max(worst[1], dWplus);
      worst[2] = std::max(worst[2], dT);
      QVERIFY(std::isfinite(dW) && std::isfinite(dWplus) && std::isfinite(dT));
    }
    qInfo("N = %d: change over the sound bound, worst of 10 neighbours: W %.3g, W+ %.3g, T %.3g", docs, worst[0],
          worst[1], worst[2]);
    for (double r : worst) QVERIFY(r <= 1.0);
  }

  // What follows a release of T̂, TD, W or W⁺ sees it only up to the signs of the whitened
  // coordinates: canonicalising S·X gives the same as canonicalising X.
  void canonicalisationIsSignInvariant() {
    SeededRandom rng(5);
    for (int trial = 0; trial < 50; ++trial) {
      const int k = 1 + trial % 6;
      Tensor3 T(k);
      for (int i = 0; i < k; ++i)
        for (int j = i; j < k; ++j)
          for (int l = j; l < k; ++l) {
            const double v = standardNormal(rng);
            for (auto [a, b, c] : {std::tuple{i, j, l}, {i, l, j}, {j, i, l}, {j, l, i}, {l, i, j}, {l, j, i}}) T(a, b, c) = v;
          }
      Eigen::VectorXd S(k);
      for (int i = 0; i < k; ++i) S[i] = standardNormal(rng) < 0 ? -1.0 : 1.0;
      Tensor3 flipped = T;
      applyCoordinateSigns(flipped, S);
      Tensor3 a = T, b = flipped;
      applyCoordinateSigns(a, canonicalTensorSigns(a));
      applyCoordinateSigns(b, canonicalTensorSigns(b));
      QVERIFY((a - b).frobeniusNorm() == 0.0);
      for (int i = 0; i < k; ++i) QVERIFY(a(i, i, i) >= 0.0);
      const Eigen::MatrixXd M = Eigen::MatrixXd::NullaryExpr(7, k, [&] { return standardNormal(rng); });
      const Eigen::MatrixXd Mc = M * canonicalColumnSigns(M).asDiagonal();
      const Eigen::MatrixXd MS = M * S.asDiagonal();
      QVERIFY(Mc == MS * canonicalColumnSigns(MS).asDiagonal());
      const Eigen::MatrixXd V = Eigen::MatrixXd::NullaryExpr(k, k, [&] { return standardNormal(rng); });
      const Eigen::MatrixXd SV = S.asDiagonal() * V;
      QVERIFY(canonicalRowSigns(V).asDiagonal() * V == canonicalRowSigns(SV).asDiagonal() * SV);
    }
  }

  // The frames of two releases are reconciled from released values only: the exact topics come
  // back when the decomposition's coordinates carry other signs than the unwhitening matrix.
  void alignmentRecoversTheFrame() {
    GeneratorParams g;
    g.vocabSize = 30;
    g.topicCount = 4;
    g.docCount = 50000;
    g.seed = 9;
    SpectralPipeline p;
    p.setCorpus(std::make_shared<const Corpus>(generateLdaCorpus(g).value().corpus));
    SpectralOptions o;
    o.topicCount = 4;
    p.setOptions(o);
    const SpectralModel m = p.run().value();
    for (unsigned mask = 0; mask < 16; ++mask) {
      Eigen::VectorXd S(4);
      for (int i = 0; i < 4; ++i) S[i] = (mask >> i) & 1u ? -1.0 : 1.0;
      TensorEigenpairs td = m.eigenpairs;
      td.V = S.asDiagonal() * td.V;  // the decomposition in another sign frame
      const Eigen::VectorXd a = alignToUnwhitening(td, m.whitening.unwhitening, 1.0);
      QVERIFY2(a == S, qPrintable(QString("mask %1").arg(mask)));
    }
  }

  // 3. An eigengap below Δ2 (d = 30, N = 3e4, k = 3, a cyclically symmetric corpus whose σ_2 and
  // σ_3 coincide to rounding): configuration 2 never releases, at any ε, and says why.
  void eigengapIsCheckedPrivately() {
    const Corpus c = cyclicCorpus(30, 10000, 4);
    const EigenpairsTopK e = exactEigen(c, 1.0, 3);
    const double gap = eigengap(e.values, 3);
    const double delta2 = secondMomentSensitivity(c.docCount(), 1.0);
    qInfo("cyclic corpus: eigengap %.3g, Delta2 %.3g", gap, delta2);
    QVERIFY(gap < 1e-12 && gap < delta2);
    for (double eps : {1.0, 1e3, 1e6}) {
      const Releases r = releaseRate(c, 3, presetEdges(Preset::Config2), eps, 5);
      QCOMPARE(r.released, 0);
      bool named = false;
      for (const std::string& m : r.messages) named = named || m.find("gap_tilde") != std::string::npos;
      QVERIFY(named);
    }
  }

  // 4. Sets whose release depends on the data through a clean and a noisy path are cuts, but no
  // proven bound covers them: 304 of the 923 cuts, as the audit counted.
  void mixedSetsAreNotCovered() {
    int cuts = 0, mixed = 0;
    for (EdgeSet s = 1; s < (1u << kEdgeCount); ++s) {
      const PrivacyDecision d = decidePrivacy(s);
      if (!d.isPrivate) continue;
      ++cuts;
      if (!d.coveredByProvenBounds()) ++mixed;
      StatementInputs in;
      in.edges = s;
      QCOMPARE(privacyStatement(in).claim == PrivacyClaim::NotCovered, !d.coveredByProvenBounds());
    }
    QCOMPARE(cuts, 923);
    QCOMPARE(mixed, 304);
    for (const char* set : {"e0,e6", "e2,e9"}) {
      const PrivacyDecision d = decidePrivacy(parseEdgeSet(set).value());
      QVERIFY(d.isPrivate && !d.coveredByProvenBounds());
    }
    QVERIFY(decidePrivacy(parseEdgeSet("e0,e6").value()).mixedReleases == std::vector<Node>{Node::T});
    for (Preset p : {Preset::Config1, Preset::Config2, Preset::Config3, Preset::Config4, Preset::Input})
      QVERIFY(decidePrivacy(presetEdges(p)).coveredByProvenBounds());
  }

  void laplaceOnlyWhereAnL1BoundExists() {
    for (int e : {4, 6, 7, 8, 9}) {
      PrivacyOptions o;
      o.edges = presetEdges(Preset::Config1) | (1u << e);
      o.edges &= ~(1u << 3);  // e3 has its own refusal
      o.mechanism = Mechanism::Laplace;
      const Status s = validatePrivacyOptions(o);
      QCOMPARE(s.code(), StatusCode::InvalidArgument);
      QVERIFY2(s.message().find("l1") != std::string::npos && s.message().find("e" + std::to_string(e)) != std::string::npos,
               s.message().c_str());
    }
    PrivacyOptions o;
    o.edges = parseEdgeSet("e2,e5").value() | (1u << 1);  // M2 (l1 bound Δ2) and e1 (D): allowed
    o.mechanism = Mechanism::Laplace;
    QVERIFY(validatePrivacyOptions(o).isOk());
  }

  // 6. A run that stops at Procedure 1 keeps every ledger row's mechanism and formula; a
  // refusal that public inputs decide happens before any draw.
  void earlyStopKeepsTheLedger() {
    GeneratorParams g;
    g.vocabSize = 20;
    g.topicCount = 3;
    g.docCount = 2000;
    SpectralPipeline p;
    p.setCorpus(std::make_shared<const Corpus>(generateLdaCorpus(g).value().corpus));
    SpectralOptions so;
    so.topicCount = 3;
    p.setOptions(so);
    PrivacyOptions o;
    o.edges = presetEdges(Preset::Config3);
    o.epsilon = 0.1;  // σ̃_k <= Δ2: the γ_s row cannot be evaluated
    SeededRandom noise(2);
    const PrivateRunResult r = runPrivate(p, o, noise).value();
    QVERIFY(!r.released);
    for (const LedgerEntry& e : r.ledger) {
      QVERIFY2(!e.mechanism.empty() && !e.sensitivityFormula.empty(), e.release.c_str());
      if (e.node == "M2") QVERIFY(std::isfinite(e.sensitivity));  // a global bound is known up front
    }
    // Classic Gaussian at ε_i >= 1: refused before σ_k is drawn.
    o.edges = presetEdges(Preset::Config2);
    o.mechanism = Mechanism::ClassicGaussian;
    o.epsilon = 9.0;
    SeededRandom a(7), b(7);
    QCOMPARE(runPrivate(p, o, a).status().code(), StatusCode::InvalidArgument);
    QCOMPARE(a.nextU64(), b.nextU64());
  }

  void statementSaysWhatPrivateCovers() {
    StatementInputs in;
    in.docCount = 20000;  // δ = 1e-5 below 1/N
    in.edges = presetEdges(Preset::Config1);
    in.epsilon = 1.0;
    in.delta = 1e-5;
    QCOMPARE(privacyStatement(in).claim, PrivacyClaim::Proven);
    QVERIFY(privacyStatement(in).cautions.empty());
    in.bounds = BoundSet::Printed;
    QCOMPARE(privacyStatement(in).claim, PrivacyClaim::PrintedBounds);
    in.bounds = BoundSet::Sound;
    in.edges = presetEdges(Preset::Config3);
    QCOMPARE(privacyStatement(in).claim, PrivacyClaim::Heuristic);
    in.edges = presetEdges(Preset::Config2);
    QCOMPARE(privacyStatement(in).claim, PrivacyClaim::Proven);
    in.noiseMultiplier = 0.5;
    QCOMPARE(privacyStatement(in).claim, PrivacyClaim::NotPrivate);
    in.noiseMultiplier = 1.0;
    in.delta = 0.5;
    in.epsilon = 1e9;
    const PrivacyStatement st = privacyStatement(in);
    QCOMPARE(static_cast<int>(st.cautions.size()), 2);  // δ >= 1/N and a very large ε
    in.edges = parseEdgeSet("e6").value();
    QCOMPARE(privacyStatement(in).claim, PrivacyClaim::NotPrivate);
  }
};

QTEST_APPLESS_MAIN(TestAuditRegressions)
#include "tst_audit_regressions.moc"
