#include "core/moments/clipped_moments.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/common/number_text.h"
#include "core/common/parallel_guard.h"
#include "core/moments/moment_lanes.h"
#include "core/moments/moments.h"

namespace dplda {

namespace {

// Documents are summed in fixed lanes of fixed blocks and the lanes added in order, so the
// result is bit-identical for any thread count (as in moments.cpp).
constexpr int kLanes = 4;
constexpr Eigen::Index kBlock = 512;

// The factor that scales a term of norm `norm` down to `bound` (1 when it is within it).
double clipFactor(double norm, double bound) { return norm > bound ? bound / norm : 1.0; }

// ‖M̃1ⁿ‖₂ = √Σc²/l and ‖M̃2ⁿ‖_F = √((Σc²)² − 2Σc³ + Σc²)/(l(l−1)) (M̃2ⁿ = (ccᵀ − diag c)/(l(l−1))),
// from s2 = Σc², s3 = Σc³ and the length l.
double m1TermNorm(double s2, double l) { return std::sqrt(s2) / l; }
double m2TermNorm(double s2, double s3, double l) {
  return std::sqrt(std::max(0.0, s2 * s2 - 2.0 * s3 + s2)) / (l * (l - 1.0));
}

Status validateClip(double c, const char* what) {
  if (!std::isfinite(c) || c <= 0.0) {
    return invalidArgument(std::string("the clipping bound ") + what + " must be a finite number > 0, got " +
                           shortNumber(c));
  }
  return Status::ok();
}

// X_ij z_l + X_il z_j + X_jl z_i: the three placements of a vector beside a symmetric matrix.
void addPlacements(Tensor3& t, double w, const Eigen::MatrixXd& X, const Eigen::VectorXd& z) {
  const int k = t.dim();
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j)
      for (int l = 0; l < k; ++l) t(i, j, l) += w * (X(i, j) * z[l] + X(i, l) * z[j] + X(j, l) * z[i]);
}

}  // namespace

Status validateSecondMomentClip(const SecondMomentClip& clip) {
  DPLDA_RETURN_IF_ERROR(validateClip(clip.m1, "C1 (on each document's M1 term)"));
  return validateClip(clip.m2, "C2 (on each document's M2 term)");
}

Status validateMomentClip(const MomentClip& clip) {
  if (!clip.enabled) return Status::ok();
  DPLDA_RETURN_IF_ERROR(validateClip(clip.m1, "C1 (on each document's M1 term)"));
  DPLDA_RETURN_IF_ERROR(validateClip(clip.m2, "C2 (on each document's M2 term)"));
  return validateClip(clip.m3, "C3 (on each document's M3 term)");
}

