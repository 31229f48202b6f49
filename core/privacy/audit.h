#pragma once
// An empirical differential-privacy audit of one Gaussian release (issue 14): two neighbouring
// corpora D, D′ (one document replaced by an adversarial one, as the privacy tests build them),
// the release drawn many times on each, a threshold test on a 1-D statistic, and a lower
// confidence bound on the ε of the pair by exact (Clopper–Pearson) binomial bounds:
//     ε_lb = max_t ln((P_D,lower(S_t) − δ) / P_D′,upper(S_t)).
// A correctly calibrated release gives ε_lb ≤ ε except with probability 1 − confidence.
//
// The statistic. A release adds i.i.d. N(0, σ²) to the unique entries v of its value (i ≤ j for
// M̂2, i ≤ j ≤ l for T̂; core/privacy/noise.h). Projected on u = (v(D) − v(D′))/‖v(D) − v(D′)‖₂
// the two output laws are N(⟨v(D),u⟩, σ²) and N(⟨v(D′),u⟩, σ²); by Neyman–Pearson the half-lines
// of this projection are the most powerful tests, and the projection of isotropic Gaussian noise
// on a unit vector is exactly N(0, σ²), so the audit draws the projected release directly (one
// standard normal of the product's sampler per release) at any dimension.
#include <Eigen/Dense>
#include <cstdint>
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
  SecondMoment,          // M̂2 with Δ2 = (2 + 4a)/N (e2 / e5 of configuration 1, 2, …)
  WhitenedSecondMoment,  // the whitened release's clipped M̂2 (docs/PRIVACY.md §11, Lemma C2)
  WhitenedTensor,        // the whitened release's T̂ given a fixed public W (Lemma C3)
};
const char* auditedReleaseName(AuditedRelease r);  // "M2", "whitened M2", "whitened T"

// The two noise-free values of a release on D and on its adversarial neighbour D′, reduced to
// the projection on their difference.
struct AuditPair {
  AuditedRelease release = AuditedRelease::SecondMoment;
  int docCount = 0, vocabSize = 0;
  int replacedDocument = 0;
  std::string replacement;   // e.g. "word 17 ×3"
  double sensitivity = 0;    // the bound the release is calibrated to
  std::string sensitivityFormula;
  double meanD = 0, meanDPrime = 0;  // ⟨v(D), u⟩, ⟨v(D′), u⟩
  double gap() const { return meanD - meanDPrime; }  // ‖v(D) − v(D′)‖₂ ≥ 0
};

// Builds D′ from D by replacing document 0 with the adversarial document of the tests: one word
// repeated (the word absent from document 0 that is rarest in the corpus for M̂2; the word with the
// largest row of W for T̂, W whitening D's clipped M̂2), and computes both values with the product's
// estimators. `clip*` are the whitened release's public bounds (ignored for SecondMoment).
struct AuditPairOptions {
  double alpha0 = 1.0;
  int topicCount = 3;
  double clipM1 = 0.5, clipM2 = 0.3;  // kDefaultClipM1, kDefaultClipM2
  double whitenedClip = 0.0;          // 0: the public default rule (whitenedClipBound)
  bool clipToRowBound = false;        // C = ρ_W of the fixed W (nothing clipped)
};
Result<AuditPair> adversarialPair(const Corpus& d, AuditedRelease release, const AuditPairOptions& options,
                                  Feedback* feedback = nullptr);

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
  double sigma = 0;       // the noise scale drawn (calibrated, or a negative control)
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
// Cancellable through `feedback` (Cancelled status); progress in [0, 1].
Result<AuditOutcome> runAudit(const AuditSettings& settings, Feedback* feedback = nullptr);

}  // namespace dplda::privacy_audit
