#include "core/linalg/dense_eigen.h"

#include <dlfcn.h>

// Armadillo's warnings (e.g. "matrix is not symmetric" on rounding-level asymmetry) go to stderr;
// core reports through Status instead.
#define ARMA_WARN_LEVEL 1
#include <armadillo>
#include <mutex>

namespace dplda::linalg {

namespace {

// OpenBLAS (pthreads build on Debian) splits dsyevd's and dgemm's inner work over its own
// threads: the split can change the rounding with the thread count, and its threads would
// compete with our OpenMP lanes on a 2-core machine. One thread, set once, before the first call.
// Looked up at run time so that another BLAS (reference, BLIS) links and works unchanged.
// Pins once, and returns whether calls must not overlap (see blasLock).
bool blasNeedsLock() {
  static bool serialize = false;
  static std::once_flag once;
  std::call_once(once, [] {
    using SetThreads = void (*)(int);
    using GetParallel = int (*)();
    if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);
    // openblas_get_parallel() is 0 for the sequential build. Debian's (libopenblas0-serial
    // 0.3.21) is built without USE_LOCKING: it shares its work buffers between calling threads,
    // and two dsyevd at once from a sweep's workers corrupted each other's results (a 2-thread
    // sweep differed about 1 run in 30; 50 of 2 000 concurrent 200 x 200 decompositions were
    // wrong; tests/linalg/tst_dense_eigen). The pthreads and OpenMP builds lock their buffers.
    if (auto get = reinterpret_cast<GetParallel>(dlsym(RTLD_DEFAULT, "openblas_get_parallel")))
      serialize = get() == 0;
  });
  return serialize;
}

// Held for the whole of each BLAS/LAPACK call when the library needs it; otherwise empty.
std::unique_lock<std::mutex> blasLock() {
  static std::mutex mutex;
  return blasNeedsLock() ? std::unique_lock<std::mutex>(mutex) : std::unique_lock<std::mutex>();
}

// A read-only Armadillo view of an Eigen matrix (no copy; Armadillo's routines copy what they
// overwrite).
arma::mat view(const Eigen::MatrixXd& m) {
  return arma::mat(const_cast<double*>(m.data()), static_cast<arma::uword>(m.rows()),
                   static_cast<arma::uword>(m.cols()), false, true);
}

Status checkSquareFinite(const Eigen::MatrixXd& m) {
  if (m.rows() != m.cols()) return invalidArgument("the symmetric eigensolver needs a square matrix");
  if (!m.allFinite()) return numericalFailure("the matrix to decompose contains NaN or infinite entries");
  return Status::ok();
}

}  // namespace

Result<SymmetricEigen> symmetricEigen(const Eigen::MatrixXd& symmetric) {
  DPLDA_RETURN_IF_ERROR(checkSquareFinite(symmetric));
  SymmetricEigen out;
  if (symmetric.rows() == 0) return out;
  arma::vec values;
  arma::mat vectors;
  const auto lock = blasLock();
  // "dc": LAPACK dsyevd (divide and conquer). LAPACK reads one triangle: the input must be
  // symmetric (M̂2 and its mirrored noisy releases are, by construction).
  if (!arma::eig_sym(values, vectors, view(symmetric), "dc")) {
    return numericalFailure("the dense symmetric eigensolver (LAPACK dsyevd) did not converge");
  }
  out.values = Eigen::Map<const Eigen::VectorXd>(values.memptr(), static_cast<Eigen::Index>(values.n_elem));
  out.vectors = Eigen::Map<const Eigen::MatrixXd>(vectors.memptr(), static_cast<Eigen::Index>(vectors.n_rows),
                                                  static_cast<Eigen::Index>(vectors.n_cols));
  return out;
}

Result<Eigen::VectorXd> symmetricEigenvalues(const Eigen::MatrixXd& symmetric) {
  DPLDA_RETURN_IF_ERROR(checkSquareFinite(symmetric));
  if (symmetric.rows() == 0) return Eigen::VectorXd();
  arma::vec values;
  const auto lock = blasLock();
  if (!arma::eig_sym(values, view(symmetric))) {
    return numericalFailure("the dense symmetric eigensolver (LAPACK) did not converge");
  }
  return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(values.memptr(), static_cast<Eigen::Index>(values.n_elem)));
}

Eigen::MatrixXd multiply(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  Eigen::MatrixXd out(A.rows(), B.cols());
  if (A.rows() == 0 || B.cols() == 0) return out;
  if (A.cols() == 0) return Eigen::MatrixXd::Zero(A.rows(), B.cols());
  arma::mat C(out.data(), static_cast<arma::uword>(out.rows()), static_cast<arma::uword>(out.cols()), false, true);
  const auto lock = blasLock();
  C = view(A) * view(B);  // dgemm, written straight into `out`
  return out;
}

}  // namespace dplda::linalg
