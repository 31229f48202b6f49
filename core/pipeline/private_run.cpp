#include "core/pipeline/private_run.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>

#include "core/common/number_text.h"
#include "core/privacy/noise.h"
#include "core/tensor/private_power_method.h"
#include "core/tensor/sign_conventions.h"

namespace dplda {

namespace {

// Power steps R of Algorithm 3 when it releases TD on e6 (fixed: it has no early stop).
constexpr int kPrivateDecompositionIterations = 30;
// Dense d x d matrices above this many entries are refused (2 GiB).
constexpr double kMaxDenseEntries = 268435456.0;
// Input perturbation draws N x d values; above this it is refused.
constexpr double kMaxInputPerturbationEntries = 2.0e9;

// Noise for one release, Gaussian or Laplace, on all entries or on the unique entries of a
// symmetric matrix (mirrored).
Status addReleaseNoise(Eigen::MatrixXd& x, bool symmetric, Mechanism m, double scale, RandomSource& rng) {
  if (scale == 0.0) return Status::ok();
  if (m != Mechanism::Laplace) {
    return symmetric ? addSymmetricMatrixNoise(x, scale, rng) : addGaussianNoise(x, scale, rng);
  }
  return symmetric ? addSymmetricMatrixLaplaceNoise(x, scale, rng) : addLaplaceNoise(x, scale, rng);
}

// Input perturbation: clip each document to the public L_max (scaling its counts down),
// add noise to every one of the N x d counts, then round to non-negative integers
// (post-processing) and rebuild a corpus.
Result<Corpus> perturbCorpus(const Corpus& c, double maxLength, Mechanism m, double scale, RandomSource& rng) {
  const double entries = static_cast<double>(c.docCount()) * c.vocabSize();
  if (entries > kMaxInputPerturbationEntries) {
    return Status(StatusCode::ResourceLimit, "input perturbation would draw " + shortNumber(entries) +
                                                 " noise values (N x d); choose another edge set");
  }
  std::vector<CountTriplet> triplets;
  Eigen::VectorXd row(c.vocabSize());
  for (int n = 0; n < c.docCount(); ++n) {
    row.setZero();
    const double l = c.lengths[n];
    const double shrink = l > maxLength ? maxLength / l : 1.0;
    for (SparseCounts::InnerIterator it(c.counts, n); it; ++it) row[it.col()] = std::floor(it.value() * shrink);
    for (int i = 0; i < c.vocabSize(); ++i) {
      const double noisy = row[i] + (scale == 0.0 ? 0.0
                                                  : (m == Mechanism::Laplace ? laplace(rng, scale)
                                                                             : scale * standardNormal(rng)));
      const double rounded = std::round(noisy);
      if (rounded >= 1.0) triplets.push_back({n, i, rounded});
    }
  }
  auto out = buildCorpus(c.docCount(), c.vocabSize(), triplets, c.vocab);
  if (!out.ok()) return out.status();
  if (out.value().docCount() < 3) {
    return numericalFailure("after input perturbation fewer than 3 documents have 3 or more tokens");
  }
  return out;
}

Result<Whitening> whitenMatrix(const Eigen::MatrixXd& m2, int k, Eigen::VectorXd* eigenvalues) {
  auto eig = topEigenpairs(m2, k);
  if (!eig.ok()) return eig.status();
  if (eigenvalues) *eigenvalues = eig.value().values;
  return whitenFromEigenpairs(eig.value(), k);
}

std::string failedPreconditions(const SensitivityBound& b) {
  std::string out;
  for (const auto& p : b.preconditions)
    if (!p.holds) out += (out.empty() ? "" : "; ") + p.name + " (" + p.detail + ")";
  return out.empty() ? b.note : out;
}

// Noise values one release draws (the samplers' tail excess grows with it): the unique entries
// of a symmetric matrix or tensor, k^3 for the projected M3 noise, every entry otherwise.
double drawsOf(Node node, double N, double d, double k) {
  switch (node) {
    case Node::D: return N * d;
    case Node::M2: return d * (d + 1) / 2;
    case Node::M3: return k * k * k;
    case Node::W:
    case Node::Wplus: return d * k;
    case Node::T: return k * (k + 1) * (k + 2) / 6;
    case Node::TD: return k * k + k;
    case Node::U: return d * k + k;
    case Node::OUT: break;
  }
  return 1.0;
}

}  // namespace

StatementInputs statementInputs(const PrivacyOptions& o, int docCount) {
  return {o.edges, o.shareReleases, o.bounds, o.epsilon, o.delta, o.noiseMultiplier, docCount};
}

Status validatePrivacyOptions(const PrivacyOptions& o, int docCount, int vocabSize, int topicCount) {
  if (o.edges == 0) return Status::ok();  // the non-private baseline; nothing to calibrate
  DPLDA_RETURN_IF_ERROR(validatePrivacyParameters(o.epsilon, o.delta));
  if (o.edges >= (1u << kEdgeCount)) return invalidArgument("the edge set names an edge beyond e9");
  if (!std::isfinite(o.maxLength) || o.maxLength < 3.0 || o.maxLength > kMaxClipLength) {
    return invalidArgument("the clipping length L_max must be a number in [3, " + shortNumber(kMaxClipLength) +
                           "], got " + shortNumber(o.maxLength));
  }
  if (!std::isfinite(o.noiseMultiplier) || o.noiseMultiplier < 0.0) {
    return invalidArgument("the noise multiplier must be a finite number >= 0, got " + shortNumber(o.noiseMultiplier));
  }
  if (o.mechanism == Mechanism::PrintedClosedForm) {
    return invalidArgument(
        "the printed closed-form Gaussian (2 epsilon in the denominator) is not differentially private for "
        "epsilon above about 0.36 at delta = 1e-5; it is offered only as a demonstration, never for a release");
  }
  if (o.mechanism == Mechanism::Laplace) {
    if (contains(o.edges, 3)) {
      return invalidArgument("Laplace noise on M3 (edge e3) has no projected sampler; use a Gaussian mechanism");
    }
    // W, T, TD, W+ and U have l2 / Frobenius bounds only; Laplace needs an l1 bound (up to
    // sqrt(dk) or k^{3/2} larger), so it is refused rather than miscalibrated.
    for (int e : {4, 6, 7, 8, 9})
      if (contains(o.edges, e)) {
        return invalidArgument("Laplace noise on e" + std::to_string(e) + " (" + nodeName(edge(e).from) +
                               ") would need an l1 sensitivity bound, and the tool has only an l2 one there; "
                               "use a Gaussian mechanism");
      }
  }
  if (o.privateDecomposition) {
    if (!contains(o.edges, 6)) return invalidArgument("the private decomposition is a mechanism for edge e6, which is not noisy");
    if (o.accountant == Accountant::GaussianDp) {
      return invalidArgument("the private decomposition (e6) keeps its own accountant; use --accountant basic with it");
    }
  }
  if (o.accountant == Accountant::GaussianDp && o.mechanism != Mechanism::AnalyticGaussian) {
    return invalidArgument(std::string("the gaussian-dp accountant composes analytic Gaussian releases; the mechanism "
                                       "is ") + mechanismName(o.mechanism));
  }
  // The split (one weight per release, each finite and > 0) and every node release's mechanism
  // at its share (e.g. the classic Gaussian refuses ε_i >= 1) are public: check them before any
  // draw, so that a refusal never follows a spent Procedure-1 release.
  const std::vector<PlannedRelease> plan = planReleases(o.edges, o.shareReleases, o.bounds);
  auto shares = splitBudget(o.epsilon, o.delta, static_cast<int>(plan.size()), o.splitWeights);
  if (!shares.ok()) return shares.status();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].kind != ReleaseKind::Node || o.accountant == Accountant::GaussianDp) continue;
    const double draws = std::max(1.0, drawsOf(plan[i].node, docCount, vocabSize, topicCount));
    auto cal = calibrate(o.mechanism, shares.value()[i].epsilon, shares.value()[i].delta, 1.0, draws);
    if (!cal.ok()) return Status(cal.status().code(), "release of " + plan[i].name + ": " + cal.status().message());
  }
  return Status::ok();
}

