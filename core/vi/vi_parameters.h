#pragma once
// The public parameters of a variational run as a user gives them (`dplda run --model vi|dp-vi`
// and the app's model controls), with one set of range checks and messages: the command line and
// the app say the same thing about the same value. The deeper checks that need the corpus
// (k <= d, N >= 1, sizes) stay in validateViOptions / validateDpViOptions.
#include <cstdint>
#include <string>
#include <vector>

#include "core/vi/variational_lda.h"

namespace dplda {

inline constexpr int kMaxViBatchSize = 100000000;
inline constexpr double kMaxViTau0 = 1e12;
inline constexpr double kMaxViClip = 1e12;

struct ViRunParameters {
  ViMethod method = ViMethod::Online;
  int iterations = 10;    // passes over the training documents
  int batchSize = 128;    // online only: minibatch size S
  double tau0 = 10.0;     // online only: learning offset τ0
  double kappa = 0.7;     // online only: learning decay κ
  double clip = 10.0;     // DP-VI only: the public Frobenius bound C
  bool learnAlpha = false;  // α learned from the topics' token shares (ViOptions::learnAlpha); else α0/k each
};

bool operator==(const ViRunParameters& a, const ViRunParameters& b);

// One out-of-range value: `option` is the command line's name without dashes ("iterations",
// "batch-size", "tau0", "kappa", "clip"), `message` names it with dashes and gives the value,
// e.g. "--kappa must be in (0.5, 1], got 2".
struct ViParameterProblem {
  std::string option;
  std::string message;
};

// The problems of the values a run uses, in the order iterations, batch-size, tau0, kappa, clip:
// the online fields only for ViMethod::Online, clip only when `isPrivate` (DP-VI). Empty: valid.
std::vector<ViParameterProblem> checkViRunParameters(const ViRunParameters& p, bool isPrivate);

// A held-out fraction F: "" when 0 < F < 1, else "--holdout must be a fraction in (0, 1) (e.g.
// 0.1), got F". (0 means "no held-out evaluation" where a caller allows it.)
std::string holdoutFractionProblem(double fraction);

// The fit's options: the parameters, α0 (α = α0/k, or learned with total α0) and the
// start/visiting-order seed; every other ViOptions field keeps its default.
ViOptions toViOptions(const ViRunParameters& p, double alpha0, std::uint64_t seed);

}  // namespace dplda
