#include "core/privacy/audit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/privacy/mechanisms.h"

namespace dplda::privacy_audit {

// ---- exact binomial confidence bounds --------------------------------------------------------

namespace {
double incompleteBetaFraction(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::abs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 100000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1.0) < 1e-15) break;
  }
  return h;
}
}  // namespace

double regularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double logFront =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(logFront) * incompleteBetaFraction(a, b, x) / a;
  return 1.0 - std::exp(logFront) * incompleteBetaFraction(b, a, 1.0 - x) / b;
}

// Bisection on P(X ≥ k | p) = I_p(k, n − k + 1) and P(X ≤ k | p) = 1 − I_p(k + 1, n − k).
double clopperPearsonLower(int k, int n, double alpha) {
  if (k <= 0) return 0.0;
  double lo = 0.0, hi = 1.0;
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    (regularizedIncompleteBeta(k, n - k + 1.0, mid) < alpha ? lo : hi) = mid;
  }
  return lo;
}

double clopperPearsonUpper(int k, int n, double alpha) {
  if (k >= n) return 1.0;
  double lo = 0.0, hi = 1.0;
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    (1.0 - regularizedIncompleteBeta(k + 1.0, n - k, mid) > alpha ? lo : hi) = mid;
  }
  return hi;
}

// ---- neighbouring corpora ---------------------------------------------------------------------

std::vector<CountTriplet> tripletsOf(const Corpus& c) {
  std::vector<CountTriplet> t;
  t.reserve(static_cast<std::size_t>(c.nnz()));
  for (int n = 0; n < c.docCount(); ++n)
    for (SparseCounts::InnerIterator it(c.counts, n); it; ++it) t.push_back({n, static_cast<int>(it.col()), it.value()});
  return t;
}

Result<Corpus> replaceDocument(const Corpus& c, int doc, const std::vector<std::pair<int, double>>& words) {
  if (doc < 0 || doc >= c.docCount()) return invalidArgument("replaceDocument: no document " + std::to_string(doc));
  std::vector<CountTriplet> t;
  for (const CountTriplet& x : tripletsOf(c))
    if (x.doc != doc) t.push_back(x);
  for (const auto& [w, count] : words) t.push_back({doc, w, count});
  return buildCorpus(c.docCount(), c.vocabSize(), t, c.vocab);
}

const char* auditedReleaseName(AuditedRelease r) {
  switch (r) {
    case AuditedRelease::SecondMoment: return "M2";
    case AuditedRelease::WhitenedSecondMoment: return "whitened M2";
    case AuditedRelease::WhitenedTensor: return "whitened T";
  }
  return "?";
}

namespace {

// The word absent from document 0 (if any) with the smallest corpus count: a one-word document on
// it moves M̂2 and M̂1 furthest from document 0's contribution.
int rarestWordOutside(const Corpus& c, int doc) {
  Eigen::VectorXd freq = Eigen::VectorXd::Zero(c.vocabSize());
  std::vector<bool> inDoc(c.vocabSize(), false);
  for (const CountTriplet& x : tripletsOf(c)) {
    freq[x.word] += x.count;
    if (x.doc == doc) inDoc[x.word] = true;
  }
  int best = 0;
  double bestFreq = std::numeric_limits<double>::infinity();
  for (int w = 0; w < c.vocabSize(); ++w) {
    const double f = freq[w] + (inDoc[w] ? 1e300 : 0.0);
    if (f < bestFreq) bestFreq = f, best = w;
  }
  return best;
}

}  // namespace

Result<AdversarialNeighbour> adversarialNeighbour(const Corpus& d, const Eigen::MatrixXd* W) {
  if (d.docCount() < 2) return invalidArgument("the audit needs a corpus of at least 2 documents");
  if (W && W->rows() != d.vocabSize()) return invalidArgument("adversarialNeighbour: W has the wrong number of rows");
  int word = 0;
  if (W) W->rowwise().norm().maxCoeff(&word);
  else word = rarestWordOutside(d, 0);
  const double count = 3.0;
  auto dp = replaceDocument(d, 0, {{word, count}});
  if (!dp.ok()) return dp.status();
  AdversarialNeighbour n;
  n.corpus = std::move(dp).value();
  n.replacedDocument = 0;
  n.replacement = "\"" + d.wordName(word) + "\" ×" + std::to_string(static_cast<int>(count));
  return n;
}

ReleaseSampler gaussianShiftSampler(double meanD, double meanDPrime, double sigma) {
  return [=](int side, RandomSource& rng) { return (side == 0 ? meanD : meanDPrime) + sigma * standardNormal(rng); };
}