namespace {

// Frames of the whitened coordinates (see core/tensor/sign_conventions.h): where the signs of
// the columns of a W, or of the rows of a V, come from.
constexpr int kExactFrame = 0;          // the non-private pipeline's eigenvectors
constexpr int kReleasedM2Frame = 100;   // + release index: the eigenvectors of a released M2
constexpr int kCanonicalFrame = 1000;   // + edge: canonicalised right after the release on that edge
bool fromReleasedM2(int frame) { return frame >= kReleasedM2Frame && frame < kCanonicalFrame; }

// The exact statistics for teaching (NonPrivateDiagnostics): a full non-private run, after the
// private one, whose failure is only reported.
void addNonPrivateDiagnostics(SpectralPipeline& pipeline, PrivateRunResult& res, Feedback* feedback) {
  NonPrivateDiagnostics& np = res.diagnostics.nonPrivate;
  auto m = pipeline.runThrough(PipelineStage::Eigen, feedback);
  if (!m.ok()) {
    np.failure = m.status().message();
    return;
  }
  const SpectralOptions& so = pipeline.options();
  const int k = so.topicCount;
  const Eigen::VectorXd& sigma = m.value().eigen.values;
  np.sigmaK = sigma[k - 1];
  np.sigmaKPlus1 = sigma.size() > k ? sigma[k] : 0.0;
  np.eigengap = eigengap(sigma, k);
  const double delta2 = secondMomentSensitivity(pipeline.corpus()->docCount(), so.alpha0);
  const double gapK = sigma.size() > k ? np.sigmaK - np.sigmaKPlus1 : np.sigmaK;
  np.checks.push_back({"sigma_k > Delta2", np.sigmaK > delta2, shortNumber(np.sigmaK) + " vs " + shortNumber(delta2)});
  np.checks.push_back({"Delta2 <= sigma_k - sigma_k+1 (whitening stability)", delta2 <= gapK,
                       shortNumber(delta2) + " vs " + shortNumber(gapK)});
  np.checks.push_back({"eigengap > 2 Delta2", np.eigengap > 2.0 * delta2,
                       shortNumber(np.eigengap) + " vs " + shortNumber(2.0 * delta2)});
  auto full = pipeline.run(feedback);
  if (!full.ok()) {
    np.failure = full.status().message();
    return;
  }
  np.gammaS = full.value().gammaS;
  np.available = true;
}

// One private run: Procedure 1, calibration, then the releases and the graph downstream of
// them. Non-private stages are fetched only when a release needs them, after every private
// check has passed, so that none of them can decide the outcome (docs/PRIVACY.md §2).
class PrivateRun {
 public:
  PrivateRun(SpectralPipeline& pipeline, const PrivacyOptions& o, RandomSource& noise, Feedback* feedback)
      : m_pipeline(pipeline), m_o(o), m_noise(noise), m_feedback(feedback), m_corpus(*pipeline.corpus()),
        m_so(pipeline.options()), m_k(m_so.topicCount),
        m_in{.docCount = m_corpus.docCount(), .topicCount = m_k, .alpha0 = m_so.alpha0, .maxLength = o.maxLength} {}

