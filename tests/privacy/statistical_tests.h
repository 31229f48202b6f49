#pragma once
// Small statistical helpers for tests of noise samplers and mechanisms: Kolmogorov-Smirnov
// statistics with asymptotic p-values, normal / Laplace CDFs, a binomial tail, and the exact
// binomial confidence bounds of core/privacy/audit.h.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <vector>

#include "core/privacy/audit.h"

namespace dplda::stat {

inline double normalCdf(double x, double sigma) { return 0.5 * std::erfc(-x / (sigma * std::numbers::sqrt2)); }

inline double laplaceCdf(double x, double scale) {
  return x < 0.0 ? 0.5 * std::exp(x / scale) : 1.0 - 0.5 * std::exp(-x / scale);
}

// One-sample KS statistic sup_x |F_n(x) - F(x)|.
inline double ksStatistic(std::vector<double> samples, const std::function<double(double)>& cdf) {
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  double d = 0.0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double f = cdf(samples[i]);
    d = std::max({d, (i + 1) / n - f, f - i / n});
  }
  return d;
}

// Two-sample KS statistic sup_x |F_a(x) - F_b(x)|.
inline double ksTwoSampleStatistic(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  std::size_t i = 0, j = 0;
  double d = 0.0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
    d = std::max(d, std::abs(i / na - j / nb));
  }
  return d;
}

// P(K > lambda) for the Kolmogorov distribution: 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 lambda^2).
inline double kolmogorovTail(double lambda) {
  if (lambda < 0.2) return 1.0;
  double sum = 0.0;
  for (int k = 1; k <= 100; ++k) {
    const double term = std::exp(-2.0 * k * k * lambda * lambda);
    sum += (k % 2 == 1 ? term : -term);
    if (term < 1e-18) break;
  }
  return std::clamp(2.0 * sum, 0.0, 1.0);
}

// Asymptotic p-value of a KS statistic d from n samples (Stephens' small-sample correction);
// for two samples pass n = na nb / (na + nb).
inline double ksPValue(double d, double n) {
  const double sn = std::sqrt(n);
  return kolmogorovTail((sn + 0.12 + 0.11 / sn) * d);
}

// P(X >= k) for X ~ Binomial(n, p), each term in log space; P(X <= k) = 1 - P(X >= k + 1).
inline double binomialUpperTail(int n, int k, double p) {
  if (k <= 0) return 1.0;
  if (k > n || p <= 0.0) return 0.0;
  if (p >= 1.0) return 1.0;
  double sum = 0.0;
  for (int i = k; i <= n; ++i) {
    const double logTerm = std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                           i * std::log(p) + (n - i) * std::log1p(-p);
    sum += std::exp(logTerm);
  }
  return std::min(sum, 1.0);
}

// Sample variance and covariance (unbiased).
inline double sampleCovariance(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0.0, my = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double c = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) c += (x[i] - mx) * (y[i] - my);
  return c / (n - 1.0);
}

// Exact (Clopper-Pearson) bounds and the incomplete beta live in core (core/privacy/audit.h),
// shared with the app's Audit tab.
using privacy_audit::clopperPearsonLower;
using privacy_audit::clopperPearsonUpper;
using privacy_audit::regularizedIncompleteBeta;

}  // namespace dplda::stat
