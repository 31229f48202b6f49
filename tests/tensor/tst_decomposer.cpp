// Tensor operations and decomposers: contractions against brute force, exact recovery of an
// orthogonally decomposable tensor, robustness to small noise, validation.
#include <QtTest>
#include <omp.h>

#include <algorithm>
#include <numeric>

#include "core/tensor/decomposer.h"
#include "core/tensor/tensor3.h"
#include "test_util.h"

using namespace dplda;
using namespace dplda::test;

namespace {

Eigen::MatrixXd randomOrthogonal(int k, std::uint64_t seed) {
  SeededRandom rng(seed);
  Eigen::MatrixXd G(k, k);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) G(i, j) = standardNormal(rng);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(G);
  return qr.householderQ() * Eigen::MatrixXd::Identity(k, k);
}

// Recovery error of an orthogonal decomposition, up to order (largest λ first) and sign.
double recoveryError(const TensorEigenpairs& td, const Eigen::VectorXd& lambda, const Eigen::MatrixXd& V) {
  double err = 0.0;
  for (int i = 0; i < lambda.size(); ++i) {
    err = std::max(err, std::abs(td.lambda[i] - lambda[i]) / lambda[i]);
    err = std::max(err, (td.V.col(i) - V.col(i)).norm());
  }
  return err;
}

// An odeco tensor with weights 1 + 0.05 i + 0.01 u_i (close ones included) and symmetric Gaussian
// noise of entry scale `noise`; the truth sorted by weight, descending.
struct Planted {
  Tensor3 T;
  Eigen::VectorXd lambda;
  Eigen::MatrixXd V;
};
Planted plantedTensor(int k, double noise, std::uint64_t seed) {
  const Eigen::MatrixXd V = randomOrthogonal(k, 100 * k + seed);
  Eigen::VectorXd lambda(k);
  SeededRandom wr(seed);
  for (int i = 0; i < k; ++i) lambda[i] = 1.0 + 0.05 * i + 0.01 * uniform01(wr);
  Planted p{symmetricFromComponents(lambda, V), Eigen::VectorXd(k), Eigen::MatrixXd(k, k)};
  if (noise > 0.0) {
    SeededRandom nr(seed + 50);
    Tensor3 E(k);
    for (std::size_t i = 0; i < E.size(); ++i) E.data()[i] = noise * standardNormal(nr);
    p.T += E.symmetrized();
  }
  std::vector<int> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return lambda[a] > lambda[b]; });
  for (int i = 0; i < k; ++i) {
    p.lambda[i] = lambda[order[i]];
    p.V.col(i) = V.col(order[i]);
  }
  return p;
}

}  // namespace

