// The whitened release (docs/PRIVACY.md §11): the clipped estimators equal SPEC §3's when nothing
// is clipped, Lemmas C2 and C3 hold on adversarial neighbours (and fail without clipping: the
// negative control), and a run has two Gaussian releases with these sensitivities.
#include <QtTest>
#include <cmath>
#include <omp.h>

#include "core/corpus/synthetic_generator.h"
#include "core/eval/metrics.h"
#include "core/moments/clipped_moments.h"
#include "core/moments/moments.h"
#include "core/common/number_text.h"
#include "core/pipeline/private_run.h"
#include "test_util.h"

using namespace dplda;
using dplda::test::smallLda;

namespace {

constexpr double kTol = 1e-9;  // relative slack for rounding in the probes

std::vector<CountTriplet> tripletsOf(const Corpus& c) {
  std::vector<CountTriplet> t;
  for (int n = 0; n < c.docCount(); ++n)
    for (SparseCounts::InnerIterator it(c.counts, n); it; ++it) t.push_back({n, static_cast<int>(it.col()), it.value()});
  return t;
}

// The corpus with document `slot` replaced by `doc` (word -> count).
Corpus replaced(const Corpus& c, int slot, const std::vector<std::pair<int, double>>& doc) {
  std::vector<CountTriplet> t;
  for (const CountTriplet& x : tripletsOf(c))
    if (x.doc != slot) t.push_back(x);
  for (const auto& [w, n] : doc) t.push_back({slot, w, n});
  return buildCorpus(c.docCount(), c.vocabSize(), t).value();
}

// Adversarial documents for a vocabulary of d words and rows w_i of W: the shortest and a very
// long document on the word with the largest row, the two words with the most opposed rows,
// every word once, and a long document over every word.
std::vector<std::vector<std::pair<int, double>>> adversarialDocuments(const Eigen::MatrixXd& W) {
  const int d = static_cast<int>(W.rows());
  int top = 0;
  W.rowwise().norm().maxCoeff(&top);
  int p = 0, q = 1;
  double most = 1e300;
  for (int i = 0; i < d; ++i)
    for (int j = i + 1; j < d; ++j) {
      const double dot = W.row(i).dot(W.row(j));
      if (dot < most) most = dot, p = i, q = j;
    }
  std::vector<std::vector<std::pair<int, double>>> docs = {
      {{top, 3}}, {{top, 1e5}}, {{p, 2}, {q, 1}}, {{p, 5e4}, {q, 5e4}}, {{0, 1}, {1, 1}, {2, 1}}};
  std::vector<std::pair<int, double>> all, allLong;
  for (int i = 0; i < d; ++i) all.push_back({i, 1}), allLong.push_back({i, 1000});
  docs.push_back(all);
  docs.push_back(allLong);
  return docs;
}

// Document n's M̃1ⁿ = c/l and M̃2ⁿ (ordered pairs of distinct tokens over l(l−1)), from its tokens.
std::pair<Eigen::VectorXd, Eigen::MatrixXd> documentTerms(const Corpus& c, int n) {
  std::vector<int> tokens;
  for (SparseCounts::InnerIterator it(c.counts, n); it; ++it)
    for (int r = 0; r < static_cast<int>(it.value()); ++r) tokens.push_back(static_cast<int>(it.col()));
  const int d = c.vocabSize();
  const double l = static_cast<double>(tokens.size());
  Eigen::VectorXd m = Eigen::VectorXd::Zero(d);
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(d, d);
  for (std::size_t x = 0; x < tokens.size(); ++x) {
    m[tokens[x]] += 1.0 / l;
    for (std::size_t y = 0; y < tokens.size(); ++y)
      if (y != x) P(tokens[x], tokens[y]) += 1.0 / (l * (l - 1.0));
  }
  return {m, P};
}

// §11.1's M̂2ᶜ = (1/N) Σ P̄_n − a/(N(N−1)) Σ_{n≠m} m̄_n m̄_mᵀ, term by term.
Eigen::MatrixXd bruteForceClippedM2(const Corpus& c, double a0, const SecondMomentClip& clip) {
  const int N = c.docCount(), d = c.vocabSize();
  std::vector<Eigen::VectorXd> m(N);
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(d, d);
  for (int n = 0; n < N; ++n) {
    auto [mn, Pn] = documentTerms(c, n);
    if (mn.norm() > clip.m1) mn *= clip.m1 / mn.norm();
    if (Pn.norm() > clip.m2) Pn *= clip.m2 / Pn.norm();
    m[n] = mn;
    out += Pn / N;
  }
  const double a = MomentConstants::fromAlpha0(a0).a, pairWeight = a / (double(N) * (N - 1.0));
  for (int n = 0; n < N; ++n)
    for (int q = 0; q < N; ++q)
      if (q != n) out -= pairWeight * m[n] * m[q].transpose();
  return out;
}

double tensorDistance(const Tensor3& a, const Tensor3& b) { return (a - b).frobeniusNorm(); }

}  // namespace

