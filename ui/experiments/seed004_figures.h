#pragma once
// The figures of the online-tpm and dp-tpm experiments (seed 004, Algorithms 2 and 3).
#include <memory>
#include <vector>

#include "ui/experiments/experiment_output.h"

namespace dplda {

// online_error_vs_n: the online method's distance to the batch eigenvectors against documents
//   per step n, with the fitted finite-corpus curve c √(1/n − 1/N) and a 1/√n reference line;
// online_topic_error_vs_n: the topic error against the truth, the batch method as a baseline;
// online_error_vs_passes: the same tensor error against the passes over the corpus.
void onlineTpmFigures(const std::shared_ptr<const OnlineTpmResult>& result, std::vector<ExperimentFigure>& out);

// One error-vs-ε figure per case group (dp_tpm_<group>, one curve per case and accountant), the
// accounting group again against the ε the noise actually spends (dp_tpm_accounting_spent), and
// for the incoherence group the recovery ε against μ0 (dp_tpm_recovery_vs_mu0).
void dpTpmFigures(const std::shared_ptr<const DpTpmResult>& result, std::vector<ExperimentFigure>& out);

}  // namespace dplda
