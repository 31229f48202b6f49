// core/linalg/packed_symmetric: the tiled lower triangle holds the matrix it was given, its
// product is the dense product's (to rounding), and its bits do not depend on the thread count.
#include <QtTest>
#include <omp.h>

#include <limits>

#include "core/common/random.h"
#include "core/linalg/packed_symmetric.h"
#include "test_util.h"

using namespace dplda;
using namespace dplda::test;

namespace {

Eigen::MatrixXd randomMatrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed) {
  SeededRandom rng(seed);
  Eigen::MatrixXd A(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) A(i, j) = standardNormal(rng);
  return A;
}

}  // namespace

class TestPackedSymmetric : public QObject {
  Q_OBJECT
 private slots:
  void holdsTheLowerTriangle() {
    // Sizes around the tile: one partial tile, exact tiles, a partial last tile row.
    constexpr Eigen::Index T = PackedSymmetricMatrix::kTile;
    for (Eigen::Index n : {Eigen::Index{1}, Eigen::Index{3}, T - 1, T, T + 1, 3 * T + 5}) {
      const Eigen::MatrixXd A = randomMatrix(n, n, 100 + static_cast<std::uint64_t>(n));  // not symmetric
      const PackedSymmetricMatrix P = PackedSymmetricMatrix::fromLower(A);
      QCOMPARE(P.rows(), n);
      Eigen::MatrixXd lower = A.triangularView<Eigen::Lower>();
      const Eigen::MatrixXd expected = lower + lower.transpose() - Eigen::MatrixXd(A.diagonal().asDiagonal());
      QVERIFY(P.toDense() == expected);
      for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j) QCOMPARE(P(i, j), expected(i, j));
      QVERIFY(P.allFinite());
      QVERIFY(PackedSymmetricMatrix(n).toDense() == Eigen::MatrixXd::Zero(n, n));
    }
    // fromLowerColumns: column c gets fill(c)'s n − c values, rows c .. n−1.
    const Eigen::Index n = 2 * T + 3;
    const PackedSymmetricMatrix P = PackedSymmetricMatrix::fromLowerColumns(n, [n](Eigen::Index c, double* out) {
      for (Eigen::Index r = c; r < n; ++r) out[r - c] = double(1000 * r + c);
    });
    QCOMPARE(P(n - 1, 5), double(1000 * (n - 1) + 5));
    QCOMPARE(P(5, n - 1), double(1000 * (n - 1) + 5));
    QCOMPARE(P(T, T), double(1000 * T + T));
  }

  void productIsTheDenseProduct() {
    constexpr Eigen::Index T = PackedSymmetricMatrix::kTile;
    for (Eigen::Index n : {Eigen::Index{1}, Eigen::Index{5}, T, 2 * T + 7, 9 * T + 30})
      for (Eigen::Index b : {1, 3, 8, 16, 21}) {
        Eigen::MatrixXd A = randomMatrix(n, n, 7 + static_cast<std::uint64_t>(n));
        A = (A + A.transpose()).eval();
        const Eigen::MatrixXd X = randomMatrix(n, b, 9 + static_cast<std::uint64_t>(b));
        const Eigen::MatrixXd Y = PackedSymmetricMatrix::fromLower(A).times(X);
        const Eigen::MatrixXd ref = A * X;
        QCOMPARE(Y.rows(), n);
        QCOMPARE(Y.cols(), b);
        // Sums of n terms in another order: rounding of n ε ‖A‖ ‖X‖ at most.
        QVERIFY2((Y - ref).cwiseAbs().maxCoeff() <= 1e-14 * double(n) * A.cwiseAbs().maxCoeff() * X.cwiseAbs().maxCoeff() * 4,
                 qPrintable(QString("n %1 b %2: %3").arg(n).arg(b).arg((Y - ref).cwiseAbs().maxCoeff())));
        // In float (the whitened release's passes): the product of the rounded matrix, to float
        // rounding; the 12 partial sums of its kernels cover other rows than double's.
        const PackedSymmetricFloat F = PackedSymmetricFloat::fromLower(A);
        const Eigen::MatrixXd Af = A.cast<float>().cast<double>();
        const Eigen::MatrixXd Yf = F.times(X), refF = Af * X;
        QVERIFY2((Yf - refF).cwiseAbs().maxCoeff() <= 1e-6 * double(n) * A.cwiseAbs().maxCoeff() * X.cwiseAbs().maxCoeff(),
                 qPrintable(QString("float n %1 b %2: %3").arg(n).arg(b).arg((Yf - refF).cwiseAbs().maxCoeff())));
        QVERIFY(F.toDense() == Af.triangularView<Eigen::Lower>().toDenseMatrix() +
                                   Eigen::MatrixXd(Af.triangularView<Eigen::StrictlyLower>()).transpose());
      }
  }

  void productDoesNotDependOnThreadCount() {
    const Eigen::Index n = 40 * PackedSymmetricMatrix::kTile - 9;  // 40 tile columns over 16 chunks
    Eigen::MatrixXd A = randomMatrix(n, n, 31);
    const PackedSymmetricMatrix P = PackedSymmetricMatrix::fromLower(A);
    const Eigen::MatrixXd X = randomMatrix(n, 16, 32);
    const PackedSymmetricFloat F = PackedSymmetricFloat::fromLower(A);
    std::vector<Eigen::MatrixXd> runs, floatRuns;
    std::vector<Eigen::MatrixXd> filled;
    for (int threads : {1, 2, 3}) {
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      runs.push_back(P.times(X));
      floatRuns.push_back(F.times(X));
      filled.push_back(PackedSymmetricMatrix::fromLower(A).toDense());
      omp_set_num_threads(before);
    }
    QVERIFY(runs[0] == runs[1] && runs[0] == runs[2]);
    QVERIFY(floatRuns[0] == floatRuns[1] && floatRuns[0] == floatRuns[2]);
    QVERIFY(filled[0] == filled[1] && filled[0] == filled[2]);
  }

  // A scratch kept across products (the eigen step's passes) holds the previous product's
  // partial sums and padding: each product must start from zeros, whatever came before, including
  // a wider block (more columns of X and of the partial sums) and a scratch filled with garbage.
  void keptScratchGivesTheSameBits() {
    const Eigen::Index n = 9 * PackedSymmetricMatrix::kTile + 30;
    Eigen::MatrixXd A = randomMatrix(n, n, 41);
    const PackedSymmetricFloat F = PackedSymmetricFloat::fromLower(A);
    const PackedSymmetricMatrix P = PackedSymmetricMatrix::fromLower(A);
    HugePageArray<float> floatScratch;
    HugePageArray<double> scratch;
    for (Eigen::Index b : {Eigen::Index{21}, Eigen::Index{16}, Eigen::Index{3}, Eigen::Index{21}}) {
      const Eigen::MatrixXd X = randomMatrix(n, b, 50 + static_cast<std::uint64_t>(b));
      const Eigen::MatrixXd Yf = F.times(X, &floatScratch), Y = P.times(X, &scratch);
      QVERIFY(Yf == F.times(X));
      QVERIFY(Y == P.times(X));
      std::fill(floatScratch.data(), floatScratch.data() + floatScratch.size(), 1e30f);
      std::fill(scratch.data(), scratch.data() + scratch.size(), -1e300);
    }
  }

  void nonFiniteEntriesAreSeen() {
    for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity()}) {
      Eigen::MatrixXd A = Eigen::MatrixXd::Zero(70, 70);
      A(69, 3) = bad;
      QVERIFY(!PackedSymmetricMatrix::fromLower(A).allFinite());
      A(69, 3) = 0.0;
      A(2, 50) = bad;  // above the diagonal: not read
      QVERIFY(PackedSymmetricMatrix::fromLower(A).allFinite());
    }
  }
};

QTEST_APPLESS_MAIN(TestPackedSymmetric)
#include "tst_packed_symmetric.moc"
