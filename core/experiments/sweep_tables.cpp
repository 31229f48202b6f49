// The sweep's tables (results.csv, summary.csv, timings.csv): declared in sweep.h.
#include <cmath>
#include <sstream>
#include <string>

#include "core/experiments/sweep.h"
#include "core/experiments/table_text.h"

namespace dplda {

namespace {

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

void caseColumns(std::ostringstream& o, const SweepCaseInfo& info) {
  o << csvCell(info.label) << ',' << info.docCount << ',' << info.vocabSize << ',' << info.topicCount << ','
    << csvNumberText(info.alpha0);
}

}  // namespace

std::string sweepResultsCsv(const SweepResult& r) {
  std::ostringstream o;
  o << "case,N,d,k,alpha0,config,edges,epsilon,delta,bounds,trial,noise_seed,released,status,reason,"
       "error_l2,error_l1,error_alpha,error_frobenius,loss_l2,loss_l1,loss_alpha,loss_frobenius,perplexity,"
       "perplexity_bound,sigma_k,sigma_k_tilde,gamma_s,gamma_s_tilde,epsilon_spent,delta_spent,noise_scales\n";
  for (const SweepRow& row : r.rows) {
    const SweepConfiguration& cfg = r.spec.configurations[row.configIndex];
    caseColumns(o, r.cases[row.caseIndex]);
    std::string scales;
    for (const NoiseScale& n : row.noiseScales) {
      // A release refused before its scale was calibrated has none (issue 28: it read "=nan").
      scales += (scales.empty() ? "" : ";") + n.release + "=" +
                (std::isfinite(n.sigma) ? csvNumberText(n.sigma) : std::string("not computed"));
    }
    o << ',' << csvCell(cfg.label) << ',' << csvCell(configurationText(cfg)) << ','
      << csvNumberText(row.epsilon) << ',' << csvNumberText(r.spec.delta) << ','
      << boundSetName(r.spec.bounds) << ',' << row.trial << ',' << row.noiseSeed << ','
      << (row.released ? "true" : "false") << ',' << statusCodeName(row.status) << ',' << csvCell(row.reason)
      << ',' << csvOptional(row.errorL2) << ',' << csvOptional(row.errorL1) << ','
      << csvOptional(row.errorAlpha) << ',' << csvOptional(row.errorFrobenius) << ',' << csvOptional(row.lossL2)
      << ',' << csvOptional(row.lossL1) << ',' << csvOptional(row.lossAlpha) << ',' << csvOptional(row.lossFrobenius)
      << ',' << csvOptional(row.perplexity) << ',' << csvOptional(row.perplexityBound) << ',' << csvOptional(row.sigmaK) << ','
      << csvOptional(row.sigmaKTilde) << ',' << csvOptional(row.gammaS) << ',' << csvOptional(row.gammaSTilde)
      << ',' << csvNumberText(row.epsilonSpent) << ',' << csvNumberText(row.deltaSpent) << ','
      << csvCell(scales) << '\n';
  }
  return o.str();
}

std::string sweepSummaryCsv(const SweepResult& r) {
  const std::string lo = "q" + formatPercent(r.spec.bandLower), hi = "q" + formatPercent(r.spec.bandUpper);
  std::ostringstream o;
  o << "case,N,d,k,alpha0,config,edges,epsilon,trials,released,release_rate";
  for (const char* q : {"error_l2", "error_l1", "error_alpha", "loss_l2", "loss_l1", "loss_alpha",
                        "sigma_k_tilde", "gamma_s_tilde", "error_frobenius", "loss_frobenius", "perplexity"}) {
    o << ',' << q << "_median," << q << '_' << lo << ',' << q << '_' << hi;
  }
  o << '\n';
  for (const SweepSummaryRow& s : r.summary) {
    const SweepConfiguration& cfg = r.spec.configurations[s.configIndex];
    caseColumns(o, r.cases[s.caseIndex]);
    o << ',' << csvCell(cfg.label) << ',' << csvCell(configurationText(cfg)) << ','
      << csvNumberText(s.epsilon) << ',' << s.trials << ',' << s.released << ','
      << csvNumberText(s.releaseRate);
    for (const QuantileSummary* q : {&s.errorL2, &s.errorL1, &s.errorAlpha, &s.lossL2, &s.lossL1,
                                     &s.lossAlpha, &s.sigmaKTilde, &s.gammaSTilde, &s.errorFrobenius,
                                     &s.lossFrobenius, &s.perplexity}) {
      o << ',' << csvOptional(q->median) << ',' << csvOptional(q->lower) << ',' << csvOptional(q->upper);
    }
    o << '\n';
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
