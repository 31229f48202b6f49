#pragma once
// Texts the main window shows about a run: the status bar's one-line summary of a finished run
// (spectral or variational, with its held-out perplexity) and the graph canvas's notice when the
// session's model is not the spectral pipeline the graph draws.
#include <QString>

#include "core/experiments/sweep.h"
#include "ui/session/session.h"

namespace dplda {

struct RunOutcome;
struct HeldOutScore;

// E.g. "Run 3 (config 1): 3000 docs, ℓ₂ error 0.02 (non-private 0.01), held-out perplexity 25.1
// in 120 ms; sweeping ε…" (spectral runs end with "; sweeping ε…": their sweep follows), or
// "Run 4 (DP-VI, proven): …". A run that released nothing says why.
QString runSummaryText(const RunOutcome& o);
// For a spectral run that released nothing: what the session's ε sweep says, e.g. " In this
// session's ε sweep this configuration releases from ε ≈ 2.2." ("" otherwise).
QString releaseHint(const RunOutcome& o, const SweepReading& sweep);
// True when the summary reports a run that released nothing (shown as an error).
bool runSummaryIsError(const RunOutcome& o);

// The run's noise source and privacy claim name for plot metadata ("" when it has none).
QString runNoiseSource(const RunOutcome& o);
QString runClaimName(const RunOutcome& o);

// "perplexity 25.1" of a held-out score, "perplexity not computed: …", or "" without one.
QString perplexityShort(const HeldOutScore* score);

// The canvas notice for a variational session ("" for the spectral model).
QString graphNoticeFor(const SessionState& s);

// The public N of a session's fit: the documents of the training part of a corpus of `docCount`
// documents (all of them without held-out evaluation).
int trainingDocCount(const SessionState& s, int docCount);

}  // namespace dplda
