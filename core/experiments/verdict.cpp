#include "core/experiments/verdict.h"

#include <cmath>
#include <sstream>

#include "core/common/number_text.h"

namespace dplda {

namespace {

// What a case is judged on, lower better for both: the l2 error against its truth (synthetic
// corpora), else the held-out perplexity (a real corpus with a public split). Null: neither.
const QuantileSummary* metricOf(const SweepCaseInfo& c, const SweepSummaryRow& s) {
  if (c.hasTruth) return &s.errorL2;
  if (c.heldOutDocuments > 0) return &s.perplexity;
  return nullptr;
}

bool competes(const SweepCaseInfo& c, const SweepSummaryRow& s) {
  const QuantileSummary* m = metricOf(c, s);
  return m && s.releaseRate >= 0.5 && std::isfinite(m->median);
}

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
    const SweepCaseInfo& info = r.cases[ci];
    if (!metricOf(info, SweepSummaryRow{})) continue;  // no truth and no held-out documents: nothing to judge
    for (int e = 0; e < static_cast<int>(s.epsilons.size()); ++e) {
      VerdictCell v{ci, e, -1, dpVi, "no release"};
      for (int g : spectral) {
        const SweepSummaryRow& row = r.summaryRow(ci, g, e);
        if (competes(info, row) &&
            (v.spectralConfig < 0 ||
             metricOf(info, row)->median < metricOf(info, r.summaryRow(ci, v.spectralConfig, e))->median)) {
          v.spectralConfig = g;
        }
      }
      const SweepSummaryRow& d = r.summaryRow(ci, dpVi, e);
      if (v.spectralConfig >= 0 && competes(info, d)) {
        const QuantileSummary& sp = *metricOf(info, r.summaryRow(ci, v.spectralConfig, e));
        const QuantileSummary& dv = *metricOf(info, d);
        v.winner = sp.upper < dv.lower ? "spectral" : dv.upper < sp.lower ? "dp-vi" : "overlap";
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
       "spectral configuration (lowest median among those that released in at least half the trials) against "
       "DP-VI, on the l2 error against the true topics for a synthetic corpus and on the held-out perplexity "
       "(the public split's documents) for a real one; lower is better for both. A side wins only when the "
    << shortNumber(s.bandLower * 100) << "–" << shortNumber(s.bandUpper * 100)
    << "% quantile bands of the trials' values do not overlap; otherwise there is no verdict. Every budget is "
       "accounted as its row in the configuration table says (DP-VI's ledger and the spectral ledgers differ).\n\n"
       "| case | measure | epsilon | best spectral: median [band] | DP-VI: median [band] | verdict |\n"
       "|---|---|---|---|---|---|\n";
  auto cell = [&](int ci, const SweepSummaryRow& row) {
    const QuantileSummary& m = *metricOf(r.cases[ci], row);
    return shortNumber(m.median) + " [" + shortNumber(m.lower) + ", " + shortNumber(m.upper) + "]";
  };
  int spectralWins = 0, dpViWins = 0, overlaps = 0;
  for (const VerdictCell& v : cells) {
    const SweepSummaryRow& d = r.summaryRow(v.caseIndex, v.dpViConfig, v.epsilonIndex);
    const SweepCaseInfo& info = r.cases[v.caseIndex];
    o << "| " << info.label << " | " << (info.hasTruth ? "l2 error" : "held-out perplexity") << " | "
      << shortNumber(s.epsilons[v.epsilonIndex]) << " | ";
    if (v.spectralConfig >= 0) {
      o << s.configurations[v.spectralConfig].label << ": "
        << cell(v.caseIndex, r.summaryRow(v.caseIndex, v.spectralConfig, v.epsilonIndex));
    } else {
      o << "none released";
    }
    o << " | " << (competes(info, d) ? cell(v.caseIndex, d) : std::string("released in ") + std::to_string(d.released) + "/" +
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
