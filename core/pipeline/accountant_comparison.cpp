#include "core/pipeline/accountant_comparison.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/common/number_text.h"
#include "core/privacy/mechanisms.h"
#include "core/privacy/pld_accountant.h"
#include "core/tensor/private_power_method.h"

namespace dplda {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

double ratioOf(double sensitivity, double scale) { return scale > 0.0 ? sensitivity / scale : kInfinity; }

}  // namespace

double AccountantComparison::best() const {
  double b = kInfinity;
  for (double v : {ledger, gaussianDp, pld})
    if (!std::isnan(v)) b = std::min(b, v);
  return b;
}

AccountedRelease vocabularyRelease(const VocabularySelectionRecord& v) {
  AccountedRelease r;
  r.noise = AccountedRelease::Noise::PartitionSelection;
  r.ratio = ratioOf(v.sensitivity, v.sigma);
  r.epsilon = v.epsilon;
  r.delta = v.delta;
  // The threshold's event has probability δ_v/(2(1 + e^{ε_v})) on each side (docs/PRIVACY.md §13.3).
  // The Gaussian part was calibrated for δ_v/2 with the samplers' reserve (1 + e^{ε_v})·draws·2^-53
  // inside it, so draws·2^-53 <= (δ_v/2 − δ_exact(σ_v))/(1 + e^{ε_v}): both enter as (1 + e^ε)·this.
  const double perExp = 1.0 + std::exp(v.epsilon);
  const double exact = v.sigma > 0.0 ? analyticGaussianDelta(v.sigma, v.epsilon, v.sensitivity) : 1.0;
  r.perExpEpsilonDelta = v.delta / (2.0 * perExp) + std::max(0.0, v.delta / 2.0 - exact) / perExp;
  return r;
}

std::vector<AccountedRelease> accountedReleases(const std::vector<LedgerEntry>& ledger) {
  std::vector<AccountedRelease> out;
  for (const LedgerEntry& e : ledger) {
    if (!e.spent) continue;
    if (e.node == "vocabulary") {
      VocabularySelectionRecord v;
      v.epsilon = e.epsilon;
      v.delta = e.delta;
      v.sensitivity = e.sensitivity;
      v.sigma = e.sigma;
      out.push_back(vocabularyRelease(v));
      continue;
    }
    AccountedRelease r;
    r.epsilon = e.epsilon;
    r.delta = e.delta;
    r.draws = e.draws;
    if (startsWith(e.mechanism, "laplace (Procedure 1")) {
      r.noise = AccountedRelease::Noise::LowerBound;  // its δ is the bound's failure probability (Lemma P)
      r.ratio = ratioOf(e.sensitivity, e.sigma);
    } else if (startsWith(e.mechanism, "laplace")) {
      r.noise = AccountedRelease::Noise::Laplace;
      r.ratio = ratioOf(e.sensitivity, e.sigma);
    } else {  // every other node release draws Gaussian noise; a row of K queries composes to √K·Δ/σ
      r.ratio = std::sqrt(static_cast<double>(std::max(1LL, e.queries))) * ratioOf(e.sensitivity, e.sigma);
    }
    out.push_back(r);
  }
  return out;
}

