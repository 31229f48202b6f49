#include "ui/panels/experiment_view.h"

#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTextDocumentFragment>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/common/safe_file.h"
#include "core/experiments/sweep_archive.h"
#include "core/experiments/table_text.h"
#include "ui/common/compact_combo.h"
#include "ui/common/palette.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/session/session_privacy.h"
#include "ui/worker/run_worker.h"

namespace dplda {

namespace {

const QString& kSession = kSessionSweepSource;
const QString& kOpenedPrefix = kOpenedSweepPrefix;

QJsonArray toJson(const QVector<double>& v) {
  QJsonArray a;
  for (double x : v) a.append(std::isfinite(x) ? QJsonValue(x) : QJsonValue());
  return a;
}

QVector<double> fromJson(const QJsonArray& a) {
  QVector<double> v;
  for (const QJsonValue& x : a) v.append(x.isDouble() ? x.toDouble() : NAN);
  return v;
}

}  // namespace

ExperimentView::ExperimentView(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(2, 2, 2, 2);
  auto* bar = new QHBoxLayout;
  m_sourceCombo = new QComboBox;
  m_sourceCombo->addItem(tr("This session's ε sweep"), kSession);
  m_sourceCombo->setItemData(0, tr("Error against total ε for the session's corpus and edge set (or configurations 1–4 "
                                   "with Run ▸ Compare); rerun after every run."),
                             Qt::ToolTipRole);
  for (const std::string& name : experimentPresetNames()) {
    PresetOverrides ov;
    if (name == "figure3") {  // listed with a stand-in corpus; it runs on the session's corpus
      ov.corpus = std::make_shared<const Corpus>();
      ov.corpusDescription = "the session's corpus (load a real one: File ▸ Load corpus…)";
    }
    auto p = makeExperimentPreset(name, ov);
    if (!p.ok()) continue;
    m_sourceCombo->addItem(
        QString("%1 — %2").arg(QString::fromStdString(name), QString::fromStdString(p->title)),
        QString::fromStdString(name));
    m_sourceCombo->setItemData(m_sourceCombo->count() - 1, QString::fromStdString(p->description),
                               Qt::ToolTipRole);
  }
  makeCompact(m_sourceCombo, 10);  // preset titles are long; the popup shows them whole
  m_trials = new QSpinBox;
  m_trials->setRange(1, 1000);
  m_trials->setValue(10);
  m_trials->setPrefix(tr("trials "));
  m_trials->setToolTip(tr("Trials per point of a preset (the session's sweep uses the generator panel's value)"));
  m_run = new QPushButton(tr("Run"));
  m_figureCombo = new QComboBox;
  makeCompact(m_figureCombo, 12);
  m_pin = new QPushButton(tr("Pin sweep"));
  m_pin->setToolTip(tr("Keep this sweep's curves on the error plots as dashed references (saved with the session)"));
  m_save = new QPushButton(tr("Save…"));
  m_save->setToolTip(tr("Write the experiment folder: results.csv, summary.csv, every figure as PNG, PDF, SVG and CSV, "
                        "and report.md"));
  bar->addWidget(m_sourceCombo, 2);
  bar->addWidget(m_trials);
  bar->addWidget(m_run);
  bar->addSpacing(6);
  bar->addWidget(new QLabel(tr("Figure")));
  bar->addWidget(m_figureCombo, 3);
  bar->addWidget(m_pin);
  bar->addWidget(m_save);
  v->addLayout(bar);

  m_stack = new QStackedWidget;
  m_errorPlot = new ErrorVsEpsilonPlot;
  m_errorPlot->setTitle(tr("Error vs total ε"));
  m_errorPlot->setMinimumDataHeight(kPlotDataHeight);
  m_plots.insert(ErrorVsEpsilonPlot::staticMetaObject.className(), m_errorPlot);
  m_stack->addWidget(m_errorPlot);
  v->addWidget(m_stack, 1);
  // One line, ending where the tab ends; the whole note (seeds, release counts, the command) is
  // its tooltip and in report.md. On a 720-pixel screen its three lines took the plot's height.
  m_note = new QLabel;
  m_note->setTextFormat(Qt::PlainText);
  m_note->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

  auto* pins = new QHBoxLayout;  // the note, and the pins beside it when there are any
  pins->addWidget(m_note, 2);
  // The pins as one row of items beside Unpin (a list of rows took 70 px: with a lesson's pin
  // the window could not stay 720 px high); the row scrolls sideways with the wheel and arrows.
  m_pinnedList = new QListWidget;
  m_pinnedList->setFlow(QListView::LeftToRight);
  m_pinnedList->setWrapping(false);
  m_pinnedList->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_pinnedList->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_pinnedList->setSpacing(2);
  m_pinnedList->setFixedHeight(m_pinnedList->fontMetrics().height() + 14);
  m_pinnedList->setToolTip(tr("Pinned sweeps, drawn dashed on the error plots; select one and press Unpin to remove it"));
  m_unpin = new QPushButton(tr("Unpin"));
  m_unpin->setEnabled(false);
  pins->addWidget(m_pinnedList, 1);
  pins->addWidget(m_unpin, 0, Qt::AlignVCenter);
  v->addLayout(pins);
  m_pinnedList->hide();
  m_unpin->hide();

  connect(m_sourceCombo, &QComboBox::currentIndexChanged, this, [this] {
    updateButtons();
    refresh();
  });
  connect(m_figureCombo, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (m_updatingCombo || i < 0) return;
    m_figureKey = m_figureCombo->itemData(i).toString();
    refresh();
    if (PlotWidget* p = currentPlot()) p->resetView();
  });
  connect(m_run, &QPushButton::clicked, this, &ExperimentView::requestRun);
  connect(m_save, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Save the experiment into a folder"),
                                                          m_lastSaveDir.isEmpty() ? QDir::homePath() : m_lastSaveDir);
    if (dir.isEmpty()) return;
    // An earlier experiment's tables in that folder are the user's work: ask before replacing them.
    const QDir d(dir);
    if ((d.exists("results.csv") || d.exists("report.md")) &&
        QMessageBox::question(this, tr("Save experiment"),
                              tr("%1 already holds an experiment (results.csv, report.md). Replace it?").arg(dir)) !=
            QMessageBox::Yes)
      return;
    m_lastSaveDir = dir;
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = saveShown(dir, &error);
    QApplication::restoreOverrideCursor();
    if (!ok) emit message(tr("Could not save the experiment: %1").arg(error), true);
  });
  connect(m_pin, &QPushButton::clicked, this, [this] {
    QString error;
    if (!pinShown(&error)) emit message(error, true);
  });
  connect(m_unpin, &QPushButton::clicked, this, [this] {
    const int row = m_pinnedList->currentRow();
    if (row < 0 || row >= m_pinnedSweeps.size()) return;
    m_pinnedSweeps.removeAt(row);
    rebuildPinnedList();
    refresh();
    emit pinnedSweepsEdited(m_pinnedSweeps, tr("unpin a sweep"));
  });
  connect(m_pinnedList, &QListWidget::itemSelectionChanged, this,
          [this] { m_unpin->setEnabled(m_pinnedList->currentRow() >= 0); });
  updateButtons();
  updateNote();
}

