#include "core/pipeline/release_audit.h"

#include <array>
#include <cmath>
#include <memory>

#include "core/moments/clipped_moments.h"
#include "core/pipeline/private_run_detail.h"
#include "core/privacy/noise.h"

namespace dplda {

using privacy_audit::AuditedRelease;

namespace {

bool releasesM2WithPublicScale(const PrivacyOptions& o) {
  if (o.edges == 0 || o.whitened.enabled) return false;
  const std::vector<PlannedRelease> plan = planReleases(o.edges, o.shareReleases, o.bounds);
  if (plan.empty() || plan.front().kind != ReleaseKind::Node) return false;  // Procedure 1 decides the scales
  for (const PlannedRelease& r : plan)
    if (r.node == Node::M2) return true;
  return false;
}

// The options of the run whose release is audited, and why they differ from the session's.
PrivacyOptions auditedRun(PrivacyOptions o, AuditedRelease release, std::string& note) {
  if (release == AuditedRelease::SecondMoment) {
    if (releasesM2WithPublicScale(o)) return o;
    o.edges = presetEdges(Preset::Config1);
    o.whitened.enabled = false;
    o.privateDecomposition = false;
    o.splitWeights.clear();
    note = "configuration 1 (e2, e3, e5) with a uniform split: the session's edge set does not release M2 with a "
           "noise scale fixed before the run";
    return o;
  }
  if (!o.whitened.enabled) {
    o.edges = detail::whitenedReleaseEdges();
    o.whitened.enabled = true;
    o.privateDecomposition = false;
    o.bounds = BoundSet::Sound;
    o.splitWeights.clear();
    note = "the whitened release (e2, e5, e6) with a uniform split and the session's clipping bounds";
  }
  return o;
}

// The symmetric matrix / tensor whose unique entries are `u` (the direction the worst neighbour
// moves along), mirrored like the noise functions mirror their draws.
Eigen::MatrixXd symmetricFromUnique(const Eigen::VectorXd& u, Eigen::Index d) {
  Eigen::MatrixXd m(d, d);
  Eigen::Index p = 0;
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = i; j < d; ++j) m(i, j) = m(j, i) = u[p++];
  return m;
}

Tensor3 symmetricFromUnique(const Eigen::VectorXd& u, int k) {
  Tensor3 t(k);
  Eigen::Index p = 0;
  for (int i = 0; i < k; ++i)
    for (int j = i; j < k; ++j)
      for (int l = j; l < k; ++l) {
        const double x = u[p++];
        for (const auto& [a, b, c] : {std::array{i, j, l}, std::array{i, l, j}, std::array{j, i, l},
                                      std::array{j, l, i}, std::array{l, i, j}, std::array{l, j, i}})
          t(a, b, c) = x;
      }
  return t;
}

const LedgerEntry* rowOf(const PrivateRunResult& r, const std::string& node) {
  for (const LedgerEntry& e : r.ledger)
    if (e.node == node) return &e;
  return nullptr;
}

}  // namespace

