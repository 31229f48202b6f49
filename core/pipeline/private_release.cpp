// The releases of a private run on the papers' edges and the graph downstream of them
// (core/pipeline/private_run_detail.h).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/common/memory_budget.h"
#include "core/common/number_text.h"
#include "core/pipeline/private_run_detail.h"
#include "core/privacy/noise.h"
#include "core/tensor/private_power_method.h"
#include "core/tensor/sign_conventions.h"

namespace dplda::detail {

// Input perturbation: clip each document to the public L_max (scaling its counts down),
// add noise to every one of the N x d counts, then round to non-negative integers
// (post-processing) and rebuild a corpus.
Result<Corpus> perturbCorpus(const Corpus& c, double maxLength, Mechanism m, double scale, RandomSource& rng) {
  const double entries = static_cast<double>(c.docCount()) * c.vocabSize();
  if (entries > kMaxInputPerturbationEntries) {
    return Status(StatusCode::ResourceLimit, "input perturbation would draw " + shortNumber(entries) +
                                                 " noise values (N x d); choose another edge set");
  }
  // Every noisy count that rounds to 1 or more is a token of the perturbed corpus: at a large noise
  // scale about half of the N x d cells, however sparse the corpus (a 15 KB corpus with d = 10^6
  // and L_max = 5e6 took 5.5 GB before failing, issue 28). Say what that needs before drawing.
  const double zeroCells = entries - static_cast<double>(c.nnz());
  const double tokenChance = scale == 0.0                  ? 0.0
                             : m == Mechanism::Laplace    ? 0.5 * std::exp(-0.5 / scale)
                                                          : 0.5 * std::erfc(0.5 / (scale * std::sqrt(2.0)));
  const double kept = static_cast<double>(c.nnz()) + zeroCells * tokenChance;
  constexpr double kBytesPerKept = 2 * 16.0 + 2 * 12.0;  // a triplet (and the vector's growth), its sparse entry (and a copy)
  DPLDA_RETURN_IF_ERROR(checkMemory(kept * kBytesPerKept, "input perturbation", "the perturbed corpus",
                                    "about " + shortNumber(kept) + " of its N x d = " + shortNumber(entries) +
                                        " noisy counts round to a token at noise scale " + shortNumber(scale)));
  std::vector<CountTriplet> triplets;
  Eigen::VectorXd row(c.vocabSize());
  for (int n = 0; n < c.docCount(); ++n) {
    row.setZero();
    const double l = c.lengths[n];
    const double shrink = l > maxLength ? maxLength / l : 1.0;
    withRows(c, n, n + 1, [&](Eigen::Index, Eigen::Index, const int* outer, auto entry) {
      for (Eigen::Index e = outer[n]; e < outer[n + 1]; ++e)
        row[entry(e).first] = std::floor(entry(e).second * shrink);
    });
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


// The releases in graph order, each canonicalised right after its noise where its value depends
// on the sign frame of the whitened coordinates (W, T, TD, W+), then the graph downstream.
Result<PrivateRunResult> PrivateRun::releaseAndEvaluate() {
  if (m_o.whitened.enabled) return releaseWhitened();
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
    if (noisyEdge(3) && m_o.mechanism == Mechanism::Laplace && scaleOf(3) > 0.0) {
      // The Laplace release of the explicit M̂3 (docs/PRIVACY.md §18), whitened: (M̂3 + N)(W,W,W) =
      // T̂ + N(W,W,W) by linearity, so only the d x d x d noise N is formed, never M̂3 (SPEC §3).
      auto e = sampleLaplaceM3NoiseThrough(wForT, scaleOf(3), m_noise);
      if (!e.ok()) return failAfterNoise(e.status());
      T += e.value();
    } else if (noisyEdge(3) && scaleOf(3) > 0.0) {  // the M3 release, seen through W: √6·sym(G)(W,W,W)
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

}  // namespace dplda::detail
