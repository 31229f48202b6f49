#include "core/pipeline/private_run.h"

#include <cmath>
#include <map>
#include <memory>
#include <sstream>

#include "core/privacy/noise.h"

namespace dplda {

namespace {

// Dense d x d matrices above this many entries are refused (2 GiB).
constexpr double kMaxDenseEntries = 268435456.0;
// Input perturbation draws N x d values; above this it is refused.
constexpr double kMaxInputPerturbationEntries = 2.0e9;

std::string describe(double x) {
  std::ostringstream s;
  s.precision(4);
  s << x;
  return s.str();
}

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
    return Status(StatusCode::ResourceLimit, "input perturbation would draw " + describe(entries) +
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

}  // namespace

Status validatePrivacyOptions(const PrivacyOptions& o) {
  if (o.edges == 0) return Status::ok();  // the non-private baseline; nothing to calibrate
  DPLDA_RETURN_IF_ERROR(validatePrivacyParameters(o.epsilon, o.delta));
  if (o.edges >= (1u << kEdgeCount)) return invalidArgument("the edge set names an edge beyond e9");
  if (!std::isfinite(o.maxLength) || o.maxLength < 3.0) {
    return invalidArgument("the clipping length L_max must be a finite number >= 3, got " + describe(o.maxLength));
  }
  if (!std::isfinite(o.noiseMultiplier) || o.noiseMultiplier < 0.0) {
    return invalidArgument("the noise multiplier must be a finite number >= 0, got " + describe(o.noiseMultiplier));
  }
  if (o.mechanism == Mechanism::PrintedClosedForm) {
    return invalidArgument(
        "the printed closed-form Gaussian (2 epsilon in the denominator) is not differentially private for "
        "epsilon above about 0.36 at delta = 1e-5; it is offered only as a demonstration, never for a release");
  }
  if (o.mechanism == Mechanism::Laplace && contains(o.edges, 3)) {
    return invalidArgument("Laplace noise on M3 (edge e3) has no projected sampler; use a Gaussian mechanism");
  }
  if (!o.splitWeights.empty()) {  // one weight per release, each finite and > 0
    const int releases = static_cast<int>(planReleases(o.edges, o.shareReleases).size());
    DPLDA_RETURN_IF_ERROR(splitBudget(o.epsilon, o.delta, releases, o.splitWeights).status());
  }
  return Status::ok();
}

Result<PrivateRunResult> runPrivate(SpectralPipeline& pipeline, const PrivacyOptions& o, RandomSource& noise,
                                    Feedback* feedback) {
  DPLDA_RETURN_IF_ERROR(validatePrivacyOptions(o));
  auto modelResult = pipeline.run(feedback);
  if (!modelResult.ok()) return modelResult.status();
  const SpectralModel& model = modelResult.value();
  const Corpus& corpus = *pipeline.corpus();
  const SpectralOptions& so = pipeline.options();
  const int k = so.topicCount;
  const double mult = o.noiseMultiplier;

  PrivateRunResult res;
  res.decision = decidePrivacy(o.edges);
  res.noiseSource = noise.description();
  PrivacyDiagnostics& diag = res.diagnostics;
  diag.sigmaK = model.whitening.sigmaK();
  diag.sigmaKPlus1 = model.whitening.sigma.size() > k ? model.whitening.sigma[k] : 0.0;
  diag.gammaS = model.gammaS;
  if (!res.decision.isPrivate) res.warnings.push_back(res.decision.explanation);
  if (o.edges != 0) {
    if (o.bounds == BoundSet::Printed) {
      res.warnings.push_back("bounds as printed in the papers: reproduces their figures, not the sound set");
    }
    if (mult != 1.0) {
      res.warnings.push_back("noise scales multiplied by " + describe(mult) + ": NOT the calibrated release");
    }
    if (!noise.isSecure()) {
      res.warnings.push_back("noise from a seeded generator (" + noise.description() +
                             "): reproducible, for teaching and tests, not for releasing real data");
    }
  }
  // The whitening-stability condition uses the data itself: a diagnostic, never released.
  const double delta2 = secondMomentSensitivity(corpus.docCount(), so.alpha0);
  diag.preconditions.push_back({"Delta2 <= sigma_k - sigma_k+1 (whitening stability; checked on the non-private M2)",
                                delta2 <= model.whitening.gap(),
                                describe(delta2) + " <= " + describe(model.whitening.gap())});

  if (o.edges == 0) {  // no noise: the non-private output, reported as such
    res.released = true;
    res.output = model.output;
    res.eigenpairs = model.eigenpairs;
    return res;
  }

  const std::vector<PlannedRelease> plan = planReleases(o.edges, o.shareReleases);
  auto shares = splitBudget(o.epsilon, o.delta, static_cast<int>(plan.size()), o.splitWeights);
  if (!shares.ok()) return shares.status();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    LedgerEntry e;
    e.release = plan[i].name;
    e.node = plan[i].kind == ReleaseKind::SigmaK ? "sigma_k"
             : plan[i].kind == ReleaseKind::GammaS ? "gamma_s"
                                                   : nodeName(plan[i].node);
    e.edges = plan[i].edges;
    e.bounds = boundSetName(o.bounds);
    e.epsilon = shares.value()[i].epsilon;
    e.delta = shares.value()[i].delta;
    e.sensitivity = e.sigma = std::nan("");
    res.ledger.push_back(std::move(e));
  }
  auto charge = [&](LedgerEntry& e) {
    e.spent = true;
    res.epsilonSpent += e.epsilon;
    res.deltaSpent += e.delta;
  };
  auto fail = [&](StatusCode code, const std::string& why) {
    res.released = false;
    res.status = Status(code, why);
    return Result<PrivateRunResult>(std::move(res));
  };

