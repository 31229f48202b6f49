#pragma once
// JSON shapes shared by the command line (and later the app's exports).
#include <Eigen/Dense>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <string>
#include <vector>

#include "core/common/safe_file.h"
#include "core/corpus/corpus.h"
#include "core/eval/metrics.h"
#include "core/pipeline/accountant_comparison.h"
#include "core/pipeline/spectral_pipeline.h"

namespace dplda::cli {

QJsonArray toJson(const Eigen::VectorXd& v);
QJsonArray columnsToJson(const Eigen::MatrixXd& m);  // one array per column
// The corpus block of run outputs: N (`docs`), d, the vocabulary's provenance (docs/PRIVACY.md §13)
// and, with `withStatistics` (not under --release-only), the counts of short documents.
QJsonObject corpusSummaryJson(const Corpus& corpus, int docs, bool withStatistics);
using dplda::topIndices;  // core/eval/metrics.h, shared with the app's topics table
QJsonArray topWords(const Corpus& corpus, const Eigen::MatrixXd& topics, int n);
QJsonObject timingsToJson(const std::vector<StageTiming>& timings);
// privacy.accountants: ε of the releases under the ledger's accountant, Gaussian-DP and PLD at one δ
// (docs/PRIVACY.md §16.4); a value not computed is the string "not computed", +∞ is "infinite".
QJsonObject accountantComparisonToJson(const AccountantComparison& c);
// Written atomically, never over one of rules.inputs (core/common/safe_file.h).
Status writeJsonFile(const std::string& path, const QJsonObject& object, const OutputRules& rules);

}  // namespace dplda::cli
