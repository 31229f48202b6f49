#include "core/tensor/online_power_method.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "core/common/parallel_guard.h"
#include "core/moments/moments.h"

namespace dplda {

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Fixed lanes, summed in order: the result does not depend on the number of threads.
constexpr int kLanes = 4;
constexpr int kBlock = 256;  // documents per block: bounds the block buffers whatever n is

// One lane's partial sums over its blocks of the batch (docs/TENSOR_METHODS.md §1.1). Only X1
// depends on the starts U; the word-level sums do not, so per non-zero the work is O(k), not O(L).
struct LaneSums {
  Eigen::MatrixXd X1;      // Σ h y (yᵀu)²                             k x L
  RowMatrix V;             // v_i = Σ q c_n(i) y_n                      d x k
  Eigen::VectorXd g, wp;   // Σ e c_n(i), Σ c_n(i)/(l(l−1))            d
  Eigen::VectorXd s;       // Σ y/l                                    k
  Eigen::MatrixXd A1, A2;  // Σ y yᵀ/l², Σ y yᵀ/(l(l−1))               k x k
  void reset(Eigen::Index d, Eigen::Index k, Eigen::Index L) {
    X1 = Eigen::MatrixXd::Zero(k, L);
    V = RowMatrix::Zero(d, k);
    g = wp = Eigen::VectorXd::Zero(d);
    s = Eigen::VectorXd::Zero(k);
    A1 = A2 = Eigen::MatrixXd::Zero(k, k);
  }
  void add(const LaneSums& o) {
    X1 += o.X1;
    V += o.V;
    g += o.g;
    wp += o.wp;
    s += o.s;
    A1 += o.A1;
    A2 += o.A2;
  }
};

std::string num(double x) {
  std::ostringstream o;
  o << x;
  return o.str();
}

std::uint64_t gcd(std::uint64_t x, std::uint64_t y) {
  while (y) {
    const std::uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x;
}

// x⁻¹ mod m for gcd(x, m) = 1 (extended Euclid).
std::uint64_t inverseMod(std::uint64_t x, std::uint64_t m) {
  long long r0 = static_cast<long long>(m), r1 = static_cast<long long>(x % m), t0 = 0, t1 = 1;
  while (r1 != 0) {
    const long long q = r0 / r1;
    std::tie(r0, r1) = std::make_pair(r1, r0 - q * r1);
    std::tie(t0, t1) = std::make_pair(t1, t0 - q * t1);
  }
  return static_cast<std::uint64_t>((t0 % static_cast<long long>(m) + static_cast<long long>(m)) %
                                    static_cast<long long>(m));
}

}  // namespace

DocumentOrder DocumentOrder::corpusOrder(int docCount) {
  DocumentOrder o;
  o.m_N = o.m_M = o.m_shortPlace = static_cast<std::uint64_t>(docCount);  // no short chunk
  return o;
}

DocumentOrder DocumentOrder::shuffled(int docCount, std::uint64_t seed, int chunk) {
  DocumentOrder o;
  o.m_N = static_cast<std::uint64_t>(docCount);
  o.m_chunk = static_cast<std::uint64_t>(std::max(1, chunk));
  o.m_M = (o.m_N + o.m_chunk - 1) / o.m_chunk;
  o.m_tail = o.m_N - (o.m_M - 1) * o.m_chunk;
  if (o.m_M > 1) {
    SeededRandom rng(seed);
    do {
      o.m_a = 1 + uniformIndex(rng, o.m_M - 1);
    } while (gcd(o.m_a, o.m_M) != 1);
    o.m_b = uniformIndex(rng, o.m_M);
  }
  // The place p of the last chunk (M − 1): a p + b ≡ M − 1 (mod M).
  o.m_shortPlace = o.m_M > 1 ? ((o.m_M - 1 + o.m_M - o.m_b) % o.m_M) * inverseMod(o.m_a, o.m_M) % o.m_M : 0;
  return o;
}

int DocumentOrder::doc(std::uint64_t position) const {
  std::uint64_t p = position % m_N, place, offset;
  const std::uint64_t before = m_shortPlace * m_chunk;  // positions of the full chunks placed before it
  if (p < before) {
    place = p / m_chunk;
    offset = p % m_chunk;
  } else if (p - before < m_tail) {
    place = m_shortPlace;
    offset = p - before;
  } else {
    p -= before + m_tail;
    place = m_shortPlace + 1 + p / m_chunk;
    offset = p % m_chunk;
  }
  const std::uint64_t chunkIndex = (m_a * place + m_b) % m_M;
  return static_cast<int>(chunkIndex * m_chunk + offset);
}

DocumentRange wholeCorpus(const Corpus& corpus) {
  DocumentRange r;
  r.order = DocumentOrder::corpusOrder(corpus.docCount());
  r.count = corpus.docCount();
  return r;
}

WhitenedBatchContractor::WhitenedBatchContractor(const Corpus& corpus, double alpha0, const Eigen::MatrixXd& W)
    : m_corpus(corpus), m_W(W), m_Wr(W), m_alpha0(alpha0) {}

Eigen::MatrixXd WhitenedBatchContractor::contract(const DocumentRange& batch, const Eigen::MatrixXd& U) const {
  const SparseCounts& C = m_corpus.counts;
  const Eigen::Index d = m_W.rows(), k = m_W.cols(), L = U.cols();
  const int n = batch.count;
  const double Nb = n;
  const MomentConstants mc = MomentConstants::fromAlpha0(m_alpha0);
  const double beta2 = mc.b / (Nb * (Nb - 1.0));
  const double gamma3 = mc.c / (Nb * (Nb - 1.0) * (Nb - 2.0));
  // a_i = w_iᵀu for every word and start, and its square: once per step, not per non-zero.
  const RowMatrix A = m_W * U;
  const RowMatrix AA = A.array().square();
  const int blocks = (n + kBlock - 1) / kBlock;
  std::vector<LaneSums> lanes(kLanes);
  const double work = static_cast<double>(n) * static_cast<double>(k + L) * 20.0;
  ParallelGuard guard;
#pragma omp parallel for schedule(static, 1) if (work > 1e6)
  for (int lane = 0; lane < kLanes; ++lane) guard.run([&] {
    LaneSums& S = lanes[lane];
    S.reset(d, k, L);
    // Row-major blocks: the per-word updates below are contiguous axpys of length k (raw loops:
    // at k = 5 Eigen's per-call overhead on such short rows cost more than the arithmetic).
    RowMatrix Y(kBlock, k);
    Eigen::MatrixXd G(kBlock, L);
    Eigen::VectorXd invL(kBlock), invL2(kBlock), pairInv(kBlock), hw(kBlock);
    const double* Wrow = m_Wr.data();
    double* Vrow = S.V.data();
    for (int b = lane; b < blocks; b += kLanes) {
      const int first = b * kBlock, rows = std::min(kBlock, n - first);
      Y.topRows(rows).setZero();
      for (int r = 0; r < rows; ++r) {
        const int doc = batch.doc(first + r);
        // An empty document (Corpus::emptyDocuments) counts in the batch's N and adds nothing.
        const double in = contributes(m_corpus.lengths[doc]) ? 1.0 : 0.0;
        const double l = in ? m_corpus.lengths[doc] : kMinDocumentLength;
        const double e = in / (Nb * l * (l - 1.0) * (l - 2.0));
        const double f = in / (l * l * (l - 1.0));
        const double q = -3.0 * e + 3.0 * beta2 * f;
        const double pi = in / (l * (l - 1.0));
        hw[r] = e - 3.0 * beta2 * f + 2.0 * gamma3 * in / (l * l * l);
        invL[r] = in / l;
        invL2[r] = in / (l * l);
        pairInv[r] = pi;
        double* y = Y.row(r).data();
        for (SparseCounts::InnerIterator it(C, doc); it; ++it) {
          const double c = it.value();
          const double* w = Wrow + it.col() * k;
          for (Eigen::Index j = 0; j < k; ++j) y[j] += c * w[j];
        }
        for (SparseCounts::InnerIterator it(C, doc); it; ++it) {  // needs the whole y_n
          const Eigen::Index i = it.col();
          const double c = it.value(), qc = q * c;
          double* v = Vrow + i * k;
          for (Eigen::Index j = 0; j < k; ++j) v[j] += qc * y[j];
          S.g[i] += e * c;
          S.wp[i] += c * pi;
        }
      }
      const auto Yb = Y.topRows(rows);
      G.topRows(rows).noalias() = Yb * U;  // yᵀu
      S.X1.noalias() += Yb.transpose() * (hw.head(rows).asDiagonal() * G.topRows(rows).array().square().matrix());
      S.s.noalias() += Yb.transpose() * invL.head(rows);
      S.A1.noalias() += Yb.transpose() * invL2.head(rows).asDiagonal() * Yb;
      S.A2.noalias() += Yb.transpose() * pairInv.head(rows).asDiagonal() * Yb;
    }
  });
  guard.rethrow();
  LaneSums& T = lanes[0];
  for (int lane = 1; lane < kLanes; ++lane) T.add(lanes[lane]);

  // T̂_B = sym(R) with R = Σ h y^⊗3 + Σ_i w_i⊗w_i⊗v_i + P⊗s + γ3 s^⊗3 (moments.cpp); contracted:
  //   Σ h y (yᵀu)² + ⅓[2 Wᵀ(a∘z) + 6 Wᵀ(g∘a²) + Vᵀ(a∘a)] + ⅓[2 (sᵀu) P u + (uᵀPu) s] + γ3 s (sᵀu)²
  // with a_i = w_iᵀu, z_i = v_iᵀu.
  const Eigen::MatrixXd P =
      3.0 * beta2 * (T.A2 - m_W.transpose() * T.wp.asDiagonal() * m_W) - 3.0 * gamma3 * T.A1;
  // z_i = v_iᵀu and Σ_n q y c_nᵀ(a∘a) = Vᵀ(a∘a): the word sums meet the starts only here.
  const RowMatrix Z = T.V * U;
  Eigen::MatrixXd out = T.X1;
  out.noalias() += (T.V.transpose() * AA) / 3.0;
  out.noalias() += (2.0 / 3.0) * (m_W.transpose() * A.cwiseProduct(Z));
  out.noalias() += 2.0 * (m_W.transpose() * (T.g.asDiagonal() * AA));
  const Eigen::MatrixXd PU = P * U;
  const Eigen::RowVectorXd sU = T.s.transpose() * U;
  const Eigen::RowVectorXd uPu = U.cwiseProduct(PU).colwise().sum();
  out += (2.0 / 3.0) * (PU.array().rowwise() * sU.array()).matrix();
  out.noalias() += T.s * (uPu / 3.0 + gamma3 * sU.cwiseProduct(sU));
  return out;
}

Status validateOnlinePowerOptions(const OnlinePowerOptions& o, int docCount, int k) {
  if (o.components < 0 || o.components > k)
    return invalidArgument("online power method: components must be in 0..k = " + std::to_string(k) +
                           " (0 = all), got " + std::to_string(o.components));
  if (o.restarts < 0)
    return invalidArgument("online power method: restarts L must be >= 0 (0 = default), got " +
                           std::to_string(o.restarts));
  if (o.iterations < 1 || o.iterations > 100000)
    return invalidArgument("online power method: iterations R must be in 1..100000, got " + std::to_string(o.iterations));
  if (docCount < 3)
    return badInput("online power method: the corpus needs at least 3 documents, got " + std::to_string(docCount));
  if (o.batchSize != 0 && (o.batchSize < 3 || o.batchSize > docCount))
    return invalidArgument("online power method: the batch size n must be in 3..N = " + std::to_string(docCount) +
                           " (0 = one pass), got " + std::to_string(o.batchSize));
  if (!(o.tolerance > 0.0) || !std::isfinite(o.tolerance))
    return invalidArgument("online power method: tolerance must be a finite number > 0, got " + num(o.tolerance));
  return Status::ok();
}

int resolvedBatchSize(const OnlinePowerOptions& o, int docCount) {
  if (o.batchSize > 0) return o.batchSize;
  const long long tailSteps = o.iterations - o.iterations / 2;  // the averaged steps (≥ 1)
  const long long n = (docCount + tailSteps - 1) / tailSteps;
  return static_cast<int>(std::clamp<long long>(n, 3, docCount));
}

Result<OnlineDecomposition> onlineRobustPowerMethod(const Corpus& corpus, double alpha0, const Eigen::MatrixXd& W,
                                                    const OnlinePowerOptions& o, RandomSource& init,
                                                    Feedback* feedback) {
  DPLDA_RETURN_IF_ERROR(validateMomentInputs(corpus, alpha0));
  if (W.rows() != corpus.vocabSize() || W.cols() < 1)
    return invalidArgument("the whitening matrix must be " + std::to_string(corpus.vocabSize()) + " x k, got " +
                           std::to_string(W.rows()) + " x " + std::to_string(W.cols()));
  if (!W.allFinite()) return numericalFailure("the whitening matrix contains NaN or infinite entries");
  const int k = static_cast<int>(W.cols());
  const int N = corpus.docCount();
  DPLDA_RETURN_IF_ERROR(validateOnlinePowerOptions(o, N, k));
  const int r = o.components > 0 ? o.components : k;
  const int L = o.restarts > 0 ? o.restarts
                               : std::max(10, 2 * static_cast<int>(std::ceil(r * std::log(std::max(r, 1)))));
  const int R = o.iterations;
  const int n = resolvedBatchSize(o, N);

  // The stream: one fixed seeded permutation, repeated; batches are n consecutive positions.
  DocumentRange batch;
  batch.order = o.shuffle ? DocumentOrder::shuffled(N, o.orderSeed) : DocumentOrder::corpusOrder(N);
  batch.count = n;
  const WhitenedBatchContractor contractor(corpus, alpha0, W);

  OnlineDecomposition out;
  Eigen::MatrixXd V(k, r);
  Eigen::VectorXd lambda(r);
  int unconverged = 0;
  for (int comp = 0; comp < r; ++comp) {
    Eigen::MatrixXd U(k, L);
    for (int s = 0; s < L; ++s) U.col(s) = randomUnitVector(k, init);
    // Polyak–Ruppert averaging: the second half of the steps (the tail) is averaged, in two
    // halves. Each step's T̂_B(I, u, u) is noisy as a batch of n documents; once u has settled the
    // tail's mean is T̂ of all the tail's documents at u, with nR/2 documents' noise instead of n's.
    // The final component and its λ come from the mean (docs/TENSOR_METHODS.md §1.3).
    const int tailStart = R / 2, tailMiddle = tailStart + (R - tailStart) / 2;
    Eigen::MatrixXd early = Eigen::MatrixXd::Zero(k, L), late = Eigen::MatrixXd::Zero(k, L);
    Eigen::RowVectorXd lamSum = Eigen::RowVectorXd::Zero(L);
    for (int t = 0; t < R; ++t) {
      if (isCanceled(feedback)) return cancelled();
      Eigen::MatrixXd G = contractor.contract(batch, U);  // data association: T̂_B(I, u, u)
      batch.start += static_cast<std::uint64_t>(n);
      if (comp == 0 && t == 0 && !G.allFinite())
        return numericalFailure("the whitened batch tensor has NaN or infinite entries");
      // Deflation (step 7): ξ_j = v̂_jᵀu_t (the seed prints v̂_jᵀũ_t, which is not scale-free).
      for (int j = 0; j < comp; ++j) {
        const Eigen::RowVectorXd xi = V.col(j).transpose() * U;
        G.noalias() -= V.col(j) * (lambda[j] * xi.array().square()).matrix();
      }
      if (t >= tailStart) {
        lamSum += U.cwiseProduct(G).colwise().sum();  // (T̂_B − D)(u_t, u_t, u_t)
        (t < tailMiddle ? early : late) += G;
        G = early + late;  // the next step starts from the tail's mean, not from one batch
      }
      normaliseColumns(G, U);
      U = std::move(G);
      reportProgress(feedback, (comp * R + t + 1.0) / (static_cast<double>(r) * R));
    }
    const Eigen::RowVectorXd lamTilde = lamSum / static_cast<double>(R - tailStart);
    Eigen::Index best = 0;
    lamTilde.maxCoeff(&best);
    double lam = lamTilde[best];
    Eigen::VectorXd v = U.col(best);  // the last step normalised the tail's mean
    // Settled: the two halves of the tail point the same way. With R = 2 the tail is one step and
    // has no second half: not settled (R = 1 is a single step, settled by definition).
    const double change = tailMiddle > tailStart && late.col(best).norm() > 0.0 && early.col(best).norm() > 0.0
                              ? (early.col(best).normalized() - late.col(best).normalized()).norm()
                              : (R == 1 ? 0.0 : 1.0);
    out.lastStepChange = std::max(out.lastStepChange, change);
    if (!(change < o.tolerance)) ++unconverged;
    if (lam < 0.0) {  // flip to make λ positive; the deflation term λ v⊗v⊗v is unchanged
      lam = -lam;
      v = -v;
    }
    lambda[comp] = lam;
    V.col(comp) = v;
  }
  out.pairs = sortedPositive(lambda, V);
  out.pairs.iterations = R * r;
  out.pairs.unconverged = unconverged;
  std::ostringstream name;
  name << "online robust tensor power method (L = " << L << ", R = " << R << ", n = " << n << ")";
  out.pairs.method = name.str();
  out.samplesUsed = static_cast<long long>(n) * R * r;
  out.passes = static_cast<double>(out.samplesUsed) / N;
  out.batchSize = n;
  out.restarts = L;
  out.iterations = R;
  out.components = r;
  out.orderA = batch.order.a();
  out.orderB = batch.order.b();
  return out;
}

}  // namespace dplda