  // ---- Procedure 1 ----
  SensitivityInputs in{corpus.docCount(), k, so.alpha0, 0.0, 0.0, o.maxLength};
  std::size_t idx = 0;
  auto lowerBound = [&](LedgerEntry& e, const SensitivityBound& b, double value) -> Result<double> {
    e.mechanism = "laplace (Procedure 1 lower bound)";
    e.sensitivity = b.value;
    e.sensitivityFormula = b.formula;
    e.preconditions = b.preconditions;
    e.note = b.note;
    if (mult == 0.0) {  // noise forced off: the bound is the value itself
      e.sigma = 0.0;
      charge(e);
      return value;
    }
    auto lb = privateLowerBound(value, b.value * mult, e.epsilon, e.delta, noise);
    if (!lb.ok()) return lb.status();
    e.sigma = lb.value().laplaceScale;
    charge(e);
    return lb.value().lower;
  };
  if (idx < plan.size() && plan[idx].kind == ReleaseKind::SigmaK) {
    const SensitivityBound b = sigmaKSensitivity(in, o.bounds);
    auto lower = lowerBound(res.ledger[idx], b, diag.sigmaK);
    if (!lower.ok()) return lower.status();
    in.sigmaKTilde = lower.value();
    diag.sigmaKTilde = in.sigmaKTilde;
    ++idx;
  }
  if (idx < plan.size() && plan[idx].kind == ReleaseKind::GammaS) {
    const SensitivityBound b = gammaSSensitivity(in, o.bounds);
    LedgerEntry& e = res.ledger[idx];
    if (!b.usable) {
      e.mechanism = "laplace (Procedure 1 lower bound)";
      e.sensitivityFormula = b.formula;
      e.preconditions = b.preconditions;
      diag.preconditions.insert(diag.preconditions.end(), b.preconditions.begin(), b.preconditions.end());
      return fail(StatusCode::NothingReleased,
                  "nothing released: the gamma_s sensitivity cannot be evaluated: " + failedPreconditions(b));
    }
    auto lower = lowerBound(e, b, diag.gammaS);
    if (!lower.ok()) return lower.status();
    in.gammaSTilde = lower.value();
    diag.gammaSTilde = in.gammaSTilde;
    ++idx;
  }

  // ---- node sensitivities and calibration, all before any node draw ----
  std::map<int, std::size_t> releaseOfEdge;  // edge -> ledger/plan index
  for (std::size_t i = idx; i < plan.size(); ++i) {
    LedgerEntry& e = res.ledger[i];
    SensitivityBound b = sensitivityOf(plan[i].node, in, o.bounds);
    if (plan[i].node == Node::D && o.mechanism == Mechanism::Laplace) {
      b.value = 2.0 * o.maxLength;  // ℓ1: two documents of at most L_max tokens
      b.formula = "2 L_max (l1, clipped counts)";
    }
    e.sensitivity = b.usable ? b.value : std::nan("");
    e.sensitivityFormula = b.formula;
    e.preconditions = b.preconditions;
    e.note = b.note;
    e.mechanism = mechanismName(o.mechanism);
    diag.preconditions.insert(diag.preconditions.end(), b.preconditions.begin(), b.preconditions.end());
    for (int edgeId : plan[i].edges) releaseOfEdge[edgeId] = i;
    if (!b.usable) {
      return fail(StatusCode::NothingReleased, std::string("nothing released: the sensitivity of ") +
                                                   nodeName(plan[i].node) +
                                                   " cannot be evaluated: " + failedPreconditions(b));
    }
    auto cal = calibrate(o.mechanism, e.epsilon, e.delta, b.value);
    if (!cal.ok()) {
      return Status(cal.status().code(), "release of " + plan[i].name + ": " + cal.status().message());
    }
    e.sigma = cal.value().scale * mult;
  }
  for (std::size_t i = idx; i < plan.size(); ++i) charge(res.ledger[i]);  // committed from here on

