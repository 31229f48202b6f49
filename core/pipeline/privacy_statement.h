#pragma once
// What a private run may claim, decided from public inputs only (the edge set, the bound set,
// the budget, N): the label every output carries (JSON "private" / "privacy_claim", stdout,
// reports, the app's banner). docs/PRIVACY.md §1 defines each level.
#include <string>
#include <vector>

#include "core/corpus/corpus_provenance.h"
#include "core/graph/computation_graph.h"
#include "core/privacy/mechanisms.h"
#include "core/privacy/sensitivity.h"

namespace dplda {

enum class PrivacyClaim {
  Proven,         // a cut; every release rests on a bound proven in docs/PRIVACY.md
  Heuristic,      // a cut, but a release rests on a heuristic bound (γ_s, Theorem 6: TD, U)
  PrintedBounds,  // the papers' printed bounds: reproduces their figures, not a proof
  NotCovered,     // a cut, but a release depends on the data through a clean and a noisy path
  NotPrivate,     // not a cut, an unbounded node, no noise at all, or noise scaled below calibration
};
const char* privacyClaimName(PrivacyClaim c);  // "proven", "heuristic", "printed-bounds", "not-covered", "not-private"

struct PrivacyStatement {
  PrivacyClaim claim = PrivacyClaim::NotPrivate;
  std::string summary;                // one sentence: what "private" covers here, or why it does not hold
  // The graph's reading of the edge set (decidePrivacy's explanation), except where the run's
  // mechanism covers what the graph alone cannot (the whitened release's mixed T): it never
  // contradicts the claim. JSON privacy.explanation, the banner's tooltip.
  std::string explanation;
  std::vector<std::string> cautions;  // e.g. δ >= 1/N, a very large ε
  // Proven and every release is Laplace noise on an l1 bound (configuration 1 or input
  // perturbation with --mechanism laplace): pure epsilon-DP, delta = 0 for exact noise
  // (docs/PRIVACY.md §18; the samplers' tails are a caution, §7.2).
  bool pureEpsilon = false;
  bool isPrivate() const { return claim == PrivacyClaim::Proven; }
};

struct StatementInputs {
  EdgeSet edges = 0;
  bool shareReleases = false;
  BoundSet bounds = BoundSet::Sound;
  double epsilon = 1.0;
  double delta = 1e-5;
  double noiseMultiplier = 1.0;
  int docCount = 0;  // N (public); 0 when unknown (no δ >= 1/N check)
  bool whitenedRelease = false;  // {e2, e5, e6} by the whitened release (docs/PRIVACY.md §11)
  MomentClip momentClip;         // the papers' configurations on clipped documents (docs/PRIVACY.md §12)
  // Where the corpus's vocabulary came from (docs/PRIVACY.md §13): CorpusCounts makes every
  // release depend on the text through a path no noise covers; Unknown is a caution.
  VocabularyOrigin vocabulary = VocabularyOrigin::Public;
  Mechanism mechanism = Mechanism::AnalyticGaussian;  // of the node releases
};
PrivacyStatement privacyStatement(const StatementInputs& in);


}  // namespace dplda
