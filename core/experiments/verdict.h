#pragma once
// The papers' question per (case, ε) cell of a sweep that holds DP-VI and private spectral
// configurations (issue 25 §1): which side's error is lower, and whether the trials' quantile bands
// separate them, on the l2 error where the case has a truth and on the held-out perplexity where it
// is a real corpus with a public split. Only configurations that released in at least half the trials compete; the
// spectral side is its best such configuration by median error at that ε.
#include <string>
#include <vector>

#include "core/experiments/sweep.h"

namespace dplda {

struct VerdictCell {
  int caseIndex = 0, epsilonIndex = 0;
  int spectralConfig = -1;  // the best releasing spectral configuration (-1: none released)
  int dpViConfig = -1;
  // "spectral", "dp-vi" (bands disjoint), "overlap" (no verdict), or "no release" (one side released
  // in fewer than half the trials).
  std::string winner;
};

// Empty unless the sweep has a DP-VI configuration and a private spectral one; cells only for the
// cases with a truth or held-out documents.
std::vector<VerdictCell> spectralVersusDpVi(const SweepResult& r);
// The report's section ("" when there is no verdict to give).
std::string verdictMarkdown(const SweepResult& r);

}  // namespace dplda
