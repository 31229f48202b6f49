#pragma once
// The theory beside a run's measurement in the inspector (issue 25 §4; docs/EXPERIMENTS.md §3):
// the seeds' rate for the run's configuration and, where it applies, what that rate says about
// the same run on more documents. The theorems' constants are unknown, so no number is predicted
// at the run's own N.
#include <QString>

namespace dplda {

struct RunOutcome;

// Rich text (no enclosing paragraph) for the OUT / U node, built on the utility loss, a non-private
// diagnostic: "" when the run released nothing or has no utility loss.
QString theoryHtml(const RunOutcome& outcome);

}  // namespace dplda
