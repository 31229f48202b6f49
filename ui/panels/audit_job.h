#pragma once
// The Audit tab's computation (issue 14), off the GUI thread: the session's corpus (its training
// part when there is a held-out split: N of the privacy statement), the adversarial neighbour of
// core/privacy/audit.h, and the seeded draws of one release on both. Plain functions of their
// inputs, cancellable through the Feedback.
#include <QString>
#include <optional>

#include "core/common/feedback.h"
#include "core/privacy/audit.h"
#include "ui/session/session.h"

namespace dplda {

enum class AuditNeighbour {
  WorstAllowed,  // D′'s value Δ away from D's along the real pair's direction: the tight case
  RealPair,      // the real adversarial neighbour (its gap is usually below Δ)
};

struct AuditRequest {
  SessionState session;
  privacy_audit::AuditedRelease release = privacy_audit::AuditedRelease::SecondMoment;
  AuditNeighbour neighbour = AuditNeighbour::WorstAllowed;
  double epsilon = 1.0, delta = 1e-5;  // claimed for this release
  int draws = 200000;                  // per side
  double confidence = 0.95;
  bool halfNoise = false;              // negative control: σ/2
  std::uint64_t seed = 1;
  std::optional<privacy_audit::AuditPair> cachedPair;  // reused when its key matches
};

struct AuditJobResult {
  Status status;
  QString pairKey;  // corpus, split, release and its public parameters
  privacy_audit::AuditPair pair;
  double epsilon = 0, delta = 0;  // claimed
  double sigma = 0, calibratedSigma = 0;
  double meanD = 0, meanDPrime = 0;  // as drawn (WorstAllowed moves D′)
  privacy_audit::AuditOutcome outcome;
};

// The key of the neighbouring pair a request needs.
QString auditPairKey(const AuditRequest& r);
// The session's training corpus, loaded as a run loads it (generator, UCI folder, plain text).
Result<Corpus> loadAuditCorpus(const SessionState& s, Feedback* fb);
AuditJobResult runAuditJob(const AuditRequest& request, Feedback* fb);

}  // namespace dplda
