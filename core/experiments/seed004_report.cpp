#include "core/experiments/seed004_report.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/experiments/seed004_claims.h"
#include "core/experiments/table_text.h"

namespace dplda {

namespace {

std::string fmt(double x) { return std::isnan(x) ? "–" : shortNumber(x); }

double slopeOf(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  if (n < 2) return std::nan("");
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i] / n;
    my += y[i] / n;
  }
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : std::nan("");
}

}  // namespace

std::string onlineTpmReportMarkdown(const OnlineTpmResult& r, const ReportContext& c) {
  const OnlineTpmSpec& s = r.spec;
  const GeneratorParams& g = s.corpus;
  std::ostringstream o;
  writeReportHeader(o, c);
  o << "- Corpus: synthetic LDA, d = " << g.vocabSize << ", k = " << g.topicCount << ", N = " << r.docCount
    << " documents (" << r.nnz << " non-zeros), alpha0 = " << shortNumber(g.alpha0) << ", beta = " << shortNumber(g.beta)
    << ", " << (g.fixedLength ? "fixed" : "Poisson") << "(" << shortNumber(g.meanLength) << ") lengths\n";
  o << "- Online method (seed 004, Algorithm 2): L = " << r.restarts << " starts, R = " << s.iterations
    << " power steps per component, each reading the next n documents of a seeded permuted order (chunks of 32 "
       "documents), " << s.trials << " trials per n\n";
  o << "- Reference: the batch robust method (L = " << r.restarts
    << ", R = 100, tolerance 1e-10) on T-hat of the whole corpus, with the same whitening W\n";
  o << "- Tensor error: mean over the k components of ||v-hat_i - v_i(batch)||_2 (Hungarian matching); topic "
       "error: mean l2 distance of the unwhitened, projected topics to the truth\n";
  o << "\n## Seeds\n\n";
  if (!c.seedNote.empty()) o << "- " << c.seedNote << "\n";
  o << "- Seed " << s.seed << ": the corpus from stream 0; trial t's starts and document order from streams 1000 + t "
       "and 2000 + t, shared by every n (common random numbers). No privacy release.\n";

  o << "\n## Error against documents per step\n\n";
  o << "| n | documents read (n R k) | passes | tensor error: median [10%, 90%] | converged | c sqrt(1/n - 1/N) | "
       "topic l2: median |\n|---|---|---|---|---|---|---|\n";
  for (const OnlineTpmPoint& p : r.points)
    o << "| " << p.n << " | " << p.samples << " | " << fmt(p.passes) << " | " << fmt(p.tensorMedian) << " ["
      << fmt(p.tensorLower) << ", " << fmt(p.tensorUpper) << "] | " << (p.tensorUpper < kOnlineConvergedError ? "yes" : "no")
      << " | " << fmt(r.finiteScale * finiteBatchFactor(p.n, r.docCount)) << " | " << fmt(p.topicMedian) << " |\n";
  o << "\nThe batch method's topic error against the truth: " << fmt(r.batchTopicErrorL2) << " (alpha error "
    << fmt(r.batchAlphaError) << ").\n";
  o << "\n**Does the error fall like 1/sqrt(n)?** Over the converged points (90% quantile of the tensor error below "
    << fmt(kOnlineConvergedError) << "; below them some trials lock onto wrong components"
    << (r.firstConverged >= 0 ? ", from n = " + std::to_string(r.points[r.firstConverged].n) : std::string())
    << ") the least-squares slope of log(median tensor error) against log n over n <= N/10 is "
    << fmt(r.slopeVsN) << " (Corollary 3.1 predicts -0.5). On a finite corpus a batch of n of the N documents "
       "estimates T-hat with an error of order sqrt(1/n - 1/N) (sampling without replacement), which vanishes at "
       "n = N where the online method is the batch method; against that factor the slope is "
    << fmt(r.slopeVsFinite) << " (1 if the error is proportional to it), with c = " << fmt(r.finiteScale) << ".\n";
  o << claimsMarkdown(onlineTpmClaims(r), "Seed 004's claims against this run; computed from the table above.");
  o << "\n## Tables\n\n- [results.csv](results.csv): one row per (n, trial)\n"
       "- [summary.csv](summary.csv): medians and 10-90% quantiles per n\n";
  o << "\n## Timing\n\n- " << r.threadsUsed << " worker threads, " << fmt(r.elapsedMs / 1000.0)
    << " s wall time in total (corpus, reference and all trials)\n";
  writeReportFigures(o, c);
  return o.str();
}

double dpTpmRecoverySlope(const DpTpmResult& r, const std::string& group, int d) {
  std::vector<double> x, y;
  for (int ci = 0; ci < static_cast<int>(r.spec.cases.size()); ++ci) {
    const DpTpmCase& dc = r.spec.cases[ci];
    if (dc.group != group || dc.d != d) continue;
    const double e = dpTpmRecoveryEpsilon(r, ci, 0);
    if (!std::isfinite(e)) continue;
    x.push_back(std::log(r.cases[ci].mu0));
    y.push_back(std::log(e));
  }
  return slopeOf(x, y);
}

