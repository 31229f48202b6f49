// Eight documents' E-steps in the lanes of one packet (see estep_lanes.h).
#include "core/vi/estep_lanes.h"

#include <algorithm>
#include <array>
#include <type_traits>

#include "core/vi/packet_math.h"

namespace dplda::vi_detail {

namespace {

constexpr int kLanes = 8;

// A lane-wise state of up to 8 documents with K topics. Slot j of lane l holds the j-th distinct
// word of the lane's document: its count and its K values of B, gathered when the document is
// loaded. Slots past a document's words hold count 0 (so their stale B values add exact zeros);
// lanes without a document ("idle") hold counts 0 and γ = 1, so every value stays finite.
template <int K>
class Lanes {
 public:
  Lanes(const Eigen::MatrixXd& B, const double* alpha, const DocumentJob* jobs, int count, double tolerance,
        int maxIterations, LaneScratch& s)
      : B_(B.data()), alpha_(alpha), jobs_(jobs), tol_(tolerance), maxIt_(maxIterations) {
    // Longest documents first, so that the lanes' documents have similar lengths (the order never
    // changes a document's result).
    int capacity = 0;
    for (int j = 0; j < count; ++j) capacity = std::max(capacity, jobs[j].nnz);
    std::vector<int> start(capacity + 2, 0);  // a counting sort by decreasing length
    for (int j = 0; j < count; ++j) ++start[capacity - jobs[j].nnz + 1];
    for (int c = 1; c <= capacity + 1; ++c) start[c] += start[c - 1];
    order_.resize(count);
    for (int j = 0; j < count; ++j) order_[start[capacity - jobs[j].nnz]++] = j;
    s.counts.assign(static_cast<std::size_t>(capacity) * kLanes, 0.0);
    s.phiNorm.assign(static_cast<std::size_t>(capacity) * kLanes, 0.0);
    s.weights.assign(static_cast<std::size_t>(capacity) * K * kLanes, 0.0);
    cnt_ = s.counts.data();
    phi_ = s.phiNorm.data();
    T_ = s.weights.data();
    for (int i = 0; i < K; ++i) gamma_[i].setOnes();
    for (int l = 0; l < kLanes; ++l) load(l);
  }

  void run() {
    thetaAndNorm();
    fresh_.fill(false);
    while (busy_ > 0) {
      // One update of every lane: acc_i = Σ_j B_i,w_j c_j/φ_j, γ_i ← α_i + exp(E[log θ_i]) acc_i.
      A8 acc[2][K];
      for (int t = 0; t < 2; ++t)
        for (int i = 0; i < K; ++i) acc[t][i].setZero();
      int j = 0;
      for (; j + 2 <= slots_; j += 2) {
        const A8 f0 = Eigen::Map<const A8>(cnt_ + j * kLanes) / Eigen::Map<const A8>(phi_ + j * kLanes);
        const A8 f1 = Eigen::Map<const A8>(cnt_ + (j + 1) * kLanes) / Eigen::Map<const A8>(phi_ + (j + 1) * kLanes);
        const double* t0 = T_ + static_cast<std::ptrdiff_t>(j) * K * kLanes;
        for (int i = 0; i < K; ++i) {
          acc[0][i] += Eigen::Map<const A8>(t0 + i * kLanes) * f0;
          acc[1][i] += Eigen::Map<const A8>(t0 + (K + i) * kLanes) * f1;
        }
      }
      if (j < slots_) {
        const A8 f0 = Eigen::Map<const A8>(cnt_ + j * kLanes) / Eigen::Map<const A8>(phi_ + j * kLanes);
        const double* t0 = T_ + static_cast<std::ptrdiff_t>(j) * K * kLanes;
        for (int i = 0; i < K; ++i) acc[0][i] += Eigen::Map<const A8>(t0 + i * kLanes) * f0;
      }
      A8 updating = A8::Zero(), change = A8::Zero();
      for (int l = 0; l < kLanes; ++l) updating[l] = job_[l] >= 0 && !fresh_[l] ? 1.0 : 0.0;
      for (int i = 0; i < K; ++i) {
        const A8 g = alpha_[i] + et_[i] * (acc[0][i] + acc[1][i]);
        change += (g - gamma_[i]).abs();
        gamma_[i] = (updating > 0.5).select(g, gamma_[i]);
      }
      thetaAndNorm();
      bool loaded = false;
      for (int l = 0; l < kLanes; ++l) {
        if (job_[l] < 0) continue;
        if (fresh_[l]) {  // loaded last round: its θ and φ-norms are now those of its start
          fresh_[l] = false;
          continue;
        }
        ++iterations_[l];
        if (change[l] / K < tol_ || iterations_[l] >= maxIt_) {
          finish(l);
          load(l);
          loaded = true;
        }
      }
      if (loaded) slots_ = *std::max_element(words_.begin(), words_.end());
    }
  }

