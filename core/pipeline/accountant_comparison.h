#pragma once
// The ε a run's releases spend under three accountants, side by side at the run's δ
// (docs/PRIVACY.md §16.4): the ledger's own (basic composition, or DP-VI's zCDP), Gaussian-DP
// (the Gaussian releases as one μ-GDP mechanism, the others added by basic composition) and the
// PLD accountant (every release composed by its privacy loss distribution). All three are upper
// bounds on the same releases; the smallest is the tightest guarantee the run can state.
#include <limits>
#include <string>
#include <vector>

#include "core/corpus/corpus_provenance.h"
#include "core/privacy/budget.h"
#include "core/vi/dp_vi.h"

namespace dplda {

struct AccountantComparison {
  bool computed = false;
  std::string ledgerAccountant = "basic";  // what `ledger` is: "basic", or DP-VI's "zcdp"
  double delta = std::numeric_limits<double>::quiet_NaN();  // the δ all three are computed at
  double ledger = std::numeric_limits<double>::quiet_NaN();
  double gaussianDp = std::numeric_limits<double>::quiet_NaN();
  double pld = std::numeric_limits<double>::quiet_NaN();
  double pldInterval = std::numeric_limits<double>::quiet_NaN();  // the PLD grid (nats): ε_pld is pessimistic by at most a few of these
  std::string note;  // why a value is missing, or what was added rather than composed
  double best() const;  // the smallest of the three computed values
};

// One release as the accountants see it.
struct AccountedRelease {
  // LowerBound: Procedure 1's scalar Laplace release (its δ is a failure probability, added);
  // Laplace: Laplace noise on several values, accounted as pure (Δ1/b)-DP.
  enum class Noise { Gaussian, Laplace, LowerBound, PartitionSelection };
  Noise noise = Noise::Gaussian;
  double ratio = 0.0;    // Gaussian, PartitionSelection: √K·Δ/σ for K queries (+∞ without noise); Laplace: Δ1/b
  double epsilon = 0.0;  // the ledger's share (basic composition)
  double delta = 0.0;
  double draws = 1.0;    // noise values drawn (the samplers' tails)
  // PartitionSelection: the part of δ that is the threshold event and the sampler reserve,
  // expressed per (1 + e^ε) (docs/PRIVACY.md §16.4).
  double perExpEpsilonDelta = 0.0;
};

// The releases of the charged rows of a spectral run's ledger.
std::vector<AccountedRelease> accountedReleases(const std::vector<LedgerEntry>& ledger);
// The private vocabulary selection as a release (its Gaussian part composed, its threshold δ added).
AccountedRelease vocabularyRelease(const VocabularySelectionRecord& selection);

// Gaussian-DP and PLD for `releases`, at δ = `delta`, beside the ledger's ε.
AccountantComparison compareAccountants(const std::vector<AccountedRelease>& releases, double ledgerEpsilon,
                                        double delta, const std::string& ledgerAccountant = "basic");

// A spectral run (its charged ledger rows, the vocabulary row included) and a DP-VI run.
AccountantComparison compareRunAccountants(const std::vector<LedgerEntry>& ledger, double epsilonSpent,
                                           double deltaSpent);
AccountantComparison compareDpViAccountants(const DpViLedger& ledger, const CorpusProvenance& provenance);

// "basic 1.2, gaussian-dp 0.93, pld 0.88 at delta 1e-05", for stdout and reports.
std::string accountantComparisonText(const AccountantComparison& c);

}  // namespace dplda
