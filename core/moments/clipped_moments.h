#pragma once
// Moment estimators of documents clipped to public norm bounds (docs/PRIVACY.md §11): the
// inputs of the whitened release. Clipping scales one document's contribution down to its
// bound, never up, so the estimator is biased for the documents it touches; the fractions
// clipped are NON-PRIVATE diagnostics (computed from the data, part of no release), reported
// for teaching and labelled so.
#include <Eigen/Dense>
#include <string>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/moments/moments.h"
#include "core/tensor/tensor3.h"

namespace dplda {

// Public bounds on one document's contributions to M̂2: ‖M̃1ⁿ‖₂ ≤ m1 and ‖M̃2ⁿ‖_F ≤ m2. A
// probability vector or matrix has norm at most 1, so bounds of 1 clip nothing and give the
// SPEC §9 sensitivity Δ2 = (2 + 4a)/N back.
struct SecondMomentClip {
  double m1 = 1.0;
  double m2 = 1.0;
};
Status validateSecondMomentClip(const SecondMomentClip& clip);

// M̂2 of SPEC §3 with every M̃1ⁿ and M̃2ⁿ scaled down to its bound: the operator of moments.h with
// each document's m1 and m2 factors (as clippedMomentScales gives them; no M3 factor is computed).
// Matrix-free; toDense() forms the d x d matrix where d is small. The one implementation of M̂2ᶜ:
// configurations 1–4 with clipping build the same operator from clippedMomentScales.
struct ClippedSecondMoment {
  SecondMomentOperator m2;         // refers to the corpus's counts: the corpus must outlive it
  double fractionClippedM1 = 0.0;  // non-private diagnostics
  double fractionClippedM2 = 0.0;
};
Result<ClippedSecondMoment> clippedSecondMomentOperator(const Corpus& corpus, double alpha0,
                                                        const SecondMomentClip& clip);
// The same M̂2ᶜ as a dense d x d matrix (the operator's toDense; small d: the audit's probes).
Result<Eigen::MatrixXd> clippedSecondMomentDense(const Corpus& corpus, double alpha0, const SecondMomentClip& clip,
                                                 Feedback* feedback = nullptr);

// Its Frobenius sensitivity when one document is replaced (Lemma C2): (2 m2 + 4 a m1²)/N.
double clippedSecondMomentSensitivity(int docCount, double alpha0, const SecondMomentClip& clip);

// ---- Clipping inside the papers' configurations (docs/PRIVACY.md §12) ----
Status validateMomentClip(const MomentClip& clip);

struct ClippedMomentScales {
  DocumentScales scales;           // the factors the estimators of moments.h take
  double fractionClippedM1 = 0.0;  // non-private diagnostics: documents whose term was scaled
  double fractionClippedM2 = 0.0;
  double fractionClippedM3 = 0.0;
};
// The factor min(1, C/‖term‖) of each document's M̃1ⁿ, M̃2ⁿ, M̃3ⁿ, from the raw norms in O(nnz)
// (‖M̃3ⁿ‖_F without forming d³ entries).
Result<ClippedMomentScales> clippedMomentScales(const Corpus& corpus, const MomentClip& clip);

// Lemma C4's public bounds for the clipped M̂2ᶜ, M̂3ᶜ, with C′ = min(C, 1) (a term's norm is <= 1):
struct ClippedMomentBounds {
  double delta2 = 0.0;  // ‖M̂2ᶜ(D) − M̂2ᶜ(D′)‖_F <= (2C2′ + 4aC1′²)/N       (Lemma C2)
  double delta3 = 0.0;  // ‖M̂3ᶜ(D) − M̂3ᶜ(D′)‖_F <= (2C3′ + 12|b|C1′C2′ + 6cC1′³)/N
  double m2Norm = 0.0;  // ‖M̂2ᶜ‖_F <= C2′ + aC1′²  (bounds σ_1(M̂2ᶜ))
  double m3Norm = 0.0;  // ‖M̂3ᶜ‖_F <= C3′ + 3|b|C1′C2′ + cC1′³  (replaces m3)
};
ClippedMomentBounds clippedMomentBounds(int docCount, double alpha0, const MomentClip& clip);
// "C1 = 0.5, C2 = 0.3, C3 = 0.2" for ledgers and statements.
std::string momentClipText(const MomentClip& clip);

struct ClippedWhitenedTensor {
  Tensor3 tensor;                 // k x k x k, symmetric
  double fractionClippedY = 0.0;  // non-private diagnostics: documents whose term was scaled
  double fractionClippedP = 0.0;
  double fractionClippedT = 0.0;
};

// T̂ = M̂3(W, W, W) of SPEC §3 computed from the whitened per-document terms
//   y_n = Wᵀc_n/l_n,  p_n = M̃2ⁿ(W, W),  t_n = M̃3ⁿ(W, W, W),
// each scaled down to the Euclidean / Frobenius norm C, C², C³ (C = clip). W must be public
// (released) for the result to have the sensitivity below.
Result<ClippedWhitenedTensor> clippedWhitenedThirdMoment(const Corpus& corpus, double alpha0,
                                                         const Eigen::MatrixXd& W, double clip,
                                                         Feedback* feedback = nullptr);

// Its Frobenius sensitivity when one document is replaced, for a fixed W (Lemma C3):
// (2 + 12|b| + 6c)·C³/N.
double clippedWhitenedTensorSensitivity(int docCount, double alpha0, double clip);

// The lanes of clippedWhitenedThirdMoment and each one's scratch: its words are taken `words` at
// a time (a k² x words block), its clipped terms batched `documents` at a time; `doubles` in all,
// with the lane's four k x k x k tensors. One lane above kSharedTensorBytes of tensors (k > 160):
// the calling thread sums every document instead of four lanes holding 16 copies (issue 28).
struct ClippedWhitenedBuffers {
  int lanes = 0;
  Eigen::Index words = 0, documents = 0;
  double doubles = 0.0;
};
ClippedWhitenedBuffers clippedWhitenedBuffers(int k);

// ρ_W, the largest row norm of W: every document's y_n, p_n, t_n have norms at most ρ_W, ρ_W²,
// ρ_W³ (convex combinations of w_i, w_i w_jᵀ, w_i⊗w_j⊗w_l), so C = ρ_W clips nothing.
double whitenedRowBound(const Eigen::MatrixXd& W);

}  // namespace dplda
