#include "ui/panels/bound_math.h"

#include <QObject>
#include <cmath>
#include <limits>

#include "core/moments/clipped_moments.h"
#include "core/moments/moments.h"

namespace dplda {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString n(double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("—"); }
QString sub(const QString& base, const QString& s) { return base + "<sub>" + s + "</sub>"; }
QString sup(const QString& base, const QString& s) { return base + "<sup>" + s + "</sup>"; }

// The symbols, as rich text.
const QString D2 = sub("Δ", "2"), D3 = sub("Δ", "3"), DT = sub("Δ", "T"), DW = sub("Δ", "W"),
              DWp = sub("Δ", "W⁺"), SK = sub("σ̃", "k"), GS = sub("γ̃", "s"), A0 = sub("α", "0"), M3 = sub("m", "3"),
              G = QStringLiteral("g̃"), L = sub("L", "max"), C1 = sub("C", "1"), C2 = sub("C", "2");

QString m3Text() {
  return QObject::tr("%1 = 1 + 6%2N/((%2 + 2)(N − 1)) + 6%3N²/((%2 + 1)(%2 + 2)(N − 1)(N − 2)), the public bound "
                     "on ‖M̂<sub>3</sub>‖<sub>1</sub>")
      .arg(M3, A0, sup(A0, "2"));
}

}  // namespace

