#include "ui/panels/theory_text.h"

#include <QObject>
#include <cmath>

#include "core/eval/metrics.h"
#include "core/experiments/error_vs_n.h"
#include "ui/worker/run_worker.h"

namespace dplda {

namespace {

QString num(double v) { return QString::number(v, 'g', 3); }

// The run's configuration as the sweep engine names it, for predictedRate().
SweepConfiguration configurationOf(const SessionState& s) {
  SweepConfiguration c;
  c.edges = s.edges;
  c.model = s.model == SessionState::Model::Vi     ? SweepModel::Vi
            : s.model == SessionState::Model::DpVi ? SweepModel::DpVi
                                                   : SweepModel::Spectral;
  c.whitened.enabled = s.whitenedRelease();
  c.privateDecomposition = s.e6Release == SessionState::TensorRelease::Decomposition;
  c.clipMoments = s.clipDocuments && !c.whitened.enabled && s.edges != 0;
  return c;
}

}  // namespace

QString theoryHtml(const RunOutcome& o) {
  if (!o.utilityLoss || !o.priv || !o.priv->released) return {};
  const RatePrediction rate = predictedRate(configurationOf(o.session));
  const QString head = QObject::tr("<b>Theory beside the measurement</b> <small>(docs/EXPERIMENTS.md §3)</small><br>");
  if (!std::isfinite(rate.exponent))
    return head + QObject::tr("No rate to compare: %1.").arg(QString::fromStdString(rate.source).toHtmlEscaped());
  const double loss = o.utilityLoss->l2Mean;
  QString h = head + QObject::tr("%1.<br>Rate only: the theorem's constant is unknown, so it predicts no number at "
                                 "this N.")
                         .arg(QString::fromStdString(rate.source).toHtmlEscaped());
  // The rate carries the measured loss to more documents only past saturation (error below half a
  // random guess's, the rule of the error-vs-n fits); without a truth that cannot be told.
  if (!o.error || !o.truth) return h + QObject::tr(" Without a truth this run's saturation cannot be told.");
  const LdaModel& t = *o.truth;
  const Eigen::MatrixXd uniform = Eigen::MatrixXd::Constant(t.vocabSize(), t.topicCount(), 1.0 / t.vocabSize());
  const double guess = compareTopics(t.topics, t.alpha, uniform, t.alpha).l2Mean;
  if (!(o.error->l2Mean < guess / 2.0)) {
    return h + QObject::tr(" This run is saturated (error %1 ≥ %2, half a random guess's): the noise has swamped "
                           "the topics, the theorem's first-order bound does not apply and the rate predicts "
                           "nothing.")
                   .arg(num(o.error->l2Mean), num(guess / 2.0));
  }
  const int N = o.trainDocCount > 0 ? o.trainDocCount : o.docCount;
  return h + QObject::tr(" From this run's utility loss %1 at N = %2 the rate N<sup>%3</sup> predicts ≈ %4 at N = %5 "
                         "and ≈ %6 at N = %7 (same ε, same corpus law; measured on the figure-2 corpora: slopes "
                         "−1.00 and −0.96 for configuration 1).")
                 .arg(num(loss))
                 .arg(N)
                 .arg(num(rate.exponent))
                 .arg(num(loss * std::pow(2.0, rate.exponent)))
                 .arg(2 * N)
                 .arg(num(loss * std::pow(10.0, rate.exponent)))
                 .arg(10 * N);
}

}  // namespace dplda