void ExperimentView::requestRun() {
  if (sourceIsOpenedFolder()) return;  // read from disk: nothing to run
  if (m_running && source() != kSession) {
    if (source() == m_runningSource) emit cancelRequested();
    return;  // one preset at a time
  }
  if (source() != kSession) {
    m_runningSource = source();
    m_progress = 0.0;
  }
  emit runRequested(source(), m_trials->value());
}

QString ExperimentView::source() const { return m_sourceCombo->currentData().toString(); }

bool ExperimentView::sourceIsOpenedFolder() const { return source().startsWith(kOpenedPrefix); }

bool ExperimentView::setSource(const QString& source) {
  const int i = m_sourceCombo->findData(source);
  if (i < 0) return false;
  m_sourceCombo->setCurrentIndex(i);
  return true;
}

void ExperimentView::setTrials(int trials) { m_trials->setValue(trials); }

std::shared_ptr<const ExperimentUpdate> ExperimentView::shownUpdate() const { return m_latest.value(source()); }

QStringList ExperimentView::figureKeys() const {
  QStringList keys;
  for (const ExperimentFigure& f : m_figures) keys << f.key;
  return keys;
}

bool ExperimentView::setCurrentFigure(const QString& key) {
  const int i = m_figureCombo->findData(key);
  if (i < 0) return false;
  m_figureCombo->setCurrentIndex(i);  // the combo's signal draws it (nothing to do if already shown)
  return true;
}

PlotWidget* ExperimentView::currentPlot() const { return qobject_cast<PlotWidget*>(m_stack->currentWidget()); }

