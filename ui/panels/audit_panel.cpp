#include "ui/panels/audit_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <atomic>
#include <cmath>

#include "ui/common/scroll_page.h"
#include "ui/common/palette.h"
#include "ui/common/privacy_text.h"
#include "ui/plots/series_plot.h"

namespace dplda {

using namespace privacy_audit;

namespace {
QString g(double v, int digits = 4) { return std::isfinite(v) ? QString::number(v, 'g', digits) : QString("—"); }

struct Progress {
  std::atomic<double> fraction{0.0};
};
}  // namespace

AuditPanel::AuditPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("auditPanel");
  auto* controls = new QWidget;
  auto* form = new QFormLayout(controls);
  form->setContentsMargins(4, 4, 4, 4);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  m_release = new QComboBox;
  m_release->addItem(tr("M̂₂ (Δ₂; e2/e5)"), int(AuditedRelease::SecondMoment));
  m_release->addItem(tr("whitened: clipped M̂₂"), int(AuditedRelease::WhitenedSecondMoment));
  m_release->addItem(tr("whitened: T̂ given W̃"), int(AuditedRelease::WhitenedTensor));
  m_release->setToolTip(tr("The Gaussian release drawn, as the session's run draws it (its ledger row and noise "
                           "code): the M̂₂ release of the session's configuration (configuration 1's when it has "
                           "none with a fixed noise scale), or the two releases of the whitened release "
                           "(docs/PRIVACY.md §11, §14)."));
  m_neighbour = new QComboBox;
  m_neighbour->addItem(tr("worst the bound allows"), int(AuditNeighbour::WorstAllowed));
  m_neighbour->addItem(tr("real adversarial pair"), int(AuditNeighbour::RealPair));
  m_neighbour->setToolTip(tr("D′ replaces document 1 by one word repeated. 'Worst the bound allows' moves D′'s value a "
                             "full sensitivity Δ away along the same direction: the tight case, where ε_lb can come "
                             "near ε. The real pair differs by less than Δ, so its bound stays lower."));
  m_epsilon = new QDoubleSpinBox;
  m_epsilon->setRange(0.01, 20);
  m_epsilon->setDecimals(3);
  m_epsilon->setValue(1.0);
  m_epsilon->setToolTip(tr("The run's total ε (the session's; editable here): the run is calibrated with it, and "
                           "every single release of the run must meet it"));
  m_delta = new QLineEdit("1e-05");
  m_delta->setToolTip(tr("The run's total δ, in (0, 0.5): the claim the release must meet"));
  m_draws = new QSpinBox;
  m_draws->setRange(1000, 5000000);
  m_draws->setSingleStep(100000);
  m_draws->setValue(500000);
  m_draws->setGroupSeparatorShown(true);
  m_draws->setToolTip(tr("Releases drawn on each corpus (seeded: the session's noise seed, or 1)"));
  m_noiseControl = new QCheckBox(tr("Negative control: a quarter of the run's noise"));
  m_noiseControl->setToolTip(tr("Injects a noise multiplier of 0.25 into the run's own calibration (every σ of the "
                                "run × 0.25): the audit must find ε_lb above the claimed ε (with enough draws)."));
  m_run = new QPushButton(tr("Run audit"));
  m_cancel = new QPushButton(tr("Cancel (Esc)"));
  m_cancel->setEnabled(false);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_run);
  buttons->addWidget(m_cancel);
  m_progress = new QProgressBar;
  m_progress->setRange(0, 1000);
  m_progress->setTextVisible(false);
  m_progress->setMaximumHeight(8);
  form->addRow(tr("Release"), m_release);
  form->addRow(tr("Neighbour"), m_neighbour);
  form->addRow(tr("Claimed ε"), m_epsilon);
  form->addRow(tr("δ"), m_delta);
  form->addRow(tr("Draws"), m_draws);
  form->addRow(m_noiseControl);
  form->addRow(buttons);
  form->addRow(m_progress);
  m_result = new QLabel(tr("Run the audit to draw the release on two neighbouring corpora."));
  m_result->setObjectName("auditResult");
  m_result->setWordWrap(true);
  m_result->setTextFormat(Qt::RichText);
  m_result->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  form->addRow(m_result);
  QScrollArea* scroll = scrollPage(controls, false);
  scroll->setFrameShape(QFrame::StyledPanel);
  scroll->setMinimumWidth(210);

  m_histogram = new SeriesPlot;
  m_histogram->setTitle(tr("Statistic on D and D′"));
  m_histogram->setAxisLabels(tr("projection, in Δ from f(D′)"), tr("draws per bin (log)"));
  m_histogram->setLegendCorner(Qt::AlignTop | Qt::AlignLeft);
  m_histogram->setLogY(true);
  m_curve = new SeriesPlot;
  m_curve->setTitle(tr("ε lower bound vs draws"));
  m_curve->setAxisLabels(tr("draws per corpus"), tr("ε"));
  m_curve->setLogX(true);
  m_curve->setLegendCorner(Qt::AlignBottom | Qt::AlignRight);
  // Before the first audit the axes show what will be drawn: draws per corpus up to the count
  // chosen, ε from 0 to above the claim (QCustomPlot's default was 0.1–10 "draws").
  auto emptyAxes = [this] {
    if (m_curve->hasData()) return;
    m_curve->xAxis->setRange(1000, std::max(10000, m_draws->value()));
    m_curve->yAxis->setRange(0, std::max(1.0, 2 * m_epsilon->value()));
    m_curve->replot(QCustomPlot::rpQueuedReplot);
  };
  emptyAxes();
  connect(m_draws, &QSpinBox::valueChanged, this, emptyAxes);
  connect(m_epsilon, &QDoubleSpinBox::valueChanged, this, emptyAxes);
  m_histogram->xAxis->setRange(-4, 5);  // in Δ from f(D′): both histograms sit near 0 and 1
  m_histogram->yAxis->setRange(1, std::max(10000, m_draws->value() / 10));

  // The two plots share the space beside the controls (tabs: each gets the full width).
  auto* plots = new QTabWidget;
  plots->setTabPosition(QTabWidget::South);
  plots->setDocumentMode(true);
  plots->addTab(m_curve, tr("ε vs draws"));
  plots->addTab(m_histogram, tr("Histograms"));
  m_plots = plots;
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(scroll);
  split->addWidget(plots);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(split);

  connect(m_run, &QPushButton::clicked, this, &AuditPanel::start);
  connect(m_cancel, &QPushButton::clicked, this, &AuditPanel::cancel);
  connect(&m_watcher, &QFutureWatcher<AuditJobResult>::finished, this, &AuditPanel::onFinished);
}

