#pragma once
// Dense linear algebra through Armadillo + LAPACK/OpenBLAS, behind Eigen types.
//
// Why Armadillo here: for the full symmetric eigendecomposition LAPACK's divide-and-conquer
// dsyevd (arma::eig_sym(…, "dc")) is much faster than Eigen's SelfAdjointEigenSolver (measured on
// this project's machine: 1.75 s against 8.3 s at d = 2000; docs/BENCHMARKS.md, issue 11), and
// OpenBLAS's GEMM beats Eigen's on large products. Eigen stays the vocabulary type of core's
// headers: these functions take and return Eigen matrices and copy at the boundary (O(d²),
// negligible next to the O(d³) work).
//
// Determinism: OpenBLAS is pinned to one thread inside these calls (see dense_eigen.cpp), so a
// result depends only on its input, never on the machine's core count or on OPENBLAS_NUM_THREADS;
// the program's parallelism comes from its own fixed OpenMP lanes around these calls.
// Thread safety: calls from several threads at once are safe (serialised when the BLAS needs it).
#include <Eigen/Dense>

#include "core/common/status.h"

namespace dplda::linalg {

struct SymmetricEigen {
  Eigen::VectorXd values;   // ascending (LAPACK's order)
  Eigen::MatrixXd vectors;  // column j belongs to values[j], orthonormal
};

// All eigenpairs of a symmetric matrix (only the lower triangle is read). NumericalFailure on
// NaN/∞ input or when LAPACK reports no convergence.
Result<SymmetricEigen> symmetricEigen(const Eigen::MatrixXd& symmetric);
// Eigenvalues only (dsyevd without vectors: about 3× cheaper): the Diagnostics spectrum.
Result<Eigen::VectorXd> symmetricEigenvalues(const Eigen::MatrixXd& symmetric);

// A * B through OpenBLAS dgemm (single-threaded, see above).
Eigen::MatrixXd multiply(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B);

}  // namespace dplda::linalg