void ExperimentView::showUpdate(const std::shared_ptr<const ExperimentUpdate>& update) {
  if (!update) return;
  m_latest.insert(update->source, update);
  if (update->source == kSession) m_stale = false;
  if (update->source == source()) refresh();
}

SweepReading ExperimentView::sessionReading(const SessionState& s) const {
  const auto u = m_latest.value(kSession);
  if (!u || !u->run || !u->run->sweep || !u->run->finished || u->run->sweep->cases.empty()) return {};
  const SweepResult& r = *u->run->sweep;
  const SweepConfiguration* own = nullptr;
  // The session's own configuration is listed first; a comparison's "1/clip/gdp" has its edges too.
  for (const SweepConfiguration& c : r.spec.configurations)
    if (!own && c.model == SweepModel::Spectral && c.edges == s.edges && c.whitened.enabled == s.whitenedRelease() &&
        c.clipMoments == momentClipOf(s).enabled && (!c.accountant || *c.accountant == s.accountant))
      own = &c;
  if (!own || r.spec.bounds != s.bounds || r.spec.delta != s.delta) return {};
  return readSweep(r, 0, static_cast<int>(own - r.spec.configurations.data()), s.epsilon);
}

void ExperimentView::setRunning(bool running) {
  m_running = running;
  updateButtons();
}

void ExperimentView::setProgress(double fraction) {
  m_progress = fraction;
  updateButtons();
}

void ExperimentView::markCancelled(const QString& source) {
  const QString which = source.isEmpty() ? m_runningSource : source;
  auto last = m_latest.value(which);
  if (last && (!last->status.isOk() || (last->run && last->run->finished))) return;  // it had ended
  auto u = last ? std::make_shared<ExperimentUpdate>(*last) : std::make_shared<ExperimentUpdate>();
  u->source = which;
  u->status = cancelled();  // the snapshot keeps the points completed before the cancel
  showUpdate(u);
}

void ExperimentView::setStale(bool stale) {
  m_stale = stale;
  if (source() == kSession)
    for (PlotWidget* p : m_plots) p->setStale(stale);
}

void ExperimentView::setSessionMetadata(const QJsonObject& meta) {
  m_sessionMeta = meta;
  if (source() == kSession) refresh();
}

void ExperimentView::setPinnedRuns(const QJsonArray& pinned) {
  m_pinnedRuns = pinned;
  refresh();
}

void ExperimentView::setPinnedSweeps(const QJsonArray& pinned) {
  if (pinned == m_pinnedSweeps) return;
  m_pinnedSweeps = pinned;
  rebuildPinnedList();
  refresh();
}

void ExperimentView::rebuildPinnedList() {
  m_pinnedList->clear();
  for (const QJsonValue& v : m_pinnedSweeps) m_pinnedList->addItem(tr("pinned: %1").arg(v.toObject().value("label").toString()));
  m_pinnedList->setVisible(!m_pinnedSweeps.isEmpty());
  m_unpin->setVisible(!m_pinnedSweeps.isEmpty());
  m_unpin->setEnabled(false);
}

void ExperimentView::refresh() {
  const auto u = shownUpdate();
  m_figures = u && u->run ? experimentFigures(*u->run) : std::vector<ExperimentFigure>{};
  QStringList keys = figureKeys();
  QStringList shownKeys;
  for (int i = 0; i < m_figureCombo->count(); ++i) shownKeys << m_figureCombo->itemData(i).toString();
  if (keys != shownKeys) {  // rebuilt only when the list changes, so an open popup survives updates
    m_updatingCombo = true;
    m_figureCombo->clear();
    // The heading without its key ("error_l2: mean ℓ₂ error …" → "mean ℓ₂ error …"), whole in the
    // combo at 1280 px; the key and heading in full are the tooltip.
    for (const ExperimentFigure& f : m_figures) {
      m_figureCombo->addItem(f.heading.section(QStringLiteral(": "), 1).isEmpty() ? f.heading
                                                                                  : f.heading.section(QStringLiteral(": "), 1),
                             f.key);
      m_figureCombo->setItemData(m_figureCombo->count() - 1, f.heading, Qt::ToolTipRole);
    }
    m_updatingCombo = false;
  }
  if (!keys.contains(m_figureKey)) m_figureKey = keys.isEmpty() ? QString() : keys.first();
  {
    m_updatingCombo = true;
    m_figureCombo->setCurrentIndex(m_figureCombo->findData(m_figureKey));
    m_updatingCombo = false;
  }
  if (m_figures.empty()) {
    m_errorPlot->clearCurves();
    m_errorPlot->clearBaseline();
    m_stack->setCurrentWidget(m_errorPlot);
    if (source() == kSession) overlayPins(QString());
  } else {
    for (const ExperimentFigure& f : m_figures)
      if (f.key == m_figureKey) drawFigure(f, *u);
  }
  updateNote();
  updateButtons();
}