class TestWhitenedRelease : public QObject {
  Q_OBJECT
 private slots:
  void unclippedSecondMomentIsTheEstimator() {
    const Corpus c = smallLda(15, 3, 400, 4);
    const Eigen::MatrixXd ref = secondMomentDense(c, 1.0).value();
    const ClippedSecondMoment m = clippedSecondMomentOperator(c, 1.0, {}).value();
    QVERIFY((m.m2.toDense().value() - ref).cwiseAbs().maxCoeff() <= 1e-12 * ref.cwiseAbs().maxCoeff());
    QCOMPARE(m.fractionClippedM1, 0.0);
    QCOMPARE(m.fractionClippedM2, 0.0);
    // Clipping changes the estimate and is counted.
    const ClippedSecondMoment tight = clippedSecondMomentOperator(c, 1.0, {0.2, 0.05}).value();
    QVERIFY(tight.fractionClippedM1 > 0.5 && tight.fractionClippedM2 > 0.5);
    QVERIFY((tight.m2.toDense().value() - ref).norm() > 1e-3 * ref.norm());
  }

  // The release's M̂2ᶜ (the operator: its products and its dense form) against §11.1's definition
  // evaluated document by document: explicit M̃1ⁿ, M̃2ⁿ from the tokens, each clipped by its own
  // norm, and the sum over ordered pairs of distinct documents.
  void secondMomentOperatorMatchesTheDefinition() {
    Corpus base = smallLda(8, 3, 40, 13);
    // Documents that bind: one word twice (‖M̃1ⁿ‖ = ‖M̃2ⁿ‖_F = 1), a long single-word one, two words.
    const std::vector<std::vector<std::pair<int, double>>> extra = {{{2, 2}}, {{5, 300}}, {{0, 4}, {7, 1}}};
    for (std::size_t i = 0; i < extra.size(); ++i) base = replaced(base, static_cast<int>(3 * i + 1), extra[i]);
    const double a0 = 0.7;
    for (const SecondMomentClip clip : {SecondMomentClip{0.45, 0.2}, SecondMomentClip{0.3, 0.05},
                                        SecondMomentClip{1.0, 1.0}}) {
      const Eigen::MatrixXd ref = bruteForceClippedM2(base, a0, clip);
      const ClippedSecondMoment m = clippedSecondMomentOperator(base, a0, clip).value();
      const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(8, 8);
      Eigen::MatrixXd columns(8, 8);
      for (int j = 0; j < 8; ++j) m.m2.perform_op(I.col(j).data(), columns.col(j).data());
      for (const Eigen::MatrixXd& got : {m.m2.toDense().value(), m.m2.apply(I), columns}) {
        const double err = (got - ref).norm() / ref.norm();
        QVERIFY2(err <= 1e-12, qPrintable(QString::number(err)));
      }
      // The counted fractions are the documents whose term the definition scaled (a norm summed
      // from 300·299 pairs may round above a bound of 1 that it equals).
      int clipped1 = 0, clipped2 = 0;
      for (int n = 0; n < base.docCount(); ++n) {
        const auto [mn, Pn] = documentTerms(base, n);
        clipped1 += mn.norm() > clip.m1 * (1 + kTol);
        clipped2 += Pn.norm() > clip.m2 * (1 + kTol);
      }
      QCOMPARE(m.fractionClippedM1, clipped1 / double(base.docCount()));
      QCOMPARE(m.fractionClippedM2, clipped2 / double(base.docCount()));
      if (clip.m2 < 1.0) QVERIFY(clipped1 > 0 && clipped2 > 0);
    }
  }

