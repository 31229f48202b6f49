// The whitened release's symmetric noise (SPEC §8, docs/PRIVACY.md §11.1): the packed draw is the
// stream addSymmetricMatrixNoise adds, for any thread count; the released sum M + E is rounded to
// float only after the noise is added; the two normals of a Box–Muller pair are independent.
// Fixed seeds; tolerances in standard errors (SE), each with a power check.
#include <QtTest>
#include <omp.h>

#include <cmath>
#include <vector>

#include "core/common/keystream.h"
#include "core/privacy/noise.h"
#include "privacy/statistical_tests.h"

using namespace dplda;

class TestSymmetricNoise : public QObject {
  Q_OBJECT
 private slots:
  void symmetricNoiseIsTheStream() {
    // addSymmetricMatrixNoise and symmetricMatrixNoise draw the symmetric noise stream (noise.h):
    // unique entry p (i <= j, row by row) is sigma Z_p, Z from Box–Muller pairs on the keystream
    // keyed by the source's next 4 words. Above 256 rows the columns are drawn on the OpenMP
    // threads: the same bits with 1 or 3 threads, onto a matrix that was not symmetric, and the
    // packed noise is the same matrix.
    const int n = 300;
    const std::size_t entries = n * (n + 1) / 2;
    const Eigen::MatrixXd base = Eigen::MatrixXd::Random(n, n);
    SeededRandom ref(909);
    const Keystream stream(ref);
    std::vector<std::uint64_t> words(2 * ((entries + 1) / 2));
    stream.words(0, words.size(), words.data());
    Eigen::MatrixXd noise(n, n);
    std::size_t p = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i; j < n; ++j, ++p) {
        const auto [even, odd] = standardNormalPairFromBits(words[p / 2 * 2], words[p / 2 * 2 + 1]);
        noise(i, j) = noise(j, i) = 0.7 * (p % 2 == 0 ? even : odd);
      }
    const Eigen::MatrixXd expected = base + noise;
    for (int threads : {1, 3}) {
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      SeededRandom rng(909), packedRng(909);
      Eigen::MatrixXd m = base;
      QVERIFY(addSymmetricMatrixNoise(m, 0.7, rng).isOk());
      const PackedSymmetricMatrix packed = dplda::symmetricMatrixNoise<double>(n, 0.7, packedRng).value();
      omp_set_num_threads(before);
      QVERIFY(m == expected);
      QVERIFY(packed.toDense() == noise);
      SeededRandom next = ref;  // all three have used the same 4 words
      QCOMPARE(rng.nextU64(), next.nextU64());
      SeededRandom next2 = ref;
      QCOMPARE(packedRng.nextU64(), next2.nextU64());
    }
    // The pair's first normal is the one-draw sampler's; the second is its sine partner.
    for (std::uint64_t w : {std::uint64_t{0}, std::uint64_t{12345} << 30, ~std::uint64_t{0}}) {
      const auto [c, sn] = standardNormalPairFromBits(w, w ^ 0x5555555555555555ULL);
      QCOMPARE(c, standardNormalFromBits(w, w ^ 0x5555555555555555ULL));
      const double r2 = -2.0 * std::log((static_cast<double>(w >> 11) + 1.0) * 0x1.0p-53);
      QVERIFY(std::abs(c * c + sn * sn - r2) <= 1e-12 * (1.0 + r2));
    }
    // Zero noise draws nothing; a negative size is refused.
    SeededRandom quiet(3), untouched(3);
    QVERIFY(dplda::symmetricMatrixNoise<double>(5, 0.0, quiet).value().toDense() == Eigen::MatrixXd::Zero(5, 5));
    QCOMPARE(quiet.nextU64(), untouched.nextU64());
    QCOMPARE(dplda::symmetricMatrixNoise<double>(-1, 1.0, quiet).status().code(), StatusCode::InvalidArgument);
  }

  void releasedSumIsRoundedAfterTheNoiseIsAdded() {
    // The whitened release M + E with M given by its columns: formed in double, then stored as
    // float. Each float entry must be the double sum rounded: rounding E first and adding M would
    // put the noise on the float grid, whose offsets from M would then show M's low bits.
    const int n = 130;
    Eigen::MatrixXd M = Eigen::MatrixXd::Random(n, n);
    M = (1e3 * (M + M.transpose())).eval();
    M.array() += 1.0 / 3.0;
    const auto addM = [&M, n](Eigen::Index c, double* out) {
      for (Eigen::Index i = c; i < n; ++i) out[i - c] += M(i, c);
    };
    SeededRandom a(77), b(77), c(77);
    const Eigen::MatrixXd E = dplda::symmetricMatrixNoise<double>(n, 0.01, a).value().toDense();
    const PackedSymmetricMatrix sum = dplda::symmetricMatrixNoise<double>(n, 0.01, b, addM).value();
    const PackedSymmetricFloat released = dplda::symmetricMatrixNoise<float>(n, 0.01, c, addM).value();
    int roundedFirstDiffers = 0;
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) {
        QCOMPARE(sum(i, j), M(i, j) + E(i, j));
        QCOMPARE(released(i, j), static_cast<double>(static_cast<float>(M(i, j) + E(i, j))));
        QCOMPARE(released(j, i), released(i, j));
        if (static_cast<float>(M(i, j) + E(i, j)) != static_cast<float>(static_cast<float>(M(i, j)) + static_cast<float>(E(i, j))))
          ++roundedFirstDiffers;
      }
    QVERIFY(roundedFirstDiffers > 0);  // the check above can tell the two orders apart
    QCOMPARE(a.nextU64(), c.nextU64());  // the same draws from the source
  }

  void symmetricNoisePairsAreIndependentNormals() {
    // The two normals of a pair share r = sqrt(-2 ln u1): independent N(0, 1) all the same. On
    // 10^5 pairs of one large draw: mean, variance, the correlation of the partners and of their
    // squares (a pair with one r but dependent angles, or r reused, would correlate the squares),
    // and a KS test of each partner against N(0, 1).
    const int n = 448;  // 100 576 unique entries, 50 288 pairs
    SeededRandom rng(4242);
    const PackedSymmetricMatrix E = dplda::symmetricMatrixNoise<double>(n, 1.0, rng).value();
    std::vector<double> even, odd;
    std::size_t p = 0;
    double previous = 0.0;
    for (int i = 0; i < n; ++i)
      for (int j = i; j < n; ++j, ++p) {
        if (p % 2 == 1) {
          even.push_back(previous);
          odd.push_back(E(i, j));
        }
        previous = E(i, j);
      }
    const double m = double(even.size());
    const double se = 1.0 / std::sqrt(m);
    std::vector<double> evenSq, oddSq;
    for (std::size_t q = 0; q < even.size(); ++q) {
      evenSq.push_back(even[q] * even[q]);
      oddSq.push_back(odd[q] * odd[q]);
    }
    auto mean = [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()); };
    QVERIFY(std::abs(mean(even)) < 5 * se && std::abs(mean(odd)) < 5 * se);
    QVERIFY(std::abs(stat::sampleCovariance(even, even) - 1.0) < 5 * std::sqrt(2.0) * se);
    QVERIFY(std::abs(stat::sampleCovariance(odd, odd) - 1.0) < 5 * std::sqrt(2.0) * se);
    QVERIFY(std::abs(stat::sampleCovariance(even, odd)) < 5 * se);
    // Var(Z²) = 2: the correlation of independent squares has SE 1/sqrt(m) too.
    QVERIFY(std::abs(stat::sampleCovariance(evenSq, oddSq) / 2.0) < 5 * se);
    auto normal = [](double x) { return stat::normalCdf(x, 1.0); };
    QVERIFY(stat::ksPValue(stat::ksStatistic(even, normal), m) > 0.01);
    QVERIFY(stat::ksPValue(stat::ksStatistic(odd, normal), m) > 0.01);
    // Power: partners sharing r but with independent angles (r cos θ, r cos θ') are uncorrelated,
    // each N(0, 1), yet dependent: the same test sees their squares correlate (0.5 in theory).
    SeededRandom powerRng(4243);
    const Keystream stream(powerRng);
    std::vector<std::uint64_t> w(3 * even.size());
    stream.words(0, w.size(), w.data());
    std::vector<double> badSq, badPartnerSq;
    for (std::size_t q = 0; q < even.size(); ++q) {
      const double a = standardNormalFromBits(w[3 * q], w[3 * q + 1]);
      const double b = standardNormalFromBits(w[3 * q], w[3 * q + 2]);
      badSq.push_back(a * a);
      badPartnerSq.push_back(b * b);
    }
    QVERIFY(stat::sampleCovariance(badSq, badPartnerSq) / 2.0 > 20 * se);
  }
};

QTEST_APPLESS_MAIN(TestSymmetricNoise)
#include "tst_symmetric_noise.moc"
