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
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"
#include "core/experiments/presets.h"
#include "core/experiments/report.h"
#include "core/experiments/sweep.h"
#include "core/experiments/table_text.h"
#include "core/experiments/tpm_noise.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/plots/series_plot.h"
#include "ui/plots/tpm_noise_plot.h"

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
      throw UsageError("--formats takes png, pdf and svg separated by commas (or none), got '" + text + "'");
  }
  return out;
}

std::string fileSafe(const std::string& label) {
  std::string out;
  for (char c : label) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
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

void writeText(const std::filesystem::path& path, const std::string& text) {
  QFile f(QString::fromStdString(path.string()));
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
      f.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())) {
    throw InputError("cannot write " + path.string() + ": " + f.errorString().toStdString());
  }
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

// Exports plots into DIR/figures and remembers them for the report.
class FigureSink {
 public:
  FigureSink(const std::filesystem::path& out, std::vector<ExportFormat> formats, QJsonObject metadata)
      : m_out(out), m_formats(std::move(formats)), m_metadata(std::move(metadata)) {}

  // `title` goes on the plot; the report heading is `heading` (or the title when empty).
  void add(PlotWidget& plot, const std::string& base, const std::string& title,
           const std::string& heading = {}) {
    plot.setTitle(QString::fromStdString(title));
    plot.setMetadata(m_metadata);
    plot.setExportSize(QSize(720, 480));
    ReportFigure fig;
    fig.title = heading.empty() ? title : heading;
    std::vector<ExportFormat> all = m_formats;
    all.push_back(ExportFormat::Csv);  // the data behind every plot
    for (ExportFormat f : all) {
      const std::string rel = "figures/" + base + "." + exportFormatSuffix(f);
      const QString path = QString::fromStdString((m_out / rel).string());
      QString error;
      const bool ok = f == ExportFormat::Png ? plot.exportPng(path, 1440, 960, 192, &error)
                                             : plot.exportTo(path, f, &error);
      if (ok) {
        fig.files.push_back(rel);
      } else {
        m_notes.push_back("could not write " + rel + ": " + error.toStdString());
        std::cerr << "dplda sweep: warning: could not write " << rel << ": " << error.toStdString() << "\n";
      }
    }
    m_figures.push_back(std::move(fig));
  }
  const std::vector<ReportFigure>& figures() const { return m_figures; }
  const std::vector<std::string>& notes() const { return m_notes; }

 private:
  std::filesystem::path m_out;
  std::vector<ExportFormat> m_formats;
  QJsonObject m_metadata;
  std::vector<ReportFigure> m_figures;
  std::vector<std::string> m_notes;
};

QJsonObject sweepMetadata(const SweepResult& r, const std::string& name) {
  const SweepSpec& s = r.spec;
  return QJsonObject{{"experiment", QString::fromStdString(name)},
                     {"software", QString("dplda ") + DPLDA_VERSION},
                     {"bounds", boundSetName(s.bounds)},
                     {"mechanism", mechanismName(s.mechanism)},
                     {"delta", s.delta},
                     {"trials", s.trials},
                     {"data_seed", QString::number(s.seeds.data)},
                     {"noise_seed", QString::number(s.seeds.noise)},
                     {"init_seed", QString::number(s.seeds.init)},
                     {"noise_source", QString::fromStdString(r.noiseSource)},
                     {"band", QString("%1-%2 quantiles").arg(s.bandLower).arg(s.bandUpper)}};
}

