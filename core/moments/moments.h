#pragma once
// The unbiased moment estimators of SPEC §3: M̂1, M̂2 (dense or as a matrix-free operator),
// the explicit M̂3 for small vocabularies, and the whitened tensor T̂ = M̂3(W,W,W) computed
// straight from the documents without ever forming M̂3.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>
#include <cstddef>

#include "core/common/feedback.h"
#include "core/common/huge_pages.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/tensor/tensor3.h"

namespace dplda {

// a, b, c of SPEC §1 for a given alpha0.
struct MomentConstants {
  double a, b, c;
  static MomentConstants fromAlpha0(double alpha0);
};

// Public bounds on one document's raw terms inside the papers' configurations (docs/PRIVACY.md
// §12): ‖M̃1ⁿ‖₂ <= m1, ‖M̃2ⁿ‖_F <= m2, ‖M̃3ⁿ‖_F <= m3. Off by default: SPEC §3's estimators, bit
// for bit. Each term is a probability vector / matrix / tensor (norm <= 1), so a bound >= 1 clips
// nothing of that term.
struct MomentClip {
  bool enabled = false;
  double m1 = 1.0, m2 = 1.0, m3 = 1.0;
  bool operator==(const MomentClip&) const = default;
};

// Per-document factors in (0, 1] that scale M̃1ⁿ, M̃2ⁿ, M̃3ⁿ down to their bounds
// (clippedMomentScales in clipped_moments.h). The estimators below take them optionally.
struct DocumentScales {
  Eigen::VectorXd m1, m2, m3;
};

// Checks what every estimator needs: finite alpha0 > 0 and at least 3 documents
// (M̂3 divides by N(N-1)(N-2)).
Status validateMomentInputs(const Corpus& corpus, double alpha0);

Eigen::VectorXd firstMoment(const Corpus& corpus);

// Dense d x d M̂2. Cost O(N d^2) through blocked dense rank updates (fast for d up to a few
// thousand); memory d^2 doubles.
Result<Eigen::MatrixXd> secondMomentDense(const Corpus& corpus, double alpha0, Feedback* feedback = nullptr);

// The 4-byte copy of the counts (SecondMomentOperator::packCounts), on huge pages: at NYTimes size
// it is 266 MB, written once per solve.
using PackedCounts = HugePageArray<std::uint32_t>;

// M̂2 as an operator x -> M̂2 x in O(nnz + d) per product (SPEC §4, large d):
// M̂2 = Cᵀ diag(w) C − diag(g) − a/(N(N−1)) S1 S1ᵀ with
// w_n = 1/(N l(l−1)) + a/(N(N−1) l²), g = Σ_n c_n / (N l(l−1)).
// The interface matches Spectra's matrix operation concept (rows, cols, perform_op).
class SecondMomentOperator {
 public:
  using Scalar = double;
  // With `scales`, the clipped M̂2ᶜ of docs/PRIVACY.md §11.1: each document's M̃2ⁿ and M̃1ⁿ scaled.
  SecondMomentOperator(const Corpus& corpus, double alpha0, const DocumentScales* scales = nullptr);
  Eigen::Index rows() const { return m_corpus->vocabSize(); }
  Eigen::Index cols() const { return m_corpus->vocabSize(); }
  // y = M̂2 x in one pass over the counts, split over fixed lanes of documents: the result does not
  // depend on the thread count (Lanczos' product).
  void perform_op(const double* x, double* y) const;
  // M̂2 X for a block of vectors, one pass over the counts per 2 columns (each document: t = w_n
  // c_nᵀX, then X's rows scattered back by c_n), in the same fixed lanes: the result does not depend
  // on the thread count. The block eigensolver's product (core/whitening/block_eigensolver.h);
  // `packed` as for perform_op; `rows`, when given, holds the passes' per-lane rows and is kept by
  // the caller across the products of a solve (huge_pages.h), grown when too small.
  Eigen::MatrixXd apply(const Eigen::MatrixXd& X) const;
  Eigen::MatrixXd apply(const Eigen::MatrixXd& X, const PackedCounts& packed,
                        HugePageArray<double>* rows = nullptr) const;
  Result<Eigen::MatrixXd> toDense(Feedback* feedback = nullptr) const;  // small d
  // A 4-byte copy of the counts for many products (the eigensolvers): (word << 16) | count per
  // non-zero instead of 12 bytes: the same products bit for bit, a single-vector pass ~1.6x faster
  // at NYTimes scale, for 4 bytes per non-zero while the caller keeps it. Empty unless exact
  // (d <= 65 536, integer counts below 65 536) and worth it (at least minNonZeros non-zeros). A
  // streamed corpus (Corpus::mapped) is packed from one read of its mapping when the copy takes at
  // most kPackedStreamedBytes (NYTimes-sized: 266 MB, where each pass would otherwise fetch the
  // mapping's 8 bytes per count again); above, its products read the mapping in blocks.
  static constexpr Eigen::Index kPackedCountsMinNonZeros = 1 << 20;
  static constexpr double kPackedStreamedBytes = 1024.0 * 1024.0 * 1024.0;
  PackedCounts packCounts(Eigen::Index minNonZeros = kPackedCountsMinNonZeros) const;
  void perform_op(const double* x, double* y, const PackedCounts& packed) const;