  void unclippedWhitenedTensorIsTheEstimator() {
    const Corpus c = smallLda(20, 4, 600, 5);
    const Eigen::MatrixXd W = Eigen::MatrixXd::Random(20, 4);
    const Tensor3 ref = whitenedThirdMoment(c, 0.7, W).value();
    // ρ_W clips nothing (Lemma: convex combinations of the rows of W).
    const ClippedWhitenedTensor t = clippedWhitenedThirdMoment(c, 0.7, W, whitenedRowBound(W) * (1 + 1e-12)).value();
    QVERIFY2(tensorDistance(t.tensor, ref) <= 1e-11 * ref.frobeniusNorm(),
             qPrintable(QString::number(tensorDistance(t.tensor, ref) / ref.frobeniusNorm())));
    QCOMPARE(t.fractionClippedY + t.fractionClippedP + t.fractionClippedT, 0.0);
    QVERIFY(t.tensor.isSymmetric());
    const ClippedWhitenedTensor tight = clippedWhitenedThirdMoment(c, 0.7, W, 0.3 * whitenedRowBound(W)).value();
    QVERIFY(tight.fractionClippedY > 0.0 && tight.fractionClippedT > 0.0);
    QVERIFY(tight.tensor.isSymmetric());
  }

  // Lemma C2 on adversarial neighbours, for clipping bounds that bind and for none.
  void secondMomentProbeStaysWithinLemmaC2() {
    const Corpus base = smallLda(10, 3, 60, 6);
    const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(10, 3);
    for (const SecondMomentClip clip : {SecondMomentClip{1.0, 1.0}, SecondMomentClip{0.3, 0.2}}) {
      const double bound = clippedSecondMomentSensitivity(base.docCount(), 1.0, clip);
      double worst = 0.0, worstUnclipped = 0.0;
      const auto docs = adversarialDocuments(Eigen::MatrixXd::Random(10, 3));
      for (std::size_t i = 0; i < docs.size(); ++i)
        for (std::size_t j = 0; j < docs.size(); ++j) {
          if (i == j) continue;
          const Corpus a = replaced(base, 0, docs[i]), b = replaced(base, 0, docs[j]);
          worst = std::max(worst, (clippedSecondMomentDense(a, 1.0, clip).value() -
                                   clippedSecondMomentDense(b, 1.0, clip).value()).norm());
          worstUnclipped = std::max(worstUnclipped, (secondMomentDense(a, 1.0).value() -
                                                     secondMomentDense(b, 1.0).value()).norm());
        }
      qInfo("C1 %g C2 %g: worst change %.4g, bound %.4g (unclipped %.4g)", clip.m1, clip.m2, worst, bound,
            worstUnclipped);
      QVERIFY(worst <= bound * (1 + kTol));
      QVERIFY(worst >= 0.2 * bound);  // the probe comes near the bound (nonnegative terms: at most 1/sqrt(2) of it)
      if (clip.m2 < 1.0) QVERIFY(worstUnclipped > bound);  // negative control: clipping is what holds it
    }
    (void)I;
  }

