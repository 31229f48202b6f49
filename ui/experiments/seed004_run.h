#pragma once
// Running the online-tpm and dp-tpm presets with live snapshots, for the app's Sweeps tab and
// `dplda sweep` alike (the shapes of RunWorker::runLive for the other kinds).
#include <functional>
#include <memory>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "ui/experiments/experiment_output.h"

namespace dplda {

struct Seed004Snapshot {
  std::shared_ptr<const ExperimentRun> run;  // finished = true only in the last snapshot of a success
  int pointsDone = 0, pointsTotal = 0;
  Status status;  // ok, except in the last snapshot of a failed or cancelled run
};

// True for the kinds runSeed004Experiment handles (OnlineTpm, DpTpm).
bool isSeed004Experiment(const ExperimentPreset& preset);

// Runs the preset. `snapshot` (optional) receives the live state: once before the first point,
// then at most every 80 ms while points complete (from worker threads, never two at once), and
// once at the end (the finished run on success, what was known otherwise). Returns the run's
// status; on success `result` (optional) holds the finished run.
Status runSeed004Experiment(const ExperimentPreset& preset, Feedback* feedback,
                            const std::function<void(const Seed004Snapshot&)>& snapshot = {},
                            std::shared_ptr<const ExperimentRun>* result = nullptr);

}  // namespace dplda
