#include "ui/experiments/experiment_output.h"

#include <QFile>
#include <cmath>
#include <limits>
#include <system_error>

#include "core/experiments/seed004_report.h"
#include "core/experiments/table_text.h"
#include "ui/experiments/experiment_figure.h"
#include "ui/experiments/seed004_figures.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/plots/series_plot.h"
#include "ui/plots/tpm_noise_plot.h"

namespace dplda {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

// One colour, line and marker per configuration wherever it is drawn (the session's sweep, every
// preset, pinned sweeps): the non-private baseline and configurations 1-4 keep their number,
// "input" is 5, custom edge sets come after.
int configurationStyle(const SweepSpec& spec, int g) {
  const std::string& label = spec.configurations[g].label;
  static const char* const kFixed[] = {"none", "1", "2", "3", "4", "input"};
  for (int i = 0; i < 6; ++i)
    if (label == kFixed[i]) return i;
  return 6 + g;
}

std::string fileSafe(const std::string& label) {
  std::string out;
  for (char c : label) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
  return out;
}

template <class P>
ExperimentFigure figure(QString key, QString title, QString heading, std::function<bool(P&, QString*)> fill,
                        bool errorCurves = false) {
  return makeFigure<P>(std::move(key), std::move(title), std::move(heading), std::move(fill), errorCurves);
}

// Error / utility loss / release rate against ε, one set per case.
void errorSweepFigures(const std::shared_ptr<const SweepResult>& result, const QString& title,
                       std::vector<ExperimentFigure>& out) {
  const SweepResult& r = *result;
  const SweepSpec& s = r.spec;
  for (int c = 0; c < static_cast<int>(r.cases.size()); ++c) {
    const SweepCaseInfo& info = r.cases[c];
    const QString suffix = r.cases.size() > 1 ? "_" + q(fileSafe(info.label)) : QString();
    const QString caseTitle = r.cases.size() > 1 ? title + " — " + q(info.label) : title;
    auto errorFigure = [&](const QString& base, const QString& yLabel, double baseline,
                           QuantileSummary SweepSummaryRow::*field, double guess = std::nan("")) {
      auto fill = [result, c, yLabel, baseline, field, base, guess](ErrorVsEpsilonPlot& plot, QString* error) {
        const SweepResult& r = *result;
        const SweepSpec& s = r.spec;
        plot.clearCurves();
        plot.clearBaseline();
        plot.setErrorLabel(yLabel);
        QStringList never;
        double lo = std::isfinite(baseline) && baseline > 0 ? baseline : INFINITY, hi = 0;
        for (int g = 0; g < static_cast<int>(s.configurations.size()); ++g) {
          const SweepConfiguration& cfg = s.configurations[g];
          if (cfg.edges == 0 && cfg.model == SweepModel::Spectral) continue;  // the baseline line
          QVector<double> eps, med, low, up;
          bool any = false, pending = false;
          for (int e = 0; e < static_cast<int>(s.epsilons.size()); ++e) {
            const SweepSummaryRow& row = r.summaryRow(c, g, e);
            const QuantileSummary& qs = row.*field;
            eps.append(s.epsilons[e]);
            med.append(qs.median);
            low.append(qs.lower);
            up.append(qs.upper);
            any = any || std::isfinite(qs.median);
            pending = pending || row.trials == 0;
            if (std::isfinite(qs.median) && qs.median > 0) {
              lo = std::min(lo, qs.median);
              hi = std::max(hi, qs.median);
            }
          }
          if (!any) {  // nothing released (yet): no curve rather than a fake error
            if (!pending) never << q(cfg.label);
            continue;
          }
          const std::string name = cfg.model == SweepModel::Vi     ? "VI (non-private)"
                                   : cfg.model == SweepModel::DpVi ? "DP-VI"
                                                                   : "config " + cfg.label;
          if (!plot.setCurve(q(cfg.label), q(name), eps, med, low, up, configurationStyle(s, g),
                             error))
            return false;
        }
        if (std::isfinite(baseline)) plot.setBaseline(QObject::tr("non-private spectral"), baseline);
        plot.setGuess(QObject::tr("random guess (uniform topics)"), guess);
        // A log axis when the private errors dwarf the baseline, so both stay readable.
        plot.setLogError(hi > 0 && std::isfinite(lo) && hi / lo > 50);
        QString note = QObject::tr("median over released trials, band %1–%2% quantiles; %3 bounds")
                           .arg(q(shortNumber(s.bandLower * 100)), q(shortNumber(s.bandUpper * 100)),
                                boundSetName(s.bounds));
        if (!never.isEmpty()) note += QObject::tr("; nothing released at any ε: config %1").arg(never.join(", "));
        plot.setFootnote(note);
        return true;
      };
      out.push_back(figure<ErrorVsEpsilonPlot>(base + suffix, caseTitle,
                                               base + suffix + ": " + yLabel + QObject::tr(" vs total ε"),
                                               std::function<bool(ErrorVsEpsilonPlot&, QString*)>(fill), true));
    };
    if (info.hasTruth) {
      errorFigure("error_l2", QObject::tr("mean ℓ₂ error per topic (vs truth)"), info.baselineErrorL2,
                  &SweepSummaryRow::errorL2, info.guessErrorL2);
      errorFigure("error_l1", QObject::tr("mean ℓ₁ error per topic (vs truth)"), info.baselineErrorL1,
                  &SweepSummaryRow::errorL1);
    }
    errorFigure("utility_loss_l2", QObject::tr("utility loss (mean ℓ₂ to the non-private output)"),
                std::numeric_limits<double>::quiet_NaN(), &SweepSummaryRow::lossL2);
    if (info.hasTruth)
      errorFigure("error_frobenius", QObject::tr("error ‖μ − μ̃‖_F (vs truth, Definition 21)"),
                  info.baselineErrorFrobenius, &SweepSummaryRow::errorFrobenius);
    if (s.holdout > 0.0)
      errorFigure("perplexity", QObject::tr("held-out perplexity (document completion)"), info.baselinePerplexity,
                  &SweepSummaryRow::perplexity, static_cast<double>(info.vocabSize));  // uniform topics give d

    bool anyPrivate = false;
    for (const SweepConfiguration& cfg : s.configurations) anyPrivate = anyPrivate || cfg.edges != 0;
    if (!anyPrivate) continue;
    auto rate = [result, c](SeriesPlot& plot, QString* error) {
      const SweepResult& r = *result;
      const SweepSpec& s = r.spec;
      plot.clearSeries();
      plot.setLogX(true);
      plot.setAxisLabels(QObject::tr("total privacy budget ε (log scale)"),
                         QObject::tr("release rate (released / trials)"));
      for (int g = 0; g < static_cast<int>(s.configurations.size()); ++g) {
        if (s.configurations[g].edges == 0) continue;
        QVector<double> xs, ys;
        for (int e = 0; e < static_cast<int>(s.epsilons.size()); ++e) {
          xs.append(s.epsilons[e]);
          ys.append(r.summaryRow(c, g, e).releaseRate);
        }
        if (!plot.setSeries(q(s.configurations[g].label), q("config " + s.configurations[g].label), xs, ys,
                            configurationStyle(s, g), error))
          return false;
      }
      plot.setProportionY(true);
      return true;
    };
    out.push_back(figure<SeriesPlot>("release_rate" + suffix, caseTitle + QObject::tr(": release rate"),
                                     "release_rate" + suffix + QObject::tr(": released runs / trials vs total ε"),
                                     std::function<bool(SeriesPlot&, QString*)>(rate)));
  }
}

// σ_k, σ̃_k, γ_s, γ̃_s and the release rate against k (one case per k), per ε.
void diagnosticsFigures(const std::shared_ptr<const SweepResult>& result, std::vector<ExperimentFigure>& out) {
  const SweepSpec& s = result->spec;
  for (int e = 0; e < static_cast<int>(s.epsilons.size()); ++e) {
    const QString suffix = s.epsilons.size() > 1 ? "_eps" + q(fileSafe(shortNumber(s.epsilons[e]))) : QString();
    const QString epsText = QObject::tr("total ε = %1").arg(q(shortNumber(s.epsilons[e])));
    // kind 0: σ, 1: γ, 2: release rate
    auto fill = [result, e](SeriesPlot& plot, int kind, QString* error) {
      const SweepResult& r = *result;
      const SweepSpec& s = r.spec;
      plot.clearSeries();
      QVector<double> ks, base;
      for (const SweepCaseInfo& info : r.cases) {
        ks.append(info.topicCount);
        base.append(kind == 0 ? info.sigmaK : info.gammaS);
      }
      if (kind == 2) {
        plot.setAxisLabels(QObject::tr("k (number of topics)"), QObject::tr("release rate (released / trials)"));
      } else {
        plot.setLogY(true);
        if (!plot.setSeries(kind == 0 ? "sigma_k" : "gamma_s",
                            kind == 0 ? QObject::tr("σ_k(M̂₂), non-private") : QObject::tr("γ_s(T̂), non-private"),
                            ks, base, 0, error))
          return false;
      }
      for (int g = 0; g < static_cast<int>(s.configurations.size()); ++g) {
        QVector<double> ys;
        bool any = false;
        for (int c = 0; c < static_cast<int>(r.cases.size()); ++c) {
          const SweepSummaryRow& row = r.summaryRow(c, g, e);
          const QuantileSummary& qs = kind == 0 ? row.sigmaKTilde : row.gammaSTilde;
          ys.append(kind == 2 ? row.releaseRate : qs.median);
          any = any || (kind == 2 ? std::isfinite(row.releaseRate) : qs.count > 0);
        }
        if (!any && kind == 1) continue;  // γ̃_s is released only by configurations 3 and 4
        const QString key = q(s.configurations[g].label);
        const QString cfg = q("config " + s.configurations[g].label);
        const QString label = kind == 0   ? QObject::tr("σ̃_k (median), %1").arg(cfg)
                              : kind == 1 ? QObject::tr("γ̃_s (median), %1").arg(cfg)
                                          : cfg;
        const QString prefix = kind == 0 ? "sigma_tilde_" : kind == 1 ? "gamma_tilde_" : "";
        if (!plot.setSeries(prefix + key, label, ks, ys, configurationStyle(s, g), error)) return false;
      }
      if (kind == 2) plot.setProportionY(true);
      return true;
    };
    auto sigma = [fill](SigmaGammaPlot& p, QString* err) {
      p.setYLabel(QObject::tr("eigenvalue (log scale)"));
      return fill(p, 0, err);
    };
    auto gamma = [fill](SigmaGammaPlot& p, QString* err) {
      p.setYLabel(QObject::tr("tensor eigengap (log scale)"));
      return fill(p, 1, err);
    };
    auto rate = [fill](SeriesPlot& p, QString* err) { return fill(p, 2, err); };
    out.push_back(figure<SigmaGammaPlot>(
        "sigma_k" + suffix, QObject::tr("σ_k(M̂₂) and its Procedure-1 lower bound σ̃_k (%1)").arg(epsText),
        QObject::tr("σ_k(M̂₂) and its Procedure-1 lower bound σ̃_k (%1)").arg(epsText),
        std::function<bool(SigmaGammaPlot&, QString*)>(sigma)));
    out.push_back(figure<SigmaGammaPlot>(
        "gamma_s" + suffix, QObject::tr("γ_s(T̂) and its Procedure-1 lower bound γ̃_s (%1)").arg(epsText),
        QObject::tr("γ_s(T̂) and its Procedure-1 lower bound γ̃_s (%1)").arg(epsText),
        std::function<bool(SigmaGammaPlot&, QString*)>(gamma)));
    out.push_back(figure<SeriesPlot>("release_rate" + suffix, QObject::tr("release rate vs k (%1)").arg(epsText),
                                     QObject::tr("release rate vs k (%1)").arg(epsText),
                                     std::function<bool(SeriesPlot&, QString*)>(rate)));
  }
}

// Failure probability against the four noise scalings, one figure per (model, scaling).
void tpmFigures(const std::shared_ptr<const TpmNoiseResult>& result, std::vector<ExperimentFigure>& out) {
  const TpmNoiseSpec& s = result->spec;
  for (int m = 0; m < static_cast<int>(s.models.size()); ++m) {
    for (NoiseScaling scaling : kNoiseScalings) {
      auto fill = [result, m, scaling](FailureProbabilityPlot& plot, QString* error) {
        const TpmNoiseSpec& s = result->spec;
        plot.clearSeries();
        plot.setNoiseLabel(QString::fromUtf8(noiseScalingLabel(scaling)));
        plot.setLogX(true);
        for (int di = 0; di < static_cast<int>(s.dims.size()); ++di) {
          QVector<double> xs, ys;
          QVector<int> trials;
          for (int li = 0; li < static_cast<int>(s.models[m].sigmas.size()); ++li) {
            const TpmNoisePoint& p = result->point(m, di, li);
            xs.append(scaleNoiseLevel(p.sigma, p.d, scaling));
            ys.append(p.failureProbability);
            trials.append(p.trials);
          }
          const QString key = QString("d%1").arg(s.dims[di]);
          if (!plot.setSeries(key, QString("d = %1").arg(s.dims[di]), xs, ys, di, error) ||
              !plot.setTrials(key, trials, error))
            return false;
        }
        return true;
      };
      const QString title = QString::fromUtf8(tpmNoiseModelTitle(s.models[m].model)) +
                            QObject::tr(": failure probability vs ") + QString::fromUtf8(noiseScalingLabel(scaling));
      out.push_back(figure<FailureProbabilityPlot>(
          QString("tpm_%1_%2").arg(tpmNoiseModelName(s.models[m].model), noiseScalingKey(scaling)), title, title,
          std::function<bool(FailureProbabilityPlot&, QString*)>(fill)));
    }
  }
}

// The folder was checked as a whole (checkOutputFolder): each file replaces its predecessor.
Status writeText(const std::filesystem::path& path, const std::string& text, const OutputRules& rules) {
  OutputRules replacing = rules;
  replacing.replace = true;
  return writeFileAtomically(path.string(), text, replacing);
}

}  // namespace

