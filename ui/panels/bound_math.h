#pragma once
// The inspector's mathematics: a node's sensitivity bound as rich text (Greek letters, sub- and
// superscripts), the same formula with the session's numbers plugged in and its value, the
// source in a small details line, and for W, W⁺, T, TD and U the three forms of the bound side
// by side (boundComparisons, docs/PRIVACY.md §3.6). Values come from core; this only writes them.
#include <QString>

#include "core/graph/computation_graph.h"
#include "core/pipeline/private_run.h"
#include "core/privacy/sensitivity.h"

namespace dplda {

struct BoundMath {
  QString formula;    // e.g. "Δ<sub>W</sub> = ρ/√σ̃<sub>k</sub> + …" (rich text)
  QString where;      // the constants it uses ("a = α<sub>0</sub>/(α<sub>0</sub> + 1)"), or ""
  QString plugged;    // "= 0.0012/√0.05 + …" with the numbers, or "" when an input is missing
  QString missing;    // what a local bound still needs (e.g. "σ̃_k, g̃ of a run"), or ""
  double value = 0.0;  // the bound (NaN when it cannot be evaluated)
  QString reference;  // where it is derived, for the details line
};

// The bound for releasing `node` under `bounds`; with `whitened` (enabled), M2 and T get the
// whitened release's clipped bounds (docs/PRIVACY.md §11).
BoundMath boundMath(Node node, const SensitivityInputs& in, BoundSet bounds, const WhitenedRelease& whitened = {});
// The block shown in the inspector: formula, plugged-in numbers = value, details line. A
// `value` given (a run's ledger) replaces the computed one.
QString boundMathHtml(const BoundMath& m, double ledgerValue = std::numeric_limits<double>::quiet_NaN());
// The printed / per-column sound / current sound table for W, W⁺, T, TD, U ("" for the others).
QString boundComparisonHtml(Node node, const SensitivityInputs& in);

}  // namespace dplda
