#pragma once
// The non-private spectral pipeline D -> M2 -> W -> T -> TD -> U -> OUT with per-stage
// caching: each stage remembers the inputs it was computed from, so a later change (k, the
// decomposer, a seed) recomputes only what depends on it. The privacy layer reuses the
// cached noise-free stages.
//
// For small vocabularies it can also keep the explicit M̂3 (d x d x d), computed once per
// corpus and α0, so that T̂ = M̂3(W,W,W) for a W other than its own (configuration 1 whitens
// with a noisy W in every trial) is a contraction instead of a pass over the documents.
#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/moments/clipped_moments.h"
#include "core/moments/moments.h"
#include "core/tensor/decomposer.h"
#include "core/tensor/online_power_method.h"
#include "core/tensor/tensor3.h"
#include "core/whitening/unwhitening.h"
#include "core/whitening/whitening.h"

namespace dplda {

struct SpectralOptions {
  int topicCount = 5;
  double alpha0 = 1.0;
  std::string decomposer = "fast";  // "fast" | "robust" | "simultaneous" | "online" (issue 11: fast is the default)
  // Large-d eigen step: block Lanczos by default; Spectra Lanczos on request (whitening.h).
  EigenSolverChoice eigenSolver = EigenSolverChoice::Automatic;
  PowerMethodOptions power;
  std::uint64_t initSeed = 1;          // the decomposer's random starts
  OnlinePowerOptions online;           // decomposer "online": seed 004's Algorithm 2 on the documents
  // Public bounds on each document's M̃1ⁿ, M̃2ⁿ, M̃3ⁿ (docs/PRIVACY.md §12): when enabled every
  // stage uses the clipped estimators M̂2ᶜ, M̂3ᶜ. Off by default.
  MomentClip clip;
};

Status validateSpectralOptions(const SpectralOptions& options, const Corpus& corpus);

struct StageTiming {
  std::string stage;   // "second_moment", "eigen", "whiten", "tensor", "decompose", "unwhiten", "project"
  double milliseconds;
  bool cached;         // reused from an earlier run
};

// Everything a run produces, stage by stage.
struct SpectralModel {
  EigenpairsTopK eigen;        // σ_1..σ_{k+1} of M̂2
  Whitening whitening;
  Tensor3 tensor;              // T̂ = M̂3(W,W,W)
  TensorEigenpairs eigenpairs;
  double gammaS = 0.0;         // tensor eigengap of T̂
  UnwhitenedTopics unwhitened; // node U
  UnwhitenedTopics output;     // node OUT (topics on the simplex)
  std::optional<OnlineDecomposition> online;  // the online method's report (decomposer "online")
};

// The largest explicit M̂3 a pipeline keeps by default: 16 MiB, i.e. d <= 128. Two reasons:
// memory (the tensor itself, plus up to four same-sized accumulators while it is computed: at
// most 80 MiB at the limit), and cost: contracting it with a d x k W is O(d^3 k), which beats a
// document pass, O(nnz k + N k^3), only while d^3 stays well below nnz + N k^2 (at d = 50,
// k = 5, N = 1e5: 0.09 ms against 9-20 ms; at d = 128 about 3 ms; at d = 200 the two are
// comparable and the 64 MiB tensor buys nothing).
inline constexpr std::size_t kPipelineExplicitM3Bytes = std::size_t{16} << 20;

// The stages in order; runThrough(s) computes s and everything it needs, nothing after it.
enum class PipelineStage { Moments, Eigen, Whiten, Tensor, Decompose, Output };

class SpectralPipeline {
 public:
  void setCorpus(std::shared_ptr<const Corpus> corpus);
  void setOptions(const SpectralOptions& options);
  const SpectralOptions& options() const { return m_options; }
  const std::shared_ptr<const Corpus>& corpus() const { return m_corpus; }

  // Runs (or reuses) every stage. Safe to call again after changing options.
  Result<SpectralModel> run(Feedback* feedback = nullptr) { return runThrough(PipelineStage::Output, feedback); }
  // Runs (or reuses) the stages up to and including `last`; the fields of later stages are stale.
  // A private run asks only for what its releases need, so that a stage it does not need (e.g.
  // the whitening, undefined when σ_k(M̂2) <= 0) cannot decide its outcome.
  // After the Tensor stage the columns of W, U and (Wᵀ)⁺ carry the sign convention T̂_iii >= 0
  // (canonicalTensorSigns), the same rule a released T̂ is canonicalised with.
  Result<SpectralModel> runThrough(PipelineStage last, Feedback* feedback = nullptr);
  const std::vector<StageTiming>& timings() const { return m_timings; }
  // The clipping factors and fractions of options().clip (null when off or before the moments
  // stage). The fractions are NON-PRIVATE diagnostics.
  const std::shared_ptr<const ClippedMomentScales>& clipScales() const { return m_scales; }

