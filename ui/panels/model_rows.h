#pragma once
// What the results panel shows of the issue-10 parts of a run: the diagnostics rows of a VI or
// DP-VI fit and of the held-out evaluation, DP-VI's ledger row and note, and the headline
// perplexity shown beside the results tabs (for a corpus without truth it is the only quality
// number). The estimator and smoothing are labelled with the command line's texts.
#include <QString>
#include <QVector>

#include "core/pipeline/accountant_comparison.h"

class QTableWidget;

namespace dplda {

struct RunOutcome;

struct DiagnosticRow {
  QString name, value, meaning;
  bool header = false;  // a section header spanning the table
};

// The released part and the teaching part of a VI / DP-VI run (empty for a spectral run).
QVector<DiagnosticRow> variationalRows(const RunOutcome& o);
// The held-out evaluation section (empty without a split): the split, each model's perplexity
// and ELBO bound, the estimator and the smoothing, and that evaluation is post-processing.
QVector<DiagnosticRow> heldOutRows(const RunOutcome& o);

// DP-VI's ledger: one row in the ledger table's columns (release, node, mechanism, sensitivity,
// ε, δ, σ, spent, preconditions) and the note under it (claim, accountant zCDP, T, C, σ, ρ, ε, δ).
void fillDpViLedger(QTableWidget* table, const RunOutcome& o);
QString dpViLedgerNote(const RunOutcome& o);
// "The same releases at δ = …: basic ε …, Gaussian-DP ε …, PLD ε …" (docs/PRIVACY.md §16): the
// accountant box's choice calibrates the noise; this line shows what each accountant certifies for it.
QString accountantComparisonNote(const AccountantComparison& c);

// E.g. "Held-out perplexity 25.31 (truth 24.9)" ("" without a split) and its tooltip.
QString perplexityHeadline(const RunOutcome& o);
QString perplexityHeadlineTip(const RunOutcome& o);

}  // namespace dplda
