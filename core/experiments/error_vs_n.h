#pragma once
// Theory beside measurement (issue 25 §4): how the error of each configuration shrinks with the
// number of documents N at a fixed ε, fitted as a slope on log–log axes and printed beside the
// exponent the seeds' utility theorems predict.
//
// What is fitted, per (configuration, ε): the least-squares slope of log(median utility loss)
// against log N, where the utility loss is ‖μ̂_i − μ̃_i‖ (mean ℓ2 per topic, the private output
// against the non-private one of the same corpus). That is the quantity the second Õ term of
// seed 002's Theorems 10/12/14/16 bounds ("the difference between the private estimator and the
// non-private estimator"), so nothing needs subtracting. The excess error, median error vs the
// truth minus the non-private error, is fitted beside it where it is positive. The non-private
// baseline ("none") is fitted on its error vs the truth (Lemma 29's 1/√N).
//
// Which points enter a fit: the N where at least half the trials released and the median error
// is below half the random guess's error. Above that the noise has swamped the topics and the
// error saturates near the guess: the theorems (first-order perturbation bounds) say nothing there.
// The range beside each slope is the min–max of the per-trial slopes over the same N (trial t of
// every N shares its noise seed; a trial missing one of the N is left out of the range).
#include <limits>
#include <string>
#include <vector>

#include "core/experiments/sweep.h"

namespace dplda {

// log y = intercept + slope·log x (natural logs), by least squares over the points with finite,
// positive x and y. slope is NaN with fewer than two such points or when their x are all equal.
struct LogLogFit {
  int points = 0;
  double slope = std::numeric_limits<double>::quiet_NaN();
  double intercept = std::numeric_limits<double>::quiet_NaN();
  bool ok() const;
  double at(double x) const;  // exp(intercept)·x^slope
};
LogLogFit fitLogLog(const std::vector<double>& x, const std::vector<double>& y);

// The exponent of N in the theory's bound on what is fitted for a configuration (NaN: no seed
// theorem covers it), with the theorem it comes from.
struct RatePrediction {
  double exponent = std::numeric_limits<double>::quiet_NaN();
  std::string source;
};
RatePrediction predictedRate(const SweepConfiguration& config);

struct ErrorVsNFit {
  int configIndex = 0, epsilonIndex = 0;
  std::string quantity;            // "utility loss" or "error vs truth" (the non-private baseline)
  std::vector<int> cases;          // the cases (N values) the fit used
  LogLogFit median;                // of the medians
  double trialMin = std::numeric_limits<double>::quiet_NaN();
  double trialMax = std::numeric_limits<double>::quiet_NaN();
  int trialFits = 0;               // trials behind the range
  LogLogFit excess;                // median error − non-private error (private configurations)
  RatePrediction theory;
  std::string note;                // why there is no fit, or which points were left out
};

// One fit per shown configuration and ε (empty for a sweep of one case or without a truth).
std::vector<ErrorVsNFit> fitErrorVsN(const SweepResult& result);
// "## Error against N: fitted slopes beside the theory" with the table and the theorems.
std::string errorVsNMarkdown(const SweepResult& result);
// slopes.csv: one row per fit.
std::string errorVsNCsv(const SweepResult& result);

}  // namespace dplda
