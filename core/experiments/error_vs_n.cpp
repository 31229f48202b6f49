#include "core/experiments/error_vs_n.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/experiments/table_text.h"
#include "core/graph/computation_graph.h"

namespace dplda {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string fmt(double x) { return std::isfinite(x) ? shortNumber(x) : std::string("–"); }
std::string signedText(double x) { return std::isfinite(x) ? shortNumber(std::round(x * 100.0) / 100.0) : "–"; }

// The privacy term of seed 002's utility theorems, Õ(·) at fixed ε, δ (τ_{ε,δ} constant): every
// noise scale is a sensitivity ∝ 1/N (SPEC §9: Δ2, Δ3 ∝ 1/N; Δ_T, Δ_μ̄, Δ_μ ∝ Δ3 to first order)
// times public or converging quantities (σ̃_k → σ_k, γ̃_s → γ_s as their Laplace noise ∝ 1/N).
const char* kConfig1 =
    "seed 002 Theorem 10 / Remark 11 (proof: seed 000 H.1): privacy term O~((k^0.5/gamma_s)(sqrt(d)/N + "
    "(sqrt(d)/N)^1.5) + sqrt(d)/N) at fixed epsilon: N^-1 leading, N^-1.5 below it";
const char* kConfig2 =
    "seed 002 Theorem 12 / Remark 13 (proof: seed 000 H.2, eq. 135): O~((k^0.5/gamma_s)(k^0.75/N + "
    "(k^2/N)(sqrt(d)/N)^0.5) + sqrt(d)/N): N^-1 leading, N^-1.5 below it";
const char* kConfig3 =
    "seed 002 Theorem 14 / Remark 15 (proof: seed 000 H.3, eq. 140): ||Y|| = O(k^2.5 tau/(N sigma~_k^1.5 "
    "gamma~_s)), ||E_8|| = O(sqrt(d) tau/N): N^-1";
const char* kConfig4 =
    "seed 002 Theorem 16 / Remark 17 (proof: seed 000 H.4): O(sqrt(sigma_1 d k^2) tau/(N gamma~_s "
    "sigma~_k^1.5)): N^-1";

// Whether point (c, g, e) may enter a fit: released in at least half the trials, and its median
// error below half the random guess's (not saturated).
enum class PointUse { Used, NotReleased, Saturated, NoTruth };
PointUse pointUse(const SweepResult& r, int c, int g, int e) {
  const SweepSummaryRow& s = r.summaryRow(c, g, e);
  const SweepCaseInfo& info = r.cases[c];
  if (!info.hasTruth) return PointUse::NoTruth;
  if (s.trials == 0 || 2 * s.released < s.trials) return PointUse::NotReleased;
  if (std::isfinite(info.guessErrorL2) && !(s.errorL2.median < info.guessErrorL2 / 2.0)) return PointUse::Saturated;
  return PointUse::Used;
}

// "released in fewer than half the trials at N = 1000, 3162; saturated (...) at N = 10000".
std::string leftOutText(const SweepResult& r, const std::vector<std::pair<PointUse, int>>& left) {
  std::string out;
  for (PointUse kind : {PointUse::NotReleased, PointUse::Saturated, PointUse::NoTruth}) {
    std::string ns;
    double guess = kNaN;
    for (const auto& [k, c] : left) {
      if (k != kind) continue;
      ns += (ns.empty() ? "" : ", ") + std::to_string(r.cases[c].docCount);
      guess = r.cases[c].guessErrorL2;
    }
    if (ns.empty()) continue;
    out += out.empty() ? "" : "; ";
    out += kind == PointUse::NotReleased ? "released in fewer than half the trials"
           : kind == PointUse::Saturated ? "saturated (median error >= " + fmt(guess / 2.0) + ", half the random guess's)"
                                         : "no truth";
    out += " at N = " + ns;
  }
  return out;
}

}  // namespace

bool LogLogFit::ok() const { return std::isfinite(slope) && std::isfinite(intercept); }

double LogLogFit::at(double x) const { return ok() && x > 0 ? std::exp(intercept + slope * std::log(x)) : kNaN; }

LogLogFit fitLogLog(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> lx, ly;
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    if (std::isfinite(x[i]) && std::isfinite(y[i]) && x[i] > 0 && y[i] > 0) {
      lx.push_back(std::log(x[i]));
      ly.push_back(std::log(y[i]));
    }
  }
  LogLogFit f;
  f.points = static_cast<int>(lx.size());
  if (f.points < 2) return f;
  double mx = 0, my = 0;
  for (int i = 0; i < f.points; ++i) mx += lx[i], my += ly[i];
  mx /= f.points;
  my /= f.points;
  double sxx = 0, sxy = 0;
  for (int i = 0; i < f.points; ++i) {
    sxx += (lx[i] - mx) * (lx[i] - mx);
    sxy += (lx[i] - mx) * (ly[i] - my);
  }
  if (!(sxx > 1e-12 * std::max(1.0, mx * mx))) return f;  // all x equal: no slope
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  return f;
}

