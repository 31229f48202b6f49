// bench_seed004: wall and CPU time of seed 004's online and private tensor power methods.
//
//   bench_seed004 private [--d 200] [--k 10] [--L 20] [--R 30] [--dense [--unpacked]] [--repeats 5]
//       Algorithm 3 (gaussian accountant, ε = 1, δ = 1e-5, entry-level neighbours) on
//       T = Σ λ_i v_i^3 with incoherent v_i: through its O(dk) contraction, or with --dense on the
//       d x d x d tensor it forms (the cost of a general tensor), contracted through its packed
//       copy (PackedTensorOperator, built inside the timed region) or, with --unpacked, through
//       the k^2 x k unfolding (DenseTensorOperator).
//   bench_seed004 online [--docs 100000] [--n 10000] [--R 30] [--repeats 5] [--threads T]
//       Algorithm 2 on the figure-2 corpus (d = 50, k = 5, α0 = 1, β = 0.1, Poisson(100)
//       lengths, seed 1), after W: k components, R steps of n documents each. Also times the
//       batch reference (whitenedThirdMoment + RobustPowerMethod) for comparison.
//
// Prints one JSON line: median/min/max wall ms, median CPU ms, and what was run.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/corpus/synthetic_generator.h"
#include "core/experiments/dp_tpm.h"
#include "core/moments/moments.h"
#include "core/tensor/low_rank_tensor.h"
#include "core/tensor/online_power_method.h"
#include "core/tensor/private_power_method.h"
#include "core/whitening/whitening.h"

namespace {

using namespace dplda;
using Clock = std::chrono::steady_clock;

double cpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

int intArg(int argc, char** argv, const char* name, int fallback) {
  for (int i = 2; i + 1 < argc; ++i)
    if (std::string(argv[i]) == name) return std::atoi(argv[i + 1]);
  return fallback;
}

bool flag(int argc, char** argv, const char* name) {
  for (int i = 2; i < argc; ++i)
    if (std::string(argv[i]) == name) return true;
  return false;
}

template <class F>
void timeIt(int repeats, const char* what, const std::string& params, F&& f) {
  std::vector<double> wall, cpu;
  std::string extra;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    const double c0 = cpuMs();
    extra = f();
    cpu.push_back(cpuMs() - c0);
    wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::printf("{\"bench\": \"%s\", %s, \"repeats\": %d, \"wall_ms_median\": %.2f, \"wall_ms_min\": %.2f, "
              "\"wall_ms_max\": %.2f, \"cpu_ms_median\": %.2f%s}\n",
              what, params.c_str(), repeats, median(wall), *std::min_element(wall.begin(), wall.end()),
              *std::max_element(wall.begin(), wall.end()), median(cpu), extra.c_str());
  std::fflush(stdout);
}

int privateBench(int argc, char** argv) {
  const int d = intArg(argc, argv, "--d", 200), k = intArg(argc, argv, "--k", 10);
  const int L = intArg(argc, argv, "--L", 20), R = intArg(argc, argv, "--R", 30);
  const int repeats = intArg(argc, argv, "--repeats", 5);
  const bool dense = flag(argc, argv, "--dense"), unpacked = flag(argc, argv, "--unpacked");
  const Eigen::MatrixXd V = dpTpmBasis(d, k, 0.0);
  const Eigen::VectorXd lambda = Eigen::VectorXd::LinSpaced(k, 1000.0, 500.0);
  const LowRankTensorOperator lowRank(lambda, V);
  Tensor3 full;
  if (dense) full = symmetricFromComponents(lambda, V);
  const DenseTensorOperator denseOp(full);
  PrivatePowerOptions o;
  o.components = k;
  o.restarts = L;
  o.iterations = R;
#ifdef _OPENMP
  const int threads = omp_get_max_threads();
#else
  const int threads = 1;
#endif
  char params[240];
  std::snprintf(params, sizeof params,
                "\"d\": %d, \"k\": %d, \"L\": %d, \"R\": %d, \"tensor\": \"%s\", \"threads\": %d", d, k, L, R,
                !dense     ? "low-rank operator"
                : unpacked ? "dense d^3, unfolding"
                           : "dense d^3, packed",
                threads);
  std::uint64_t seed = 1;
  timeIt(repeats, "private_tpm", params, [&] {
    SeededRandom init(seed), noise(seed + 100);
    ++seed;
    std::optional<PackedTensorOperator> packed;  // built here: its cost is part of the run
    if (dense && !unpacked) packed.emplace(full);
    const SymmetricTensorOperator& T = !dense     ? static_cast<const SymmetricTensorOperator&>(lowRank)
                                       : packed ? static_cast<const SymmetricTensorOperator&>(*packed)
                                                : static_cast<const SymmetricTensorOperator&>(denseOp);
    auto r = privateRobustPowerMethod(T, TpmSensitivity::entryLevel(), 1.0, 1e-5, TpmAccountant::GaussianExact, o,
                                      init, noise);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().message().c_str());
      std::exit(1);
    }
    char extra[240];
    std::snprintf(extra, sizeof extra,
                  ", \"queries\": %lld, \"noise_draws\": %.0f, \"top_error\": %.4f, \"packed_mb\": %.1f",
                  r->ledger.queries, r->ledger.noiseDraws,
                  std::min((r->pairs.V.col(0) - V.col(0)).norm(), (r->pairs.V.col(0) + V.col(0)).norm()),
                  packed ? static_cast<double>(packed->bytes()) / 1e6 : 0.0);
    return std::string(extra);
  });
  return 0;
}