namespace {

// The factor min(1, C/‖term‖) of each document's M̃1ⁿ and M̃2ⁿ, and of its M̃3ⁿ when `m3` is given
// (its norm needs more sums), in one pass over the counts.
ClippedMomentScales documentScales(const Corpus& corpus, double m1, double m2, const double* m3) {
  const Eigen::Index N = corpus.docCount();
  ClippedMomentScales out;
  out.scales.m1.resize(N);
  out.scales.m2.resize(N);
  if (m3) out.scales.m3.resize(N);
  Eigen::Index clipped[3] = {0, 0, 0};
  forEachRowBlock(corpus, 0, N, [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
    for (Eigen::Index n = first; n < last; ++n) {
      // M̃3ⁿ(i,j,l) counts the ordered triples of distinct tokens with words (i,j,l): c_ic_jc_l for three
      // distinct words, c_i(c_i−1)c_l for two, c_i(c_i−1)(c_i−2) for one. With q = c², the squares
      // of the distinct-word entries sum to 6 e3(q) (elementary symmetric, no cancellation).
      double s2 = 0.0, s3 = 0.0, e1 = 0.0, e2 = 0.0, e3 = 0.0, r = 0.0, rq = 0.0, u = 0.0;
      for (Eigen::Index e = outer[n]; e < outer[n + 1]; ++e) {
        const double c = entry(e).second, q = c * c;
        s2 += q;
        s3 += q * c;
        if (!m3) continue;
        const double ri = (c * (c - 1.0)) * (c * (c - 1.0));
        e3 += e2 * q;
        e2 += e1 * q;
        e1 += q;
        r += ri;
        rq += ri * q;
        u += (c * (c - 1.0) * (c - 2.0)) * (c * (c - 1.0) * (c - 2.0));
      }
      const double l = corpus.lengths[n];
      if (!contributes(l)) {  // an empty document: no term to clip (the estimators skip it)
        out.scales.m1[n] = out.scales.m2[n] = 1.0;
        if (m3) out.scales.m3[n] = 1.0;
        continue;
      }
      out.scales.m1[n] = clipFactor(m1TermNorm(s2, l), m1);
      out.scales.m2[n] = clipFactor(m2TermNorm(s2, s3, l), m2);
      clipped[0] += out.scales.m1[n] < 1.0;
      clipped[1] += out.scales.m2[n] < 1.0;
      if (m3) {
        const double triples = l * (l - 1.0) * (l - 2.0);
        const double norm3 = std::sqrt(std::max(0.0, 6.0 * e3 + 3.0 * (r * e1 - rq) + u)) / triples;
        out.scales.m3[n] = clipFactor(norm3, *m3);
        clipped[2] += out.scales.m3[n] < 1.0;
      }
    }
  });
  const double Nd = static_cast<double>(N);
  out.fractionClippedM1 = static_cast<double>(clipped[0]) / Nd;
  out.fractionClippedM2 = static_cast<double>(clipped[1]) / Nd;
  out.fractionClippedM3 = static_cast<double>(clipped[2]) / Nd;
  return out;
}

}  // namespace

Result<ClippedMomentScales> clippedMomentScales(const Corpus& corpus, const MomentClip& clip) {
  if (!clip.enabled) return invalidArgument("clippedMomentScales: clipping is off");
  DPLDA_RETURN_IF_ERROR(validateMomentClip(clip));
  return documentScales(corpus, clip.m1, clip.m2, &clip.m3);
}

Result<ClippedSecondMoment> clippedSecondMomentOperator(const Corpus& corpus, double alpha0,
                                                        const SecondMomentClip& clip) {
  DPLDA_RETURN_IF_ERROR(validateMomentInputs(corpus, alpha0));
  DPLDA_RETURN_IF_ERROR(validateSecondMomentClip(clip));
  const ClippedMomentScales s = documentScales(corpus, clip.m1, clip.m2, nullptr);
  // The operator reads only the m1 and m2 factors; it keeps its document weights, not `s`.
  return ClippedSecondMoment{SecondMomentOperator(corpus, alpha0, &s.scales), s.fractionClippedM1,
                             s.fractionClippedM2};
}

Result<Eigen::MatrixXd> clippedSecondMomentDense(const Corpus& corpus, double alpha0, const SecondMomentClip& clip,
                                                 Feedback* feedback) {
  auto m = clippedSecondMomentOperator(corpus, alpha0, clip);
  if (!m.ok()) return m.status();
  return m.value().m2.toDense(feedback);
}

ClippedMomentBounds clippedMomentBounds(int docCount, double alpha0, const MomentClip& clip) {
  const MomentConstants mc = MomentConstants::fromAlpha0(alpha0);
  const double c1 = std::min(clip.m1, 1.0), c2 = std::min(clip.m2, 1.0), c3 = std::min(clip.m3, 1.0);
  const double N = static_cast<double>(docCount), b = std::abs(mc.b);
  ClippedMomentBounds out;
  out.delta2 = clippedSecondMomentSensitivity(docCount, alpha0, {c1, c2});  // Lemma C2 with C′
  out.delta3 = (2.0 * c3 + 12.0 * b * c1 * c2 + 6.0 * mc.c * c1 * c1 * c1) / N;
  out.m2Norm = c2 + mc.a * c1 * c1;
  out.m3Norm = c3 + 3.0 * b * c1 * c2 + mc.c * c1 * c1 * c1;
  return out;
}

