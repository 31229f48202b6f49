// The sweep's tables (results.csv, summary.csv, timings.csv): declared in sweep.h.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/experiments/sweep.h"
#include "core/experiments/table_text.h"

namespace dplda {

namespace {

// An accountant's ε: empty when not computed, "unbounded" when it gives no finite ε at the δ.
std::string csvAccount(double x) { return std::isinf(x) ? std::string("unbounded") : csvOptional(x); }

// 0.1 -> "10", 0.125 -> "12.5": the band's column names.
std::string formatPercent(double q) {
  const double p = q * 100.0;
  return std::abs(p - std::round(p)) < 1e-9 ? std::to_string(static_cast<int>(std::round(p)))
                                            : csvNumberText(p);
}

// The "edges" column: the noisy edges of a spectral configuration, the model's name otherwise.
std::string configurationText(const SweepConfiguration& c) {
  if (c.model != SweepModel::Spectral) return sweepModelName(c.model);
  const std::string edges = c.edges ? edgeSetToString(c.edges) : std::string("none");
  if (c.whitened.enabled) {
    return edges + (c.whitened.clipToRowBound ? " (whitened release, nothing clipped)" : " (whitened release, clipped)");
  }
  const std::string base = c.clipMoments ? edges + " (clipped documents)" : edges;
  const std::string accounted = c.accountant == Accountant::GaussianDp ? base + " (gdp, shared)" : base;
  return c.privateDecomposition ? accounted + " (e6 by the private power method)" : accounted;
}

std::vector<std::string> caseCells(const SweepCaseInfo& info) {
  return {csvCell(info.label), std::to_string(info.docCount), std::to_string(info.vocabSize),
          std::to_string(info.topicCount), csvNumberText(info.alpha0)};
}

// One CSV line of the cells whose column is kept.
void writeLine(std::ostringstream& o, const std::vector<std::string>& cells, const std::vector<bool>& keep) {
  bool first = true;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (!keep[i]) continue;
    o << (first ? "" : ",") << cells[i];
    first = false;
  }
  o << '\n';
}

// Every column, or under releaseOnly the released ones (releasedColumn); the coherence columns
// only when the sweep computes it.
std::vector<bool> keptColumns(const std::vector<std::string>& names, const SweepSpec& spec) {
  std::vector<bool> keep;
  for (const std::string& n : names) {
    const bool coherence = n.rfind("coherence", 0) == 0;
    keep.push_back((!spec.releaseOnly || releasedColumn(n)) && (!coherence || spec.coherenceTopWords > 0));
  }
  return keep;
}

}  // namespace

bool releasedColumn(const std::string& name) {
  for (const char* prefix : {"loss_", "perplexity", "coherence"})
    if (name.rfind(prefix, 0) == 0) return false;
  return name != "sigma_k" && name != "gamma_s";
}

std::string sweepResultsCsv(const SweepResult& r) {
  const std::vector<std::string> columns = {
      "case", "N", "d", "k", "alpha0", "config", "edges", "epsilon", "delta", "bounds", "trial", "noise_seed",
      "released", "status", "reason", "error_l2", "error_l1", "error_alpha", "error_frobenius", "loss_l2", "loss_l1",
      "loss_alpha", "loss_frobenius", "perplexity", "perplexity_bound", "sigma_k", "sigma_k_tilde", "gamma_s",
      "gamma_s_tilde", "epsilon_spent", "delta_spent", "epsilon_gdp", "epsilon_pld", "noise_scales", "coherence_npmi",
      "coherence_umass"};
  const std::vector<bool> keep = keptColumns(columns, r.spec);
  std::ostringstream o;
  writeLine(o, columns, keep);
  for (const SweepRow& row : r.rows) {
    if (!configurationShown(r.spec, row.configIndex)) continue;
    const SweepConfiguration& cfg = r.spec.configurations[row.configIndex];
    std::string scales;
    for (const NoiseScale& n : row.noiseScales) {
      // A release refused before its scale was calibrated has none (issue 28: it read "=nan").
      scales += (scales.empty() ? "" : ";") + n.release + "=" +
                (std::isfinite(n.sigma) ? csvNumberText(n.sigma) : std::string("not computed"));
    }
    std::vector<std::string> cells = caseCells(r.cases[row.caseIndex]);
    for (std::string cell :
         {csvCell(cfg.label), csvCell(configurationText(cfg)), csvNumberText(row.epsilon), csvNumberText(r.spec.delta),
          std::string(boundSetName(r.spec.bounds)), std::to_string(row.trial), std::to_string(row.noiseSeed),
          std::string(row.released ? "true" : "false"), std::string(statusCodeName(row.status)), csvCell(row.reason),
          csvOptional(row.errorL2), csvOptional(row.errorL1), csvOptional(row.errorAlpha),
          csvOptional(row.errorFrobenius), csvOptional(row.lossL2), csvOptional(row.lossL1), csvOptional(row.lossAlpha),
          csvOptional(row.lossFrobenius), csvOptional(row.perplexity), csvOptional(row.perplexityBound),
          csvOptional(row.sigmaK), csvOptional(row.sigmaKTilde), csvOptional(row.gammaS), csvOptional(row.gammaSTilde),
          csvNumberText(row.epsilonSpent), csvNumberText(row.deltaSpent), csvAccount(row.epsilonGaussianDp),
          csvAccount(row.epsilonPld), csvCell(scales), csvOptional(row.coherenceNpmi), csvOptional(row.coherenceUmass)}) {
      cells.push_back(std::move(cell));
    }
    writeLine(o, cells, keep);
  }
  return o.str();
}

