#include "core/pipeline/private_run.h"

#include <algorithm>
#include <cmath>

#include "core/common/number_text.h"
#include "core/pipeline/private_run_detail.h"
#include "core/privacy/noise.h"
#include "core/tensor/private_power_method.h"

namespace dplda {

namespace detail {

// Noise for one release, Gaussian or Laplace, on all entries or on the unique entries of a
// symmetric matrix (mirrored).
Status addReleaseNoise(Eigen::MatrixXd& x, bool symmetric, Mechanism m, double scale, RandomSource& rng) {
  if (scale == 0.0) return Status::ok();
  if (m != Mechanism::Laplace) {
    return symmetric ? addSymmetricMatrixNoise(x, scale, rng) : addGaussianNoise(x, scale, rng);
  }
  return symmetric ? addSymmetricMatrixLaplaceNoise(x, scale, rng) : addLaplaceNoise(x, scale, rng);
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
// of a symmetric matrix or tensor, k^3 for the projected M3 noise (Gaussian), the d(d+1)(d+2)/6
// unique entries of the explicit M3 (Laplace), every entry otherwise.
double drawsOf(Node node, double N, double d, double k, Mechanism m) {
  switch (node) {
    case Node::D: return N * d;
    case Node::M2: return d * (d + 1) / 2;
    case Node::M3: return m == Mechanism::Laplace ? d * (d + 1) * (d + 2) / 6 : k * k * k;
    case Node::W:
    case Node::Wplus: return d * k;
    case Node::T: return k * (k + 1) * (k + 2) / 6;
    case Node::TD: return k * k + k;
    case Node::U: return d * k + k;
    case Node::OUT: break;
  }
  return 1.0;
}

}  // namespace detail

using namespace detail;

StatementInputs statementInputs(const PrivacyOptions& o, int docCount, const MomentClip& clip,
                                VocabularyOrigin vocabulary) {
  return {o.edges, o.shareReleases, o.bounds,       o.epsilon,  o.delta, o.noiseMultiplier, docCount, o.whitened.enabled,
          clip,    vocabulary,      o.mechanism};
}

void chargeVocabularySelection(PrivateRunResult& res, const CorpusProvenance& provenance) {
  if (provenance.vocabulary != VocabularyOrigin::PrivateSelection) return;
  const VocabularySelectionRecord& v = provenance.selection;
  LedgerEntry e;
  e.release = "vocabulary (private partition selection, at import)";
  e.node = "vocabulary";
  e.mechanism = "gaussian partition selection";
  e.sensitivity = v.sensitivity;
  e.sensitivityFormula = "sqrt(2m), m = " + std::to_string(v.maxWordsPerDocument) +
                         " words per document (docs/PRIVACY.md §13)";
  e.bounds = "sound";
  e.epsilon = v.epsilon;
  e.delta = v.delta;
  e.sigma = v.sigma;
  e.spent = true;
  e.note = "threshold " + shortNumber(v.threshold) + " documents; spent when the corpus was imported" +
           std::string(v.noiseSource == kReusedSelectionSource
                           ? " (this import reused the selection released at an earlier one: the same release)"
                           : "") +
           ", composed with the releases below by basic composition";
  res.ledger.insert(res.ledger.begin(), std::move(e));
  res.epsilonSpent += v.epsilon;
  res.deltaSpent += v.delta;
  res.deltaAsDrawn += v.delta;
  res.composition += "; plus the private vocabulary selection (epsilon " + shortNumber(v.epsilon) + ", delta " +
                     shortNumber(v.delta) + ") by basic composition";
  if (res.statement.isPrivate()) {
    if (res.statement.pureEpsilon) {  // the selection's delta makes the whole run (epsilon, delta)-DP
      res.statement.pureEpsilon = false;
      res.statement.summary = "Private: (epsilon, delta)-DP for replacing one document: the releases of the run are "
                              "Laplace noise on proven l1 bounds (pure, docs/PRIVACY.md §18), the vocabulary "
                              "selection is not pure.";
    }
    res.statement.summary += std::string(" ") + vocabularyChargedText(v);
  }
  if (v.noiseSource.rfind("seeded", 0) == 0) {
    res.warnings.push_back("the vocabulary selection's noise was " + v.noiseSource +
                           ": reproducible, for teaching and tests, not for releasing real data");
  }
}

// Clipping inside configurations 1–4 (docs/PRIVACY.md §12) is proven for the sound set's Gaussian
// releases of the moments and what is computed from them.
Status validateMomentClipping(const PrivacyOptions& o, const MomentClip& clip) {
  if (!clip.enabled || o.edges == 0) return Status::ok();
  DPLDA_RETURN_IF_ERROR(validateMomentClip(clip));
  if (o.whitened.enabled) {
    return invalidArgument("the whitened release clips its own terms (C1, C2, C); moment clipping (C3) applies to "
                           "the papers' configurations 1-4");
  }
  if (o.bounds != BoundSet::Sound) {
    return invalidArgument("moment clipping has sensitivities in the sound bound set only (docs/PRIVACY.md §12); "
                           "the printed set reproduces the papers' unclipped estimators");
  }
  if (o.mechanism == Mechanism::Laplace) {
    return invalidArgument("moment clipping bounds Frobenius norms (an l2 sensitivity); Laplace noise needs an l1 "
                           "bound: use a Gaussian mechanism");
  }
  if (contains(o.edges, 0) || contains(o.edges, 1)) {
    return invalidArgument("input perturbation (e0, e1) releases the counts, which moment clipping does not "
                           "bound; its sensitivity comes from L_max");
  }
  return Status::ok();
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
    // Laplace is not rotation invariant: no projected draw exists, the release is the explicit
    // d x d x d M3 with noise on its d(d+1)(d+2)/6 unique entries (docs/PRIVACY.md §18).
    if (contains(o.edges, 3) && vocabSize > kMaxLaplaceM3Vocab) {
      return invalidArgument(
          "Laplace noise on M3 (edge e3) is drawn on the explicit d x d x d tensor: d = " + std::to_string(vocabSize) +
          " is above the limit d <= " + std::to_string(kMaxLaplaceM3Vocab) + " (" +
          shortNumber(explicitThirdMomentBytes(vocabSize) / 1048576.0) + " MiB for the noise tensor, " +
          shortNumber(static_cast<double>(vocabSize) * (vocabSize + 1.0) * (vocabSize + 2.0) / 6.0) +
          " noise draws); use a Gaussian mechanism (--mechanism analytic), whose projected noise works at any d");
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
  if (o.whitened.enabled) DPLDA_RETURN_IF_ERROR(validateWhitenedRelease(o));
  const std::vector<PlannedRelease> plan =
      o.whitened.enabled ? whitenedReleasePlan() : planReleases(o.edges, o.shareReleases, o.bounds);
  auto shares = splitBudget(o.epsilon, o.delta, static_cast<int>(plan.size()), o.splitWeights);
  if (!shares.ok()) return shares.status();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].kind != ReleaseKind::Node || o.accountant == Accountant::GaussianDp) continue;
    const double draws = std::max(1.0, drawsOf(plan[i].node, docCount, vocabSize, topicCount, o.mechanism));
    auto cal = calibrate(o.mechanism, shares.value()[i].epsilon, shares.value()[i].delta, 1.0, draws);
    if (!cal.ok()) return Status(cal.status().code(), "release of " + plan[i].name + ": " + cal.status().message());
  }
  return Status::ok();
}

