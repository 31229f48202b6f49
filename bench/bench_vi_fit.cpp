// bench_vi_fit: one batch VI or DP-VI fit on figure2-vi's kind of corpus (d 50, k 5, N 1e5,
// α0 1, Poisson(100) lengths), one thread; for profiling the E-step and for checking what an
// E-step setting does to the error against the truth.
//
//   bench_vi_fit [--docs N] [--epsilon E | --vi] [--tol T] [--max-iter M] [--passes P]
//                [--data-seed S] [--init-seed S] [--noise-seed S] [--repeats R]
//
// Prints one line per repeat: ms, E-step updates, visits at the cap, L2 error against the truth.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/common/random.h"
#include "core/corpus/synthetic_generator.h"
#include "core/eval/metrics.h"
#include "core/experiments/presets.h"
#include "core/vi/dp_vi.h"

using namespace dplda;

int main(int argc, char** argv) {
  int docs = 100000, maxIter = 100, passes = 10, repeats = 1;
  double epsilon = 1.0, tol = 1e-3;
  bool vi = false;
  std::uint64_t dataSeed = 1, initSeed = 1, noiseSeed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--docs") docs = std::atoi(next());
    else if (a == "--epsilon") epsilon = std::atof(next());
    else if (a == "--vi") vi = true;
    else if (a == "--tol") tol = std::atof(next());
    else if (a == "--max-iter") maxIter = std::atoi(next());
    else if (a == "--passes") passes = std::atoi(next());
    else if (a == "--data-seed") dataSeed = std::strtoull(next(), nullptr, 10);
    else if (a == "--init-seed") initSeed = std::strtoull(next(), nullptr, 10);
    else if (a == "--noise-seed") noiseSeed = std::strtoull(next(), nullptr, 10);
    else if (a == "--repeats") repeats = std::atoi(next());
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  GeneratorParams g = figure2Generator(docs, 5, 1.0);
  g.seed = dataSeed;
  auto data = generateLdaCorpus(g);
  if (!data.ok()) {
    std::fprintf(stderr, "%s\n", data.status().message().c_str());
    return 1;
  }
  const SyntheticCorpus& sc = data.value();
  DpViOptions o;  // presets.cpp addVariationalBaselines
  o.vi.method = ViMethod::Batch;
  o.vi.iterations = passes;
  o.vi.alpha0 = 1.0;
  o.vi.seed = initSeed;
  o.vi.threads = 1;
  o.vi.estepTolerance = tol;
  o.vi.estepMaxIterations = maxIter;
  o.clip = 10.0;
  o.epsilon = epsilon;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    ViFit fit;
    if (vi) {
      auto f = fitVi(sc.corpus, 5, o.vi);
      if (!f.ok()) return 1;
      fit = f.value();
    } else {
      SeededRandom noise(noiseSeed);
      auto f = fitDpVi(sc.corpus, 5, o, noise);
      if (!f.ok()) {
        std::fprintf(stderr, "%s\n", f.status().message().c_str());
        return 1;
      }
      fit = f.value().fit;
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const TopicErrors e = compareTopics(sc.truth.topics, sc.truth.alpha, fit.model.topics, fit.model.alpha);
    std::printf("%s eps %g tol %g: %.0f ms, %lld E-step updates (%.2f per visit), %lld at the cap, error L2 %.6f\n",
                vi ? "vi" : "dp-vi", vi ? 0.0 : epsilon, tol, ms, fit.estepIterations,
                static_cast<double>(fit.estepIterations) / (static_cast<double>(docs) * passes), fit.estepNotConverged,
                e.l2Mean);
  }
  return 0;
}