void ExperimentView::drawFigure(const ExperimentFigure& figure, const ExperimentUpdate& update) {
  PlotWidget*& plot = m_plots[figure.plotType->className()];
  if (!plot) {
    plot = figure.create().release();
    plot->setMinimumDataHeight(kPlotDataHeight);
    m_stack->addWidget(plot);
  }
  m_stack->setCurrentWidget(plot);
  QString error;
  if (!figure.fill(*plot, &error)) emit message(tr("Figure %1: %2").arg(figure.key, error), true);
  plot->setTitle(figure.title);
  QJsonObject meta = experimentMetadata(*update.run);
  if (update.source == kSession)
    for (auto it = m_sessionMeta.begin(); it != m_sessionMeta.end(); ++it) meta.insert(it.key(), it.value());
  if (!update.commandLine.isEmpty()) meta.insert("command", update.commandLine);
  plot->setMetadata(meta);
  if (figure.errorCurves) overlayPins(figure.key);
  plot->setStale(update.source == kSession && m_stale);
  const bool finished = update.status.isOk() && update.run && update.run->finished;
  plot->setPlaceholderText(finished && !plot->hasData() ? nothingReleasedText(update) : QString());
}

QString ExperimentView::nothingReleasedText(const ExperimentUpdate& u) const {
  if (!u.run || !u.run->sweep || u.run->sweep->spec.epsilons.empty()) return tr("The experiment finished with nothing to draw.");
  const SweepResult& r = *u.run->sweep;
  const auto [lo, hi] = std::minmax_element(r.spec.epsilons.begin(), r.spec.epsilons.end());
  QStringList lines{tr("The sweep finished: nothing was released at any ε from %1 to %2.")
                        .arg(QString::number(*lo, 'g', 3), QString::number(*hi, 'g', 3))};
  // Why: each configuration's refusal at the largest ε (its best chance), wrapped for the plot.
  QStringList seen;
  for (const SweepRow& row : r.rows) {
    if (row.released || row.epsilon != *hi || row.reason.empty()) continue;
    const QString label = QString::fromStdString(r.spec.configurations[row.configIndex].label);
    if (seen.contains(label)) continue;
    seen << label;
    QString line;
    for (const QString& word :
         tr("Config %1 at ε = %2: %3")
             .arg(label, QString::number(row.epsilon, 'g', 3), QString::fromStdString(row.reason))
             .split(' ')) {
      if (!line.isEmpty() && line.size() + word.size() > 70) {
        lines << line;
        line.clear();
      }
      line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    lines << line;
  }
  return lines.join('\n');
}

void ExperimentView::overlayPins(const QString& figureKey) {
  int n = 0;
  for (int i = 0; i < m_pinnedSweeps.size(); ++i) {
    const QJsonObject pin = m_pinnedSweeps[i].toObject();
    const QJsonArray curves = pin.value("figures").toObject().value(figureKey).toArray();
    for (int j = 0; j < curves.size(); ++j) {
      const QJsonObject c = curves[j].toObject();
      const QString key = QString("pin-%1-%2").arg(i).arg(j);
      if (m_errorPlot->setCurve(key, tr("pinned %1: %2").arg(pin.value("label").toString(), c.value("config").toString()),
                                fromJson(c.value("eps").toArray()), fromJson(c.value("median").toArray()), {}, {},
                                c.value("style").toInt()))
        m_errorPlot->setCurveDimmed(key);
      ++n;
    }
  }
  // Single pinned runs belong to the session: points on its ℓ₂ error (or utility loss) figure.
  if (source() != kSession) return;
  int i = 0;
  for (const QJsonValue& v : m_pinnedRuns) {
    const QJsonObject s = v.toObject();
    const double eps = s.value("epsilon").toDouble(NAN);
    const double err = s.value("error").toDouble(NAN);
    const QString wanted = s.value("error_kind").toString() == "utility loss" ? "utility_loss_l2" : "error_l2";
    ++i;
    if (!(eps > 0) || !std::isfinite(err) || (!figureKey.isEmpty() && figureKey != wanted)) continue;
    m_errorPlot->setCurve(QString("pinned-run-%1").arg(i),
                          tr("pinned run #%1 %2").arg(s.value("run").toInt()).arg(s.value("label").toString()), {eps},
                          {err}, {}, {}, 6 + i);
  }
}

void ExperimentView::updateButtons() {
  const bool session = source() == kSession, opened = sourceIsOpenedFolder();
  m_trials->setEnabled(!session && !opened);
  const bool cancelShown = m_running && !session && source() == m_runningSource;
  m_run->setText(cancelShown ? tr("Cancel (%1%)").arg(static_cast<int>(m_progress * 100)) : tr("Run"));
  m_run->setEnabled(!opened && (session || !m_running || cancelShown));  // one preset at a time
  m_run->setToolTip(session  ? tr("Run the session again (Ctrl+R)")
                    : opened ? tr("Opened from disk: run it again with its command (in the note's tooltip)")
                             : tr("Run this experiment in the background"));
  const auto u = shownUpdate();
  const bool finished = u && u->run && u->run->finished;
  m_pin->setEnabled(finished && u->run->preset.kind == ExperimentKind::ErrorSweep);
  m_save->setEnabled(finished);
}

void ExperimentView::updateNote() {
  const auto u = shownUpdate();
  const bool session = source() == kSession;
  QString text;
  QString color;
  if (!u) {
    if (session) {
      text = tr("The session's ε sweep runs after every run (Ctrl+R).");
    } else {
      PresetOverrides ov;
      ov.corpus = std::make_shared<const Corpus>();
      ov.corpusDescription = "the session's corpus";
      auto p = makeExperimentPreset(source().toStdString(), ov);
      text = tr("Press Run to start this experiment. %1")
                 .arg(p.ok() ? QString::fromStdString(p->description) : QString());
    }
  } else if (!u->status.isOk()) {
    const bool cancelledRun = u->status.code() == StatusCode::Cancelled;
    text = cancelledRun ? tr("Cancelled after %1 of %2 points; the points shown are complete.")
                              .arg(u->pointsDone)
                              .arg(u->pointsTotal)
                        : tr("The experiment failed: %1").arg(QString::fromStdString(u->status.message()));
    if (!cancelledRun) color = leakColor().name();
  } else if (!u->run || !u->run->finished) {
    text = u->pointsTotal > 0 ? tr("Running: %1 of %2 points done…").arg(u->pointsDone).arg(u->pointsTotal)
                              : tr("Running…");
  } else if (u->run->tpm) {
    const TpmNoiseResult& r = *u->run->tpm;
    text = tr("%1 runs of the robust power method in %2 s; failure = %3; bars are 95% Wilson intervals.")
               .arg(r.rows.size())
               .arg(r.elapsedMs / 1000.0, 0, 'f', 1)
               .arg(tpmSuccessCriterionName(r.spec.criterion));
  } else if (u->run->online) {
    const OnlineTpmResult& r = *u->run->online;
    text = tr("%1 runs of the online power method in %2 s; slope of log error vs log n over the converged points: "
              "%3 (Corollary 3.1 predicts −0.5).")
               .arg(r.rows.size())
               .arg(r.elapsedMs / 1000.0, 0, 'f', 1)
               .arg(r.slopeVsN, 0, 'f', 2);
  } else if (u->run->dp) {
    const DpTpmResult& r = *u->run->dp;
    text = tr("%1 runs of the private power method (seed 004, Algorithm 3) in %2 s; seeded noise: an experiment, "
              "not a release.")
               .arg(r.rows.size())
               .arg(r.elapsedMs / 1000.0, 0, 'f', 1);
  } else if (u->run->sweep) {
    const SweepResult& r = *u->run->sweep;
    const SweepSpec& s = r.spec;
    // A release-only archive has no timings (they depend on the data).
    const QString took = !std::isfinite(r.elapsedMs) ? tr("release-only: no timings")
                         : r.elapsedMs < 1000      ? tr("in %1 ms").arg(r.elapsedMs, 0, 'f', 0)
                                                   : tr("in %1 s").arg(r.elapsedMs / 1000.0, 0, 'f', 1);
    text = tr("%1 runs (%2 points × %3 trials), %4, on %5 threads; %6 bounds, %7, δ = %8. Median over the trials "
              "that released, band %9–%10% quantiles.")
               .arg(r.rows.size())
               .arg(r.summary.size())
               .arg(s.trials)
               .arg(took)
               .arg(r.threadsUsed)
               .arg(boundSetName(s.bounds), mechanismName(s.mechanism), QString::number(s.delta, 'g', 3))
               .arg(s.bandLower * 100)
               .arg(s.bandUpper * 100);
    QStringList rare;
    for (int g = 0; g < static_cast<int>(s.configurations.size()); ++g) {
      if (s.configurations[g].edges == 0) continue;
      int released = 0, trials = 0;
      for (const SweepSummaryRow& row : r.summary)
        if (row.configIndex == g) {
          released += row.released;
          trials += row.trials;
        }
      if (released < trials)
        rare << tr("config %1 released in %2 of %3 runs")
                    .arg(QString::fromStdString(s.configurations[g].label))
                    .arg(released)
                    .arg(trials);
    }
    if (!rare.isEmpty()) text += " " + rare.join("; ") + tr(" (the others refused: see the ledger's reasons).");
    text += " " + tr("Noise: %1.").arg(QString::fromStdString(r.noiseSource));
    if (sourceIsOpenedFolder()) text = tr("Opened from %1 (sweep.json).").arg(source().mid(kOpenedPrefix.size())) + " " + text;
  }
  if (u && !u->commandLine.isEmpty()) text += " " + tr("Same as: <code>%1</code>").arg(u->commandLine.toHtmlEscaped());
  m_noteHtml = color.isEmpty() ? text : QString("<span style='color:%1'>%2</span>").arg(color, text);
  m_note->setStyleSheet(color.isEmpty() ? QString() : QString("color: %1;").arg(color));
  m_note->setToolTip(m_noteHtml);
  elideNote();
}

void ExperimentView::elideNote() {
  const QString plain = QTextDocumentFragment::fromHtml(m_noteHtml).toPlainText();
  m_note->setText(m_note->fontMetrics().elidedText(plain, Qt::ElideRight, std::max(1, m_note->width())));
}

void ExperimentView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  elideNote();
}