  // Lemma C3 on adversarial neighbours for a fixed W, including a row of large norm.
  void whitenedTensorProbeStaysWithinLemmaC3() {
    const Corpus base = smallLda(12, 3, 50, 7);
    Eigen::MatrixXd W = Eigen::MatrixXd::Random(12, 3);
    W.row(5) *= 8.0;  // a rare word: whitening gives it a long row
    for (const double alpha0 : {0.1, 1.0, 10.0}) {
      const double C = 0.25 * whitenedRowBound(W);
      const double bound = clippedWhitenedTensorSensitivity(base.docCount(), alpha0, C);
      double worst = 0.0, worstUnclipped = 0.0;
      const auto docs = adversarialDocuments(W);
      for (std::size_t i = 0; i < docs.size(); ++i)
        for (std::size_t j = 0; j < docs.size(); ++j) {
          if (i == j) continue;
          const Corpus a = replaced(base, 7, docs[i]), b = replaced(base, 7, docs[j]);
          worst = std::max(worst, tensorDistance(clippedWhitenedThirdMoment(a, alpha0, W, C).value().tensor,
                                                 clippedWhitenedThirdMoment(b, alpha0, W, C).value().tensor));
          worstUnclipped = std::max(worstUnclipped, tensorDistance(whitenedThirdMoment(a, alpha0, W).value(),
                                                                   whitenedThirdMoment(b, alpha0, W).value()));
        }
      qInfo("alpha0 %g, C %.3g: worst change %.4g, bound %.4g (unclipped %.4g)", alpha0, C, worst, bound,
            worstUnclipped);
      QVERIFY(worst <= bound * (1 + kTol));
      QVERIFY(worst >= 0.05 * bound);
      QVERIFY(worstUnclipped > bound);  // negative control
      // Without clipping, ρ_W bounds every term: the same lemma with C = ρ_W.
      QVERIFY(worstUnclipped <= clippedWhitenedTensorSensitivity(base.docCount(), alpha0, whitenedRowBound(W)) *
                                    (1 + kTol));
    }
  }

  // A document with more distinct words than one block of clippedWhitenedThirdMoment (its words
  // are taken clippedWhitenedBuffers(k).words at a time): the blocks must add up to the same T̂.
  void longDocumentsSpanSeveralWordBlocks() {
    const int d = 700, k = 4;
    QVERIFY(clippedWhitenedBuffers(k).words < d);
    Corpus base = smallLda(d, 3, 300, 21);
    std::vector<std::pair<int, double>> everyWord;
    for (int w = 0; w < d; ++w) everyWord.push_back({w, 1.0 + w % 3});
    const Corpus c = replaced(replaced(base, 5, everyWord), 9, everyWord);
    const Eigen::MatrixXd W = Eigen::MatrixXd::Random(d, k);
    const Tensor3 ref = whitenedThirdMoment(c, 0.5, W).value();
    const Tensor3 t = clippedWhitenedThirdMoment(c, 0.5, W, whitenedRowBound(W) * (1 + 1e-12)).value().tensor;
    QVERIFY2(tensorDistance(t, ref) <= 1e-11 * ref.frobeniusNorm(),
             qPrintable(QString::number(tensorDistance(t, ref) / ref.frobeniusNorm())));
  }

  void tensorDoesNotDependOnTheThreadCount() {
    const Corpus c = smallLda(40, 5, 30000, 8);
    const Eigen::MatrixXd W = Eigen::MatrixXd::Random(40, 5);
    const int before = omp_get_max_threads();
    omp_set_num_threads(1);
    const Tensor3 one = clippedWhitenedThirdMoment(c, 1.0, W, 2.0).value().tensor;
    omp_set_num_threads(2);
    const Tensor3 two = clippedWhitenedThirdMoment(c, 1.0, W, 2.0).value().tensor;
    omp_set_num_threads(before);
    QVERIFY(std::equal(one.data(), one.data() + one.size(), two.data()));
  }

