#include "ui/experiments/seed004_figures.h"

#include <algorithm>
#include <cmath>

#include "core/experiments/table_text.h"
#include "ui/experiments/band_plot.h"
#include "ui/experiments/experiment_figure.h"
#include "ui/plots/series_plot.h"

namespace dplda {

namespace {

QString num(double x) { return QString::fromStdString(shortNumber(x)); }

// ---- online-tpm ----

// kind 0: tensor error vs n, 1: topic error vs n, 2: tensor error vs passes.
bool fillOnline(const OnlineTpmResult& r, int kind, BandPlot& plot, QString* error) {
  plot.clearCurves();
  plot.clearBaseline();
  plot.setLogError(kind != 1);
  const bool passes = kind == 2;
  plot.setXAxis(passes ? QObject::tr("passes over the corpus (n R k / N, log scale)")
                       : QObject::tr("documents per power step n (log scale)"),
                passes ? QStringLiteral("passes") : QStringLiteral("n"));
  plot.setErrorLabel(kind == 1 ? QObject::tr("mean ℓ₂ topic error (vs truth)")
                               : QObject::tr("mean ‖v̂ − v_batch‖ over components"));
  QVector<double> x, med, lo, hi, finite, inverse;
  for (const OnlineTpmPoint& p : r.points) {
    x.append(passes ? p.passes : p.n);
    med.append(kind == 1 ? p.topicMedian : p.tensorMedian);
    lo.append(kind == 1 ? p.topicLower : p.tensorLower);
    hi.append(kind == 1 ? p.topicUpper : p.tensorUpper);
    const double f = finiteBatchFactor(p.n, r.docCount);
    finite.append(f > 0 ? r.finiteScale * f : std::nan(""));
  }
  if (!plot.setCurve("online", QObject::tr("online method (median, 10–90%)"), x, med, lo, hi, 0, error)) return false;
  if (kind == 1) {
    plot.setBaseline(QObject::tr("batch method on the whole corpus"), r.batchTopicErrorL2);
    plot.setFootnote(QObject::tr("R = %1 steps per component, L = %2 starts, %3 trials; N = %4")
                         .arg(r.spec.iterations).arg(r.restarts).arg(r.spec.trials).arg(r.docCount));
    return true;
  }
  if (!plot.setCurve("finite", QObject::tr("c √(1/n − 1/N), fitted (c = %1)").arg(num(r.finiteScale)), x, finite, {},
                     {}, 1, error))
    return false;
  // 1/√n through the smallest converged n's median: Corollary 3.1's rate.
  if (r.firstConverged >= 0) {
    const OnlineTpmPoint& anchor = r.points[r.firstConverged];
    const double c = anchor.tensorMedian * std::sqrt(static_cast<double>(anchor.n));
    for (int i = 0; i < x.size(); ++i) inverse.append(c / std::sqrt(static_cast<double>(r.points[i].n)));
    if (!plot.setCurve("inverse_sqrt", QObject::tr("∝ 1/√n (Corollary 3.1)"), x, inverse, {}, {}, 2, error))
      return false;
  }
  plot.setFootnote(QObject::tr("converged points (90% quantile < %4): slope vs n (n ≤ N/10) %1, predicted −0.5; "
                               "vs √(1/n − 1/N) %2; N = %3")
                       .arg(num(r.slopeVsN), num(r.slopeVsFinite))
                       .arg(r.docCount)
                       .arg(num(kOnlineConvergedError)));
  return true;
}

// ---- dp-tpm ----

const char* accountantLabel(TpmAccountant a) {
  switch (a) {
    case TpmAccountant::GaussianExact: return "exact composition (default)";
    case TpmAccountant::Printed: return "noise as printed";
    case TpmAccountant::AdvancedComposition: return "printed proof, made to hold";
  }
  return "";
}

// Error against ε for every (case, accountant) of a group; `spent`: x is the ε the noise spends
// by exact composition instead of the ε asked for.
bool fillGroup(const DpTpmResult& r, const std::string& group, bool spent, BandPlot& plot, QString* error) {
  plot.clearCurves();
  plot.clearBaseline();
  plot.setLogError(false);
  plot.setXAxis(spent ? QObject::tr("ε spent by the noise, exact composition (log scale)")
                      : QObject::tr("total ε asked for (log scale)"),
                spent ? QStringLiteral("epsilon_spent") : QStringLiteral("epsilon"));
  plot.setErrorLabel(QObject::tr("first eigenvector error ‖v̂₁ − v₁‖"));
  int style = 0;
  for (int ci = 0; ci < static_cast<int>(r.spec.cases.size()); ++ci) {
    const DpTpmCase& dc = r.spec.cases[ci];
    if (dc.group != group) continue;
    for (int a = 0; a < static_cast<int>(dc.accountants.size()); ++a) {
      QVector<double> x, med, lo, hi;
      for (int e = 0; e < static_cast<int>(dc.epsilons.size()); ++e) {
        const DpTpmPoint& p = r.point(ci, a, e);
        x.append(spent ? p.epsilonGaussian : p.epsilon);
        med.append(p.topMedian);
        lo.append(p.topLower);
        hi.append(p.topUpper);
      }
      if (spent && std::any_of(x.begin(), x.end(), [](double v) { return !(v > 0) || !std::isfinite(v); })) continue;
      const QString label =
          dc.accountants.size() > 1
              ? QString::fromUtf8(accountantLabel(dc.accountants[a]))
              : QString::fromStdString(dc.label) + QObject::tr(", μ₀ = %1").arg(num(r.cases[ci].mu0));
      if (!plot.setCurve(QString("c%1_a%2").arg(ci).arg(a), label, x, med, lo, hi, style++, error)) return false;
    }
  }
  plot.setFootnote(QObject::tr("median over %1 trials, band 10–90%; δ = %2, entry-level neighbours; R = %3")
                       .arg(r.spec.trials)
                       .arg(num(r.spec.delta))
                       .arg(r.spec.iterations));
  return true;
}

bool fillRecovery(const DpTpmResult& r, SeriesPlot& plot, QString* error) {
  plot.clearSeries();
  plot.setLogX(true);
  plot.setLogY(true);
  plot.setAxisLabels(QObject::tr("incoherence μ₀ = (d/k) maxᵢ ‖Vᵀeᵢ‖² (log scale)"),
                     QObject::tr("ε needed to recover v₁ (log scale)"));
  std::vector<int> dims;
  for (const DpTpmCase& dc : r.spec.cases)
    if (dc.group == "incoherence" && std::find(dims.begin(), dims.end(), dc.d) == dims.end()) dims.push_back(dc.d);
  for (std::size_t di = 0; di < dims.size(); ++di) {
    QVector<double> x, y;
    for (int ci = 0; ci < static_cast<int>(r.spec.cases.size()); ++ci) {
      const DpTpmCase& dc = r.spec.cases[ci];
      if (dc.group != "incoherence" || dc.d != dims[di]) continue;
      x.append(r.cases[ci].mu0);
      y.append(dpTpmRecoveryEpsilon(r, ci, 0));
    }
    if (!plot.setSeries(QString("d%1").arg(dims[di]), QString("d = %1").arg(dims[di]), x, y, static_cast<int>(di), error))
      return false;
  }
  return true;
}

}  // namespace

void onlineTpmFigures(const std::shared_ptr<const OnlineTpmResult>& result, std::vector<ExperimentFigure>& out) {
  // Titles ask the question the plot answers; headings (the report's captions) name the paper.
  const QString titles[3] = {QObject::tr("How close does the online method come to the batch eigenvectors?"),
                             QObject::tr("How close are the online method's topics to the truth?"),
                             QObject::tr("How many passes over the corpus does the online method need?")};
  const QString headings[3] = {
      QObject::tr("Seed 004, Algorithm 2 (online tensor power method): distance to the batch eigenvectors vs documents per step n"),
      QObject::tr("Seed 004, Algorithm 2 (online tensor power method): topic error vs documents per step n"),
      QObject::tr("Seed 004, Algorithm 2 (online tensor power method): distance to the batch eigenvectors vs passes")};
  const char* keys[3] = {"online_error_vs_n", "online_topic_error_vs_n", "online_error_vs_passes"};
  for (int kind = 0; kind < 3; ++kind) {
    auto fill = [result, kind](BandPlot& p, QString* e) { return fillOnline(*result, kind, p, e); };
    out.push_back(makeFigure<BandPlot>(keys[kind], titles[kind], headings[kind],
                                       std::function<bool(BandPlot&, QString*)>(fill)));
  }
}

void dpTpmFigures(const std::shared_ptr<const DpTpmResult>& result, std::vector<ExperimentFigure>& out) {
  std::vector<std::string> groups;
  for (const DpTpmCase& dc : result->spec.cases)
    if (std::find(groups.begin(), groups.end(), dc.group) == groups.end()) groups.push_back(dc.group);
  for (const std::string& g : groups) {
    const QString title =
        QObject::tr("How much ε does the private power method need (by %1)?").arg(QString::fromStdString(g));
    const QString heading =
        QObject::tr("Seed 004, Algorithm 3 (private tensor power method): error vs ε, by %1")
            .arg(QString::fromStdString(g));
    auto fill = [result, g](BandPlot& p, QString* e) { return fillGroup(*result, g, false, p, e); };
    out.push_back(makeFigure<BandPlot>("dp_tpm_" + QString::fromStdString(g), title, heading,
                                       std::function<bool(BandPlot&, QString*)>(fill)));
    bool severalAccountants = false;
    for (const DpTpmCase& dc : result->spec.cases)
      severalAccountants = severalAccountants || (dc.group == g && dc.accountants.size() > 1);
    if (severalAccountants) {
      const QString spentTitle = QObject::tr("Which accounting buys the most accuracy per ε spent?");
      const QString spentHeading =
          QObject::tr(
              "Seed 004, Algorithm 3 (private tensor power method): error vs the ε the noise spends, by %1")
              .arg(QString::fromStdString(g));
      auto spent = [result, g](BandPlot& p, QString* e) { return fillGroup(*result, g, true, p, e); };
      out.push_back(makeFigure<BandPlot>("dp_tpm_" + QString::fromStdString(g) + "_spent", spentTitle,
                                         spentHeading, std::function<bool(BandPlot&, QString*)>(spent)));
    }
  }
  if (std::find(groups.begin(), groups.end(), "incoherence") != groups.end()) {
    const QString title = QObject::tr("Does the ε needed for recovery grow with the incoherence μ₀?");
    const QString heading =
        QObject::tr("Seed 004, Theorem 4.2 (private tensor power method): ε needed to recover v₁ vs incoherence μ₀");
    auto fill = [result](SeriesPlot& p, QString* e) { return fillRecovery(*result, p, e); };
    out.push_back(makeFigure<SeriesPlot>("dp_tpm_recovery_vs_mu0", title, heading,
                                         std::function<bool(SeriesPlot&, QString*)>(fill)));
  }
}

}  // namespace dplda
