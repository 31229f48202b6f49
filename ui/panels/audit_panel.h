#pragma once
// The Audit tab (issue 14): "let a student watch a guarantee hold". Picks a Gaussian release of
// the session's configuration (M̂2 with Δ2, or the whitened release's clipped M̂2 and T̂), builds
// the adversarial neighbour of the privacy tests (core/privacy/audit.h), draws the release many
// times on both corpora with seeded noise (a cancellable background job; the GUI never waits),
// and shows the empirical ε lower bound (Clopper–Pearson, threshold test on the projection on
// the difference of the two noise-free values) against the claimed ε: as a number, the two
// histograms of the statistic, and the bound against the number of draws. The release is drawn
// as the session's run draws it (its ledger row: budget split, accountant, calibration; its noise
// code). "Negative control" injects a noise multiplier of 1/4 into the run's own calibration and
// breaks the guarantee visibly.
#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <optional>

#include "ui/panels/audit_job.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace dplda {

class SeriesPlot;

class AuditPanel : public QWidget {
  Q_OBJECT

 public:
  explicit AuditPanel(QWidget* parent = nullptr);
  ~AuditPanel() override;

  // The session whose configuration is audited: its corpus, k, α0, clipping, ε and δ (the claimed
  // values, editable here; edits of the session's ε or δ update them).
  void setSession(const SessionState& s);

  void start();   // cancels an audit in flight
  void cancel();
  bool isRunning() const { return m_running; }
  // The last finished audit (its status says whether it failed or was cancelled).
  const std::optional<AuditJobResult>& lastResult() const { return m_last; }
  QString resultText() const;

  QComboBox* releaseBox() const { return m_release; }
  QComboBox* neighbourBox() const { return m_neighbour; }
  QCheckBox* noiseControlBox() const { return m_noiseControl; }
  QSpinBox* drawsBox() const { return m_draws; }
  QDoubleSpinBox* epsilonBox() const { return m_epsilon; }
  QLineEdit* deltaEdit() const { return m_delta; }
  SeriesPlot* histogramPlot() const { return m_histogram; }
  SeriesPlot* curvePlot() const { return m_curve; }
  // The visible plot (for export).
  SeriesPlot* currentPlot() const;

 signals:
  void finished();
  void runningChanged(bool running);  // the main window's Esc cancels a running audit

 private:
  void onFinished();
  void show(const AuditJobResult& r);
  void setRunning(bool running);

  SessionState m_session;
  bool m_hasSession = false;
  QComboBox* m_release = nullptr;
  QComboBox* m_neighbour = nullptr;
  QDoubleSpinBox* m_epsilon = nullptr;
  QLineEdit* m_delta = nullptr;
  QSpinBox* m_draws = nullptr;
  QCheckBox* m_noiseControl = nullptr;
  QPushButton* m_run = nullptr;
  QPushButton* m_cancel = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_result = nullptr;
  SeriesPlot* m_histogram = nullptr;
  SeriesPlot* m_curve = nullptr;
  QTabWidget* m_plots = nullptr;

  QFutureWatcher<AuditJobResult> m_watcher;
  std::shared_ptr<Feedback> m_feedback;
  quint64 m_jobId = 0;
  bool m_running = false;
  std::optional<AuditJobResult> m_last;
  std::optional<ReleaseAudit> m_prepared;  // cached by m_preparedKey
  QString m_preparedKey;
};

}  // namespace dplda
