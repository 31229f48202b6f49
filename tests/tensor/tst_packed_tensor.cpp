// PackedTensor3 / PackedTensorOperator: the packed contraction T(I, u, u) against a brute-force
// sum (any tensor, every kernel shape), bit-identical results for any thread count, its memory,
// and Algorithm 3 run through it against the unfolding.
#include <omp.h>

#include <QtTest>
#include <cstring>

#include "core/tensor/decomposer.h"
#include "core/tensor/private_power_method.h"
#include "core/tensor/tensor3.h"
#include "test_util.h"

using namespace dplda;
using namespace dplda::test;

namespace {

Tensor3 randomTensor(int k, std::uint64_t seed) {  // not symmetric: the packing must not assume it
  SeededRandom rng(seed);
  Tensor3 T(k);
  for (std::size_t i = 0; i < T.size(); ++i) T.data()[i] = standardNormal(rng);
  return T;
}

Eigen::MatrixXd randomMatrix(int rows, int cols, std::uint64_t seed) {
  SeededRandom rng(seed);
  Eigen::MatrixXd U(rows, cols);
  for (int s = 0; s < cols; ++s)
    for (int i = 0; i < rows; ++i) U(i, s) = standardNormal(rng);
  return U;
}

// sum_{j,l} T(i,j,l) u_j u_l in long double, and sum |T(i,j,l) u_j u_l| (the rounding scale).
void bruteForce(const Tensor3& T, const Eigen::MatrixXd& U, Eigen::MatrixXd& value, Eigen::MatrixXd& scale) {
  const int k = T.dim();
  value.resize(k, U.cols());
  scale.resize(k, U.cols());
  for (Eigen::Index s = 0; s < U.cols(); ++s)
    for (int i = 0; i < k; ++i) {
      long double sum = 0.0L, abs = 0.0L;
      for (int j = 0; j < k; ++j)
        for (int l = 0; l < k; ++l) {
          const long double term = static_cast<long double>(T(i, j, l)) * U(j, s) * U(l, s);
          sum += term;
          abs += term < 0 ? -term : term;
        }
      value(i, s) = static_cast<double>(sum);
      scale(i, s) = static_cast<double>(abs);
    }
}

bool sameBits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

}  // namespace

class TestPackedTensor : public QObject {
  Q_OBJECT
 private slots:
  // Sizes around the panel height (4 or 8 rows) and the packet widths (1, 2, 4, 8 columns, blocks of 3).
  void matchesBruteForce_data() {
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("n");
    for (int k : {1, 3, 8, 9, 17})
      for (int n : {1, 2, 3, 4, 5, 7, 8, 9, 12, 20, 24, 25, 33, 50}) QTest::addRow("k%d_n%d", k, n) << k << n;
  }
  void matchesBruteForce() {
    QFETCH(int, k);
    QFETCH(int, n);
    const Tensor3 T = randomTensor(k, 100 + k);
    const Eigen::MatrixXd U = randomMatrix(k, n, 200 + n);
    Eigen::MatrixXd ref, scale;
    bruteForce(T, U, ref, scale);
    const Eigen::MatrixXd got = PackedTensor3(T).contractTwiceColumns(U);
    QCOMPARE(got.rows(), Eigen::Index(k));
    QCOMPARE(got.cols(), Eigen::Index(n));
    // Each entry is a sum of k(k+1)/2 products: its error is within a few k^2 ulps of the scale.
    const double err = ((got - ref).cwiseAbs().array() / scale.array()).maxCoeff();
    QVERIFY2(err < 1e-14 * k * k + 1e-15, qPrintable(QString::number(err)));
    // The dense unfolding agrees to rounding too.
    QVERIFY(relativeError(got, T.contractTwiceColumns(U)) < 1e-12);
  }

  // Issue 28: many columns at large k go in blocks of at most 64 MiB of pair products; each entry
  // is the same chain of multiply-adds, so the blocks change no bit.
  void manyColumnsGoInBlocks() {
    const int k = 64, n = 9000;  // 2080 pairs: blocks of 4032 columns
    const Tensor3 T = randomTensor(k, 7);
    const Eigen::MatrixXd U = randomMatrix(k, n, 8);
    const PackedTensor3 packed(T);
    const Eigen::MatrixXd got = packed.contractTwiceColumns(U);
    Eigen::MatrixXd pieces(k, n);
    for (Eigen::Index c0 = 0; c0 < n; c0 += 1000) {
      const Eigen::Index w = std::min<Eigen::Index>(1000, n - c0);
      pieces.middleCols(c0, w) = packed.contractTwiceColumns(U.middleCols(c0, w));
    }
    QVERIFY(got == pieces);
  }

