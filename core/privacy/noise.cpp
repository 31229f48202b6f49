#include "core/privacy/noise.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <optional>
#include <vector>

#include "core/common/keystream.h"

namespace dplda {

namespace {

std::string num(double v) {
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}

Status validateScale(const char* name, double scale) {
  if (!std::isfinite(scale) || scale < 0.0)
    return invalidArgument(std::string(name) + " must be a finite number >= 0, got " + num(scale));
  return Status::ok();
}

Status requireSquare(const char* what, const Eigen::MatrixXd& m) {
  if (m.rows() == m.cols()) return Status::ok();
  return invalidArgument(std::string(what) + " needs a square matrix, got " + std::to_string(m.rows()) +
                         " x " + std::to_string(m.cols()));
}

// Calls draw(m) once per unique entry (i <= j <= l, lexicographic), m the number of distinct
// permutations of its indices (1, 3 or 6), and adds the value to every one of them, so the result
// stays exactly symmetric.
template <class Draw>
void addToUniqueEntries(Tensor3& t, Draw&& draw) {
  const int k = t.dim();
  for (int i = 0; i < k; ++i)
    for (int j = i; j < k; ++j)
      for (int l = j; l < k; ++l) {
        const double z = draw(i == j && j == l ? 1 : (i == j || j == l ? 3 : 6));
        // The distinct permutations of (i, j, l); repeated indices collapse some of the six.
        t(i, j, l) += z;
        if (i == j && j == l) continue;
        if (i == j) {  // (i, i, l)
          t(i, l, i) += z;
          t(l, i, i) += z;
        } else if (j == l) {  // (i, j, j)
          t(j, i, j) += z;
          t(j, j, i) += z;
        } else {
          t(i, l, j) += z;
          t(j, i, l) += z;
          t(j, l, i) += z;
          t(l, i, j) += z;
          t(l, j, i) += z;
        }
      }
}

// The symmetric noise stream (noise.h): entries [first, first + count) times sigma.
void symmetricNoiseEntries(const Keystream& stream, std::uint64_t first, std::size_t count, double sigma, double* out) {
  if (count == 0) return;
  const std::uint64_t q0 = first / 2, q1 = (first + count + 1) / 2;  // the pairs [q0, q1) hold them
  thread_local std::vector<std::uint64_t> words;
  words.resize(static_cast<std::size_t>(2 * (q1 - q0)));
  stream.words(2 * q0, words.size(), words.data());
  const std::uint64_t end = first + count;
  for (std::uint64_t q = q0; q < q1; ++q) {
    const std::size_t w = static_cast<std::size_t>(2 * (q - q0));
    const auto [even, odd] = standardNormalPairFromBits(words[w], words[w + 1]);
    if (2 * q >= first) out[2 * q - first] = sigma * even;
    if (2 * q + 1 < end) out[2 * q + 1 - first] = sigma * odd;
  }
}

// Unique entry (c, c) of an n x n matrix: the rows above c hold n, n − 1, ..., n − c + 1 entries.
std::uint64_t diagonalEntry(Eigen::Index c, Eigen::Index n) {
  const auto u = static_cast<std::uint64_t>(c);
  return u * static_cast<std::uint64_t>(n) - u * (u - 1) / 2;
}

}  // namespace

Status addGaussianNoise(Eigen::Ref<Eigen::MatrixXd> x, double sigma, RandomSource& rng) {
  DPLDA_RETURN_IF_ERROR(validateScale("sigma", sigma));
  if (sigma == 0.0) return Status::ok();
  for (Eigen::Index j = 0; j < x.cols(); ++j)
    for (Eigen::Index i = 0; i < x.rows(); ++i) x(i, j) += sigma * standardNormal(rng);
  return Status::ok();
}

Status addLaplaceNoise(Eigen::Ref<Eigen::MatrixXd> x, double scale, RandomSource& rng) {
  DPLDA_RETURN_IF_ERROR(validateScale("Laplace scale", scale));
  if (scale == 0.0) return Status::ok();
  for (Eigen::Index j = 0; j < x.cols(); ++j)
    for (Eigen::Index i = 0; i < x.rows(); ++i) x(i, j) += laplace(rng, scale);
  return Status::ok();
}

Status addSymmetricMatrixNoise(Eigen::MatrixXd& m, double sigma, RandomSource& rng) {
  DPLDA_RETURN_IF_ERROR(validateScale("sigma", sigma));
  DPLDA_RETURN_IF_ERROR(requireSquare("symmetric matrix noise", m));
  if (sigma == 0.0) return Status::ok();
  // Column c (rows c .. n − 1) is one run of the stream; entry (r, c) and its mirror (c, r) are
  // written by column c's task only.
  const Keystream stream(rng);
  const Eigen::Index n = m.rows();
#pragma omp parallel if (n >= 256)
  {
    std::vector<double> z(static_cast<std::size_t>(n));
#pragma omp for schedule(dynamic, 16)
    for (Eigen::Index c = 0; c < n; ++c) {
      symmetricNoiseEntries(stream, diagonalEntry(c, n), static_cast<std::size_t>(n - c), sigma, z.data());
      m(c, c) += z[0];
      for (Eigen::Index r = c + 1; r < n; ++r) {
        m(r, c) += z[static_cast<std::size_t>(r - c)];
        m(c, r) += z[static_cast<std::size_t>(r - c)];
      }
    }
  }
  return Status::ok();
}

template <class Scalar>
Result<PackedSymmetric<Scalar>> symmetricMatrixNoise(Eigen::Index n, double sigma, RandomSource& rng,
                                                     const std::function<void(Eigen::Index, double*)>& addColumn) {
  DPLDA_RETURN_IF_ERROR(validateScale("sigma", sigma));
  if (n < 0) return invalidArgument("symmetric matrix noise needs a size >= 0, got " + std::to_string(n));
  std::optional<Keystream> stream;  // none at sigma 0: the source is not drawn from
  if (sigma != 0.0) stream.emplace(rng);
  return PackedSymmetric<Scalar>::fromLowerColumns(n, [&](Eigen::Index c, double* out) {
    if (!stream) std::fill(out, out + (n - c), 0.0);
    else symmetricNoiseEntries(*stream, diagonalEntry(c, n), static_cast<std::size_t>(n - c), sigma, out);
    if (addColumn) addColumn(c, out);
  });
}
template Result<PackedSymmetric<double>> symmetricMatrixNoise(Eigen::Index, double, RandomSource&,
                                                              const std::function<void(Eigen::Index, double*)>&);
template Result<PackedSymmetric<float>> symmetricMatrixNoise(Eigen::Index, double, RandomSource&,
                                                             const std::function<void(Eigen::Index, double*)>&);

Status addSymmetricTensorNoise(Tensor3& t, double sigma, RandomSource& rng) {
  DPLDA_RETURN_IF_ERROR(validateScale("sigma", sigma));
  if (sigma == 0.0) return Status::ok();
  addToUniqueEntries(t, [&](int) { return sigma * standardNormal(rng); });
  return Status::ok();
}

Status addSymmetricMatrixLaplaceNoise(Eigen::MatrixXd& m, double scale, RandomSource& rng) {
  DPLDA_RETURN_IF_ERROR(validateScale("Laplace scale", scale));
  DPLDA_RETURN_IF_ERROR(requireSquare("symmetric matrix Laplace noise", m));
  if (scale == 0.0) return Status::ok();
  const Eigen::Index n = m.rows();
  for (Eigen::Index j = 0; j < n; ++j)  // column-major upper triangle (see the header)
    for (Eigen::Index i = 0; i <= j; ++i) {
      const double z = laplace(rng, scale);
      m(i, j) += z;
      if (i != j) m(j, i) += z;
    }
  return Status::ok();
}

Status addSymmetricTensorLaplaceNoise(Tensor3& t, double scale, RandomSource& rng) {
  DPLDA_RETURN_IF_ERROR(validateScale("Laplace scale", scale));
  if (scale == 0.0) return Status::ok();
  addToUniqueEntries(t, [&](int) { return laplace(rng, scale); });
  return Status::ok();
}

Status addSymmetricTensorOrbitLaplaceNoise(Tensor3& t, double scale, RandomSource& rng) {
  DPLDA_RETURN_IF_ERROR(validateScale("Laplace scale", scale));
  if (scale == 0.0) return Status::ok();
  // Lap(scale) on the orbit sum m·t_u is Lap(scale / m) on t_u (docs/PRIVACY.md §18).
  addToUniqueEntries(t, [&](int multiplicity) { return laplace(rng, scale / multiplicity); });
  return Status::ok();
}

Result<Tensor3> sampleLaplaceM3NoiseThrough(const Eigen::MatrixXd& W, double scale, RandomSource& rng) {
  DPLDA_RETURN_IF_ERROR(validateScale("Laplace scale", scale));
  if (W.rows() < 1 || W.cols() < 1)
    return invalidArgument("Laplace M3 noise needs a d x k whitening matrix with d, k >= 1, got " +
                           std::to_string(W.rows()) + " x " + std::to_string(W.cols()));
  if (!W.allFinite()) return invalidArgument("Laplace M3 noise: the whitening matrix W has non-finite entries");
  Tensor3 noise(static_cast<int>(W.rows()));
  DPLDA_RETURN_IF_ERROR(addSymmetricTensorOrbitLaplaceNoise(noise, scale, rng));
  return noise.multilinear(W);
}

Result<Tensor3> sampleProjectedM3Noise(const Eigen::MatrixXd& W, double sigma, RandomSource& rng) {
  DPLDA_RETURN_IF_ERROR(validateScale("sigma", sigma));
  const int k = static_cast<int>(W.cols());
  if (k < 1 || W.rows() < 1)
    return invalidArgument("projected M3 noise needs a d x k whitening matrix with d, k >= 1, got " +
                           std::to_string(W.rows()) + " x " + std::to_string(W.cols()));
  if (!W.allFinite()) return invalidArgument("projected M3 noise: the whitening matrix W has non-finite entries");
  Tensor3 out(k);
  if (sigma == 0.0) return out;

  const Eigen::MatrixXd A = W.transpose() * W;
  Eigen::MatrixXd L;
  Eigen::LLT<Eigen::MatrixXd> llt(A);
  if (llt.info() == Eigen::Success && (llt.matrixL().toDenseMatrix().diagonal().array() > 0.0).all()) {
    L = llt.matrixL();
  } else {
    // Rank-deficient W: any L with L L^T = A gives the same Gaussian law; clip tiny negative
    // eigenvalues from rounding to zero.
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
    if (eig.info() != Eigen::Success) return numericalFailure("projected M3 noise: eigendecomposition of W^T W failed");
    L = eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal();
  }

  Tensor3 z(k);
  for (std::size_t i = 0; i < z.size(); ++i) z.data()[i] = sigma * standardNormal(rng);
  // multilinear(B) contracts each mode with B(i, p); B = L^T gives sum Z(a,b,c) L(p,a) L(q,b) L(r,c).
  Tensor3 g = z.multilinear(L.transpose());
  out = g.symmetrized();
  out *= std::sqrt(6.0);
  return out;
}

Eigen::VectorXd symmetricUniqueEntries(const Eigen::MatrixXd& m) {
  const Eigen::Index d = m.rows();
  Eigen::VectorXd v(d * (d + 1) / 2);
  Eigen::Index p = 0;
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = i; j < d; ++j) v[p++] = m(i, j);
  return v;
}

Eigen::VectorXd symmetricUniqueEntries(const Tensor3& t) {
  const int k = t.dim();
  Eigen::VectorXd v(static_cast<Eigen::Index>(k) * (k + 1) * (k + 2) / 6);
  Eigen::Index p = 0;
  for (int i = 0; i < k; ++i)
    for (int j = i; j < k; ++j)
      for (int l = j; l < k; ++l) v[p++] = t(i, j, l);
  return v;
}

}  // namespace dplda
