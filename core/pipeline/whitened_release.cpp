// The whitened release (docs/PRIVACY.md §11): the clipped M̂2 released once for e2 and e5, then
// the clipped whitened tensor released given the public W̃ on e6.
#include <cmath>

#include "core/common/memory_budget.h"
#include "core/common/number_text.h"
#include "core/moments/second_moment_columns.h"
#include "core/pipeline/private_run_detail.h"
#include "core/privacy/noise.h"

namespace dplda {

double whitenedClipBound(const WhitenedRelease& w, int topicCount, double alpha0) {
  if (w.whitenedClip > 0.0) return w.whitenedClip;
  return kWhitenedClipFactor * std::sqrt(static_cast<double>(topicCount) + alpha0);
}

namespace detail {

EdgeSet whitenedReleaseEdges() { return (1u << 2) | (1u << 5) | (1u << 6); }

std::vector<PlannedRelease> whitenedReleasePlan() {
  return {{ReleaseKind::Node, Node::M2, {2, 5}, "M2 -> W, W+ (e2, e5, shared; clipped documents)"},
          {ReleaseKind::Node, Node::T, {6}, "T -> TD (e6; whitened release given the released W)"}};
}

Status validateWhitenedRelease(const PrivacyOptions& o) {
  if (o.edges != whitenedReleaseEdges()) {
    return invalidArgument("the whitened release is a mechanism for the cut {e2, e5, e6}; the edge set is " +
                           edgeSetToString(o.edges));
  }
  if (o.mechanism != Mechanism::AnalyticGaussian && o.mechanism != Mechanism::ClassicGaussian) {
    return invalidArgument(std::string("the whitened release has l2 / Frobenius sensitivities only; use a Gaussian "
                                       "mechanism, not ") + mechanismName(o.mechanism));
  }
  if (o.privateDecomposition) {
    return invalidArgument("e6 is either the whitened release or the private decomposition, not both");
  }
  if (o.bounds == BoundSet::Printed) {
    return invalidArgument("the whitened release has its own proven bounds (docs/PRIVACY.md §11) and no printed "
                           "form; use the sound bound set");
  }
  DPLDA_RETURN_IF_ERROR(validateSecondMomentClip(o.whitened.m2Clip));
  const double c = o.whitened.whitenedClip;
  if (!std::isfinite(c) || c < 0.0) {
    return invalidArgument("the whitened clipping bound C must be a finite number > 0 (or 0 for the default rule), "
                           "got " + shortNumber(c));
  }
  return Status::ok();
}

SecondMomentClip whitenedSecondMomentClip(const WhitenedRelease& w) {
  return w.clipToRowBound ? SecondMomentClip{1.0, 1.0} : w.m2Clip;
}

// The formulas are written from the numbers the values are computed from (one source for both).
namespace {
std::string secondMomentFormula(int docCount, double alpha0, const SecondMomentClip& clip) {
  return "Delta2 = (2 C2 + 4 a C1^2)/N with C1 = " + shortNumber(clip.m1) + ", C2 = " + shortNumber(clip.m2) +
         ", a = " + shortNumber(MomentConstants::fromAlpha0(alpha0).a) + ", N = " + std::to_string(docCount);
}
std::string tensorFormula(int docCount, double alpha0, const std::string& clipName, double clip) {
  const MomentConstants mc = MomentConstants::fromAlpha0(alpha0);
  return "Delta_Tw = (2 + 12|b| + 6c) " + clipName + "^3/N with " + clipName + " = " + shortNumber(clip) +
         ", b = " + shortNumber(mc.b) + ", c = " + shortNumber(mc.c) + ", N = " + std::to_string(docCount);
}
}  // namespace

SensitivityBound whitenedReleaseBound(Node node, const SensitivityInputs& in, const WhitenedRelease& w) {
  SensitivityBound b;
  b.node = node;
  b.usable = in.docCount >= 3;
  if (node == Node::M2) {
    const SecondMomentClip clip = whitenedSecondMomentClip(w);
    b.value = clippedSecondMomentSensitivity(in.docCount, in.alpha0, clip);
    b.formula = secondMomentFormula(in.docCount, in.alpha0, clip) +
                (w.clipToRowBound ? " (nothing clipped; docs/PRIVACY.md §11.2, Lemma C2)"
                                  : " (documents clipped; docs/PRIVACY.md §11, Lemma C2)");
  } else if (w.clipToRowBound) {
    // Δ_T is linear in C³: calibrated for 1 here, rescaled by rescaleToRowBound once W̃ is released.
    b.value = 1.0;
    b.formula = "Delta_Tw = (2 + 12|b| + 6c) rho_W^3/N, rho_W = the largest row norm of the released W, not yet "
                "released: calibrated for Delta_Tw = 1 and rescaled after the M2 release (nothing clipped; "
                "docs/PRIVACY.md §11.2)";
  } else {
    const double c = whitenedClipBound(w, in.topicCount, in.alpha0);
    b.value = clippedWhitenedTensorSensitivity(in.docCount, in.alpha0, c);
    b.formula = tensorFormula(in.docCount, in.alpha0, "C", c) +
                " (whitened documents clipped, given the released W; docs/PRIVACY.md §11, Lemma C3)";
  }
  if (!b.usable) b.note = "needs N >= 3 documents";
  return b;
}

Status rescaleToRowBound(LedgerEntry& e, int docCount, double alpha0, double rowBound, double noiseMultiplier) {
  e.sensitivity = clippedWhitenedTensorSensitivity(docCount, alpha0, rowBound);
  e.sensitivityFormula = tensorFormula(docCount, alpha0, "rho_W", rowBound) +
                         " (rho_W is the largest row norm of the released W; nothing clipped; docs/PRIVACY.md §11.2)";
  DPLDA_RETURN_IF_ERROR(validateRowSensitivity(e));
  // e.sigma was calibrated for Δ_T = 1 (times the test multiplier, if any).
  if (noiseMultiplier > 0.0) DPLDA_RETURN_IF_ERROR(validateRowScale(e, e.sigma / noiseMultiplier * e.sensitivity));
  e.sigma *= e.sensitivity;
  return Status::ok();
}

// Both releases are drawn from the exact corpus; everything after the M2 noise is computed from
// released values (W̃, W̃⁺) or from the second release, so a failure there is post-processing.
Result<PrivateRunResult> PrivateRun::releaseWhitened() {
  const double d = m_corpus.vocabSize();
  if (d * d > kMaxDenseEntries) {  // the noise E of the M2 release is d x d (M̂2ᶜ itself never is, at large d)
    return fail(StatusCode::ResourceLimit,
                "the whitened release adds a dense " + shortNumber(d) + " x " + shortNumber(d) +
                    " noise matrix to the second moment; reduce the vocabulary");
  }
  const WhitenedRelease& w = m_o.whitened;
  auto m2 = clippedSecondMomentOperator(m_corpus, m_so.alpha0, whitenedSecondMomentClip(w));
  // The clipped M̂2 fails only on invalid input (it is a total function of the corpus).
  if (!m2.ok()) return fail(m2.status().code(), "nothing released: " + m2.status().message());
  // M̃2 = M̂2ᶜ + E with E the noise addReleaseNoise would add to a dense M̂2ᶜ (the Gaussian
  // mechanisms' symmetric noise stream: the same values, the same scale), formed in double and
  // stored packed; at large d rounded to float for the eigensolver's passes, which is
  // post-processing of M̃2 (docs/PRIVACY.md §11.1). M̂2ᶜ's columns: up to kDenseEigenLimit from
  // the dense M̂2ᶜ (rank updates at GEMM speed, N d² flops: faster where documents hold more than
  // ~d/4 words, as at the app's d = 50), above from SecondMomentColumns (Σ_n nnz_n² scattered).
  const int vocab = m_corpus.vocabSize();
  const bool inFloat = releasedSecondMomentInFloat(vocab, m_k);
  const double heldBytes = d * d / 2.0 * (inFloat ? sizeof(float) : sizeof(double)) +
                           (inFloat ? SecondMomentColumns::indexBytes(static_cast<double>(m_corpus.nnz()), d) : d * d * 8.0);
  if (Status s = checkMemory(heldBytes, "the whitened release", "the released second moment",
                             "M2 + E is held packed (d x d / 2 entries), beside M2's columns");
      !s.isOk())
    return fail(s.code(), s.message());
  auto release = [&](auto scalar, const SecondMomentColumns::AddColumn& addColumn) -> Result<EigenpairsTopK> {
    auto released = symmetricMatrixNoise<decltype(scalar)>(vocab, scaleOf(2), m_noise, addColumn);
    if (!released.ok()) return released.status();
    return topEigenpairs(released.value(), m_k, m_feedback);
  };
  Result<EigenpairsTopK> eig = invalidArgument("no release");
  if (inFloat) {
    SecondMomentColumns(m2.value().m2).withColumns([&](const SecondMomentColumns::AddColumn& addColumn) {
      eig = release(float{}, addColumn);
    });
  } else {
    auto dense = m2.value().m2.toDense(m_feedback);
    if (!dense.ok()) return fail(dense.status().code(), "nothing released: " + dense.status().message());
    const Eigen::MatrixXd& M = dense.value();
    eig = release(double{}, [&M, vocab](Eigen::Index c, double* out) {
      for (Eigen::Index i = c; i < vocab; ++i) out[i - c] += M(i, c);
    });
  }
  if (!eig.ok()) return failAfterNoise(eig.status());
  m_res.diagnostics.releasedEigenvalues = eig.value().values;
  m_res.diagnostics.releasedEigen = eig.value();
  m_res.diagnostics.releasedEigen->vectors = Eigen::MatrixXd();
  auto whitening = whitenFromEigenpairs(eig.value(), m_k);
  if (!whitening.ok()) return failAfterNoise(whitening.status());
  const Whitening& wt = whitening.value();

  const double clip = w.clipToRowBound ? whitenedRowBound(wt.W) : whitenedClipBound(w, m_k, m_so.alpha0);
  if (w.clipToRowBound) {  // the T release's scale, now that ρ_W is public (calibrated for Δ = 1)
    LedgerEntry& e = m_res.ledger[m_releaseOfEdge.at(6)];
    if (Status s = rescaleToRowBound(e, m_corpus.docCount(), m_so.alpha0, clip, m_o.noiseMultiplier); !s.isOk())
      return fail(StatusCode::NothingReleased, "nothing released on e6: " + s.message());
  }
  auto t = clippedWhitenedThirdMoment(m_corpus, m_so.alpha0, wt.W, clip, m_feedback);
  if (!t.ok()) return failAfterNoise(t.status());
  Tensor3 T = std::move(t.value().tensor);
  if (Status s = addSymmetricTensorNoise(T, scaleOf(6), m_noise); !s.isOk()) return failAfterNoise(s);
  if (m_o.nonPrivateDiagnostics) {
    auto& c = m_res.diagnostics.nonPrivate.clipped;
    c.m1 = m2.value().fractionClippedM1;
    c.m2 = m2.value().fractionClippedM2;
    c.y = t.value().fractionClippedY;
    c.p = t.value().fractionClippedP;
    c.t = t.value().fractionClippedT;
    c.whitenedBound = clip;
  }

  // T̃ and W̃⁺ share the released eigenbasis of M̃2: no frames to reconcile.
  auto decomposer = makeDecomposer(m_so.decomposer, m_so.power);
  if (!decomposer.ok()) return decomposer.status();
  SeededRandom init(m_so.initSeed);
  auto td = decomposer.value()->decompose(T, init, m_feedback);
  if (!td.ok()) return failAfterNoise(td.status());
  m_res.eigenpairs = td.value();
  auto u = unwhiten(td.value(), wt.unwhitening, m_so.alpha0);
  if (!u.ok()) return failAfterNoise(u.status());
  UnwhitenedTopics topics = std::move(u).value();
  topics.alpha = topics.alpha.cwiseMax(0.0);
  auto out = projectTopicsToSimplex(topics);
  if (!out.ok()) return failAfterNoise(out.status());
  m_res.output = std::move(out).value();
  m_res.released = true;
  return std::move(m_res);
}

}  // namespace detail

}  // namespace dplda