  auto noisyEdge = [&](int e) { return releaseOfEdge.count(e) > 0; };
  auto scaleOf = [&](int e) { return res.ledger[releaseOfEdge.at(e)].sigma; };
  auto failAfterNoise = [&](const Status& s) {
    return fail(s.code() == StatusCode::Cancelled ? StatusCode::Cancelled : StatusCode::NumericalFailure,
                "the releases were made but the output could not be computed from them: " + s.message());
  };

  // ---- D: input perturbation (e0, e1) ----
  std::map<std::size_t, std::shared_ptr<const Corpus>> perturbed;
  auto corpusVia = [&](int e) -> Result<std::shared_ptr<const Corpus>> {
    if (!noisyEdge(e)) return std::shared_ptr<const Corpus>(pipeline.corpus());
    const std::size_t r = releaseOfEdge.at(e);
    if (!perturbed.count(r)) {
      auto c = perturbCorpus(corpus, o.maxLength, o.mechanism, res.ledger[r].sigma, noise);
      if (!c.ok()) return c.status();
      perturbed[r] = std::make_shared<const Corpus>(std::move(c).value());
    }
    return perturbed[r];
  };
  auto corpusM2 = corpusVia(0);
  if (!corpusM2.ok()) return failAfterNoise(corpusM2.status());
  auto corpusM3 = corpusVia(1);
  if (!corpusM3.ok()) return failAfterNoise(corpusM3.status());
  const bool exactM2 = corpusM2.value().get() == &corpus;
  const bool exactM3 = corpusM3.value().get() == &corpus;

  // ---- M2 and its releases (e2, e5) ----
  std::optional<Eigen::MatrixXd> m2Value;
  auto m2 = [&]() -> Result<Eigen::MatrixXd> {
    if (!m2Value) {
      const double d = corpus.vocabSize();
      if (d * d > kMaxDenseEntries) {
        return Status(StatusCode::ResourceLimit, "releasing M2 needs a dense " + describe(d) + " x " +
                                                     describe(d) + " matrix; reduce the vocabulary");
      }
      auto v = exactM2 ? pipeline.secondMomentDense(feedback) : secondMomentDense(*corpusM2.value(), so.alpha0);
      if (!v.ok()) return v.status();
      m2Value = std::move(v).value();
    }
    return *m2Value;
  };
  std::map<std::size_t, Whitening> whiteningOfRelease;
  // The whitening a node receives over edge e (e2 for W, e5 for W+).
  auto whiteningVia = [&](int e, bool recordEigenvalues) -> Result<Whitening> {
    if (!noisyEdge(e)) {
      if (exactM2) return model.whitening;
      auto base = m2();
      if (!base.ok()) return base.status();
      return whitenMatrix(base.value(), k, nullptr);
    }
    const std::size_t r = releaseOfEdge.at(e);
    if (!whiteningOfRelease.count(r)) {
      auto base = m2();
      if (!base.ok()) return base.status();
      Eigen::MatrixXd released = base.value();
      DPLDA_RETURN_IF_ERROR(addReleaseNoise(released, true, o.mechanism, res.ledger[r].sigma, noise));
      auto w = whitenMatrix(released, k, recordEigenvalues ? &diag.releasedEigenvalues : nullptr);
      if (!w.ok()) return w.status();
      whiteningOfRelease[r] = std::move(w).value();
    }
    return whiteningOfRelease[r];
  };
  auto wNode = whiteningVia(2, true);
  if (!wNode.ok()) return failAfterNoise(wNode.status());
  auto wPlusNode = whiteningVia(5, !noisyEdge(2));
  if (!wPlusNode.ok()) return failAfterNoise(wPlusNode.status());

  // ---- W released to T (e4) ----
  Eigen::MatrixXd wForT = wNode.value().W;
  if (noisyEdge(4)) {
    Status s = addReleaseNoise(wForT, false, o.mechanism, scaleOf(4), noise);
    if (!s.isOk()) return failAfterNoise(s);
  }
  const bool exactW = !noisyEdge(2) && !noisyEdge(4) && exactM2;