// Error / utility loss / release rate against ε, one set of plots per case.
void sweepFigures(const SweepResult& r, const std::string& title, FigureSink& sink) {
  const SweepSpec& s = r.spec;
  const int E = static_cast<int>(s.epsilons.size());
  for (int c = 0; c < static_cast<int>(r.cases.size()); ++c) {
    const SweepCaseInfo& info = r.cases[c];
    const std::string suffix = r.cases.size() > 1 ? "_" + fileSafe(info.label) : "";
    const std::string caseTitle = r.cases.size() > 1 ? title + " — " + info.label : title;
    auto errorPlot = [&](const std::string& base, const QString& yLabel, double baseline,
                         QuantileSummary SweepSummaryRow::*field) {
      ErrorVsEpsilonPlot plot;
      plot.setErrorLabel(yLabel);
      std::string never;
      for (int g = 0; g < static_cast<int>(s.configurations.size()); ++g) {
        const SweepConfiguration& cfg = s.configurations[g];
        if (cfg.edges == 0) continue;  // the baseline line
        QVector<double> eps, med, lo, hi;
        bool any = false;
        for (int e = 0; e < E; ++e) {
          const QuantileSummary& q = r.summaryRow(c, g, e).*field;
          eps.append(s.epsilons[e]);
          med.append(q.median);
          lo.append(q.lower);
          hi.append(q.upper);
          any = any || std::isfinite(q.median);
        }
        if (!any) {  // nothing released at any ε: no curve rather than a fake error
          never += (never.empty() ? "" : ", ") + cfg.label;
          continue;
        }
        QString error;
        if (!plot.setCurve(QString::fromStdString(cfg.label), QString::fromStdString("config " + cfg.label),
                           eps, med, lo, hi, g, &error)) {
          throw RunError("plot " + base + ": " + error.toStdString());
        }
      }
      if (std::isfinite(baseline)) plot.setBaseline("non-private spectral", baseline);
      std::string note = "median over released trials, band " + shortNumber(s.bandLower * 100) + "–" +
                         shortNumber(s.bandUpper * 100) + "% quantiles; " + boundSetName(s.bounds) +
                         " bounds";
      if (!never.empty()) note += "; nothing released at any ε: config " + never;
      plot.setFootnote(QString::fromStdString(note));
      sink.add(plot, base + suffix, caseTitle, base + suffix + ": " + yLabel.toStdString() + " vs total ε");
    };
    if (info.hasTruth) {
      errorPlot("error_l2", "mean ℓ₂ error per topic (vs truth)", info.baselineErrorL2,
                &SweepSummaryRow::errorL2);
      errorPlot("error_l1", "mean ℓ₁ error per topic (vs truth)", info.baselineErrorL1,
                &SweepSummaryRow::errorL1);
    }
    errorPlot("utility_loss_l2", "utility loss: mean ℓ₂ distance to the non-private output",
              std::numeric_limits<double>::quiet_NaN(), &SweepSummaryRow::lossL2);

    SeriesPlot rate;
    rate.setLogX(true);
    rate.setAxisLabels("total privacy budget ε (log scale)", "release rate (released / trials)");
    for (int g = 0; g < static_cast<int>(s.configurations.size()); ++g) {
      if (s.configurations[g].edges == 0) continue;
      QVector<double> xs, ys;
      for (int e = 0; e < E; ++e) {
        xs.append(s.epsilons[e]);
        ys.append(r.summaryRow(c, g, e).releaseRate);
      }
      QString error;
      if (!rate.setSeries(QString::fromStdString(s.configurations[g].label),
                          QString::fromStdString("config " + s.configurations[g].label), xs, ys, g, &error)) {
        throw RunError("plot release_rate: " + error.toStdString());
      }
    }
    rate.yAxis->setRange(-0.05, 1.05);
    if (!rate.seriesKeys().isEmpty()) {
      sink.add(rate, "release_rate" + suffix, caseTitle + ": release rate",
               "release_rate" + suffix + ": released runs / trials vs total ε");
    }
  }
}

// σ_k, σ̃_k, γ_s, γ̃_s and the release rate against k (one case per k).
void diagnosticsFigures(const SweepResult& r, FigureSink& sink) {
  const SweepSpec& s = r.spec;
  const int C = static_cast<int>(r.cases.size());
  QVector<double> ks, sigma, gamma;
  for (const SweepCaseInfo& info : r.cases) {
    ks.append(info.topicCount);
    sigma.append(info.sigmaK);
    gamma.append(info.gammaS);
  }
  for (int e = 0; e < static_cast<int>(s.epsilons.size()); ++e) {
    const std::string suffix = s.epsilons.size() > 1 ? "_eps" + fileSafe(shortNumber(s.epsilons[e])) : "";
    const std::string epsText = "total ε = " + shortNumber(s.epsilons[e]);
    SigmaGammaPlot sp, gp;
    SeriesPlot rate;
    sp.setYLabel("eigenvalue (log scale)");
    gp.setYLabel("tensor eigengap (log scale)");
    sp.setLogY(true);
    gp.setLogY(true);
    rate.setAxisLabels("k (number of topics)", "release rate (released / trials)");
    sp.setSeries("sigma_k", "σ_k(M̂₂), non-private", ks, sigma, 0);
    gp.setSeries("gamma_s", "γ_s(T̂), non-private", ks, gamma, 0);
    for (int g = 0; g < static_cast<int>(s.configurations.size()); ++g) {
      QVector<double> st, gt, rr;
      bool anyGamma = false;
      for (int c = 0; c < C; ++c) {
        const SweepSummaryRow& row = r.summaryRow(c, g, e);
        st.append(row.sigmaKTilde.median);
        gt.append(row.gammaSTilde.median);
        rr.append(row.releaseRate);
        anyGamma = anyGamma || row.gammaSTilde.count > 0;
      }
      const QString key = QString::fromStdString(s.configurations[g].label);
      const QString cfg = QString::fromStdString("config " + s.configurations[g].label);
      sp.setSeries("sigma_tilde_" + key, "σ̃_k (median), " + cfg, ks, st, g + 1);
      if (anyGamma) gp.setSeries("gamma_tilde_" + key, "γ̃_s (median), " + cfg, ks, gt, g + 1);
      rate.setSeries(key, cfg, ks, rr, g + 1);
    }
    rate.yAxis->setRange(-0.05, 1.05);
    sink.add(sp, "sigma_k" + suffix, "σ_k(M̂₂) and its Procedure-1 lower bound σ̃_k (" + epsText + ")");
    sink.add(gp, "gamma_s" + suffix, "γ_s(T̂) and its Procedure-1 lower bound γ̃_s (" + epsText + ")");
    sink.add(rate, "release_rate" + suffix, "release rate vs k (" + epsText + ")");
  }
}