 private:
  friend class SecondMomentColumns;  // M̂2 column by column (second_moment_columns.h)
  const Corpus* m_corpus;         // read through withRows / forEachRowBlock (resident or streamed)
  Eigen::VectorXd m_docWeights;   // w_n
  Eigen::VectorXd m_diagonal;     // g
  Eigen::VectorXd m_sum1;         // S1
  double m_rankOneWeight;         // a/(N(N−1))
};

// Bytes an explicit d x d x d M̂3 would take.
std::size_t explicitThirdMomentBytes(int vocabSize);
inline constexpr std::size_t kDefaultExplicitM3Limit = std::size_t{512} << 20;  // 512 MiB

// The explicit M̂3, straight from the SPEC §3 formula (the independent reference for the
// whitened computation). Refused with ResourceLimit, naming the memory, above maxBytes.
Result<Tensor3> thirdMomentExplicit(const Corpus& corpus, double alpha0,
                                    std::size_t maxBytes = kDefaultExplicitM3Limit,
                                    Feedback* feedback = nullptr);

// The same M̂3 computed fast, the way whitenedThirdMoment computes T̂ with W = I: M̂3 = sym(R),
//   R = Σ_n h_n c_n^⊗3 + Σ_i e_i⊗e_i⊗v_i + P⊗s + γ3 s^⊗3
// (the terms as in moments.cpp). Only the first term costs more than O(nnz + d³); it is summed
// over the sorted triples of each document's distinct words (m³/6 products instead of the
// reference's 3m³ scattered updates, about 15x faster). Working memory is 5 tensors (four lanes
// summed in a fixed order, so the result does not depend on the thread count); maxBytes limits
// the result as in thirdMomentExplicit.
Result<Tensor3> thirdMomentDense(const Corpus& corpus, double alpha0,
                                 std::size_t maxBytes = kDefaultExplicitM3Limit, Feedback* feedback = nullptr);

// T̂ = M̂3(W, W, W) from the documents in O(nnz k + N k^3 + d k^3) time and O(k^3 + batch)
// memory; W is d x k. With `scales`, the clipped M̂3ᶜ(W, W, W) of docs/PRIVACY.md §12: every
// per-document term of SPEC §3 scaled by its document's factor (scales of 1 change no bit).
Result<Tensor3> whitenedThirdMoment(const Corpus& corpus, double alpha0, const Eigen::MatrixXd& W,
                                    Feedback* feedback = nullptr, const DocumentScales* scales = nullptr);

}  // namespace dplda
