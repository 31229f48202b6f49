#include "ui/common/privacy_text.h"

#include <QRegularExpression>
#include <utility>

#include "core/moments/clipped_moments.h"
#include "core/privacy/budget.h"
#include "ui/common/palette.h"

namespace dplda {

namespace {
QString displayName(Node n) { return n == Node::Wplus ? QStringLiteral("W⁺") : QString::fromLatin1(nodeName(n)); }

QString edgeList(EdgeSet edges) {
  return QString::fromStdString(edgeSetToString(edges)).replace(QLatin1Char(','), QStringLiteral(", "));
}
}  // namespace

QString readablePrivacyText(const std::string& text) {
  // The core writes plain ASCII (terminals, logs, tests); the app shows the mathematics. Longer
  // names first, so "sigma_k_tilde" is not read as "sigma_k" followed by "_tilde".
  static const std::pair<const char*, const char*> kSymbols[] = {
      {"sigma_k_tilde", "σ̃ₖ"}, {"sigma_k~", "σ̃ₖ"},   {"gap_tilde", "g̃"},        {"gap~", "g̃"},
      {"sigma_k+1", "σₖ₊₁"},   {"sigma_k", "σₖ"},     {"sigma_1", "σ₁"},             {"gamma_s", "γ_s"},
      {"Delta_W+", "Δ_W⁺"},    {"Delta2", "Δ₂"},      {"Delta3", "Δ₃"},              {"Delta1", "Δ₁"},
      {"Delta_", "Δ_"},        {"alpha0", "α₀"},      {"epsilon", "ε"},              {"delta", "δ"},
      {"sqrt(", "√("},         {" -> ", " → "},       {">=", "≥"},                   {"<=", "≤"},
      {"!=", "≠"},             {"W+", "W⁺"}};
  QString t = QString::fromStdString(text);
  for (const auto& [ascii, shown] : kSymbols) t.replace(QString::fromLatin1(ascii), QString::fromUtf8(shown));
  // 1.8e+04 → 1.8×10⁴ (the core's %.4g numbers).
  static const QRegularExpression exponent(QStringLiteral("(\\d(?:\\.\\d+)?)e([+-])0*(\\d+)"));
  static const QString superscripts = QString::fromUtf8("⁰¹²³⁴⁵⁶⁷⁸⁹");
  QString out;
  qsizetype last = 0;
  for (auto it = exponent.globalMatch(t); it.hasNext();) {
    const auto m = it.next();
    QString power = m.captured(2) == QLatin1String("-") ? QString::fromUtf8("⁻") : QString();
    for (QChar c : m.captured(3)) power += superscripts[c.digitValue()];
    out += t.mid(last, m.capturedStart() - last) + m.captured(1) + QString::fromUtf8("×10") + power;
    last = m.capturedEnd();
  }
  return out + t.mid(last);
}

bool isWhitenedStatement(const PrivacyStatement& st) {
  return st.summary.find("by the whitened release") != std::string::npos;
}

QString privacyHeadline(const PrivacyStatement& st, const PrivacyDecision& d, EdgeSet edges, bool whitened,
                        const MomentClip& clip) {
  if (clip.enabled && !whitened && st.claim != PrivacyClaim::NotPrivate) {
    return privacyHeadline(st, d, edges) +
           QObject::tr(" · documents clipped to %1 (docs/PRIVACY.md §12)").arg(QString::fromStdString(momentClipText(clip)));
  }
  switch (st.claim) {
    case PrivacyClaim::Proven:
      if (whitened) {
        return QObject::tr("✓ Private — whitened release (%1): one clipped M̂₂ release shared by e2 and e5, then the "
                           "clipped whitened tensor on e6; proven (docs/PRIVACY.md §11)")
            .arg(edgeList(edges));
      }
      return QObject::tr("✓ Private — every path from D to OUT crosses a noisy edge (%1), each release on a "
                         "proven bound")
          .arg(edgeList(edges));
    case PrivacyClaim::PrintedBounds:
      return QObject::tr("⚠ Cut, printed bounds — reproduces the papers; not a guarantee (%1)").arg(edgeList(edges));
    case PrivacyClaim::Heuristic: {
      QStringList nodes;
      for (int e = 0; e < kEdgeCount; ++e) {
        const Node from = edge(e).from;
        if (contains(edges, e) && needsGammaS(from) && !nodes.contains(displayName(from))) nodes << displayName(from);
      }
      return QObject::tr("⚠ Cut, heuristic bounds (%1) — not a guarantee: the γ_s sensitivity and Theorem 6 are "
                         "not proven (%2)")
          .arg(nodes.isEmpty() ? QStringLiteral("TD/U") : nodes.join(QStringLiteral(", ")), edgeList(edges));
    }
    case PrivacyClaim::NotCovered: {
      QStringList nodes;
      for (Node n : d.mixedReleases) nodes << displayName(n);
      return QObject::tr("⚠ Cut, not covered by a proven bound: %1 (released from data that reached it through "
                         "a clean and a noisy path)")
          .arg(nodes.join(QStringLiteral(", ")));
    }
    case PrivacyClaim::NotPrivate: break;
  }
  if (d.isPrivate) {  // a cut whose noise is not the calibrated one (a noise multiplier)
    return QObject::tr("✗ Not private — %1").arg(readablePrivacyText(st.summary));
  }
  if (!d.leakPath.empty()) {
    QStringList names;
    for (Node n : d.leakPath) names << displayName(n);
    return QObject::tr("✗ Not private — leaking path: %1").arg(names.join(QStringLiteral(" → ")));
  }
  return QObject::tr("✗ Not private — %1").arg(readablePrivacyText(d.explanation));
}

QStringList privacyCautions(const PrivacyStatement& st) {
  QStringList out;
  for (const std::string& c : st.cautions) out << QStringLiteral("⚠ ") + readablePrivacyText(c);
  return out;
}

QString privacyShortLabel(const PrivacyStatement& st, EdgeSet edges) {
  switch (st.claim) {
    case PrivacyClaim::Proven: return QObject::tr("✔ private");
    case PrivacyClaim::PrintedBounds: return QObject::tr("⚠ cut, printed bounds: not a guarantee");
    case PrivacyClaim::Heuristic: return QObject::tr("⚠ cut, heuristic bounds: not a guarantee");
    case PrivacyClaim::NotCovered: return QObject::tr("⚠ cut, not covered by a proven bound");
    case PrivacyClaim::NotPrivate: break;
  }
  return edges == 0 ? QObject::tr("no noise: NOT private") : QObject::tr("✘ NOT private");
}

QColor privacyClaimColor(PrivacyClaim claim) {
  switch (claim) {
    case PrivacyClaim::Proven: return privateColor().darker(125);
    case PrivacyClaim::NotPrivate: return leakColor().darker(110);
    default: return cautionColor();
  }
}

QColor privacyClaimTextColor(PrivacyClaim claim) {
  return claim == PrivacyClaim::Proven || claim == PrivacyClaim::NotPrivate ? QColor(Qt::white) : QColor(Qt::black);
}

}  // namespace dplda
