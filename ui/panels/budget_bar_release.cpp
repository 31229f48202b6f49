// The budget bar's release options: how e6 is released (noise on T̂, the private decomposition, the
// whitened release of docs/PRIVACY.md §11) and the public clipping bounds: C1, C2, C of the
// whitened release, or "clip documents" with C1, C2, C3 for the other noisy edge sets (§12).
// C1 and C2 are one pair of fields and one pair of session values for both.
#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>
#include <cmath>

#include "ui/common/compact_combo.h"
#include "ui/common/palette.h"
#include "ui/panels/budget_bar.h"
#include "ui/session/session_privacy.h"

namespace dplda {

namespace {
using TR = SessionState::TensorRelease;
QString clipText(double v) { return QString::number(v, 'g', 6); }
}  // namespace

void BudgetBar::buildE6Row() {
  auto* box = new QGroupBox(tr("Release of the noisy edges"));
  box->setObjectName("releaseOptions");
  m_e6Row = box;
  auto* v = new QVBoxLayout(box);
  v->setSpacing(4);
  m_e6Group = new QWidget;
  auto* e6 = new QHBoxLayout(m_e6Group);
  e6->setContentsMargins(0, 0, 0, 0);
  e6->setSpacing(6);
  m_e6 = new QComboBox;
  for (TR r : {TR::Noise, TR::Decomposition, TR::Whitened}) m_e6->addItem(tensorReleaseLabel(r), static_cast<int>(r));
  makeCompact(m_e6, 16);
  m_e6->setToolTip(tr("How the noisy edge e6 (T → TD) is released:\n"
                      "noise on T: Gaussian noise on T̂, calibrated to Δ_T (needs Procedure 1's σ̃_k, g̃);\n"
                      "private decomposition: seed 004's private tensor power method releases TD directly;\n"
                      "whitened release: with e2 and e5, one release of the clipped M̂₂ gives W̃ and W̃⁺, then the "
                      "clipped whitened tensor is released given W̃: no Procedure 1, proven (docs/PRIVACY.md §11)"));
  auto* e6Label = new QLabel(tr("e&6 release"));
  e6Label->setBuddy(m_e6);
  e6->addWidget(e6Label);
  e6->addWidget(m_e6, 1);
  v->addWidget(m_e6Group);

  m_clipBox = new QWidget;
  auto* clipLayout = new QVBoxLayout(m_clipBox);
  clipLayout->setContentsMargins(0, 0, 0, 0);
  clipLayout->setSpacing(4);
  m_clipDocuments = new QCheckBox(tr("clip documents"));
  m_clipDocuments->setToolTip(tr("Scale each document's M̂₁, M̂₂, M̂₃ terms down to the public bounds C1, C2, C3: "
                                 "smaller sensitivities (Lemma C4, docs/PRIVACY.md §12) at the price of a bias on "
                                 "the documents clipped. Sound bounds, a Gaussian mechanism, no input perturbation"));
  clipLayout->addWidget(m_clipDocuments);
  // The bounds two by two (C1 C2, then C3 or C), narrow enough for the side panel.
  auto* clips = new QGridLayout;
  clips->setContentsMargins(0, 0, 0, 0);
  clips->setHorizontalSpacing(8);
  clipLayout->addLayout(clips);
  int fieldIndex = 0;
  // A label and its field in one widget, so that a field the release does not use hides with its label.
  auto field = [&](QLineEdit*& edit, const QString& text, const QString& tip, int index = -1) {
    auto* pairBox = new QWidget;
    auto* pair = new QHBoxLayout(pairBox);
    pair->setContentsMargins(0, 0, 0, 0);
    pair->setSpacing(4);
    edit = new QLineEdit;
    // Wide enough for "0.15" or "0.001" at any font size; readable at 1280 px.
    edit->setMinimumWidth(edit->fontMetrics().horizontalAdvance(QStringLiteral("0.0001")) + 14);
    edit->setMaximumWidth(64);
    edit->setToolTip(tip);
    auto* l = new QLabel(text);
    l->setBuddy(edit);
    pair->addWidget(l);
    pair->addWidget(edit);
    pair->addStretch(1);
    const int i = index >= 0 ? index : fieldIndex++;
    clips->addWidget(pairBox, i / 2, i % 2);
    connect(edit, &QLineEdit::editingFinished, this, &BudgetBar::commitClips);
    return pairBox;
  };
  field(m_clipM1, tr("C&1"), tr("C1 > 0: each document's M̂₁ term is scaled down to ‖M̃₁ⁿ‖₂ ≤ C1 (public; 1 clips nothing)"));
  field(m_clipM2, tr("C&2"), tr("C2 > 0: each document's M̂₂ term is scaled down to ‖M̃₂ⁿ‖_F ≤ C2 (public; 1 clips nothing)"));
  // C3 (clipped documents) and C (the whitened release) share a place: one of them shows.
  m_clipM3Box = field(m_clipM3, tr("C&3"),
                      tr("C3 > 0: each document's M̂₃ term is scaled down to ‖M̃₃ⁿ‖_F ≤ C3 (public; 1 clips nothing)"), 2);
  m_clipWhitenedBox = field(m_clipWhitened, tr("&C"),
                            tr("C > 0 on each whitened document ‖W̃ᵀM̃₁ⁿ‖ (C², C³ on its second and third terms); "
                               "empty: the public default 2√(k + α₀)"), 2);
  m_rowBound = new QCheckBox(tr("clip nothing"));
  m_rowBound->setToolTip(tr("C1 = C2 = 1 and C = ρ_W, the largest row norm of the released W̃: nothing is clipped, "
                            "at the price of more noise (docs/PRIVACY.md §11.2)"));
  clipLayout->addWidget(m_rowBound);
  v->addWidget(m_clipBox);
  m_e6Problem = new QLabel;
  m_e6Problem->setWordWrap(true);
  m_e6Problem->setStyleSheet(QString("color: %1;").arg(leakColor().name()));
  v->addWidget(m_e6Problem);

  connect(m_e6, &QComboBox::activated, this, [this] {
    const auto r = static_cast<TR>(m_e6->currentData().toInt());
    SessionState s = m_state;
    if (r == TR::Whitened) {
      s = withWhitenedRelease(s);
    } else {
      s.e6Release = r;
      if (r == TR::Decomposition && s.accountant == Accountant::GaussianDp) s.accountant = Accountant::Basic;
    }
    emitIfValid(s, tr("release e6 by %1").arg(tensorReleaseLabel(r)));
  });
  connect(m_clipDocuments, &QCheckBox::toggled, this, [this](bool on) {
    if (m_updating) return;
    SessionState s = m_state;
    s.clipDocuments = on;
    emitIfValid(s, on ? tr("clip documents") : tr("stop clipping documents"));
  });
  connect(m_rowBound, &QCheckBox::toggled, this, [this](bool on) {
    if (m_updating) return;
    SessionState s = m_state;
    s.clipToRowBound = on;
    emitIfValid(s, on ? tr("clip nothing") : tr("clip the documents"));
  });
}

void BudgetBar::commitClips() {
  if (m_updating) return;
  SessionState s = m_state;
  const std::pair<QLineEdit*, double*> fields[] = {{m_clipM1, &s.clipM1}, {m_clipM2, &s.clipM2},
                                                   {m_clipM3, &s.clipM3}, {m_clipWhitened, &s.clipWhitened}};
  for (const auto& [edit, value] : fields) {
    const QString t = edit->text().trimmed();
    if (edit == m_clipWhitened && t.isEmpty()) {  // the default rule
      *value = 0.0;
      continue;
    }
    bool ok = false;
    const double v = t.toDouble(&ok);
    *value = ok ? v : std::nan("");  // a non-number gets core's message for a non-finite bound
  }
  // The typed text stays in its field, marked, while the session keeps its last valid bounds.
  const QMap<QString, QString> e = validateSession(s);
  for (const auto& [key, edit] : {std::pair{"clip_m1", m_clipM1}, std::pair{"clip_m2", m_clipM2},
                                  std::pair{"clip_m3", m_clipM3}, std::pair{"clip_whitened", m_clipWhitened}}) {
    if (e.contains(key)) return showError(edit, e.value(key));
  }
  emitIfValid(s, tr("change clipping bounds"));
}

bool BudgetBar::isE6RowVisible() const { return !m_e6Row->isHidden() && !m_e6Group->isHidden(); }

bool BudgetBar::isClipBoxVisible() const { return !m_e6Row->isHidden() && !m_clipBox->isHidden(); }

QString BudgetBar::e6ProblemText() const { return m_e6Problem->text(); }

void BudgetBar::updateE6Row() {
  const SessionState& s = m_state;
  const bool e6 = !s.isVariational() && (contains(s.edges, 6) || s.e6Release != TR::Noise);
  // Clipping: the whitened release's own, or the documents' for any other noisy edge set.
  const bool whitened = s.whitenedRelease(), clipping = !s.isVariational() && (s.edges != 0 || whitened);
  m_e6Group->setVisible(e6);
  m_clipBox->setVisible(clipping);
  m_e6Row->setVisible(e6 || clipping);
  m_e6->setCurrentIndex(m_e6->findData(static_cast<int>(s.e6Release)));
  m_clipDocuments->setVisible(!whitened);
  m_clipDocuments->setChecked(s.clipDocuments);
  m_clipM3Box->setVisible(!whitened);
  m_clipWhitenedBox->setVisible(whitened);
  m_rowBound->setVisible(whitened);
  m_clipM1->setText(clipText(s.clipM1));
  m_clipM2->setText(clipText(s.clipM2));
  m_clipM3->setText(clipText(s.clipM3));
  m_clipWhitened->setText(s.clipWhitened > 0 ? clipText(s.clipWhitened) : QString());
  m_clipWhitened->setPlaceholderText(
      QString::number(whitenedClipBound(WhitenedRelease{}, s.topicCount(), s.alpha0()), 'g', 3));
  m_rowBound->setChecked(s.clipToRowBound);
  // Greyed while they bound nothing: "clip nothing" in the whitened release, "clip documents" off elsewhere.
  for (QLineEdit* f : {m_clipM1, m_clipM2, m_clipM3, m_clipWhitened})
    f->setEnabled(whitened ? !s.clipToRowBound : s.clipDocuments);
  // A problem of the session itself (e.g. the whitened release after a click changed the edges).
  const QMap<QString, QString> e = validateSession(s);
  QStringList problems;
  for (const char* key : {"e6", "accountant", "clip_m1", "clip_m2", "clip_m3", "clip_whitened", "clip_documents"})
    if (e.contains(key)) problems << e.value(key);
  m_e6Problem->setText(problems.join("\n"));
  m_e6Problem->setVisible(!problems.isEmpty());
}

}  // namespace dplda
