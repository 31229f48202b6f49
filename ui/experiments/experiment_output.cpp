#include "ui/experiments/experiment_output.h"

#include <QFile>
#include <algorithm>
#include <cmath>
#include <limits>
#include <system_error>

#include "core/experiments/error_vs_n.h"
#include "core/experiments/seed004_report.h"
#include "core/experiments/sweep_archive.h"
#include "core/experiments/table_text.h"
#include "ui/experiments/band_plot.h"
#include "ui/experiments/experiment_figure.h"
#include "ui/common/palette.h"
#include "ui/experiments/seed004_figures.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/plots/series_plot.h"
#include "ui/plots/tpm_noise_plot.h"

namespace dplda {

namespace {

// One colour, line and marker per configuration wherever it is drawn (palette.h's table).
int styleOf(const SweepSpec& spec, int g) {
  return dplda::configurationStyle(QString::fromStdString(spec.configurations[g].label), g);
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

// A case label as a reader writes it: "alpha0=0.1" reads "α₀ = 0.1".
QString caseText(const std::string& label) {
  return QString::fromStdString(label)
      .replace(QStringLiteral("alpha0"), QStringLiteral("α₀"))
      .replace(QStringLiteral("="), QStringLiteral(" = "));
}

// Error / utility loss / release rate against ε, one set per case. Titles ask the question the
// plot answers; the paper's reference is the report's title and the side file's caption.
void errorSweepFigures(const std::shared_ptr<const SweepResult>& result, std::vector<ExperimentFigure>& out) {
  const SweepResult& r = *result;
  const SweepSpec& s = r.spec;
  for (int c = 0; c < static_cast<int>(r.cases.size()); ++c) {
    const SweepCaseInfo& info = r.cases[c];
    const QString suffix =
        r.cases.size() > 1 ? "_" + QString::fromStdString(fileSafe(info.label)) : QString();
    const QString caseTitle = r.cases.size() > 1 ? " — " + caseText(info.label) : QString();
    auto errorFigure = [&](const QString& base, const QString& title, const QString& yLabel, double baseline,
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
          if (!configurationShown(s, g)) continue;  // release-only: no non-private curve
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
            if (!pending) never << QString::fromStdString(cfg.label);
            continue;
          }
          const std::string name = cfg.model == SweepModel::Vi     ? "VI (non-private)"
                                   : cfg.model == SweepModel::DpVi ? "DP-VI"
                                                                   : "config " + cfg.label;
          if (!plot.setCurve(QString::fromStdString(cfg.label), QString::fromStdString(name), eps, med, low,
                             up, styleOf(s, g), error))
            return false;
        }
        if (std::isfinite(baseline)) plot.setBaseline(QObject::tr("non-private spectral"), baseline);
        plot.setGuess(QObject::tr("random guess"), guess);  // uniform topics; the short name keeps the legend narrow
        // A log axis when the private errors dwarf the baseline, so both stay readable.
        plot.setLogError(hi > 0 && std::isfinite(lo) && hi / lo > 50);
        QString note =
            QObject::tr("median over released trials, band %1–%2% quantiles; %3 bounds")
                .arg(QString::fromStdString(shortNumber(s.bandLower * 100)),
                     QString::fromStdString(shortNumber(s.bandUpper * 100)), boundSetName(s.bounds));
        if (!never.isEmpty()) note += QObject::tr("; nothing released at any ε: config %1").arg(never.join(", "));
        plot.setFootnote(note);
        return true;
      };
      out.push_back(figure<ErrorVsEpsilonPlot>(base + suffix, title + caseTitle,
                                               base + suffix + ": " + yLabel + QObject::tr(" vs total ε"),
                                               std::function<bool(ErrorVsEpsilonPlot&, QString*)>(fill), true));
    };
    // Release-only: no line of the non-private fit, no utility loss, no held-out perplexity.
    const bool exact = !s.releaseOnly;
    const double none = std::numeric_limits<double>::quiet_NaN();
    if (info.hasTruth) {
      errorFigure("error_l2", QObject::tr("How far are the private topics from the true ones?"),
                  QObject::tr("mean ℓ₂ error per topic (vs truth)"), exact ? info.baselineErrorL2 : none,
                  &SweepSummaryRow::errorL2, info.guessErrorL2);
      errorFigure("error_l1", QObject::tr("How far are the private topics from the true ones (ℓ₁)?"),
                  QObject::tr("mean ℓ₁ error per topic (vs truth)"), exact ? info.baselineErrorL1 : none,
                  &SweepSummaryRow::errorL1);
    }
    if (exact)
      errorFigure("utility_loss_l2", QObject::tr("How far is each private output from the non-private one?"),
                  QObject::tr("utility loss (mean ℓ₂ to the non-private output)"), none, &SweepSummaryRow::lossL2);
    if (info.hasTruth)
      errorFigure("error_frobenius", QObject::tr("How far is the private μ̃ from the true μ?"),
                  QObject::tr("error ‖μ − μ̃‖_F (vs truth, Definition 21)"), exact ? info.baselineErrorFrobenius : none,
                  &SweepSummaryRow::errorFrobenius);
    if (s.holdout > 0.0 && exact)
      errorFigure("perplexity", QObject::tr("How well do the private topics predict held-out words?"),
                  QObject::tr("held-out perplexity (document completion)"), info.baselinePerplexity,
                  &SweepSummaryRow::perplexity, static_cast<double>(info.vocabSize));  // uniform topics give d
    if (s.coherenceTopWords > 0 && exact)  // on the training documents: a non-private diagnostic
      errorFigure("coherence_npmi", QObject::tr("How coherent are the private topics (NPMI, training documents)?"),
                  QObject::tr("topic coherence NPMI, top %1 words (non-private diagnostic)").arg(s.coherenceTopWords),
                  info.baselineCoherenceNpmi, &SweepSummaryRow::coherenceNpmi);

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
        if (!plot.setSeries(QString::fromStdString(s.configurations[g].label),
                            QString::fromStdString("config " + s.configurations[g].label), xs, ys,
                            styleOf(s, g), error))
          return false;
      }
      plot.setProportionY(true);
      return true;
    };
    out.push_back(figure<SeriesPlot>("release_rate" + suffix,
                                     QObject::tr("How often does each configuration release its topics?") + caseTitle,
                                     "release_rate" + suffix + QObject::tr(": released runs / trials vs total ε"),
                                     std::function<bool(SeriesPlot&, QString*)>(rate)));
  }
}

