#pragma once
// The claims of seed 002's experiments (Figures 2, 3 and 4, the alpha0 and corpus-size comparisons
// of its Section 7), checked one by one against a sweep's measurements, for report.md and the
// README: which the tool reproduces, under which bound set, and which it does not (with the
// release rates and the reason runs released nothing). Verdicts come from the sweep's medians,
// never from hard-coded expectations. A check comes out "reproduced", "not reproduced", or "not
// checked" with the reason in `measured` (the sweep lacks the data, or nothing released).
#include <string>
#include <vector>

#include "core/experiments/sweep.h"

namespace dplda {

enum class ClaimVerdict { Reproduced, NotReproduced, CannotCheck };
const char* claimVerdictName(ClaimVerdict v);  // "reproduced", "not reproduced", "not checked"

struct PaperClaimCheck {
  std::string caseLabel;
  std::string claim;     // the paper's words, shortened
  std::string measured;  // the numbers behind the verdict
  ClaimVerdict verdict = ClaimVerdict::CannotCheck;
};

// The checks that apply to this sweep, by the preset it ran (spec.name): figure4 gets the Figure-4
// claims (the private lower bounds' gaps vs k) and nothing else; error-vs-n the corpus-size claims;
// every other sweep the figure-2 claims (error vs the truth, or utility loss) without held-out
// evaluation, the figure-3 claims (held-out perplexity) with it, plus the alpha0 claims when its
// cases differ only in alpha0 (figure2-alpha) and the corpus-size claims when they differ only in
// N (headline). An ordering claim ("a beats b") is reproduced when the ordering holds at every ε
// where both configurations released. A claim about DP-VI or VI needs those configurations in the
// sweep. Empty when the sweep has no configuration the paper compares (e.g. a custom edge set only).
std::vector<PaperClaimCheck> checkPaperClaims(const SweepResult& result);

// "## The paper's claims, point by point" with one table row per check, the bound set named.
std::string paperClaimsMarkdown(const SweepResult& result);
// The same section for any list of checks, after `intro` (what was measured, how verdicts are
// reached); "" when `checks` is empty.
std::string claimsMarkdown(const std::vector<PaperClaimCheck>& checks, const std::string& intro);

}  // namespace dplda