std::vector<std::string> experimentFolderEntries() {
  return {"results.csv", "summary.csv", "timings.csv", "report.md", "figures"};
}

std::vector<ExperimentFigure> experimentFigures(const ExperimentRun& run) {
  std::vector<ExperimentFigure> out;
  if (run.preset.kind == ExperimentKind::TpmNoise) {
    if (run.tpm) tpmFigures(run.tpm, out);
  } else if (run.preset.kind == ExperimentKind::OnlineTpm) {
    if (run.online) onlineTpmFigures(run.online, out);
  } else if (run.preset.kind == ExperimentKind::DpTpm) {
    if (run.dp) dpTpmFigures(run.dp, out);
  } else if (run.sweep) {
    if (run.preset.kind == ExperimentKind::Diagnostics)
      diagnosticsFigures(run.sweep, out);
    else
      errorSweepFigures(run.sweep, q(run.preset.title), out);
  }
  return out;
}

QJsonObject experimentMetadata(const ExperimentRun& run) {
  QJsonObject m{{"experiment", q(run.preset.name)}, {"software", QString("dplda ") + DPLDA_VERSION}};
  if (run.tpm) {
    const TpmNoiseSpec& s = run.tpm->spec;
    m.insert("seed", QString::number(s.seed));
    m.insert("trials", s.trials);
    m.insert("criterion", tpmSuccessCriterionName(s.criterion));
  } else if (run.online) {
    const OnlineTpmSpec& s = run.online->spec;
    m.insert("seed", QString::number(s.seed));
    m.insert("trials", s.trials);
    m.insert("iterations", s.iterations);
    m.insert("restarts", run.online->restarts);
    m.insert("docs", run.online->docCount);
  } else if (run.dp) {
    const DpTpmSpec& s = run.dp->spec;
    m.insert("seed", QString::number(s.seed));
    m.insert("trials", s.trials);
    m.insert("delta", s.delta);
    m.insert("iterations", s.iterations);
    m.insert("signal", s.signal);
    m.insert("neighbours", "entry-level (seed 004, Definition 4.2)");
  } else if (run.sweep) {
    const SweepSpec& s = run.sweep->spec;
    m.insert("bounds", boundSetName(s.bounds));
    m.insert("mechanism", mechanismName(s.mechanism));
    m.insert("delta", s.delta);
    m.insert("trials", s.trials);
    m.insert("data_seed", QString::number(s.seeds.data));
    m.insert("noise_seed", QString::number(s.seeds.noise));
    m.insert("init_seed", QString::number(s.seeds.init));
    m.insert("noise_source", q(run.sweep->noiseSource));
    m.insert("band", QString("%1-%2 quantiles").arg(s.bandLower).arg(s.bandUpper));
  }
  return m;
}