// σ_k, σ̃_k, γ_s, γ̃_s and the release rate against k (one case per k), per ε.
void diagnosticsFigures(const std::shared_ptr<const SweepResult>& result, std::vector<ExperimentFigure>& out) {
  const SweepSpec& s = result->spec;
  for (int e = 0; e < static_cast<int>(s.epsilons.size()); ++e) {
    const QString suffix = s.epsilons.size() > 1
                               ? "_eps" + QString::fromStdString(fileSafe(shortNumber(s.epsilons[e])))
                               : QString();
    const QString epsText =
        QObject::tr("total ε = %1").arg(QString::fromStdString(shortNumber(s.epsilons[e])));
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
      } else if (!s.releaseOnly) {  // the exact σ_k and γ_s are not released
        if (!plot.setSeries(kind == 0 ? "sigma_k" : "gamma_s",
                            kind == 0 ? QObject::tr("σₖ(M̂₂), non-private") : QObject::tr("γₛ(T̂), non-private"),
                            ks, base, configurationStyle(QStringLiteral("none")), error))
          return false;
      }
      if (kind != 2) plot.setLogY(true);
      for (int g = 0; g < static_cast<int>(s.configurations.size()); ++g) {
        if (!configurationShown(s, g)) continue;
        QVector<double> ys;
        bool any = false;
        for (int c = 0; c < static_cast<int>(r.cases.size()); ++c) {
          const SweepSummaryRow& row = r.summaryRow(c, g, e);
          const QuantileSummary& qs = kind == 0 ? row.sigmaKTilde : row.gammaSTilde;
          ys.append(kind == 2 ? row.releaseRate : qs.median);
          any = any || (kind == 2 ? std::isfinite(row.releaseRate) : qs.count > 0);
        }
        if (!any && kind == 1) continue;  // γ̃_s is released only by configurations 3 and 4
        const QString key = QString::fromStdString(s.configurations[g].label);
        const QString cfg = QString::fromStdString("config " + s.configurations[g].label);
        const QString label = kind == 0   ? QObject::tr("σ̃ₖ (median), %1").arg(cfg)
                              : kind == 1 ? QObject::tr("γ̃ₛ (median), %1").arg(cfg)
                                          : cfg;
        const QString prefix = kind == 0 ? "sigma_tilde_" : kind == 1 ? "gamma_tilde_" : "";
        if (!plot.setSeries(prefix + key, label, ks, ys, styleOf(s, g), error)) return false;
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
        "sigma_k" + suffix, QObject::tr("How close does the private lower bound σ̃ₖ come to σₖ? (%1)").arg(epsText),
        QObject::tr("σₖ(M̂₂) and its Procedure-1 lower bound σ̃ₖ (%1)").arg(epsText),
        std::function<bool(SigmaGammaPlot&, QString*)>(sigma)));
    out.push_back(figure<SigmaGammaPlot>(
        "gamma_s" + suffix, QObject::tr("How close does the private lower bound γ̃ₛ come to γₛ? (%1)").arg(epsText),
        QObject::tr("γₛ(T̂) and its Procedure-1 lower bound γ̃ₛ (%1)").arg(epsText),
        std::function<bool(SigmaGammaPlot&, QString*)>(gamma)));
    out.push_back(figure<SeriesPlot>("release_rate" + suffix,
                                     QObject::tr("How often does each configuration release as k grows? (%1)").arg(epsText),
                                     QObject::tr("release rate vs k (%1)").arg(epsText),
                                     std::function<bool(SeriesPlot&, QString*)>(rate)));
  }
}