 private:
  // exp(E[log θ]) from γ (estep()'s formula, lane-wise), then φ_j = Σ_i exp(E[log θ_i]) B_i,w_j + 1e-100.
  void thetaAndNorm() {
    A8 sum = gamma_[0];
    for (int i = 1; i < K; ++i) sum += gamma_[i];
    const A8 gSum = psiMinusLog8(sum), invShiftSum = (sum + 8.0).inverse();
    for (int i = 0; i < K; ++i) et_[i] = expPsiDifference8(gamma_[i], gSum, invShiftSum);
    for (int j = 0; j < slots_; ++j) {
      const double* t = T_ + static_cast<std::ptrdiff_t>(j) * K * kLanes;
      A8 p = et_[0] * Eigen::Map<const A8>(t);
      for (int i = 1; i < K; ++i) p += et_[i] * Eigen::Map<const A8>(t + i * kLanes);
      Eigen::Map<A8>(phi_ + j * kLanes) = p + 1e-100;
    }
  }

  // Lane l takes the next job (its words' counts and B values gathered into its slots, its γ), or
  // goes idle; counts its previous document left beyond the new one's words are zeroed.
  void load(int l) {
    const int old = words_[l];
    if (job_[l] >= 0) --busy_;
    job_[l] = -1;
    words_[l] = 0;
    if (next_ < static_cast<int>(order_.size())) {
      job_[l] = order_[next_++];
      const DocumentJob& jb = jobs_[job_[l]];
      for (int j = 0; j < jb.nnz; ++j) {
        cnt_[j * kLanes + l] = jb.counts[j];
        const double* b = B_ + static_cast<std::ptrdiff_t>(jb.words[j]) * K;
        double* t = T_ + static_cast<std::ptrdiff_t>(j) * K * kLanes + l;
        for (int i = 0; i < K; ++i) t[i * kLanes] = b[i];
      }
      for (int i = 0; i < K; ++i) gamma_[i][l] = jb.gamma[i];
      words_[l] = jb.nnz;
      iterations_[l] = 0;
      fresh_[l] = true;
      ++busy_;
    } else {
      for (int i = 0; i < K; ++i) gamma_[i][l] = 1.0;
    }
    for (int j = words_[l]; j < old; ++j) cnt_[j * kLanes + l] = 0.0;  // (its stale B values then add 0)
    slots_ = std::max(slots_, words_[l]);
  }

  void finish(int l) {
    const DocumentJob& jb = jobs_[job_[l]];
    for (int i = 0; i < K; ++i) {
      jb.gamma[i] = gamma_[i][l];
      jb.expElogTheta[i] = et_[i][l];
    }
    for (int j = 0; j < jb.nnz; ++j) jb.phiNorm[j] = phi_[j * kLanes + l];
    *jb.iterations = iterations_[l];
  }

  const double* B_;
  const double* alpha_;
  const DocumentJob* jobs_;
  double tol_;
  int maxIt_;
  std::vector<int> order_;
  double* cnt_ = nullptr;  // slots x 8
  double* phi_ = nullptr;  // slots x 8
  double* T_ = nullptr;    // slots x K x 8: T_[(j K + i) 8 + l] = B(i, w_j of lane l)
  A8 gamma_[K], et_[K];
  std::array<int, kLanes> job_{-1, -1, -1, -1, -1, -1, -1, -1};
  std::array<int, kLanes> words_{};  // distinct words of each lane's document (0 when idle)
  std::array<int, kLanes> iterations_{};
  std::array<bool, kLanes> fresh_{};
  int next_ = 0, busy_ = 0;
  int slots_ = 0;  // the most words of any lane's document: the slots every round goes over
};

}  // namespace

bool documentLanesPay(int k) { return k >= 1 && k <= kLanes; }

LaneScratch& threadLaneScratch() {
  thread_local LaneScratch scratch;
  return scratch;
}

void estepDocuments(const Eigen::MatrixXd& B, const double* alpha, const DocumentJob* jobs, int count,
                    double tolerance, int maxIterations, LaneScratch& scratch) {
  auto run = [&](auto k) { Lanes<decltype(k)::value>(B, alpha, jobs, count, tolerance, maxIterations, scratch).run(); };
  eigen_assert(B.rows() >= 1 && B.rows() <= kLanes);
  switch (B.rows()) {  // K topics as a constant: the packets of γ, θ and the sums stay in registers
    case 1: run(std::integral_constant<int, 1>()); break;
    case 2: run(std::integral_constant<int, 2>()); break;
    case 3: run(std::integral_constant<int, 3>()); break;
    case 4: run(std::integral_constant<int, 4>()); break;
    case 5: run(std::integral_constant<int, 5>()); break;
    case 6: run(std::integral_constant<int, 6>()); break;
    case 7: run(std::integral_constant<int, 7>()); break;
    case 8: run(std::integral_constant<int, 8>()); break;
    default: break;
  }
}

}  // namespace dplda::vi_detail