BoundMath boundMath(Node node, const SensitivityInputs& in, BoundSet bounds, const WhitenedRelease& whitened) {
  BoundMath m;
  const bool printed = bounds == BoundSet::Printed;
  const double N = in.docCount, k = in.topicCount, a0 = in.alpha0;
  const double a = a0 / (a0 + 1.0);
  // Clipped documents (docs/PRIVACY.md §12): Lemma C4's Δ2, Δ3, m3 and σ1 bound in every formula.
  const double d2 = delta2Of(in);
  const double s = in.sigmaKTilde, gap = in.gapTilde, gamma = in.gammaSTilde;
  const double d3 = delta3Of(in, bounds), m3 = m3Of(in);
  const double sigma1 = sigma1M2Bound(in);
  const QString sigma1Text = in.clip.enabled ? QObject::tr("min(1 + a, C2′ + aC1′²)") : QStringLiteral("1 + a");
  const QString aDef = QObject::tr("a = %1/(%1 + 1) = %2").arg(A0, n(a));
  const QString rho = QObject::tr("ρ = √2 %1/(%2 − %1)").arg(D2, G);
  const double rhoValue = std::sqrt(2.0) * d2 / (gap - d2);
  const bool haveSigma = std::isfinite(s) && s > 0.0, haveGap = std::isfinite(gap) && gap > 0.0,
             haveGamma = std::isfinite(gamma) && gamma > 0.0;
  const QString needs = printed ? QObject::tr("the private lower bound %1 of a run (Procedure 1)").arg(SK)
                                : QObject::tr("the private lower bounds %1 and %2 of a run (Procedure 1)").arg(SK, G);
  const bool localReady = haveSigma && (printed || haveGap);
  m.value = sensitivityOf(node, in, bounds).value;

  if (whitened.enabled && (node == Node::M2 || node == Node::T)) {
    if (node == Node::M2) {
      const SecondMomentClip clip = whitened.clipToRowBound ? SecondMomentClip{} : whitened.m2Clip;
      m.formula = QObject::tr("%1 = (2%2 + 4a%3)/N").arg(D2, C2, sup(C1, "2"));
      m.where = aDef + QObject::tr("; %1 = %2 on each document's M̂<sub>1</sub> term, %3 = %4 on its M̂<sub>2</sub> "
                                   "term%5")
                           .arg(C1, n(clip.m1), C2, n(clip.m2),
                                whitened.clipToRowBound ? QObject::tr(" (nothing clipped)") : QString());
      m.plugged = QString("= (2·%1 + 4·%2·%3²)/%4").arg(n(clip.m2), n(a), n(clip.m1), n(N));
      m.value = clippedSecondMomentSensitivity(in.docCount, a0, clip);
      m.reference = QObject::tr("docs/PRIVACY.md §11, Lemma C2: one release of the clipped M̂₂ for e2 and e5");
    } else {
      const MomentConstants mc = MomentConstants::fromAlpha0(a0);
      const double factor = 2.0 + 12.0 * std::abs(mc.b) + 6.0 * mc.c;
      m.formula = QObject::tr("%1 = (2 + 12|b| + 6c) %2/N").arg(sub("Δ", "T̃"), sup("C", "3"));
      m.reference = QObject::tr("docs/PRIVACY.md §11, Lemma C3: the clipped whitened tensor, given the released W̃");
      if (whitened.clipToRowBound) {
        m.where = QObject::tr("b, c the moment constants of %1 (2 + 12|b| + 6c = %2); C = %3, the largest row norm "
                              "of the released W̃: known once M̂<sub>2</sub> is released")
                      .arg(A0, n(factor), sub("ρ", "W"));
        m.missing = QObject::tr("%1 of the run").arg(sub("ρ", "W"));
        m.value = kNaN;
      } else {
        const double c = whitenedClipBound(whitened, in.topicCount, a0);
        m.where = QObject::tr("b, c the moment constants of %1; C = %2 on each whitened document%3")
                      .arg(A0, n(c), whitened.whitenedClip > 0 ? QString() : QObject::tr(" (the default 2√(k + %1))").arg(A0));
        m.plugged = QString("= %1·%2³/%3").arg(n(factor), n(c), n(N));
        m.value = clippedWhitenedTensorSensitivity(in.docCount, a0, c);
      }
    }
    return m;
  }

  if (in.clip.enabled && (node == Node::M2 || node == Node::M3)) {
    const MomentConstants mc = MomentConstants::fromAlpha0(a0);
    const double c1 = std::min(in.clip.m1, 1.0), c2 = std::min(in.clip.m2, 1.0), c3 = std::min(in.clip.m3, 1.0);
    const QString C1p = C1 + "′", C2p = C2 + "′", C3p = sub("C", "3") + "′";
    const QString bounds = QObject::tr("C′ = min(C, 1) of the public bounds %1 = %2, %3 = %4, %5 = %6 on each "
                                       "document's M̂<sub>1</sub>, M̂<sub>2</sub>, M̂<sub>3</sub> terms")
                               .arg(C1, n(in.clip.m1), C2, n(in.clip.m2), sub("C", "3"), n(in.clip.m3));
    m.reference = QObject::tr("docs/PRIVACY.md §12, Lemma C4: the papers' configuration on clipped documents");
    if (node == Node::M2) {
      m.formula = QObject::tr("%1 = (2%2 + 4a%3)/N").arg(D2, C2p, sup(C1p, "2"));
      m.where = aDef + "; " + bounds;
      m.plugged = QString("= (2·%1 + 4·%2·%3²)/%4").arg(n(c2), n(a), n(c1), n(N));
      m.value = d2;
    } else {
      m.formula = QObject::tr("%1 = (2%2 + 12|b|%3%4 + 6c%5)/N").arg(D3, C3p, C1p, C2p, sup(C1p, "3"));
      m.where = QObject::tr("b = %1, c = %2 the moment constants of %3; ").arg(n(mc.b), n(mc.c), A0) + bounds;
      m.plugged = QString("= (2·%1 + 12·%2·%3·%4 + 6·%5·%3³)/%6")
                      .arg(n(c3), n(std::abs(mc.b)), n(c1), n(c2), n(mc.c), n(N));
      m.value = d3;
    }
    return m;
  }

  switch (node) {
    case Node::D:
      m.formula = QObject::tr("%1 = √2 %2").arg(sub("Δ", "D"), L);
      m.plugged = QString("= √2 · %1").arg(n(in.maxLength));
      m.reference = QObject::tr("SPEC §9: counts, documents clipped to the public %1").arg(L);
      break;
    case Node::M2:
      m.formula = QObject::tr("%1 = (2 + 4a)/N").arg(D2);
      m.where = aDef;
      m.plugged = QString("= (2 + 4·%1)/%2").arg(n(a), n(N));
      m.reference = QObject::tr("seed 000 G.1, eq. 82");
      break;
    case Node::M3: {
      const int b = printed ? 4 : 12;
      m.formula = QObject::tr("%1 = 2/N + %2%3/((%3 + 2)N) + 12%4(N − 1)/((%3 + 1)(%3 + 2)N(N − 2))")
                      .arg(D3).arg(b).arg(A0, sup(A0, "2"));
      m.plugged = QString("= 2/%1 + %2·%3/(%4·%1) + 12·%5(%6)/(%7·%8·%1·%9)")
                      .arg(n(N)).arg(b).arg(n(a0), n(a0 + 2), n(a0 * a0), n(N - 1), n(a0 + 1), n(a0 + 2), n(N - 2));
      m.reference = printed ? QObject::tr("seed 000 G.2, eq. 96 as printed")
                            : QObject::tr("seed 000 G.2 with all three B placements counted; SPEC §9");
      break;
    }
    case Node::W:
      if (printed) {
        m.formula = QObject::tr("%1 = √(2k) %2/(%3 √(%3 − %2))").arg(DW, D2, SK);
        m.plugged = QString("= √(2·%1)·%2/(%3·√(%3 − %2))").arg(n(k), n(d2), n(s));
        m.reference = QObject::tr("seed 000 Lemma 32, eq. 107 (bounds an aligned W)");
      } else {
        m.formula = QObject::tr("%1 = ρ/√%2 + %3/(2(%2 − %3)<sup>3/2</sup>)").arg(DW, SK, D2);
        m.where = rho + QObject::tr(": Davis–Kahan + Weyl + Mirsky, one Frobenius budget for the k columns");
        m.plugged = QString("= %1/√%2 + %3/(2(%2 − %3)<sup>3/2</sup>)").arg(n(rhoValue), n(s), n(d2));
        m.reference = QObject::tr("docs/PRIVACY.md §3.6; released up to the signs of its columns");
      }
      break;
    case Node::Wplus:
      if (printed) {
        m.formula = QObject::tr("%1 = √(1 + a) %2/%3").arg(DWp, D2, SK);
        m.where = aDef + QObject::tr("; σ<sub>1</sub>(M̂<sub>2</sub>) ≤ 1 + a (public)");
        m.plugged = QString("= √%1·%2/%3").arg(n(1 + a), n(d2), n(s));
        m.reference = QObject::tr("seed 000 G.5 item (iv) (bounds an aligned W⁺)");
      } else {
        m.formula = QObject::tr("%1 = √(%4) ρ + %2/(2√(%3 − %2))").arg(DWp, D2, SK, sigma1Text);
        m.where = aDef + "; " + rho;
        m.plugged = QString("= √%1·%2 + %3/(2√(%4 − %3))").arg(n(sigma1), n(rhoValue), n(d2), n(s));
        m.reference = QObject::tr("docs/PRIVACY.md §3.6; released up to the signs of its columns");
      }
      break;
    case Node::T:
      if (printed) {
        m.formula = QObject::tr("%1 = %2(2k)<sup>3/2</sup>%3/(%4(%5 − %6)<sup>3/2</sup>) + %7k<sup>3/2</sup>/(%5 − %6)<sup>3/2</sup>")
                        .arg(DT, M3, sup(D2, "3"), sup(SK, "3"), SK, D2, D3);
        m.plugged = QString("= %1·(2·%2)<sup>3/2</sup>·%3³/(%4³(%4 − %3)<sup>3/2</sup>) + %5·%2<sup>3/2</sup>/(%4 − %3)<sup>3/2</sup>")
                        .arg(n(m3), n(k), n(d2), n(s), n(d3));
        m.reference = QObject::tr("seed 000 eq. 113, with the printed Δ₃");
      } else {
        m.formula = QObject::tr("%1 = %2/(%3 − %4)<sup>3/2</sup> + 3%5 %6/(%3 − %4)").arg(DT, D3, SK, D2, M3, DW);
        m.plugged = QString("= %1/(%2 − %3)<sup>3/2</sup> + 3·%4·%5/(%2 − %3)")
                        .arg(n(d3), n(s), n(d2), n(m3), n(whiteningSensitivity(in)));
        m.reference = QObject::tr("docs/PRIVACY.md §3, Theorem T; %1 the sign-aligned whitening bound").arg(DW);
      }
      m.where = in.clip.enabled ? QObject::tr("%1 = C3′ + 3|b|C1′C2′ + cC1′³ = %2, the public bound on "
                                              "‖M̂<sub>3</sub>ᶜ‖<sub>F</sub> of the clipped documents (Lemma C4)")
                                      .arg(M3, n(m3))
                                : m3Text() + QString(" = %1").arg(n(m3));
      break;
    case Node::TD: {
      const double deltaT = whitenedTensorSensitivity(in, bounds);
      m.formula = printed ? QObject::tr("%1 = 2√k %2/%3 (per component)").arg(sub("Δ", "TD"), DT, GS)
                          : QObject::tr("%1 = √(2k) · 2√k %2/%3").arg(sub("Δ", "TD"), DT, GS);
      m.where = printed ? QString() : QObject::tr("√(2k): μ̄ and ᾱ released jointly, ℓ<sub>2</sub> over all 2k components");
      m.plugged = (printed ? QString("= 2√%1·%2/%3") : QString("= √(2·%1)·2√%1·%2/%3")).arg(n(k), n(deltaT), n(gamma));
      m.reference = printed ? QObject::tr("seed 000 G.4, Theorem 6 (as printed)")
                            : QObject::tr("seed 000 G.4, Theorem 6; SPEC §9 — heuristic: Theorem 6 is not proven here");
      break;
    }
    case Node::U: {
      const double deltaT = whitenedTensorSensitivity(in, bounds);
      const double wplus = printed ? std::sqrt(1 + a) * d2 / s : unwhiteningSensitivity(in);
      const double kappa = (a0 + 2.0) / (2.0 * std::sqrt(a0 * (a0 + 1.0)));
      const QString s1t = sub("s", "1T"), s1m = sub("s", "1M");
      m.formula = QObject::tr("%1 = %2κ[%3√%4 · 2√k %5/%6 + %3 %7 + √(%4 + %8) · 2√k %5/%6]")
                      .arg(sub("Δ", "U"), printed ? QString() : QStringLiteral("√(2k) · "), s1t, s1m, DT, GS, DWp, D2);
      m.where = QObject::tr("κ = (%1 + 2)/(2√(%1(%1 + 1))) = %2, %3 = %8 = %4, %5 = %6/%7<sup>3/2</sup>")
                    .arg(A0, n(kappa), s1m, n(sigma1), s1t, M3, SK, sigma1Text);
      m.plugged = QObject::tr("with %1 = %2, %3 = %4, %5 = %6, %7 = %8").arg(DT, n(deltaT), DWp, n(wplus), GS, n(gamma), s1t,
                                                                              n(m3 / std::pow(s, 1.5)));
      m.reference = printed ? QObject::tr("seed 000 eq. 117, per component")
                            : QObject::tr("seed 000 eq. 117, the W⁺ term sign-aligned (docs/PRIVACY.md §3) — heuristic: "
                                          "rests on Theorem 6");
      break;
    }
    case Node::OUT:
      m.formula = QObject::tr("OUT has no sensitivity bound: noise on e9 releases U");
      m.value = kNaN;
      return m;
  }
  const bool needsGamma = node == Node::TD || node == Node::U;
  const bool local = node == Node::W || node == Node::Wplus || node == Node::T || needsGamma;
  if (local && (!localReady || (needsGamma && !haveGamma))) {
    m.plugged.clear();
    m.missing = needsGamma ? needs + QObject::tr(", and %1").arg(GS) : needs;
  }
  return m;
}

