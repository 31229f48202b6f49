// Range checks of a variational run's public parameters, shared by the CLI and the app.
#include "core/vi/vi_parameters.h"

#include <cmath>

#include "core/common/number_text.h"

namespace dplda {

bool operator==(const ViRunParameters& a, const ViRunParameters& b) {
  return a.method == b.method && a.iterations == b.iterations && a.batchSize == b.batchSize && a.tau0 == b.tau0 &&
         a.kappa == b.kappa && a.clip == b.clip && a.learnAlpha == b.learnAlpha;
}

std::vector<ViParameterProblem> checkViRunParameters(const ViRunParameters& p, bool isPrivate) {
  std::vector<ViParameterProblem> out;
  auto wholeIn = [&](const char* option, int value, int lo, int hi) {
    if (value < lo || value > hi) {
      out.push_back({option, "--" + std::string(option) + " must be a whole number in " + std::to_string(lo) + ".." +
                                 std::to_string(hi) + ", got " + std::to_string(value)});
    }
  };
  wholeIn("iterations", p.iterations, 1, kMaxViIterations);
  if (isMinibatch(p.method)) {
    wholeIn("batch-size", p.batchSize, 1, kMaxViBatchSize);
    if (!(p.tau0 >= 1 && p.tau0 <= kMaxViTau0)) {
      out.push_back({"tau0", "--tau0 must be in [1, 1e12], got " + shortNumber(p.tau0)});
    }
    if (!(p.kappa > 0.5 && p.kappa <= 1)) {
      out.push_back({"kappa", "--kappa must be in (0.5, 1], got " + shortNumber(p.kappa)});
    }
  }
  if (isPrivate && !(p.clip > 0 && p.clip <= kMaxViClip)) {
    out.push_back({"clip", "--clip must be in (0, 1e12], got " + shortNumber(p.clip)});
  }
  return out;
}

std::string holdoutFractionProblem(double f) {
  if (f > 0.0 && f < 1.0) return std::string();
  return "--holdout must be a fraction in (0, 1) (e.g. 0.1), got " + shortNumber(f);
}

ViOptions toViOptions(const ViRunParameters& p, double alpha0, std::uint64_t seed) {
  ViOptions o;
  o.method = p.method;
  o.iterations = p.iterations;
  o.batchSize = p.batchSize;
  o.tau0 = p.tau0;
  o.kappa = p.kappa;
  o.alpha0 = alpha0;
  o.learnAlpha = p.learnAlpha;
  o.seed = seed;
  return o;
}

}  // namespace dplda
