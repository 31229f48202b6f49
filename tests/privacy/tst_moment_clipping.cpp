// Clipping inside configurations 1–4 (docs/PRIVACY.md §12): the clipped M̂2ᶜ, M̂3ᶜ match an
// independent brute-force evaluation of their definition and SPEC §3's estimators when nothing is
// clipped; Lemma C4's Δ2ᶜ, Δ3ᶜ and ‖M̂3ᶜ‖_F bound hold on adversarial neighbours (and the unclipped
// change exceeds Δ3ᶜ: the negative control); a private run carries the clipped bounds and names them.
#include <QtTest>
#include <cmath>
#include <map>

#include "core/moments/clipped_moments.h"
#include "core/moments/moments.h"
#include "core/pipeline/private_run.h"
#include "test_util.h"

using namespace dplda;
using dplda::test::smallLda;

namespace {

constexpr double kTol = 1e-9;  // relative slack for rounding in the probes
using Doc = std::vector<std::pair<int, double>>;

Corpus withDocument(const Corpus& c, int slot, const Doc& doc) {
  std::vector<CountTriplet> t;
  for (int n = 0; n < c.docCount(); ++n)
    if (n != slot)
      for (SparseCounts::InnerIterator it(c.counts, n); it; ++it) t.push_back({n, static_cast<int>(it.col()), it.value()});
  for (const auto& [w, k] : doc) t.push_back({slot, w, k});
  return buildCorpus(c.docCount(), c.vocabSize(), t).value();
}

// M̂3ᶜ through W = I, i.e. the d x d x d raw clipped third moment.
Tensor3 clippedM3(const Corpus& c, double a0, const MomentClip& clip) {
  const ClippedMomentScales s = clippedMomentScales(c, clip).value();
  return whitenedThirdMoment(c, a0, Eigen::MatrixXd::Identity(c.vocabSize(), c.vocabSize()), nullptr, &s.scales).value();
}
Eigen::MatrixXd clippedM2(const Corpus& c, double a0, const MomentClip& clip) {
  const ClippedMomentScales s = clippedMomentScales(c, clip).value();
  return SecondMomentOperator(c, a0, &s.scales).toDense().value();
}

// The definition, term by term: explicit per-document tensors, clipped by their own Frobenius norm,
// and the sums over distinct documents by brute force (independent of the fast path's algebra).
Tensor3 bruteForceClippedM3(const Corpus& c, double a0, const MomentClip& clip) {
  const int d = c.vocabSize(), N = c.docCount();
  const MomentConstants mc = MomentConstants::fromAlpha0(a0);
  std::vector<Eigen::VectorXd> m(N);
  std::vector<Eigen::MatrixXd> P(N);
  std::vector<Tensor3> t(N, Tensor3(d));
  for (int n = 0; n < N; ++n) {
    std::vector<int> tokens;
    for (SparseCounts::InnerIterator it(c.counts, n); it; ++it)
      for (int r = 0; r < static_cast<int>(it.value()); ++r) tokens.push_back(static_cast<int>(it.col()));
    const double l = static_cast<double>(tokens.size());
    m[n] = Eigen::VectorXd::Zero(d);
    P[n] = Eigen::MatrixXd::Zero(d, d);
    for (std::size_t x = 0; x < tokens.size(); ++x) {
      m[n][tokens[x]] += 1.0 / l;
      for (std::size_t y = 0; y < tokens.size(); ++y) {
        if (y == x) continue;
        P[n](tokens[x], tokens[y]) += 1.0 / (l * (l - 1.0));
        for (std::size_t z = 0; z < tokens.size(); ++z)
          if (z != x && z != y) t[n](tokens[x], tokens[y], tokens[z]) += 1.0 / (l * (l - 1.0) * (l - 2.0));
      }
    }
    if (m[n].norm() > clip.m1) m[n] *= clip.m1 / m[n].norm();
    if (P[n].norm() > clip.m2) P[n] *= clip.m2 / P[n].norm();
    if (t[n].frobeniusNorm() > clip.m3) t[n] *= clip.m3 / t[n].frobeniusNorm();
  }
  Tensor3 out(d);
  const double Nd = N;
  for (int n = 0; n < N; ++n) {
    Tensor3 x = t[n];
    x *= 1.0 / Nd;
    out += x;
  }
  const double beta = mc.b / (Nd * (Nd - 1.0)), gamma = mc.c / (Nd * (Nd - 1.0) * (Nd - 2.0));
  for (int n = 0; n < N; ++n)
    for (int q = 0; q < N; ++q) {
      if (q == n) continue;
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j)
          for (int l = 0; l < d; ++l)
            out(i, j, l) += beta * (P[n](i, j) * m[q][l] + P[n](i, l) * m[q][j] + P[n](j, l) * m[q][i]);
      for (int p = 0; p < N; ++p)
        if (p != n && p != q) out.addOuter(gamma, m[n], m[q], m[p]);
    }
  return out;
}

