// Statistical tests of the noise samplers (SPEC §8). All use fixed seeds, so each run sees the
// same draws; tolerances are stated where used (in standard errors, SE). Each distribution test
// is paired with a power check showing the same test rejects a wrong distribution.
#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/privacy/mechanisms.h"
#include "core/privacy/noise.h"
#include "privacy/statistical_tests.h"

using namespace dplda;

namespace {

constexpr int kDraws = 20000;

std::vector<double> toVector(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

// The reference model of SPEC §8 formed explicitly at small d: E = sqrt(6) sym(G), G i.i.d.
// N(0, sigma^2) on d x d x d, then E(W, W, W). Independent of the projected sampler.
Tensor3 explicitProjectedNoise(const Eigen::MatrixXd& W, double sigma, RandomSource& rng) {
  const int d = static_cast<int>(W.rows());
  Tensor3 g(d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      for (int l = 0; l < d; ++l) g(i, j, l) = sigma * standardNormal(rng);
  Tensor3 e = g.symmetrized();
  e *= std::sqrt(6.0);
  return e.multilinear(W);
}

// Cov(E(W,W,W)_x, E(W,W,W)_y) = sigma^2 sum over permutations p of prod_m A(x_m, y_p(m)), A = W^T W.
double theoreticalCovariance(const Eigen::MatrixXd& A, std::array<int, 3> x, std::array<int, 3> y, double sigma) {
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  double s = 0.0;
  for (const auto& p : perms) s += A(x[0], y[p[0]]) * A(x[1], y[p[1]]) * A(x[2], y[p[2]]);
  return sigma * sigma * s;
}

using Sampler = std::function<Tensor3(RandomSource&)>;

// Replays a fixed list of 64-bit words (cycling), to drive the samplers to their extremes.
class ScriptedRandom final : public RandomSource {
 public:
  explicit ScriptedRandom(std::vector<std::uint64_t> words) : m_words(std::move(words)) {}
  std::uint64_t nextU64() override { return m_words[m_next++ % m_words.size()]; }
  bool isSecure() const override { return false; }
  std::string description() const override { return "scripted"; }

 private:
  std::vector<std::uint64_t> m_words;
  std::size_t m_next = 0;
};

// draws[e][n]: entry e (row-major index of the k^3 tensor) of draw n.
std::vector<std::vector<double>> collect(const Sampler& sample, int k, int n, std::uint64_t seed) {
  SeededRandom rng(seed);
  std::vector<std::vector<double>> out(k * k * k, std::vector<double>(n));
  for (int t = 0; t < n; ++t) {
    const Tensor3 e = sample(rng);
    for (std::size_t i = 0; i < e.size(); ++i) out[i][t] = e.data()[i];
  }
  return out;
}

// Number of (entry, pair) covariance checks that fail at 5 SE, with SE^2 = (Vx Vy + C^2) / n for
// Gaussian data. Checks every entry's variance and the covariance of a few off-diagonal pairs.
int covarianceFailures(const std::vector<std::vector<double>>& draws, const Eigen::MatrixXd& A, int k, double sigma,
                       QString* firstFailure = nullptr) {
  auto idx = [k](std::array<int, 3> x) { return (x[0] * k + x[1]) * k + x[2]; };
  std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> pairs;
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j)
      for (int l = 0; l < k; ++l) pairs.push_back({{i, j, l}, {i, j, l}});
  pairs.push_back({{0, 0, 0}, {1, 1, 1}});
  pairs.push_back({{0, 0, 1}, {0, 1, 1}});
  pairs.push_back({{0, 1, 2}, {0, 0, 0}});
  pairs.push_back({{0, 1, 2}, {2, 1, 0}});  // same unique entry: fully correlated
  pairs.push_back({{0, 0, 2}, {1, 1, 2}});
  int failures = 0;
  const double n = static_cast<double>(draws[0].size());
  for (const auto& [x, y] : pairs) {
    const double c = theoreticalCovariance(A, x, y, sigma);
    const double vx = theoreticalCovariance(A, x, x, sigma), vy = theoreticalCovariance(A, y, y, sigma);
    const double se = std::sqrt((vx * vy + c * c) / n);
    const double got = stat::sampleCovariance(draws[idx(x)], draws[idx(y)]);
    if (std::abs(got - c) > 5 * se) {
      if (failures == 0 && firstFailure)
        *firstFailure = QString("(%1%2%3,%4%5%6): got %7, expected %8 +- %9")
                            .arg(x[0]).arg(x[1]).arg(x[2]).arg(y[0]).arg(y[1]).arg(y[2])
                            .arg(got).arg(c).arg(5 * se);
      ++failures;
    }
  }
  return failures;
}

// Laplace(0, b) noise on the unique entries: mean 0 and variance 2 b^2 (5 SE each: SE of the mean
// sqrt(2 b^2 / n); the relative SE of the variance estimate is sqrt(Var(X^2)) / (2 b^2 sqrt(n)) =
// sqrt(20 b^4 / n) / (2 b^2) = sqrt(5 / n) = 1.6%), the Laplace CDF by KS at p > 0.001, and distinct
// unique entries uncorrelated (|r| < 5 / sqrt(n)).
void checkLaplaceEntries(const std::vector<std::vector<double>>& unique, double b, const char* what) {
  const double n = static_cast<double>(unique[0].size());
  const double var = 2 * b * b;
  for (std::size_t u = 0; u < unique.size(); ++u) {
    double mean = 0.0;
    for (double v : unique[u]) mean += v;
    mean /= n;
    QVERIFY2(std::abs(mean) < 5 * std::sqrt(var / n),
             qPrintable(QString("%1 entry %2: mean %3").arg(what).arg(u).arg(mean)));
    const double v = stat::sampleCovariance(unique[u], unique[u]);
    QVERIFY2(std::abs(v / var - 1) < 5 * std::sqrt(5.0 / n),
             qPrintable(QString("%1 entry %2: var %3").arg(what).arg(u).arg(v)));
    const double p =
        stat::ksPValue(stat::ksStatistic(unique[u], [&](double x) { return stat::laplaceCdf(x, b); }), n);
    QVERIFY2(p > 1e-3, qPrintable(QString("%1 entry %2: KS p = %3").arg(what).arg(u).arg(p)));
    for (std::size_t w = u + 1; w < unique.size(); ++w)
      QVERIFY(std::abs(stat::sampleCovariance(unique[u], unique[w])) / var < 5 / std::sqrt(n));
  }
  // Power: the same KS test rejects a normal with the same variance 2 b^2 (p < 1e-6), the
  // mistake of drawing Gaussian noise at the Laplace variance.
  const double pn = stat::ksPValue(
      stat::ksStatistic(unique[0], [&](double x) { return stat::normalCdf(x, std::sqrt(var)); }), n);
  QVERIFY2(pn < 1e-6, qPrintable(QString("%1: normal accepted, p = %2").arg(what).arg(pn)));
}

}  // namespace

class TestNoise : public QObject {
  Q_OBJECT

