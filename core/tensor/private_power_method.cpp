#include "core/tensor/private_power_method.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/privacy/mechanisms.h"

namespace dplda {

namespace {

std::string num(double x) {
  std::ostringstream o;
  o.precision(6);
  o << x;
  return o.str();
}

// The tensor minus the components found so far, through contractions (Algorithm 3's T − D).
class Deflated {
 public:
  Deflated(const SymmetricTensorOperator& op, int maxComponents)
      : m_op(op), m_V(op.dim(), maxComponents), m_lambda(maxComponents) {}
  Eigen::MatrixXd columns(const Eigen::MatrixXd& U) const {
    Eigen::MatrixXd G = m_op.contractTwice(U);
    for (int c = 0; c < m_found; ++c) {
      const Eigen::RowVectorXd p = m_V.col(c).transpose() * U;
      G.noalias() -= m_V.col(c) * (m_lambda[c] * p.array().square()).matrix();
    }
    return G;
  }
  void add(double lambda, const Eigen::VectorXd& v) {
    m_V.col(m_found) = v;
    m_lambda[m_found] = lambda;
    ++m_found;
  }

 private:
  const SymmetricTensorOperator& m_op;
  Eigen::MatrixXd m_V;
  Eigen::VectorXd m_lambda;
  int m_found = 0;
};

// ε′ of the advanced composition that makes the total exactly eps at δ̃ = delta/2 (monotone in ε′).
double advancedPerQueryEpsilon(long long K, double eps, double delta) {
  const double Kd = static_cast<double>(K);
  const double root = std::sqrt(2.0 * Kd * std::log(2.0 / delta));
  auto total = [&](double x) { return x * root + Kd * x * std::expm1(x); };
  double lo = 0.0, hi = eps / root;  // total(hi) >= eps
  for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (total(mid) > eps ? hi : lo) = mid;
  }
  return lo;  // total(lo) <= eps: the lower end never overspends
}

}  // namespace

double TpmSensitivity::vectorQuery(const Eigen::VectorXd& u) const {
  if (kind == Kind::Fixed) return value;
  const double m = u.cwiseAbs().maxCoeff();
  return value * m * m;
}

double TpmSensitivity::scalarQuery(const Eigen::VectorXd& u) const {
  if (kind == Kind::Fixed) return value;
  const double m = u.cwiseAbs().maxCoeff();
  return value * m * m * m;
}

std::string TpmSensitivity::describe() const {
  if (kind == Kind::EntryLevel)
    return "entry-level neighbouring tensors (seed 004, Definition 4.2: T' - T = +-sym(e_i x e_j x e_l)): "
           "Delta = " + num(value) + " ||u||_inf^2 for T(I,u,u), " + num(value) + " ||u||_inf^3 for T(u,u,u)";
  return "per-query l2 sensitivity Delta = " + num(value) +
         " for T(I,u,u) and T(u,u,u) (unit u; e.g. ||T - T'||_F <= Delta_T for neighbouring corpora)";
}

const char* tpmAccountantName(TpmAccountant a) {
  switch (a) {
    case TpmAccountant::GaussianExact: return "gaussian";
    case TpmAccountant::AdvancedComposition: return "advanced";
    case TpmAccountant::Printed: return "printed";
  }
  return "gaussian";
}

Result<TpmAccountant> parseTpmAccountant(const std::string& text) {
  std::string key;
  for (char c : text) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (TpmAccountant a : {TpmAccountant::GaussianExact, TpmAccountant::AdvancedComposition, TpmAccountant::Printed})
    if (key == tpmAccountantName(a)) return a;
  if (key == "gdp") return TpmAccountant::GaussianExact;  // the name of the runner's exact accountant
  return invalidArgument("accountant \"" + text + "\" is unknown: use gaussian (or gdp), advanced or printed");
}

TpmQueryCount tpmQueryCount(int components, int restarts, int iterations, int dim) {
  TpmQueryCount q;
  const long long starts = static_cast<long long>(components) * restarts;
  q.vector = starts * iterations;
  q.scalar = starts;
  q.draws = static_cast<double>(q.vector) * dim + static_cast<double>(q.scalar);
  return q;
}

double gaussianDpEpsilon(double mu, double delta) {
  if (std::isnan(mu) || std::isnan(delta)) return std::numeric_limits<double>::quiet_NaN();
  if (mu <= 0.0) return 0.0;
  if (!std::isfinite(mu)) return std::numeric_limits<double>::infinity();
  auto deltaAt = [mu](double eps) { return analyticGaussianDelta(1.0, eps, mu); };  // Δ/σ = μ
  if (deltaAt(0.0) <= delta) return 0.0;
  double lo = 0.0, hi = 1.0;
  while (deltaAt(hi) > delta) {
    lo = hi;
    hi *= 2.0;
    if (hi > 1e12) return std::numeric_limits<double>::infinity();
  }
  for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (deltaAt(mid) > delta ? lo : hi) = mid;
  }
  return hi;
}