AuditPanel::~AuditPanel() {
  if (m_feedback) m_feedback->cancel();
  m_watcher.waitForFinished();  // older jobs own their inputs and never touch the panel
}

void AuditPanel::setSession(const SessionState& s) {
  if (!m_hasSession || s.epsilon != m_session.epsilon) m_epsilon->setValue(s.epsilon);
  if (!m_hasSession || s.delta != m_session.delta) m_delta->setText(QString::number(s.delta, 'g', 6));
  if (m_hasSession && s.whitenedRelease() != m_session.whitenedRelease())
    m_release->setCurrentIndex(s.whitenedRelease() ? 1 : 0);
  else if (!m_hasSession && s.whitenedRelease())
    m_release->setCurrentIndex(1);
  m_session = s;
  m_hasSession = true;
}

void AuditPanel::start() {
  bool okDelta = false;
  const double delta = m_delta->text().toDouble(&okDelta);
  if (!okDelta || !(delta > 0 && delta < 0.5)) {
    m_result->setText(tr("<b>δ must be a number in (0, 0.5)</b>, not '%1'.").arg(m_delta->text().toHtmlEscaped()));
    return;
  }
  if (m_feedback) m_feedback->cancel();  // the job in flight is superseded
  AuditRequest r;
  r.session = m_session;
  r.release = static_cast<AuditedRelease>(m_release->currentData().toInt());
  r.neighbour = static_cast<AuditNeighbour>(m_neighbour->currentData().toInt());
  r.epsilon = m_epsilon->value();
  r.delta = delta;
  r.draws = m_draws->value();
  r.noiseControl = m_noiseControl->isChecked();
  r.seed = m_session.noiseSeed.value_or(1);
  if (m_prepared && m_preparedKey == auditKey(r)) r.cached = m_prepared;
  auto feedback = std::make_shared<Feedback>();
  auto progress = std::make_shared<Progress>();
  feedback->setProgressCallback([progress](double f) { progress->fraction.store(f); });
  m_feedback = feedback;
  ++m_jobId;
  m_watcher.setFuture(QtConcurrent::run([r, feedback] { return runAuditJob(r, feedback.get()); }));
  setRunning(true);
  m_result->setText(r.cached ? tr("Drawing…") : tr("Building the neighbouring corpora, then drawing…"));
  auto* timer = new QTimer(this);
  timer->setInterval(100);
  const quint64 id = m_jobId;
  connect(timer, &QTimer::timeout, this, [this, timer, progress, id] {
    if (id != m_jobId || !m_running) {
      timer->deleteLater();
      return;
    }
    m_progress->setValue(static_cast<int>(1000 * progress->fraction.load()));
  });
  timer->start();
}

