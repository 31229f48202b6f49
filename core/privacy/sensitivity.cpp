#include "core/privacy/sensitivity.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/moments/clipped_moments.h"
#include "core/privacy/mechanisms.h"

namespace dplda {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A value a failed step never computed (NaN) reads "not computed" in every detail (issue 28).
std::string num(double v) {
  if (std::isnan(v)) return "not computed";
  if (std::isinf(v)) return v > 0 ? "unbounded" : "-unbounded";
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool validCorpusShape(int N, double alpha0) { return N >= 3 && std::isfinite(alpha0) && alpha0 > 0.0; }

double aConstant(double alpha0) { return alpha0 / (alpha0 + 1.0); }

const char* kPrintedNote =
    "printed set: reproduces the papers' formula (for reproducing their figures); this is not the sound set";

Precondition pre(std::string name, bool holds, std::string detail) {
  return {std::move(name), holds, std::move(detail)};
}

// Preconditions every bound shares: the public shape of the problem.
void addShapePreconditions(SensitivityBound& b, const SensitivityInputs& in, bool needsK) {
  b.preconditions.push_back(pre("N >= 3", in.docCount >= 3, "N = " + std::to_string(in.docCount)));
  b.preconditions.push_back(pre("alpha0 finite and > 0", std::isfinite(in.alpha0) && in.alpha0 > 0.0,
                                "alpha0 = " + num(in.alpha0)));
  if (needsK)
    b.preconditions.push_back(pre("k >= 1", in.topicCount >= 1, "k = " + std::to_string(in.topicCount)));
}

void addSigmaAboveDelta2(SensitivityBound& b, const SensitivityInputs& in, double delta2) {
  const bool ok = std::isfinite(in.sigmaKTilde) && in.sigmaKTilde > delta2;
  b.preconditions.push_back(
      pre("sigma_k_tilde > Delta2", ok, num(in.sigmaKTilde) + (ok ? " > " : " <= ") + num(delta2)));
}

// The sound whitening bounds need the eigenvectors of M̂2 to be separated (docs/PRIVACY.md §3).
void addGapAboveTwoDelta2(SensitivityBound& b, const SensitivityInputs& in, double delta2) {
  const bool ok = std::isfinite(in.gapTilde) && in.gapTilde > 2.0 * delta2;
  b.preconditions.push_back(
      pre("gap_tilde > 2 Delta2", ok, num(in.gapTilde) + (ok ? " > " : " <= ") + num(2.0 * delta2)));
}

// Theorem 6 (Wang & Lu 2017) holds only while the tensor perturbation is small next to the
// eigengap; the per-component bound 2 sqrt(k) Δ_T / γ̃_s must not exceed 1.
void addTheorem6Regime(SensitivityBound& b, const SensitivityInputs& in, double deltaT) {
  const double per = 2.0 * std::sqrt(static_cast<double>(in.topicCount)) * deltaT;
  const bool ok = std::isfinite(per) && std::isfinite(in.gammaSTilde) && per <= in.gammaSTilde;
  b.preconditions.push_back(pre("2 sqrt(k) Delta_T <= gamma_s~ (Theorem 6 regime)", ok,
                                num(per) + (ok ? " <= " : " > ") + num(in.gammaSTilde)));
}

void addGammaPositive(SensitivityBound& b, const SensitivityInputs& in) {
  const bool ok = std::isfinite(in.gammaSTilde) && in.gammaSTilde > 0.0;
  b.preconditions.push_back(pre("gamma_s_tilde > 0", ok, num(in.gammaSTilde) + (ok ? " > 0" : " <= 0")));
}

// Sets usable from the preconditions and value to `v` only when usable (NaN otherwise), so a
// failing bound never carries a number that could be used by mistake.
void finish(SensitivityBound& b, double v) {
  b.usable = std::all_of(b.preconditions.begin(), b.preconditions.end(),
                         [](const Precondition& p) { return p.holds; });
  if (b.usable && !(std::isfinite(v) && v > 0.0)) {
    b.usable = false;
    b.preconditions.push_back(pre("bound finite and > 0", false, "value = " + num(v)));
  }
  b.value = b.usable ? v : kNaN;
}

void appendNote(SensitivityBound& b, const std::string& text) {
  if (text.empty()) return;
  b.note = b.note.empty() ? text : b.note + "; " + text;
}

// The per-component bound 2 sqrt(k) Δ_T / γ̃_s of Theorem 6.
double perComponentTD(const SensitivityInputs& in, double deltaT) {
  return 2.0 * std::sqrt(static_cast<double>(in.topicCount)) * deltaT / in.gammaSTilde;
}

// Eq. 117 with ‖W⁺ − W'⁺‖ bounded by `deltaWplus` (item (iv) as printed, or the sound
// sign-aligned bound).
double perComponentU(const SensitivityInputs& in, double deltaT, double delta2, double deltaWplus) {
  const double a0 = in.alpha0;
  const double kappa = (a0 + 2.0) / (2.0 * std::sqrt(a0 * (a0 + 1.0)));
  const double s1m = sigma1M2Bound(in);
  const double s1t = m3Of(in) / std::pow(in.sigmaKTilde, 1.5);
  const double td = perComponentTD(in, deltaT);
  return kappa * (s1t * std::sqrt(s1m) * td + s1t * deltaWplus + std::sqrt(s1m + delta2) * td);
}

double printedUnwhiteningSensitivity(const SensitivityInputs& in, double delta2) {
  return std::sqrt(sigma1M2Bound(in)) * delta2 / in.sigmaKTilde;
}

}  // namespace

const char* boundSetName(BoundSet b) { return b == BoundSet::Sound ? "sound" : "printed"; }

Result<BoundSet> parseBoundSet(const std::string& text) {
  const std::string t = lower(text);
  if (t == "sound") return BoundSet::Sound;
  if (t == "printed") return BoundSet::Printed;
  return invalidArgument("bound set must be \"sound\" or \"printed\", got \"" + text + "\"");
}

double secondMomentSensitivity(int N, double alpha0) {
  if (!validCorpusShape(N, alpha0)) return kNaN;
  return (2.0 + 4.0 * aConstant(alpha0)) / N;
}

double thirdMomentSensitivity(int N, double alpha0, BoundSet bounds) {
  if (!validCorpusShape(N, alpha0)) return kNaN;
  const double n = N;
  // The three placements of the M1 factor (B, B^(132), B^(312)) each contribute 4|b|/N; the
  // appendix counts one of them.
  const double bTerms = (bounds == BoundSet::Sound ? 12.0 : 4.0) * alpha0 / ((alpha0 + 2.0) * n);
  const double pTerm = 12.0 * alpha0 * alpha0 * (n - 1.0) / ((alpha0 + 1.0) * (alpha0 + 2.0) * n * (n - 2.0));
  return 2.0 / n + bTerms + pTerm;
}

double m3Constant(int N, double alpha0) {
  if (!validCorpusShape(N, alpha0)) return kNaN;
  const double n = N;
  return 1.0 + 6.0 * alpha0 * n / ((alpha0 + 2.0) * (n - 1.0)) +
         6.0 * alpha0 * alpha0 * n * n / ((alpha0 + 1.0) * (alpha0 + 2.0) * (n - 1.0) * (n - 2.0));
}

double delta2Of(const SensitivityInputs& in) {
  if (!in.clip.enabled || !validCorpusShape(in.docCount, in.alpha0)) return secondMomentSensitivity(in.docCount, in.alpha0);
  return clippedMomentBounds(in.docCount, in.alpha0, in.clip).delta2;
}

double delta3Of(const SensitivityInputs& in, BoundSet bounds) {
  if (!in.clip.enabled || !validCorpusShape(in.docCount, in.alpha0)) {
    return thirdMomentSensitivity(in.docCount, in.alpha0, bounds);
  }
  return clippedMomentBounds(in.docCount, in.alpha0, in.clip).delta3;
}

double sigma1M2Bound(const SensitivityInputs& in) {
  const double plain = 1.0 + aConstant(in.alpha0);
  return in.clip.enabled ? std::min(plain, clippedMomentBounds(in.docCount, in.alpha0, in.clip).m2Norm) : plain;
}

double m3Of(const SensitivityInputs& in) {
  if (!in.clip.enabled || !validCorpusShape(in.docCount, in.alpha0)) return m3Constant(in.docCount, in.alpha0);
  return clippedMomentBounds(in.docCount, in.alpha0, in.clip).m3Norm;
}

namespace {

// The shared preconditions of the sound whitening bounds: a valid shape, σ̃_k > Δ2, g̃ > 2Δ2.
bool soundWhiteningDomain(const SensitivityInputs& in) {
  if (!validCorpusShape(in.docCount, in.alpha0) || in.topicCount < 1) return false;
  const double d2 = delta2Of(in);
  return std::isfinite(in.sigmaKTilde) && in.sigmaKTilde > d2 && std::isfinite(in.gapTilde) &&
         in.gapTilde > 2.0 * d2;
}

// ρ = √2 Δ2 / (g̃ − Δ2): Davis–Kahan with Weyl, ‖u_i − s_i u'_i‖ <= ρ for every i <= k.
double eigenvectorDrift(const SensitivityInputs& in) {
  const double d2 = delta2Of(in);
  return std::sqrt(2.0) * d2 / (in.gapTilde - d2);
}

}  // namespace

// Lemmas A′, W′ and W⁺′ (docs/PRIVACY.md §3.6): the k columns share one budget ‖E‖_F <= Δ2
// (Σ_i ‖E u_i‖² <= ‖E‖_F², and Mirsky's Σ_i (σ_i − σ'_i)² <= ‖E‖_F²), so no √k factor.
double whiteningSensitivity(const SensitivityInputs& in) {
  if (!soundWhiteningDomain(in)) return kNaN;
  const double d2 = delta2Of(in);
  const double s = in.sigmaKTilde;
  return eigenvectorDrift(in) / std::sqrt(s) + d2 / (2.0 * std::pow(s - d2, 1.5));
}

double unwhiteningSensitivity(const SensitivityInputs& in) {
  if (!soundWhiteningDomain(in)) return kNaN;
  const double d2 = delta2Of(in);
  return std::sqrt(sigma1M2Bound(in)) * eigenvectorDrift(in) + d2 / (2.0 * std::sqrt(in.sigmaKTilde - d2));
}

std::vector<BoundComparison> boundComparisons(Node node, const SensitivityInputs& in) {
  if (node != Node::W && node != Node::Wplus && node != Node::T && node != Node::TD && node != Node::U) return {};
  const double sqrtK = std::sqrt(static_cast<double>(std::max(in.topicCount, 0)));
  // Issue 9's sound forms summed the k columns' bounds: √k times Lemma W′ / W⁺′, and Δ_T with that Δ_W.
  auto earlierT = [&] {
    const double d2 = delta2Of(in), s = in.sigmaKTilde;
    return delta3Of(in, BoundSet::Sound) / std::pow(s - d2, 1.5) +
           3.0 * m3Of(in) * sqrtK * whiteningSensitivity(in) / (s - d2);
  };
  const double printed = sensitivityOf(node, in, BoundSet::Printed).value;
  const double current = sensitivityOf(node, in, BoundSet::Sound).value;
  double earlier = kNaN;
  if (node == Node::W) earlier = sqrtK * whiteningSensitivity(in);
  if (node == Node::Wplus) earlier = sqrtK * unwhiteningSensitivity(in);
  if (node == Node::T) earlier = earlierT();
  // TD and U are linear in Δ_T (and U's W⁺ term in Δ_W⁺): scale the current value term by term.
  if (node == Node::TD) earlier = current * earlierT() / whitenedTensorSensitivity(in, BoundSet::Sound);
  if (node == Node::U) {
    const double d2 = delta2Of(in);
    earlier = std::sqrt(2.0 * in.topicCount) * perComponentU(in, earlierT(), d2, sqrtK * unwhiteningSensitivity(in));
  }
  return {{"printed (the papers' formula)", printed},
          {"sound, per-column sum (issue 9: sqrt(k) x the column bound)", earlier},
          {"sound, shared Frobenius budget (current: docs/PRIVACY.md §3.6)", current}};
}

double whitenedTensorSensitivity(const SensitivityInputs& in, BoundSet bounds) {
  if (!validCorpusShape(in.docCount, in.alpha0) || in.topicCount < 1) return kNaN;
  const double d2 = delta2Of(in);
  const double s = in.sigmaKTilde;
  if (!std::isfinite(s) || !(s > d2)) return kNaN;
  const double k = in.topicCount;
  const double d3 = delta3Of(in, bounds);
  if (bounds == BoundSet::Sound) {
    // ‖A(W,W,W) − A'(X,X,X)‖_F <= ‖A − A'‖_F ‖X‖³ + ‖A‖_F ‖W − X‖ (‖W‖² + ‖W‖‖X‖ + ‖X‖²), X = W'S.
    if (!soundWhiteningDomain(in)) return kNaN;
    return d3 / std::pow(s - d2, 1.5) + 3.0 * m3Of(in) * whiteningSensitivity(in) / (s - d2);
  }
  const double gap = std::pow(s - d2, 1.5);
  return m3Of(in) * std::pow(2.0 * k, 1.5) * d2 * d2 * d2 / (s * s * s * gap) +
         d3 * std::pow(k, 1.5) / gap;
}

namespace {

// With clipping every moment bound inside a formula is Lemma C4's: say so, with the bounds.
SensitivityBound labelClipping(SensitivityBound b, const SensitivityInputs& in) {
  if (!in.clip.enabled || b.node == Node::D || b.node == Node::OUT) return b;
  const ClippedMomentBounds cb = clippedMomentBounds(in.docCount, in.alpha0, in.clip);
  b.formula = "clipped documents (" + momentClipText(in.clip) + "; docs/PRIVACY.md §12, Lemma C4): Delta2 = (2 C2' + "
              "4a C1'^2)/N = " + num(cb.delta2) + ", Delta3 = (2 C3' + 12|b| C1' C2' + 6c C1'^3)/N = " + num(cb.delta3) +
              ", m3 = C3' + 3|b| C1' C2' + c C1'^3 = " + num(cb.m3Norm) + ", C' = min(C, 1); in: " + b.formula;
  return b;
}

SensitivityBound unlabelledSensitivityOf(Node node, const SensitivityInputs& in, BoundSet bounds);

}  // namespace

SensitivityBound sensitivityOf(Node node, const SensitivityInputs& in, BoundSet bounds) {
  return labelClipping(unlabelledSensitivityOf(node, in, bounds), in);
}

namespace {

// TD and U rest on the decomposition of T̂: the preconditions of W (σ̃_k above Δ2, and with the
// sound bounds the eigengap above 2Δ2), γ̃_s > 0 and, with the sound bounds, Theorem 6's regime.
// Returns Δ_T.
double addDecompositionPreconditions(SensitivityBound& b, const SensitivityInputs& in, BoundSet bounds) {
  const bool printed = bounds == BoundSet::Printed;
  const double d2 = delta2Of(in);
  b.local = true;
  addShapePreconditions(b, in, true);
  addSigmaAboveDelta2(b, in, d2);
  if (!printed) addGapAboveTwoDelta2(b, in, d2);
  addGammaPositive(b, in);
  const double deltaT = whitenedTensorSensitivity(in, bounds);
  if (!printed) addTheorem6Regime(b, in, deltaT);
  return deltaT;
}

SensitivityBound unlabelledSensitivityOf(Node node, const SensitivityInputs& in, BoundSet bounds) {
  SensitivityBound b;
  b.node = node;
  const bool printed = bounds == BoundSet::Printed;
  const double d2 = delta2Of(in);
  const std::string joint = "sqrt(2k) x ";  // the ℓ2 norm over the k vectors and the k scalars

  switch (node) {
    case Node::D: {
      b.formula = "Delta_D = sqrt(2) L_max (counts; documents clipped to the public L_max; SPEC §9)";
      const bool ok = std::isfinite(in.maxLength) && in.maxLength >= 3.0;
      b.preconditions.push_back(pre("L_max finite and >= 3", ok, "L_max = " + num(in.maxLength)));
      finish(b, std::sqrt(2.0) * in.maxLength);
      b.note = "input perturbation: this sensitivity does not shrink with N";
      if (printed) appendNote(b, std::string(kPrintedNote) + " (identical to the sound bound)");
      return b;
    }
    case Node::M2: {
      b.formula = "Delta2 = (2 + 4a)/N, a = alpha0/(alpha0+1) (seed 000 G.1, eq. 82)";
      addShapePreconditions(b, in, false);
      finish(b, d2);
      if (printed) appendNote(b, std::string(kPrintedNote) + " (identical to the sound bound)");
      return b;
    }
    case Node::M3: {
      addShapePreconditions(b, in, false);
      if (printed) {
        b.formula = "Delta3 = 2/N + 4 alpha0/((alpha0+2) N) + 12 alpha0^2 (N-1)/((alpha0+1)(alpha0+2) N (N-2)) "
                    "(seed 000 G.2, eq. 96 as printed)";
        b.note = std::string(kPrintedNote) +
                 "; the printed middle term counts one of the three B placements and can be exceeded";
      } else {
        b.formula = "Delta3 = 2/N + 12 alpha0/((alpha0+2) N) + 12 alpha0^2 (N-1)/((alpha0+1)(alpha0+2) N (N-2)) "
                    "(seed 000 G.2 with all three B placements counted, SPEC §9)";
      }
      finish(b, delta3Of(in, bounds));
      return b;
    }
    case Node::T: {
      b.local = true;
      b.formula = printed ? "Delta_T = m3 (2k)^{3/2} Delta2^3 / (sigma_k~^3 (sigma_k~ - Delta2)^{3/2}) + "
                            "Delta3 k^{3/2} / (sigma_k~ - Delta2)^{3/2}, m3 = 1 + 6 alpha0 N/((alpha0+2)(N-1)) + "
                            "6 alpha0^2 N^2/((alpha0+1)(alpha0+2)(N-1)(N-2)) (seed 000 eq. 113, printed Delta3)"
                          : "Delta_T = Delta3/(sigma_k~ - Delta2)^{3/2} + 3 m3 Delta_W/(sigma_k~ - Delta2), Delta_W "
                            "the sign-aligned whitening bound, m3 the public bound on ||M3||_1; released up to the "
                            "signs of the whitened coordinates (docs/PRIVACY.md §3, Theorem T)";
      addShapePreconditions(b, in, true);
      addSigmaAboveDelta2(b, in, d2);
      if (!printed) addGapAboveTwoDelta2(b, in, d2);
      finish(b, whitenedTensorSensitivity(in, bounds));
      if (printed) appendNote(b, std::string(kPrintedNote) + " (uses the printed Delta3)");
      return b;
    }
    case Node::TD: {
      const double deltaT = addDecompositionPreconditions(b, in, bounds);
      const double per = perComponentTD(in, deltaT);
      b.heuristic = !printed;  // Theorem 6 and the γ_s sensitivity are not proven here
      if (printed) {
        b.formula = "Delta_TD = 2 sqrt(k) Delta_T / gamma_s~ per component (seed 000 G.4, Theorem 6)";
        b.note = std::string(kPrintedNote) +
                 "; per component (one mu_bar_i or alpha_bar_i), as the paper applies it";
        finish(b, per);
      } else {
        b.formula = joint + "2 sqrt(k) Delta_T / gamma_s~: mu_bar and alpha_bar released jointly, l2 over "
                    "all 2k components (seed 000 G.4, Theorem 6; SPEC §9)";
        finish(b, std::sqrt(2.0 * in.topicCount) * per);
      }
      appendNote(b, printed ? "the Theorem 6 perturbation bound also needs Delta_T small relative to gamma_s "
                              "(Wang & Lu 2017); not checked with the printed bounds"
                            : "heuristic: Theorem 6 is applied as the paper applies it (its regime is checked on "
                              "the private gamma_s~); the components are released up to order and signs");
      return b;
    }
    case Node::Wplus: {
      b.local = true;
      addShapePreconditions(b, in, true);
      addSigmaAboveDelta2(b, in, d2);  // the derivation bounds sigma_k(M2') below by sigma_k - Delta2
      if (printed) {
        b.formula = "Delta_W+ = sqrt(sigma_1) Delta2 / sigma_k~ with the public sigma_1(M2) <= 1 + a "
                    "(seed 000 G.5 item (iv))";
        finish(b, printedUnwhiteningSensitivity(in, d2));
        appendNote(b, std::string(kPrintedNote) + "; item (iv) bounds an aligned W+, not the matrix computed");
      } else {
        b.formula = "Delta_W+ = sqrt(1 + a) rho + Delta2 / (2 sqrt(sigma_k~ - Delta2)), rho = sqrt(2) "
                    "Delta2/(gap~ - Delta2); released up to the signs of its columns (docs/PRIVACY.md §3.6)";
        addGapAboveTwoDelta2(b, in, d2);
        finish(b, unwhiteningSensitivity(in));
      }
      return b;
    }
    case Node::U: {
      const double deltaT = addDecompositionPreconditions(b, in, bounds);
      b.heuristic = !printed;  // rests on Theorem 6
      const double per = perComponentU(
          in, deltaT, d2, printed ? printedUnwhiteningSensitivity(in, d2) : unwhiteningSensitivity(in));
      const std::string body =
          "kappa [s1T sqrt(s1M) 2 sqrt(k) Delta_T/gamma_s~ + s1T sqrt(s1M) Delta2/sigma_k~ + "
          "sqrt(s1M + Delta2) 2 sqrt(k) Delta_T/gamma_s~], kappa = (alpha0+2)/(2 sqrt(alpha0 (alpha0+1))), "
          "public s1M = 1 + a, s1T = m3/sigma_k~^{3/2} (seed 000 eq. 117" +
          std::string(printed ? ")" : "; the W+ term sign-aligned, docs/PRIVACY.md §3; heuristic: rests on Theorem 6)");
      if (printed) {
        b.formula = "Delta_U = " + body + ", per component";
        b.note = std::string(kPrintedNote) + "; per component (one mu_i or alpha_i), as the paper applies it";
        finish(b, per);
      } else {
        b.formula = "Delta_U = " + joint + body + ": l2 over all components released together (SPEC §9)";
        finish(b, std::sqrt(2.0 * in.topicCount) * per);
      }
      return b;
    }
    case Node::W: {
      b.local = true;
      addShapePreconditions(b, in, true);
      addSigmaAboveDelta2(b, in, d2);
      if (printed) {
        b.formula = "Delta_W = sqrt(2k) Delta2 / (sigma_k~ sqrt(sigma_k~ - Delta2)) (seed 000 Lemma 32, eq. 107)";
        const double s = in.sigmaKTilde;
        finish(b, std::sqrt(2.0 * in.topicCount) * d2 / (s * std::sqrt(s - d2)));
        appendNote(b, std::string(kPrintedNote) + "; Lemma 32 bounds an aligned W, not the matrix computed");
      } else {
        b.formula = "Delta_W = rho/sqrt(sigma_k~) + Delta2/(2 (sigma_k~ - Delta2)^{3/2}), rho = sqrt(2) "
                    "Delta2/(gap~ - Delta2) (Davis-Kahan + Weyl + Mirsky, one Frobenius budget for the k "
                    "columns); released up to the signs of its columns (docs/PRIVACY.md §3.6)";
        addGapAboveTwoDelta2(b, in, d2);
        finish(b, whiteningSensitivity(in));
      }
      return b;
    }
    case Node::OUT:
      b.formula = "none";
      b.preconditions.push_back(pre("node has a sensitivity bound", false, "OUT has none"));
      finish(b, kNaN);
      b.note = "OUT is the released output itself and has no sensitivity bound; noise on e9 releases U "
               "(its input), whose bound is sensitivityOf(Node::U)";
      return b;
  }
  b.formula = "none";
  b.preconditions.push_back(pre("known node", false, "node id " + std::to_string(static_cast<int>(node))));
  finish(b, kNaN);
  return b;
}

}  // namespace

SensitivityBound sigmaKSensitivity(const SensitivityInputs& in, BoundSet bounds) {
  SensitivityBound b;
  b.node = Node::M2;
  addShapePreconditions(b, in, false);
  if (bounds == BoundSet::Printed) {
    b.formula = "Delta_sigma_k = 2/N (seed 000 G.7, Lemma 9 as printed)";
    b.note = std::string(kPrintedNote) + "; it omits the a-terms of Delta2 and can be exceeded";
    finish(b, 2.0 / in.docCount);
  } else {
    b.formula = "Delta_sigma_k = Delta2 = (2 + 4a)/N (Weyl: |sigma_k(M2) - sigma_k(M2')| <= ||E||_2 <= "
                "||E||_1; SPEC §9 correcting Lemma 9)";
    finish(b, delta2Of(in));
  }
  return labelClipping(std::move(b), in);
}

SensitivityBound gammaSSensitivity(const SensitivityInputs& in, BoundSet bounds) {
  SensitivityBound b;
  b.node = Node::T;
  addShapePreconditions(b, in, true);
  if (bounds == BoundSet::Printed) {
    b.formula = "Delta_gamma_s = 2/N (seed 000 G.7, as printed)";
    b.note = std::string(kPrintedNote) + "; the proof does not establish this bound";
    finish(b, 2.0 / in.docCount);
  } else {
    b.local = true;
    b.heuristic = true;
    b.formula = "Delta_gamma_s = Delta_T(sigma_k~)/2 (each robust eigenvalue moves by at most Delta_T, a gap "
                "by 2 Delta_T, gamma_s is a quarter gap; SPEC §9)";
    b.note = "heuristic: tensor eigenvalue stability under a perturbation of norm Delta_T is known only near "
             "orthogonal decomposability";
    addSigmaAboveDelta2(b, in, delta2Of(in));
    addGapAboveTwoDelta2(b, in, delta2Of(in));
    finish(b, whitenedTensorSensitivity(in, bounds) / 2.0);
  }
  return labelClipping(std::move(b), in);
}

SensitivityBound eigengapSensitivity(const SensitivityInputs& in) {
  SensitivityBound b;
  b.node = Node::M2;
  addShapePreconditions(b, in, true);
  b.formula = "Delta_gap = 2 Delta2 (Weyl: each of sigma_1..sigma_k+1 moves by at most ||E||_2 <= Delta2, a "
              "difference of two by 2 Delta2, and a minimum of such differences no more; docs/PRIVACY.md §3)";
  finish(b, 2.0 * delta2Of(in));
  return labelClipping(std::move(b), in);
}

bool needsEigengap(Node node, BoundSet bounds) {
  return bounds == BoundSet::Sound &&
         (node == Node::W || node == Node::T || node == Node::Wplus || node == Node::TD || node == Node::U);
}

Result<PrivateLowerBound> privateLowerBound(double value, double sensitivity, double epsilon, double delta,
                                            RandomSource& rng) {
  if (!std::isfinite(value)) return invalidArgument("private lower bound: value must be finite, got " + num(value));
  DPLDA_RETURN_IF_ERROR(validateNoiseParameter("private lower bound: the sensitivity", sensitivity));
  if (!std::isfinite(epsilon) || epsilon <= 0.0)
    return invalidArgument("private lower bound: epsilon must be a finite number > 0, got " + num(epsilon));
  if (!std::isfinite(delta) || delta <= 0.0 || delta > 0.5)
    return invalidArgument("private lower bound: delta must be in (0, 0.5], got " + num(delta));
  PrivateLowerBound r;
  r.laplaceScale = sensitivity / epsilon;
  DPLDA_RETURN_IF_ERROR(validateNoiseParameter("private lower bound: the Laplace scale", r.laplaceScale));
  r.released = value + laplace(rng, r.laplaceScale);
  // P(Lap(b) > b ln(1/(2 delta))) = delta, so the shifted release undershoots `value` w.p. >= 1 - delta.
  r.lower = std::max(0.0, r.released - r.laplaceScale * std::log(1.0 / (2.0 * delta)));
  return r;
}

}  // namespace dplda
