#include "ui/experiments/seed004_run.h"

#include <chrono>
#include <cmath>
#include <mutex>

namespace dplda {

bool isSeed004Experiment(const ExperimentPreset& p) {
  return p.kind == ExperimentKind::OnlineTpm || p.kind == ExperimentKind::DpTpm;
}

Status runSeed004Experiment(const ExperimentPreset& preset, Feedback* feedback,
                            const std::function<void(const Seed004Snapshot&)>& snapshot,
                            std::shared_ptr<const ExperimentRun>* result) {
  if (!isSeed004Experiment(preset))
    return invalidArgument("runSeed004Experiment: preset \"" + preset.name + "\" is not online-tpm or dp-tpm");
  using Clock = std::chrono::steady_clock;
  const bool online = preset.kind == ExperimentKind::OnlineTpm;
  // The live state: the points known so far (NaN until their last trial is done).
  OnlineTpmResult onlineLive;
  DpTpmResult dpLive;
  int done = 0, total = 0;
  if (online) {
    onlineLive.spec = preset.online;
    onlineLive.docCount = preset.online.corpus.docCount;
    onlineLive.points = emptyOnlineTpmPoints(preset.online, onlineLive.docCount);
    onlineLive.slopeVsN = onlineLive.slopeVsFinite = onlineLive.finiteScale = std::nan("");  // not fitted yet
    onlineLive.batchTopicErrorL2 = onlineLive.batchAlphaError = std::nan("");
    total = static_cast<int>(onlineLive.points.size());
  } else {
    dpLive.spec = preset.dp;
    dpLive.points = emptyDpTpmPoints(preset.dp);
    dpLive.cases = dpTpmCaseInfos(preset.dp);
    total = static_cast<int>(dpLive.points.size());
  }
  std::mutex mutex;
  Clock::time_point last{};
  auto publish = [&](bool force, std::shared_ptr<const ExperimentRun> run, Status st = Status::ok()) {
    if (!snapshot) return;
    const auto now = Clock::now();
    if (!force && now - last < std::chrono::milliseconds(80)) return;
    last = now;
    if (!run) {
      auto r = std::make_shared<ExperimentRun>();
      r->preset = preset;
      if (online)
        r->online = std::make_shared<const OnlineTpmResult>(onlineLive);
      else
        r->dp = std::make_shared<const DpTpmResult>(dpLive);
      run = std::move(r);
    }
    snapshot({std::move(run), done, total, std::move(st)});
  };
  publish(true, nullptr);
  Status status;
  auto finished = std::make_shared<ExperimentRun>();
  finished->preset = preset;
  if (online) {
    OnlineTpmListener l;
    l.pointDone = [&](const OnlineTpmPoint& p) {
      std::lock_guard<std::mutex> lock(mutex);
      onlineLive.points[p.batchIndex] = p;
      ++done;
      publish(false, nullptr);
    };
    auto r = runOnlineTpm(preset.online, feedback, &l);
    status = r.status();
    if (r.ok()) finished->online = std::make_shared<const OnlineTpmResult>(std::move(r).value());
  } else {
    DpTpmListener l;
    l.pointDone = [&](const DpTpmPoint& p) {
      std::lock_guard<std::mutex> lock(mutex);
      for (DpTpmPoint& q : dpLive.points)
        if (q.caseIndex == p.caseIndex && q.accountantIndex == p.accountantIndex && q.epsilonIndex == p.epsilonIndex) q = p;
      ++done;
      publish(false, nullptr);
    };
    auto r = runDpTpm(preset.dp, feedback, &l);
    status = r.status();
    if (r.ok()) finished->dp = std::make_shared<const DpTpmResult>(std::move(r).value());
  }
  finished->finished = status.isOk();
  if (status.isOk()) {
    if (result) *result = finished;
    publish(true, finished);
  } else {
    publish(true, nullptr, status);
  }
  return status;
}

}  // namespace dplda