  Result<PrivateRunResult> run();

 private:
  Result<PrivateRunResult> fail(StatusCode code, const std::string& why) {
    m_res.released = false;
    m_res.status = Status(code, why);
    return Result<PrivateRunResult>(std::move(m_res));
  }
  // A noise-free stage failed although every private check passed. With the sound bounds this
  // needs σ_k(M̂2) < σ̃_k, Procedure 1's failure event; the message carries no exact value.
  Result<PrivateRunResult> exactStageFailed(const Status& s) {
    if (s.code() == StatusCode::Cancelled) return fail(StatusCode::Cancelled, "cancelled");
    return fail(StatusCode::NothingReleased,
                "nothing released: a noise-free stage this release needs (whitening or decomposition of the "
                "exact moments) could not be computed although the private checks passed; with the sound bounds "
                "this happens only on Procedure 1's failure event (probability at most its delta)");
  }
  Result<PrivateRunResult> failAfterNoise(const Status& s) {
    return fail(s.code() == StatusCode::Cancelled ? StatusCode::Cancelled : StatusCode::NumericalFailure,
                "the releases were made but the output could not be computed from them: " + s.message());
  }
  void charge(LedgerEntry& e) {
    e.spent = true;
    m_res.epsilonSpent += e.epsilon;
    m_res.deltaSpent += e.delta;
  }
  SensitivityBound boundOf(const PlannedRelease& r) const;
  SensitivityBound describeRow(LedgerEntry& e, const PlannedRelease& r) const;
  Result<PrivateRunResult> releaseAndEvaluate();
  void statePrivacyAsDrawn();
  Status calibrateEach(std::size_t firstNodeRelease);
  Status calibrateGaussianDp(std::size_t firstNodeRelease);
  // The non-private stages through `s` (cached: the deepest fetched so far).
  Status exactThrough(PipelineStage s);
  // The pipeline's whitening changes convention in its Tensor stage (T̂_iii >= 0).
  int exactFrame() const {
    return static_cast<int>(m_exactDepth) >= static_cast<int>(PipelineStage::Tensor) ? kExactFrame + 1 : kExactFrame;
  }
  bool noisyEdge(int e) const { return m_releaseOfEdge.count(e) > 0; }
  double scaleOf(int e) const { return m_res.ledger[m_releaseOfEdge.at(e)].sigma; }
  Result<std::shared_ptr<const Corpus>> corpusVia(int e);
  Result<Eigen::MatrixXd> secondMoment(bool exactCorpus, const Corpus& c);
  struct FramedWhitening {
    Whitening w;
    int frame = kExactFrame;
  };
  Result<FramedWhitening> whiteningVia(int e, bool exactCorpus, const Corpus& c, bool recordEigenvalues);

