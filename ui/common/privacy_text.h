#pragma once
// How the app words a privacy statement (core/pipeline/privacy_statement.h): the canvas
// banner, the budget bar's indicator and their colours. "Private" (green, ✓) is said only of
// PrivacyClaim::Proven; the other cuts get a caution colour and say what they are not.
#include <QColor>
#include <QString>
#include <QStringList>
#include <string>

#include "core/graph/computation_graph.h"
#include "core/pipeline/privacy_statement.h"

namespace dplda {

// Core's ASCII sentences with the symbols the app uses elsewhere: ε, δ, σ_k, γ_s, ≥, ≤.
QString readablePrivacyText(const std::string& text);

// The banner's headline for the statement of `edges`, e.g. "✓ Private — …",
// "⚠ Cut, printed bounds — reproduces the papers; not a guarantee (e2, e3, e5)",
// "⚠ Cut, not covered by a proven bound: T …", "✗ Not private — leaking path: D → …".
// `whitened`: the edges are released by the whitened release (docs/PRIVACY.md §11), which the
// proven headline names. `clip` (enabled): the papers' configuration on clipped documents
// (docs/PRIVACY.md §12); a cut's headline names the clipping and its public bounds.
QString privacyHeadline(const PrivacyStatement& statement, const PrivacyDecision& decision, EdgeSet edges,
                        bool whitened = false, const MomentClip& clip = {});
// Whether a statement is the whitened release's (core names the mechanism in its summary).
bool isWhitenedStatement(const PrivacyStatement& statement);
// The statement's cautions (δ ≥ 1/N, a very large ε), each prefixed with ⚠.
QStringList privacyCautions(const PrivacyStatement& statement);
// A few words for the budget bar: "✔ private", "⚠ cut, printed bounds", "✘ NOT private", ….
QString privacyShortLabel(const PrivacyStatement& statement, EdgeSet edges);

// Background and text colour of a claim: green for Proven only, the caution yellow for the
// other cuts, vermillion for NotPrivate.
QColor privacyClaimColor(PrivacyClaim claim);
QColor privacyClaimTextColor(PrivacyClaim claim);

}  // namespace dplda
