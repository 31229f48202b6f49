#pragma once
// The parts of a session's run that are not the spectral pipeline (issue 10): the variational
// models (VI, and DP-VI with its zCDP ledger, docs/PRIVACY.md §10) and the held-out perplexity of
// every fitted model on the session's public split. Called on the worker thread by
// RunWorker::process; plain functions of their inputs, cancellable through the Feedback.
#include <QString>
#include <functional>
#include <optional>

#include "core/common/feedback.h"
#include "core/corpus/corpus.h"
#include "core/eval/perplexity.h"
#include "core/pipeline/accountant_comparison.h"
#include "core/vi/dp_vi.h"
#include "core/vi/variational_lda.h"
#include "ui/session/session.h"

namespace dplda {

struct RunOutcome;

// A VI or DP-VI fit on the training part.
struct VariationalOutcome {
  SessionState::Model model = SessionState::Model::Vi;
  ViFit fit;                        // fit.model is the released (DP-VI) or fitted (VI) model
  std::optional<DpViLedger> ledger; // DP-VI only
  AccountantComparison accounts;    // DP-VI: its releases under zCDP, Gaussian-DP and PLD (docs/PRIVACY.md §16)
  long long clippedVisits = 0;      // DP-VI: data-dependent, a non-private diagnostic, never released
};

// The held-out perplexity of one model, or why it was not computed.
struct HeldOutScore {
  std::optional<PerplexityResult> result;
  QString failure;
  bool has() const { return result.has_value(); }
};

// The seed of the held-out documents' observed/scored halves: the command line's
// (deriveSeed(split seed, 1)), so the app and `dplda run --holdout F --holdout-seed S` agree.
std::uint64_t perplexitySeedFor(const SessionState& s);

// The coherence of the run's models on the training documents (RunOutcome::coherence and
// baselineCoherence; a non-private diagnostic): the VI fit or the released spectral output, and
// the non-private spectral model.
void scoreCoherence(const Corpus& train, RunOutcome& out);

// Document-completion perplexity of `model` on `test` (post-processing of the model).
HeldOutScore scoreHeldOut(const LdaModel& model, const Corpus& test, std::uint64_t seed, Feedback* fb);

// Fits the session's VI or DP-VI model on `train` (N public = its size), compares it with the
// truth and scores it (and the truth) on `test` when there is one, filling out.variational,
// out.error, out.perplexity and out.truthPerplexity. `stage` names each step for the progress
// bar. A non-ok status (invalid options for this corpus, DP-VI's calibration refused, cancelled)
// is the run's.
Status runVariationalModel(const SessionState& s, const Corpus& train, const Corpus* test, Feedback* fb,
                           const std::function<void(const QString&)>& stage, RunOutcome& out);

// The held-out perplexity of a spectral run's outputs: the released model (when released), the
// non-private model (teaching) and the truth, filling out.perplexity, out.baselinePerplexity and
// out.truthPerplexity.
void scoreSpectralRun(const SessionState& s, const Corpus& test, Feedback* fb, RunOutcome& out);

}  // namespace dplda
