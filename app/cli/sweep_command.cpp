// dplda sweep: the experiment engine on the command line (SPEC §12–§13). Runs a preset of the
// papers' experiments or a custom ε sweep, writes the tables, the figures (the same ui/plots
// classes the app uses, rendered offscreen) and report.md.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QString>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/output_paths.h"
#include "core/common/text_escape.h"
#include "core/corpus/corpus_cache.h"
#include "core/corpus/truth_io.h"
#include "core/vi/vi_parameters.h"
#include "core/corpus/uci_io.h"
#include "core/experiments/presets.h"
#include "core/experiments/report.h"
#include "core/experiments/sweep.h"
#include "core/experiments/table_text.h"
#include "core/experiments/tpm_noise.h"
#include "ui/experiments/experiment_output.h"
#include "ui/experiments/seed004_run.h"

namespace dplda::cli {

namespace {

template <class T>
T takeValue(Result<T> r) {
  require(r.status());
  return std::move(r).value();
}

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::vector<ExportFormat> parseFormats(const std::string& text) {
  std::vector<ExportFormat> out;
  std::set<std::string> seen;
  for (const std::string& f : splitList(text)) {
    if (f == "none" && splitList(text).size() == 1) return {};
    if (!seen.insert(f).second) continue;
    if (f == "png")
      out.push_back(ExportFormat::Png);
    else if (f == "pdf")
      out.push_back(ExportFormat::Pdf);
    else if (f == "svg")
      out.push_back(ExportFormat::Svg);
    else
      throw UsageError("--formats takes png, pdf and svg separated by commas (or none), got " + quoteText(text));
  }
  return out;
}

std::string commandLine(const std::vector<std::string>& args) {
  std::string out = "dplda sweep";
  for (const std::string& a : args) {
    out += ' ';
    out += a.find_first_of(" \t'\"") == std::string::npos ? a : "'" + a + "'";
  }
  return out;
}

// Progress on stderr, one line per 10%.
class Progress {
 public:
  explicit Progress(std::string what) : m_what(std::move(what)) {}
  void attach(Feedback& fb) {
    fb.setProgressCallback([this](double f) {
      const int decile = static_cast<int>(std::floor(f * 10.0 + 1e-9));
      int last = m_last.load();
      while (decile > last && !m_last.compare_exchange_weak(last, decile)) {
      }
      if (decile > last) std::cerr << "dplda sweep: " << m_what << " " << decile * 10 << "%\n";
    });
  }

