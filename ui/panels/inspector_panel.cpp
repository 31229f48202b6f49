#include "ui/panels/inspector_panel.h"

#include <cmath>

#include "core/moments/clipped_moments.h"
#include "core/privacy/budget.h"
#include "core/privacy/sensitivity.h"
#include "ui/common/palette.h"
#include "ui/common/privacy_text.h"
#include "ui/panels/bound_math.h"
#include "ui/panels/theory_text.h"
#include "ui/session/session_privacy.h"
#include "ui/worker/run_worker.h"

namespace dplda {

namespace {
QString g(double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QString("—"); }
QString nn(Node n) { return QString::fromLatin1(nodeName(n)); }
// Core text with its mathematics shown (σ̃ₖ, Δ₂, ≥), escaped for rich text.
QString esc(const std::string& s) { return readablePrivacyText(s).toHtmlEscaped(); }

QString preconditionsHtml(const std::vector<Precondition>& pre) {
  if (pre.empty()) return QObject::tr("<p>Preconditions: none.</p>");
  QString h = QObject::tr("<p>Preconditions:</p><ul>");
  for (const Precondition& p : pre) {
    h += QString("<li><span style='color:%1'>%2</span> %3 <small>%4</small></li>")
             .arg((p.holds ? privateColor() : leakColor()).name(), p.holds ? "✔" : "✘", esc(p.name), esc(p.detail));
  }
  return h + "</ul>";
}

// Exact statistics of the corpus, set apart from released values.
QString teachingHtml(const QString& body) {
  return QObject::tr("<p><b><i>Non-private (teaching)</i></b> <small>exact statistics, not released and never "
                     "used by the release</small><br>%1</p>")
      .arg(body);
}

// The clipping of the run (the whitened release's, or the documents' in configurations 1–4 with
// the public bounds `clip`): fractions of documents scaled down (exact, from the data).
QString clippingHtml(const NonPrivateDiagnostics::Clipping& c, const MomentClip& clip) {
  if (!std::isfinite(c.m1)) return {};
  auto pc = [](double f) { return std::isfinite(f) ? QString::number(100.0 * f, 'g', 3) + "%" : QString("—"); };
  if (!std::isfinite(c.whitenedBound)) {
    return teachingHtml(QObject::tr("documents clipped (%1): M̂<sub>1</sub> term %2, M̂<sub>2</sub> term %3, "
                                    "M̂<sub>3</sub> term %4")
                            .arg(esc(momentClipText(clip)), pc(c.m1), pc(c.m2), pc(c.m3)));
  }
  return teachingHtml(QObject::tr("documents clipped by the whitened release: M̂<sub>1</sub> term %1, M̂<sub>2</sub> "
                                  "term %2; whitened terms y %3, p %4, t %5 (C = %6)")
                          .arg(pc(c.m1), pc(c.m2), pc(c.y), pc(c.p), pc(c.t), g(c.whitenedBound)));
}

// What each node holds, beyond the one-line description of core; `clipped`: the documents are
// clipped (docs/PRIVACY.md §12), so the moments are M̂2ᶜ, M̂3ᶜ with Lemma C4's sensitivities.
QString nodeDetail(Node n, bool clipped) {
  if (clipped && (n == Node::M2 || n == Node::M3)) {
    return QObject::tr("%1 of the documents clipped to the public bounds C1, C2, C3: each document's term scaled "
                       "down to its bound, so one document moves it less (Lemma C4 below).")
        .arg(n == Node::M2 ? QObject::tr("M̂₂ᶜ, the second moment (d×d)") : QObject::tr("M̂₃ᶜ, the third moment"));
  }
  switch (n) {
    case Node::D: return QObject::tr("The documents: one row of word counts per document. Neighbouring corpora differ in one document.");
    case Node::M2: return QObject::tr("M̂₂, the unbiased second moment (d×d). Sensitivity Δ₂ = (2 + 4a)/N shrinks with N.");
    case Node::M3: return QObject::tr("M̂₃, the third moment; only its whitened image T̂ is formed unless d is small.");
    case Node::W: return QObject::tr("W = U Σ^(−1/2) from the top-k eigenpairs of M̂₂: WᵀM̂₂W = I. Unstable when σ_k is small.");
    case Node::T: return QObject::tr("T̂ = M̂₃(W, W, W), a k×k×k symmetric tensor computed from the documents directly.");
    case Node::Wplus: return QObject::tr("W⁺ = U Σ^(1/2), the unwhitening matrix.");
    case Node::TD: return QObject::tr("The robust eigenpairs (λᵢ, vᵢ) of T̂. Their stability depends on the tensor eigengap γ_s.");
    case Node::U: return QObject::tr("Unwhitened topics μᵢ and weights αᵢ.");
    case Node::OUT: return QObject::tr("The output: topics projected onto the probability simplex.");
  }
  return {};
}
}  // namespace

InspectorPanel::InspectorPanel(QWidget* parent) : QTextBrowser(parent) {
  setOpenExternalLinks(false);
  setMinimumWidth(270);  // with the corpus dock, fits a 1280-px screen (tests/ui/tst_window_fit)
  render();
}

void InspectorPanel::setSession(const SessionState& state) {
  const bool lessonChanged = state.lessonText != m_state.lessonText;
  m_state = state;
  if (lessonChanged && !state.lessonText.isEmpty()) m_lessonFirst = true;
  render();
}

void InspectorPanel::setOutcome(std::shared_ptr<const RunOutcome> outcome) {
  m_outcome = std::move(outcome);
  render();
}

void InspectorPanel::showEdge(int edge) {
  if (edge < 0 || edge >= kEdgeCount) return;
  m_edge = edge;
  m_node.reset();
  m_lessonFirst = false;
  render();
}

void InspectorPanel::showNode(Node node) {
  m_node = node;
  m_edge = -1;
  m_lessonFirst = false;
  render();
}

void InspectorPanel::showLesson() {
  m_lessonFirst = true;
  render();
}

QSize InspectorPanel::sizeHint() const { return QSize(380, QTextBrowser::sizeHint().height()); }

SensitivityInputs InspectorPanel::sensitivityInputs() const {
  SensitivityInputs in;
  in.docCount = m_outcome ? (m_outcome->trainDocCount > 0 ? m_outcome->trainDocCount : m_outcome->docCount)
                          : m_state.generator.docCount;  // N of the fit: the training part
  in.topicCount = m_state.topicCount();
  in.alpha0 = m_state.alpha0();
  in.maxLength = m_state.maxLength;
  in.clip = momentClipOf(m_state);  // Lemma C4's moment bounds in every formula when clipping
  in.sigmaKTilde = in.gapTilde = in.gammaSTilde = std::nan("");
  if (m_outcome && m_outcome->priv) {  // the private lower bounds the last run released
    const PrivacyDiagnostics& d = m_outcome->priv->diagnostics;
    if (d.sigmaKTilde) in.sigmaKTilde = *d.sigmaKTilde;
    if (d.gapTilde) in.gapTilde = *d.gapTilde;
    if (d.gammaSTilde) in.gammaSTilde = *d.gammaSTilde;
  }
  return in;
}

QString InspectorPanel::boundHtml(Node node, const LedgerEntry* entry) const {
  if (!hasSensitivityBound(node)) return tr("<p>%1 has no sensitivity bound: it cannot be released.</p>").arg(nn(node));
  const SensitivityInputs in = sensitivityInputs();
  const PrivacyOptions o = privacyOptionsOf(m_state);
  const bool whitened = o.whitened.enabled && (node == Node::M2 || node == Node::T);
  QString h = tr("<p><b>Sensitivity of %1</b> (%2)</p>")
                  .arg(nn(node), whitened ? tr("whitened release") : tr("%1 bounds").arg(boundSetName(m_state.bounds)));
  h += boundMathHtml(boundMath(node, in, m_state.bounds, o.whitened), entry ? entry->sensitivity : std::nan(""));
  if (!whitened) h += boundComparisonHtml(node, in);
  return h;
}

QString InspectorPanel::edgeHtml(int e) const {
  const EdgeInfo& info = edge(e);
  QString h = QString("<h3>e%1: %2 → %3</h3><p>%4.</p>")
                  .arg(e).arg(nn(info.from), nn(info.to), QString(info.operation).toHtmlEscaped());
  const bool noisy = contains(m_state.edges, e);
  if (!noisy) {
    h += tr("<p><b>Noise-free.</b> Click the edge to add noise: %1 then receives a differentially private "
            "release of %2.</p>").arg(nn(info.to), nn(info.from));
  } else {
    h += tr("<p><b style='color:%1'>Noisy.</b> %2 receives a private release of %3's value, calibrated to "
            "the sensitivity of %3.</p>").arg(noiseColor().darker(130).name(), nn(info.to), nn(info.from));
  }
  if (e == 6 && (noisy || m_state.e6Release != SessionState::TensorRelease::Noise)) {
    h += tr("<p>e6 is released by <b>%1</b> <small>(choose in the side panel's \"Release of the noisy edges\" box: noise on T, private "
            "decomposition or whitened release)</small></p>")
             .arg(tensorReleaseLabel(m_state.e6Release));
  }
  if (m_state.whitenedRelease() && (e == 2 || e == 5 || e == 6)) {
    h += e == 6 ? tr("<p>The whitened release: T̂ of the documents clipped in whitened space, computed with the "
                     "released W̃ and released once (no Procedure 1; docs/PRIVACY.md §11).</p>")
                : tr("<p>The whitened release: e2 and e5 share one release of the clipped M̂₂, from which W̃ and W̃⁺ "
                     "are computed (docs/PRIVACY.md §11).</p>");
  }
  // The ledger entry of the last run that releases this edge's source.
  const LedgerEntry* entry = nullptr;
  if (m_outcome && m_outcome->priv) {
    for (const LedgerEntry& l : m_outcome->priv->ledger) {
      for (int x : l.edges)
        if (x == e) entry = &l;
    }
  }
  if (entry) {
    h += QString("<p><b>%1</b></p>").arg(esc(entry->release));
    h += boundHtml(info.from, entry);
    h += tr("<p>Mechanism %1: noise scale σ = <b>%2</b><br>share ε = %3, δ = %4%5</p>")
             .arg(esc(entry->mechanism), g(entry->sigma), g(entry->epsilon), g(entry->delta),
                  entry->spent ? QString() : tr(" <i>(not spent)</i>"));
    h += preconditionsHtml(entry->preconditions);
    QStringList details;
    if (!entry->note.empty()) details << esc(entry->note);
    details << tr("core: %1").arg(esc(entry->sensitivityFormula));
    h += QString("<p><small>%1</small></p>").arg(details.join("<br>"));
    if (m_outcome->priv) h += clippingHtml(m_outcome->priv->diagnostics.nonPrivate.clipped, momentClipOf(m_outcome->session));
  } else {
    // Before a run: the formula, evaluated where it needs only public values.
    h += boundHtml(info.from, nullptr);
  }
  return h;
}

QString InspectorPanel::nodeHtml(Node n) const {
  const NodeInfo& info = nodeInfo(n);
  QString h = QString("<h3>%1</h3><p>%2</p><p>%3</p>")
                  .arg(QString::fromLatin1(info.name), QString(info.description).toHtmlEscaped(),
                       nodeDetail(n, momentClipOf(m_state).enabled));
  if (hasSensitivityBound(n)) h += boundHtml(n, nullptr);
  if (!m_outcome || !m_outcome->status.isOk()) return h;
  const RunOutcome& o = *m_outcome;
  if (o.priv && (n == Node::D || n == Node::M2 || n == Node::M3 || n == Node::T))
    h += clippingHtml(o.priv->diagnostics.nonPrivate.clipped, momentClipOf(o.session));
  if (o.variational)  // VI / DP-VI: the graph's nodes were not computed
    return h + tr("<p><i>The last run fitted %1, not this graph's pipeline.</i></p>").arg(modelLabel(o.variational->model));
  switch (n) {
    case Node::D:
      h += tr("<p>%1 documents, vocabulary %2, %3 non-zeros, longest %4 tokens%5.</p>")
               .arg(o.docCount).arg(o.vocabSize).arg(o.nnz).arg(o.maxLength)
               .arg(o.droppedDocuments ? tr(", %1 short documents dropped").arg(o.droppedDocuments) : QString());
      break;
    case Node::M2:
    case Node::W:
    case Node::Wplus: {
      if (o.priv) {
        const PrivacyDiagnostics& d = o.priv->diagnostics;
        QStringList rel;
        if (d.sigmaKTilde) rel << tr("σ̃_k = %1 (Procedure 1 lower bound)").arg(g(*d.sigmaKTilde));
        if (d.gapTilde) rel << tr("g̃ = %1 (eigengap lower bound)").arg(g(*d.gapTilde));
        if (d.releasedEigenvalues.size() > 0) {
          QStringList v;
          for (Eigen::Index i = 0; i < d.releasedEigenvalues.size(); ++i) v << g(d.releasedEigenvalues[i]);
          rel << tr("σ₁…σ_{k+1} of the released M̂₂: %1").arg(v.join(", "));
        }
        if (!rel.isEmpty()) h += tr("<p><b>Released (private)</b><br>%1</p>").arg(rel.join("<br>"));
      }
      QStringList exact;
      if (o.eigenvalues.size() > 0) {
        QStringList v;
        for (Eigen::Index i = 0; i < o.eigenvalues.size(); ++i) v << g(o.eigenvalues[i]);
        exact << tr("σ₁…σ_{k+1} of M̂₂: %1").arg(v.join(", "));
      }
      if (!o.nonPrivateFailure.isEmpty()) exact << tr("non-private model: %1").arg(o.nonPrivateFailure.toHtmlEscaped());
      if (!exact.isEmpty()) h += teachingHtml(exact.join("<br>"));
      break;
    }
    case Node::T:
    case Node::TD: {
      if (o.priv && o.priv->diagnostics.gammaSTilde)
        h += tr("<p><b>Released (private)</b><br>γ̃_s = %1 (Procedure 1 lower bound)</p>")
                 .arg(g(*o.priv->diagnostics.gammaSTilde));
      if (o.hasNonPrivate) {
        QStringList v;
        for (Eigen::Index i = 0; i < o.decomposition.lambda.size(); ++i) v << g(o.decomposition.lambda[i]);
        h += teachingHtml(tr("λ of T̂: %1<br>γ_s = %2").arg(v.join(", "), g(o.gammaS)));
      } else if (!o.nonPrivateFailure.isEmpty()) {
        h += teachingHtml(tr("non-private model: %1").arg(o.nonPrivateFailure.toHtmlEscaped()));
      }
      break;
    }
    case Node::U:
    case Node::OUT:
      if (o.error) h += tr("<p>Error vs truth: ℓ₂ %1, ℓ₁ %2, α %3</p>").arg(g(o.error->l2Mean), g(o.error->l1Mean), g(o.error->alphaError));
      if (o.utilityLoss) h += teachingHtml(tr("utility loss vs the non-private output: ℓ₂ %1").arg(g(o.utilityLoss->l2Mean)));
      if (const QString theory = theoryHtml(o); !theory.isEmpty()) h += teachingHtml(theory);
      else if (!o.nonPrivateFailure.isEmpty())
        h += teachingHtml(tr("non-private model: %1").arg(o.nonPrivateFailure.toHtmlEscaped()));
      if (o.priv && !o.priv->released)
        h += QString("<p style='color:%1'>%2</p>").arg(leakColor().name(), esc(o.priv->status.message()));
      break;
    default: break;
  }
  return h;
}

void InspectorPanel::render() {
  QString h;
  const QString lesson = m_state.lessonText.isEmpty()
                             ? QString()
                             : QString("<h2>%1</h2>%2<hr>").arg(m_state.lessonTitle.toHtmlEscaped(),
                                                               QString(m_state.lessonText).toHtmlEscaped().replace("\n\n", "<p>"));
  if (m_lessonFirst) h += lesson;
  if (m_edge >= 0) h += edgeHtml(m_edge);
  else if (m_node) h += nodeHtml(*m_node);
  else h += tr("<h3>Inspector</h3><p>Click an edge to toggle noise on it; select a node or edge "
               "(Tab, arrows) to see what it computes, its sensitivity and noise.</p>");
  if (!m_lessonFirst && !lesson.isEmpty()) h += "<hr>" + lesson;
  setHtml(h);
}

}  // namespace dplda