// Failure probability against the four noise scalings, one plot per (model, scaling).
void tpmFigures(const TpmNoiseResult& r, FigureSink& sink) {
  const TpmNoiseSpec& s = r.spec;
  for (int m = 0; m < static_cast<int>(s.models.size()); ++m) {
    for (NoiseScaling scaling : kNoiseScalings) {
      FailureProbabilityPlot plot;
      plot.setNoiseLabel(QString::fromUtf8(noiseScalingLabel(scaling)));
      plot.setLogX(true);
      for (int di = 0; di < static_cast<int>(s.dims.size()); ++di) {
        QVector<double> xs, ys;
        QVector<int> trials;
        for (int li = 0; li < static_cast<int>(s.models[m].sigmas.size()); ++li) {
          const TpmNoisePoint& p = r.point(m, di, li);
          xs.append(scaleNoiseLevel(p.sigma, p.d, scaling));
          ys.append(p.failureProbability);
          trials.append(p.trials);
        }
        const QString key = QString("d%1").arg(s.dims[di]);
        QString error;
        if (!plot.setSeries(key, QString("d = %1").arg(s.dims[di]), xs, ys, di, &error) ||
            !plot.setTrials(key, trials, &error)) {
          throw RunError("tpm-noise plot: " + error.toStdString());
        }
      }
      const std::string base =
          std::string("tpm_") + tpmNoiseModelName(s.models[m].model) + "_" + noiseScalingKey(scaling);
      sink.add(plot, base,
               std::string(tpmNoiseModelTitle(s.models[m].model)) + ": failure probability vs " +
                   noiseScalingLabel(scaling));
    }
  }
}

// Plots need a QApplication (widgets); the note says why there are none otherwise.
bool canRenderFigures(std::string* why) {
  if (qobject_cast<QApplication*>(QCoreApplication::instance())) return true;
  *why =
      "figures were not rendered: the plots are Qt widgets and need a QApplication, but this dplda binary "
      "created only a QCoreApplication (rerun with --formats none to skip figures)";
  return false;
}

}  // namespace

