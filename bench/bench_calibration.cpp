// bench_calibration: the cost of calibrating Poisson-sampled DP-VI (calibrateSampledGaussian, one
// per (ε, δ, q, T) of a run or a sweep), on the settings the app and the headline preset use.
// Each row is calibrated once in a fresh process state (the cache is keyed on the arguments; the
// rows differ), printing σ/C found and the wall time.
//
//   bench_calibration            (rows: q, T of N = 1e4 .. 1e6 with S = 1000 and 1 or 10 passes)
#include <chrono>
#include <cstdio>

#include "core/privacy/sampled_gaussian.h"

using namespace dplda;

int main() {
  struct Row {
    double epsilon, q;
    long long t;
  };
  const Row rows[] = {{1.0, 0.1, 100},  {1.0, 0.01, 1000}, {0.1, 0.01, 1000},
                      {10.0, 0.01, 1000}, {1.0, 0.001, 1000}, {1.0, 0.00128, 7820}};
  std::printf("| epsilon | q | T | sigma/C | seconds |\n|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    const auto start = std::chrono::steady_clock::now();
    auto c = calibrateSampledGaussian(r.epsilon, 1e-5, r.q, r.t, 0.0);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("| %g | %g | %lld | %s | %.2f |\n", r.epsilon, r.q, r.t,
                c.ok() ? std::to_string(c->noiseMultiplier).c_str() : c.status().message().c_str(), s);
    std::fflush(stdout);
  }
}
