// Tests of the evaluation layer: Hungarian assignment against brute force, topic matching,
// error metrics, and the Euclidean projection onto the simplex (KKT conditions).
#include <QtTest>
#include <algorithm>
#include <limits>
#include <numeric>

#include "core/common/random.h"
#include "core/eval/matching.h"
#include "core/eval/metrics.h"
#include "core/eval/simplex.h"

using namespace dplda;

namespace {

Eigen::MatrixXd randomMatrix(SeededRandom& rng, int rows, int cols, double scale = 1.0) {
  Eigen::MatrixXd m(rows, cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) m(i, j) = scale * standardNormal(rng);
  }
  return m;
}

double assignmentCost(const Eigen::MatrixXd& cost, const std::vector<int>& a) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += cost(static_cast<int>(i), a[i]);
  return s;
}

bool isInjective(const std::vector<int>& a, int cols) {
  std::vector<char> seen(cols, 0);
  for (int c : a) {
    if (c < 0 || c >= cols || seen[c]) return false;
    seen[c] = 1;
  }
  return true;
}

// Minimum over all injective maps rows -> cols (cols! / (cols-rows)! candidates).
double bruteForceMinimum(const Eigen::MatrixXd& cost) {
  const int r = static_cast<int>(cost.rows()), c = static_cast<int>(cost.cols());
  std::vector<int> perm(c);
  std::iota(perm.begin(), perm.end(), 0);
  double best = std::numeric_limits<double>::infinity();
  do {
    double s = 0.0;
    for (int i = 0; i < r; ++i) s += cost(i, perm[i]);
    best = std::min(best, s);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

Eigen::MatrixXd randomTopics(SeededRandom& rng, int d, int k) {
  Eigen::MatrixXd t(d, k);
  for (int j = 0; j < k; ++j) {
    const std::vector<double> mu = dirichlet(rng, std::vector<double>(d, 0.3));
    for (int w = 0; w < d; ++w) t(w, j) = mu[w];
  }
  return t;
}

bool onSimplex(const Eigen::VectorXd& p, double tol = 1e-12) {
  return p.minCoeff() >= 0.0 && std::abs(p.sum() - 1.0) < tol;
}

}  // namespace

class TestMetrics : public QObject {
  Q_OBJECT

 private slots:
  void hungarianMatchesBruteForce() {
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      SeededRandom rng(seed);
      // Mix of continuous costs and heavily tied integer costs.
      Eigen::MatrixXd cost = randomMatrix(rng, 6, 6, 10.0);
      if (seed % 2 == 0) cost = cost.array().round().abs().min(3.0);
      const std::vector<int> a = hungarianAssignment(cost);
      QCOMPARE(static_cast<int>(a.size()), 6);
      QVERIFY(isInjective(a, 6));
      const double got = assignmentCost(cost, a), best = bruteForceMinimum(cost);
      QVERIFY2(std::abs(got - best) <= 1e-9 * (1.0 + std::abs(best)),
               qPrintable(QString("seed %1: %2 vs %3").arg(seed).arg(got).arg(best)));
    }
  }

  void hungarianRectangular() {
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
      SeededRandom rng(1000 + seed);
      const Eigen::MatrixXd cost = randomMatrix(rng, 3, 6, 5.0);
      const std::vector<int> a = hungarianAssignment(cost);
      QCOMPARE(static_cast<int>(a.size()), 3);
      QVERIFY(isInjective(a, 6));
      QVERIFY(std::abs(assignmentCost(cost, a) - bruteForceMinimum(cost)) < 1e-9);
    }
  }

  void hungarianEdgeCases() {
    QVERIFY(hungarianAssignment(Eigen::MatrixXd(0, 0)).empty());
    QVERIFY(hungarianAssignment(Eigen::MatrixXd::Zero(3, 2)).empty());  // rows > cols
    Eigen::MatrixXd nan = Eigen::MatrixXd::Zero(2, 2);
    nan(1, 0) = std::numeric_limits<double>::quiet_NaN();
    QVERIFY(hungarianAssignment(nan).empty());
    Eigen::MatrixXd one(1, 1);
    one << 4.0;
    QCOMPARE(hungarianAssignment(one), std::vector<int>({0}));
    // Large magnitudes: the anti-diagonal is optimal.
    Eigen::MatrixXd big(2, 2);
    big << 1e300, -1e300, -1e300, 1e300;
    QCOMPARE(hungarianAssignment(big), std::vector<int>({1, 0}));
  }

  void matchTopicsRecoversPermutation() {
    SeededRandom rng(7);
    const int d = 40, k = 8;
    const Eigen::MatrixXd ref = randomTopics(rng, d, k);
    const std::vector<int> perm = {3, 7, 0, 5, 1, 6, 2, 4};  // estimate column perm[i] = ref topic i
    Eigen::MatrixXd est(d, k);
    for (int i = 0; i < k; ++i) est.col(perm[i]) = ref.col(i) + 0.002 * randomMatrix(rng, d, 1);
    QCOMPARE(matchTopics(ref, est), perm);
    // More estimated topics than reference topics: the extra column is ignored.
    Eigen::MatrixXd wider(d, k + 1);
    wider << est, randomTopics(rng, d, 1);
    QCOMPARE(matchTopics(ref, wider), perm);
    // Shape mismatches give an empty matching.
    QVERIFY(matchTopics(ref, est.topRows(d - 1)).empty());
    QVERIFY(matchTopics(wider, est).empty());
  }

  // The matching minimises the total distance; greedy pairing of the closest pair first would
  // get the second case wrong.
  void matchTopicsIsGloballyOptimal() {
    Eigen::MatrixXd ref(2, 2), est(2, 2);
    ref << 0.0, 1.0, 0.0, 0.0;
    est << 0.1, 2.0, 0.0, 0.0;
    // Totals: identity 0.1 + 1.0 = 1.1; swap 2.0 + 0.9 = 2.9 -> identity.
    QCOMPARE(matchTopics(ref, est), std::vector<int>({0, 1}));
    est << 0.6, 1.5, 0.0, 0.0;  // identity 0.6 + 0.5 = 1.1; swap 1.5 + 0.4 = 1.9 (greedy's choice)
    QCOMPARE(matchTopics(ref, est), std::vector<int>({0, 1}));
    est << 0.9, 0.05, 0.0, 0.0;  // identity 0.9 + 0.95 = 1.85; swap 0.05 + 0.1 = 0.15
    QCOMPARE(matchTopics(ref, est), std::vector<int>({1, 0}));
  }

  void compareTopicsValues() {
    // Hand-computed: d = 3, k = 2; estimate is swapped with known perturbations.
    Eigen::MatrixXd ref(3, 2), est(3, 2);
    ref << 0.6, 0.0, 0.4, 0.2, 0.0, 0.8;
    est << 0.0, 0.5, 0.3, 0.5, 0.7, 0.0;
    Eigen::VectorXd refAlpha(2), estAlpha(2);
    refAlpha << 0.3, 0.7;
    estAlpha << 0.9, 0.25;
    const TopicErrors e = compareTopics(ref, refAlpha, est, estAlpha);
    QCOMPARE(e.matching, std::vector<int>({1, 0}));
    // topic 0: diff (0.1, -0.1, 0) -> l2 sqrt(0.02), l1 0.2; topic 1: diff (0, -0.1, 0.1).
    const double l2 = std::sqrt(0.02);
    QVERIFY(std::abs(e.l2PerTopic[0] - l2) < 1e-14);
    QVERIFY(std::abs(e.l2PerTopic[1] - l2) < 1e-14);
    QVERIFY(std::abs(e.l2Mean - l2) < 1e-14);
    QVERIFY(std::abs(e.l1Mean - 0.2) < 1e-14);
    // Frobenius (Definition 21): all four non-zero differences are ±0.1 -> sqrt(0.04) = 0.2.
    QVERIFY(std::abs(e.frobenius - 0.2) < 1e-14);
    // |0.3 - 0.25| and |0.7 - 0.9|, mean 0.125.
    QVERIFY(std::abs(e.alphaError - 0.125) < 1e-14);
  }

  void compareTopicsIdentityIsZero() {
    SeededRandom rng(3);
    const Eigen::MatrixXd t = randomTopics(rng, 25, 5);
    const Eigen::VectorXd a = Eigen::VectorXd::LinSpaced(5, 0.1, 0.5);
    const TopicErrors e = compareTopics(t, a, t, a);
    QCOMPARE(e.l2Mean, 0.0);
    QCOMPARE(e.l1Mean, 0.0);
    QCOMPARE(e.alphaError, 0.0);
    QCOMPARE(e.matching, std::vector<int>({0, 1, 2, 3, 4}));
  }

  void compareTopicsInvalidInput() {
    const Eigen::MatrixXd t = Eigen::MatrixXd::Constant(4, 2, 0.25);
    const Eigen::VectorXd a = Eigen::VectorXd::Ones(2);
    Status s = validateTopicComparison(t, a, t.topRows(3), a);
    QCOMPARE(statusCodeName(s.code()), statusCodeName(StatusCode::InvalidArgument));
    QVERIFY(s.message().find("3 words") != std::string::npos);
    s = validateTopicComparison(t, a, t, Eigen::VectorXd::Ones(3));
    QVERIFY(s.message().find("estimated alpha has 3 entries") != std::string::npos);
    s = validateTopicComparison(t, a, t.leftCols(1), Eigen::VectorXd::Ones(1));
    QVERIFY(s.message().find("fewer estimated topics") != std::string::npos);
    Eigen::MatrixXd withNan = t;
    withNan(0, 0) = std::numeric_limits<double>::quiet_NaN();
    QVERIFY(!validateTopicComparison(t, a, withNan, a).isOk());
    const TopicErrors e = compareTopics(t, a, withNan, a);
    QVERIFY(std::isnan(e.l2Mean) && std::isnan(e.l1Mean) && std::isnan(e.alphaError) && std::isnan(e.frobenius));
    QVERIFY(e.matching.empty());
    QVERIFY(validateTopicComparison(t, a, t, a).isOk());
  }

  // KKT: p is the projection iff p = max(v - tau, 0) for the tau with sum p = 1. Check the
  // result's structure (tau shared by all positive entries, v_i <= tau where p_i = 0) and
  // optimality against random simplex points (||v - p|| <= ||v - q||).
  void projectionSatisfiesKkt() {
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
      SeededRandom rng(seed);
      const int n = 1 + static_cast<int>(uniformIndex(rng, 30));
      const double scale = seed % 3 == 0 ? 0.05 : (seed % 3 == 1 ? 1.0 : 20.0);
      const Eigen::VectorXd v = randomMatrix(rng, n, 1, scale);
      const Eigen::VectorXd p = projectToSimplex(v);
      QVERIFY(onSimplex(p, 1e-12 * (1.0 + v.cwiseAbs().sum())));
      double tau = std::numeric_limits<double>::quiet_NaN();
      for (int i = 0; i < n; ++i) {
        if (p[i] > 0.0) {
          tau = v[i] - p[i];
          break;
        }
      }
      QVERIFY(std::isfinite(tau));
      const double tol = 1e-12 * (1.0 + v.cwiseAbs().maxCoeff());
      for (int i = 0; i < n; ++i) {
        if (p[i] > 0.0) {
          QVERIFY(std::abs((v[i] - p[i]) - tau) < tol);
        } else {
          QVERIFY(v[i] <= tau + tol);
        }
      }
      for (int trial = 0; trial < 5; ++trial) {
        const std::vector<double> q = dirichlet(rng, std::vector<double>(n, 0.5));
        const Eigen::Map<const Eigen::VectorXd> qv(q.data(), n);
        QVERIFY((v - p).norm() <= (v - qv).norm() + 1e-12);
      }
    }
  }

  void projectionSurvivesHugeMagnitudes() {
    // Noise of 1e11-1e21 (a private release with a huge sensitivity) must still give a point
    // on the simplex: "- 1" is lost to rounding at these magnitudes.
    for (double scale : {1e11, 1e16, 1e21, -1e21}) {
      Eigen::VectorXd v(6);
      v << 1.0, -2.0, 3.0, 0.5, 3.0 * (1 - 1e-17), -1.0;
      v *= scale;
      const Eigen::VectorXd p = dplda::projectToSimplex(v);
      QVERIFY(p.allFinite());
      QVERIFY(p.minCoeff() >= 0.0);
      QVERIFY(std::abs(p.sum() - 1.0) < 1e-12);
    }
  }

  void projectionIsIdempotentOnSimplex() {
    SeededRandom rng(17);
    for (int t = 0; t < 50; ++t) {
      const std::vector<double> q = dirichlet(rng, std::vector<double>(12, 0.7));
      const Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(q.data(), 12);
      QVERIFY((projectToSimplex(v) - v).cwiseAbs().maxCoeff() < 1e-15);
    }
    Eigen::VectorXd vertex = Eigen::VectorXd::Zero(5);
    vertex[2] = 1.0;
    QCOMPARE(projectToSimplex(vertex), vertex);
  }

  void projectionKnownValues() {
    Eigen::VectorXd v(3);
    v << 0.5, 0.5, 0.5;  // shift by 1/6 each
    Eigen::VectorXd expected = Eigen::VectorXd::Constant(3, 1.0 / 3.0);
    QVERIFY((projectToSimplex(v) - expected).norm() < 1e-15);
    v << 2.0, 0.0, -1.0;  // -> vertex e0
    expected << 1.0, 0.0, 0.0;
    QCOMPARE(projectToSimplex(v), expected);
    v << 0.8, 0.6, -5.0;  // tau = 0.2 -> (0.6, 0.4, 0)
    expected << 0.6, 0.4, 0.0;
    QVERIFY((projectToSimplex(v) - expected).norm() < 1e-15);
    Eigen::VectorXd single(1);
    single << -7.0;
    QCOMPARE(projectToSimplex(single)[0], 1.0);
    QCOMPARE(projectToSimplex(Eigen::VectorXd()).size(), Eigen::Index(0));
  }

  void projectionNonFiniteInput() {
    Eigen::VectorXd v(3);
    v << 0.2, std::numeric_limits<double>::infinity(), 0.1;
    const Eigen::VectorXd p = projectToSimplex(v);
    QCOMPARE(p.size(), Eigen::Index(3));
    QVERIFY(p.array().isNaN().all());
  }

  void projectColumns() {
    SeededRandom rng(5);
    const Eigen::MatrixXd m = randomMatrix(rng, 10, 4);
    const Eigen::MatrixXd p = projectColumnsToSimplex(m);
    for (int j = 0; j < 4; ++j) {
      QVERIFY(onSimplex(p.col(j)));
      QCOMPARE(Eigen::VectorXd(p.col(j)), projectToSimplex(m.col(j)));
    }
  }
};

QTEST_APPLESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