double TpmPrivacyAccount::epsilonProven() const {
  return std::isnan(epsilonAdvanced) ? epsilonGaussian : std::min(epsilonGaussian, epsilonAdvanced);
}

TpmPrivacyAccount accountTpmQueries(long long queries, double m, double delta) {
  TpmPrivacyAccount a;
  a.queries = queries;
  a.multiplier = m;
  a.delta = delta;
  const double K = static_cast<double>(queries);
  const double inf = std::numeric_limits<double>::infinity();
  a.mu = m > 0.0 ? std::sqrt(K) / m : inf;
  a.epsilonGaussian = gaussianDpEpsilon(a.mu, delta);
  a.perQueryDelta = delta / (2.0 * K);
  a.perQueryEpsilon = m > 0.0 ? std::sqrt(2.0 * std::log(1.25 / a.perQueryDelta)) / m : inf;
  a.epsilonAdvanced = a.perQueryEpsilon < 1.0 ? a.perQueryEpsilon * std::sqrt(2.0 * K * std::log(2.0 / delta)) +
                                                     K * a.perQueryEpsilon * std::expm1(a.perQueryEpsilon)
                                              : std::numeric_limits<double>::quiet_NaN();
  a.rho = m > 0.0 ? K / (2.0 * m * m) : inf;
  a.epsilonZcdp = zcdpToEpsilon(a.rho, delta);
  return a;
}

double printedTpmMultiplier(long long queries, double epsilon, double delta) {
  const double K = static_cast<double>(queries);
  const double deltaPrime = delta / (2.0 * K);
  const double epsPrime = epsilon / std::sqrt(K * (4.0 + std::log(2.0 / delta)));
  return std::sqrt(2.0 * std::log(1.25 / deltaPrime)) / epsPrime;
}

Result<TpmCalibration> calibrateTpm(TpmAccountant accountant, double epsilon, double delta, const TpmQueryCount& q) {
  DPLDA_RETURN_IF_ERROR(validatePrivacyParameters(epsilon, delta));
  const long long K = q.total();
  if (K < 1) return invalidArgument("the private power method makes no query (K = 0): nothing to calibrate");
  TpmCalibration c;
  c.accountant = accountant;
  c.epsilon = epsilon;
  c.delta = delta;
  const double draws = std::max(1.0, q.draws);
  switch (accountant) {
    case TpmAccountant::GaussianExact: {
      // K queries at multiplier m are one Gaussian mechanism with Δ/σ = √K/m: calibrate that one
      // (analytic formula; calibrate reserves the samplers' δ for all the draws).
      auto one = calibrate(Mechanism::AnalyticGaussian, epsilon, delta, 1.0, draws);
      if (!one.ok()) return one.status();
      c.multiplier = std::sqrt(static_cast<double>(K)) * one->scale;
      c.samplerDelta = one->samplerDelta;
      c.samplerLimited = one->samplerLimited;
      c.note = "exact composition of the " + std::to_string(K) +
               " Gaussian queries (Gaussian DP, mu = sqrt(K)/m), converted by the analytic formula";
      break;
    }
    case TpmAccountant::AdvancedComposition: {
      const double limit = gaussianSamplerEpsilonLimit(delta, draws);
      c.samplerLimited = !(epsilon <= limit);
      c.samplerDelta = gaussianSamplerDelta(epsilon, draws);
      const double avail = c.samplerLimited ? delta : std::nextafter(delta - c.samplerDelta, 0.0);
      const double epsPrime = advancedPerQueryEpsilon(K, epsilon, avail);
      if (!(epsPrime < 1.0))
        return invalidArgument("advanced composition needs a per-query epsilon' = " + num(epsPrime) +
                               " >= 1, where the classic Gaussian bound is unproven; use the gaussian accountant");
      c.multiplier = std::sqrt(2.0 * std::log(1.25 / (avail / (2.0 * K)))) / epsPrime;
      c.note = "classic Gaussian per query (epsilon' = " + num(epsPrime) + ", delta' = delta/(2K)) with advanced "
               "composition (delta/2 left for it), as in the seed's proof, with epsilon' solved so that it yields "
               "the requested epsilon";
      break;
    }
    case TpmAccountant::Printed: {
      c.multiplier = printedTpmMultiplier(K, epsilon, delta);
      c.samplerDelta = gaussianSamplerDelta(epsilon, draws);
      c.samplerLimited = !(epsilon <= gaussianSamplerEpsilonLimit(delta, draws));
      c.note = "noise as printed in seed 004 (nu = 6 sqrt(2 ln(1.25/delta'))/epsilon', epsilon' = "
               "epsilon/sqrt(K(4 + ln(2/delta)))): its own proof establishes only the 'advanced' epsilon, exact "
               "composition the 'gaussian' one";
      break;
    }
  }
  if (!std::isfinite(c.multiplier) || !(c.multiplier > 0.0))
    return invalidArgument("epsilon = " + num(epsilon) + ": the private power method's noise multiplier overflows");
  // Every account leaves the samplers' share of δ aside, so that (ε, δ) holds for the noise as drawn.
  c.account = accountTpmQueries(K, c.multiplier, c.samplerLimited ? delta : std::nextafter(delta - c.samplerDelta, 0.0));
  if (c.samplerLimited)
    c.note += "; NOT PRIVATE AS DRAWN: at this epsilon the noise sampler's truncated tails add up to " +
              num(c.samplerDelta) + " to delta; the guarantee holds for exact Gaussian noise only";
  return c;
}