 private slots:
  void gaussianMatchesNormal() {
    const double sigma = 2.5;
    SeededRandom rng(101);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(kDraws);  // a vector binds to Ref<MatrixXd>
    QVERIFY(addGaussianNoise(x, sigma, rng).isOk());
    const auto s = toVector(x);
    // Accept at p > 0.001; the same KS test must reject a 30% wrong scale (p < 1e-6).
    const double p = stat::ksPValue(stat::ksStatistic(s, [&](double v) { return stat::normalCdf(v, sigma); }), kDraws);
    QVERIFY2(p > 1e-3, qPrintable(QString::number(p)));
    for (double wrong : {0.7, 1.3}) {
      const double pw =
          stat::ksPValue(stat::ksStatistic(s, [&](double v) { return stat::normalCdf(v, wrong * sigma); }), kDraws);
      QVERIFY2(pw < 1e-6, qPrintable(QString("factor %1: p = %2").arg(wrong).arg(pw)));
    }
    // Matrices and blocks bind too; every entry gets noise.
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(30, 40);
    QVERIFY(addGaussianNoise(m.block(5, 5, 10, 10), 1.0, rng).isOk());
    QCOMPARE(int((m.array() != 0.0).count()), 100);
    QVERIFY(addGaussianNoise(m, 1.0, rng).isOk());
    QCOMPARE(int((m.array() != 0.0).count()), 1200);
  }

