#include "core/experiments/paper_claims.h"

#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "core/common/number_text.h"
#include "core/graph/computation_graph.h"

namespace dplda {

namespace {

std::string fmt(double x) { return std::isnan(x) ? "–" : shortNumber(x); }

// The configuration index of a spectral preset or a variational model, if the sweep has it.
std::optional<int> findConfig(const SweepSpec& s, SweepModel model, std::optional<Preset> preset = std::nullopt) {
  for (std::size_t g = 0; g < s.configurations.size(); ++g) {
    const SweepConfiguration& c = s.configurations[g];
    if (c.model != model) continue;
    if (model != SweepModel::Spectral || (preset && c.edges == presetEdges(*preset))) return static_cast<int>(g);
  }
  return std::nullopt;
}

// The quantity a figure plots: held-out perplexity (figure 3), error vs the truth, or utility loss.
struct Metric {
  std::string name;
  const QuantileSummary SweepSummaryRow::*field;
};
Metric metricOf(const SweepResult& r, int c) {
  if (r.spec.holdout > 0.0) return {"held-out perplexity", &SweepSummaryRow::perplexity};
  if (r.cases[c].hasTruth) return {"error (mean l2 vs the truth)", &SweepSummaryRow::errorL2};
  return {"utility loss (mean l2)", &SweepSummaryRow::lossL2};
}

double median(const SweepResult& r, const Metric& m, int c, int g, int e) {
  return (r.summaryRow(c, g, e).*(m.field)).median;
}

// Why a configuration released nothing: the most frequent reason over its trials.
std::string commonReason(const SweepResult& r, int c, int g) {
  std::map<std::string, int> counts;
  for (const SweepRow& row : r.rows)
    if (row.caseIndex == c && row.configIndex == g && !row.released && !row.reason.empty()) ++counts[row.reason];
  std::string best;
  int n = 0;
  for (const auto& [reason, count] : counts)
    if (count > n) best = reason, n = count;
  if (best.size() > 160) best = best.substr(0, 157) + "...";
  return best;
}

// "a beats b at every ε": compares medians ε by ε where both released.
PaperClaimCheck compareEverywhere(const SweepResult& r, int c, int a, int b, const std::string& claim) {
  const Metric m = metricOf(r, c);
  PaperClaimCheck out{r.cases[c].label, claim, "", ClaimVerdict::CannotCheck};
  const int E = static_cast<int>(r.spec.epsilons.size());
  int both = 0, wins = 0, aNone = 0;
  std::ostringstream pairs;
  for (int e = 0; e < E; ++e) {
    const double x = median(r, m, c, a, e), y = median(r, m, c, b, e);
    if (std::isnan(x)) ++aNone;
    if (std::isnan(x) || std::isnan(y)) continue;
    ++both;
    if (x < y) ++wins;
  }
  const std::string aLabel = r.spec.configurations[a].label, bLabel = r.spec.configurations[b].label;
  pairs << m.name << " medians at epsilon = " << shortNumber(r.spec.epsilons.front()) << " / "
        << shortNumber(r.spec.epsilons.back()) << ": " << aLabel << " " << fmt(median(r, m, c, a, 0)) << " / "
        << fmt(median(r, m, c, a, E - 1)) << ", " << bLabel << " " << fmt(median(r, m, c, b, 0)) << " / "
        << fmt(median(r, m, c, b, E - 1)) << "; " << aLabel << " lower at " << wins << " of " << both
        << " epsilon values where both released";
  if (aNone == E) {
    pairs << "; " << aLabel << " released nothing at any epsilon";
    const std::string why = commonReason(r, c, a);
    if (!why.empty()) pairs << " (" << why << ")";
    out.verdict = ClaimVerdict::NotReproduced;
  } else if (both == 0) {
    out.verdict = ClaimVerdict::CannotCheck;
  } else if (wins == E) {
    out.verdict = ClaimVerdict::Reproduced;
  } else if (wins == 0) {
    out.verdict = ClaimVerdict::NotReproduced;
  } else {
    out.verdict = ClaimVerdict::Partly;
  }
  out.measured = pairs.str();
  return out;
}

// "every configuration releases": the release rate over the ε grid.
PaperClaimCheck releasesEverywhere(const SweepResult& r, int c, int g) {
  const std::string label = r.spec.configurations[g].label;
  PaperClaimCheck out{r.cases[c].label, "configuration " + label + " gives a model at every epsilon of the figure",
                      "", ClaimVerdict::CannotCheck};
  int released = 0, trials = 0;
  for (int e = 0; e < static_cast<int>(r.spec.epsilons.size()); ++e) {
    released += r.summaryRow(c, g, e).released;
    trials += r.summaryRow(c, g, e).trials;
  }
  std::ostringstream m;
  m << released << " of " << trials << " runs released";
  if (released < trials) {
    const std::string why = commonReason(r, c, g);
    if (!why.empty()) m << "; most frequent reason: " << why;
  }
  out.measured = m.str();
  out.verdict = released == trials ? ClaimVerdict::Reproduced
                                   : (released == 0 ? ClaimVerdict::NotReproduced : ClaimVerdict::Partly);
  return out;
}

}  // namespace

const char* claimVerdictName(ClaimVerdict v) {
  switch (v) {
    case ClaimVerdict::Reproduced: return "reproduced";
    case ClaimVerdict::Partly: return "partly";
    case ClaimVerdict::NotReproduced: return "not reproduced";
    case ClaimVerdict::CannotCheck: return "cannot be checked";
  }
  return "cannot be checked";
}

std::vector<PaperClaimCheck> checkPaperClaims(const SweepResult& r) {
  std::vector<PaperClaimCheck> out;
  const SweepSpec& s = r.spec;
  const bool figure3 = s.holdout > 0.0;
  const auto dpvi = findConfig(s, SweepModel::DpVi);
  const auto vi = findConfig(s, SweepModel::Vi);
  const auto none = findConfig(s, SweepModel::Spectral, Preset::None);
  const auto c1 = findConfig(s, SweepModel::Spectral, Preset::Config1);
  const auto c2 = findConfig(s, SweepModel::Spectral, Preset::Config2);
  const auto c3 = findConfig(s, SweepModel::Spectral, Preset::Config3);
  const auto c4 = findConfig(s, SweepModel::Spectral, Preset::Config4);
  for (int c = 0; c < static_cast<int>(r.cases.size()); ++c) {
    for (auto g : {c1, c2, c3, c4})
      if (g) out.push_back(releasesEverywhere(r, c, *g));
    if (dpvi) {
      for (auto g : {c2, c3, c4}) {
        if (!g) continue;
        const std::string label = s.configurations[*g].label;
        out.push_back(compareEverywhere(
            r, c, *g, *dpvi,
            figure3 ? "configuration " + label + " reaches a lower held-out perplexity than DP-VI at every epsilon"
                    : "configuration " + label + " has a lower error than DP-VI at every epsilon"));
      }
    }
    if (!figure3 && c2) {
      for (auto g : {c3, c4})
        if (g)
          out.push_back(compareEverywhere(r, c, *c2, *g,
                                          "configuration 2 beats configuration " + s.configurations[*g].label +
                                              " (d = 50, k = 5)"));
    }
    if (figure3 && c3 && none) {
      out.push_back(compareEverywhere(r, c, *c3, *none,
                                      "configuration 3 sometimes beats the unnoised spectral method (perplexity)"));
      if (out.back().verdict == ClaimVerdict::Partly) out.back().verdict = ClaimVerdict::Reproduced;
    }
    if (vi && none) {
      const Metric m = metricOf(r, c);
      PaperClaimCheck p{r.cases[c].label, "non-private VI (vi-u) and the unnoised spectral method are drawn side by side",
                        m.name + ": spectral " + fmt(median(r, m, c, *none, 0)) + ", VI " +
                            fmt(median(r, m, c, *vi, 0)),
                        ClaimVerdict::Reproduced};
      if (std::isnan(median(r, m, c, *none, 0)) || std::isnan(median(r, m, c, *vi, 0)))
        p.verdict = ClaimVerdict::CannotCheck;
      out.push_back(p);
    }
  }
  return out;
}

std::string paperClaimsMarkdown(const SweepResult& r) {
  const std::vector<PaperClaimCheck> checks = checkPaperClaims(r);
  if (checks.empty()) return "";
  std::ostringstream o;
  o << "\n## The paper's claims, point by point\n\nMeasured in this sweep under the **" << boundSetName(r.spec.bounds)
    << "** bound set" << (r.spec.bounds == BoundSet::Printed ? " (the papers' formulas: not a proven guarantee)" : "")
    << ", " << r.spec.trials << " trials per point; the verdicts compare medians and are computed from the "
    << "tables above, not written by hand.\n\n| case | the paper's claim | verdict | measured |\n|---|---|---|---|\n";
  for (const PaperClaimCheck& p : checks) {
    o << "| " << p.caseLabel << " | " << p.claim << " | **" << claimVerdictName(p.verdict) << "** | " << p.measured
      << " |\n";
  }
  return o.str();
}

}  // namespace dplda