RatePrediction predictedRate(const SweepConfiguration& c) {
  if (c.model == SweepModel::Vi || c.model == SweepModel::DpVi)
    return {kNaN, "no theorem in the seeds (variational inference)"};
  if (c.edges == 0)
    return {-0.5, "seed 000 Lemma 29 (Anandkumar et al. 2012): ||mu_i - mu^_i|| <= C2 (alpha0+1)^2 k^3/"
                  "(p_min^2 sigma_k(mu) sqrt(N)): N^-0.5"};
  if (c.privateDecomposition) return {kNaN, "no theorem in the seeds for e6 by seed 004's private power method"};
  if (c.whitened.enabled) return {kNaN, "no theorem in the seeds (the whitened release, docs/PRIVACY.md §11)"};
  if (c.clipMoments)
    return {kNaN, "no theorem in the seeds: the noise shrinks as 1/N (clipped sensitivities, docs/PRIVACY.md "
                  "§12) but the clipping bias does not, so the loss against the unclipped fit flattens"};
  const char* source = c.edges == presetEdges(Preset::Config1)   ? kConfig1
                       : c.edges == presetEdges(Preset::Config2) ? kConfig2
                       : c.edges == presetEdges(Preset::Config3) ? kConfig3
                       : c.edges == presetEdges(Preset::Config4) ? kConfig4
                                                                 : nullptr;
  if (!source) return {kNaN, "no theorem in the seeds for this edge set"};
  return {-1.0, source};  // an accountant (/gdp) changes the constant tau, not the power of N
}