  void laplaceMatchesLaplace() {
    const double b = 0.8;
    SeededRandom rng(202);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(kDraws);
    QVERIFY(addLaplaceNoise(x, b, rng).isOk());
    const auto s = toVector(x);
    const double p = stat::ksPValue(stat::ksStatistic(s, [&](double v) { return stat::laplaceCdf(v, b); }), kDraws);
    QVERIFY2(p > 1e-3, qPrintable(QString::number(p)));
    for (double wrong : {0.7, 1.3}) {
      const double pw =
          stat::ksPValue(stat::ksStatistic(s, [&](double v) { return stat::laplaceCdf(v, wrong * b); }), kDraws);
      QVERIFY2(pw < 1e-6, qPrintable(QString("factor %1: p = %2").arg(wrong).arg(pw)));
    }
    // The tail: #{|x| > 3b} ~ Binomial(n, e^-3); both one-sided tails above 1e-4.
    int beyond = 0;
    for (double v : s) beyond += std::abs(v) > 3 * b ? 1 : 0;
    const double q = std::exp(-3.0);
    QVERIFY2(stat::binomialUpperTail(kDraws, beyond, q) > 1e-4, qPrintable(QString::number(beyond)));
    QVERIFY2(1.0 - stat::binomialUpperTail(kDraws, beyond + 1, q) > 1e-4, qPrintable(QString::number(beyond)));
    // The tail count of a wrong scale would be far out: expected count at 1.3b is ~ n e^(-3/1.3).
    QVERIFY(stat::binomialUpperTail(kDraws, beyond, std::exp(-3.0 / 1.3)) > 1 - 1e-9);
  }

  void statisticalHelpers() {
    // Kolmogorov tail reference values: P(K > 1.36) = 0.0494, P(K > 1.63) = 0.0098.
    QVERIFY(std::abs(stat::kolmogorovTail(1.36) - 0.04943) < 2e-4);
    QVERIFY(std::abs(stat::kolmogorovTail(1.63) - 0.00977) < 2e-4);
    // Binomial(10, 0.5): P(X >= 8) = 56/1024.
    QVERIFY(std::abs(stat::binomialUpperTail(10, 8, 0.5) - 56.0 / 1024.0) < 1e-12);
    QCOMPARE(stat::binomialUpperTail(10, 0, 0.3), 1.0);
    QCOMPARE(stat::binomialUpperTail(10, 11, 0.3), 0.0);
    // Two-sample KS: disjoint samples give D = 1, identical give 0.
    QCOMPARE(stat::ksTwoSampleStatistic({1, 2, 3}, {4, 5, 6}), 1.0);
    QCOMPARE(stat::ksTwoSampleStatistic({1, 2, 3}, {1, 2, 3}), 0.0);
  }

  void symmetricMatrixNoise() {
    const int n = 4;
    const double sigma = 1.7;
    SeededRandom rng(303);
    Eigen::MatrixXd base = Eigen::MatrixXd::Random(n, n);
    base = (base + base.transpose()).eval();
    std::vector<std::vector<double>> unique(n * (n + 1) / 2, std::vector<double>(kDraws));
    for (int t = 0; t < kDraws; ++t) {
      Eigen::MatrixXd m = base;
      QVERIFY(addSymmetricMatrixNoise(m, sigma, rng).isOk());
      if (t < 100) QVERIFY(m == m.transpose());  // exactly symmetric
      int u = 0;
      for (int i = 0; i < n; ++i)
        for (int j = i; j < n; ++j) unique[u++][t] = m(i, j) - base(i, j);
    }
    // Variance sigma^2 on every unique entry (diagonal and off-diagonal): relative SE of a
    // variance estimate is sqrt(2/n) = 1%, tolerance 5 SE. Pairwise correlation |r| < 5/sqrt(n).
    const double varTol = 5 * std::sqrt(2.0 / kDraws);
    for (std::size_t u = 0; u < unique.size(); ++u) {
      const double v = stat::sampleCovariance(unique[u], unique[u]);
      QVERIFY2(std::abs(v / (sigma * sigma) - 1) < varTol, qPrintable(QString("entry %1: %2").arg(u).arg(v)));
      for (std::size_t w = u + 1; w < unique.size(); ++w) {
        const double r = stat::sampleCovariance(unique[u], unique[w]) / (sigma * sigma);
        QVERIFY(std::abs(r) < 5 / std::sqrt(double(kDraws)));
      }
    }
    Eigen::MatrixXd rect(2, 3);
    const Status s = addSymmetricMatrixNoise(rect, 1.0, rng);
    QCOMPARE(s.code(), StatusCode::InvalidArgument);
    QVERIFY(s.message().find("square") != std::string::npos);
  }