namespace {

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
  SensitivityInputs in;
  in.docCount = pipeline.corpus()->docCount();
  in.alpha0 = so.alpha0;
  in.clip = so.clip;
  const double delta2 = delta2Of(in);
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
  if (const auto& sc = pipeline.clipScales()) {
    np.clipped.m1 = sc->fractionClippedM1;
    np.clipped.m2 = sc->fractionClippedM2;
    np.clipped.m3 = sc->fractionClippedM3;
  }
  np.available = true;
}

}  // namespace

namespace detail {

SensitivityBound PrivateRun::boundOf(const PlannedRelease& r) const {
  switch (r.kind) {
    case ReleaseKind::SigmaK: return sigmaKSensitivity(m_in, m_o.bounds);
    case ReleaseKind::Eigengap: return eigengapSensitivity(m_in);
    case ReleaseKind::GammaS: return gammaSSensitivity(m_in, m_o.bounds);
    case ReleaseKind::Node: break;
  }
  if (m_o.whitened.enabled) return whitenedReleaseBound(r.node, m_in, m_o.whitened);
  SensitivityBound b = sensitivityOf(r.node, m_in, m_o.bounds);
  if (r.node == Node::D && m_o.mechanism == Mechanism::Laplace) {
    b.value = 2.0 * m_o.maxLength;  // ℓ1: two documents of at most L_max tokens
    b.formula = "2 L_max (l1, clipped counts)";
  }
  if (m_o.mechanism == Mechanism::Laplace && r.node == Node::M2) {
    b.formula = "l1 over the unique entries <= l1 of the d x d array <= " + b.formula + " (docs/PRIVACY.md §18)";
  }
  if (m_o.mechanism == Mechanism::Laplace && r.node == Node::M3) {
    b.formula = "l1 of the orbit sums m(u) M3_u (u: i <= j <= l; m(u) = 1, 3, 6 its permutations) = l1 of the d x d x d "
                "array <= " + b.formula + " (docs/PRIVACY.md §18, Lemma L3)";
  }
  return b;
}

// validateNoiseParameter (core/privacy/mechanisms.h) with the row's name and formula, so that the
// message names the parameter (e.g. "C = 1e-108") whose value made the release degenerate.
Status validateRowSensitivity(const LedgerEntry& e) {
  return validateNoiseParameter("the sensitivity of " + e.release + " (" + e.sensitivityFormula + ")", e.sensitivity);
}

Status validateRowScale(const LedgerEntry& e, double calibratedSigma) {
  return validateNoiseParameter("the noise scale sigma of " + e.release + " (sensitivity " +
                                    shortNumber(e.sensitivity) + ": " + e.sensitivityFormula + ")",
                                calibratedSigma);
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
      e.queries = q.total();
      DPLDA_RETURN_IF_ERROR(validateRowScale(e, cal.value().multiplier * e.sensitivity));
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
    // The same check basic composition's calibrate applies: a degenerate Δ_i gives σ_i = 0 here.
    DPLDA_RETURN_IF_ERROR(validateRowScale(e, e.sensitivity / e.mu));
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
  // A pure run (every row Laplace, δ_i = 0) has only the samplers' δ; any mechanism is (ε, 1)-DP.
  const double planned = m_res.statement.pureEpsilon ? 0.0 : m_o.delta;
  m_res.deltaAsDrawn = std::min(1.0, planned + excess);
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

// The statement and every row (node, mechanism, formula, share) before anything is drawn, so a
// run that stops early still shows what each release would have been.
Status PrivateRun::startLedger() {
  m_res.decision = decidePrivacy(m_o.edges);
  m_res.statement =
      privacyStatement(statementInputs(m_o, m_corpus.docCount(), m_so.clip, m_corpus.provenance.vocabulary));
  m_res.noiseSource = m_noise.description();
  if (!m_res.statement.isPrivate()) m_res.warnings.push_back(m_res.statement.summary);
  for (const std::string& c : m_res.statement.cautions) m_res.warnings.push_back(c);
  if (!m_noise.isSecure()) {
    m_res.warnings.push_back("noise from a seeded generator (" + m_noise.description() +
                             "): reproducible, for teaching and tests, not for releasing real data");
  }
  m_plan = m_o.whitened.enabled ? whitenedReleasePlan() : planReleases(m_o.edges, m_o.shareReleases, m_o.bounds);
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
    if (p.kind == ReleaseKind::Node && m_o.mechanism == Mechanism::Laplace) {
      e.delta = 0.0;  // pure: the Laplace mechanism on an l1 bound spends no delta
      e.pureEpsilon = true;
      if (p.node == Node::M3) {
        e.mechanism = "laplace on the explicit M3 (scale b on each orbit sum: b on i = j = l, b/3 on two equal "
                      "indices, b/6 on three distinct)";
      }
    }
    describeRow(e, p);
    m_res.ledger.push_back(std::move(e));
  }
  return Status::ok();
}

// Node sensitivities (from public and released values) and the calibration under the run's
// accountant, all before any node draw. A refusal is a status with m_res.status's wording.
Status PrivateRun::calibrateNodes(std::size_t first) {
  PrivacyDiagnostics& diag = m_res.diagnostics;
  for (std::size_t i = first; i < m_plan.size(); ++i) {
    LedgerEntry& e = m_res.ledger[i];
    const SensitivityBound b = describeRow(e, m_plan[i]);
    diag.preconditions.insert(diag.preconditions.end(), b.preconditions.begin(), b.preconditions.end());
    for (int edgeId : m_plan[i].edges) m_releaseOfEdge[edgeId] = i;
    if (!b.usable) {
      return Status(StatusCode::NothingReleased, std::string("nothing released: the sensitivity of ") +
                                                     nodeName(m_plan[i].node) +
                                                     " cannot be evaluated: " + failedPreconditions(b));
    }
    // Every accountant calibrates from this value: a degenerate one (0, subnormal) is refused here.
    DPLDA_RETURN_IF_ERROR(validateRowSensitivity(e));
    e.draws = std::max(1.0, drawsOf(m_plan[i].node, m_corpus.docCount(), m_corpus.vocabSize(), m_k, m_o.mechanism));
  }
  Status calibrated = m_o.accountant == Accountant::GaussianDp ? calibrateGaussianDp(first) : calibrateEach(first);
  if (!calibrated.isOk()) return Status(StatusCode::NothingReleased, "nothing released: " + calibrated.message());
  statePrivacyAsDrawn();
  return Status::ok();
}

Result<PrivateRunResult> PrivateRun::run() {
  const double mult = m_o.noiseMultiplier;
  PrivacyDiagnostics& diag = m_res.diagnostics;
  DPLDA_RETURN_IF_ERROR(startLedger());

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

  if (Status s = calibrateNodes(idx); !s.isOk()) {
    if (s.code() != StatusCode::InvalidArgument) return fail(s.code(), s.message());
    // A degenerate sensitivity: invalid input when nothing has been drawn yet; after Procedure 1's
    // draws, nothing released and the ledger shows what was spent.
    if (idx == 0) return s;
    return fail(StatusCode::NothingReleased, "nothing released: " + s.message());
  }
  for (std::size_t i = idx; i < m_plan.size(); ++i) charge(m_res.ledger[i]);  // committed from here on
  return releaseAndEvaluate();
}

Result<PrivateRunResult> PrivateRun::calibrateOnly() {
  DPLDA_RETURN_IF_ERROR(startLedger());
  if (!m_plan.empty() && m_plan[0].kind != ReleaseKind::Node) {
    return invalidArgument("the releases of " + edgeSetToString(m_o.edges) +
                           " are calibrated to Procedure 1's released lower bounds, which are random: their noise "
                           "scale is not fixed before the run");
  }
  DPLDA_RETURN_IF_ERROR(calibrateNodes(0));
  return std::move(m_res);
}

}  // namespace detail

