#include "core/experiments/verdict.h"

#include <cmath>
#include <sstream>

#include "core/common/number_text.h"

namespace dplda {

namespace {
bool competes(const SweepSummaryRow& s) { return s.releaseRate >= 0.5 && std::isfinite(s.errorL2.median); }
}  // namespace

std::vector<VerdictCell> spectralVersusDpVi(const SweepResult& r) {
  const SweepSpec& s = r.spec;
  int dpVi = -1;
  std::vector<int> spectral;
  for (int g = 0; g < static_cast<int>(s.configurations.size()); ++g) {
    const SweepConfiguration& c = s.configurations[g];
    if (c.model == SweepModel::DpVi) dpVi = g;
    else if (c.model == SweepModel::Spectral && configurationReleases(c)) spectral.push_back(g);
  }
  std::vector<VerdictCell> out;
  if (dpVi < 0 || spectral.empty()) return out;
  for (int ci = 0; ci < static_cast<int>(r.cases.size()); ++ci) {
    if (!r.cases[ci].hasTruth) return {};
    for (int e = 0; e < static_cast<int>(s.epsilons.size()); ++e) {
      VerdictCell v{ci, e, -1, dpVi, "no release"};
      for (int g : spectral) {
        const SweepSummaryRow& row = r.summaryRow(ci, g, e);
        if (competes(row) && (v.spectralConfig < 0 ||
                              row.errorL2.median < r.summaryRow(ci, v.spectralConfig, e).errorL2.median)) {
          v.spectralConfig = g;
        }
      }
      const SweepSummaryRow& d = r.summaryRow(ci, dpVi, e);
      if (v.spectralConfig >= 0 && competes(d)) {
        const SweepSummaryRow& sp = r.summaryRow(ci, v.spectralConfig, e);
        v.winner = sp.errorL2.upper < d.errorL2.lower   ? "spectral"
                   : d.errorL2.upper < sp.errorL2.lower ? "dp-vi"
                                                        : "overlap";
      }
      out.push_back(v);
    }
  }
  return out;
}

std::string verdictMarkdown(const SweepResult& r) {
  const std::vector<VerdictCell> cells = spectralVersusDpVi(r);
  if (cells.empty()) return "";
  const SweepSpec& s = r.spec;
  std::ostringstream o;
  o << "\n## Verdict: private spectral LDA against DP-VI\n\nPer corpus and total epsilon: the best private "
       "spectral configuration (lowest median l2 error among those that released in at least half the trials) "
       "against DP-VI. A side wins only when the "
    << shortNumber(s.bandLower * 100) << "–" << shortNumber(s.bandUpper * 100)
    << "% quantile bands of the trials' errors do not overlap; otherwise there is no verdict. Every budget is "
       "accounted as its row in the configuration table says (DP-VI's ledger and the spectral ledgers differ).\n\n"
       "| case | epsilon | best spectral: median [band] | DP-VI: median [band] | verdict |\n|---|---|---|---|---|\n";
  auto cell = [](const SweepSummaryRow& row) {
    return shortNumber(row.errorL2.median) + " [" + shortNumber(row.errorL2.lower) + ", " +
           shortNumber(row.errorL2.upper) + "]";
  };
  int spectralWins = 0, dpViWins = 0, overlaps = 0;
  for (const VerdictCell& v : cells) {
    const SweepSummaryRow& d = r.summaryRow(v.caseIndex, v.dpViConfig, v.epsilonIndex);
    o << "| " << r.cases[v.caseIndex].label << " | " << shortNumber(s.epsilons[v.epsilonIndex]) << " | ";
    if (v.spectralConfig >= 0) {
      o << s.configurations[v.spectralConfig].label << ": "
        << cell(r.summaryRow(v.caseIndex, v.spectralConfig, v.epsilonIndex));
    } else {
      o << "none released";
    }
    o << " | " << (competes(d) ? cell(d) : std::string("released in ") + std::to_string(d.released) + "/" +
                                               std::to_string(d.trials)) << " | ";
    if (v.winner == "spectral") o << "**spectral**", ++spectralWins;
    else if (v.winner == "dp-vi") o << "**DP-VI**", ++dpViWins;
    else if (v.winner == "overlap") o << "bands overlap: no verdict", ++overlaps;
    else o << "no verdict (a side released in fewer than half the trials)";
    o << " |\n";
  }
  o << "\nIn " << cells.size() << " cells: spectral better in " << spectralWins << ", DP-VI better in " << dpViWins
    << ", no verdict in " << cells.size() - spectralWins - dpViWins << " (" << overlaps << " with overlapping bands).\n";
  return o.str();
}

}  // namespace dplda
