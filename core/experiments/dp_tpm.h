#pragma once
// The dp-tpm experiment (issue 12, seed 004 §4): recovery error of the private robust tensor
// power method (Algorithm 3) on synthetic low-rank symmetric tensors T = Σ λ_i v_i⊗v_i⊗v_i
// with orthonormal v_i, for the seed's entry-level neighbours (Definition 4.2), against ε for the
// three accountings and against the incoherence μ0 = (d/k) max_i ‖Vᵀe_i‖² (Assumption 4.1).
//
// The basis of a case mixes a flat one and a spiky one: V = orth(√(1−ρ) F + √ρ E), F the DCT-II
// vectors 1..k (‖Vᵀe_i‖² ≤ 2k/d: μ0 ≤ 2) and E standard basis vectors spread over the
// coordinates (μ0 = d/k, the largest possible). ρ = 0 is incoherent, ρ = 1 fully coherent.
// λ_i falls linearly from `signal` to signal/2 (λ1 − λ2 > 0, as Theorem 4.2 asks).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/tensor/private_power_method.h"

namespace dplda {

struct DpTpmCase {
  std::string group;  // which figure it belongs to, e.g. "accounting", "dimension", "incoherence"
  std::string label;  // its series, e.g. "d = 100, incoherent"
  int d = 100, k = 5;
  double coherence = 0.0;  // ρ in [0, 1]
  std::vector<TpmAccountant> accountants = {TpmAccountant::GaussianExact};
  std::vector<double> epsilons;
};

struct DpTpmSpec {
  std::vector<DpTpmCase> cases;
  double delta = 1e-5;
  double signal = 1000.0;  // λ1 in entry units (a neighbour moves one entry by 1, a diagonal one by 6)
  int restarts = 0;        // L, 0 = max(10, 2⌈k ln k⌉)
  int iterations = 30;     // R
  int trials = 5;
  double successThreshold = 0.25;  // a top-eigenvector error below it counts as recovered (report)
  std::uint64_t seed = 1;
  int threads = 0;  // 0: all cores
};
Status validateDpTpmSpec(const DpTpmSpec& spec);

// The basis of a case: d x k orthonormal columns, and its μ0.
Eigen::MatrixXd dpTpmBasis(int d, int k, double coherence);
double incoherence(const Eigen::MatrixXd& V);  // μ0 = (d/k) max_i ‖Vᵀe_i‖²

struct DpTpmRow {
  int caseIndex = 0, accountantIndex = 0, epsilonIndex = 0, trial = 0;
  double epsilon = 0.0;
  double topError = 0.0;     // min_s ‖s v̂_1 − v_1‖: the first eigenvector (Theorem 4.2)
  double meanError = 0.0;    // mean over components, matched (Hungarian), sign-aligned
  double lambdaError = 0.0;  // |λ̂_1 − λ_1| / λ_1
  double elapsedMs = 0.0;
};

struct DpTpmPoint {
  int caseIndex = 0, accountantIndex = 0, epsilonIndex = 0;
  double epsilon = 0.0;
  double mu0 = 0.0;
  double multiplier = 0.0;  // m of the accountant at this ε
  // What that noise spends, both proven ways and by zCDP (at δ minus the samplers' reserve).
  double epsilonGaussian = 0.0, epsilonAdvanced = 0.0, epsilonZcdp = 0.0;
  long long queries = 0;
  int trials = 0;
  double topMedian = 0.0, topLower = 0.0, topUpper = 0.0;  // median, 10% and 90% quantiles
  double meanMedian = 0.0, meanLower = 0.0, meanUpper = 0.0;
  double lambdaMedian = 0.0;
  int recovered = 0;  // trials with topError < successThreshold
};

struct DpTpmCaseInfo {
  double mu0 = 0.0;
  int restarts = 0;
};

// μ0 and L of every case (what runDpTpm reports in DpTpmResult::cases, before any trial).
std::vector<DpTpmCaseInfo> dpTpmCaseInfos(const DpTpmSpec& spec);

struct DpTpmResult {
  DpTpmSpec spec;
  std::vector<DpTpmCaseInfo> cases;
  std::vector<DpTpmRow> rows;      // ordered case, accountant, ε, trial
  std::vector<DpTpmPoint> points;  // ordered case, accountant, ε
  int threadsUsed = 1;
  double elapsedMs = 0.0;
  const DpTpmPoint& point(int caseIndex, int accountantIndex, int epsilonIndex) const;
};

// Points before any trial has run (NaN medians), for live plots.
std::vector<DpTpmPoint> emptyDpTpmPoints(const DpTpmSpec& spec);

struct DpTpmListener {
  std::function<void(const DpTpmPoint& point)> pointDone;  // worker threads, never two at once
};

// Seeds: the starts and the standard normals of (case, trial) are shared by every accountant and
// ε (the noise is those normals times σ), so the curves use common random numbers and the result
// does not depend on the thread count.
Result<DpTpmResult> runDpTpm(const DpTpmSpec& spec, Feedback* feedback = nullptr,
                             const DpTpmListener* listener = nullptr);

std::string dpTpmResultsCsv(const DpTpmResult& result);  // one row per trial
std::string dpTpmSummaryCsv(const DpTpmResult& result);  // one row per point
// The ε from which a series recovers the first eigenvector: where its median top error falls
// through successThreshold for good (interpolated in log ε between the two grid points around the
// crossing; the first grid ε when every point is below; NaN when the last one is not).
double dpTpmRecoveryEpsilon(const DpTpmResult& result, int caseIndex, int accountantIndex);

}  // namespace dplda
