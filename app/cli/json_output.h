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
#include "core/pipeline/private_run.h"
#include "core/pipeline/spectral_pipeline.h"
#include "core/vi/dp_vi.h"

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
// A value a refused release never computed (its scale, its sensitivity): "not computed", never
// NaN or null (issue 28 §6).
QJsonValue numberOrNotComputed(double x);
QJsonArray strings(const std::vector<std::string>& v);
QJsonArray preconditionsToJson(const std::vector<Precondition>& pre);
// The "privacy" block of a spectral run (`dplda run --json`, and the app's model files): the
// statement, the edges, the ledger row by row, the totals and the accountants compared.
QJsonObject privacyToJson(const PrivacyOptions& o, const PrivateRunResult& r);
// The "privacy" block of a DP-VI fit (`dplda run --model dp-vi --json`, and the app's model files).
QJsonObject dpViPrivacyToJson(const DpViLedger& L, double epsilonTotal, double deltaTotal,
                              const AccountantComparison& accounts);
// Written atomically, never over one of rules.inputs (core/common/safe_file.h).
Status writeJsonFile(const std::string& path, const QJsonObject& object, const OutputRules& rules);

}  // namespace dplda::cli
