#pragma once
// Seed 004, Algorithm 2 for LDA (SPEC §14): the online robust tensor power method. Each power
// step reads the next n documents and uses T̂_B(I, u, u), the whitened third-moment estimator of
// SPEC §3 on those n documents alone (so E[T̂_B] = T), for all L starts at once. The k x k x k
// tensor is never formed. Derivation, memory and the printed algorithm's typo:
// docs/TENSOR_METHODS.md §1.
//
// It reads documents, not a tensor, so it is not a TensorDecomposer (makeDecomposer("online")
// explains this); a caller with the corpus and W calls onlineRobustPowerMethod.
#include <Eigen/Dense>
#include <cstdint>
#include <string>

#include "core/common/feedback.h"
#include "core/common/random.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/tensor/decomposer.h"

namespace dplda {

// The order in which the stream visits the corpus: a fixed permutation of the N documents,
// repeated every pass. Shuffled, it permutes chunks of `chunk` consecutive documents (chunk c goes
// to place (a c + b) mod M, a coprime to the chunk count M) and keeps each chunk in corpus order:
// every batch still mixes documents from all over the corpus, while reading whole chunks keeps
// the sparse rows' memory access sequential (one document at a time from a random place costs
// a cache miss per row: 3x slower on the figure-2 corpus). O(1) memory, nothing grows with N.
class DocumentOrder {
 public:
  static DocumentOrder corpusOrder(int docCount);
  static DocumentOrder shuffled(int docCount, std::uint64_t seed, int chunk = 32);
  int docCount() const { return static_cast<int>(m_N); }
  // The document at a position of the stream (positions count on across passes).
  int doc(std::uint64_t position) const;
  std::uint64_t a() const { return m_a; }
  std::uint64_t b() const { return m_b; }

 private:
  std::uint64_t m_N = 0, m_chunk = 1, m_M = 0, m_a = 1, m_b = 0;
  std::uint64_t m_shortPlace = 0, m_tail = 0;  // where the last, shorter chunk sits, and its size
};

// Positions start .. start + count − 1 of the stream: any count <= N consecutive positions name
// distinct documents, which the estimator's cross-document terms need.
struct DocumentRange {
  DocumentOrder order;
  std::uint64_t start = 0;
  int count = 0;
  int doc(int j) const { return order.doc(start + static_cast<std::uint64_t>(j)); }
};
// The whole corpus in corpus order.
DocumentRange wholeCorpus(const Corpus& corpus);

// T̂_B(I, u, u) for a batch B: SPEC §3's estimator with N := |B|, mapped through W, contracted
// with each column u of U. Cost O(nnz_B (k + 2L) + |B| k L + d k L); memory O(d L) per lane plus
// block buffers (docs/TENSOR_METHODS.md §1.2). The work is split into 4 fixed lanes summed in
// order, so the result is bit-identical whatever the thread count. The corpus is held by
// reference and must outlive the contractor; W is copied.
class WhitenedBatchContractor {
 public:
  WhitenedBatchContractor(const Corpus& corpus, double alpha0, const Eigen::MatrixXd& W);
  int dim() const { return static_cast<int>(m_W.cols()); }
  // k x L. The batch needs at least 3 documents, all distinct (a DocumentRange guarantees it).
  Eigen::MatrixXd contract(const DocumentRange& batch, const Eigen::MatrixXd& U) const;

 private:
  const Corpus& m_corpus;
  Eigen::MatrixXd m_W;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> m_Wr;  // rows gathered per word
  double m_alpha0;
};

// T̂ of the whole corpus (= whitenedThirdMoment(corpus, alpha0, W) up to rounding) seen through
// its contractions, never formed: the batch robust method can run on it matrix-free
// (RobustPowerMethod::extractLeading), and its diagonal T̂_iii = contractTwice(I)(i, i) gives the
// pipeline's sign convention without a k³ tensor.
class CorpusTensorOperator final : public SymmetricTensorOperator {
 public:
  CorpusTensorOperator(const Corpus& corpus, double alpha0, const Eigen::MatrixXd& W)
      : m_contractor(corpus, alpha0, W), m_all(wholeCorpus(corpus)) {}
  int dim() const override { return m_contractor.dim(); }
  Eigen::MatrixXd contractTwice(const Eigen::MatrixXd& U) const override { return m_contractor.contract(m_all, U); }

 private:
  WhitenedBatchContractor m_contractor;
  DocumentRange m_all;
};

struct OnlinePowerOptions {
  int components = 0;     // r: components to extract, 0 = k (all)
  int restarts = 0;       // L; 0 = the batch method's default max(10, 2⌈r ln r⌉)
  int iterations = 30;    // R power steps per component (fixed, as printed: no early stop)
  // n documents per step; 0 = ⌈N / (R − ⌊R/2⌋)⌉ (at least 3): the averaged tail of each component
  // reads the corpus once, which gives the batch method's accuracy (2 passes per component;
  // docs/TENSOR_METHODS.md §1.3). ⌈N / (R r)⌉ reads the corpus once in all, as printed.
  int batchSize = 0;
  bool shuffle = true;    // visit the corpus in a seeded permuted order (DocumentOrder; false: corpus order)
  std::uint64_t orderSeed = 1;
  // Only for the report: the chosen start "settled" when the means of the two halves of its
  // averaged tail point the same way to within this distance. A noisy step never moves less
  // than 1e-6; halves that follow different components are ~1.4 apart, sampling noise is ≪ 0.25.
  double tolerance = 0.25;
};
Status validateOnlinePowerOptions(const OnlinePowerOptions& options, int docCount, int k);
// The n that options.batchSize = 0 resolves to (or the explicit value).
int resolvedBatchSize(const OnlinePowerOptions& options, int docCount);

struct OnlineDecomposition {
  TensorEigenpairs pairs;      // λ > 0, descending; iterations = R r; converged per options.tolerance
  long long samplesUsed = 0;   // n R r documents read
  double passes = 0.0;         // samplesUsed / N
  int batchSize = 0, restarts = 0, iterations = 0, components = 0;
  double lastStepChange = 0.0;  // max over components of the distance between the tail halves' directions
  std::uint64_t orderA = 1, orderB = 0;  // the chunk permutation used (DocumentOrder)
};

// Algorithm 2 of seed 004 on the documents of `corpus` whitened by W (d x k). Starts come from
// `init` (L per component, drawn as RobustPowerMethod draws them: same seed, same starts), the
// document order from options.orderSeed. With n = N every step sees the whole corpus, so the
// result equals the batch robust method on T̂ with the same starts up to rounding (once both
// have converged). Invalid options or inputs give InvalidArgument naming the value.
Result<OnlineDecomposition> onlineRobustPowerMethod(const Corpus& corpus, double alpha0, const Eigen::MatrixXd& W,
                                                    const OnlinePowerOptions& options, RandomSource& init,
                                                    Feedback* feedback = nullptr);

}  // namespace dplda