// ---- the threshold test -----------------------------------------------------------------------

EpsilonBound empiricalEpsilon(std::vector<double> xD, std::vector<double> xDp, double delta, double familyAlpha,
                              int thresholds, int minCount) {
  EpsilonBound best;
  if (xD.empty() || xDp.empty() || thresholds < 2) return best;
  std::sort(xD.begin(), xD.end());
  std::sort(xDp.begin(), xDp.end());
  const int n = static_cast<int>(xD.size()), m = static_cast<int>(xDp.size());
  std::vector<double> pooled(xD);
  pooled.insert(pooled.end(), xDp.begin(), xDp.end());
  std::sort(pooled.begin(), pooled.end());
  const double alpha = familyAlpha / (4.0 * thresholds);
  auto above = [](const std::vector<double>& s, double t) {
    return static_cast<int>(s.end() - std::upper_bound(s.begin(), s.end(), t));
  };
  auto consider = [&](int kP, int nP, int kQ, int nQ, double t, bool upper) {
    if (kP < minCount) return;
    const double pLo = clopperPearsonLower(kP, nP, alpha);
    if (pLo <= delta) return;
    const double qHi = clopperPearsonUpper(kQ, nQ, alpha);
    const double e = std::log((pLo - delta) / qHi);
    if (e > best.epsilon) best = {e, t, upper, kP, kQ};
  };
  for (int i = 1; i < thresholds; ++i) {
    const double t = pooled[static_cast<std::size_t>(i) * pooled.size() / thresholds];
    const int aD = above(xD, t), aDp = above(xDp, t);
    consider(aD, n, aDp, m, t, true);
    consider(m - aDp, m, n - aD, n, t, false);
  }
  return best;
}

double exactGaussianEpsilon(double sigma, double gap, double delta) {
  if (!(sigma > 0) || !(gap > 0)) return 0.0;
  double lo = 0.0, hi = 1.0;
  if (analyticGaussianDelta(sigma, lo, gap) <= delta) return 0.0;
  while (analyticGaussianDelta(sigma, hi, gap) > delta && hi < 1e4) hi *= 2;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (analyticGaussianDelta(sigma, mid, gap) > delta ? lo : hi) = mid;
  }
  return hi;
}

Result<AuditOutcome> runAudit(const AuditSettings& s, const ReleaseSampler& sampler, Feedback* feedback) {
  if (!sampler) return invalidArgument("audit: no release to draw");
  if (!(s.sigma > 0) || !std::isfinite(s.sigma)) return invalidArgument("audit: the noise scale must be > 0");
  if (s.draws < 100) return invalidArgument("audit: at least 100 draws per side");
  if (!(s.confidence > 0 && s.confidence < 1)) return invalidArgument("audit: the confidence must be in (0, 1)");
  if (!(s.delta >= 0 && s.delta < 1)) return invalidArgument("audit: δ must be in [0, 1)");
  AuditOutcome out;
  out.xD.resize(s.draws);
  out.xDPrime.resize(s.draws);
  SeededRandom rngD(deriveSeed(s.seed, 1)), rngDp(deriveSeed(s.seed, 2));
  // Checkpoints: the lower bound at draws/64, /32, …, draws (each from the draws so far; each
  // checkpoint is its own audit at the stated confidence).
  std::vector<int> marks;
  for (int div = 64; div >= 1; div /= 2)
    if (s.draws / div >= 100) marks.push_back(s.draws / div);
  int done = 0;
  for (int mark : marks) {
    for (; done < mark; ++done) {
      out.xD[done] = sampler(0, rngD);
      out.xDPrime[done] = sampler(1, rngDp);
      if ((done & 0x3ff) == 0 && isCanceled(feedback)) return cancelled();
    }
    const std::vector<double> a(out.xD.begin(), out.xD.begin() + mark), b(out.xDPrime.begin(), out.xDPrime.begin() + mark);
    const EpsilonBound e = empiricalEpsilon(a, b, s.delta, 1.0 - s.confidence, s.thresholds);
    out.curve.push_back({mark, e.found() ? e.epsilon : std::nan("")});
    if (mark == s.draws) out.bound = e;
    reportProgress(feedback, static_cast<double>(mark) / s.draws);
    if (isCanceled(feedback)) return cancelled();
  }
  out.exactEpsilon = exactGaussianEpsilon(s.sigma, std::abs(s.meanD - s.meanDPrime), s.delta);
  return out;
}

}  // namespace dplda::privacy_audit