// Adversarial documents for d words: shortest and very long single-word documents, an "opposite"
// pair on other words, every word once, a long document over every word.
std::vector<Doc> adversarialDocuments(int d) {
  std::vector<Doc> docs = {{{0, 3}}, {{0, 1e5}}, {{d - 1, 3}}, {{1, 2}, {2, 1}}, {{d - 2, 5e4}, {d - 1, 5e4}}};
  Doc all, allLong;
  for (int i = 0; i < d; ++i) all.push_back({i, 1}), allLong.push_back({i, 1000});
  docs.push_back(all);
  docs.push_back(allLong);
  return docs;
}

const std::vector<MomentClip> kClips = {
    {true, 0.5, 0.3, 0.15}, {true, 0.2, 0.05, 0.01}, {true, 1.0, 1.0, 1.0}, {true, 0.9, 0.1, 0.5}, {true, 3.0, 0.2, 2.0}};

// A 3-topic pipeline on documents clipped to the sweep's bounds C1 = 0.5, C2 = 0.3, C3 = 0.15.
struct ClippedPipeline {
  std::shared_ptr<const Corpus> corpus;
  SpectralOptions options;
  SpectralPipeline pipeline;
  ClippedPipeline(int d, int docs, std::uint64_t seed) : corpus(std::make_shared<const Corpus>(smallLda(d, 3, docs, seed))) {
    options.topicCount = 3;
    options.clip = {true, 0.5, 0.3, 0.15};
    pipeline.setCorpus(corpus);
    pipeline.setOptions(options);
  }
};

}  // namespace

class TestMomentClipping : public QObject {
  Q_OBJECT
 private slots:
  void clippedEstimatorsMatchTheDefinition() {
    const Corpus c = smallLda(6, 2, 24, 3);
    for (const MomentClip& clip : {MomentClip{true, 0.45, 0.2, 0.08}, MomentClip{true, 2.0, 2.0, 2.0}}) {
      const Tensor3 ref = bruteForceClippedM3(c, 0.7, clip);
      QVERIFY2(test::relativeError(clippedM3(c, 0.7, clip), ref) < 1e-12, "M3c against its definition");
    }
    // Nothing clipped: SPEC §3's M̂3 and M̂2.
    const Corpus big = smallLda(8, 3, 300, 5);
    const MomentClip none{true, 2.0, 2.0, 2.0};
    const ClippedMomentScales s = clippedMomentScales(big, none).value();
    QCOMPARE(s.fractionClippedM1 + s.fractionClippedM2 + s.fractionClippedM3, 0.0);
    QVERIFY(test::relativeError(clippedM3(big, 1.0, none), thirdMomentExplicit(big, 1.0).value()) < 1e-12);
    QVERIFY(test::relativeError(clippedM2(big, 1.0, none), secondMomentDense(big, 1.0).value()) < 1e-12);
    // Scales of 1 change no bit of T̂ (the unclipped default path stays bit-identical).
    const Eigen::MatrixXd W = Eigen::MatrixXd::Random(8, 3);
    const Tensor3 plain = whitenedThirdMoment(big, 1.0, W).value();
    const Tensor3 scaled = whitenedThirdMoment(big, 1.0, W, nullptr, &s.scales).value();
    QVERIFY(std::equal(plain.data(), plain.data() + plain.size(), scaled.data()));
    // Tight bounds clip and change the estimate.
    const ClippedMomentScales tight = clippedMomentScales(big, {true, 0.3, 0.1, 0.03}).value();
    QVERIFY(tight.fractionClippedM1 > 0.3 && tight.fractionClippedM2 > 0.3 && tight.fractionClippedM3 > 0.3);
  }

