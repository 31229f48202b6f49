#pragma once
// Internals of a private run (core/pipeline/private_run.h), shared by its three source files:
// private_run.cpp (Procedure 1, calibration, the ledger), private_release.cpp (the releases on
// the papers' edges and the graph downstream of them) and whitened_release.cpp (the whitened
// release, docs/PRIVACY.md §11). Not part of the library's interface.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/pipeline/private_run.h"

namespace dplda::detail {

// Power steps R of Algorithm 3 when it releases TD on e6 (fixed: it has no early stop).
inline constexpr int kPrivateDecompositionIterations = 30;
// Dense d x d matrices above this many entries are refused (2 GiB).
inline constexpr double kMaxDenseEntries = 268435456.0;
// Input perturbation draws N x d values; above this it is refused.
inline constexpr double kMaxInputPerturbationEntries = 2.0e9;

// Frames of the whitened coordinates (see core/tensor/sign_conventions.h): where the signs of
// the columns of a W, or of the rows of a V, come from.
inline constexpr int kExactFrame = 0;          // the non-private pipeline's eigenvectors
inline constexpr int kReleasedM2Frame = 100;   // + release index: the eigenvectors of a released M2
inline constexpr int kCanonicalFrame = 1000;   // + edge: canonicalised right after the release on that edge
inline bool fromReleasedM2(int frame) { return frame >= kReleasedM2Frame && frame < kCanonicalFrame; }

// Noise for one release, Gaussian or Laplace, on all entries or on the unique entries of a
// symmetric matrix (mirrored).
Status addReleaseNoise(Eigen::MatrixXd& x, bool symmetric, Mechanism m, double scale, RandomSource& rng);
// Input perturbation of the corpus (clip to L_max, noise on every count, round).
Result<Corpus> perturbCorpus(const Corpus& c, double maxLength, Mechanism m, double scale, RandomSource& rng);
// W and W+ from a symmetric matrix's top-k eigenpairs; σ_1..σ_{k+1} into *eigenvalues if given.
Result<Whitening> whitenMatrix(const Eigen::MatrixXd& m2, int k, Eigen::VectorXd* eigenvalues);
std::string failedPreconditions(const SensitivityBound& b);
// Noise values one release draws (the samplers' tail excess grows with it).
double drawsOf(Node node, double N, double d, double k, Mechanism m);

// The checks of a ledger row's sensitivity and calibrated noise scale (before a test's noise
// multiplier): validateNoiseParameter, the one check every accountant and release path applies.
Status validateRowSensitivity(const LedgerEntry& e);
Status validateRowScale(const LedgerEntry& e, double calibratedSigma);

// The whitened release (whitened_release.cpp, docs/PRIVACY.md §11): its cut, its two releases,
// the checks of its options and its two sensitivities.
EdgeSet whitenedReleaseEdges();
std::vector<PlannedRelease> whitenedReleasePlan();
Status validateWhitenedRelease(const PrivacyOptions& o);
SensitivityBound whitenedReleaseBound(Node node, const SensitivityInputs& in, const WhitenedRelease& w);
// The M2 release's bounds: C1 = C2 = 1 for whitened/raw (nothing clipped), else the options'.
SecondMomentClip whitenedSecondMomentClip(const WhitenedRelease& w);
// whitened/raw: the T row (calibrated for Δ_T = 1) rescaled to Δ_T(ρ_W) once ρ_W of the released W̃
// is public: sensitivity, formula and σ, checked like every row.
Status rescaleToRowBound(LedgerEntry& e, int docCount, double alpha0, double rowBound, double noiseMultiplier);

// One private run: Procedure 1, calibration, then the releases and the graph downstream of
// them. Non-private stages are fetched only when a release needs them, after every private
// check has passed, so that none of them can decide the outcome (docs/PRIVACY.md §2).
class PrivateRun {
 public:
  PrivateRun(SpectralPipeline& pipeline, const PrivacyOptions& o, RandomSource& noise, Feedback* feedback)
      : m_pipeline(pipeline), m_o(o), m_noise(noise), m_feedback(feedback), m_corpus(*pipeline.corpus()),
        m_so(pipeline.options()), m_k(m_so.topicCount),
        m_in{.docCount = m_corpus.docCount(), .topicCount = m_k, .alpha0 = m_so.alpha0, .maxLength = o.maxLength,
             .clip = m_so.clip} {}

  Result<PrivateRunResult> run();
  // The ledger up to the node calibration, nothing drawn (calibrateRun).
  Result<PrivateRunResult> calibrateOnly();

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
  Status startLedger();
  Status calibrateNodes(std::size_t firstNodeRelease);
  Result<PrivateRunResult> releaseAndEvaluate();
  Result<PrivateRunResult> releaseWhitened();
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

}  // namespace dplda::detail