Status validatePrivatePowerOptions(const PrivatePowerOptions& o, int dim) {
  if (dim < 1) return invalidArgument("the tensor to decompose is empty");
  if (o.components < 0 || o.components > dim)
    return invalidArgument("private power method: components must be in 0.." + std::to_string(dim) +
                           " (0 = all), got " + std::to_string(o.components));
  if (o.restarts < 0)
    return invalidArgument("private power method: restarts L must be >= 0 (0 = default), got " +
                           std::to_string(o.restarts));
  if (o.iterations < 1)
    return invalidArgument("private power method: iterations R must be >= 1, got " + std::to_string(o.iterations));
  return Status::ok();
}

Result<NoisyPowerResult> noisyRobustPowerMethod(const SymmetricTensorOperator& T, const PrivatePowerOptions& o,
                                                double multiplier, const TpmSensitivity& sensitivity,
                                                RandomSource& init, RandomSource& noise,
                                                const TpmQueryObserver& observer, Feedback* feedback) {
  const int d = T.dim();
  DPLDA_RETURN_IF_ERROR(validatePrivatePowerOptions(o, d));
  if (!std::isfinite(multiplier) || multiplier < 0.0)
    return invalidArgument("private power method: the noise multiplier must be finite and >= 0, got " +
                           num(multiplier));
  if (!std::isfinite(sensitivity.value) || !(sensitivity.value > 0.0))
    return invalidArgument("private power method: the sensitivity must be finite and > 0, got " +
                           num(sensitivity.value));
  const int r = o.components > 0 ? o.components : d;
  const int L = o.restarts > 0 ? o.restarts : defaultPowerRestarts(r);
  const int R = o.iterations;
  Deflated TD(T, r);
  Eigen::MatrixXd V(d, r);
  Eigen::VectorXd lambda(r);
  TpmQuery query;
  Eigen::VectorXd z(d);
  auto draw = [&](Eigen::Index size, double sigma) -> const Eigen::VectorXd& {
    z.resize(size);
    for (Eigen::Index i = 0; i < size; ++i) z[i] = sigma * standardNormal(noise);
    return z;
  };
  for (int comp = 0; comp < r; ++comp) {
    if (isCanceled(feedback)) return cancelled();
    Eigen::MatrixXd U(d, L);
    for (int s = 0; s < L; ++s) U.col(s) = randomUnitVector(d, init);
    for (int t = 0; t < R; ++t) {
      Eigen::MatrixXd G = TD.columns(U);
      if (comp == 0 && t == 0 && !G.allFinite())
        return numericalFailure("the tensor to decompose contains NaN or infinite entries");
      for (int s = 0; s < L && multiplier > 0.0; ++s) {  // release ū = (T − D)(I,u,u) + m Δ_v(u) z
        const double delta = sensitivity.vectorQuery(U.col(s));
        G.col(s) += draw(d, multiplier * delta);
        if (observer) {
          query = {false, comp, s, t, U.col(s).cwiseAbs().maxCoeff(), delta, multiplier * delta, z};
          observer(query);
        }
      }
      normaliseColumns(G, U);  // post-processing of the released ū
      U = std::move(G);
    }
    const Eigen::MatrixXd G = TD.columns(U);
    Eigen::VectorXd lamTilde = U.cwiseProduct(G).colwise().sum().transpose();  // (T − D)(u,u,u)
    for (int s = 0; s < L && multiplier > 0.0; ++s) {
      const double delta = sensitivity.scalarQuery(U.col(s));
      lamTilde[s] += draw(1, multiplier * delta)[0];
      if (observer) {
        query = {true, comp, s, R, U.col(s).cwiseAbs().maxCoeff(), delta, multiplier * delta, z};
        observer(query);
      }
    }
    Eigen::Index best = 0;
    lamTilde.maxCoeff(&best);
    double lam = lamTilde[best];
    Eigen::VectorXd v = U.col(best);
    if (lam < 0.0) {  // T(−v,−v,−v) = −T(v,v,v): make λ positive, the deflation term is unchanged
      lam = -lam;
      v = -v;
    }
    lambda[comp] = lam;
    V.col(comp) = v;
    TD.add(lam, v);
    reportProgress(feedback, (comp + 1.0) / r);
  }
  NoisyPowerResult out;
  out.pairs = sortedPositive(lambda, V);
  out.pairs.iterations = R * r;
  // unconverged stays 0: a fixed number of noisy steps, with no convergence test
  std::ostringstream name;
  name << "private robust tensor power method (L = " << L << ", R = " << R << ")";
  out.pairs.method = name.str();
  out.queries = tpmQueryCount(r, L, R, d);
  out.components = r;
  out.restarts = L;
  out.iterations = R;
  return out;
}

