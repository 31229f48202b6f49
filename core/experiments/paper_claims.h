#pragma once
// The claims of seed 002's Figures 2 and 3, checked one by one against a sweep's measurements,
// for report.md and the README: which the tool reproduces, under which bound set, and which it
// does not (with the release rates and the reason runs released nothing). Verdicts come from the
// sweep's medians, never from hard-coded expectations.
#include <string>
#include <vector>

#include "core/experiments/sweep.h"

namespace dplda {

enum class ClaimVerdict { Reproduced, Partly, NotReproduced, CannotCheck };
const char* claimVerdictName(ClaimVerdict v);  // "reproduced", "partly", "not reproduced", "cannot be checked"

struct PaperClaimCheck {
  std::string caseLabel;
  std::string claim;     // the paper's words, shortened
  std::string measured;  // the numbers behind the verdict
  ClaimVerdict verdict = ClaimVerdict::CannotCheck;
};

// The checks that apply to this sweep: the figure-2 claims (error vs the truth, or utility loss)
// when the sweep has no held-out evaluation, the figure-3 claims (held-out perplexity) when it
// has. A claim about DP-VI or VI needs those configurations in the sweep. Empty when the sweep
// has no configuration the paper compares (e.g. a custom edge set only).
std::vector<PaperClaimCheck> checkPaperClaims(const SweepResult& result);

// "## The paper's claims, point by point" with one table row per check, the bound set named.
std::string paperClaimsMarkdown(const SweepResult& result);

}  // namespace dplda