  SpectralPipeline& m_pipeline;
  const PrivacyOptions& m_o;
  RandomSource& m_noise;
  Feedback* m_feedback;
  const Corpus& m_corpus;
  const SpectralOptions& m_so;
  const int m_k;
  SensitivityInputs m_in;
  PrivateRunResult m_res;
  std::vector<PlannedRelease> m_plan;
  std::map<int, std::size_t> m_releaseOfEdge;  // edge -> ledger/plan index
  std::optional<SpectralModel> m_exact;
  PipelineStage m_exactDepth = PipelineStage::Moments;
  std::map<std::size_t, std::shared_ptr<const Corpus>> m_perturbed;
  std::optional<Eigen::MatrixXd> m_m2;
  std::map<std::size_t, Whitening> m_whiteningOfRelease;
};

SensitivityBound PrivateRun::boundOf(const PlannedRelease& r) const {
  switch (r.kind) {
    case ReleaseKind::SigmaK: return sigmaKSensitivity(m_in, m_o.bounds);
    case ReleaseKind::Eigengap: return eigengapSensitivity(m_in);
    case ReleaseKind::GammaS: return gammaSSensitivity(m_in, m_o.bounds);
    case ReleaseKind::Node: break;
  }
  SensitivityBound b = sensitivityOf(r.node, m_in, m_o.bounds);
  if (r.node == Node::D && m_o.mechanism == Mechanism::Laplace) {
    b.value = 2.0 * m_o.maxLength;  // ℓ1: two documents of at most L_max tokens
    b.formula = "2 L_max (l1, clipped counts)";
  }
  return b;
}

SensitivityBound PrivateRun::describeRow(LedgerEntry& e, const PlannedRelease& r) const {
  const SensitivityBound b = boundOf(r);
  e.sensitivity = b.usable ? b.value : std::nan("");
  e.sensitivityFormula = b.formula;
  e.preconditions = b.preconditions;
  e.note = b.note;
  return b;
}

// Basic composition: each node release calibrated to its own (ε_i, δ_i).
Status PrivateRun::calibrateEach(std::size_t first) {
  m_res.composition = "basic: the (epsilon_i, delta_i) of the releases add up to the total";
  for (std::size_t i = first; i < m_plan.size(); ++i) {
    LedgerEntry& e = m_res.ledger[i];
    if (m_o.privateDecomposition && m_plan[i].node == Node::T) {
      // e6 by Algorithm 3: K Gaussian queries, each with l2 sensitivity Δ_T, accounted together.
      const TpmQueryCount q = tpmQueryCount(m_k, defaultPowerRestarts(m_k), kPrivateDecompositionIterations, m_k);
      auto cal = calibrateTpm(m_o.decompositionAccountant, e.epsilon, e.delta, q);
      if (!cal.ok()) return Status(cal.status().code(), "release of " + m_plan[i].name + ": " + cal.status().message());
      e.draws = q.draws;
      e.sigma = cal.value().multiplier * e.sensitivity * m_o.noiseMultiplier;  // per query
      e.samplerLimited = cal.value().samplerLimited;
      e.mechanism = std::string("private robust tensor power method (seed 004 Algorithm 3, ") +
                    tpmAccountantName(m_o.decompositionAccountant) + " accountant, " + std::to_string(q.total()) +
                    " queries; sigma per query)";
      e.note += (e.note.empty() ? "" : "; ") + cal.value().note;
      if (e.samplerLimited) e.samplerExcess = cal.value().samplerDelta;
      continue;
    }
    auto cal = calibrate(m_o.mechanism, e.epsilon, e.delta, e.sensitivity, e.draws);
    if (!cal.ok()) return Status(cal.status().code(), "release of " + m_plan[i].name + ": " + cal.status().message());
    e.sigma = cal.value().scale * m_o.noiseMultiplier;
    e.samplerLimited = cal.value().samplerLimited;
    // The Gaussian calibration reserves the tail excess inside δ_i; Laplace's is on top of it.
    if (m_o.mechanism == Mechanism::Laplace || e.samplerLimited) e.samplerExcess = cal.value().samplerDelta;
  }
  return Status::ok();
}

// Gaussian-DP composition (docs/PRIVACY.md §4.1): the node releases, Gaussian mechanisms with
// μ_i = Δ_i/σ_i, compose exactly to one μ-GDP mechanism, μ² = Σμ_i². Their pooled share
// (ε_G, δ_G) fixes μ by the analytic formula (a Gaussian of unit sensitivity calibrated to
// (ε_G, δ_G) has σ = 1/μ), and μ² is split over the releases in proportion to their ε shares.
// Procedure 1's Laplace releases keep their own shares and compose on top (Lemma P).
Status PrivateRun::calibrateGaussianDp(std::size_t first) {
  double epsilonG = 0.0, deltaG = 0.0, draws = 0.0;
  for (std::size_t i = first; i < m_plan.size(); ++i) {
    epsilonG += m_res.ledger[i].epsilon;
    deltaG += m_res.ledger[i].delta;
    draws += m_res.ledger[i].draws;
  }
  auto cal = calibrate(Mechanism::AnalyticGaussian, epsilonG, deltaG, 1.0, draws);
  if (!cal.ok()) return Status(cal.status().code(), "the pooled Gaussian releases: " + cal.status().message());
  const double mu = 1.0 / cal.value().scale;
  m_res.composition = "gaussian-dp: the node releases compose to one Gaussian mechanism with mu = " + shortNumber(mu) +
                      ", (" + shortNumber(epsilonG) + ", " + shortNumber(deltaG) +
                      ")-DP by the exact conversion; Procedure 1's Laplace releases add by basic composition";
  for (std::size_t i = first; i < m_plan.size(); ++i) {
    LedgerEntry& e = m_res.ledger[i];
    e.mu = mu * std::sqrt(e.epsilon / epsilonG);
    e.sigma = e.sensitivity / e.mu * m_o.noiseMultiplier;
    e.samplerLimited = cal.value().samplerLimited;
    e.mechanism = std::string(mechanismName(Mechanism::AnalyticGaussian)) + " (gaussian-dp accountant)";
  }
  if (cal.value().samplerLimited) m_res.ledger[first].samplerExcess = cal.value().samplerDelta;
  return Status::ok();
}

// The (ε, δ) of the noise actually drawn: the samplers' truncated tails add δ beyond the
// nominal shares for Laplace draws and for Gaussian releases at very large ε_i
// (docs/PRIVACY.md §7). The statement says so, and is withdrawn when the guarantee fails.
void PrivateRun::statePrivacyAsDrawn() {
  double excess = 0.0;
  std::string limited;
  for (const LedgerEntry& e : m_res.ledger) {
    excess += e.samplerExcess;
    if (e.samplerLimited) limited += (limited.empty() ? "" : ", ") + e.release;
  }
  m_res.deltaAsDrawn = m_o.delta + excess;
  if (!limited.empty() || excess > m_o.delta) {
    m_res.statement.claim = PrivacyClaim::NotPrivate;
    m_res.statement.summary = "Not private as drawn: at these per-release epsilons the noise samplers' truncated "
                              "tails add more than delta (" + (limited.empty() ? "delta as drawn " + shortNumber(m_res.deltaAsDrawn) : limited) +
                              "; docs/PRIVACY.md §7).";
    m_res.warnings.push_back(m_res.statement.summary);
  } else if (excess > 0.0) {
    m_res.statement.cautions.push_back("the noise samplers' truncated tails add " + shortNumber(excess) +
                                       " to delta as drawn (docs/PRIVACY.md §7)");
  }
}

Status PrivateRun::exactThrough(PipelineStage s) {
  if (m_exact && static_cast<int>(m_exactDepth) >= static_cast<int>(s)) return Status::ok();
  auto m = m_pipeline.runThrough(s, m_feedback);
  if (!m.ok()) return m.status();
  m_exact = std::move(m).value();
  m_exactDepth = s;
  return Status::ok();
}

Result<std::shared_ptr<const Corpus>> PrivateRun::corpusVia(int e) {
  if (!noisyEdge(e)) return std::shared_ptr<const Corpus>(m_pipeline.corpus());
  const std::size_t r = m_releaseOfEdge.at(e);
  if (!m_perturbed.count(r)) {
    auto c = perturbCorpus(m_corpus, m_o.maxLength, m_o.mechanism, m_res.ledger[r].sigma, m_noise);
    if (!c.ok()) return c.status();
    m_perturbed[r] = std::make_shared<const Corpus>(std::move(c).value());
  }
  return m_perturbed[r];
}

// M̂2 of the corpus that reaches M2 (the pipeline's own, or a perturbed one), dense.
Result<Eigen::MatrixXd> PrivateRun::secondMoment(bool exactCorpus, const Corpus& c) {
  if (!m_m2) {
    const double d = m_corpus.vocabSize();
    if (d * d > kMaxDenseEntries) {
      return Status(StatusCode::ResourceLimit,
                    "releasing M2 needs a dense " + shortNumber(d) + " x " + shortNumber(d) + " matrix; reduce the vocabulary");
    }
    if (exactCorpus) DPLDA_RETURN_IF_ERROR(exactThrough(PipelineStage::Moments));
    auto v = exactCorpus ? m_pipeline.secondMomentDense(m_feedback) : secondMomentDense(c, m_so.alpha0);
    if (!v.ok()) return v.status();
    m_m2 = std::move(v).value();
  }
  return *m_m2;
}

// The whitening a node receives over edge e (e2 for W, e5 for W+), with its frame.
Result<PrivateRun::FramedWhitening> PrivateRun::whiteningVia(int e, bool exactCorpus, const Corpus& c,
                                                             bool recordEigenvalues) {
  if (!noisyEdge(e)) {
    if (exactCorpus) {
      DPLDA_RETURN_IF_ERROR(exactThrough(PipelineStage::Whiten));
      return FramedWhitening{m_exact->whitening, exactFrame()};
    }
    auto base = secondMoment(exactCorpus, c);
    if (!base.ok()) return base.status();
    auto w = whitenMatrix(base.value(), m_k, nullptr);
    if (!w.ok()) return w.status();
    return FramedWhitening{std::move(w).value(), kReleasedM2Frame};  // a perturbed corpus: public
  }
  const std::size_t r = m_releaseOfEdge.at(e);
  if (!m_whiteningOfRelease.count(r)) {
    auto base = secondMoment(exactCorpus, c);
    if (!base.ok()) return base.status();
    Eigen::MatrixXd released = base.value();
    DPLDA_RETURN_IF_ERROR(addReleaseNoise(released, true, m_o.mechanism, m_res.ledger[r].sigma, m_noise));
    auto w = whitenMatrix(released, m_k, recordEigenvalues ? &m_res.diagnostics.releasedEigenvalues : nullptr);
    if (!w.ok()) return w.status();
    m_whiteningOfRelease[r] = std::move(w).value();
  }
  return FramedWhitening{m_whiteningOfRelease[r], kReleasedM2Frame + static_cast<int>(r)};
}

Result<PrivateRunResult> PrivateRun::run() {
  const double mult = m_o.noiseMultiplier;
  PrivacyDiagnostics& diag = m_res.diagnostics;
  m_res.decision = decidePrivacy(m_o.edges);
  m_res.statement = privacyStatement(statementInputs(m_o, m_corpus.docCount()));
  m_res.noiseSource = m_noise.description();
  if (!m_res.statement.isPrivate()) m_res.warnings.push_back(m_res.statement.summary);
  for (const std::string& c : m_res.statement.cautions) m_res.warnings.push_back(c);
  if (!m_noise.isSecure()) {
    m_res.warnings.push_back("noise from a seeded generator (" + m_noise.description() +
                             "): reproducible, for teaching and tests, not for releasing real data");
  }

  // Every row names its node, mechanism, formula and share before anything is drawn, so a run
  // that stops early still shows what each release would have been.
  m_plan = planReleases(m_o.edges, m_o.shareReleases, m_o.bounds);
  auto shares = splitBudget(m_o.epsilon, m_o.delta, static_cast<int>(m_plan.size()), m_o.splitWeights);
  if (!shares.ok()) return shares.status();
  for (std::size_t i = 0; i < m_plan.size(); ++i) {
    const PlannedRelease& p = m_plan[i];
    LedgerEntry e;
    e.release = p.name;
    e.node = p.kind == ReleaseKind::SigmaK     ? "sigma_k"
             : p.kind == ReleaseKind::Eigengap ? "eigengap"
             : p.kind == ReleaseKind::GammaS   ? "gamma_s"
                                               : nodeName(p.node);
    e.edges = p.edges;
    e.bounds = boundSetName(m_o.bounds);
    e.epsilon = shares.value()[i].epsilon;
    e.delta = shares.value()[i].delta;
    e.sigma = std::nan("");
    e.mechanism = p.kind == ReleaseKind::Node ? mechanismName(m_o.mechanism) : "laplace (Procedure 1 lower bound)";
    describeRow(e, p);
    m_res.ledger.push_back(std::move(e));
  }

  // ---- Procedure 1: private lower bounds, each decided on released or public values only ----
  std::size_t idx = 0;
  for (; idx < m_plan.size() && m_plan[idx].kind != ReleaseKind::Node; ++idx) {
    LedgerEntry& e = m_res.ledger[idx];
    const SensitivityBound b = describeRow(e, m_plan[idx]);
    diag.preconditions.insert(diag.preconditions.end(), b.preconditions.begin(), b.preconditions.end());
    if (!b.usable) {
      return fail(StatusCode::NothingReleased,
                  "nothing released: the " + e.node + " sensitivity cannot be evaluated: " + failedPreconditions(b));
    }
    const bool gamma = m_plan[idx].kind == ReleaseKind::GammaS;
    Status s = exactThrough(gamma ? PipelineStage::Decompose : PipelineStage::Eigen);
    if (!s.isOk()) return exactStageFailed(s);
    const Eigen::VectorXd& sigma = m_exact->eigen.values;
    double value = gamma ? m_exact->gammaS : sigma[m_k - 1];
    // A public cap keeps the eigengap finite when there is no gap to measure (k = d = 1);
    // clamping is 1-Lipschitz, so its sensitivity stays 2Δ2.
    if (m_plan[idx].kind == ReleaseKind::Eigengap) value = std::min(eigengap(sigma, m_k), 4.0 * (1.0 + m_so.alpha0));
    double lower = value;
    e.sigma = 0.0;
    if (mult != 0.0) {  // noise forced off (tests): the bound is the value itself
      auto lb = privateLowerBound(value, b.value * mult, e.epsilon, e.delta, m_noise);
      if (!lb.ok()) return lb.status();
      e.sigma = lb.value().laplaceScale;
      lower = lb.value().lower;
      e.samplerExcess = laplaceSamplerDelta(e.epsilon);  // on top of the failure probability δ_i
    }
    charge(e);
    if (m_plan[idx].kind == ReleaseKind::SigmaK) m_in.sigmaKTilde = *(diag.sigmaKTilde = lower);
    if (m_plan[idx].kind == ReleaseKind::Eigengap) m_in.gapTilde = *(diag.gapTilde = lower);
    if (gamma) m_in.gammaSTilde = *(diag.gammaSTilde = lower);
  }

  // ---- node sensitivities and calibration, all before any node draw ----
  for (std::size_t i = idx; i < m_plan.size(); ++i) {
    LedgerEntry& e = m_res.ledger[i];
    const SensitivityBound b = describeRow(e, m_plan[i]);
    diag.preconditions.insert(diag.preconditions.end(), b.preconditions.begin(), b.preconditions.end());
    for (int edgeId : m_plan[i].edges) m_releaseOfEdge[edgeId] = i;
    if (!b.usable) {
      return fail(StatusCode::NothingReleased, std::string("nothing released: the sensitivity of ") +
                                                   nodeName(m_plan[i].node) +
                                                   " cannot be evaluated: " + failedPreconditions(b));
    }
    e.draws = std::max(1.0, drawsOf(m_plan[i].node, m_corpus.docCount(), m_corpus.vocabSize(), m_k));
  }
  Status calibrated = m_o.accountant == Accountant::GaussianDp ? calibrateGaussianDp(idx) : calibrateEach(idx);
  if (!calibrated.isOk()) return fail(StatusCode::NothingReleased, "nothing released: " + calibrated.message());
  statePrivacyAsDrawn();
  for (std::size_t i = idx; i < m_plan.size(); ++i) charge(m_res.ledger[i]);  // committed from here on
  return releaseAndEvaluate();
}

// The releases in graph order, each canonicalised right after its noise where its value depends
// on the sign frame of the whitened coordinates (W, T, TD, W+), then the graph downstream.
Result<PrivateRunResult> PrivateRun::releaseAndEvaluate() {
  // ---- D: input perturbation (e0, e1) ----
  auto corpusM2 = corpusVia(0);
  if (!corpusM2.ok()) return failAfterNoise(corpusM2.status());
  auto corpusM3 = corpusVia(1);
  if (!corpusM3.ok()) return failAfterNoise(corpusM3.status());
  const bool exactM2 = corpusM2.value().get() == &m_corpus;
  const bool exactM3 = corpusM3.value().get() == &m_corpus;
  // A failure of a stage computed from the exact corpus is a noise-free failure; any other is
  // post-processing of a release.
  auto stageFailed = [&](const Status& s, bool exactInput) {
    return exactInput ? exactStageFailed(s) : failAfterNoise(s);
  };

  // ---- M2 and its releases (e2, e5): W and W+ ----
  auto wNode = whiteningVia(2, exactM2, *corpusM2.value(), true);
  if (!wNode.ok()) return stageFailed(wNode.status(), exactM2 && !noisyEdge(2));

  // ---- W released to T (e4) ----
  Eigen::MatrixXd wForT = wNode.value().w.W;
  int frame = wNode.value().frame;
  if (noisyEdge(4)) {
    Status s = addReleaseNoise(wForT, false, m_o.mechanism, scaleOf(4), m_noise);
    if (!s.isOk()) return failAfterNoise(s);
    wForT = wForT * canonicalColumnSigns(wForT).asDiagonal();
    frame = kCanonicalFrame + 4;
  }
  const bool exactW = !noisyEdge(2) && !noisyEdge(4) && exactM2;

  // ---- T (from M3 via e3 and W via e4) ----
  Tensor3 T;
  const bool exactT = exactW && exactM3 && !noisyEdge(3);
  if (exactT) {
    Status s = exactThrough(PipelineStage::Tensor);
    if (!s.isOk()) return exactStageFailed(s);
    T = m_exact->tensor;
    frame = exactFrame();
  } else {
    // M̂3(W,W,W) for the W that reaches T: a perturbed corpus needs its own document pass; on
    // the pipeline's corpus, the explicit M̂3 for small d (prepared on first use), else a pass.
    auto whitenedM3 = [&]() -> Result<Tensor3> {
      if (!exactM3) return whitenedThirdMoment(*corpusM3.value(), m_so.alpha0, wForT, m_feedback);
      DPLDA_RETURN_IF_ERROR(m_pipeline.prepareExplicitThirdMoment(m_feedback));
      return m_pipeline.whitenedTensor(wForT, m_feedback);
    };
    auto t = whitenedM3();
    if (!t.ok()) return failAfterNoise(t.status());
    T = std::move(t).value();
    if (noisyEdge(3) && scaleOf(3) > 0.0) {  // the M3 release, seen through W: √6·sym(G)(W,W,W)
      auto e = sampleProjectedM3Noise(wForT, scaleOf(3), m_noise);
      if (!e.ok()) return failAfterNoise(e.status());
      T += e.value();
    }
  }
  TensorEigenpairs td;
  const bool decomposePrivately = noisyEdge(6) && m_o.privateDecomposition;
  if (decomposePrivately) {
    // TD released by Algorithm 3 on T̂ (docs/TENSOR_METHODS.md §2.5): fresh starts from the noise
    // source (T̂ is bounded only up to its sign frame), eigenvectors canonicalised like a TD release.
    LedgerEntry& e = m_res.ledger[m_releaseOfEdge.at(6)];
    auto pd = releasePrivateDecomposition(T, e.sensitivity, e.epsilon, e.delta, m_o.decompositionAccountant, 0,
                                          kPrivateDecompositionIterations, m_noise, m_noise, m_feedback);
    if (!pd.ok()) return failAfterNoise(pd.status());
    td = std::move(pd.value().pairs);
    td.V = canonicalRowSigns(td.V).asDiagonal() * td.V;
    frame = kCanonicalFrame + 6;
  } else if (noisyEdge(6)) {
    if (scaleOf(6) > 0.0) {
      Status s = addSymmetricTensorNoise(T, scaleOf(6), m_noise);  // Gaussian only (validated)
      if (!s.isOk()) return failAfterNoise(s);
    }
    applyCoordinateSigns(T, canonicalTensorSigns(T));
    frame = kCanonicalFrame + 6;
  }

  // ---- TD (e6 -> decomposition), released via e7 ----
  if (decomposePrivately) {
    // released above
  } else if (exactT && !noisyEdge(6)) {
    Status s = exactThrough(PipelineStage::Decompose);
    if (!s.isOk()) return exactStageFailed(s);
    td = m_exact->eigenpairs;
  } else {
    auto decomposer = makeDecomposer(m_so.decomposer, m_so.power);
    if (!decomposer.ok()) return decomposer.status();
    SeededRandom init(m_so.initSeed);
    auto r = decomposer.value()->decompose(T, init, m_feedback);
    if (!r.ok()) return failAfterNoise(r.status());
    td = std::move(r).value();
  }
  if (noisyEdge(7)) {
    Eigen::MatrixXd lambda = td.lambda;
    Status s1 = addReleaseNoise(lambda, false, m_o.mechanism, scaleOf(7), m_noise);
    Status s2 = addReleaseNoise(td.V, false, m_o.mechanism, scaleOf(7), m_noise);
    if (!s1.isOk() || !s2.isOk()) return failAfterNoise(s1.isOk() ? s2 : s1);
    // Released up to order and signs: sorted by the noisy λ, rows in the row-sum convention.
    TensorEigenpairs released = sortedPositive(lambda.col(0), td.V);
    released.V = canonicalRowSigns(released.V).asDiagonal() * released.V;
    td.lambda = released.lambda;
    td.V = released.V;
    frame = kCanonicalFrame + 7;
  }

  // ---- W+ (via e5 or exact), released via e8 ----
  auto wPlusNode = whiteningVia(5, exactM2, *corpusM2.value(), !noisyEdge(2));
  if (!wPlusNode.ok()) return stageFailed(wPlusNode.status(), exactM2 && !noisyEdge(5));
  Eigen::MatrixXd unwhiteningMatrix = wPlusNode.value().w.unwhitening;
  int unwhiteningFrame = wPlusNode.value().frame;
  if (noisyEdge(8)) {
    Status s = addReleaseNoise(unwhiteningMatrix, false, m_o.mechanism, scaleOf(8), m_noise);
    if (!s.isOk()) return failAfterNoise(s);
    unwhiteningMatrix = unwhiteningMatrix * canonicalColumnSigns(unwhiteningMatrix).asDiagonal();
    unwhiteningFrame = kCanonicalFrame + 8;
  }
  // Two frames from different sources meet here: align them from released values only. Two
  // released M2 eigenbases share the largest-entry convention and are left as they are.
  if (frame != unwhiteningFrame && !(fromReleasedM2(frame) && fromReleasedM2(unwhiteningFrame))) {
    td.V = alignToUnwhitening(td, unwhiteningMatrix, m_so.alpha0).asDiagonal() * td.V;
  }
  m_res.eigenpairs = td;

  // ---- U, released via e9 ----
  auto u = unwhiten(td, unwhiteningMatrix, m_so.alpha0);
  if (!u.ok()) return failAfterNoise(u.status());
  UnwhitenedTopics uValue = std::move(u).value();
  if (noisyEdge(9)) {
    Eigen::MatrixXd alpha = uValue.alpha;
    Status s1 = addReleaseNoise(uValue.topics, false, m_o.mechanism, scaleOf(9), m_noise);
    Status s2 = addReleaseNoise(alpha, false, m_o.mechanism, scaleOf(9), m_noise);
    if (!s1.isOk() || !s2.isOk()) return failAfterNoise(s1.isOk() ? s2 : s1);
    // Released up to the order of the topics: sorted by the noisy α.
    std::vector<int> order(alpha.rows());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return alpha(a, 0) < alpha(b, 0); });
    UnwhitenedTopics sorted{Eigen::VectorXd(alpha.rows()), Eigen::MatrixXd(uValue.topics.rows(), alpha.rows())};
    for (std::size_t i = 0; i < order.size(); ++i) {
      sorted.alpha[static_cast<Eigen::Index>(i)] = alpha(order[i], 0);
      sorted.topics.col(static_cast<Eigen::Index>(i)) = uValue.topics.col(order[i]);
    }
    uValue = std::move(sorted);
  }
  // ---- OUT: post-processing (simplex projection; α clipped at 0) ----
  uValue.alpha = uValue.alpha.cwiseMax(0.0);
  auto out = projectTopicsToSimplex(uValue);
  if (!out.ok()) return failAfterNoise(out.status());
  m_res.output = std::move(out).value();
  m_res.released = true;
  return std::move(m_res);
}

}  // namespace