std::string sweepSummaryCsv(const SweepResult& r) {
  const std::string lo = "q" + formatPercent(r.spec.bandLower), hi = "q" + formatPercent(r.spec.bandUpper);
  std::vector<std::string> columns = {"case",  "N",       "d",      "k",        "alpha0",      "config",
                                      "edges", "epsilon", "trials", "released", "release_rate"};
  for (const char* q : {"error_l2", "error_l1", "error_alpha", "loss_l2", "loss_l1", "loss_alpha",
                        "sigma_k_tilde", "gamma_s_tilde", "error_frobenius", "loss_frobenius", "perplexity",
                        "coherence_npmi"}) {
    for (const std::string& part : {std::string("_median"), std::string("_").append(lo), std::string("_").append(hi)}) columns.push_back(q + part);
  }
  const std::vector<bool> keep = keptColumns(columns, r.spec);
  std::ostringstream o;
  writeLine(o, columns, keep);
  for (const SweepSummaryRow& s : r.summary) {
    if (!configurationShown(r.spec, s.configIndex)) continue;
    const SweepConfiguration& cfg = r.spec.configurations[s.configIndex];
    std::vector<std::string> cells = caseCells(r.cases[s.caseIndex]);
    for (std::string cell : {csvCell(cfg.label), csvCell(configurationText(cfg)), csvNumberText(s.epsilon),
                             std::to_string(s.trials), std::to_string(s.released), csvNumberText(s.releaseRate)}) {
      cells.push_back(std::move(cell));
    }
    for (const QuantileSummary* q : {&s.errorL2, &s.errorL1, &s.errorAlpha, &s.lossL2, &s.lossL1,
                                     &s.lossAlpha, &s.sigmaKTilde, &s.gammaSTilde, &s.errorFrobenius,
                                     &s.lossFrobenius, &s.perplexity, &s.coherenceNpmi}) {
      for (double x : {q->median, q->lower, q->upper}) cells.push_back(csvOptional(x));
    }
    writeLine(o, cells, keep);
  }
  return o.str();
}

std::string sweepTimingsCsv(const SweepResult& r) {
  std::ostringstream o;
  o << "case,config,epsilon,trial,elapsed_ms\n";
  for (const SweepRow& row : r.rows) {
    o << csvCell(r.cases[row.caseIndex].label) << ',' << csvCell(r.spec.configurations[row.configIndex].label)
      << ',' << csvNumberText(row.epsilon) << ',' << row.trial << ',' << csvNumberText(row.elapsedMs) << '\n';
  }
  return o.str();
}

SweepReading readSweep(const SweepResult& r, int caseIndex, int configIndex, double epsilon) {
  SweepReading out;
  out.available = true;
  const int n = static_cast<int>(r.spec.epsilons.size());
  std::vector<double> eps, err;
  for (int e = 0; e < n; ++e) {
    const SweepSummaryRow& row = r.summaryRow(caseIndex, configIndex, e);
    if (row.trials > 0 && 2 * row.released >= row.trials && !std::isfinite(out.releasesFrom)) {
      out.releasesFrom = row.epsilon;
    }
    if (std::isfinite(row.errorL2.median)) {
      eps.push_back(row.epsilon);
      err.push_back(row.errorL2.median);
    }
  }
  if (!(epsilon > 0) || eps.empty() || epsilon < eps.front() || epsilon > eps.back()) return out;
  for (std::size_t i = 0; i < eps.size(); ++i) {
    if (epsilon == eps[i]) {
      out.expectedErrorL2 = err[i];
      return out;
    }
    if (i + 1 < eps.size() && epsilon < eps[i + 1]) {
      const double t = std::log(epsilon / eps[i]) / std::log(eps[i + 1] / eps[i]);
      out.expectedErrorL2 = err[i] + t * (err[i + 1] - err[i]);
      return out;
    }
  }
  return out;
}

}  // namespace dplda