Result<PrivateDecomposition> privateRobustPowerMethod(const SymmetricTensorOperator& T,
                                                      const TpmSensitivity& sensitivity, double epsilon,
                                                      double delta, TpmAccountant accountant,
                                                      const PrivatePowerOptions& o, RandomSource& init,
                                                      RandomSource& noise, Feedback* feedback) {
  DPLDA_RETURN_IF_ERROR(validatePrivatePowerOptions(o, T.dim()));
  const int r = o.components > 0 ? o.components : T.dim();
  const int L = o.restarts > 0 ? o.restarts : defaultPowerRestarts(r);
  const TpmQueryCount q = tpmQueryCount(r, L, o.iterations, T.dim());
  auto cal = calibrateTpm(accountant, epsilon, delta, q);
  if (!cal.ok()) return cal.status();
  const TpmCalibration& c = cal.value();
  auto run = noisyRobustPowerMethod(T, o, c.multiplier, sensitivity, init, noise, {}, feedback);
  if (!run.ok()) return run.status();
  PrivateDecomposition out;
  out.pairs = std::move(run.value().pairs);
  TpmLedgerEntry& e = out.ledger;
  e.mechanism = "private robust tensor power method (seed 004, Algorithm 3)";
  e.accountant = tpmAccountantName(accountant);
  e.sensitivity = sensitivity.describe();
  e.note = c.note;
  e.components = r;
  e.restarts = L;
  e.iterations = o.iterations;
  e.queries = q.total();
  e.vectorQueries = q.vector;
  e.scalarQueries = q.scalar;
  e.noiseDraws = q.draws;
  e.noiseMultiplier = c.multiplier;
  e.sigmaVectorQuery = e.sigmaScalarQuery = c.multiplier * sensitivity.value;
  e.epsilonRequested = epsilon;
  e.deltaRequested = delta;
  e.account = c.account;
  e.samplerDelta = c.samplerDelta;
  e.samplerLimited = c.samplerLimited;
  e.epsilonSpent = c.account.epsilonProven();
  e.deltaSpent = c.account.delta + c.samplerDelta;
  e.withinRequest = !c.samplerLimited && e.epsilonSpent <= epsilon * (1.0 + 1e-9) && e.deltaSpent <= delta * (1.0 + 1e-9);
  e.noiseSource = noise.description();
  e.startsSource = init.description();
  return out;
}

Result<PrivateDecomposition> releasePrivateDecomposition(const Tensor3& T, double sensitivity, double epsilon,
                                                         double delta, TpmAccountant accountant, int restarts,
                                                         int iterations, RandomSource& init, RandomSource& noise,
                                                         Feedback* feedback) {
  if (T.dim() < 1) return invalidArgument("the tensor to decompose is empty");
  if (!T.allFinite()) return numericalFailure("the tensor to decompose contains NaN or infinite entries");
  if (!std::isfinite(sensitivity) || !(sensitivity > 0.0))
    return invalidArgument("the per-query sensitivity must be finite and > 0, got " + num(sensitivity));
  PrivatePowerOptions o;
  o.restarts = restarts;
  o.iterations = iterations;
  // The packed copy (k^2 (k+1)/2 doubles) pays for itself over the r L (R + 1) contractions.
  return privateRobustPowerMethod(PackedTensorOperator(T), TpmSensitivity::fixed(sensitivity), epsilon, delta,
                                  accountant, o, init, noise, feedback);
}

}  // namespace dplda