Result<PrivateRunResult> runPrivate(SpectralPipeline& pipeline, const PrivacyOptions& o, RandomSource& noise,
                                    Feedback* feedback) {
  if (!pipeline.corpus()) return invalidArgument("no corpus loaded");
  const Corpus& c = *pipeline.corpus();
  DPLDA_RETURN_IF_ERROR(validatePrivacyOptions(o, c.docCount(), c.vocabSize(), pipeline.options().topicCount));
  DPLDA_RETURN_IF_ERROR(validateSpectralOptions(pipeline.options(), *pipeline.corpus()));  // public inputs only
  if (o.edges != 0 && pipeline.options().decomposer == "online") {
    return invalidArgument("the online decomposer reads documents in batches, and no sensitivity bound covers "
                           "it; choose robust or simultaneous for a private run");
  }
  Result<PrivateRunResult> r = [&]() -> Result<PrivateRunResult> {
    if (o.edges != 0) return PrivateRun(pipeline, o, noise, feedback).run();
    // No noise: the non-private output, reported as such; its failure is its result.
    PrivateRunResult res;
    res.decision = decidePrivacy(0);
    res.statement = privacyStatement(statementInputs(o, pipeline.corpus()->docCount()));
    res.noiseSource = noise.description();
    res.warnings.push_back(res.decision.explanation);
    auto model = pipeline.run(feedback);
    if (!model.ok()) return model.status();
    res.released = true;
    res.output = model.value().output;
    res.eigenpairs = model.value().eigenpairs;
    return res;
  }();
  if (r.ok() && o.edges != 0 && o.nonPrivateDiagnostics && r.value().status.code() != StatusCode::Cancelled) {
    addNonPrivateDiagnostics(pipeline, r.value(), feedback);
  }
  return r;
}

}  // namespace dplda