std::string momentClipText(const MomentClip& clip) {
  return "C1 = " + shortNumber(clip.m1) + ", C2 = " + shortNumber(clip.m2) + ", C3 = " + shortNumber(clip.m3);
}

double clippedSecondMomentSensitivity(int docCount, double alpha0, const SecondMomentClip& clip) {
  const double a = MomentConstants::fromAlpha0(alpha0).a;
  return (2.0 * clip.m2 + 4.0 * a * clip.m1 * clip.m1) / static_cast<double>(docCount);
}

Result<ClippedWhitenedTensor> clippedWhitenedThirdMoment(const Corpus& corpus, double alpha0,
                                                         const Eigen::MatrixXd& W, double clip,
                                                         Feedback* feedback) {
  DPLDA_RETURN_IF_ERROR(validateMomentInputs(corpus, alpha0));
  DPLDA_RETURN_IF_ERROR(validateClip(clip, "C (on each document's whitened terms)"));
  if (W.rows() != corpus.vocabSize() || W.cols() < 1) {
    return invalidArgument("the whitening matrix must be " + std::to_string(corpus.vocabSize()) + " x k, got " +
                           std::to_string(W.rows()) + " x " + std::to_string(W.cols()));
  }
  if (!W.allFinite()) return numericalFailure("the whitening matrix contains NaN or infinite entries");
  const Eigen::Index N = corpus.docCount();
  const int k = static_cast<int>(W.cols());
  const Eigen::MatrixXd Wt = W.transpose();  // column i is w_i
  const double bound1 = clip, bound2 = clip * clip, bound3 = clip * clip * clip;

  // Per lane: Σ t̄_n, Σ p̄_n, Σ ȳ_n, Σ p̄_n⊗ȳ_n, Σ ȳ_nȳ_nᵀ, Σ ȳ_n^⊗3 (bars: clipped) and counts.
  struct Lane {
    Tensor3 t3, q, r3;
    Eigen::MatrixXd p, r2;
    Eigen::VectorXd y;
    Eigen::Index clippedY = 0, clippedP = 0, clippedT = 0;
  };
  // The lane count depends on k only: the bits do not depend on the thread count.
  const ClippedWhitenedBuffers sizes = clippedWhitenedBuffers(k);
  const int laneCount = sizes.lanes;
  std::vector<Lane> lanes(laneCount);
  const Eigen::Index blocks = (N + kBlock - 1) / kBlock;
  const double work = static_cast<double>(corpus.nnz()) * k * k * k;
  const Eigen::Index kk = static_cast<Eigen::Index>(k) * k;
  // A k x k x k tensor seen as the k x k² matrix whose column i·k + j holds entries (i, j, ·).
  auto asMatrix = [k, kk](Tensor3& t) { return Eigen::Map<Eigen::MatrixXd>(t.data(), k, kk); };
  ParallelGuard guard;
#pragma omp parallel for schedule(static, 1) if (work > 1e6 && laneCount > 1)
  for (int laneIndex = 0; laneIndex < laneCount; ++laneIndex) guard.run([&] {
    Lane& lane = lanes[laneIndex];
    lane.t3 = lane.q = lane.r3 = Tensor3(k);
    lane.p = lane.r2 = Eigen::MatrixXd::Zero(k, k);
    lane.y = Eigen::VectorXd::Zero(k);
    Tensor3 t(k);
    Eigen::MatrixXd D(k, k), P(k, k), Wg(k, sizes.words), A(k, sizes.words), B(kk, sizes.words);
    Eigen::VectorXd y(k), m(k);
    // Clipped ȳ_n, ȳ_n⊗ȳ_n and p̄_n of up to sizes.documents documents, for Σ ȳ^⊗3 and Σ p̄⊗ȳ as
    // two products per batch instead of two k³ updates per document.
    Eigen::MatrixXd batchY(k, sizes.documents), batchYY(kk, sizes.documents), batchP(kk, sizes.documents);
    Eigen::Index batched = 0;
    auto flush = [&] {
      asMatrix(lane.r3).noalias() += batchY.leftCols(batched) * batchYY.leftCols(batched).transpose();
      asMatrix(lane.q).noalias() += batchY.leftCols(batched) * batchP.leftCols(batched).transpose();
      batched = 0;
    };
    for (Eigen::Index b = laneIndex; b < blocks; b += laneCount) {
      if (isCanceled(feedback)) break;
      withRows(corpus, b * kBlock, std::min(N, (b + 1) * kBlock),
               [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
                 // The document's words, sizes.words at a time: Wg = their w_i, A = their c_i w_i.
                 auto gather = [&](Eigen::Index from, Eigen::Index to) {
                   for (Eigen::Index e = from; e < to; ++e) {
                     const auto [j, count] = entry(e);
                     Wg.col(e - from) = Wt.col(j);
                     A.col(e - from) = count * Wt.col(j);
                   }
                   return to - from;
                 };
                 for (Eigen::Index n = first; n < last; ++n) {
                   if (!contributes(corpus.lengths[n]))
                     continue;  // an empty document: counted in N, adds nothing
                   // y = Wᵀc and D = Σ c_i w_i w_iᵀ (made exactly symmetric).
                   y.setZero();
                   D.setZero();
                   const bool oneBlock = outer[n + 1] - outer[n] <= sizes.words;  // A and Wg keep it
                   for (Eigen::Index e = outer[n]; e < outer[n + 1]; e += sizes.words) {
                     const Eigen::Index used = gather(e, std::min<Eigen::Index>(outer[n + 1], e + sizes.words));
                     y.noalias() += A.leftCols(used).rowwise().sum();
                     D.noalias() += A.leftCols(used) * Wg.leftCols(used).transpose();
                   }
                   for (int i = 0; i < k; ++i)
                     for (int j = 0; j < i; ++j) D(i, j) = D(j, i) = 0.5 * (D(i, j) + D(j, i));
                   // t_n · l(l−1)(l−2) = y^⊗3 − (D⊗y + placements) + 2 Σ c_i w_i^⊗3 = Σ_i (c_i w_i)
                   // (2 w_i⊗w_i − w_i⊗y − y⊗w_i) + y (y⊗y − D): products of A with the words' B.
                   auto T = asMatrix(t);
                   for (Eigen::Index e = outer[n]; e < outer[n + 1]; e += sizes.words) {
                     const Eigen::Index end = std::min<Eigen::Index>(outer[n + 1], e + sizes.words);
                     const Eigen::Index used = oneBlock ? end - e : gather(e, end);
                     for (Eigen::Index col = 0; col < used; ++col) {  // plain loops: k is often 5-20
                       const double* w = Wg.col(col).data();
                       double* out = B.col(col).data();
                       for (int i = 0; i < k; ++i)
                         for (int j = 0; j < k; ++j) out[i * k + j] = w[i] * (2.0 * w[j] - y[j]) - y[i] * w[j];
                     }
                     if (e == outer[n]) T.noalias() = A.leftCols(used) * B.leftCols(used).transpose();
                     else T.noalias() += A.leftCols(used) * B.leftCols(used).transpose();
                   }
                   const double l = corpus.lengths[n];
                   for (int i = 0; i < k; ++i)
                     for (int j = 0; j < k; ++j) P(j, i) = y[i] * y[j] - D(j, i);
                   T.noalias() += y * Eigen::Map<const Eigen::VectorXd>(P.data(), kk).transpose();  // P symmetric
                   T *= 1.0 / (l * (l - 1.0) * (l - 2.0));
                   m = y / l;
                   P *= 1.0 / (l * (l - 1.0));
                   const double f1 = clipFactor(m.norm(), bound1);
                   const double f2 = clipFactor(P.norm(), bound2);
                   const double f3 = clipFactor(T.norm(), bound3);
                   lane.clippedY += f1 < 1.0;
                   lane.clippedP += f2 < 1.0;
                   lane.clippedT += f3 < 1.0;
                   asMatrix(lane.t3) += f3 * T;
                   m *= f1;
                   P *= f2;
                   lane.p += P;
                   lane.y += m;
                   batchY.col(batched) = m;
                   double* mm = batchYY.col(batched).data();
                   for (int i = 0; i < k; ++i)
                     for (int j = 0; j < k; ++j) mm[i * k + j] = m[i] * m[j];
                   lane.r2 += Eigen::Map<const Eigen::MatrixXd>(mm, k, k);
                   batchP.col(batched) = Eigen::Map<const Eigen::VectorXd>(P.data(), kk);  // P symmetric
                   if (++batched == sizes.documents) flush();
                 }
               });
    }
    if (batched > 0) flush();
  });
  guard.rethrow();
  if (isCanceled(feedback)) return Status(StatusCode::Cancelled, "cancelled");
  Lane& sum = lanes[0];
  for (int i = 1; i < laneCount; ++i) {
    sum.t3 += lanes[i].t3;
    sum.q += lanes[i].q;
    sum.r3 += lanes[i].r3;
    sum.p += lanes[i].p;
    sum.r2 += lanes[i].r2;
    sum.y += lanes[i].y;
    sum.clippedY += lanes[i].clippedY;
    sum.clippedP += lanes[i].clippedP;
    sum.clippedT += lanes[i].clippedT;
  }
  // T̂ = (1/N) Σ t̄ + β2 [placements of (S_p⊗S_y − Σ p̄⊗ȳ)] + γ3 P3,
  // P3 = S_y^⊗3 − (placements of Σ ȳȳᵀ beside S_y) + 2 Σ ȳ^⊗3 (SPEC §3 through W).
  const double Nd = static_cast<double>(N);
  const MomentConstants mc = MomentConstants::fromAlpha0(alpha0);
  const double beta2 = mc.b / (Nd * (Nd - 1.0));
  const double gamma3 = mc.c / (Nd * (Nd - 1.0) * (Nd - 2.0));
  ClippedWhitenedTensor out;
  Tensor3& T = out.tensor;
  T = std::move(sum.t3);
  T *= 1.0 / Nd;
  addPlacements(T, beta2, sum.p, sum.y);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j)
      for (int l = 0; l < k; ++l) {
        T(i, j, l) -= beta2 * (sum.q(i, j, l) + sum.q(i, l, j) + sum.q(j, l, i));
        T(i, j, l) += gamma3 * (sum.y[i] * sum.y[j] * sum.y[l] + 2.0 * sum.r3(i, j, l));
      }
  addPlacements(T, -gamma3, sum.r2, sum.y);
  out.fractionClippedY = static_cast<double>(sum.clippedY) / Nd;
  out.fractionClippedP = static_cast<double>(sum.clippedP) / Nd;
  out.fractionClippedT = static_cast<double>(sum.clippedT) / Nd;
  if (!T.allFinite()) return numericalFailure("the clipped whitened tensor has NaN or infinite entries");
  return out;
}

double clippedWhitenedTensorSensitivity(int docCount, double alpha0, double clip) {
  const MomentConstants mc = MomentConstants::fromAlpha0(alpha0);
  return (2.0 + 12.0 * std::abs(mc.b) + 6.0 * mc.c) * clip * clip * clip / static_cast<double>(docCount);
}

double whitenedRowBound(const Eigen::MatrixXd& W) { return W.rowwise().norm().maxCoeff(); }

ClippedWhitenedBuffers clippedWhitenedBuffers(int k) {
  const double kk = static_cast<double>(k) * k;
  ClippedWhitenedBuffers b;
  b.lanes = 4.0 * kk * k * sizeof(double) > moments_detail::kSharedTensorBytes ? 1 : kLanes;
  b.words = static_cast<Eigen::Index>(std::clamp(2097152.0 / kk, 8.0, 256.0));     // B: at most 16 MiB for k <= 512
  b.documents = static_cast<Eigen::Index>(std::clamp(1048576.0 / kk, 1.0, 64.0));  // 3 batches: 24 MiB
  b.doubles = 4.0 * kk * k + kk * b.words + 3.0 * kk * b.documents;
  return b;
}

}  // namespace dplda