  void runHasTwoGaussianReleasesAndRecoversTopics() {
    GeneratorParams g;
    g.vocabSize = 30;
    g.topicCount = 3;
    g.docCount = 50000;
    g.seed = 9;
    const SyntheticCorpus sc = generateLdaCorpus(g).value();
    SpectralPipeline p;
    p.setCorpus(std::make_shared<const Corpus>(sc.corpus));
    SpectralOptions so;
    so.topicCount = 3;
    p.setOptions(so);
    PrivacyOptions o;
    o.edges = (1u << 2) | (1u << 5) | (1u << 6);
    o.whitened.enabled = true;
    o.epsilon = 1.0;
    o.accountant = Accountant::GaussianDp;
    SeededRandom noise(10);
    const PrivateRunResult r = runPrivate(p, o, noise).value();
    QVERIFY2(r.released, r.status.message().c_str());
    QCOMPARE(r.statement.claim, PrivacyClaim::Proven);
    QCOMPARE(static_cast<int>(r.ledger.size()), 2);
    QCOMPARE(r.ledger[0].node, std::string("M2"));
    QCOMPARE(r.ledger[1].node, std::string("T"));
    QCOMPARE(r.ledger[0].sensitivity, clippedSecondMomentSensitivity(g.docCount, 1.0, {0.5, 0.3}));
    const double C = whitenedClipBound(o.whitened, 3, 1.0);
    QCOMPARE(C, 2.0 * std::sqrt(4.0));
    QCOMPARE(r.ledger[1].sensitivity, clippedWhitenedTensorSensitivity(g.docCount, 1.0, C));
    QVERIFY(!r.diagnostics.sigmaKTilde.has_value());  // no Procedure 1
    // The explanation beside the claim agrees with it (it said "not covered by a proven bound").
    QVERIFY2(r.statement.explanation.find("not covered") == std::string::npos, r.statement.explanation.c_str());
    QVERIFY2(r.statement.explanation.find("covered by proven bounds") != std::string::npos,
             r.statement.explanation.c_str());
    QVERIFY(std::isfinite(r.diagnostics.nonPrivate.clipped.y));
    const TopicErrors e = compareTopics(sc.truth.topics, sc.truth.alpha, r.output->topics, r.output->alpha);
    qInfo("whitened release at epsilon 1: l2 %.4f, clipped y %.3f p %.3f t %.3f", e.l2Mean,
          r.diagnostics.nonPrivate.clipped.y, r.diagnostics.nonPrivate.clipped.p, r.diagnostics.nonPrivate.clipped.t);
    QVERIFY(e.l2Mean < 0.15);

    // Zero noise and nothing clipped: the non-private spectral output.
    o.noiseMultiplier = 0.0;
    o.whitened.clipToRowBound = true;
    const PrivateRunResult exact = runPrivate(p, o, noise).value();
    QVERIFY(exact.released);
    QCOMPARE(exact.statement.claim, PrivacyClaim::NotPrivate);
    const SpectralModel m = p.run().value();
    const TopicErrors same = compareTopics(m.output.topics, m.output.alpha, exact.output->topics, exact.output->alpha);
    QVERIFY2(same.l2Mean < 1e-8, qPrintable(QString::number(same.l2Mean)));
  }