std::string dpTpmReportMarkdown(const DpTpmResult& r, const ReportContext& c) {
  const DpTpmSpec& s = r.spec;
  std::ostringstream o;
  writeReportHeader(o, c);
  o << "- Tensors: T = sum_i lambda_i v_i^3, lambda from " << fmt(s.signal) << " down to " << fmt(s.signal / 2)
    << ", orthonormal v_i mixing a flat DCT basis and spikes (rho = 0: incoherent, mu0 <= 2; rho = 1: standard basis "
       "vectors, mu0 = d/k)\n";
  o << "- Privacy: entry-level neighbouring tensors (seed 004, Definition 4.2; sensitivities 6||u||_inf^2 and "
       "6||u||_inf^3), delta = "
    << fmt(s.delta) << "; R = " << s.iterations << " steps, L = max(10, 2 ceil(k ln k)) starts unless set ("
    << (s.restarts > 0 ? std::to_string(s.restarts) : std::string("default")) << "), " << s.trials << " trials per point\n";
  o << "- Accountants: `gaussian` exact composition of the K = kL(R+1) Gaussian queries (Gaussian DP), calibrated to "
       "spend exactly (epsilon, delta); `printed` the seed's nu as printed (its proof: classic Gaussian per query and "
       "advanced composition); `advanced` that proof with epsilon' solved so that it really yields epsilon "
       "(docs/TENSOR_METHODS.md §2)\n";
  o << "- Error: ||v-hat_1 - v_1|| up to sign for the first eigenvector (Theorem 4.2); recovered when below "
    << fmt(s.successThreshold) << "; the recovery epsilon is where the median error falls through that level for good "
       "(interpolated in log epsilon)\n";
  o << "\n## Seeds\n\n";
  if (!c.seedNote.empty()) o << "- " << c.seedNote << "\n";
  o << "- Seed " << s.seed << ": trial t of a case draws its starts and its standard normals from seeds derived from "
       "(case, t), shared by every accountant and epsilon (common random numbers). The noise is seeded: this is an "
       "experiment, not a release.\n";

  std::string group;
  for (int ci = 0; ci < static_cast<int>(s.cases.size()); ++ci) {
    const DpTpmCase& dc = s.cases[ci];
    if (dc.group != group) {
      group = dc.group;
      o << "\n## Group: " << group << "\n\n| case | mu0 | accountant | recovery epsilon |";
      for (double e : dc.epsilons) o << " eps " << fmt(e) << " |";
      o << "\n|---|---|---|---|";
      for (std::size_t e = 0; e < dc.epsilons.size(); ++e) o << "---|";
      o << "\n";
    }
    for (int a = 0; a < static_cast<int>(dc.accountants.size()); ++a) {
      o << "| " << dc.label << " | " << fmt(r.cases[ci].mu0) << " | " << tpmAccountantName(dc.accountants[a]) << " | "
        << fmt(dpTpmRecoveryEpsilon(r, ci, a)) << " |";
      for (int e = 0; e < static_cast<int>(dc.epsilons.size()); ++e) o << " " << fmt(r.point(ci, a, e).topMedian) << " |";
      o << "\n";
    }
  }
  // What the printed noise really spends, from the accounting group's points.
  for (int ci = 0; ci < static_cast<int>(s.cases.size()); ++ci) {
    const DpTpmCase& dc = s.cases[ci];
    if (dc.accountants.size() < 2) continue;
    o << "\n## What each accountant's noise spends (" << dc.label << ", K = " << r.point(ci, 0, 0).queries
      << " queries)\n\n| accountant | epsilon asked | multiplier m | epsilon by exact composition | epsilon by the printed "
         "proof | epsilon by zCDP |\n|---|---|---|---|---|---|\n";
    for (int a = 0; a < static_cast<int>(dc.accountants.size()); ++a)
      for (int e = 0; e < static_cast<int>(dc.epsilons.size()); e += std::max(1, static_cast<int>(dc.epsilons.size()) / 4)) {
        const DpTpmPoint& p = r.point(ci, a, e);
        o << "| " << tpmAccountantName(dc.accountants[a]) << " | " << fmt(p.epsilon) << " | " << fmt(p.multiplier)
          << " | " << fmt(p.epsilonGaussian) << " | " << fmt(p.epsilonAdvanced) << " | " << fmt(p.epsilonZcdp) << " |\n";
      }
    o << "\nThe three accountings differ only in the multiplier they choose for a claimed epsilon; plotted against the "
         "epsilon their noise actually spends (exact composition) their error curves coincide (figure "
         "`dp_tpm_accounting_spent`).\n";
    break;
  }
  bool anyIncoherence = false;
  for (const DpTpmCase& dc : s.cases) anyIncoherence = anyIncoherence || dc.group == "incoherence";
  if (anyIncoherence) {
    o << "\n## Recovery epsilon against mu0\n\nLog-log slope of the recovery epsilon against mu0, per d:";
    std::vector<int> dims;
    for (const DpTpmCase& dc : s.cases)
      if (dc.group == "incoherence" && std::find(dims.begin(), dims.end(), dc.d) == dims.end()) dims.push_back(dc.d);
    for (int d : dims) o << " d = " << d << ": " << fmt(dpTpmRecoverySlope(r, "incoherence", d)) << ";";
    o << " Theorem 4.2 asks for epsilon = Omega(mu0 k^2 log(lambda_max d/delta)/lambda_min): growing with mu0, and with "
         "d only through the logarithm.\n";
  }
  o << claimsMarkdown(dpTpmClaims(r), "Seed 004's claims against this run (exact Gaussian accounting); computed "
                                      "from the recovery epsilons above.");
  o << "\n## Tables\n\n- [results.csv](results.csv): one row per (case, accountant, epsilon, trial)\n"
       "- [summary.csv](summary.csv): per point, the multiplier, the epsilon it spends three ways, and the error "
       "quantiles\n";
  o << "\n## Timing\n\n- " << r.threadsUsed << " worker threads, " << fmt(r.elapsedMs / 1000.0) << " s wall time\n";
  writeReportFigures(o, c);
  return o.str();
}

}  // namespace dplda