 private:
  std::string m_what;
  std::atomic<int> m_last{0};
};

// figure3's default corpus: the Debian package descriptions (about 60 000 documents, d = 8000),
// built once by the repository's bench/make_real_corpus.sh into out/corpora/debian under the
// working directory and reused afterwards. The package list is the machine's apt index, so the
// corpus is reproducible for a given Debian snapshot, not across archive updates.
std::string defaultFigure3Corpus() {
  const std::filesystem::path dir = std::filesystem::path("out") / "corpora" / "debian";
  const std::filesystem::path corpus = dir / "corpus";
  if (std::filesystem::exists(corpus / "docword.txt")) return corpus.string();
  const std::filesystem::path script = std::filesystem::path(DPLDA_SOURCE_DIR) / "bench" / "make_real_corpus.sh";
  if (!std::filesystem::exists(script)) {
    throw InputError("figure3 needs a real corpus: give --corpus DIR (the builder " + script.string() +
                     " is not on this machine)");
  }
  std::cerr << "dplda sweep: building the Debian package descriptions corpus into " << dir.string()
            << " (once; about a minute)\n";
  // The builder runs `dplda import-text`: the dplda program installed beside this one.
  const std::string dplda = (QCoreApplication::applicationDirPath() + "/dplda").toStdString();
  const std::string command = "bash '" + script.string() + "' '" + dplda + "' '" + dir.string() + "' 8000 >&2";
  if (std::system(command.c_str()) != 0 || !std::filesystem::exists(corpus / "docword.txt")) {
    throw InputError("building the Debian descriptions corpus failed (" + command +
                     "); give --corpus DIR with any UCI corpus instead");
  }
  return corpus.string();
}

}  // namespace

int sweepCommand(const std::vector<std::string>& args) {
  const Arguments a(
      args,
      {"preset", "out", "trials", "formats", "bounds", "threads", "seed", "corpus", "truth", "topics",
       "alpha0", "configs", "epsilons", "delta", "mechanism", "decomposer", "max-length", "accountant", "holdout",
       "clip", "iterations", "vi", "vi-alpha", "batch-size", "figure-size", "coherence-top-words"},
      {"share-releases", "separate-releases", "no-cache", "release-only", "force"});
  const std::filesystem::path out = a.text("out");
  const std::vector<ExportFormat> formats = parseFormats(a.text("formats", "png,pdf,svg"));
  QSize page;  // empty: the default 7.5 × 5 in figures
  if (a.has("figure-size")) {
    QString problem;
    page = PlotWidget::pageSizeFromText(QString::fromStdString(a.text("figure-size")), &problem);
    if (page.isEmpty()) throw UsageError("--figure-size: " + problem.toStdString());
  }
  // 0 = all cores; the range of validateSweepSpec. Digits only: "-0" is refused.
  const int threads = a.count("threads", 0, 1024, 0);
  std::optional<int> trials;
  if (a.has("trials")) {
    trials = a.integer("trials");
    if (*trials < 1) throw UsageError("--trials must be >= 1, got " + std::to_string(*trials));
  }
  std::optional<BoundSet> bounds;
  if (a.has("bounds")) {
    auto b = parseBoundSet(a.text("bounds"));
    if (!b.ok()) throw UsageError(b.status().message());
    bounds = b.value();
  }
  const std::uint64_t seed = a.seed("seed", 1);
  const std::string seedNote =
      "all seeds derived from --seed " + std::to_string(seed) + (a.has("seed") ? "" : " (the default)");

  // ---- the experiment ----
  ExperimentPreset preset;
  if (a.has("preset")) {
    const bool figure3 = a.text("preset") == "figure3";
    // sound-utility and headline add a real corpus only when given
    const bool realCorpusOptional = a.text("preset") == "sound-utility" || a.text("preset") == "headline";
    for (const char* custom : {"corpus", "truth", "topics", "alpha0", "configs", "epsilons", "delta",
                               "mechanism", "decomposer", "max-length", "share-releases", "separate-releases", "accountant", "holdout", "coherence-top-words",
                               "clip", "iterations", "vi", "vi-alpha", "batch-size"}) {
      if ((figure3 || realCorpusOptional) && std::string(custom) == "corpus") continue;  // runs on any real corpus
      if (a.has(custom)) throw UsageError(std::string("--") + custom + " cannot be combined with --preset");
    }
    PresetOverrides ov;
    if (figure3 || (realCorpusOptional && a.has("corpus"))) {
      const std::string dir = a.has("corpus") ? a.text("corpus") : defaultFigure3Corpus();
      ov.corpus = std::make_shared<const Corpus>(takeValue(loadUciCorpus(dir, CorpusCacheOptions{false})));
      ov.corpusDescription = dir + " (" + std::to_string(ov.corpus->docCount()) + " documents, d = " +
                             std::to_string(ov.corpus->vocabSize()) + ")";
    }
    ov.trials = trials;
    ov.bounds = bounds;
    ov.seed = seed;
    ov.threads = threads;
    auto p = makeExperimentPreset(a.text("preset"), ov);
    if (!p.ok()) throw UsageError(p.status().message());
    preset = std::move(p).value();
  } else {
    if (!a.has("corpus")) throw UsageError("give --preset NAME or --corpus DIR (see dplda --help)");
    preset.name = "sweep";
    preset.title = "epsilon sweep on " + a.text("corpus");
    preset.kind = ExperimentKind::ErrorSweep;
    SweepSpec& s = preset.sweep;
    s.name = "sweep";
    auto configs = parseConfigurations(a.text("configs", "none,1,2,3,4"));
    if (!configs.ok()) throw UsageError(configs.status().message());
    s.configurations = configs.value();
    auto eps = parseEpsilons(a.text("epsilons", "0.1:2:10"));
    if (!eps.ok()) throw UsageError(eps.status().message());
    s.epsilons = eps.value();
    s.delta = a.number("delta", s.delta);
    if (a.has("mechanism")) {
      auto m = parseMechanism(a.text("mechanism"));
      if (!m.ok()) throw UsageError(m.status().message());
      s.mechanism = m.value();
    }
    if (a.has("accountant")) {
      auto acc = parseAccountant(a.text("accountant"));
      if (!acc.ok()) throw UsageError(acc.status().message());
      s.accountant = acc.value();
    }
    if (bounds) s.bounds = *bounds;
    s.decomposer = a.text("decomposer", s.decomposer);
    if (s.decomposer != "online" && !makeDecomposer(s.decomposer).ok()) {
      throw UsageError("--decomposer must be robust, simultaneous, fast or online, got " + quoteText(s.decomposer));
    }
    s.maxLength = a.number("max-length", s.maxLength);
    if (!(s.maxLength >= 3.0 && s.maxLength <= kMaxClipLength)) {
      throw InputError("the clipping length L_max (--max-length) must be in [3, " +
                       std::to_string(static_cast<long long>(kMaxClipLength)) +
                       "], got " + a.text("max-length"));
    }
    if (a.flag("share-releases") && a.flag("separate-releases"))
      throw UsageError("--share-releases and --separate-releases contradict each other");
    s.shareReleases = !a.flag("separate-releases");  // shared by default (issue 13)
    s.holdout = a.number("holdout", 0.0);
    if (!(s.holdout >= 0.0 && s.holdout <= 0.9))
      throw UsageError("--holdout must be a fraction in [0, 0.9], got " + quoteText(a.text("holdout")));
    s.coherenceTopWords = a.count("coherence-top-words", 2, kMaxVocabularySize, 0);  // 0: not computed
    s.dpViClip = a.number("clip", s.dpViClip);
    if (!(std::isfinite(s.dpViClip) && s.dpViClip > 0.0 && s.dpViClip <= 1e6))
      throw UsageError("--clip (DP-VI's bound C) must be in (0, 1e6], got " + quoteText(a.text("clip")));
    // DP-VI: full batches (zCDP over the passes) by default, or Poisson samples (the sampled
    // Gaussian's PLD account); online minibatches would be accounted as full releases.
    const std::string viMethod = a.text("vi", "batch");
    if (viMethod != "batch" && viMethod != "poisson") {
      throw UsageError("--vi (the sweep's VI and DP-VI) must be batch or poisson, got " + quoteText(viMethod));
    }
    s.vi.method = viMethod == "batch" ? ViMethod::Batch : ViMethod::Poisson;
    s.vi.iterations = a.count("iterations", 1, kMaxViIterations, 10);
    if (a.has("batch-size") && s.vi.method != ViMethod::Poisson) throw UsageError("--batch-size needs --vi poisson");
    s.vi.batchSize = a.count("batch-size", 1, kMaxViBatchSize, 1000);
    const std::string shape = a.text("vi-alpha", "symmetric");
    if (shape != "symmetric" && shape != "learned") {
      throw UsageError("--vi-alpha must be symmetric or learned, got " + quoteText(shape));
    }
    s.vi.learnAlpha = shape == "learned";
    s.trials = trials.value_or(10);
    s.threads = threads;
    s.seeds = SweepSeeds::fromSeed(seed);
    SweepGrid grid;
    for (const std::string& k : splitList(a.text("topics"))) {
      long long v = 0;
      if (!parseDigits(k, v) || v < 1 || v > 100000) {
        throw UsageError("--topics takes topic counts in 1..100000 separated by commas, got " +
                         quoteText(a.text("topics")));
      }
      grid.topicCounts.push_back(static_cast<int>(v));
    }
    for (const std::string& x : splitList(a.text("alpha0", "1"))) {
      double v = 0.0;
      if (!parseDecimalNumber(x, v) || v <= 0 || v > kMaxAlpha0) {
        throw UsageError("--alpha0 takes numbers in (0, " + std::to_string(static_cast<long long>(kMaxAlpha0)) +
                         "] separated by commas, got " + quoteText(a.text("alpha0")));
      }
      grid.alpha0s.push_back(v);
    }
    SweepCase base;
    base.label = "corpus";
    auto corpus = std::make_shared<const Corpus>(
        takeValue(loadUciCorpus(a.text("corpus"), corpusCacheOptionsFromEnvironment(!a.flag("no-cache")))));
    base.source.corpus = corpus;
    base.source.description =
        a.text("corpus") + " (" + std::to_string(corpus->docCount()) + " documents" +
        (corpus->droppedDocuments ? ", " + std::to_string(corpus->droppedDocuments) + " short ones dropped"
                                  : std::string()) +
        ")";
    if (a.has("truth")) base.source.truth = takeValue(readTruthJson(a.text("truth")));
    // A single value keeps the plain label; lists make one case per combination.
    if (grid.topicCounts.size() == 1) {
      base.topicCount = grid.topicCounts[0];
      grid.topicCounts.clear();
    }
    if (grid.alpha0s.size() == 1) {
      base.alpha0 = grid.alpha0s[0];
      grid.alpha0s.clear();
    }
    s.cases = takeValue(expandGrid(base, grid));
    for (SweepCase& c : s.cases)
      if (c.label.rfind("corpus ", 0) == 0) c.label = c.label.substr(7);
    preset.description =
        "Error, utility loss and release rate against the total epsilon on " + a.text("corpus") + ".";
    require(validateSweepSpec(s));
  }

  if (a.flag("release-only")) {  // released values only in every output (docs/PRIVACY.md §15.4)
    if (preset.kind == ExperimentKind::TpmNoise || isSeed004Experiment(preset)) {
      throw UsageError("--release-only applies to epsilon sweeps on a corpus; " + preset.name +
                       " releases nothing from a corpus");
    }
    preset.sweep.releaseOnly = true;
    if (const Status st = validateSweepSpec(preset.sweep); !st.isOk()) throw UsageError(st.message());
  }
  // Fail before the run, not after it. The corpus and truth are never written over; an earlier
  // report in --out is replaced only with --force.
  std::vector<std::string> inputs = a.has("corpus") ? uciCorpusFiles(a.text("corpus")) : std::vector<std::string>{};
  if (a.has("truth")) inputs.push_back(a.text("truth"));
  const OutputRules rules = outputRules(a, inputs);
  require(checkOutputFolder(out.string(), experimentFolderEntries(), rules));
  std::error_code ec;  // the folder itself now (an unwritable place fails before the run); its
  std::filesystem::create_directories(out, ec);  // figures folder with the report, checked again then
  if (ec) throw InputError("cannot create the output folder " + out.string() + ": " + ec.message());

  ReportContext context;
  context.title = preset.title;
  context.description = preset.description;
  context.commandLine = commandLine(args);
  context.seedNote = seedNote;
  context.procedureOneTable = preset.kind == ExperimentKind::Diagnostics;
  context.errorVsN = preset.kind == ExperimentKind::ErrorVsN;
  Feedback feedback;

  ExperimentRun run;
  run.preset = preset;
  run.finished = true;
  if (preset.kind == ExperimentKind::TpmNoise) {
    std::cerr << "dplda sweep: tpm-noise, " << preset.tpm.dims.size() << " dimensions, " << preset.tpm.trials
              << " trials per point\n";
    Progress progress("tpm-noise");
    progress.attach(feedback);
    run.tpm = std::make_shared<const TpmNoiseResult>(takeValue(runTpmNoise(preset.tpm, &feedback)));
  } else if (isSeed004Experiment(preset)) {
    std::cerr << "dplda sweep: " << preset.name << ", "
              << (preset.kind == ExperimentKind::OnlineTpm ? preset.online.trials : preset.dp.trials)
              << " trials per point\n";
    Progress progress(preset.name);
    progress.attach(feedback);
    std::shared_ptr<const ExperimentRun> done;
    require(runSeed004Experiment(preset, &feedback, {}, &done));
    run.online = done->online;
    run.dp = done->dp;
  } else {
    const SweepSpec& s = preset.sweep;
    std::cerr << "dplda sweep: " << s.cases.size() << " corpus case(s), " << s.configurations.size()
              << " configuration(s), " << s.epsilons.size() << " epsilon value(s), " << s.trials
              << " trials (" << boundSetName(s.bounds) << " bounds)\n";
    Progress progress("trials");
    progress.attach(feedback);
    run.sweep = std::make_shared<const SweepResult>(takeValue(runSweep(s, &feedback)));
  }
  std::vector<std::string> warnings;
  const std::filesystem::path report =
      takeValue(writeExperimentFolder(run, out, formats, context, &warnings, page, rules));
  for (const std::string& w : warnings) std::cerr << "dplda sweep: warning: " << escapeControls(w) << "\n";
  if (run.tpm) {
    std::cout << "tpm-noise: " << run.tpm->rows.size() << " runs in " << shortNumber(run.tpm->elapsedMs / 1000.0)
              << " s; wrote " << escapeText(report.string()) << "\n";
  } else if (run.online) {
    std::cout << "online-tpm: " << run.online->rows.size() << " runs in " << shortNumber(run.online->elapsedMs / 1000.0)
              << " s; error slope vs n " << shortNumber(run.online->slopeVsN) << " (1/sqrt(n) predicts -0.5); wrote "
              << escapeText(report.string()) << "\n";
  } else if (run.dp) {
    std::cout << "dp-tpm: " << run.dp->rows.size() << " runs in " << shortNumber(run.dp->elapsedMs / 1000.0)
              << " s; wrote " << escapeText(report.string()) << "\n";
  } else {
    const SweepResult& r = *run.sweep;
    if (r.spec.releaseOnly) {  // timings depend on the data
      std::cout << preset.name << ": " << r.rows.size() << " runs (release-only output); wrote "
                << escapeText(report.string()) << "\n";
      return kExitOk;
    }
    std::cout << preset.name << ": " << r.rows.size() << " runs in " << shortNumber(r.elapsedMs / 1000.0)
              << " s on " << r.threadsUsed << " threads; wrote " << escapeText(report.string()) << "\n";
    const std::vector<double> perConfig = meanTrialMsPerConfiguration(r);
    for (std::size_t g = 0; g < perConfig.size(); ++g) {
      std::cout << "  configuration " << r.spec.configurations[g].label << ": " << shortNumber(perConfig[g])
                << " ms per run\n";
    }
  }
  return kExitOk;
}

}  // namespace dplda::cli