Result<ReleaseAudit> prepareReleaseAudit(const Corpus& d, SpectralOptions so, PrivacyOptions run,
                                         AuditedRelease release, Feedback* feedback) {
  ReleaseAudit a;
  a.options = auditedRun(std::move(run), release, a.edgeNote);
  const PrivacyOptions& o = a.options;
  if (o.whitened.enabled) so.clip = {};  // the whitened release clips its own terms
  const bool tensor = release == AuditedRelease::WhitenedTensor;

  // The run's own calibration on D (N, d, k are public: D′ has the same).
  SpectralPipeline pipeline;
  pipeline.setCorpus(std::make_shared<const Corpus>(d));
  pipeline.setOptions(so);
  auto calibrated = calibrateRun(pipeline, o);
  if (!calibrated.ok()) return calibrated.status();
  const LedgerEntry* row = rowOf(calibrated.value(), tensor ? "T" : "M2");
  if (!row) return invalidArgument("the calibrated run has no release of " + std::string(tensor ? "T" : "M2"));
  a.row = *row;
  a.composition = calibrated.value().composition;

  // The noise-free values the run adds its noise to.
  Eigen::VectorXd vD, vDp;
  Result<privacy_audit::AdversarialNeighbour> neighbour = invalidArgument("no neighbour");
  if (release == AuditedRelease::SecondMoment) {
    neighbour = privacy_audit::adversarialNeighbour(d);
    if (!neighbour.ok()) return neighbour.status();
    SpectralPipeline other;  // the run reads M̂2 from its pipeline (moment clipping included)
    other.setCorpus(std::make_shared<const Corpus>(neighbour.value().corpus));
    other.setOptions(so);
    for (SpectralPipeline* q : {&pipeline, &other}) {  // as PrivateRun::secondMoment: the moments stage first
      auto m = q->runThrough(PipelineStage::Moments, feedback);
      if (!m.ok()) return m.status();
    }
    auto mD = pipeline.secondMomentDense(feedback);
    if (!mD.ok()) return mD.status();
    auto mDp = other.secondMomentDense(feedback);
    if (!mDp.ok()) return mDp.status();
    a.m2D = std::move(mD).value();
    a.m2DPrime = std::move(mDp).value();
  } else {
    const SecondMomentClip clip = detail::whitenedSecondMomentClip(o.whitened);
    auto mD = clippedSecondMomentDense(d, so.alpha0, clip, feedback);
    if (!mD.ok()) return mD.status();
    if (!tensor) {
      neighbour = privacy_audit::adversarialNeighbour(d);
      if (!neighbour.ok()) return neighbour.status();
      auto mDp = clippedSecondMomentDense(neighbour.value().corpus, so.alpha0, clip, feedback);
      if (!mDp.ok()) return mDp.status();
      a.m2D = std::move(mD).value();
      a.m2DPrime = std::move(mDp).value();
    } else {
      // W is public in the run (whitened from the released M̂2); Lemma C3 holds for any fixed W,
      // so the audit fixes the whitening of D's clipped M̂2 for both corpora.
      auto w = detail::whitenMatrix(mD.value(), so.topicCount, nullptr);
      if (!w.ok()) return w.status();
      const Eigen::MatrixXd& W = w.value().W;
      neighbour = privacy_audit::adversarialNeighbour(d, &W);
      if (!neighbour.ok()) return neighbour.status();
      double c = 0.0;  // C, or ρ_W of the fixed W for whitened/raw
      if (o.whitened.clipToRowBound) {
        c = whitenedRowBound(W);
        DPLDA_RETURN_IF_ERROR(detail::rescaleToRowBound(a.row, d.docCount(), so.alpha0, c, o.noiseMultiplier));
      } else {
        c = whitenedClipBound(o.whitened, so.topicCount, so.alpha0);
      }
      auto tD = clippedWhitenedThirdMoment(d, so.alpha0, W, c, feedback);
      if (!tD.ok()) return tD.status();
      auto tDp = clippedWhitenedThirdMoment(neighbour.value().corpus, so.alpha0, W, c, feedback);
      if (!tDp.ok()) return tDp.status();
      a.tD = std::move(tD.value().tensor);
      a.tDPrime = std::move(tDp.value().tensor);
    }
  }
  vD = tensor ? symmetricUniqueEntries(a.tD) : symmetricUniqueEntries(a.m2D);
  vDp = tensor ? symmetricUniqueEntries(a.tDPrime) : symmetricUniqueEntries(a.m2DPrime);
  const Eigen::VectorXd diff = vD - vDp;
  const double gap = diff.norm();
  if (!(gap > 0) || !std::isfinite(gap)) return numericalFailure("the neighbouring values are equal: nothing to audit");
  a.u = diff / gap;

  privacy_audit::AuditPair& p = a.pair;
  p.release = release;
  p.docCount = d.docCount();
  p.vocabSize = d.vocabSize();
  p.replacedDocument = neighbour.value().replacedDocument;
  p.replacement = neighbour.value().replacement;
  p.sensitivity = a.row.sensitivity;
  p.sensitivityFormula = a.row.sensitivityFormula;
  p.meanD = vD.dot(a.u);
  p.meanDPrime = vDp.dot(a.u);
  return a;
}

privacy_audit::ReleaseSampler releaseSampler(const ReleaseAudit& a, bool worstAllowed) {
  const double sigma = a.row.sigma;
  const double delta = a.pair.sensitivity;
  auto u = std::make_shared<const Eigen::VectorXd>(a.u);
  if (a.pair.release == AuditedRelease::WhitenedTensor) {
    Tensor3 far = a.tDPrime;
    if (worstAllowed) {
      Tensor3 shift = symmetricFromUnique(a.u, a.tD.dim());
      shift *= delta;
      far = a.tD - shift;
    }
    auto values = std::make_shared<const std::array<Tensor3, 2>>(std::array<Tensor3, 2>{a.tD, far});
    return [values, u, sigma](int side, RandomSource& rng) {
      Tensor3 t = (*values)[side];
      if (!addSymmetricTensorNoise(t, sigma, rng).isOk()) return std::nan("");
      return symmetricUniqueEntries(t).dot(*u);
    };
  }
  const Mechanism mechanism = a.options.mechanism;
  auto values = std::make_shared<const std::array<Eigen::MatrixXd, 2>>(std::array<Eigen::MatrixXd, 2>{
      a.m2D, worstAllowed ? Eigen::MatrixXd(a.m2D - delta * symmetricFromUnique(a.u, a.m2D.rows())) : a.m2DPrime});
  return [values, u, sigma, mechanism](int side, RandomSource& rng) {
    Eigen::MatrixXd m = (*values)[side];
    if (!detail::addReleaseNoise(m, true, mechanism, sigma, rng).isOk()) return std::nan("");
    return symmetricUniqueEntries(m).dot(*u);
  };
}

}  // namespace dplda