  void symmetricTensorNoise() {
    const int k = 3;
    const double sigma = 0.6;
    SeededRandom rng(404);
    std::vector<std::array<int, 3>> uniqueIdx;
    for (int i = 0; i < k; ++i)
      for (int j = i; j < k; ++j)
        for (int l = j; l < k; ++l) uniqueIdx.push_back({i, j, l});
    QCOMPARE(int(uniqueIdx.size()), 10);
    std::vector<std::vector<double>> unique(uniqueIdx.size(), std::vector<double>(kDraws));
    for (int t = 0; t < kDraws; ++t) {
      Tensor3 e(k);
      QVERIFY(addSymmetricTensorNoise(e, sigma, rng).isOk());
      if (t < 100) {
        // Exactly symmetric: every permutation holds the same bits.
        for (int i = 0; i < k; ++i)
          for (int j = 0; j < k; ++j)
            for (int l = 0; l < k; ++l) {
              const double v = e(i, j, l);
              QVERIFY(v == e(i, l, j) && v == e(j, i, l) && v == e(j, l, i) && v == e(l, i, j) && v == e(l, j, i));
            }
      }
      for (std::size_t u = 0; u < uniqueIdx.size(); ++u) unique[u][t] = e(uniqueIdx[u][0], uniqueIdx[u][1], uniqueIdx[u][2]);
    }
    const double varTol = 5 * std::sqrt(2.0 / kDraws);
    for (std::size_t u = 0; u < unique.size(); ++u) {
      const double v = stat::sampleCovariance(unique[u], unique[u]);
      QVERIFY2(std::abs(v / (sigma * sigma) - 1) < varTol, qPrintable(QString("entry %1: %2").arg(u).arg(v)));
      for (std::size_t w = u + 1; w < unique.size(); ++w)
        QVERIFY(std::abs(stat::sampleCovariance(unique[u], unique[w])) / (sigma * sigma) < 5 / std::sqrt(double(kDraws)));
    }
  }