int onlineBench(int argc, char** argv) {
  const int docs = intArg(argc, argv, "--docs", 100000), n = intArg(argc, argv, "--n", 10000);
  const int R = intArg(argc, argv, "--R", 30), repeats = intArg(argc, argv, "--repeats", 5);
#ifdef _OPENMP
  if (int t = intArg(argc, argv, "--threads", 0); t > 0) omp_set_num_threads(t);
  const int threads = omp_get_max_threads();
#else
  const int threads = 1;
#endif
  GeneratorParams g;
  g.docCount = docs;
  const SyntheticCorpus sc = generateLdaCorpus(g).value();
  const Corpus& c = sc.corpus;
  const int k = g.topicCount;
  const Whitening w =
      whitenFromEigenpairs(topEigenpairs(secondMomentDense(c, g.alpha0).value(), k).value(), k).value();
  OnlinePowerOptions o;
  o.iterations = R;
  o.batchSize = n;
  char params[240];
  std::snprintf(params, sizeof params,
                "\"docs\": %d, \"nnz\": %lld, \"d\": %d, \"k\": %d, \"n\": %d, \"R\": %d, \"threads\": %d", docs,
                c.nnz(), c.vocabSize(), k, n, R, threads);
  timeIt(repeats, "online_tpm", params, [&] {
    SeededRandom init(1);
    auto r = onlineRobustPowerMethod(c, g.alpha0, w.W, o, init).value();
    char extra[160];
    std::snprintf(extra, sizeof extra, ", \"L\": %d, \"samples\": %lld, \"passes\": %.2f", r.restarts, r.samplesUsed,
                  r.passes);
    return std::string(extra);
  });
  timeIt(repeats, "batch_tensor_and_robust_tpm", params, [&] {
    SeededRandom init(1);
    const Tensor3 T = whitenedThirdMoment(c, g.alpha0, w.W).value();
    RobustPowerMethod().decompose(T, init).value();
    return std::string();
  });
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "private") return privateBench(argc, argv);
  if (mode == "online") return onlineBench(argc, argv);
  std::fprintf(stderr, "usage: bench_seed004 private|online [options] (see the comment at the top)\n");
  return 2;
}
