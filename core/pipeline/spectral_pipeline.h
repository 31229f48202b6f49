#pragma once
// The non-private spectral pipeline D -> M2 -> W -> T -> TD -> U -> OUT with per-stage
// caching: each stage remembers the inputs it was computed from, so a later change (k, the
// decomposer, a seed) recomputes only what depends on it. The privacy layer reuses the
// cached noise-free stages.
#include <Eigen/Dense>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/moments/moments.h"
#include "core/tensor/decomposer.h"
#include "core/whitening/unwhitening.h"
#include "core/whitening/whitening.h"

namespace dplda {

struct SpectralOptions {
  int topicCount = 5;
  double alpha0 = 1.0;
  std::string decomposer = "robust";  // "robust" | "simultaneous"
  PowerMethodOptions power;
  std::uint64_t initSeed = 1;          // the decomposer's random starts
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
};

class SpectralPipeline {
 public:
  void setCorpus(std::shared_ptr<const Corpus> corpus);
  void setOptions(const SpectralOptions& options);
  const SpectralOptions& options() const { return m_options; }
  const std::shared_ptr<const Corpus>& corpus() const { return m_corpus; }

  // Runs (or reuses) every stage. Safe to call again after changing options.
  Result<SpectralModel> run(Feedback* feedback = nullptr);
  const std::vector<StageTiming>& timings() const { return m_timings; }

  // Cached noise-free intermediates (valid after a successful run).
  const SecondMomentOperator& secondMomentOperator() const { return *m_operator; }
  // The dense M̂2, computed on first use (d^2 memory).
  Result<Eigen::MatrixXd> secondMomentDense(Feedback* feedback = nullptr);

 private:
  template <class F>
  Status stage(const char* name, bool valid, F&& compute);

  std::shared_ptr<const Corpus> m_corpus;
  SpectralOptions m_options;
  std::vector<StageTiming> m_timings;

  // Cache, each with the validity of the inputs it was computed from.
  std::optional<SecondMomentOperator> m_operator;
  std::optional<Eigen::MatrixXd> m_dense;
  bool m_momentsValid = false, m_eigenValid = false, m_tensorValid = false, m_decomposeValid = false,
       m_unwhitenValid = false;
  SpectralModel m_model;
};

}  // namespace dplda
