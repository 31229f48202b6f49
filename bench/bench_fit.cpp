// bench_fit: wall time, peak memory and recovery error of the non-private spectral fit.
//
//   bench_fit --corpus DIR --topics K [--truth FILE] [--repeats R] [--decomposer fast|robust|simultaneous]
//             [--eigen auto|block|spectra|dense] [--alpha0 A] [--seed S] [--save-model FILE]
//
// --save-model writes the fitted (alpha, topics) in the truth.json format, so another
// implementation can be scored against this one (bench/numpy_spectral.py --truth FILE).
//
// Loads the corpus once, then runs the whole pipeline R times, each with a fresh
// SpectralPipeline (so nothing is reused from a cache), and prints one JSON line on stdout:
// median/min/max fit time, per-stage medians, peak resident memory and the error vs the truth.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"
#include "core/eval/metrics.h"
#include "core/pipeline/spectral_pipeline.h"

namespace {

using Clock = std::chrono::steady_clock;

double elapsedMs(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// CPU time of the whole process (all threads): robust to other jobs on a shared machine.
double processCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// Threads the OpenMP parts of the core may use (1 without OpenMP).
int maxThreads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

// Peak resident set of this process so far (Linux reports ru_maxrss in KiB).
double peakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Current resident set from /proc/self/statm (pages); NaN where unavailable.
double currentRssMiB() {
  std::ifstream statm("/proc/self/statm");
  long long sizePages = 0, residentPages = 0;
  if (!(statm >> sizePages >> residentPages)) return std::nan("");
  return static_cast<double>(residentPages) * 4096.0 / (1024.0 * 1024.0);
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "bench_fit: " << problem << "\n"
            << "usage: bench_fit --corpus DIR --topics K [--truth FILE] [--repeats R]\n"
            << "                 [--decomposer fast|robust|simultaneous] [--eigen auto|block|spectra|dense]\n"
            << "                 [--alpha0 A] [--seed S]\n"
            << "                 [--save-model FILE]\n";
  std::exit(2);
}

struct Args {
  std::string corpus, truth, saveModel, decomposer = "fast", eigen = "auto";
  int topics = 0, repeats = 5;
  double alpha0 = 1.0;
  std::uint64_t seed = 1;
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string key = argv[i];
    if (i + 1 >= argc) usage("missing value after " + key);
    const std::string value = argv[++i];
    try {
      std::size_t used = 0;
      if (key == "--corpus") a.corpus = value;
      else if (key == "--truth") a.truth = value;
      else if (key == "--decomposer") a.decomposer = value;
      else if (key == "--eigen") a.eigen = value;
      else if (key == "--save-model") a.saveModel = value;
      else if (key == "--topics") a.topics = std::stoi(value, &used);
      else if (key == "--repeats") a.repeats = std::stoi(value, &used);
      else if (key == "--alpha0") a.alpha0 = std::stod(value, &used);
      else if (key == "--seed") a.seed = std::stoull(value, &used);
      else usage("unknown option " + key);
      if (used != 0 && used != value.size()) usage("bad number for " + key + ": '" + value + "'");
    } catch (const std::exception&) {
      usage("bad number for " + key + ": '" + value + "'");
    }
  }
  if (a.corpus.empty()) usage("--corpus is required");
  if (a.topics < 1) usage("--topics must be >= 1");
  if (a.repeats < 1) usage("--repeats must be >= 1");
  if (a.eigen != "auto" && a.eigen != "block" && a.eigen != "spectra" && a.eigen != "dense")
    usage("--eigen must be auto, block, spectra or dense");
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parseArgs(argc, argv);

  const auto loadStart = Clock::now();
  auto loaded = dplda::readUciCorpus(args.corpus);
  if (!loaded.ok()) {
    std::cerr << "bench_fit: " << loaded.status().toString() << "\n";
    return 3;
  }
  auto corpus = std::make_shared<const dplda::Corpus>(std::move(loaded).value());
  const double loadMs = elapsedMs(loadStart);
  const double rssAfterLoad = currentRssMiB();
  const double peakAfterLoad = peakRssMiB();

  std::optional<dplda::LdaModel> truth;
  if (!args.truth.empty()) {
    auto t = dplda::readTruthJson(args.truth);
    if (!t.ok()) {
      std::cerr << "bench_fit: " << t.status().toString() << "\n";
      return 3;
    }
    truth = std::move(t).value();
    if (truth->vocabSize() != corpus->vocabSize()) {
      std::cerr << "bench_fit: the truth has " << truth->vocabSize() << " words, the corpus "
                << corpus->vocabSize()
                << "\n";
      return 3;
    }
  }

  dplda::SpectralOptions options;
  options.topicCount = args.topics;
  options.alpha0 = args.alpha0;
  options.decomposer = args.decomposer;
  options.initSeed = args.seed;
  options.eigenSolver = args.eigen == "block"     ? dplda::EigenSolverChoice::Block
                        : args.eigen == "spectra" ? dplda::EigenSolverChoice::Spectra
                        : args.eigen == "dense"   ? dplda::EigenSolverChoice::Dense
                                                  : dplda::EigenSolverChoice::Automatic;

  std::vector<double> fitMs, cpuMs;
  std::map<std::string, std::vector<double>> stageMs;
  std::vector<std::string> stageOrder;
  dplda::SpectralModel model;
  bool identical = true;  // same seed, same corpus: every repeat must give the same topics
  for (int r = 0; r < args.repeats; ++r) {
    dplda::SpectralPipeline pipeline;
    pipeline.setCorpus(corpus);
    pipeline.setOptions(options);
    const auto start = Clock::now();
    const double cpuStart = processCpuMs();
    auto result = pipeline.run();
    fitMs.push_back(elapsedMs(start));
    cpuMs.push_back(processCpuMs() - cpuStart);
    if (!result.ok()) {
      std::cerr << "bench_fit: the fit failed: " << result.status().toString() << "\n";
      return 4;
    }
    for (const auto& t : pipeline.timings()) {
      if (!stageMs.count(t.stage)) stageOrder.push_back(t.stage);
      stageMs[t.stage].push_back(t.milliseconds);
    }
    if (r > 0 && result.value().output.topics != model.output.topics) identical = false;
    model = std::move(result).value();
  }

  std::ostringstream json;
  json << "{\"tool\":\"bench_fit\",\"corpus\":" << jsonString(args.corpus)
       << ",\"docs\":" << corpus->docCount()
       << ",\"vocab\":" << corpus->vocabSize() << ",\"nnz\":" << corpus->nnz()
       << ",\"dropped_docs\":" << corpus->droppedDocuments << ",\"topics\":" << args.topics
       << ",\"alpha0\":" << jsonNumber(args.alpha0)
       << ",\"decomposer\":" << jsonString(model.eigenpairs.method)
       << ",\"eigen_method\":" << jsonString(model.eigen.method)
       << ",\"eigen_operator_products\":" << model.eigen.operatorProducts
       << ",\"eigen_block_products\":" << model.eigen.blockProducts
       << ",\"eigen_block_width\":" << model.eigen.blockWidth
       << ",\"eigen_max_residual\":" << jsonNumber(model.eigen.maxResidual)
       << ",\"eigen_trailing_residual\":" << jsonNumber(model.eigen.trailingResidual) << ",\"threads\":" << maxThreads()
       << ",\"repeats\":" << args.repeats
       << ",\"load_ms\":" << jsonNumber(loadMs) << ",\"fit_ms\":{\"median\":" << jsonNumber(median(fitMs))
       << ",\"min\":" << jsonNumber(*std::min_element(fitMs.begin(), fitMs.end()))
       << ",\"max\":" << jsonNumber(*std::max_element(fitMs.begin(), fitMs.end()))
       << "},\"cpu_ms\":{\"median\":" << jsonNumber(median(cpuMs))
       << ",\"min\":" << jsonNumber(*std::min_element(cpuMs.begin(), cpuMs.end())) << "},\"stages_ms\":{";
  for (std::size_t i = 0; i < stageOrder.size(); ++i) {
    json << (i ? "," : "") << jsonString(stageOrder[i]) << ":" << jsonNumber(median(stageMs[stageOrder[i]]));
  }
  json << "},\"rss_after_load_mib\":" << jsonNumber(rssAfterLoad)
       << ",\"peak_rss_after_load_mib\":" << jsonNumber(peakAfterLoad)
       << ",\"peak_rss_mib\":" << jsonNumber(peakRssMiB())
       << ",\"repeats_identical\":" << (identical ? "true" : "false")
       << ",\"decomposer_iterations\":" << model.eigenpairs.iterations
       << ",\"decomposer_converged\":" << (model.eigenpairs.converged() ? "true" : "false")
       << ",\"sigma_k\":" << jsonNumber(model.whitening.sigmaK())
       << ",\"gamma_s\":" << jsonNumber(model.gammaS);
  if (truth) {
    if (truth->topicCount() > args.topics) {
      std::cerr << "bench_fit: the truth has " << truth->topicCount() << " topics but only " << args.topics
                << " were fitted; no error reported\n";
      json << ",\"error\":null";
    } else {
      const dplda::TopicErrors err =
          dplda::compareTopics(truth->topics, truth->alpha, model.output.topics, model.output.alpha);
      json << ",\"error\":{\"l2_mean\":" << jsonNumber(err.l2Mean)
           << ",\"l1_mean\":" << jsonNumber(err.l1Mean)
           << ",\"alpha\":" << jsonNumber(err.alphaError) << "}";
    }
  }
  json << "}";
  if (!args.saveModel.empty()) {
    dplda::LdaModel fitted{model.output.alpha, model.output.topics};
    const dplda::Status saved = dplda::writeTruthJson(fitted, args.saveModel);
    if (!saved.isOk()) {
      std::cerr << "bench_fit: could not save the model: " << saved.toString() << "\n";
      return 3;
    }
  }
  std::cout << json.str() << std::endl;
  return 0;
}