  void symmetricMatrixLaplaceNoise() {
    const int n = 4;
    const double b = 0.9;
    SeededRandom rng(313);
    Eigen::MatrixXd base = Eigen::MatrixXd::Random(n, n);
    base = (base + base.transpose()).eval();
    std::vector<std::vector<double>> unique(n * (n + 1) / 2, std::vector<double>(kDraws));
    for (int t = 0; t < kDraws; ++t) {
      Eigen::MatrixXd m = base;
      QVERIFY(addSymmetricMatrixLaplaceNoise(m, b, rng).isOk());
      if (t < 100) QVERIFY(m == m.transpose());  // exactly symmetric
      int u = 0;
      for (int i = 0; i < n; ++i)
        for (int j = i; j < n; ++j) unique[u++][t] = m(i, j) - base(i, j);
    }
    checkLaplaceEntries(unique, b, "matrix");
    if (QTest::currentTestFailed()) return;

    // One draw per unique entry, mirrored (m(j, i) holds the same value, not a second draw), in the
    // column-major upper-triangle order the private pipeline has always used: a seed reproduces it.
    SeededRandom r1(31), r2(31);
    Eigen::MatrixXd z = Eigen::MatrixXd::Zero(5, 5);
    QVERIFY(addSymmetricMatrixLaplaceNoise(z, b, r1).isOk());
    for (int j = 0; j < 5; ++j)
      for (int i = 0; i <= j; ++i) {
        const double e = laplace(r2, b);
        QCOMPARE(z(i, j), e);
        QCOMPARE(z(j, i), e);
      }
    QCOMPARE(r1.nextU64(), r2.nextU64());  // exactly 15 draws used

    // Zero scale: unchanged and nothing drawn. Bad scales and shapes: refused, input untouched.
    SeededRandom r3(32), r4(32);
    Eigen::MatrixXd same = base;
    QVERIFY(addSymmetricMatrixLaplaceNoise(same, 0.0, r3).isOk());
    QVERIFY(same == base);
    QCOMPARE(r3.nextU64(), r4.nextU64());
    for (double bad :
         {-1.5, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
      Eigen::MatrixXd m = base;
      const Status s = addSymmetricMatrixLaplaceNoise(m, bad, rng);
      QCOMPARE(s.code(), StatusCode::InvalidArgument);
      QVERIFY2(s.message().find("Laplace scale") != std::string::npos, s.message().c_str());
      QVERIFY(m == base);
    }
    QVERIFY(addSymmetricMatrixLaplaceNoise(same, -1.5, rng).message().find("-1.5") != std::string::npos);
    Eigen::MatrixXd rect = Eigen::MatrixXd::Zero(2, 3);
    const Status s = addSymmetricMatrixLaplaceNoise(rect, 1.0, rng);
    QCOMPARE(s.code(), StatusCode::InvalidArgument);
    QVERIFY2(
        s.message().find("square") != std::string::npos && s.message().find("2 x 3") != std::string::npos,
        s.message().c_str());
    QVERIFY(rect.isZero(0.0));
  }

  void symmetricTensorLaplaceNoise() {
    const int k = 3;
    const double b = 0.6;
    SeededRandom rng(414);
    std::vector<std::array<int, 3>> uniqueIdx;
    for (int i = 0; i < k; ++i)
      for (int j = i; j < k; ++j)
        for (int l = j; l < k; ++l) uniqueIdx.push_back({i, j, l});
    std::vector<std::vector<double>> unique(uniqueIdx.size(), std::vector<double>(kDraws));
    for (int t = 0; t < kDraws; ++t) {
      Tensor3 e(k);
      QVERIFY(addSymmetricTensorLaplaceNoise(e, b, rng).isOk());
      if (t < 100) {
        for (int i = 0; i < k; ++i)
          for (int j = 0; j < k; ++j)
            for (int l = 0; l < k; ++l) {
              const double v = e(i, j, l);
              QVERIFY(v == e(i, l, j) && v == e(j, i, l) && v == e(j, l, i) && v == e(l, i, j) &&
                      v == e(l, j, i));
            }
      }
      for (std::size_t u = 0; u < uniqueIdx.size(); ++u)
        unique[u][t] = e(uniqueIdx[u][0], uniqueIdx[u][1], uniqueIdx[u][2]);
    }
    checkLaplaceEntries(unique, b, "tensor");
    if (QTest::currentTestFailed()) return;

    // One draw per unique entry in lexicographic order, the same value in every permutation (each
    // permutation receives it once: a repeated-index entry is not counted twice).
    const int d = 4;
    SeededRandom r1(41), r2(41);
    Tensor3 z(d);
    QVERIFY(addSymmetricTensorLaplaceNoise(z, b, r1).isOk());
    for (int i = 0; i < d; ++i)
      for (int j = i; j < d; ++j)
        for (int l = j; l < d; ++l) {
          const double e = laplace(r2, b);
          for (const auto& p :
               {std::array<int, 3>{i, j, l}, {i, l, j}, {j, i, l}, {j, l, i}, {l, i, j}, {l, j, i}})
            QCOMPARE(z(p[0], p[1], p[2]), e);
        }
    QCOMPARE(r1.nextU64(), r2.nextU64());  // exactly 20 draws used

    SeededRandom r3(42), r4(42);
    Tensor3 base(d);
    for (std::size_t i = 0; i < base.size(); ++i) base.data()[i] = 0.25 * static_cast<double>(i);
    Tensor3 same = base;
    QVERIFY(addSymmetricTensorLaplaceNoise(same, 0.0, r3).isOk());
    QVERIFY(std::equal(same.data(), same.data() + same.size(), base.data()));
    QCOMPARE(r3.nextU64(), r4.nextU64());
    for (double bad :
         {-2.0, std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()}) {
      Tensor3 t = base;
      const Status s = addSymmetricTensorLaplaceNoise(t, bad, rng);
      QCOMPARE(s.code(), StatusCode::InvalidArgument);
      QVERIFY2(s.message().find("Laplace scale") != std::string::npos, s.message().c_str());
      QVERIFY(std::equal(t.data(), t.data() + t.size(), base.data()));
    }
  }

  void projectedM3NoiseMatchesExplicit() {
    const int d = 6, k = 3;
    const double sigma = 0.9;
    SeededRandom wRng(505);
    Eigen::MatrixXd W(d, k);
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < k; ++j) W(i, j) = standardNormal(wRng) * 0.5;
    const Eigen::MatrixXd A = W.transpose() * W;

    const auto projected = collect(
        [&](RandomSource& r) {
          auto e = sampleProjectedM3Noise(W, sigma, r);
          return e.value();
        },
        k, kDraws, 606);
    const auto explicitDraws = collect([&](RandomSource& r) { return explicitProjectedNoise(W, sigma, r); }, k, kDraws, 707);

    // Both match the exact covariance of E(W, W, W) (variances of all 27 entries and 5 pairs, 5 SE).
    QString why;
    QVERIFY2(covarianceFailures(projected, A, k, sigma, &why) == 0, qPrintable("projected " + why));
    QVERIFY2(covarianceFailures(explicitDraws, A, k, sigma, &why) == 0, qPrintable("explicit " + why));

    // Same marginal law on a distinct-index and a diagonal entry: two-sample KS at p > 0.001, and
    // each against the normal with the theoretical variance.
    for (std::array<int, 3> x : {std::array<int, 3>{0, 1, 2}, std::array<int, 3>{1, 1, 1}, std::array<int, 3>{0, 0, 2}}) {
      const int i = (x[0] * k + x[1]) * k + x[2];
      const double p2 = stat::ksPValue(stat::ksTwoSampleStatistic(projected[i], explicitDraws[i]), kDraws / 2.0);
      QVERIFY2(p2 > 1e-3, qPrintable(QString("entry %1: p = %2").arg(i).arg(p2)));
      const double sd = std::sqrt(theoreticalCovariance(A, x, x, sigma));
      const double p1 = stat::ksPValue(
          stat::ksStatistic(projected[i], [&](double v) { return stat::normalCdf(v, sd); }), kDraws);
      QVERIFY2(p1 > 1e-3, qPrintable(QString("entry %1: p = %2").arg(i).arg(p1)));
    }

    // Power: the covariance check rejects the plausible mistakes (no symmetrization; no sqrt(6)).
    Eigen::MatrixXd L = A.llt().matrixL();
    const auto unsymmetrized = collect(
        [&](RandomSource& r) {
          Tensor3 z(k);
          for (std::size_t i = 0; i < z.size(); ++i) z.data()[i] = sigma * standardNormal(r);
          Tensor3 g = z.multilinear(L.transpose());
          g *= std::sqrt(6.0);
          return g;
        },
        k, kDraws, 808);
    QVERIFY(covarianceFailures(unsymmetrized, A, k, sigma) > 3);
    const auto unscaled = collect(
        [&](RandomSource& r) {
          Tensor3 e = sampleProjectedM3Noise(W, sigma, r).value();
          e *= 1.0 / std::sqrt(6.0);
          return e;
        },
        k, 2000, 909);
    QVERIFY(covarianceFailures(unscaled, A, k, sigma) > 20);

    // Every sample is symmetric (to rounding of the permutation average).
    SeededRandom rng(1);
    QVERIFY(sampleProjectedM3Noise(W, sigma, rng).value().isSymmetric(1e-14));
  }