AccountantComparison compareAccountants(const std::vector<AccountedRelease>& releases, double ledgerEpsilon,
                                        double delta, const std::string& ledgerAccountant) {
  AccountantComparison c;
  c.ledgerAccountant = ledgerAccountant;
  c.ledger = ledgerEpsilon;
  c.delta = delta;
  const bool allPure = !releases.empty() && std::all_of(releases.begin(), releases.end(), [](const AccountedRelease& r) {
    return r.noise == AccountedRelease::Noise::Laplace && std::isfinite(r.ratio);
  });
  if (delta == 0.0 && allPure) {
    // Pure releases only (Laplace on l1 bounds, docs/PRIVACY.md §18): epsilon-DP at delta 0 composes by
    // adding the epsilons, which every accountant reports (for exact noise; the samplers' tails are a caution).
    double sum = 0.0;
    for (const AccountedRelease& r : releases) sum += r.ratio;
    c.gaussianDp = c.pld = sum;
    c.note = "pure releases: their epsilons add at delta 0";
    c.computed = true;
    return c;
  }
  if (releases.empty() || !(delta > 0.0) || !(delta < 1.0)) {
    c.note = "nothing released, or delta outside (0, 1)";
    return c;
  }
  // `joint` composes every release; `rest` leaves the vocabulary selection out, to add it by basic
  // composition instead (its threshold adds (1 + e^ε)·p_B, which beats basic only at small ε).
  ComposedReleases joint, rest;
  double muSquared = 0.0, gaussianDraws = 0.0, otherEpsilon = 0.0, otherDelta = 0.0;
  double selectionEpsilon = 0.0, selectionDelta = 0.0, lowerBoundDelta = 0.0;
  bool nodeReleased = false, selection = false;
  for (const AccountedRelease& r : releases) {
    if (std::isnan(r.ratio)) {
      c.note = "a release's noise scale was not computed";
      return c;
    }
    switch (r.noise) {
      case AccountedRelease::Noise::Gaussian:
        muSquared += r.ratio * r.ratio;
        gaussianDraws += r.draws;
        for (ComposedReleases* x : {&joint, &rest}) {
          x->gaussianMu.push_back(r.ratio);
          x->perExpEpsilonDelta += r.draws * kSamplerUniformFloor;
        }
        nodeReleased = true;
        break;
      case AccountedRelease::Noise::LowerBound:
      case AccountedRelease::Noise::Laplace:
        for (ComposedReleases* x : {&joint, &rest}) {
          if (r.noise == AccountedRelease::Noise::LowerBound) x->laplaceRatio.push_back(r.ratio);
          else x->pureEpsilon.push_back(r.ratio);
          x->perExpEpsilonDelta += r.draws * 2.0 * kSamplerUniformFloor;
        }
        if (r.noise == AccountedRelease::Noise::LowerBound) lowerBoundDelta += r.delta;
        else nodeReleased = true;
        otherEpsilon += r.epsilon;
        otherDelta += r.delta;
        break;
      case AccountedRelease::Noise::PartitionSelection:
        joint.gaussianMu.push_back(r.ratio);
        joint.perExpEpsilonDelta += r.perExpEpsilonDelta;
        selection = true;
        selectionEpsilon += r.epsilon;
        selectionDelta += r.delta;
        otherEpsilon += r.epsilon;
        otherDelta += r.delta;
        break;
    }
  }
  // Procedure 1's failure probabilities matter only to the node releases calibrated from its bounds
  // (Lemma P); the Laplace releases themselves are pure.
  if (nodeReleased) joint.fixedDelta = rest.fixedDelta = lowerBoundDelta;
  // Gaussian-DP: the Gaussian releases as one μ-GDP mechanism at the δ the other releases leave,
  // with the samplers' reserve for their draws (docs/PRIVACY.md §4.1); the others by basic composition.
  const double mu = std::sqrt(muSquared);
  if (mu == 0.0) {
    c.gaussianDp = otherEpsilon;
  } else if (!std::isfinite(mu)) {
    c.gaussianDp = kInfinity;
  } else {
    const double room = delta - otherDelta;
    auto deltaAt = [&](double e) { return analyticGaussianDelta(1.0, e, mu) + gaussianSamplerDelta(e, gaussianDraws); };
    const double start = room > 0.0 ? gaussianDpEpsilon(mu, room - 2.0 * gaussianDraws * kSamplerUniformFloor) : kInfinity;
    c.gaussianDp = otherEpsilon + smallestEpsilonWithin(deltaAt, start, room);
  }
  auto account = accountWithPld(joint, delta);
  if (!account.ok()) {
    c.note = account.status().message();
    return c;
  }
  c.pld = account.value().epsilon;
  c.pldInterval = account.value().interval;
  if (selection) {
    const bool restEmpty = rest.gaussianMu.empty() && rest.laplaceRatio.empty() && rest.pureEpsilon.empty();
    double viaBasic = kInfinity;
    if (restEmpty) {
      viaBasic = selectionEpsilon;
    } else if (delta - selectionDelta > 0.0) {
      auto r = accountWithPld(rest, delta - selectionDelta);
      if (r.ok()) viaBasic = selectionEpsilon + r.value().epsilon;
    }
    if (viaBasic < c.pld) {
      c.pld = viaBasic;
      c.note = "pld: the vocabulary selection added by basic composition (composing it costs more here: its "
               "threshold adds (1 + e^epsilon) times its share of delta)";
    }
  }
  c.computed = true;
  return c;
}

AccountantComparison compareRunAccountants(const std::vector<LedgerEntry>& ledger, double epsilonSpent,
                                           double deltaSpent) {
  return compareAccountants(accountedReleases(ledger), epsilonSpent, deltaSpent);
}

AccountantComparison compareDpViAccountants(const DpViLedger& L, const CorpusProvenance& provenance) {
  std::vector<AccountedRelease> releases;
  AccountedRelease g;
  g.ratio = std::sqrt(static_cast<double>(L.releases)) * ratioOf(L.sensitivity, L.sigma);
  g.draws = L.draws;
  releases.push_back(g);
  if (provenance.vocabulary == VocabularyOrigin::PrivateSelection) releases.push_back(vocabularyRelease(provenance.selection));
  const bool sampled = L.accountant == kDpViSampledAccountantName;
  AccountantComparison c = compareAccountants(releases, L.epsilon, L.delta, sampled ? L.accountant : "zcdp");
  if (sampled) {
    // The ledger's own account is the PLD of the sampled releases (PRIVACY.md §16.5); the
    // Gaussian-DP column composes the same σ as full releases (no amplification).
    c.pld = std::min(c.pld, L.epsilon);
    const std::string note = "pld: the Poisson-sampled account; gaussian-dp counts every release as a full one";
    c.note = c.note.empty() ? note : c.note + "; " + note;
  }
  return c;
}

std::string accountantComparisonText(const AccountantComparison& c) {
  std::ostringstream o;
  auto value = [](double v) {
    return std::isnan(v) ? std::string("not computed") : std::isinf(v) ? std::string("unbounded") : shortNumber(v);
  };
  o << c.ledgerAccountant << " " << value(c.ledger) << ", gaussian-dp " << value(c.gaussianDp) << ", pld "
    << value(c.pld) << " at delta " << shortNumber(c.delta);
  if (!std::isnan(c.pldInterval)) o << " (pld grid " << shortNumber(c.pldInterval) << ")";
  if (!c.note.empty()) o << " (" << c.note << ")";
  return o.str();
}

}  // namespace dplda