  void rawModeScalesTheTensorReleaseByTheRowBound() {
    SpectralPipeline p;
    p.setCorpus(std::make_shared<const Corpus>(smallLda(20, 3, 5000, 11)));
    SpectralOptions so;
    so.topicCount = 3;
    p.setOptions(so);
    PrivacyOptions o;
    o.edges = (1u << 2) | (1u << 5) | (1u << 6);
    o.whitened.enabled = true;
    o.whitened.clipToRowBound = true;
    o.epsilon = 2.0;
    SeededRandom noise(12);
    const PrivateRunResult r = runPrivate(p, o, noise).value();
    QVERIFY(r.ledger[1].sensitivityFormula.find("rho_W = ") != std::string::npos);
    const double rho = std::cbrt(r.ledger[1].sensitivity / clippedWhitenedTensorSensitivity(5000, 1.0, 1.0));
    QVERIFY(rho > 1.0 && std::isfinite(rho));
    // σ / Δ is the calibrated multiplier, the same as for the M2 row (basic composition, equal shares).
    QVERIFY(std::abs(r.ledger[1].sigma / r.ledger[1].sensitivity - r.ledger[0].sigma / r.ledger[0].sensitivity) <
            1e-9 * r.ledger[0].sigma / r.ledger[0].sensitivity);
  }

  // Issue 23 §3: --clip-whitened 1e-108 made Δ_T = 0 (C³ underflows), which basic composition
  // refused and the Gaussian-DP path turned into σ = 0 under the claim "proven". One check on every
  // accountant; the message names the bound and its value. Bounds whose Δ is still a normal number
  // with a normal square run.
  void degenerateClipIsRefusedOnEveryAccountant() {
    SpectralPipeline p;
    p.setCorpus(std::make_shared<const Corpus>(smallLda(20, 3, 400, 11)));
    SpectralOptions so;
    so.topicCount = 3;
    p.setOptions(so);
    PrivacyOptions o;
    o.edges = (1u << 2) | (1u << 5) | (1u << 6);
    o.whitened.enabled = true;
    for (Accountant a : {Accountant::Basic, Accountant::GaussianDp}) {
      o.accountant = a;
      for (double c : {1e-108, 1e-103, 1e-60}) {  // Δ_T = 0, subnormal, normal with a subnormal square
        o.whitened.whitenedClip = c;
        SeededRandom noise(1);
        const auto r = runPrivate(p, o, noise);
        QVERIFY2(!r.ok(), qPrintable(QString("C = %1 under %2 was not refused").arg(c).arg(accountantName(a))));
        QCOMPARE(r.status().code(), StatusCode::InvalidArgument);
        const std::string m = r.status().message();
        QVERIFY2(m.find("C = " + shortNumber(c)) != std::string::npos, m.c_str());
        QVERIFY2(m.find("sensitivity of T") != std::string::npos, m.c_str());
      }
      for (double c : {1e-40, 1.0}) {  // small but not degenerate: released, every σ finite and > 0
        o.whitened.whitenedClip = c;
        SeededRandom noise(1);
        const PrivateRunResult r = runPrivate(p, o, noise).value();
        QCOMPARE(r.statement.claim, PrivacyClaim::Proven);
        for (const LedgerEntry& e : r.ledger) {
          QVERIFY2(std::isfinite(e.sigma) && e.sigma >= kSmallestNoiseParameter, e.release.c_str());
          QVERIFY(std::isfinite(e.sensitivity) && e.sensitivity >= kSmallestNoiseParameter);
        }
      }
      // The M2 release's bounds go through the same check.
      o.whitened.whitenedClip = 0.0;
      o.whitened.m2Clip = {1e-200, 1e-200};
      SeededRandom noise(1);
      const auto r = runPrivate(p, o, noise);
      QVERIFY(!r.ok());
      QVERIFY2(r.status().message().find("C1 = 1e-200") != std::string::npos, r.status().message().c_str());
      o.whitened.m2Clip = {kDefaultClipM1, kDefaultClipM2};
    }
  }

