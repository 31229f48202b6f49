#pragma once
// The privacy budget: which releases an edge set needs (including Procedure 1's), how a total
// (ε, δ) is split over them, and the ledger that records each release (SPEC §11).
#include <limits>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/graph/computation_graph.h"
#include "core/privacy/mechanisms.h"
#include "core/privacy/sensitivity.h"

namespace dplda {

// How a run's releases compose. Basic: (ε_i, δ_i) add up. GaussianDp: the node releases
// (analytic Gaussian) compose exactly as one Gaussian mechanism, μ² = Σ (Δ_i/σ_i)², converted to
// (ε, δ) by the analytic formula; Procedure 1's Laplace releases add on top (docs/PRIVACY.md §4.1).
enum class Accountant { Basic, GaussianDp };
const char* accountantName(Accountant a);  // "basic" | "gdp"
Result<Accountant> parseAccountant(const std::string& text);

enum class ReleaseKind { SigmaK, Eigengap, GammaS, Node };

struct PlannedRelease {
  ReleaseKind kind = ReleaseKind::Node;
  Node node = Node::D;    // the released node (for Node releases)
  std::vector<int> edges; // the noisy edges that use it
  std::string name;       // e.g. "M2 -> W, W+ (e2, e5, shared)", "sigma_k lower bound (Procedure 1)"
};

// Whether releasing `node` needs σ̃_k (a local bound) and γ̃_s.
bool needsSigmaK(Node node);
bool needsGammaS(Node node);

// Every release of the set, Procedure 1's first (σ_k, the eigengap g with the sound bounds,
// then γ_s), then node releases in edge order.
std::vector<PlannedRelease> planReleases(EdgeSet noisy, bool shareReleases, BoundSet bounds);

// Splits (ε, δ) over n releases: uniformly, or in proportion to weights (one per release,
// finite, > 0). Basic composition: the parts sum to the total.
struct BudgetShare {
  double epsilon;
  double delta;
};
Result<std::vector<BudgetShare>> splitBudget(double epsilon, double delta, int releases,
                                             const std::vector<double>& weights);
// Parses "uniform" (empty weights) or "w1,w2,...".
Result<std::vector<double>> parseSplit(const std::string& text);

struct LedgerEntry {
  std::string release;         // PlannedRelease::name
  std::string node;            // "M2", "T", "sigma_k", "gamma_s", ...
  std::vector<int> edges;
  std::string mechanism;       // mechanismName or "laplace (Procedure 1)"
  double sensitivity = 0.0;    // NaN when it could not be evaluated
  std::string sensitivityFormula;
  std::string bounds;          // "sound" | "printed"
  double epsilon = 0.0;
  double delta = 0.0;
  double sigma = 0.0;          // Gaussian standard deviation or Laplace scale; NaN if not calibrated
  std::vector<Precondition> preconditions;
  bool spent = false;          // its budget is charged (a draw happened)
  std::string note;
  double draws = 1.0;          // noise values the release draws
  // δ the samplers' truncated tails add beyond δ_i for the noise actually drawn (0 where the
  // Gaussian calibration reserved it inside δ_i; docs/PRIVACY.md §7).
  double samplerExcess = 0.0;
  bool samplerLimited = false;  // ε_i too large for the sampler: (ε_i, δ_i) does not hold as drawn
  double mu = std::numeric_limits<double>::quiet_NaN();  // Δ_i/σ_i under the gaussian-dp accountant
  long long queries = 1;  // Gaussian queries of sensitivity Δ and noise σ the row makes (the private decomposition: K)
  // Laplace noise on an l1 sensitivity: pure epsilon_i-DP, delta_i = 0 (docs/PRIVACY.md §18).
  bool pureEpsilon = false;
};

}  // namespace dplda