Result<std::filesystem::path> writeExperimentFolder(const ExperimentRun& run, const std::filesystem::path& dir,
                                                    const std::vector<ExportFormat>& formats,
                                                    ReportContext context, std::vector<std::string>* warnings,
                                                    const OutputRules& rules) {
  if (!run.finished || (!run.sweep && !run.tpm && !run.online && !run.dp)) {
    return invalidArgument("the experiment has not finished: there is nothing complete to write");
  }
  DPLDA_RETURN_IF_ERROR(checkOutputFolder(dir.string(), experimentFolderEntries(), rules));
  std::error_code ec;
  std::filesystem::create_directories(dir / "figures", ec);
  if (ec) return ioError("cannot create the output folder " + (dir / "figures").string() + ": " + ec.message());
  if (run.tpm) {
    DPLDA_RETURN_IF_ERROR(writeText(dir / "results.csv", tpmNoiseResultsCsv(*run.tpm), rules));
    DPLDA_RETURN_IF_ERROR(writeText(dir / "summary.csv", tpmNoiseSummaryCsv(*run.tpm), rules));
  } else if (run.online) {
    DPLDA_RETURN_IF_ERROR(writeText(dir / "results.csv", onlineTpmResultsCsv(*run.online), rules));
    DPLDA_RETURN_IF_ERROR(writeText(dir / "summary.csv", onlineTpmSummaryCsv(*run.online), rules));
  } else if (run.dp) {
    DPLDA_RETURN_IF_ERROR(writeText(dir / "results.csv", dpTpmResultsCsv(*run.dp), rules));
    DPLDA_RETURN_IF_ERROR(writeText(dir / "summary.csv", dpTpmSummaryCsv(*run.dp), rules));
  } else {
    DPLDA_RETURN_IF_ERROR(writeText(dir / "results.csv", sweepResultsCsv(*run.sweep), rules));
    DPLDA_RETURN_IF_ERROR(writeText(dir / "summary.csv", sweepSummaryCsv(*run.sweep), rules));
    DPLDA_RETURN_IF_ERROR(writeText(dir / "timings.csv", sweepTimingsCsv(*run.sweep), rules));
  }
  if (!formats.empty()) {
    const QJsonObject metadata = experimentMetadata(run);
    std::vector<ExportFormat> all = formats;
    all.push_back(ExportFormat::Csv);  // the data behind every plot
    for (const ExperimentFigure& f : experimentFigures(run)) {
      std::unique_ptr<PlotWidget> plot = f.create();
      QString error;
      if (!f.fill(*plot, &error)) return numericalFailure("figure " + f.key.toStdString() + ": " + error.toStdString());
      plot->setTitle(f.title);
      plot->setMetadata(metadata);
      plot->setExportSize(QSize(720, 480));
      plot->setExportLegendOutside(true);  // the same figures whatever the app's settings
      ReportFigure fig;
      fig.title = f.heading.toStdString();
      for (ExportFormat format : all) {
        const std::string rel = "figures/" + f.key.toStdString() + "." + exportFormatSuffix(format);
        const QString path = QString::fromStdString((dir / rel).string());
        const bool ok = format == ExportFormat::Png ? plot->exportPng(path, 1440, 960, 192, &error)
                                                    : plot->exportTo(path, format, &error);
        if (ok) {
          fig.files.push_back(rel);
        } else {
          const std::string note = "could not write " + rel + ": " + error.toStdString();
          context.notes.push_back(note);
          if (warnings) warnings->push_back(note);
        }
      }
      context.figures.push_back(std::move(fig));
    }
  }
  const std::string report = run.tpm      ? tpmNoiseReportMarkdown(*run.tpm, context)
                             : run.online ? onlineTpmReportMarkdown(*run.online, context)
                             : run.dp     ? dpTpmReportMarkdown(*run.dp, context)
                                          : sweepReportMarkdown(*run.sweep, context);
  DPLDA_RETURN_IF_ERROR(writeText(dir / "report.md", report, rules));
  return dir / "report.md";
}

}  // namespace dplda