bool ExperimentView::pinShown(QString* error) { return pin(shownUpdate(), QString(), error); }

bool ExperimentView::pinSessionSweep(const QString& note, QString* error) { return pin(m_latest.value(kSession), note, error); }

void ExperimentView::showSessionSweep() {
  m_figureKey.clear();  // the first figure: the error against ε
  setSource(kSession);
  refresh();
  if (PlotWidget* p = currentPlot()) p->resetView();
}

bool ExperimentView::pin(const std::shared_ptr<const ExperimentUpdate>& u, const QString& note, QString* error) {
  if (!u || !u->run || !u->run->finished || !u->run->sweep || u->run->preset.kind != ExperimentKind::ErrorSweep) {
    if (error) *error = tr("Only a finished error sweep can be pinned; wait for it to finish.");
    return false;
  }
  QJsonObject figures;
  ErrorVsEpsilonPlot scratch;  // the curves exactly as the figure draws them
  for (const ExperimentFigure& f : experimentFigures(*u->run)) {
    if (!f.errorCurves) continue;
    QString err;
    if (!f.fill(scratch, &err)) continue;
    QJsonArray curves;
    for (const QString& key : scratch.curveKeys()) {
      ErrorVsEpsilonPlot::CurveData c;
      if (!scratch.curveData(key, &c)) continue;
      curves.append(QJsonObject{{"config", c.label}, {"style", c.style}, {"eps", toJson(c.eps)},
                                {"median", toJson(c.median)}});
    }
    figures.insert(f.key, curves);
  }
  const SweepSpec& s = u->run->sweep->spec;
  const QString what = u->source == kSession                 ? tr("session")
                       : u->source.startsWith(kOpenedPrefix) ? QDir(u->source.mid(kOpenedPrefix.size())).dirName()
                                                             : u->source;
  QString label = tr("%1 · %2 bounds · %3 trials · %4")
                      .arg(what, boundSetName(s.bounds))
                      .arg(s.trials)
                      .arg(QDateTime::currentDateTime().toString("HH:mm:ss"));
  if (!note.isEmpty()) label = tr("%1 · %2").arg(what, note);
  m_pinnedSweeps.append(QJsonObject{{"label", label},
                                    {"source", u->source},
                                    {"bounds", boundSetName(s.bounds)},
                                    {"trials", s.trials},
                                    {"noise_seed", QString::number(s.seeds.noise)},
                                    {"figures", figures}});
  rebuildPinnedList();
  refresh();
  emit pinnedSweepsEdited(m_pinnedSweeps, tr("pin a sweep"));
  return true;
}

}  // namespace dplda
