#pragma once
// The Audit tab's computation (issue 14; issue 23 §3), off the GUI thread: the session's corpus
// (its training part when there is a held-out split: N of the privacy statement), the adversarial
// neighbour, and the seeded draws of one release on both, drawn exactly as the session's run draws
// it (core/pipeline/release_audit.h: the run's ledger row and noise code). Plain functions of
// their inputs, cancellable through the Feedback.
#include <QString>
#include <optional>

#include "core/common/feedback.h"
#include "core/pipeline/release_audit.h"
#include "core/privacy/audit.h"
#include "ui/session/session.h"

namespace dplda {

enum class AuditNeighbour {
  WorstAllowed,  // D′'s value Δ away from D's along the real pair's direction: the tight case
  RealPair,      // the real adversarial neighbour (its gap is usually below Δ)
};

// The negative control's mis-calibration, injected into the run's own path (PrivacyOptions::
// noiseMultiplier, the run's test hook): every σ of the run times this. A quarter, so that a
// release holding half the budget (two releases, basic composition) still breaks the claim.
inline constexpr double kAuditControlNoiseMultiplier = 0.25;

struct AuditRequest {
  SessionState session;
  privacy_audit::AuditedRelease release = privacy_audit::AuditedRelease::SecondMoment;
  AuditNeighbour neighbour = AuditNeighbour::WorstAllowed;
  double epsilon = 1.0, delta = 1e-5;  // the run's total budget: the claim every release must meet
  int draws = 200000;                  // per side
  double confidence = 0.95;
  bool noiseControl = false;           // negative control: the run's noise × kAuditControlNoiseMultiplier
  std::uint64_t seed = 1;
  std::optional<ReleaseAudit> cached;  // reused when its key matches
};

struct AuditJobResult {
  Status status;
  QString key;  // corpus, split, release and every option the run's calibration reads
  ReleaseAudit audit;               // the row, the values, the calibrated run
  privacy_audit::AuditPair pair;    // = audit.pair
  double epsilon = 0, delta = 0;    // claimed (the run's total)
  double sigma = 0;                 // the row's σ as drawn
  double noiseMultiplier = 1.0;     // the run's (the control's < 1)
  double meanD = 0, meanDPrime = 0;  // as drawn (WorstAllowed moves D′)
  privacy_audit::AuditOutcome outcome;
};

// The run the request audits: the session's privacy options with the request's budget and control.
PrivacyOptions auditedRunOptions(const AuditRequest& r);
// The key of the prepared audit a request needs.
QString auditKey(const AuditRequest& r);
// The session's training corpus, loaded as a run loads it (generator, UCI folder, plain text).
Result<Corpus> loadAuditCorpus(const SessionState& s, Feedback* fb);
AuditJobResult runAuditJob(const AuditRequest& request, Feedback* fb);

}  // namespace dplda