  void projectedM3NoiseRankDeficient() {
    // W^T W singular (a repeated column): the eigen square root still gives the right law.
    const int d = 5, k = 3;
    const double sigma = 1.1;
    SeededRandom wRng(1001);
    Eigen::MatrixXd W(d, k);
    for (int i = 0; i < d; ++i) {
      W(i, 0) = standardNormal(wRng);
      W(i, 1) = standardNormal(wRng);
      W(i, 2) = W(i, 0);
    }
    const Eigen::MatrixXd A = W.transpose() * W;
    const auto draws = collect([&](RandomSource& r) { return sampleProjectedM3Noise(W, sigma, r).value(); }, k, kDraws, 1002);
    QString why;
    QVERIFY2(covarianceFailures(draws, A, k, sigma, &why) == 0, qPrintable(why));
    // Entries that differ only by swapping indices 0 and 2 are equal (W's columns 0 and 2 coincide).
    const int a = (0 * k + 1) * k + 1, b = (2 * k + 1) * k + 1;
    for (int t = 0; t < 50; ++t) QVERIFY(std::abs(draws[a][t] - draws[b][t]) < 1e-9 * (1 + std::abs(draws[a][t])));

    // A zero column makes W^T W exactly singular (Cholesky fails): entries touching index 2
    // vanish, the others keep the right law.
    Eigen::MatrixXd W0 = W;
    W0.col(2).setZero();
    const Eigen::MatrixXd A0 = W0.transpose() * W0;
    const auto draws0 =
        collect([&](RandomSource& r) { return sampleProjectedM3Noise(W0, sigma, r).value(); }, k, kDraws, 1003);
    QVERIFY2(covarianceFailures(draws0, A0, k, sigma, &why) == 0, qPrintable(why));
    for (int t = 0; t < 50; ++t) {
      QVERIFY(std::abs(draws0[(0 * k + 1) * k + 2][t]) < 1e-12);
      QVERIFY(std::abs(draws0[(2 * k + 2) * k + 2][t]) < 1e-12);
      QVERIFY(draws0[(0 * k + 1) * k + 1][t] != 0.0);
    }
  }