// error-vs-n: per ε, the fitted medians against N on log–log axes with their least-squares lines
// (error_vs_n.h: the utility loss of each private configuration, the error of the non-private one).
void errorVsNFigures(const std::shared_ptr<const SweepResult>& result, std::vector<ExperimentFigure>& out) {
  const SweepSpec& s = result->spec;
  for (int e = 0; e < static_cast<int>(s.epsilons.size()); ++e) {
    const QString eps = QString::fromStdString(shortNumber(s.epsilons[e]));
    auto fill = [result, e](BandPlot& plot, QString* error) {
      const SweepResult& r = *result;
      const SweepSpec& s = r.spec;
      plot.clearCurves();
      plot.clearBaseline();
      plot.setLogError(true);
      plot.setXAxis(QObject::tr("documents N (log scale)"), QStringLiteral("N"));
      plot.setErrorLabel(QObject::tr("utility loss ‖μ̂ − μ̃‖ (none: error vs truth), log"));
      QVector<double> n;
      for (const SweepCaseInfo& info : r.cases) n.append(info.docCount);
      for (const ErrorVsNFit& f : fitErrorVsN(r)) {
        const bool baseline = s.configurations[f.configIndex].edges == 0 &&
                              s.configurations[f.configIndex].model == SweepModel::Spectral;
        if (f.epsilonIndex != e && !baseline) continue;
        const int g = f.configIndex;
        QVector<double> med, lo, hi, line;
        for (int c = 0; c < static_cast<int>(r.cases.size()); ++c) {
          const SweepSummaryRow& row = r.summaryRow(c, g, baseline ? 0 : e);
          const QuantileSummary& qs = baseline ? row.errorL2 : row.lossL2;
          med.append(qs.median);
          lo.append(qs.lower);
          hi.append(qs.upper);
          const bool used = std::find(f.cases.begin(), f.cases.end(), c) != f.cases.end();
          line.append(used ? f.median.at(n[c]) : std::nan(""));
        }
        if (std::none_of(med.begin(), med.end(), [](double v) { return std::isfinite(v); })) continue;
        const QString label = QString::fromStdString(s.configurations[g].label);
        const int style = styleOf(s, g);
        const QString name = baseline ? QObject::tr("none (error vs truth)") : QObject::tr("config %1").arg(label);
        if (!plot.setCurve(label, name, n, med, lo, hi, style, error)) return false;
        if (!f.median.ok()) continue;
        const QString slope = QString::fromStdString(shortNumber(std::round(f.median.slope * 100.0) / 100.0));
        const QString theory = std::isfinite(f.theory.exponent)
                                   ? QString::fromStdString(shortNumber(f.theory.exponent))
                                   : QObject::tr("no theorem");
        if (!plot.setCurve(label + "_fit", QObject::tr("fit %1: slope %2 (theory %3)").arg(label, slope, theory), n,
                           line, {}, {}, seriesStyleIndex(style % 8, 2, style % 7), error))
          return false;
      }
      plot.setFootnote(
          QObject::tr("median over released trials, band %1–%2%; dotted: least-squares fits over the "
                      "unsaturated points; %3 bounds")
              .arg(QString::fromStdString(shortNumber(s.bandLower * 100)),
                   QString::fromStdString(shortNumber(s.bandUpper * 100)), boundSetName(s.bounds)));
      return true;
    };
    out.push_back(
        figure<BandPlot>("error_vs_n_eps" + QString::fromStdString(fileSafe(shortNumber(s.epsilons[e]))),
                         QObject::tr("How fast does the privacy cost shrink with N? (total ε = %1)").arg(eps),
                         QObject::tr("utility loss vs N with fitted slopes (total ε = %1)").arg(eps),
                         std::function<bool(BandPlot&, QString*)>(fill)));
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
      const QString model = QString::fromUtf8(tpmNoiseModelTitle(s.models[m].model));
      const QString title = QObject::tr("How often does the tensor power method fail under %1?").arg(model);
      const QString heading = model + QObject::tr(": failure probability vs ") + QString::fromUtf8(noiseScalingLabel(scaling));
      out.push_back(figure<FailureProbabilityPlot>(
          QString("tpm_%1_%2").arg(tpmNoiseModelName(s.models[m].model), noiseScalingKey(scaling)), title, heading,
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
  return {"results.csv", "summary.csv", "slopes.csv", "timings.csv", kSweepArchiveName, "report.md", "figures"};
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
    else if (run.preset.kind == ExperimentKind::ErrorVsN && !run.sweep->spec.releaseOnly)
      errorVsNFigures(run.sweep, out);
    else
      errorSweepFigures(run.sweep, out);
  }
  return out;
}

QJsonObject experimentMetadata(const ExperimentRun& run) {
  QJsonObject m{{"experiment", QString::fromStdString(run.preset.name)},
                {"software", QString("dplda ") + DPLDA_VERSION}};
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
    m.insert("noise_source", QString::fromStdString(run.sweep->noiseSource));
    m.insert("band", QString("%1-%2 quantiles").arg(s.bandLower).arg(s.bandUpper));
  }
  return m;
}

Result<std::filesystem::path> writeExperimentFolder(const ExperimentRun& run, const std::filesystem::path& dir,
                                                    const std::vector<ExportFormat>& formats,
                                                    ReportContext context, std::vector<std::string>* warnings,
                                                    QSize page, const OutputRules& rules) {
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
    if (run.preset.kind == ExperimentKind::ErrorVsN && !run.sweep->spec.releaseOnly)
      DPLDA_RETURN_IF_ERROR(writeText(dir / "slopes.csv", errorVsNCsv(*run.sweep), rules));
    // Timings depend on the data: not part of a release-only sweep.
    if (!run.sweep->spec.releaseOnly)
      DPLDA_RETURN_IF_ERROR(writeText(dir / "timings.csv", sweepTimingsCsv(*run.sweep), rules));
    // The whole result, for the app to open the folder (File ▸ Open sweep results…).
    const SweepArchiveInfo info{run.preset.name, run.preset.title, run.preset.description, run.preset.kind,
                                context.commandLine, context.seedNote};
    DPLDA_RETURN_IF_ERROR(writeText(dir / kSweepArchiveName, sweepArchiveJson(info, *run.sweep), rules));
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
      QJsonObject withCaption = metadata;  // the caption names the paper's figure the plot answers to
      withCaption.insert("caption", QString::fromStdString(run.preset.title) + " — " + f.heading);
      plot->setMetadata(withCaption);
      const bool defaultPage = page.isEmpty();
      plot->setExportSize(defaultPage ? QSize(720, 480) : page);
      plot->setExportLegendOutside(true);  // the same figures whatever the app's settings
      ReportFigure fig;
      fig.title = f.heading.toStdString();
      for (ExportFormat format : all) {
        const std::string rel = "figures/" + f.key.toStdString() + "." + exportFormatSuffix(format);
        const QString path = QString::fromStdString((dir / rel).string());
        const bool ok = format == ExportFormat::Png && defaultPage ? plot->exportPng(path, 1440, 960, 192, &error)
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