  void lemmaC4HoldsOnAdversarialNeighbours() {
    const Corpus base = smallLda(10, 3, 60, 7);
    const std::vector<Doc> docs = adversarialDocuments(10);
    double worst3 = 0.0, worst2 = 0.0, worstNorm = 0.0, unclippedOverTight = 0.0;
    for (const MomentClip& clip : kClips) {
      for (double a0 : {0.3, 1.0}) {
        const ClippedMomentBounds b = clippedMomentBounds(base.docCount(), a0, clip);
        std::map<std::size_t, std::pair<Tensor3, Eigen::MatrixXd>> at;
        for (std::size_t i = 0; i < docs.size(); ++i) {
          const Corpus ci = withDocument(base, 0, docs[i]);
          at[i] = {clippedM3(ci, a0, clip), clippedM2(ci, a0, clip)};
          worstNorm = std::max(worstNorm, at[i].first.frobeniusNorm() / b.m3Norm);
        }
        for (std::size_t i = 0; i < docs.size(); ++i)
          for (std::size_t j = i + 1; j < docs.size(); ++j) {
            worst3 = std::max(worst3, (at[i].first - at[j].first).frobeniusNorm() / b.delta3);
            worst2 = std::max(worst2, (at[i].second - at[j].second).norm() / b.delta2);
          }
      }
    }
    qInfo("worst change / bound: Delta3c %.4f, Delta2c %.4f, ||M3c||_F / m3c %.4f", worst3, worst2, worstNorm);
    QVERIFY(worst3 <= 1.0 + kTol && worst2 <= 1.0 + kTol && worstNorm <= 1.0 + kTol);
    QVERIFY(worst3 > 0.2);  // the probes come close to the bound: they are not vacuous
    // Negative control: without clipping, the same neighbours move M̂3 far beyond the tight Δ3ᶜ.
    const ClippedMomentBounds tight = clippedMomentBounds(base.docCount(), 1.0, kClips[1]);
    const Tensor3 a = thirdMomentExplicit(withDocument(base, 0, docs[1]), 1.0).value();
    const Tensor3 b = thirdMomentExplicit(withDocument(base, 0, docs[4]), 1.0).value();
    unclippedOverTight = (a - b).frobeniusNorm() / tight.delta3;
    QVERIFY2(unclippedOverTight > 5.0, QByteArray::number(unclippedOverTight).constData());
  }

  void boundsNeverExceedTheUnclippedOnes() {
    // Lemma C4 with C = 1 is at most SPEC §9's sound Δ3, Δ2 and m3 (the (N−1)/(N−2) factor is dropped).
    for (int N : {3, 10, 1000, 100000})
      for (double a0 : {0.01, 1.0, 50.0}) {
        const ClippedMomentBounds b = clippedMomentBounds(N, a0, {true, 1.0, 1.0, 1.0});
        QVERIFY(b.delta3 <= thirdMomentSensitivity(N, a0, BoundSet::Sound) * (1 + 1e-15));
        QCOMPARE(b.delta2, secondMomentSensitivity(N, a0));
        QVERIFY(b.m3Norm <= m3Constant(N, a0));
        // Bounds above 1 clip nothing and count as 1.
        QCOMPARE(clippedMomentBounds(N, a0, {true, 7.0, 9.0, 2.0}).delta3, b.delta3);
      }
    const ClippedMomentBounds b = clippedMomentBounds(100000, 1.0, {true, 0.5, 0.3, 0.15});
    QVERIFY(std::abs(b.delta3 * 1e5 - (0.3 + 12.0 / 3.0 * 0.15 + 6.0 / 3.0 * 0.125)) < 1e-12);
    QVERIFY(std::abs(b.m3Norm - (0.15 + 0.15 + 0.125 / 3.0)) < 1e-12);
  }