void AuditPanel::cancel() {
  if (m_feedback) m_feedback->cancel();
}

void AuditPanel::setRunning(bool running) {
  const bool changed = running != m_running;
  m_running = running;
  m_cancel->setEnabled(running);
  m_progress->setValue(running ? 0 : 1000);
  if (changed) emit runningChanged(running);
}

void AuditPanel::onFinished() {
  const AuditJobResult r = m_watcher.result();
  setRunning(false);
  m_last = r;
  if (r.status.isOk()) {
    m_prepared = r.audit;
    m_preparedKey = r.key;
    show(r);
  } else {
    m_result->setText(r.status.code() == StatusCode::Cancelled
                          ? tr("Audit cancelled.")
                          : tr("<b>The audit could not run:</b> %1")
                                .arg(readablePrivacyText(r.status.message()).toHtmlEscaped()));
  }
  emit finished();
}

QString AuditPanel::resultText() const { return m_result->text(); }

SeriesPlot* AuditPanel::currentPlot() const { return qobject_cast<SeriesPlot*>(m_plots->currentWidget()); }

void AuditPanel::show(const AuditJobResult& r) {
  const AuditOutcome& o = r.outcome;
  const double eps = r.epsilon;
  const bool control = r.noiseMultiplier < 1.0;
  const bool broken = o.bound.found() && o.bound.epsilon > eps;
  const QString verdict =
      !o.bound.found() ? tr("no threshold gave a bound yet (draw more)")
      : broken ? tr("<span style='color:%1'><b>ε_lb %2 &gt; claimed ε %3: the guarantee is broken</b></span>%4")
                     .arg(leakColor().name(), g(o.bound.epsilon, 3), g(eps, 3),
                          control ? tr(" — as it must be with a quarter of the noise") : tr(" — a calibration error!"))
               : tr("<b>ε_lb %1 ≤ claimed ε %2: no violation found</b> (a lower bound; not a proof)%3")
                     .arg(g(o.bound.epsilon, 3), g(eps, 3),
                          control ? tr(" (a quarter of the noise: draw more to expose it)") : QString());
  const LedgerEntry& row = r.audit.row;
  QString text = verdict;
  text += tr("<br>%1 % confidence (Clopper–Pearson); exact ε of this pair at this σ: %2.")
              .arg(95)
              .arg(g(o.exactEpsilon, 3));
  text += tr("<br><small>Drawn as the run draws it: edges %1, %2 accountant, the row “%3” (ε_i %4, δ_i %5%6), "
             "σ = %7%8.%9</small>")
              .arg(QString::fromStdString(edgeSetToString(r.audit.options.edges)),
                   QString::fromLatin1(accountantName(r.audit.options.accountant)),
                   QString::fromStdString(row.release).toHtmlEscaped(), g(row.epsilon, 3), g(row.delta, 3),
                   std::isfinite(row.mu) ? tr(", μ_i %1").arg(g(row.mu, 3)) : QString(), g(r.sigma),
                   control ? tr(" (the run's noise × %1)").arg(r.noiseMultiplier) : QString(),
                   r.audit.edgeNote.empty() ? QString()
                                            : tr(" (%1)").arg(QString::fromStdString(r.audit.edgeNote).toHtmlEscaped()));
  text += tr("<br><small>%1 release, N = %2, Δ = %3 (%4); D′: document 1 → %5; real gap %6 "
             "(%7 Δ); %8 draws per corpus, set %9 t = %10 (%11 / %12 draws).</small>")
              .arg(QString::fromLatin1(auditedReleaseName(r.pair.release)))
              .arg(r.pair.docCount)
              .arg(g(r.pair.sensitivity), QString::fromStdString(r.pair.sensitivityFormula).toHtmlEscaped(),
                   QString::fromStdString(r.pair.replacement).toHtmlEscaped(), g(r.pair.gap()),
                   g(r.pair.gap() / r.pair.sensitivity, 3))
              .arg(o.xD.size())
              .arg(o.bound.upperSet ? "x >" : "x ≤")
              .arg(g((o.bound.threshold - r.meanDPrime) / r.pair.sensitivity, 3))
              .arg(o.bound.countP)
              .arg(o.bound.countQ);
  m_result->setText(text);

  // Histograms of the statistic in units of Δ from f(D′), and the chosen threshold.
  const double unit = r.pair.sensitivity;
  double lo = 1e300, hi = -1e300;
  for (const auto* xs : {&o.xD, &o.xDPrime})
    for (double x : *xs) lo = std::min(lo, (x - r.meanDPrime) / unit), hi = std::max(hi, (x - r.meanDPrime) / unit);
  const int bins = 60;
  const double width = (hi - lo) / bins;
  auto histogram = [&](const std::vector<double>& xs) {
    QVector<double> counts(bins, 0.0);
    for (double x : xs) counts[std::clamp(static_cast<int>(((x - r.meanDPrime) / unit - lo) / width), 0, bins - 1)] += 1;
    return counts;
  };
  QVector<double> centres(bins);
  for (int i = 0; i < bins; ++i) centres[i] = lo + (i + 0.5) * width;
  const QVector<double> hD = histogram(o.xD), hDp = histogram(o.xDPrime);
  m_histogram->clearSeries();
  m_histogram->setSeries("d", tr("D"), centres, hD, 0);
  m_histogram->setSeries("dprime", tr("D′ (document 1 replaced)"), centres, hDp, 1);
  if (o.bound.found()) {
    const double t = (o.bound.threshold - r.meanDPrime) / unit;
    const double top = std::max(*std::max_element(hD.begin(), hD.end()), *std::max_element(hDp.begin(), hDp.end()));
    m_histogram->setSeries("threshold", tr("threshold t of the best test"), {t, t}, {1.0, top}, 3);
  }
  m_histogram->resetView();

  QVector<double> xs, ys;
  for (const AuditCurvePoint& p : o.curve) xs << p.draws, ys << p.epsilon;
  m_curve->clearSeries();
  m_curve->setSeries("lb", tr("ε lower bound (95 %)"), xs, ys, 0);
  m_curve->setSeries("claimed", tr("claimed ε"), {xs.front(), xs.back()}, {eps, eps}, 2);
  m_curve->setSeries("exact", tr("exact ε of the pair at this σ"), {xs.front(), xs.back()},
                     {o.exactEpsilon, o.exactEpsilon}, 4);
  m_curve->resetView();
}

}  // namespace dplda
