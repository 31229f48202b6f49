#pragma once
// sweep.json: a finished ε sweep as one file (issue 25: "the app can open it"). Every sweep folder
// that `dplda sweep` or the app writes holds it beside results.csv and report.md: the experiment's
// name, title and kind, the command that ran it, the whole spec (but not the corpora), the prepared
// cases, every trial and every summary point. Reading it back gives the SweepResult that wrote
// it, so the app draws, pins and re-exports the figures and rewrites the same report without
// running anything again.
//
// Under releaseOnly the file holds what the release-only CSVs hold (docs/PRIVACY.md §15.4): the
// columns releasedColumn() keeps, the rows of the configurations that release, no exact corpus
// statistic, no non-private baseline and no timing. The reader puts NaN in what was left out.
//
// Numbers: a value that does not apply (NaN) is the string "not computed", ±∞ "unbounded" /
// "-unbounded" (an account that gives no finite ε), as in the CSVs; seeds are decimal strings (64
// bits survive readers that parse numbers as doubles). No NaN, infinity or null (issue 28 §6).
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/common/status.h"
#include "core/experiments/presets.h"
#include "core/experiments/sweep.h"

namespace dplda {

inline constexpr int kSweepArchiveVersion = 1;
inline constexpr const char* kNotComputed = "not computed";
inline constexpr const char* kUnbounded = "unbounded";
inline constexpr const char* kSweepArchiveName = "sweep.json";
// sweep.json is read whole and parsed into a tree (~10x its size): a 10⁶-run sweep is ~600 MB.
inline constexpr std::uintmax_t kMaxSweepArchiveBytes = std::uintmax_t(256) << 20;

// What the archive says about the experiment besides its result.
struct SweepArchiveInfo {
  std::string name, title, description;  // the preset's (or "sweep" for a custom one)
  ExperimentKind kind = ExperimentKind::ErrorSweep;  // ErrorSweep, Diagnostics or ErrorVsN
  std::string commandLine, seedNote;                 // the report's ReportContext
};

struct SweepArchive : SweepArchiveInfo {
  SweepResult result;  // its spec's cases have no corpus (CorpusSource::corpus is null)
};

// The archive's text (JSON, one object) of a finished sweep; the result is read where it is,
// not copied.
std::string sweepArchiveJson(const SweepArchiveInfo& info, const SweepResult& result);

// Reads and checks sweep.json: BadInput naming the file, the field and the value for anything
// malformed or inconsistent (indices out of range, a point missing, a NaN where a count belongs),
// IoError when it cannot be read, ResourceLimit past kMaxSweepArchiveBytes or the memory budget.
Result<SweepArchive> readSweepArchive(const std::filesystem::path& file);
// The same from text already read; `sourceName` names it in messages.
Result<SweepArchive> parseSweepArchive(const std::string& text, const std::string& sourceName);

namespace sweep_archive {  // shared by the writer and the reader
// "error-sweep", "diagnostics", "error-vs-n" (the kinds an archive holds).
const char* kindName(ExperimentKind kind);
// The numbers of a trial row and the quantiles of a summary point, by the column names of
// results.csv and summary.csv: releasedColumn() decides what a release-only archive keeps.
const std::vector<std::pair<const char*, double SweepRow::*>>& rowNumbers();
const std::vector<std::pair<const char*, QuantileSummary SweepSummaryRow::*>>& summaryQuantiles();
// A case's exact statistics, non-private baseline and timing: what a release-only archive leaves out.
const std::vector<std::pair<const char*, double SweepCaseInfo::*>>& caseExactNumbers();
}  // namespace sweep_archive

}  // namespace dplda
