#pragma once
// report.md for an experiment: parameters, seeds, software version, noise source, bound set,
// release rates, result tables and the figures (relative links). Plain text, no Qt.
#include <sstream>
#include <string>
#include <vector>

#include "core/experiments/sweep.h"
#include "core/experiments/tpm_noise.h"

namespace dplda {

struct ReportFigure {
  std::string title;
  std::vector<std::string> files;  // paths relative to the report; the first .png is embedded
};

struct ReportContext {
  std::string title;
  std::string description;
  std::string commandLine;  // how the experiment was run
  std::string seedNote;     // e.g. "all seeds derived from --seed 1"
  std::vector<ReportFigure> figures;
  std::vector<std::string> notes;  // extra remarks (e.g. figures that could not be rendered)
  bool procedureOneTable = false;  // add σ_k, σ̃_k, γ_s, γ̃_s per case (Figure 4)
  bool errorVsN = false;           // add the slopes of error vs N beside the theory (error_vs_n.h)
};

// The sections every report.md shares: title, description, software and command; the figures
// (the PNG embedded, every format linked) and the notes.
void writeReportHeader(std::ostringstream& o, const ReportContext& context);
void writeReportFigures(std::ostringstream& o, const ReportContext& context);

std::string sweepReportMarkdown(const SweepResult& result, const ReportContext& context);
std::string tpmNoiseReportMarkdown(const TpmNoiseResult& result, const ReportContext& context);

}  // namespace dplda