  // Cached noise-free intermediates (valid after a successful run).
  const SecondMomentOperator& secondMomentOperator() const { return *m_operator; }
  // The dense M̂2, computed on first use (d^2 memory).
  Result<Eigen::MatrixXd> secondMomentDense(Feedback* feedback = nullptr);

  // ---- T̂ for other whitening matrices (the private runs) ----
  // Computes the explicit M̂3 of the corpus (SPEC §3) once, when its d^3 doubles fit in
  // explicitThirdMomentLimit(); above the limit it does nothing and returns ok. Cost: one pass
  // over the documents of O(Σ_n m_n^3 / 6) for m_n distinct words in document n: 0.15-0.3 s
  // single-threaded at d = 50, N = 1e5 (about ten document passes for T̂), 1.5 s at d = 128.
  //
  // Thread safety: this is the only method that creates the tensor, and it is non-const like
  // run(): call it at a well-defined point (e.g. when a sweep prepares a case, before the
  // pipeline is copied to the worker threads: the copies then share one tensor), or lazily on
  // a pipeline that only one thread uses (runPrivate does this on its first run with a W
  // other than the pipeline's). The tensor is immutable and held by a shared_ptr, so copies
  // made after it exists share it and read it concurrently. setCorpus and a change of α0 drop
  // it (copies that hold it keep their own reference, which matches their own corpus and α0).
  //
  // Why on first use and not after a few document passes: the contraction and the document
  // pass agree only to rounding, and the power method on a very noisy T̂ (configuration 1 at
  // small ε) can turn a 1e-13 difference into a different output. Whether a run uses the
  // tensor must therefore not depend on the pipeline's history, or a sweep's results would
  // depend on how its trials were scheduled over the threads.
  Status prepareExplicitThirdMoment(Feedback* feedback = nullptr);
  bool hasExplicitThirdMoment() const { return static_cast<bool>(m_thirdMoment); }
  const std::shared_ptr<const Tensor3>& explicitThirdMoment() const { return m_thirdMoment; }
  // Bytes the explicit M̂3 may take (default kPipelineExplicitM3Bytes; 0 disables it). Lowering
  // it below the size of a tensor already computed drops that tensor.
  void setExplicitThirdMomentLimit(std::size_t maxBytes);
  std::size_t explicitThirdMomentLimit() const { return m_thirdMomentLimit; }
  // T̂ = M̂3(W, W, W) of the pipeline's corpus and α0 for any d x k W (not only its own
  // whitening): contracts the explicit M̂3 when it has been prepared (O(d^3 k)), else a pass
  // over the documents (whitenedThirdMoment). The two agree to rounding (~1e-13 relative).
  // Const and reads only immutable state: safe to call concurrently on copies.
  Result<Tensor3> whitenedTensor(const Eigen::MatrixXd& W, Feedback* feedback = nullptr) const;

 private:
  template <class F>
  Status stage(const char* name, bool valid, F&& compute);

  std::shared_ptr<const Corpus> m_corpus;
  SpectralOptions m_options;
  std::vector<StageTiming> m_timings;

  // Cache, each with the validity of the inputs it was computed from.
  std::optional<SecondMomentOperator> m_operator;
  std::shared_ptr<const Eigen::MatrixXd> m_dense;  // shared by copies (d² can be large)
  std::shared_ptr<const ClippedMomentScales> m_scales;  // when options().clip is enabled
  // The explicit M̂3 of (corpus, α0), shared between copies; null until prepared.
  std::shared_ptr<const Tensor3> m_thirdMoment;
  std::size_t m_thirdMomentLimit = kPipelineExplicitM3Bytes;
  bool m_momentsValid = false, m_eigenValid = false, m_whitenValid = false, m_tensorValid = false,
       m_decomposeValid = false, m_unwhitenValid = false;
  SpectralModel m_model;
};

}  // namespace dplda