Result<PrivateRunResult> calibrateRun(SpectralPipeline& pipeline, const PrivacyOptions& o) {
  if (!pipeline.corpus()) return invalidArgument("no corpus loaded");
  if (o.edges == 0) return invalidArgument("the edge set is empty: nothing is released");
  const Corpus& c = *pipeline.corpus();
  DPLDA_RETURN_IF_ERROR(validatePrivacyOptions(o, c.docCount(), c.vocabSize(), pipeline.options().topicCount));
  DPLDA_RETURN_IF_ERROR(validateSpectralOptions(pipeline.options(), c));
  DPLDA_RETURN_IF_ERROR(validateMomentClipping(o, pipeline.options().clip));
  SeededRandom unused(0);  // nothing is drawn
  return PrivateRun(pipeline, o, unused, nullptr).calibrateOnly();
}

Result<PrivateRunResult> runPrivate(SpectralPipeline& pipeline, const PrivacyOptions& o, RandomSource& noise,
                                    Feedback* feedback) {
  if (!pipeline.corpus()) return invalidArgument("no corpus loaded");
  const Corpus& c = *pipeline.corpus();
  DPLDA_RETURN_IF_ERROR(validatePrivacyOptions(o, c.docCount(), c.vocabSize(), pipeline.options().topicCount));
  DPLDA_RETURN_IF_ERROR(validateSpectralOptions(pipeline.options(), *pipeline.corpus()));  // public inputs only
  DPLDA_RETURN_IF_ERROR(validateMomentClipping(o, pipeline.options().clip));
  if (o.edges != 0 && pipeline.options().decomposer == "online") {
    return invalidArgument("the online decomposer reads documents in batches, and no sensitivity bound covers "
                           "it; choose robust or simultaneous for a private run");
  }
  Result<PrivateRunResult> r = [&]() -> Result<PrivateRunResult> {
    if (o.edges != 0) return PrivateRun(pipeline, o, noise, feedback).run();
    // No noise: the non-private output, reported as such; its failure is its result.
    PrivateRunResult res;
    res.decision = decidePrivacy(0);
    res.statement = privacyStatement(statementInputs(o, c.docCount(), pipeline.options().clip, c.provenance.vocabulary));
    res.noiseSource = noise.description();
    res.warnings.push_back(res.decision.explanation);
    auto model = pipeline.run(feedback);
    if (!model.ok()) return model.status();
    res.released = true;
    res.output = model.value().output;
    res.eigenpairs = model.value().eigenpairs;
    return res;
  }();
  if (r.ok() && o.edges != 0) {
    chargeVocabularySelection(r.value(), c.provenance);
    PrivateRunResult& res = r.value();
    res.accounts = compareRunAccountants(res.ledger, res.epsilonSpent, res.deltaSpent);
  }
  if (r.ok() && o.edges != 0 && o.nonPrivateDiagnostics && r.value().status.code() != StatusCode::Cancelled) {
    addNonPrivateDiagnostics(pipeline, r.value(), feedback);
  }
  return r;
}

}  // namespace dplda