#pragma once
// Noise samplers for private releases (SPEC §8). Every sampler takes the RandomSource to draw
// from: the caller chooses SecureRandom (the default for releases) or SeededRandom (reproducible
// teaching and tests). Draw order is fixed and documented, so a seed reproduces the noise.
//
// All samplers validate the scale (finite, >= 0; 0 adds nothing and draws nothing) and the
// shapes, and return InvalidArgument naming the parameter instead of producing NaN.
//
// Why the M3 noise model is private. For a symmetric d x d x d release the reference noise is
// E = sqrt(6) sym(G), G with i.i.d. N(0, sigma^2) entries and sym the average over the six index
// permutations. A unique entry (i <= j <= l) of sym(G) averages G over that index multiset only,
// so distinct unique entries of E depend on disjoint sets of G entries: they are independent.
// Their variances are sigma^2 (i, j, l distinct: 6 entries averaged, times 6), 2 sigma^2 (two
// equal indices: 3 distinct entries each counted twice) and 6 sigma^2 (i = j = l). So E's unique
// entries are N(0, sigma^2) noise plus extra independent noise: the Gaussian mechanism on the
// unique entries (whose l2 sensitivity is at most that of the full array) followed by
// post-processing, hence at least as private as i.i.d. N(0, sigma^2) on the unique entries.
// Because sym commutes with the multilinear map, E(W, W, W) = sqrt(6) sym(G(W, W, W)), and
// G(W, W, W) is Gaussian with covariance sigma^2 (W^T W) ⊗ (W^T W) ⊗ (W^T W), i.e. it has the
// law of Z x1 L x2 L x3 L with L L^T = W^T W and Z i.i.d. N(0, sigma^2) on k x k x k. Sampling
// that directly gives the whitened noisy tensor of configuration 1 at any d without forming d^3
// numbers, with the same distribution.
//
// Note: addSymmetricTensorNoise is the minimal unique-entry model (variance sigma^2 on every
// unique entry), not sqrt(6) sym(G), which has 2 sigma^2 / 6 sigma^2 on repeated-index entries.
// Both are private at sigma; an explicit-M3 route matches the projected route in distribution
// only if it adds sqrt(6) sym(G).
//
// Truncated tails. The samplers come from core/common/random.cpp: standardNormal is Box-Muller
// with u1 = (k + 1) 2^-53, so |Z| <= sqrt(106 ln 2) = 8.5717 for every draw, and laplace is
// b (E1 - E2) with E = -ln u, u >= 2^-53, so |X| <= 53 ln 2 b = 36.737 b. Exact noise would pass
// these bounds with probability 1.0e-17 (Gaussian, two-sided) and 1.1e-16 (Laplace); what matters
// for privacy is the event on which the sampler departs from exact noise, a uniform below 2^-53:
// 2^-53 per normal, 2^-52 per Laplace draw. A coupling on that event makes a Gaussian release of
// m values (epsilon, delta_exact + (1 + e^eps) m 2^-53)-DP, no better in general (calibrate in
// mechanisms.h reserves the excess, or refuses delta it would swamp). The Laplace mechanism is not
// pure epsilon-DP as drawn: outputs beyond f(D) + 36.74 b are impossible for D but possible for a
// neighbour; it is (epsilon, (1 + e^eps) m 2^-52)-DP (laplaceSamplerDelta). The samplers are left
// unchanged, so seeds reproduce.
#include <Eigen/Dense>

#include "core/common/random.h"
#include "core/common/status.h"
#include "core/linalg/packed_symmetric.h"
#include "core/tensor/tensor3.h"