  void sourcesSecureAndSeeded() {
    SecureRandom s1, s2;
    QVERIFY(s1.isSecure());
    Eigen::VectorXd a = Eigen::VectorXd::Zero(64), b = Eigen::VectorXd::Zero(64);
    QVERIFY(addGaussianNoise(a, 1.0, s1).isOk());
    QVERIFY(addGaussianNoise(b, 1.0, s2).isOk());
    QCOMPARE(int((a.array() == b.array()).count()), 0);  // equal doubles from a CSPRNG: never

    SeededRandom r1(77), r2(77), r3(78);
    Eigen::MatrixXd m1 = Eigen::MatrixXd::Zero(5, 5), m2 = m1, m3 = m1;
    QVERIFY(addSymmetricMatrixNoise(m1, 0.3, r1).isOk());
    QVERIFY(addSymmetricMatrixNoise(m2, 0.3, r2).isOk());
    QVERIFY(addSymmetricMatrixNoise(m3, 0.3, r3).isOk());
    QVERIFY(m1 == m2);  // bit-identical
    QVERIFY(m1 != m3);
    Eigen::MatrixXd W = Eigen::MatrixXd::Identity(4, 2);
    SeededRandom t1(5), t2(5);
    const Tensor3 e1 = sampleProjectedM3Noise(W, 1.0, t1).value(), e2 = sampleProjectedM3Noise(W, 1.0, t2).value();
    QVERIFY(std::equal(e1.data(), e1.data() + e1.size(), e2.data()));
  }

