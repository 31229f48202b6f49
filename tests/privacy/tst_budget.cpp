// Tests of the budget split (SPEC §11): under basic composition the shares must never add up to
// more than the total, neither as real numbers (what the composition theorem sums) nor as the
// ledger adds them (left to right, in double). Rounding each share to nearest broke that for
// about a third of the edge sets, by 1-3 ulp.
#include <QtTest>

#include <cmath>
#include <vector>

#include "core/common/random.h"
#include "core/privacy/budget.h"

using namespace dplda;

namespace {

// An independent exact sum: 113 bits hold the sum of a dozen doubles within 2^50 of each other.
#ifdef __SIZEOF_FLOAT128__
using Wide = __float128;
#else
using Wide = long double;
#endif

const double kEpsilons[] = {0.1, 0.3, 1.0 / 3.0, 0.7, 1.0, 2.9, 10.0, 1e-3};
const double kDeltas[] = {1e-5, 1e-6, 3e-7};

// Checks one split: every share > 0, the left-to-right double sum and the exact sum <= the total,
// and each share within a relative 1e-12 of its exact proportion. Returns "" or what failed.
QString checkSplit(double epsilon, double delta, const std::vector<double>& weights) {
  const int n = static_cast<int>(weights.empty() ? 0 : weights.size());
  const auto r = splitBudget(epsilon, delta, n, weights);
  if (!r.ok()) return QString::fromStdString(r.status().message());
  const std::vector<BudgetShare>& shares = r.value();
  if (static_cast<int>(shares.size()) != n) return "wrong number of shares";
  long double weightSum = 0.0L;
  for (double x : weights) weightSum += x;
  double ledgerEps = 0.0, ledgerDelta = 0.0;
  Wide exactEps = 0, exactDelta = 0;
  for (int i = 0; i < n; ++i) {
    const BudgetShare& s = shares[i];
    if (!(s.epsilon > 0.0) || !(s.delta > 0.0)) return QString("share %1 is not positive").arg(i);
    ledgerEps += s.epsilon;
    ledgerDelta += s.delta;
    exactEps += static_cast<Wide>(s.epsilon);
    exactDelta += static_cast<Wide>(s.delta);
    const long double p = weights[i] / weightSum;
    const double relEps = static_cast<double>(std::fabs(s.epsilon / (epsilon * p) - 1.0L));
    const double relDelta = static_cast<double>(std::fabs(s.delta / (delta * p) - 1.0L));
    if (relEps > 1e-12 || relDelta > 1e-12)
      return QString("share %1 is %2 / %3 off its proportion").arg(i).arg(relEps).arg(relDelta);
  }
  if (ledgerEps > epsilon) return QString("ledger epsilon sum %1 > %2").arg(ledgerEps, 0, 'g', 17).arg(epsilon);
  if (ledgerDelta > delta) return QString("ledger delta sum %1 > %2").arg(ledgerDelta, 0, 'g', 17).arg(delta);
  if (exactEps > static_cast<Wide>(epsilon)) return "exact epsilon sum above the total";
  if (exactDelta > static_cast<Wide>(delta)) return "exact delta sum above the total";
  return {};
}

}  // namespace

class TestBudget : public QObject {
  Q_OBJECT

 private slots:
  void uniformSharesNeverExceedTheTotal() {
    // Before the fix: e.g. 12 x (1/3)/12 summed to 2 ulp above 1/3, 10 x 1e-5/10 2 ulp above 1e-5.
    for (double eps : kEpsilons)
      for (double delta : kDeltas)
        for (int n = 1; n <= 12; ++n) {
          const std::vector<double> w(n, 1.0);
          const QString err = checkSplit(eps, delta, w);
          QVERIFY2(err.isEmpty(), qPrintable(QString("eps %1 delta %2 n %3: %4").arg(eps).arg(delta).arg(n).arg(err)));
          // Uniform means equal: the nudging lowers every share alike.
          const auto r = splitBudget(eps, delta, n, {});
          QVERIFY(r.ok());
          for (const BudgetShare& s : r.value()) {
            QCOMPARE(s.epsilon, r.value()[0].epsilon);
            QCOMPARE(s.delta, r.value()[0].delta);
          }
        }
  }

  void weightedSharesNeverExceedTheTotal() {
    SeededRandom rng(20240611);
    int cases = 0;
    for (int n = 1; n <= 12; ++n)
      for (int trial = 0; trial < 150; ++trial) {
        std::vector<double> w(n);
        for (double& x : w) x = std::exp(7.0 * (uniform01(rng) - 0.5));  // weights within e^7 of each other
        for (double eps : kEpsilons)
          for (double delta : kDeltas) {
            const QString err = checkSplit(eps, delta, w);
            QVERIFY2(err.isEmpty(), qPrintable(QString("eps %1 delta %2 n %3 trial %4: %5")
                                                   .arg(eps).arg(delta).arg(n).arg(trial).arg(err)));
            ++cases;
          }
      }
    QCOMPARE(cases, 12 * 150 * 8 * 3);
    // Also random totals, not just the listed ones.
    for (int trial = 0; trial < 3000; ++trial) {
      const int n = 1 + static_cast<int>(uniformIndex(rng, 12));
      std::vector<double> w(n);
      for (double& x : w) x = 0.1 + 10.0 * uniform01(rng);
      const double eps = std::exp(12.0 * (uniform01(rng) - 0.5));
      const double delta = 1e-3 * std::exp(-20.0 * uniform01(rng));
      const QString err = checkSplit(eps, delta, w);
      QVERIFY2(err.isEmpty(), qPrintable(QString("eps %1 delta %2 n %3: %4").arg(eps, 0, 'g', 17)
                                             .arg(delta, 0, 'g', 17).arg(n).arg(err)));
    }
  }

  void invalidSplits() {
    QCOMPARE(splitBudget(1.0, 1e-5, 0, {}).status().code(), StatusCode::InvalidArgument);
    QCOMPARE(splitBudget(1.0, 1e-5, 2, {1.0}).status().code(), StatusCode::InvalidArgument);
    QCOMPARE(splitBudget(1.0, 1e-5, 2, {1.0, 0.0}).status().code(), StatusCode::InvalidArgument);
    QCOMPARE(splitBudget(1.0, 1e-5, 2, {1.0, std::nan("")}).status().code(), StatusCode::InvalidArgument);
    QCOMPARE(splitBudget(0.0, 1e-5, 1, {}).status().code(), StatusCode::InvalidArgument);
    // Weights whose sum overflows, or whose share underflows to 0, are refused, never split as 0.
    const auto big = splitBudget(1.0, 1e-5, 2, {1e308, 1e308});
    QCOMPARE(big.status().code(), StatusCode::InvalidArgument);
    QVERIFY(big.status().message().find("overflow") != std::string::npos);
    const auto tiny = splitBudget(1.0, 1e-5, 2, {1e300, 1e-300});
    QCOMPARE(tiny.status().code(), StatusCode::InvalidArgument);
    QVERIFY(tiny.status().message().find("underflows") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestBudget)
#include "tst_budget.moc"