int sweepCommand(const std::vector<std::string>& args) {
  const Arguments a(
      args,
      {"preset", "out", "trials", "formats", "bounds", "threads", "seed", "corpus", "truth", "topics",
       "alpha0", "configs", "epsilons", "delta", "mechanism", "decomposer", "max-length"},
      {"share-releases"});
  const std::filesystem::path out = a.text("out");
  const std::vector<ExportFormat> formats = parseFormats(a.text("formats", "png,pdf,svg"));
  const int threads = a.integer("threads", 0);
  if (threads < 0) throw UsageError("--threads must be >= 0 (0 = all cores), got " + std::to_string(threads));
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
    for (const char* custom : {"corpus", "truth", "topics", "alpha0", "configs", "epsilons", "delta",
                               "mechanism", "decomposer", "max-length", "share-releases"}) {
      if (a.has(custom)) throw UsageError(std::string("--") + custom + " cannot be combined with --preset");
    }
    PresetOverrides ov;
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
    if (bounds) s.bounds = *bounds;
    s.decomposer = a.text("decomposer", s.decomposer);
    if (!makeDecomposer(s.decomposer).ok()) {
      throw UsageError("--decomposer must be robust or simultaneous, got '" + s.decomposer + "'");
    }
    s.maxLength = a.number("max-length", s.maxLength);
    s.shareReleases = a.flag("share-releases");
    s.trials = trials.value_or(10);
    s.threads = threads;
    s.seeds = SweepSeeds::fromSeed(seed);
    SweepGrid grid;
    for (const std::string& k : splitList(a.text("topics"))) {
      char* end = nullptr;
      const long v = std::strtol(k.c_str(), &end, 10);
      if (k.empty() || *end != '\0' || v < 1 || v > 100000) {
        throw UsageError("--topics takes topic counts >= 1 separated by commas, got '" + a.text("topics") +
                         "'");
      }
      grid.topicCounts.push_back(static_cast<int>(v));
    }
    for (const std::string& x : splitList(a.text("alpha0", "1"))) {
      char* end = nullptr;
      const double v = std::strtod(x.c_str(), &end);
      if (x.empty() || *end != '\0' || !std::isfinite(v) || v <= 0) {
        throw UsageError("--alpha0 takes numbers > 0 separated by commas, got '" + a.text("alpha0") + "'");
      }
      grid.alpha0s.push_back(v);
    }
    SweepCase base;
    base.label = "corpus";
    auto corpus = std::make_shared<const Corpus>(takeValue(readUciCorpus(a.text("corpus"))));
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

  std::error_code ec;
  std::filesystem::create_directories(out / "figures", ec);
  if (ec)
    throw InputError("cannot create the output folder " + (out / "figures").string() + ": " + ec.message());

  std::string whyNot;
  const bool render = !formats.empty() && canRenderFigures(&whyNot);
  ReportContext context;
  context.title = preset.title;
  context.description = preset.description;
  context.commandLine = commandLine(args);
  context.seedNote = seedNote;
  context.procedureOneTable = preset.kind == ExperimentKind::Diagnostics;
  Feedback feedback;

  if (preset.kind == ExperimentKind::TpmNoise) {
    std::cerr << "dplda sweep: tpm-noise, " << preset.tpm.dims.size() << " dimensions, " << preset.tpm.trials
              << " trials per point\n";
    Progress progress("tpm-noise");
    progress.attach(feedback);
    const TpmNoiseResult r = takeValue(runTpmNoise(preset.tpm, &feedback));
    writeText(out / "results.csv", tpmNoiseResultsCsv(r));
    writeText(out / "summary.csv", tpmNoiseSummaryCsv(r));
    FigureSink sink(out, formats,
                    QJsonObject{{"experiment", QString::fromStdString(preset.name)},
                                {"software", QString("dplda ") + DPLDA_VERSION},
                                {"seed", QString::number(r.spec.seed)},
                                {"trials", r.spec.trials},
                                {"criterion", tpmSuccessCriterionName(r.spec.criterion)}});
    if (render) tpmFigures(r, sink);
    context.figures = sink.figures();
    context.notes = sink.notes();
    if (!formats.empty() && !render) context.notes.push_back(whyNot);
    writeText(out / "report.md", tpmNoiseReportMarkdown(r, context));
    std::cout << "tpm-noise: " << r.rows.size() << " runs in " << shortNumber(r.elapsedMs / 1000.0)
              << " s; wrote " << (out / "report.md").string() << "\n";
  } else {
    const SweepSpec& s = preset.sweep;
    std::cerr << "dplda sweep: " << s.cases.size() << " corpus case(s), " << s.configurations.size()
              << " configuration(s), " << s.epsilons.size() << " epsilon value(s), " << s.trials
              << " trials (" << boundSetName(s.bounds) << " bounds)\n";
    Progress progress("trials");
    progress.attach(feedback);
    const SweepResult r = takeValue(runSweep(s, &feedback));
    writeText(out / "results.csv", sweepResultsCsv(r));
    writeText(out / "summary.csv", sweepSummaryCsv(r));
    writeText(out / "timings.csv", sweepTimingsCsv(r));
    FigureSink sink(out, formats, sweepMetadata(r, preset.name));
    if (render) {
      if (preset.kind == ExperimentKind::Diagnostics)
        diagnosticsFigures(r, sink);
      else
        sweepFigures(r, preset.title, sink);
    }
    context.figures = sink.figures();
    context.notes = sink.notes();
    if (!formats.empty() && !render) context.notes.push_back(whyNot);
    writeText(out / "report.md", sweepReportMarkdown(r, context));
    std::cout << preset.name << ": " << r.rows.size() << " runs in " << shortNumber(r.elapsedMs / 1000.0)
              << " s on " << r.threadsUsed << " threads; wrote " << (out / "report.md").string() << "\n";
    const std::vector<double> perConfig = meanTrialMsPerConfiguration(r);
    for (std::size_t g = 0; g < perConfig.size(); ++g) {
      std::cout << "  configuration " << s.configurations[g].label << ": " << shortNumber(perConfig[g])
                << " ms per run\n";
    }
  }
  if (!formats.empty() && !render) throw RunError(whyNot);
  return kExitOk;
}

}  // namespace dplda::cli
