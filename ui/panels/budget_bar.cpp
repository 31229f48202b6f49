#include "ui/panels/budget_bar.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/pipeline/privacy_statement.h"
#include "ui/common/compact_combo.h"
#include "ui/common/palette.h"
#include "ui/common/privacy_text.h"
#include "ui/session/session_privacy.h"

namespace dplda {

namespace {
constexpr int kSliderMerge = 1;  // undo merge key of ε slider drags
constexpr int kWhitenedPreset = -2;  // the preset combo's data for the whitened release
const Preset kPresets[] = {Preset::Config1, Preset::Config2, Preset::Config3, Preset::Config4, Preset::Input,
                           Preset::None};
QString presetLabel(Preset p) {
  switch (p) {
    case Preset::None: return QObject::tr("none (non-private)");
    case Preset::Input: return QObject::tr("input perturbation {e0,e1}");
    default:
      return QObject::tr("config %1 {%2}").arg(presetName(p), QString::fromStdString(edgeSetToString(presetEdges(p))));
  }
}
bool parseNumber(const QString& text, double* out) {
  bool ok = false;
  const double v = text.trimmed().toDouble(&ok);
  if (ok) *out = v;
  return ok;
}
}  // namespace

int BudgetBar::sliderPosition(double epsilon) {
  return std::clamp(static_cast<int>(std::lround(std::log10(epsilon) * 100.0)) + 200, 0, 400);
}
double BudgetBar::sliderEpsilon(int position) {
  // Two significant digits: the slider chooses a scale, typed entry gives exact values.
  const double v = std::pow(10.0, (position - 200) / 100.0);
  return QString::number(v, 'g', 2).toDouble();
}

BudgetBar::BudgetBar(QWidget* parent) : QWidget(parent) {
  // Two rows, always one line each (budget and mechanism; releases, seed and the indicator), so
  // that the graph below never moves under the mouse: long texts end where their row ends (in
  // full in their tooltips and the status bar). One row was 1,330 px wide at its minimum and kept
  // the window off a 1280-px screen. e6's release and the clipping bounds are a box of their own
  // (releaseOptions(), under the bar here; the window shows it in the corpus & model panel).
  auto* grid = new QVBoxLayout(this);
  grid->setContentsMargins(6, 2, 6, 2);
  grid->setSpacing(2);
  QHBoxLayout* rows[2] = {new QHBoxLayout, new QHBoxLayout};
  for (QHBoxLayout* r : rows) {
    r->setSpacing(6);
    grid->addLayout(r);
  }
  int row = 0;
  auto place = [&](QWidget* w) { rows[row]->addWidget(w); };
  auto label = [&](const QString& text, QWidget* buddy) {
    auto* l = new QLabel(text);
    l->setBuddy(buddy);
    rows[row]->addWidget(l);
  };

  m_slider = new QSlider(Qt::Horizontal);
  m_slider->setRange(0, 400);
  m_slider->setPageStep(50);
  m_slider->setMinimumWidth(140);
  m_slider->setToolTip(tr("Total privacy budget ε on a log scale from 0.01 to 100: smaller is more private, "
                          "larger is more accurate"));
  m_epsilon = new QLineEdit;
  m_epsilon->setMaximumWidth(70);
  // Wide enough for "0.00001" and "1e-05" whatever the window's width (it was squeezed to "e-05").
  const int numberWidth = m_epsilon->fontMetrics().horizontalAdvance(QStringLiteral("0.000001")) + 14;
  m_epsilon->setMinimumWidth(numberWidth);
  m_epsilon->setToolTip(tr("Type the total ε (> 0)"));
  label(tr("Total &ε"), m_epsilon);
  place(m_slider);
  place(m_epsilon);
  m_delta = new QLineEdit;
  m_delta->setMinimumWidth(numberWidth);
  m_delta->setMaximumWidth(std::max(70, numberWidth));
  m_delta->setToolTip(tr("Total δ, in (0, 1)"));
  label(tr("&δ"), m_delta);
  place(m_delta);
  m_preset = new QComboBox;
  for (Preset p : kPresets) m_preset->addItem(presetLabel(p), static_cast<int>(p));
  m_preset->addItem(tr("whitened release {e2,e5,e6}"), kWhitenedPreset);
  m_preset->addItem(tr("custom"), -1);
  qobject_cast<QStandardItemModel*>(m_preset->model())->item(m_preset->count() - 1)->setEnabled(false);
  makeCompact(m_preset, 19);  // "input perturbation {e0,e1}" whole at 1280 px
  m_preset->setToolTip(tr("Noisy edge set: configurations 1–4 of seed 002 Table 1, or the whitened release of the cut "
                          "{e2, e5, e6} (one clipped M̂₂ release for e2 and e5, then the clipped whitened tensor on e6; "
                          "docs/PRIVACY.md §11); clicks on the graph make it custom"));
  label(tr("&Edges"), m_preset);
  place(m_preset);
  m_mechanism = new QComboBox;
  m_mechanism->addItem(tr("analytic Gaussian"), static_cast<int>(Mechanism::AnalyticGaussian));
  m_mechanism->addItem(tr("classic Gaussian (ε<1)"), static_cast<int>(Mechanism::ClassicGaussian));
  m_mechanism->addItem(tr("closed-form Gaussian"), static_cast<int>(Mechanism::ClosedFormGaussian));
  m_mechanism->addItem(tr("Laplace"), static_cast<int>(Mechanism::Laplace));
  m_mechanism->setItemData(m_mechanism->count() - 1,
                           tr("Laplace: pure ε-DP (δ = 0) for configuration 1 (noise on the explicit M̂₃, d ≤ 300) and "
                              "input perturbation; refused on edges with only ℓ2 bounds (docs/PRIVACY.md §18)"),
                           Qt::ToolTipRole);
  makeCompact(m_mechanism, 12);
  label(tr("&Mechanism"), m_mechanism);
  place(m_mechanism);
  m_bounds = new QComboBox;
  m_bounds->addItem(tr("sound bounds"), static_cast<int>(BoundSet::Sound));
  m_bounds->addItem(tr("as printed"), static_cast<int>(BoundSet::Printed));
  makeCompact(m_bounds, 10);
  m_bounds->setToolTip(tr("Sound: corrected sensitivities (default). As printed: the papers' formulas, to "
                          "reproduce their figures"));
  place(m_bounds);
  rows[0]->addStretch(1);
  row = 1;
  m_share = new QCheckBox(tr("share releases"));
  place(m_share);
  m_accountant = new QComboBox;
  m_accountant->addItem(tr("basic"), static_cast<int>(Accountant::Basic));
  m_accountant->addItem(tr("Gaussian-DP"), static_cast<int>(Accountant::GaussianDp));
  m_accountant->setToolTip(
      tr("How the releases compose (docs/PRIVACY.md §4.1).\n"
         "basic: adds up every release's (ε_i, δ_i): Procedure 1's Laplace lower bounds and each node release.\n"
         "Gaussian-DP: composes the analytic Gaussian node releases exactly, μ = √(Σ μ_i²) with μ_i = Δ_i/σ_i, "
         "from their pooled (ε, δ) share (less noise for two or more releases); Procedure 1's Laplace "
         "releases still add up. Needs the analytic Gaussian; not with the private decomposition.\n"
         "Whichever calibrates the noise, the ledger's note shows the ε the run spent under basic, Gaussian-DP "
         "and the PLD accountant (privacy loss distributions, every release composed; docs/PRIVACY.md §16)."));
  label(tr("&Accountant"), m_accountant);
  place(m_accountant);
  m_split = new QLineEdit;
  m_split->setPlaceholderText(tr("uniform"));
  m_split->setMaximumWidth(90);
  m_split->setToolTip(tr("How ε and δ are split over the releases: \"uniform\", or comma-separated positive "
                         "weights, one per release in ledger order: Procedure 1's σ_k, γ_s first, then the node "
                         "releases in edge order (see the ledger)"));
  label(tr("S&plit"), m_split);
  place(m_split);
  m_noiseSeed = new QLineEdit;
  m_noiseSeed->setPlaceholderText(tr("secure"));
  m_noiseSeed->setMaximumWidth(90);
  m_noiseSeed->setToolTip(tr("Empty: noise from the kernel's secure generator. A number: reproducible "
                             "(seeded) noise for teaching; outputs say so"));
  label(tr("&Noise seed"), m_noiseSeed);
  place(m_noiseSeed);
  m_indicator = new QLabel;
  m_indicator->setTextFormat(Qt::RichText);
  // The rest of the row: the claim on one line (a long one ends at the row's end; the tooltip and
  // the graph's banner say it in full) instead of widening the window or adding lines.
  rows[1]->addWidget(m_indicator, 1);
  m_indicator->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // one line, never wider than the row
  // A typed value's problem takes the indicator's place (the status bar says it too).
  m_error = new QLabel;
  m_error->setStyleSheet(QString("color: %1;").arg(leakColor().name()));
  m_error->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_error->hide();
  rows[1]->addWidget(m_error, 1);
  buildE6Row();
  grid->addWidget(m_e6Row);

  for (QLineEdit* f : {m_epsilon, m_delta, m_noiseSeed, m_split, m_clipM1, m_clipM2, m_clipM3, m_clipWhitened})
    m_tips.insert(f, f->toolTip());

  connect(m_slider, &QSlider::valueChanged, this, [this](int pos) {
    if (m_updating) return;
    SessionState s = m_state;
    s.epsilon = sliderEpsilon(pos);
    emitIfValid(s, tr("change ε"), kSliderMerge);
  });
  connect(m_epsilon, &QLineEdit::editingFinished, this, &BudgetBar::commitText);
  connect(m_delta, &QLineEdit::editingFinished, this, &BudgetBar::commitText);
  connect(m_noiseSeed, &QLineEdit::editingFinished, this, &BudgetBar::commitText);
  connect(m_split, &QLineEdit::editingFinished, this, &BudgetBar::commitSplit);
  connect(m_preset, &QComboBox::activated, this, [this](int index) {
    const int p = m_preset->itemData(index).toInt();
    if (p == kWhitenedPreset) return emitIfValid(withWhitenedRelease(m_state), tr("choose the whitened release"));
    if (p < 0) return;
    emitIfValid(withEdges(m_state, presetEdges(static_cast<Preset>(p))),
                tr("choose %1").arg(presetLabel(static_cast<Preset>(p))));
  });
  connect(m_mechanism, &QComboBox::activated, this, [this] {
    SessionState s = m_state;
    s.mechanism = static_cast<Mechanism>(m_mechanism->currentData().toInt());
    emitIfValid(s, tr("change mechanism"));
  });
  connect(m_bounds, &QComboBox::activated, this, [this] {
    SessionState s = m_state;
    s.bounds = static_cast<BoundSet>(m_bounds->currentData().toInt());
    emitIfValid(s, tr("change bound set"));
  });
  connect(m_accountant, &QComboBox::activated, this, [this] {
    SessionState s = m_state;
    s.accountant = static_cast<Accountant>(m_accountant->currentData().toInt());
    emitIfValid(s, tr("change accountant"));
  });
  connect(m_share, &QCheckBox::toggled, this, [this](bool on) {
    if (m_updating) return;
    SessionState s = m_state;
    s.shareReleases = on;
    emitIfValid(s, tr("toggle shared releases"));
  });
}

void BudgetBar::showError(QLineEdit* field, const QString& message) {
  const std::initializer_list<QLineEdit*> fields{m_epsilon, m_delta, m_noiseSeed, m_split, m_clipM1, m_clipM2,
                                                 m_clipM3, m_clipWhitened};
  for (QLineEdit* f : fields) f->setStyleSheet(QString());
  if (field && !message.isEmpty()) field->setStyleSheet(QString("border: 2px solid %1;").arg(leakColor().name()));
  m_error->setText(message);
  m_error->setToolTip(message);
  m_error->setVisible(!message.isEmpty());
  m_indicator->setVisible(message.isEmpty());
  for (QLineEdit* f : fields)
    f->setToolTip(f == field && !message.isEmpty() ? message : m_tips.value(f));
  if (message != m_reportedProblem) {  // the session keeps its last valid state meanwhile
    m_reportedProblem = message;
    emit inputProblem(message);
  }
}

QString BudgetBar::errorText() const { return m_error->isHidden() ? QString() : m_error->text(); }
QString BudgetBar::indicatorText() const { return m_indicator->text(); }
QString BudgetBar::indicatorToolTip() const { return m_indicator->toolTip(); }
QString BudgetBar::presetText() const { return m_preset->currentText(); }

void BudgetBar::commitText() {
  if (m_updating) return;
  SessionState s = m_state;
  double eps = 0, delta = 0;
  if (!parseNumber(m_epsilon->text(), &eps)) {
    showError(m_epsilon, tr("total ε must be a number > 0, got '%1'").arg(m_epsilon->text()));
    return;
  }
  if (!parseNumber(m_delta->text(), &delta)) {
    showError(m_delta, tr("total δ must be a number in (0, 1), got '%1'").arg(m_delta->text()));
    return;
  }
  s.epsilon = eps;
  s.delta = delta;
  if (m_noiseSeed->text().trimmed().isEmpty()) {
    s.noiseSeed.reset();
  } else {
    auto seed = parseSeed(m_noiseSeed->text(), tr("noise seed"));
    if (!seed.ok()) {
      showError(m_noiseSeed, QString::fromStdString(seed.status().message()));
      return;
    }
    s.noiseSeed = seed.value();
  }
  const QMap<QString, QString> errors = validateSession(s);
  if (errors.contains("epsilon")) return showError(m_epsilon, errors.value("epsilon"));
  if (errors.contains("delta")) return showError(m_delta, errors.value("delta"));
  QString what = tr("change budget");
  if (s.noiseSeed != m_state.noiseSeed) what = tr("change noise seed");
  else if (s.delta != m_state.delta) what = tr("change δ");
  else if (s.epsilon != m_state.epsilon) what = tr("change ε");
  emitIfValid(s, what);
}

void BudgetBar::commitSplit() {
  if (m_updating) return;
  auto w = parseSplitText(m_split->text());
  if (!w.ok()) return showError(m_split, QString::fromStdString(w.status().message()));
  SessionState s = m_state;
  s.splitWeights = w.value();
  // Whether the count matches the releases is checked by the run (it names both counts).
  emitIfValid(s, tr("change budget split"));
}

void BudgetBar::emitIfValid(const SessionState& next, const QString& what, int mergeKey) {
  const QMap<QString, QString> errors = validateSession(next);
  for (const char* key : {"epsilon", "delta", "mechanism"}) {
    if (errors.contains(key)) {
      showError(QString(key) == "delta" ? m_delta : m_epsilon, errors.value(key));
      setState(m_state);  // the controls go back to the session's values; the message stays
      m_error->show();
      return;
    }
  }
  // The options of e6's release and the accountant: refused when the edit brings a new problem
  // (a session loaded with one keeps running into it at the run, which names it).
  const QMap<QString, QString> before = validateSession(m_state);
  const std::pair<const char*, QLineEdit*> fields[] = {{"clip_m1", m_clipM1},       {"clip_m2", m_clipM2},
                                                       {"clip_m3", m_clipM3},       {"clip_whitened", m_clipWhitened},
                                                       {"clip_documents", nullptr}, {"accountant", nullptr},
                                                       {"e6", nullptr}};
  for (const auto& [key, field] : fields) {
    if (errors.contains(key) && errors.value(key) != before.value(key)) {
      showError(field, errors.value(key));
      setState(m_state);
      m_error->show();
      return;
    }
  }
  showError(nullptr, QString());
  if (next == m_state) return;
  m_state = next;
  emit edited(next, what, mergeKey);
}

void BudgetBar::setState(const SessionState& s) {
  m_updating = true;
  m_state = s;
  m_slider->setValue(sliderPosition(s.epsilon));
  m_epsilon->setText(QString::number(s.epsilon, 'g', 6));
  m_delta->setText(QString::number(s.delta, 'g', 6));
  const auto preset = presetOf(s.edges);
  int index = m_preset->count() - 1;  // custom
  if (preset) index = m_preset->findData(static_cast<int>(*preset));
  if (s.whitenedRelease() && s.edges == whitenedEdges()) index = m_preset->findData(kWhitenedPreset);
  m_preset->setCurrentIndex(index);
  m_preset->setItemText(m_preset->count() - 1,
                        preset ? tr("custom") : tr("custom {%1}").arg(QString::fromStdString(edgeSetToString(s.edges))));
  const int mech = m_mechanism->findData(static_cast<int>(s.mechanism));
  m_mechanism->setCurrentIndex(mech >= 0 ? mech : 0);
  m_bounds->setCurrentIndex(m_bounds->findData(static_cast<int>(s.bounds)));
  // The whitened release shares its M̂₂ release by construction: shown ticked and greyed, the
  // user's own choice kept in the session for the other edge sets.
  const bool whitened = s.whitenedRelease() && s.edges == whitenedEdges();
  m_share->setChecked(whitened || s.shareReleases);
  m_share->setEnabled(!whitened);
  m_share->setToolTip(whitened ? tr("The whitened release shares its clipped M̂₂ release between e2 and e5 by "
                                    "construction; your choice applies again to the other edge sets")
                               : tr("Two noisy edges leaving one node use one release (one draw, one charge)"));
  m_accountant->setCurrentIndex(m_accountant->findData(static_cast<int>(s.accountant)));
  updateE6Row();
  m_noiseSeed->setText(s.noiseSeed ? seedToText(*s.noiseSeed) : QString());
  m_split->setText(s.splitWeights.empty() ? QString() : splitToText(s.splitWeights));
  updateIndicator();
  m_updating = false;
}

void BudgetBar::setDocCount(int docCount) {
  if (docCount == m_docCount) return;
  m_docCount = docCount;
  m_runStatement.reset();
  updateIndicator();
}

void BudgetBar::setRunStatement(const std::optional<PrivacyStatement>& statement) {
  m_runStatement = statement;
  updateIndicator();
}

void BudgetBar::setSweepReading(const SweepReading& reading) {
  m_reading = reading;
  updateIndicator();
}

void BudgetBar::updateIndicator() {
  const SessionState& s = m_state;
  const PrivacyStatement st =
      m_runStatement ? *m_runStatement
                     : privacyStatement(sessionStatementInputs(s, m_docCount));
  const QString label = privacyShortLabel(st, s.edges).toHtmlEscaped();
  QString html;
  switch (st.claim) {
    case PrivacyClaim::Proven: html = QString("<b style='color:%1'>%2</b>").arg(privateColor().name(), label); break;
    case PrivacyClaim::NotPrivate: html = QString("<b style='color:%1'>%2</b>").arg(leakColor().name(), label); break;
    default:
      html = QString("<span style='background-color:%1; color:black'><b>&nbsp;%2&nbsp;</b></span>")
                 .arg(cautionColor().name(), label);
  }
  if (!st.cautions.empty()) {
    html += QString(" <span style='background-color:%1; color:black'>&nbsp;%2&nbsp;</span>")
                .arg(cautionTint().name(), st.cautions.size() == 1 ? tr("⚠ 1 caution")
                                                                : tr("⚠ %1 cautions").arg(st.cautions.size()));
  }
  if (std::isfinite(m_reading.expectedErrorL2)) {
    html += QString(" <span style='color:%1'>%2</span>")
                .arg(QColor(90, 90, 90).name(), tr("· expected ℓ₂ error ≈ %1").arg(m_reading.expectedErrorL2, 0, 'g', 2));
  }
  m_indicator->setText(html);
  QStringList tip{readablePrivacyText(st.summary)};
  tip << privacyCautions(st);
  if (std::isfinite(m_reading.expectedErrorL2)) {
    tip << tr("Expected error at this ε: the session's ε sweep (median over its trials, interpolated between its "
              "grid points); its runs are experiments, not releases.");
  }
  m_indicator->setToolTip(tip.join("\n"));
}

}  // namespace dplda
