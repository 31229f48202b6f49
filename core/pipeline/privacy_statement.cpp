#include "core/pipeline/privacy_statement.h"

#include "core/moments/clipped_moments.h"

#include <cmath>

#include "core/common/number_text.h"
#include "core/privacy/budget.h"

namespace dplda {

namespace {
// Above this total ε the guarantee (outputs up to e^ε more likely on one corpus) says little.
constexpr double kLargeEpsilon = 10.0;
}  // namespace

const char* privacyClaimName(PrivacyClaim c) {
  switch (c) {
    case PrivacyClaim::Proven: return "proven";
    case PrivacyClaim::Heuristic: return "heuristic";
    case PrivacyClaim::PrintedBounds: return "printed-bounds";
    case PrivacyClaim::NotCovered: return "not-covered";
    case PrivacyClaim::NotPrivate: return "not-private";
  }
  return "not-private";
}

PrivacyStatement privacyStatement(const StatementInputs& in) {
  PrivacyStatement st;
  const PrivacyDecision d = decidePrivacy(in.edges);
  st.explanation = d.explanation;
  if (in.whitenedRelease && d.isPrivate) {
    // decidePrivacy sees T mixed (the documents directly, and through the released W) and says "not
    // covered"; the whitened release's Lemma C3 is proven for exactly that mixed function.
    std::string mixed;
    for (Node n : d.mixedReleases) mixed += (mixed.empty() ? "" : ", ") + std::string(nodeName(n));
    st.explanation = "A cut (" + edgeSetToString(in.edges) + ") covered by proven bounds: the release of " +
                     (mixed.empty() ? std::string("T") : mixed) +
                     " depends on the data directly and through the released W, and the whitened release's "
                     "sensitivity (Lemma C3, docs/PRIVACY.md §11) is proven for exactly that: any fixed released W.";
  }
  if (!d.isPrivate) {
    st.claim = PrivacyClaim::NotPrivate;
    st.summary = d.explanation;
  } else if (in.noiseMultiplier != 1.0) {
    st.claim = PrivacyClaim::NotPrivate;
    st.summary = "Not private: the noise scales are multiplied by " + shortNumber(in.noiseMultiplier) +
                 " (a teaching or test setting), not the calibrated release.";
  } else if (in.whitenedRelease) {
    // T depends on the data through e4 (the released W̃) and e1; Lemma C3 bounds it for any
    // fixed W̃, which is what the mixed-release rule of §5 asks for.
    st.claim = PrivacyClaim::Proven;
    st.summary = "Private: (epsilon, delta)-DP for replacing one document by the whitened release (clipped M2, "
                 "then the clipped whitened tensor given the released W), every sensitivity proven in "
                 "docs/PRIVACY.md §11.";
  } else if (!d.coveredByProvenBounds()) {
    st.claim = PrivacyClaim::NotCovered;
    st.summary = d.explanation;
  } else if (in.bounds == BoundSet::Printed) {
    st.claim = PrivacyClaim::PrintedBounds;
    st.summary = "A cut, calibrated with the papers' printed bounds: reproduces their figures; several printed "
                 "bounds are not proofs (docs/PRIVACY.md), so this is not a privacy guarantee.";
  } else {
    bool heuristic = false;
    for (const PlannedRelease& r : planReleases(in.edges, in.shareReleases, in.bounds))
      heuristic = heuristic || r.kind == ReleaseKind::GammaS || (r.kind == ReleaseKind::Node && needsGammaS(r.node));
    st.claim = heuristic ? PrivacyClaim::Heuristic : PrivacyClaim::Proven;
    st.summary = heuristic
                     ? "A cut, but a release of TD or U rests on heuristic bounds (the gamma_s sensitivity and "
                       "Theorem 6 are not proven for this corpus): not a privacy guarantee."
                     : "Private: (epsilon, delta)-DP for replacing one document, every release calibrated to a "
                       "bound proven in docs/PRIVACY.md.";
    // Laplace is offered only where an l1 bound exists (D, M2, M3), none of which needs Procedure 1:
    // every release of the run is then pure.
    if (!heuristic && in.mechanism == Mechanism::Laplace) {
      st.pureEpsilon = true;
      st.summary = "Private: pure epsilon-DP (delta = 0) for replacing one document, every release Laplace noise "
                   "calibrated to an l1 bound proven in docs/PRIVACY.md (§18); the delta given is not used.";
    }
  }
  if (in.edges != 0 && in.vocabulary == VocabularyOrigin::CorpusCounts && st.claim != PrivacyClaim::NotPrivate) {
    st.claim = PrivacyClaim::NotPrivate;
    st.pureEpsilon = false;
    st.summary = vocabularyNotPrivateReason();
  }
  if (in.edges != 0 && in.momentClip.enabled && !in.whitenedRelease) {
    // Every output names the clipping and its public bounds next to the claim.
    st.summary += " Documents clipped to public norm bounds " + momentClipText(in.momentClip) +
                  " (M1, M2, M3 terms; sensitivities from Lemma C4, docs/PRIVACY.md §12).";
  }
  if (in.edges != 0) {
    if (in.docCount > 0 && in.delta >= 1.0 / in.docCount) {
      st.cautions.push_back("delta = " + shortNumber(in.delta) + " >= 1/N = " + shortNumber(1.0 / in.docCount) +
                            ": a mechanism may then publish a whole document and still meet the definition");
    }
    if (in.vocabulary == VocabularyOrigin::Unknown) {
      st.cautions.push_back(vocabularyAssumedPublicCaution());
    }
    if (in.epsilon > kLargeEpsilon) {
      st.cautions.push_back("epsilon = " + shortNumber(in.epsilon) +
                            ": an output may become e^epsilon times more likely by one document's change; the "
                            "guarantee is nominal at this size");
    }
  }
  return st;
}

}  // namespace dplda