  void privateRunCarriesTheClippedBounds() {
    ClippedPipeline c(20, 4000, 11);
    auto& [corpus, so, p] = c;
    const ClippedMomentBounds cb = clippedMomentBounds(4000, 1.0, so.clip);
    for (int config : {1, 2}) {
      PrivacyOptions o;
      o.edges = presetEdges(config == 1 ? Preset::Config1 : Preset::Config2);
      o.epsilon = 10.0;  // the test is about the ledger, released or not
      SeededRandom noise(3);
      const PrivateRunResult r = runPrivate(p, o, noise).value();
      QCOMPARE(r.statement.claim, PrivacyClaim::Proven);
      QVERIFY(r.statement.summary.find("C3 = 0.15") != std::string::npos);
      bool sawM2 = false, sawM3 = false;
      for (const LedgerEntry& e : r.ledger) {
        QVERIFY2(e.sensitivityFormula.find("Lemma C4") != std::string::npos, e.sensitivityFormula.c_str());
        if (e.node == "M2" || e.node == "sigma_k") {
          QCOMPARE(e.sensitivity, cb.delta2);
          sawM2 = true;
        }
        if (e.node == "M3") {
          QCOMPARE(e.sensitivity, cb.delta3);
          sawM3 = true;
        }
      }
      QVERIFY(sawM2 && (config == 2 || sawM3));
      QVERIFY(std::isfinite(r.diagnostics.nonPrivate.clipped.m3));  // labelled non-private diagnostics
    }
    // The default (no clipping) keeps SPEC §9's Δ2 and no clipping label.
    SpectralPipeline plain;
    plain.setCorpus(corpus);
    so.clip = {};
    plain.setOptions(so);
    PrivacyOptions o;
    o.edges = presetEdges(Preset::Config1);
    SeededRandom noise(3);
    const PrivateRunResult r = runPrivate(plain, o, noise).value();
    QCOMPARE(r.ledger[0].sensitivity, secondMomentSensitivity(4000, 1.0));
    QVERIFY(r.statement.summary.find("clipped") == std::string::npos);
  }

  void refusesWhatNoProofCovers() {
    ClippedPipeline c(12, 300, 2);
    auto& [corpus, so, p] = c;
    auto refused = [&](PrivacyOptions o) {
      SeededRandom noise(1);
      return runPrivate(p, o, noise).status().code() == StatusCode::InvalidArgument;
    };
    PrivacyOptions printed;
    printed.edges = presetEdges(Preset::Config2);
    printed.bounds = BoundSet::Printed;
    QVERIFY(refused(printed));
    PrivacyOptions laplace;
    laplace.edges = 1u << 2 | 1u << 5 | 1u << 3;
    laplace.mechanism = Mechanism::Laplace;
    QVERIFY(refused(laplace));
    PrivacyOptions input;
    input.edges = 1u << 0 | 1u << 1;
    QVERIFY(refused(input));
    PrivacyOptions whitened;
    whitened.edges = 1u << 2 | 1u << 5 | 1u << 6;
    whitened.whitened.enabled = true;
    QVERIFY(refused(whitened));
    so.decomposer = "online";
    QCOMPARE(validateSpectralOptions(so, *corpus).code(), StatusCode::InvalidArgument);
    so.decomposer = "fast";
    so.clip.m3 = -1.0;
    QCOMPARE(validateSpectralOptions(so, *corpus).code(), StatusCode::InvalidArgument);
  }
};

QTEST_APPLESS_MAIN(TestMomentClipping)
#include "tst_moment_clipping.moc"
