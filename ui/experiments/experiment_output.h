#pragma once
// What an experiment shows and writes, shared by the app's results dock and `dplda sweep`:
// its figures (each able to make its plot and to fill it from a result that may still be
// running) and its output folder (tables, figures in each format with their data, report.md).
#include <QJsonObject>
#include <QSize>
#include <QString>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/common/safe_file.h"
#include "core/common/status.h"
#include "core/experiments/dp_tpm.h"
#include "core/experiments/online_tpm.h"
#include "core/experiments/presets.h"
#include "core/experiments/report.h"
#include "core/experiments/sweep.h"
#include "core/experiments/tpm_noise.h"
#include "ui/plots/plot_widget.h"

namespace dplda {

// A finished or running experiment. A running sweep has its cases and the summary rows done so
// far (the others as in emptySummary()); rows stay empty until it finishes.
struct ExperimentRun {
  ExperimentPreset preset;                    // name, title, description, kind; its spec is what ran
  std::shared_ptr<const SweepResult> sweep;   // ErrorSweep and Diagnostics
  std::shared_ptr<const TpmNoiseResult> tpm;  // TpmNoise
  std::shared_ptr<const OnlineTpmResult> online;  // OnlineTpm
  std::shared_ptr<const DpTpmResult> dp;          // DpTpm
  bool finished = false;
};

struct ExperimentFigure {
  QString key;      // file base name, e.g. "error_l2" or "release_rate_alpha0_0.1"
  QString title;    // drawn on the plot
  QString heading;  // in report.md and the app's list of figures
  std::function<std::unique_ptr<PlotWidget>()> create;
  // Clears `plot` (one made by create) and draws the result into it. False with a message when
  // the data cannot be drawn.
  std::function<bool(PlotWidget& plot, QString* error)> fill;
  const QMetaObject* plotType = nullptr;  // the class create() makes
  bool errorCurves = false;  // an ErrorVsEpsilonPlot with one curve per configuration (pinnable)
};

// The figures of a run (empty before a sweep's cases are prepared).
std::vector<ExperimentFigure> experimentFigures(const ExperimentRun& run);

// Metadata written beside every exported figure (experiment, software version, seeds, bounds).
QJsonObject experimentMetadata(const ExperimentRun& run);

// Writes DIR/results.csv, DIR/summary.csv (and timings.csv for sweeps), DIR/figures/<key>.<fmt>
// for each format plus the figure's data as CSV, and DIR/report.md. `context` supplies the title,
// command line and seed note; its figures and notes are filled in here. Figures need a
// QApplication. Returns the report's path; a figure that cannot be written is a note in the
// report (and in `warnings`), a table or report that cannot be written is an error. `page` is
// the figures' size in 1/96 in (PlotWidget::pageSizeFromText); empty: 7.5 × 5 in, PNG at 192 dpi.
// Every file is written atomically; `rules` (core/common/safe_file.h) name the inputs never
// written over and whether an earlier experiment in DIR may be replaced (checked before anything
// is written).
Result<std::filesystem::path> writeExperimentFolder(const ExperimentRun& run, const std::filesystem::path& dir,
                                                    const std::vector<ExportFormat>& formats,
                                                    ReportContext context,
                                                    std::vector<std::string>* warnings = nullptr,
                                                    QSize page = QSize(), const OutputRules& rules = {});

// What writeExperimentFolder writes into DIR (files and the figures folder).
std::vector<std::string> experimentFolderEntries();

}  // namespace dplda
