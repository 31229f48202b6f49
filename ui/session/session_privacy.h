#pragma once
// The session's privacy options as core sees them (one PrivacyOptions for the run, the sweep,
// the statement and the validation), and the session-file section of the options added with
// the whitened release and the accountant (issue 13). Kept apart from session.cpp.
#include <QJsonObject>
#include <QMap>
#include <QString>

#include "core/common/status.h"
#include "core/pipeline/private_run.h"
#include "core/pipeline/privacy_statement.h"
#include "ui/session/session.h"

namespace dplda {

// The private run of the session: edges, budget, mechanism, bounds, split, accountant and e6's
// release (noise on T̂, the private decomposition or the whitened release with its clipping).
PrivacyOptions privacyOptionsOf(const SessionState& s);
// The moment clipping of the session's spectral pipeline (SpectralOptions::clip, docs/PRIVACY.md
// §12): C1, C2, C3 when "clip documents" is on for noisy edges other than the whitened release,
// which clips its own terms; off otherwise.
MomentClip momentClipOf(const SessionState& s);
// What the session's configuration may claim (privacyStatement's inputs), N = docCount.
StatementInputs sessionStatementInputs(const SessionState& s, int docCount);

// "noise", "decomposition", "whitened" (the session file's privacy.e6) and the label shown.
const char* tensorReleaseName(SessionState::TensorRelease r);
QString tensorReleaseLabel(SessionState::TensorRelease r);

// validatePrivacyOptions' messages, by field: "clip_m1", "clip_m2", "clip_whitened", "clip_m3"
// (each bound checked on its own, so that the message names the right field), then
// "clip_documents" (moment clipping does not fit the mechanism, bounds or edges), "e6" (the
// whitened release or the private decomposition does not fit them) and "accountant". Spectral
// model with noisy edges only; adds nothing for fields already in `e`.
void addPrivacyOptionProblems(const SessionState& s, QMap<QString, QString>& e);

// privacy.accountant, privacy.e6, privacy.whitened {clip_m1, clip_m2, clip_whitened,
// clip_to_row_bound} and privacy.moment_clip {enabled, clip_m3} (its C1, C2 are the whitened
// section's). Files written before them load with the defaults (basic, noise on T̂, no clipping).
void writePrivacyOptionsJson(const SessionState& s, QJsonObject& privacy);
Status readPrivacyOptionsJson(const QJsonObject& privacy, SessionState& s);

}  // namespace dplda