  // Every ledger formula is written from the numbers of its value: parse the numbers the formula
  // names and recompute the value (whitened/raw named C1 = 0.5, C2 = 0.3 while computing with 1, 1).
  void ledgerFormulasNameTheNumbersOfTheirValues() {
    SpectralPipeline p;
    p.setCorpus(std::make_shared<const Corpus>(smallLda(20, 3, 5000, 11)));
    SpectralOptions so;
    so.topicCount = 3;
    so.alpha0 = 2.0;
    p.setOptions(so);
    auto named = [](const std::string& formula, const std::string& name) {
      const std::string key = " " + name + " = ";
      const std::size_t at = formula.find(key);
      if (at == std::string::npos) return std::nan("");
      return std::stod(formula.substr(at + key.size()));
    };
    for (bool raw : {false, true}) {
      PrivacyOptions o;
      o.edges = (1u << 2) | (1u << 5) | (1u << 6);
      o.whitened.enabled = true;
      o.whitened.clipToRowBound = raw;
      o.whitened.m2Clip = {0.5, 0.3};
      SeededRandom noise(4);
      const PrivateRunResult r = runPrivate(p, o, noise).value();
      QVERIFY2(r.released, r.status.message().c_str());
      const std::string& f2 = r.ledger[0].sensitivityFormula;
      const double c1 = named(f2, "C1"), c2 = named(f2, "C2"), a = named(f2, "a"), n = named(f2, "N");
      qInfo("%s: %s", raw ? "raw" : "clipped", f2.c_str());
      QCOMPARE(c1, raw ? 1.0 : 0.5);
      QCOMPARE(c2, raw ? 1.0 : 0.3);
      QCOMPARE(n, 5000.0);
      QVERIFY(std::abs(a - 2.0 / 3.0) < 1e-4);
      // The formulas print 4 significant digits (shortNumber): the value agrees to that.
      const double value2 = (2 * c2 + 4 * a * c1 * c1) / n;
      QVERIFY2(std::abs(value2 / r.ledger[0].sensitivity - 1) < 1e-3, f2.c_str());
      const std::string& ft = r.ledger[1].sensitivityFormula;
      qInfo("%s: %s", raw ? "raw" : "clipped", ft.c_str());
      const double c = named(ft, raw ? "rho_W" : "C"), b = named(ft, "b"), cc = named(ft, "c");
      QVERIFY(std::abs(b + 2.0 / 4.0) < 1e-4);                 // b = −α0/(α0 + 2)
      QVERIFY(std::abs(cc - 2.0 * 4.0 / (3.0 * 4.0)) < 1e-4);  // c = 2α0²/((α0 + 1)(α0 + 2))
      const double valueT = (2 + 12 * std::abs(b) + 6 * cc) * c * c * c / named(ft, "N");
      QVERIFY2(std::abs(valueT / r.ledger[1].sensitivity - 1) < 1e-3, ft.c_str());
      if (!raw) QVERIFY(std::abs(c / whitenedClipBound(o.whitened, 3, 2.0) - 1) < 1e-3);
    }
  }

  void refusesWhatItCannotProve() {
    PrivacyOptions o;
    o.whitened.enabled = true;
    o.edges = (1u << 5) | (1u << 6);
    QVERIFY(!validatePrivacyOptions(o).isOk());
    o.edges = (1u << 2) | (1u << 5) | (1u << 6);
    QVERIFY(validatePrivacyOptions(o).isOk());
    for (double bad : {0.0, -1.0, std::nan("")}) {
      PrivacyOptions b = o;
      b.whitened.m2Clip.m2 = bad;
      QVERIFY(!validatePrivacyOptions(b).isOk());
    }
    PrivacyOptions b = o;
    b.whitened.whitenedClip = std::nan("");
    QVERIFY(!validatePrivacyOptions(b).isOk());
    b = o;
    b.mechanism = Mechanism::Laplace;
    QVERIFY(!validatePrivacyOptions(b).isOk());
    b = o;
    b.bounds = BoundSet::Printed;
    QVERIFY(!validatePrivacyOptions(b).isOk());
    b = o;
    b.privateDecomposition = true;
    QVERIFY(!validatePrivacyOptions(b).isOk());
  }
};

QTEST_APPLESS_MAIN(TestWhitenedRelease)
#include "tst_whitened_release.moc"
