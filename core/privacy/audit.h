#pragma once
// An empirical differential-privacy audit of one Gaussian release (issue 14): two neighbouring
// corpora D, D′ (one document replaced by an adversarial one, as the privacy tests build them),
// the release drawn many times on each, a threshold test on a 1-D statistic, and a lower
// confidence bound on the ε of the pair by exact (Clopper–Pearson) binomial bounds:
//     ε_lb = max_t ln((P_D,lower(S_t) − δ) / P_D′,upper(S_t)).
// A correctly calibrated release gives ε_lb ≤ ε except with probability 1 − confidence.
//
// The statistic. A release adds noise to the unique entries v of its value (i ≤ j for M̂2,
// i ≤ j ≤ l for T̂; core/privacy/noise.h). The statistic of one drawn release is its projection
// on u = (v(D) − v(D′))/‖v(D) − v(D′)‖₂: for Gaussian noise the two laws are N(⟨v(D),u⟩, σ²) and
// N(⟨v(D′),u⟩, σ²), whose half-lines are the most powerful tests (Neyman–Pearson). The releases
// themselves are drawn by a ReleaseSampler: the Audit tab's draws the release exactly as a run draws
// it, with the run's ledger and noise code (core/pipeline/release_audit.h); gaussianShiftSampler is
// the 1-D model the engine's own tests use.
#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/random.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda::privacy_audit {

// ---- exact binomial confidence bounds --------------------------------------------------------

// Regularised incomplete beta I_x(a, b) (Lentz's continued fraction, Numerical Recipes §6.4);
// accurate to ~1e-13 relative for a, b up to ~1e6.
double regularizedIncompleteBeta(double a, double b, double x);
// Exact (Clopper–Pearson) one-sided bounds for a binomial proportion from k successes in n
// trials: P(lower > p) ≤ alpha and P(upper < p) ≤ alpha.
double clopperPearsonLower(int k, int n, double alpha);
double clopperPearsonUpper(int k, int n, double alpha);

// ---- neighbouring corpora ---------------------------------------------------------------------

std::vector<CountTriplet> tripletsOf(const Corpus& c);
// The corpus with document `doc` replaced by `words` (word id, count): a neighbour (same N).
Result<Corpus> replaceDocument(const Corpus& c, int doc, const std::vector<std::pair<int, double>>& words);

// The releases the audit can draw (their noise is Gaussian on the unique entries).
enum class AuditedRelease {
  SecondMoment,          // the M̂2 release of a configuration that releases it (e2 / e5 of configuration 1)
  WhitenedSecondMoment,  // the whitened release's clipped M̂2 (docs/PRIVACY.md §11, Lemma C2)
  WhitenedTensor,        // the whitened release's T̂ given a fixed public W (Lemma C3)
};
const char* auditedReleaseName(AuditedRelease r);  // "M2", "whitened M2", "whitened T"

// D′ built from D by replacing document 0 with the adversarial document of the tests: one word
// repeated 3 times; the word absent from document 0 that is rarest in the corpus (it moves M̂2 and
// M̂1 furthest), or, given the W a whitened T̂ is computed with, the word with the largest row of W.
struct AdversarialNeighbour {
  Corpus corpus;
  int replacedDocument = 0;
  std::string replacement;  // e.g. "\"w17\" ×3"
};
Result<AdversarialNeighbour> adversarialNeighbour(const Corpus& d, const Eigen::MatrixXd* W = nullptr);

// A release on D and on D′ reduced to the audit's statistic: what the tab shows of the pair.
struct AuditPair {
  AuditedRelease release = AuditedRelease::SecondMoment;
  int docCount = 0, vocabSize = 0;
  int replacedDocument = 0;
  std::string replacement;
  double sensitivity = 0;    // the bound the release is calibrated to (the run's ledger row)
  std::string sensitivityFormula;
  double meanD = 0, meanDPrime = 0;  // ⟨v(D), u⟩, ⟨v(D′), u⟩
  double gap() const { return meanD - meanDPrime; }  // ‖v(D) − v(D′)‖₂ ≥ 0
};

// One drawn release's statistic on D (side 0) or D′ (side 1), its noise from `rng`.
using ReleaseSampler = std::function<double(int side, RandomSource& rng)>;
// The 1-D model: meanD or meanDPrime plus σ·N(0, 1) from the product's sampler.
ReleaseSampler gaussianShiftSampler(double meanD, double meanDPrime, double sigma);

// ---- the threshold test -----------------------------------------------------------------------

struct EpsilonBound {
  double epsilon = -1e300;  // ε_lb (very negative when no threshold gave a bound)
  double threshold = 0;     // the t of the best set
  bool upperSet = true;     // the set {x > t} for (D, D′); false: {x ≤ t} for (D′, D)
  int countP = 0, countQ = 0;  // samples in the set under P and Q
  bool found() const { return epsilon > -1e299; }
};

// ε_lb over the sets {x > t} for (P, Q) = (D, D′) and {x ≤ t} for (P, Q) = (D′, D), t on
// `thresholds` pooled sample quantiles; all 4·thresholds one-sided bounds hold jointly with
// probability ≥ 1 − familyAlpha (Bonferroni). A set is used only when it holds at least
// `minCount` D samples. Inputs need not be sorted.
EpsilonBound empiricalEpsilon(std::vector<double> xD, std::vector<double> xDPrime, double delta,
                              double familyAlpha, int thresholds = 200, int minCount = 20);

// The exact ε at δ of the 1-D Gaussian shift with mean gap `gap` and noise σ (Balle & Wang);
// 0 when δ already covers it.
double exactGaussianEpsilon(double sigma, double gap, double delta);

// A whole audit: `draws` releases on each side (seeded), ε_lb at the end and at a few
// intermediate draw counts (the curve of the lower bound against the number of draws).
struct AuditSettings {
  double epsilon = 1.0;   // claimed
  double delta = 1e-5;
  // The drawn release's noise scale and projected means: the exact ε of the pair at this σ
  // (what ε_lb approaches), not the draws, which come from the sampler.
  double sigma = 0;
  double meanD = 0, meanDPrime = 0;
  int draws = 200000;     // per side
  double confidence = 0.95;
  int thresholds = 200;
  std::uint64_t seed = 1;
};
struct AuditCurvePoint {
  int draws = 0;
  double epsilon = 0;  // ε_lb at that many draws (NaN: no threshold gave a bound yet)
};
struct AuditOutcome {
  EpsilonBound bound;
  std::vector<AuditCurvePoint> curve;
  std::vector<double> xD, xDPrime;  // the statistic's draws
  double exactEpsilon = 0;          // of the pair at this σ (what ε_lb approaches)
};
// Cancellable through `feedback` (Cancelled status); progress in [0, 1]. Side 0 draws from a
// generator seeded deriveSeed(seed, 1), side 1 from deriveSeed(seed, 2).
Result<AuditOutcome> runAudit(const AuditSettings& settings, const ReleaseSampler& sampler,
                              Feedback* feedback = nullptr);

}  // namespace dplda::privacy_audit