std::vector<ErrorVsNFit> fitErrorVsN(const SweepResult& r) {
  std::vector<ErrorVsNFit> out;
  const SweepSpec& s = r.spec;
  const int C = static_cast<int>(r.cases.size());
  if (C < 2 || s.releaseOnly) return out;
  if (std::none_of(r.cases.begin(), r.cases.end(), [](const SweepCaseInfo& i) { return i.hasTruth; })) return out;
  for (int g = 0; g < static_cast<int>(s.configurations.size()); ++g) {
    const SweepConfiguration& cfg = s.configurations[g];
    const bool baseline = cfg.model == SweepModel::Spectral && cfg.edges == 0;
    for (int e = 0; e < static_cast<int>(s.epsilons.size()); ++e) {
      if (baseline && e > 0) break;  // the same at every ε
      ErrorVsNFit f;
      f.configIndex = g;
      f.epsilonIndex = e;
      f.theory = predictedRate(cfg);
      f.quantity = baseline ? "error vs truth" : "utility loss";
      auto value = [&](const QuantileSummary& err, const QuantileSummary& loss) {
        return baseline ? err.median : loss.median;
      };
      std::vector<double> n, y, excess, excessN;
      std::vector<std::pair<PointUse, int>> left;
      for (int c = 0; c < C; ++c) {
        const PointUse use = pointUse(r, c, g, e);
        if (use != PointUse::Used) {
          left.emplace_back(use, c);
          continue;
        }
        const SweepSummaryRow& row = r.summaryRow(c, g, e);
        f.cases.push_back(c);
        n.push_back(r.cases[c].docCount);
        y.push_back(value(row.errorL2, row.lossL2));
        const double over = row.errorL2.median - r.cases[c].baselineErrorL2;
        if (!baseline && over > 0) {
          excess.push_back(over);
          excessN.push_back(r.cases[c].docCount);
        }
      }
      f.median = fitLogLog(n, y);
      if (!baseline) f.excess = fitLogLog(excessN, excess);
      // The range: trial t's own slope over the same N (its row at every one of them released). A
      // running sweep (the app's live view) has its summary rows but no trial rows yet: no range.
      const bool haveRows = r.rows.size() == r.summary.size() * static_cast<std::size_t>(s.trials);
      if (f.median.ok() && haveRows) {
        for (int t = 0; t < s.trials; ++t) {
          std::vector<double> ty;
          for (int c : f.cases) {
            const SweepRow& row = r.row(c, g, e, t);
            ty.push_back(row.released ? (baseline ? row.errorL2 : row.lossL2) : kNaN);
          }
          if (std::any_of(ty.begin(), ty.end(), [](double v) { return !(v > 0); })) continue;
          const LogLogFit tf = fitLogLog(n, ty);
          if (!tf.ok()) continue;
          f.trialMin = f.trialFits ? std::min(f.trialMin, tf.slope) : tf.slope;
          f.trialMax = f.trialFits ? std::max(f.trialMax, tf.slope) : tf.slope;
          ++f.trialFits;
        }
      }
      if (!f.median.ok())
        f.note = "not fitted: " + std::to_string(f.median.points) + " usable N value(s)" +
                 (left.empty() ? std::string(" (the N are all equal)") : "; " + leftOutText(r, left));
      else if (!left.empty())
        f.note = "left out: " + leftOutText(r, left);
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::string errorVsNMarkdown(const SweepResult& r) {
  const std::vector<ErrorVsNFit> fits = fitErrorVsN(r);
  if (fits.empty()) return "";
  const SweepSpec& s = r.spec;
  std::ostringstream o;
  o << "\n## Error against N: fitted slopes beside the theory\n\n"
       "Least-squares slope of log(median) against log N over the cases N = ";
  for (std::size_t c = 0; c < r.cases.size(); ++c) o << (c ? ", " : "") << r.cases[c].docCount;
  o << ". For the private configurations the median is the **utility loss** ||mu^_i - mu~_i|| (mean l2 per topic "
       "against the non-private output of the same corpus): the privacy term that the second O~ term of seed 002's "
       "Theorems 10, 12, 14 and 16 bounds, so nothing is subtracted. The slope of the excess error (median error vs "
       "the truth minus the non-private error, where positive) is beside it. For the non-private baseline (none) the "
       "median is its error vs the truth, which Lemma 29 bounds. A point enters a fit when at least half its trials "
       "released and its median error is below half the random guess's (above that the noise has swamped the topics "
       "and the error saturates: the theorems, first-order perturbation bounds, do not apply there). The range is "
       "the smallest and largest slope of the single trials over the same N (trial t shares its noise seed across "
       "N). The theory gives rates with unknown constants: only the exponents are compared.\n\n";
  o << "| configuration | epsilon | fitted quantity | N used | slope (median) | trial range | excess-error slope "
       "| theory | note |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const ErrorVsNFit& f : fits) {
    const SweepConfiguration& cfg = s.configurations[f.configIndex];
    const bool baseline = cfg.model == SweepModel::Spectral && cfg.edges == 0;
    std::string used;
    for (int c : f.cases) used += (used.empty() ? "" : ", ") + std::to_string(r.cases[c].docCount);
    o << "| " << cfg.label << " | " << (baseline ? std::string("–") : shortNumber(s.epsilons[f.epsilonIndex]))
      << " | " << f.quantity << " | " << (used.empty() ? std::string("–") : used) << " | **"
      << signedText(f.median.slope) << "** | "
      << (f.trialFits ? signedText(f.trialMin) + " .. " + signedText(f.trialMax) + " (" +
                            std::to_string(f.trialFits) + " trials)"
                      : std::string("–"))
      << " | " << signedText(f.excess.slope) << " | " << signedText(f.theory.exponent) << " | "
      << (f.note.empty() ? std::string("–") : f.note) << " |\n";
  }
  o << "\nWhere the theory's exponents come from (at fixed epsilon and delta the factor tau_{epsilon,delta} is a "
       "constant; every sensitivity of SPEC §9 is proportional to 1/N, and sigma~_k, gamma~_s tend to sigma_k, "
       "gamma_s as their Laplace noise shrinks as 1/N):\n\n";
  std::vector<std::string> seen;
  for (const ErrorVsNFit& f : fits) {
    const std::string& label = s.configurations[f.configIndex].label;
    if (std::find(seen.begin(), seen.end(), label) != seen.end()) continue;
    seen.push_back(label);
    o << "- " << label << ": " << signedText(f.theory.exponent) << " — " << f.theory.source << "\n";
  }
  o << "\nThe sound bounds keep the theorems' 1/N: they change constants (the public upper bounds on sigma_1, the "
       "sqrt(k) of joint releases), not the power of N.\n";
  return o.str();
}

std::string errorVsNCsv(const SweepResult& r) {
  std::ostringstream o;
  o << "configuration,epsilon,quantity,n_used,slope,intercept,trial_slope_min,trial_slope_max,trials_fitted,"
       "excess_slope,theory_slope,theory_source,note\n";
  for (const ErrorVsNFit& f : fitErrorVsN(r)) {
    std::string used;
    for (int c : f.cases) used += (used.empty() ? "" : " ") + std::to_string(r.cases[c].docCount);
    const SweepConfiguration& cfg = r.spec.configurations[f.configIndex];
    const bool baseline = cfg.model == SweepModel::Spectral && cfg.edges == 0;  // the same at every epsilon
    o << csvCell(cfg.label) << "," << (baseline ? std::string() : csvNumberText(r.spec.epsilons[f.epsilonIndex]))
      << "," << csvCell(f.quantity) << "," << csvCell(used) << "," << csvOptional(f.median.slope) << ","
      << csvOptional(f.median.intercept) << "," << csvOptional(f.trialMin) << "," << csvOptional(f.trialMax) << ","
      << f.trialFits << "," << csvOptional(f.excess.slope) << "," << csvOptional(f.theory.exponent) << ","
      << csvCell(f.theory.source) << "," << csvCell(f.note) << "\n";
  }
  return o.str();
}

}  // namespace dplda