  // ---- T (from M3 via e3 and W via e4) ----
  Tensor3 T;
  const bool exactT = exactW && exactM3 && !noisyEdge(3);
  if (exactT) {
    T = model.tensor;
  } else {
    // M̂3(W,W,W) for the W that reaches T. A perturbed corpus needs its own document pass. On
    // the pipeline's corpus, its own W (a zero-noise release) reuses its cached T̂, so the
    // noise-free path stays bit-identical; any other W (configuration 1) is a contraction of
    // the pipeline's explicit M̂3 for small d, prepared on first use and kept for later runs
    // (~0.1 ms instead of a 10-40 ms document pass at d = 50, N = 1e5), else a document pass.
    auto whitenedM3 = [&]() -> Result<Tensor3> {
      if (!exactM3) return whitenedThirdMoment(*corpusM3.value(), so.alpha0, wForT, feedback);
      const Eigen::MatrixXd& own = model.whitening.W;
      if (wForT.rows() == own.rows() && wForT.cols() == own.cols() && wForT == own) return model.tensor;
      DPLDA_RETURN_IF_ERROR(pipeline.prepareExplicitThirdMoment(feedback));
      return pipeline.whitenedTensor(wForT, feedback);
    };
    auto t = whitenedM3();
    if (!t.ok()) return failAfterNoise(t.status());
    T = std::move(t).value();
    if (noisyEdge(3) && scaleOf(3) > 0.0) {  // the M3 release, seen through W: √6·sym(G)(W,W,W)
      auto e = sampleProjectedM3Noise(wForT, scaleOf(3), noise);
      if (!e.ok()) return failAfterNoise(e.status());
      T += e.value();
    }
  }
  if (noisyEdge(6) && scaleOf(6) > 0.0) {
    Status s = o.mechanism == Mechanism::Laplace ? addSymmetricTensorLaplaceNoise(T, scaleOf(6), noise)
                                                 : addSymmetricTensorNoise(T, scaleOf(6), noise);
    if (!s.isOk()) return failAfterNoise(s);
  }

  // ---- TD (e6 -> decomposition), released via e7 ----
  TensorEigenpairs td;
  if (exactT && !noisyEdge(6)) {
    td = model.eigenpairs;
  } else {
    auto decomposer = makeDecomposer(so.decomposer, so.power);
    if (!decomposer.ok()) return decomposer.status();
    SeededRandom init(so.initSeed);
    auto r = decomposer.value()->decompose(T, init, feedback);
    if (!r.ok()) return failAfterNoise(r.status());
    td = std::move(r).value();
  }
  if (noisyEdge(7)) {
    Eigen::MatrixXd lambda = td.lambda;
    Status s1 = addReleaseNoise(lambda, false, o.mechanism, scaleOf(7), noise);
    Status s2 = addReleaseNoise(td.V, false, o.mechanism, scaleOf(7), noise);
    if (!s1.isOk() || !s2.isOk()) return failAfterNoise(s1.isOk() ? s2 : s1);
    td.lambda = lambda.col(0);
  }
  res.eigenpairs = td;

  // ---- U (TD via e7, W+ via e8), released via e9 ----
  Eigen::MatrixXd unwhiteningMatrix = wPlusNode.value().unwhitening;
  if (noisyEdge(8)) {
    Status s = addReleaseNoise(unwhiteningMatrix, false, o.mechanism, scaleOf(8), noise);
    if (!s.isOk()) return failAfterNoise(s);
  }
  auto u = unwhiten(td, unwhiteningMatrix, so.alpha0);
  if (!u.ok()) return failAfterNoise(u.status());
  UnwhitenedTopics uValue = std::move(u).value();
  if (noisyEdge(9)) {
    Eigen::MatrixXd alpha = uValue.alpha;
    Status s1 = addReleaseNoise(uValue.topics, false, o.mechanism, scaleOf(9), noise);
    Status s2 = addReleaseNoise(alpha, false, o.mechanism, scaleOf(9), noise);
    if (!s1.isOk() || !s2.isOk()) return failAfterNoise(s1.isOk() ? s2 : s1);
    uValue.alpha = alpha.col(0);
  }
  // ---- OUT: post-processing (simplex projection; α clipped at 0) ----
  uValue.alpha = uValue.alpha.cwiseMax(0.0);
  auto out = projectTopicsToSimplex(uValue);
  if (!out.ok()) return failAfterNoise(out.status());
  res.output = std::move(out).value();
  res.released = true;
  return res;
}

}  // namespace dplda