namespace dplda {

// x += i.i.d. N(0, sigma^2) on every entry, drawn in column-major order. Vectors bind too.
Status addGaussianNoise(Eigen::Ref<Eigen::MatrixXd> x, double sigma, RandomSource& rng);

// x += i.i.d. Laplace(0, scale) on every entry (density exp(-|z|/scale)/(2 scale)), column-major.
Status addLaplaceNoise(Eigen::Ref<Eigen::MatrixXd> x, double scale, RandomSource& rng);

// The symmetric noise stream: a Keystream (core/common/keystream.h) keyed by the next 4 words of
// the RandomSource; unique entry p (i <= j, row by row: p = i n − i(i − 1)/2 + j − i) is sigma Z_p,
// with (Z_2q, Z_2q+1) = standardNormalPairFromBits(word 2q, word 2q + 1), Box–Muller's two normals
// from one pair of uniforms. The N(0, sigma^2) entries are independent, as when each normal had its
// own pair (docs/PRIVACY.md §7.2); every part of the stream can be drawn on its own, so the d²/2
// normals of a large release are drawn on all the OpenMP threads with the same values whatever
// their number (a SeededRandom reproduces them).

// m += N with N symmetric: N from the symmetric noise stream, mirrored. m must be square; if m is
// exactly symmetric the result is exactly symmetric.
Status addSymmetricMatrixNoise(Eigen::MatrixXd& m, double sigma, RandomSource& rng);

// The N that addSymmetricMatrixNoise adds to an n x n matrix (the same source state, the same
// values), stored packed. With `addColumn`, M + N for the symmetric M whose columns it adds
// (addColumn(c, out) adds M(c + i, c) to out[i], i < n − c; called on the OpenMP threads): the
// whitened release M̃2 = M̂2ᶜ + E (second_moment_columns.h), formed in double, then stored as
// Scalar (float: rounding the released sum is post-processing; rounding N alone would not be).
template <class Scalar>
Result<PackedSymmetric<Scalar>> symmetricMatrixNoise(Eigen::Index n, double sigma, RandomSource& rng,
                                                     const std::function<void(Eigen::Index, double*)>& addColumn = {});

// The entries i <= j of a symmetric matrix, row by row: the coordinates its noise is drawn on
// (the empirical privacy audits compare releases in them).
Eigen::VectorXd symmetricUniqueEntries(const Eigen::MatrixXd& m);
// The entries i <= j <= l of a symmetric tensor, lexicographic (addSymmetricTensorNoise's order).
Eigen::VectorXd symmetricUniqueEntries(const Tensor3& t);

// t += N with N symmetric: one N(0, sigma^2) draw per unique entry (i <= j <= l, lexicographic),
// added to every permutation of its indices.
Status addSymmetricTensorNoise(Tensor3& t, double sigma, RandomSource& rng);

// m += N with N symmetric: one Laplace(0, scale) draw per unique entry, mirrored. The draws go
// column by column over the upper triangle ((0,0), (0,1), (1,1), (0,2), ...), not row by row as
// in addSymmetricMatrixNoise: the order the private pipeline has always used, so seeds reproduce.
// m must be square; if m is exactly symmetric the result is exactly symmetric.
Status addSymmetricMatrixLaplaceNoise(Eigen::MatrixXd& m, double scale, RandomSource& rng);

// t += N with N symmetric: one Laplace(0, scale) draw per unique entry (i <= j <= l,
// lexicographic, as addSymmetricTensorNoise), added to every permutation of its indices.
Status addSymmetricTensorLaplaceNoise(Tensor3& t, double scale, RandomSource& rng);

// t += N with N symmetric, the Laplace mechanism on the orbit sums of a symmetric tensor (the
// explicit M3 release, docs/PRIVACY.md §18): one Laplace(0, scale / m) draw per unique entry
// (i <= j <= l, lexicographic), m = 1, 3, 6 the number of distinct permutations of its indices,
// added to every one of them. Equivalently Laplace(0, scale) on the orbit sum m t_(ijl), whose l1
// distance between two symmetric tensors is the l1 distance of the full arrays.
Status addSymmetricTensorOrbitLaplaceNoise(Tensor3& t, double scale, RandomSource& rng);

// N(W, W, W) for the d x d x d noise N of addSymmetricTensorOrbitLaplaceNoise at `scale` (same draws,
// same order), W d x k: what the Laplace release of M3 adds to T̂ = M̂3(W, W, W), since
// (M̂3 + N)(W, W, W) = T̂ + N(W, W, W). Forms N (d^3 doubles; the caller bounds d). W finite, k >= 1.
Result<Tensor3> sampleLaplaceM3NoiseThrough(const Eigen::MatrixXd& W, double scale, RandomSource& rng);

// The k x k x k tensor E(W, W, W) for E = sqrt(6) sym(G), G i.i.d. N(0, sigma^2) on d x d x d
// (see above), sampled as sqrt(6) sym(Z x1 L x2 L x3 L) with L L^T = W^T W (Cholesky; a symmetric
// eigen square root when W^T W is only semidefinite). W is d x k, finite, with k >= 1.
// Draws k^3 normals in storage order of Z.
Result<Tensor3> sampleProjectedM3Noise(const Eigen::MatrixXd& W, double sigma, RandomSource& rng);

}  // namespace dplda