QString boundMathHtml(const BoundMath& m, double ledgerValue) {
  const double value = std::isfinite(ledgerValue) ? ledgerValue : m.value;
  QString h = QString("<p style='font-family:serif; font-size:large'><i>%1</i></p>").arg(m.formula);
  if (!m.where.isEmpty()) h += QString("<p style='font-family:serif'>%1</p>").arg(m.where);
  if (!m.plugged.isEmpty()) {
    h += QString("<p style='font-family:serif'>%1 = <b>%2</b></p>").arg(m.plugged, n(value));
  } else if (!m.missing.isEmpty()) {
    h += QObject::tr("<p>Local: needs %1.%2</p>")
             .arg(m.missing, std::isfinite(value) ? QObject::tr(" Value <b>%1</b>").arg(n(value)) : QString());
  } else if (std::isfinite(value)) {
    h += QObject::tr("<p>Value <b>%1</b></p>").arg(n(value));
  }
  if (!m.reference.isEmpty()) h += QString("<p><small>%1</small></p>").arg(m.reference);
  return h;
}

QString boundComparisonHtml(Node node, const SensitivityInputs& in) {
  const std::vector<BoundComparison> forms = boundComparisons(node, in);
  if (forms.size() != 3) return {};
  // Core's order: printed, issue 9's per-column sound form, the current sound form.
  const QString labels[3] = {QObject::tr("printed (the papers' formula)"),
                             QObject::tr("sound, per column (issue 9: √k × the column bound)"),
                             QObject::tr("sound, shared Frobenius budget (current, §3.6)")};
  QString h = QObject::tr("<p><b>Three forms of this bound</b> <small>for this session</small></p>"
                          "<table cellspacing='0' cellpadding='3' border='1' style='border-collapse:collapse'>");
  bool missing = false;
  for (int i = 0; i < 3; ++i) {
    missing = missing || !std::isfinite(forms[i].value);
    h += QString("<tr><td>%1</td><td align='right'>%2</td></tr>").arg(labels[i], n(forms[i].value));
  }
  h += "</table>";
  if (missing) h += QObject::tr("<p><small>— : its preconditions fail, or it needs the private lower bounds of a run.</small></p>");
  return h;
}

}  // namespace dplda