  void samplerTailsAreTruncated() {
    // The delta floor and the sampler excess of mechanisms.h rest on these bounds: a normal is
    // Box-Muller with u1 = (k + 1) 2^-53, so |Z| <= sqrt(-2 ln 2^-53) = 8.5717, and a Laplace draw
    // is b (E1 - E2), E = -ln u, so |X| <= 53 ln 2 b = 36.737 b. If a sampler changes (more bits,
    // another method), this test fails and the floor must be derived again.
    const std::uint64_t top = ~std::uint64_t{0};
    const std::uint64_t half = std::uint64_t{1} << 63;  // u2 just above 1/2: cos(2 pi u2) ~ -1
    double largest = 0.0;
    for (std::uint64_t k1 = 0; k1 < 2000; ++k1)  // the smallest u1 values
      for (std::uint64_t w2 : {std::uint64_t{0}, half, half - 2048, top, std::uint64_t{12345} << 11}) {
        ScriptedRandom rng({k1 << 11, w2});
        const double z = standardNormal(rng);
        QVERIFY2(std::abs(z) <= kGaussianSamplerMaxAbs, qPrintable(QString::number(z, 'g', 17)));
        largest = std::max(largest, std::abs(z));
      }
    // The bound is attained up to rounding (u1 = 2^-53, u2 = 2^-54): it is the sampler's maximum.
    QVERIFY2(largest > kGaussianSamplerMaxAbs - 1e-12, qPrintable(QString::number(largest, 'g', 17)));
    QVERIFY(std::abs(kGaussianSamplerMaxAbs - std::sqrt(106.0 * std::log(2.0))) < 1e-12);
    // Through the release path: every entry of an all-zero-word source sits at the bound.
    ScriptedRandom zeros({0});
    Eigen::VectorXd x = Eigen::VectorXd::Zero(8);
    QVERIFY(addGaussianNoise(x, 2.0, zeros).isOk());
    QVERIFY(x.cwiseAbs().maxCoeff() <= 2.0 * kGaussianSamplerMaxAbs);
    QVERIFY(x.cwiseAbs().minCoeff() > 2.0 * (kGaussianSamplerMaxAbs - 1e-12));

    // Laplace: E1 at its largest (u = 2^-53), E2 = 0 (u = 1).
    for (double b : {1.0, 0.25, 3.0}) {
      ScriptedRandom extreme({0, top});
      const double v = laplace(extreme, b);
      QVERIFY2(v <= kLaplaceSamplerMaxAbs * b && v > (kLaplaceSamplerMaxAbs - 1e-12) * b,
               qPrintable(QString::number(v / b, 'g', 17)));
      ScriptedRandom mirrored({top, 0});
      QVERIFY(std::abs(laplace(mirrored, b)) <= kLaplaceSamplerMaxAbs * b);
    }
    QVERIFY(std::abs(kLaplaceSamplerMaxAbs - 53.0 * std::log(2.0)) < 1e-12);
  }

  void invalidInputs() {
    SeededRandom rng(9);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (double bad : {-1.0, nan, inf}) {
      Eigen::VectorXd x = Eigen::VectorXd::Zero(3);
      Status s = addGaussianNoise(x, bad, rng);
      QCOMPARE(s.code(), StatusCode::InvalidArgument);
      QVERIFY(s.message().find("sigma") != std::string::npos);
      QCOMPARE(addLaplaceNoise(x, bad, rng).code(), StatusCode::InvalidArgument);
      QVERIFY(x.isZero(0.0));  // untouched on error
      Eigen::MatrixXd m = Eigen::MatrixXd::Zero(2, 2);
      QCOMPARE(addSymmetricMatrixNoise(m, bad, rng).code(), StatusCode::InvalidArgument);
      Tensor3 t(2);
      QCOMPARE(addSymmetricTensorNoise(t, bad, rng).code(), StatusCode::InvalidArgument);
      QCOMPARE(sampleProjectedM3Noise(Eigen::MatrixXd::Identity(3, 2), bad, rng).status().code(),
               StatusCode::InvalidArgument);
    }
    // Zero noise adds nothing.
    Eigen::VectorXd x = Eigen::VectorXd::Ones(3);
    QVERIFY(addGaussianNoise(x, 0.0, rng).isOk());
    QVERIFY(x.isOnes(0.0));
    QVERIFY(sampleProjectedM3Noise(Eigen::MatrixXd::Identity(3, 2), 0.0, rng).value().frobeniusNorm() == 0.0);
    // Bad whitening matrices.
    Eigen::MatrixXd wNan = Eigen::MatrixXd::Identity(3, 2);
    wNan(1, 1) = nan;
    const auto r1 = sampleProjectedM3Noise(wNan, 1.0, rng);
    QCOMPARE(r1.status().code(), StatusCode::InvalidArgument);
    QVERIFY(r1.status().message().find("W") != std::string::npos);
    QCOMPARE(sampleProjectedM3Noise(Eigen::MatrixXd(3, 0), 1.0, rng).status().code(), StatusCode::InvalidArgument);
  }
};

QTEST_APPLESS_MAIN(TestNoise)
#include "tst_noise.moc"