class TestDecomposer : public QObject {
  Q_OBJECT
 private slots:
  void contractionsMatchBruteForce() {
    const int k = 5;
    SeededRandom rng(1);
    Tensor3 T(k);
    for (std::size_t i = 0; i < T.size(); ++i) T.data()[i] = standardNormal(rng);
    const Eigen::VectorXd u = Eigen::VectorXd::Random(k);
    Eigen::VectorXd ref = Eigen::VectorXd::Zero(k);
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j)
        for (int l = 0; l < k; ++l) ref[i] += T(i, j, l) * u[j] * u[l];
    QVERIFY(relativeError(T.contractTwice(u), ref) < 1e-13);
    QVERIFY(std::abs(T.contractThrice(u) - u.dot(ref)) < 1e-12);
    const Eigen::MatrixXd A = Eigen::MatrixXd::Random(k, 3);
    const Tensor3 M = T.multilinear(A);
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q)
        for (int r = 0; r < 3; ++r) {
          double s = 0.0;
          for (int i = 0; i < k; ++i)
            for (int j = 0; j < k; ++j)
              for (int l = 0; l < k; ++l) s += T(i, j, l) * A(i, p) * A(j, q) * A(l, r);
          QVERIFY(std::abs(M(p, q, r) - s) < 1e-12);
        }
    const Tensor3 S = T.symmetrized();
    QVERIFY(S.isSymmetric(1e-14));
    QVERIFY(!T.isSymmetric(1e-6));
  }

  // Issue 28: the contraction of many columns at large k held k² doubles per column in each of two
  // halves (27 GB at k = 800). Chunks of at most 64 MiB give the same columns, whatever the
  // thread count.
  void chunkedContractionMatchesColumns() {
    const int k = 64, n = 5000;  // k² n / 2 doubles = 80 MiB: three chunks of at most 2048 columns
    SeededRandom rng(2);
    Tensor3 T(k);
    for (std::size_t i = 0; i < T.size(); ++i) T.data()[i] = standardNormal(rng);
    Eigen::MatrixXd U(k, n);
    for (Eigen::Index i = 0; i < U.size(); ++i) U.data()[i] = standardNormal(rng);
    const int before = omp_get_max_threads();
    omp_set_num_threads(1);
    const Eigen::MatrixXd one = T.contractTwiceColumns(U);
    omp_set_num_threads(3);
    const Eigen::MatrixXd three = T.contractTwiceColumns(U);
    omp_set_num_threads(before);
    QVERIFY(one == three);
    for (const Eigen::Index s : {Eigen::Index{0}, Eigen::Index{2047}, Eigen::Index{2048}, Eigen::Index{n - 1}})
      QVERIFY(relativeError(one.col(s), T.contractTwice(U.col(s))) < 1e-13);
  }

  void recoversOrthogonalTensor_data() {
    QTest::addColumn<QString>("method");
    QTest::newRow("robust") << "robust";
    QTest::newRow("simultaneous") << "simultaneous";
    QTest::newRow("fast") << "fast";
  }
  void recoversOrthogonalTensor() {
    QFETCH(QString, method);
    for (int k : {2, 5, 10}) {
      const Eigen::MatrixXd V = randomOrthogonal(k, 7 + k);
      Eigen::VectorXd lambda(k);
      for (int i = 0; i < k; ++i) lambda[i] = 10.0 - 0.7 * i;  // distinct, positive
      const Tensor3 T = symmetricFromComponents(lambda, V);
      auto decomposer = makeDecomposer(method.toStdString()).value();
      SeededRandom rng(3);
      const TensorEigenpairs td = decomposer->decompose(T, rng).value();
      QVERIFY(td.converged());
      QVERIFY(td.iterations > 0);
      // Align signs (λ > 0 fixes them) and compare.
      QVERIFY2(recoveryError(td, lambda, V) < 1e-8, qPrintable(method + " k=" + QString::number(k)));
      QVERIFY(std::abs(tensorEigengap(td.lambda) - 0.25 * 0.7) < 1e-8);
    }
  }

  void negativeWeightsAreFlipped() {
    const Eigen::MatrixXd V = randomOrthogonal(3, 2);
    const Eigen::VectorXd lambda = Eigen::Vector3d(3.0, 2.0, 1.0);
    Eigen::MatrixXd Vflip = V;
    Vflip.col(1) = -V.col(1);  // T is odd in v: this is λ = −2 along −v
    const Tensor3 T = symmetricFromComponents(Eigen::Vector3d(3.0, -2.0, 1.0), Vflip);
    SeededRandom rng(1);
    const TensorEigenpairs td = RobustPowerMethod().decompose(T, rng).value();
    for (int i = 0; i < 3; ++i) QVERIFY(td.lambda[i] > 0.0);
    QVERIFY(recoveryError(td, lambda, V) < 1e-8);
  }

  void toleratesSmallNoise() {
    const int k = 6;
    const Eigen::MatrixXd V = randomOrthogonal(k, 11);
    Eigen::VectorXd lambda(k);
    for (int i = 0; i < k; ++i) lambda[i] = 2.0 + i;
    Tensor3 T = symmetricFromComponents(lambda, V);
    SeededRandom noise(5);
    Tensor3 E(k);
    for (std::size_t i = 0; i < E.size(); ++i) E.data()[i] = 1e-4 * standardNormal(noise);
    T += E.symmetrized();
    SeededRandom rng(2);
    const TensorEigenpairs td = RobustPowerMethod().decompose(T, rng).value();
    // Sorted descending: the truth reversed.
    const Eigen::VectorXd sortedLambda = lambda.reverse();
    const Eigen::MatrixXd sortedV = V.rowwise().reverse();
    QVERIFY(recoveryError(td, sortedLambda, sortedV) < 1e-2);
  }

  void fastRecoversNoisyTensorsLikeRobust() {
    // Planted odeco tensors with symmetric Gaussian noise, including close weights (a near-tie of
    // λ_i v_iᵀθ in one random contraction): the spectral initialisation + polish must recover the
    // components as well as Algorithm 1 (error within 10 % of it, or below 1e-8 absolute).
    int trials = 0;
    for (int k : {5, 12, 20}) {
      for (double noise : {0.0, 1e-3, 1e-2}) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
          const Planted p = plantedTensor(k, noise, seed);
          SeededRandom r1(seed), r2(seed);
          const TensorEigenpairs fast = SpectralInitPowerMethod().decompose(p.T, r1).value();
          const TensorEigenpairs robust = RobustPowerMethod().decompose(p.T, r2).value();
          const double ef = recoveryError(fast, p.lambda, p.V);
          const double er = recoveryError(robust, p.lambda, p.V);
          QVERIFY2(ef <= 1.1 * er || ef < 1e-8,
                   qPrintable(QString("k=%1 noise=%2 seed=%3: fast %4, robust %5").arg(k).arg(noise).arg(seed).arg(ef).arg(er)));
          if (noise == 0.0) QVERIFY(fast.converged());
          ++trials;
        }
      }
    }
    QCOMPARE(trials, 27);
    // Cancellation and bad input as the other decomposers.
    Tensor3 bad(3);
    bad(0, 0, 0) = std::nan("");
    SeededRandom rng(1);
    QCOMPARE(SpectralInitPowerMethod().decompose(bad, rng).status().code(), StatusCode::NumericalFailure);
    Feedback fb;
    fb.cancel();
    QCOMPARE(SpectralInitPowerMethod()
                 .decompose(symmetricFromComponents(Eigen::Vector2d(1, 2), Eigen::Matrix2d::Identity()), rng, &fb)
                 .status()
                 .code(),
             StatusCode::Cancelled);
    QCOMPARE(makeDecomposer("fast").value()->name(), std::string("fast"));
  }

  void fastConvergedFlagMeansConverged() {
    // k = 8, noise 0.1: one component is an attracting fixed point with linear rate ~0.9 (the
    // spectral radius of 2T̃(I,I,u)/λ on u⊥) and needs ~160 steps, as a few components of the
    // Debian k = 50 tensor do. The step-size test stopped it at R = 100 and reported the whole
    // decomposition unconverged. Converged must mean: residual within tolerance, and more
    // iterations at a tighter tolerance do not move the result.
    const Planted p = plantedTensor(8, 0.1, 29);
    SeededRandom a(29), b(29);
    const TensorEigenpairs fast = SpectralInitPowerMethod().decompose(p.T, a).value();
    QVERIFY(fast.converged());
    QCOMPARE(fast.unconverged, 0);
    QVERIFY(fast.maxResidual && *fast.maxResidual <= 1e-10);
    PowerMethodOptions longer;
    longer.maxIterations = 3000;
    longer.tolerance = 1e-14;
    const TensorEigenpairs ref = SpectralInitPowerMethod(longer).decompose(p.T, b).value();
    QVERIFY(ref.converged() && ref.iterations > fast.iterations);
    for (int i = 0; i < 8; ++i) {
      QVERIFY(std::abs(fast.lambda[i] - ref.lambda[i]) < 1e-7);
      QVERIFY((fast.V.col(i) - ref.V.col(i)).norm() < 1e-7);
    }
    // An exact odeco tensor: the candidates are its eigenvectors, converged even with R = 1.
    PowerMethodOptions one;
    one.maxIterations = 1;
    SeededRandom c(1);
    const Tensor3 odeco = plantedTensor(6, 0.0, 3).T;
    const TensorEigenpairs exact = SpectralInitPowerMethod(one).decompose(odeco, c).value();
    QVERIFY(exact.converged() && *exact.maxResidual < 1e-14);
  }

  void unconvergedComponentsAreCounted() {
    // The budget cut short (R = 5): every component is still moving. Flag false, the count says
    // how many, and the steps stay within (k + 1)·R (plus one residual contraction each).
    const Planted p = plantedTensor(8, 0.1, 29);
    PowerMethodOptions shortBudget;
    shortBudget.maxIterations = 5;
    SeededRandom a(29);
    const TensorEigenpairs cut = SpectralInitPowerMethod(shortBudget).decompose(p.T, a).value();
    QVERIFY(!cut.converged());
    QVERIFY(cut.unconverged >= 1 && cut.unconverged <= 8);
    QVERIFY(*cut.maxResidual > 1e-10);
    QVERIFY(cut.iterations <= 9 * 5 + 8);
    // k = 6, noise 0.2: the last component (λ ≈ 0.2, in the noise) is a repelling fixed point and
    // never settles; the five others do. Exactly one is reported, and it gives up at R (the
    // budget is not spent on it).
    const Planted noisy = plantedTensor(6, 0.2, 29);
    for (std::uint64_t seed : {1, 2, 29}) {
      SeededRandom r(seed);
      const TensorEigenpairs td = SpectralInitPowerMethod().decompose(noisy.T, r).value();
      QVERIFY(!td.converged());
      QCOMPARE(td.unconverged, 1);
      QVERIFY(*td.maxResidual > 1e-3);
      QVERIFY(td.iterations < 6 * 100);
    }
    // The other decomposers count theirs too (by their step-size test).
    PowerMethodOptions two;
    two.maxIterations = 2;
    SeededRandom b(3), c(3);
    const TensorEigenpairs robust = RobustPowerMethod(two).decompose(p.T, b).value();
    QVERIFY(!robust.converged());
    QCOMPARE(robust.unconverged, 8);
    QVERIFY(!robust.maxResidual);
    const TensorEigenpairs simultaneous = SimultaneousPowerMethod(two).decompose(p.T, c).value();
    QVERIFY(!simultaneous.converged() && simultaneous.unconverged >= 1 && simultaneous.unconverged <= 8);
  }

  void leadingComponentsOfOrthogonalTensor() {
    // Odeco, k = 8, distinct weights with three clear leaders stored out of order: r = 3
    // components are the three largest weights and their vectors (relative error 1e-8, sign
    // fixed by λ > 0), in a k x 3 result.
    const int k = 8, r = 3;
    const Eigen::MatrixXd V = randomOrthogonal(k, 21);
    Eigen::VectorXd w(k);
    w << 0.9, 4.0, 0.7, 5.0, 0.6, 1.0, 3.0, 0.8;
    const Tensor3 T = symmetricFromComponents(w, V);
    const std::vector<int> leaders = {3, 1, 6};  // weights 5, 4, 3
    Eigen::VectorXd topW(r);
    Eigen::MatrixXd topV(k, r);
    for (int i = 0; i < r; ++i) {
      topW[i] = w[leaders[i]];
      topV.col(i) = V.col(leaders[i]);
    }
    SeededRandom rng(5);
    const TensorEigenpairs td = RobustPowerMethod().decompose(T, r, rng).value();
    QCOMPARE(td.lambda.size(), Eigen::Index(r));
    QCOMPARE(td.V.rows(), Eigen::Index(k));
    QCOMPARE(td.V.cols(), Eigen::Index(r));
    QVERIFY(td.converged());
    QVERIFY2(recoveryError(td, topW, topV) < 1e-8, td.method.c_str());
    QVERIFY(td.method.find("first 3") != std::string::npos);

    // Same starts as the full decomposition (explicit L, same seed): its three leading pairs, to
    // rounding; with the default L the r = k result is what decompose(T, rng) gives.
    PowerMethodOptions o;
    o.restarts = 12;
    SeededRandom a(9), b(9);
    const TensorEigenpairs full = RobustPowerMethod(o).decompose(T, a).value();
    const TensorEigenpairs lead = RobustPowerMethod(o).decompose(T, r, b).value();
    QVERIFY(full.iterations > lead.iterations);
    for (int i = 0; i < r; ++i) {
      QVERIFY(std::abs(lead.lambda[i] - full.lambda[i]) < 1e-12);
      QVERIFY((lead.V.col(i) - full.V.col(i)).norm() < 1e-12);
    }
    SeededRandom c(4), e(4);
    const TensorEigenpairs all = RobustPowerMethod().decompose(T, k, c).value();
    const TensorEigenpairs byDefault = RobustPowerMethod().decompose(T, e).value();
    QVERIFY(all.lambda == byDefault.lambda && all.V == byDefault.V);
    QCOMPARE(all.V.cols(), Eigen::Index(k));

    // Matrix-free: the same components through the tensor's contractions (implicit deflation),
    // in extraction order (largest weight first here), λ >= 0; a stop rule ends it early.
    SeededRandom f(9);
    const LeadingEigenpairs ex = RobustPowerMethod(o).extractLeading(DenseTensorOperator(T), r, f).value();
    QVERIFY(!ex.stoppedEarly);
    QCOMPARE(ex.found.cols(), Eigen::Index(r));
    for (int i = 0; i < r; ++i) {
      QVERIFY(std::abs(ex.foundLambda[i] - topW[i]) < 1e-8 * topW[i]);
      QVERIFY((ex.found.col(i) - topV.col(i)).norm() < 1e-8);
      QVERIFY(std::abs(ex.sorted.lambda[i] - lead.lambda[i]) < 1e-10);
    }
    int calls = 0;
    SeededRandom g(9);
    const LeadingEigenpairs stopped =
        RobustPowerMethod(o)
            .extractLeading(DenseTensorOperator(T), r, g,
                            [&](const Eigen::MatrixXd& soFar) { return ++calls, soFar.cols() == 2; })
            .value();
    QVERIFY(stopped.stoppedEarly);
    QCOMPARE(calls, 2);
    QCOMPARE(stopped.found.cols(), Eigen::Index(2));
    QCOMPARE(stopped.sorted.lambda.size(), Eigen::Index(2));
  }

  void componentCountOutOfRange() {
    const Tensor3 T = symmetricFromComponents(Eigen::Vector3d(3, 2, 1), randomOrthogonal(3, 1));
    SeededRandom rng(1);
    for (int bad : {0, -1, 4}) {
      const Status s = RobustPowerMethod().decompose(T, bad, rng).status();
      QCOMPARE(s.code(), StatusCode::InvalidArgument);
      QVERIFY2(s.message().find("components") != std::string::npos &&
                   s.message().find("1..3") != std::string::npos &&
                   s.message().find("got " + std::to_string(bad)) != std::string::npos,
               s.message().c_str());
      QCOMPARE(RobustPowerMethod().extractLeading(DenseTensorOperator(T), bad, rng).status().code(),
               StatusCode::InvalidArgument);
    }
    // Non-finite input is refused by both entry points, also when only a few components are asked for.
    Tensor3 bad = T;
    bad(0, 1, 2) = bad(2, 1, 0) = std::nan("");
    QCOMPARE(RobustPowerMethod().decompose(bad, 1, rng).status().code(), StatusCode::NumericalFailure);
    QCOMPARE(RobustPowerMethod().extractLeading(DenseTensorOperator(bad), 1, rng).status().code(),
             StatusCode::NumericalFailure);
  }

  void validation() {
    QVERIFY(!makeDecomposer("magic").ok());
    QVERIFY(makeDecomposer("magic").status().message().find("magic") != std::string::npos);
    PowerMethodOptions bad;
    bad.tolerance = std::nan("");
    QCOMPARE(makeDecomposer("robust", bad).status().code(), StatusCode::InvalidArgument);
    bad = {};
    bad.maxIterations = 0;
    QCOMPARE(validatePowerMethodOptions(bad).code(), StatusCode::InvalidArgument);
    Tensor3 T(3);
    T(0, 0, 0) = std::nan("");
    SeededRandom rng(1);
    QCOMPARE(RobustPowerMethod().decompose(T, rng).status().code(), StatusCode::NumericalFailure);
    QCOMPARE(SimultaneousPowerMethod().decompose(T, rng).status().code(), StatusCode::NumericalFailure);
    Feedback fb;
    fb.cancel();
    QCOMPARE(RobustPowerMethod().decompose(symmetricFromComponents(Eigen::Vector2d(1, 2), Eigen::Matrix2d::Identity()),
                                           rng, &fb)
                 .status()
                 .code(),
             StatusCode::Cancelled);
  }
};

QTEST_APPLESS_MAIN(TestDecomposer)
#include "tst_decomposer.moc"