  void emptyBatch() {
    const Tensor3 T = randomTensor(5, 1);
    const Eigen::MatrixXd got = PackedTensor3(T).contractTwiceColumns(Eigen::MatrixXd(5, 0));
    QCOMPARE(got.rows(), Eigen::Index(5));
    QCOMPARE(got.cols(), Eigen::Index(0));
  }

  // Large enough to run in parallel (4 lanes at k = 90): the lanes are fixed by k and added in
  // lane order, so the bits never depend on the thread count (lanes added as threads finish, or
  // cut by the thread count, would change the rounding). And a column's result does not depend on
  // the batch it came in (each is its own chain of multiply-adds).
  void bitIdenticalForAnyThreadCount() {
    const int k = 90, n = 21;
    const Tensor3 T = randomTensor(k, 7);
    const PackedTensor3 packed(T);
    const Eigen::MatrixXd U = randomMatrix(k, n, 8);
    const int before = omp_get_max_threads();
    std::vector<Eigen::MatrixXd> results;
    for (int threads : {1, 2, 3, 7}) {
      omp_set_num_threads(threads);
      results.push_back(packed.contractTwiceColumns(U));
    }
    omp_set_num_threads(before);
    for (std::size_t t = 1; t < results.size(); ++t) QVERIFY(sameBits(results[0], results[t]));
    QVERIFY(relativeError(results[0], T.contractTwiceColumns(U)) < 1e-12);
    for (int s : {0, 9, 20}) QVERIFY(sameBits(packed.contractTwiceColumns(U.col(s)), results[0].col(s)));
    QVERIFY(sameBits(packed.contractTwiceColumns(U.middleCols(3, 13)), results[0].middleCols(3, 13)));
  }

  // k^2 (k+1)/2 doubles, rows padded to whole panels (at most 7 extra rows).
  void memory() {
    for (int k : {1, 10, 200}) {
      const std::size_t pairs = static_cast<std::size_t>(k) * (k + 1) / 2;
      const std::size_t bytes =
          k == 200 ? PackedTensorOperator(Tensor3(k)).bytes() : PackedTensor3(Tensor3(k)).bytes();
      QVERIFY(bytes >= pairs * k * sizeof(double));
      QVERIFY(bytes <= pairs * (k + 7) * sizeof(double));
      QVERIFY(bytes % (pairs * sizeof(double)) == 0);
    }
    QVERIFY(PackedTensor3(Tensor3(200)).bytes() <= 32160000u);  // 32 MB at d = 200 (the full tensor: 64 MB)
  }

  // Algorithm 3 through the packed operator: the same queries and noise as through the unfolding,
  // the same result up to rounding; and bit-identical for one thread or several.
  void privatePowerMethodThroughPackedOperator() {
    const int k = 90;  // large enough for the threads to share the contractions
    Eigen::MatrixXd G = randomMatrix(k, 3, 12);
    const Eigen::MatrixXd V =
        Eigen::HouseholderQR<Eigen::MatrixXd>(G).householderQ() * Eigen::MatrixXd::Identity(k, 3);
    Tensor3 T = symmetricFromComponents(Eigen::Vector3d(30.0, 20.0, 10.0), V);
    Tensor3 E = randomTensor(k, 13);
    E *= 1e-3;
    T += E.symmetrized();
    const PrivatePowerOptions o{3, 20, 15};
    auto run = [&](const SymmetricTensorOperator& op, int threads) {
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      SeededRandom init(21), noise(22);
      NoisyPowerResult r =
          noisyRobustPowerMethod(op, o, 0.05, TpmSensitivity::fixed(1.0), init, noise).value();
      omp_set_num_threads(before);
      return r;
    };
    const PackedTensorOperator packed(T);
    const NoisyPowerResult a = run(packed, 1), b = run(packed, 2), c = run(DenseTensorOperator(T), 1);
    QVERIFY(sameBits(a.pairs.V, b.pairs.V));
    QVERIFY(a.pairs.lambda == b.pairs.lambda);
    QCOMPARE(a.queries.total(), c.queries.total());
    QVERIFY((a.pairs.V - c.pairs.V).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY((a.pairs.lambda - c.pairs.lambda).cwiseAbs().maxCoeff() < 1e-9 * a.pairs.lambda[0]);
    QVERIFY(std::abs(a.pairs.lambda[0] - 30.0) < 1.0);  // and it found the leading component
  }
};

QTEST_APPLESS_MAIN(TestPackedTensor)
#include "tst_packed_tensor.moc"
