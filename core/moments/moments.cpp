#include "core/moments/moments.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "core/common/huge_pages.h"
#include "core/moments/moment_lanes.h"

namespace dplda {

using moments_detail::blockRows;
using moments_detail::forEachLane;
using moments_detail::kLanes;

namespace {

std::string formatBytes(double bytes) {
  std::ostringstream out;
  out.precision(3);
  if (bytes >= 1024.0 * 1024 * 1024) out << bytes / (1024.0 * 1024 * 1024) << " GiB";
  else out << bytes / (1024.0 * 1024) << " MiB";
  return out.str();
}

}  // namespace

MomentConstants MomentConstants::fromAlpha0(double a0) {
  return {a0 / (a0 + 1.0), -a0 / (a0 + 2.0), 2.0 * a0 * a0 / ((a0 + 1.0) * (a0 + 2.0))};
}

Status validateMomentInputs(const Corpus& corpus, double alpha0) {
  if (!std::isfinite(alpha0) || alpha0 <= 0.0 || alpha0 > kMaxAlpha0) {
    // Above kMaxAlpha0 (core/corpus/corpus.h) the estimator constants no longer change the fit
    // and alpha0^2 in c overflows near 1.3e154.
    std::ostringstream msg;
    msg << "alpha0 must be a number in (0, " << static_cast<long long>(kMaxAlpha0) << "], got " << alpha0;
    return invalidArgument(msg.str());
  }
  if (corpus.contributingDocCount() < 3) {
    return badInput("the corpus needs at least 3 documents with 3 or more tokens for the third moment, got " +
                    std::to_string(corpus.contributingDocCount()));
  }
  // Every document has at least 3 tokens, or is one of the empty ones (no tokens) a text import
  // keeps so that N is public.
  const long long empty = (corpus.lengths.array() == 0.0).count();
  if (corpus.lengths.size() != corpus.docCount() || empty != corpus.emptyDocuments ||
      ((corpus.lengths.array() > 0.0) && (corpus.lengths.array() < kMinDocumentLength)).any()) {
    return badInput("every document must have at least 3 tokens or be one of the corpus's empty documents "
                    "(corpus lengths are inconsistent)");
  }
  return Status::ok();
}

Eigen::VectorXd firstMoment(const Corpus& corpus) {
  // Empty documents (length 0) add nothing.
  // Σ_n c_n / l_n, documents in order (as Cᵀ times the inverse lengths), then / N.
  const Eigen::VectorXd invLength =
      corpus.lengths.unaryExpr([](double l) { return contributes(l) ? 1.0 / l : 0.0; });
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(corpus.vocabSize());
  forEachRowBlock(corpus, 0, corpus.docCount(),
                  [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
                    for (Eigen::Index n = first; n < last; ++n)
                      for (Eigen::Index e = outer[n]; e < outer[n + 1]; ++e) {
                        const auto [j, c] = entry(e);
                        sum[j] += c * invLength[n];
                      }
                  });
  return sum / static_cast<double>(corpus.docCount());
}

Result<Eigen::MatrixXd> secondMomentDense(const Corpus& corpus, double alpha0, Feedback* feedback) {
  DPLDA_RETURN_IF_ERROR(validateMomentInputs(corpus, alpha0));
  return SecondMomentOperator(corpus, alpha0).toDense(feedback);
}

std::size_t explicitThirdMomentBytes(int vocabSize) {
  const std::size_t d = static_cast<std::size_t>(std::max(vocabSize, 0));
  return d * d * d * sizeof(double);
}

namespace {

Status checkExplicitThirdMomentSize(int d, std::size_t maxBytes) {
  const std::size_t bytes = explicitThirdMomentBytes(d);
  if (bytes > maxBytes) {
    return Status(StatusCode::ResourceLimit,
                  "the explicit third moment for a vocabulary of " + std::to_string(d) + " words needs " +
                      formatBytes(static_cast<double>(bytes)) + " (limit " +
                      formatBytes(static_cast<double>(maxBytes)) +
                      "); use the whitened tensor computed from the documents instead");
  }
  return Status::ok();
}

}  // namespace

Result<Tensor3> thirdMomentExplicit(const Corpus& corpus, double alpha0, std::size_t maxBytes, Feedback* feedback) {
  DPLDA_RETURN_IF_ERROR(validateMomentInputs(corpus, alpha0));
  const int d = corpus.vocabSize();
  DPLDA_RETURN_IF_ERROR(checkExplicitThirdMomentSize(d, maxBytes));
  const double N = corpus.docCount();
  const MomentConstants mc = MomentConstants::fromAlpha0(alpha0);
  const double beta2 = mc.b / (N * (N - 1.0));
  const double gamma3 = mc.c / (N * (N - 2.0) * (N - 1.0));

  Tensor3 M3(d);
  Eigen::MatrixXd S2 = Eigen::MatrixXd::Zero(d, d);
  Eigen::MatrixXd A1 = Eigen::MatrixXd::Zero(d, d);  // Σ_n M̃1ⁿ M̃1ⁿᵀ
  Eigen::VectorXd S1 = Eigen::VectorXd::Zero(d);
  std::vector<int> ids;
  std::vector<double> cs;
  for (int n = 0; n < corpus.docCount(); ++n) {
    if ((n & 255) == 0) {
      if (isCanceled(feedback)) return cancelled();
      reportProgress(feedback, static_cast<double>(n) / N);
    }
    ids.clear();
    cs.clear();
    withRows(corpus, n, n + 1, [&](Eigen::Index, Eigen::Index, const int* outer, auto entry) {
      for (Eigen::Index e = outer[n]; e < outer[n + 1]; ++e) {
        ids.push_back(static_cast<int>(entry(e).first));
        cs.push_back(entry(e).second);
      }
    });
    const double l = corpus.lengths[n];
    if (!contributes(l)) continue;  // an empty document: counted in N, adds nothing
    const double e = 1.0 / (N * l * (l - 1.0) * (l - 2.0));  // weight of M̃3ⁿ / N
    const double w2 = 1.0 / (l * (l - 1.0));                 // M̃2ⁿ normaliser
    const std::size_t m = ids.size();
    // (1/N) M̃3ⁿ
    for (std::size_t x = 0; x < m; ++x)
      for (std::size_t y = 0; y < m; ++y)
        for (std::size_t z = 0; z < m; ++z) M3(ids[x], ids[y], ids[z]) += e * cs[x] * cs[y] * cs[z];
    for (std::size_t x = 0; x < m; ++x)
      for (std::size_t y = 0; y < m; ++y) {
        const double v = e * cs[x] * cs[y];
        const int i = ids[x], j = ids[y];
        M3(i, i, j) -= v;
        M3(i, j, i) -= v;
        M3(j, i, i) -= v;
      }
    for (std::size_t x = 0; x < m; ++x) M3(ids[x], ids[x], ids[x]) += 2.0 * e * cs[x];
    // Same-document exclusions of B: −β2 Σ_n M̃2ⁿ ⊗ M̃1ⁿ in its three placements.
    for (std::size_t x = 0; x < m; ++x)
      for (std::size_t y = 0; y < m; ++y) {
        const double m2 = w2 * (cs[x] * cs[y] - (x == y ? cs[x] : 0.0));
        S2(ids[x], ids[y]) += m2;
        A1(ids[x], ids[y]) += cs[x] * cs[y] / (l * l);
        for (std::size_t z = 0; z < m; ++z) {
          const double v = -beta2 * m2 * cs[z] / l;
          const int i = ids[x], j = ids[y], q = ids[z];
          M3(i, j, q) += v;  // B
          M3(i, q, j) += v;  // B^(132)
          M3(q, i, j) += v;  // B^(312)
        }
      }
    // P3's +2 Σ_n M̃1ⁿ⊗M̃1ⁿ⊗M̃1ⁿ
    for (std::size_t x = 0; x < m; ++x)
      for (std::size_t y = 0; y < m; ++y)
        for (std::size_t z = 0; z < m; ++z)
          M3(ids[x], ids[y], ids[z]) += 2.0 * gamma3 * cs[x] * cs[y] * cs[z] / (l * l * l);
    for (std::size_t x = 0; x < m; ++x) S1[ids[x]] += cs[x] / l;
  }
  // Global terms: β2 S2⊗S1 in three placements; γ3 (S1⊗S1⊗S1 − placements of A1⊗S1).
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      for (int q = 0; q < d; ++q) {
        M3(i, j, q) += beta2 * (S2(i, j) * S1[q] + S2(i, q) * S1[j] + S2(j, q) * S1[i]);
        M3(i, j, q) += gamma3 * (S1[i] * S1[j] * S1[q] - A1(i, j) * S1[q] - A1(i, q) * S1[j] - A1(j, q) * S1[i]);
      }
  reportProgress(feedback, 1.0);
  return M3;
}

Result<Tensor3> thirdMomentDense(const Corpus& corpus, double alpha0, std::size_t maxBytes, Feedback* feedback) {
  DPLDA_RETURN_IF_ERROR(validateMomentInputs(corpus, alpha0));
  const int d = corpus.vocabSize();
  DPLDA_RETURN_IF_ERROR(checkExplicitThirdMomentSize(d, maxBytes));
  const std::size_t dd = static_cast<std::size_t>(d);
  const double N = corpus.docCount();
  const MomentConstants mc = MomentConstants::fromAlpha0(alpha0);
  const double beta2 = mc.b / (N * (N - 1.0));
  const double gamma3 = mc.c / (N * (N - 1.0) * (N - 2.0));
  constexpr int kLanes = 4;
  constexpr int kBlock = 1024;  // documents per block
  const int docs = corpus.docCount();
  const int blocks = (docs + kBlock - 1) / kBlock;
  struct Lane {
    std::vector<double> cube;  // Σ h c^⊗3 at (i, j, l) for i <= j <= l only
    Eigen::MatrixXd Q, Pm;     // Σ q c cᵀ and Σ p c cᵀ, upper triangles
    Eigen::VectorXd g, wordPair, s;
  };
  std::vector<Lane> lanes(kLanes);
  ParallelGuard guard;
#pragma omp parallel for schedule(static, 1) if (static_cast<double>(corpus.nnz()) * 20 > 1e6)
  for (int laneIndex = 0; laneIndex < kLanes; ++laneIndex) guard.run([&] {
    Lane& lane = lanes[laneIndex];
    lane.cube.assign(dd * dd * dd, 0.0);
    lane.Q = lane.Pm = Eigen::MatrixXd::Zero(d, d);
    lane.g = lane.wordPair = lane.s = Eigen::VectorXd::Zero(d);
    std::vector<std::pair<int, double>> words;
    for (int b = laneIndex; b < blocks; b += kLanes) {
      if (isCanceled(feedback)) break;
      withRows(corpus, b * kBlock, std::min(docs, (b + 1) * kBlock),
               [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
                 for (Eigen::Index n = first; n < last; ++n) {
                   words.clear();
                   for (Eigen::Index e = outer[n]; e < outer[n + 1]; ++e)
                     words.emplace_back(static_cast<int>(entry(e).first), entry(e).second);
                   std::sort(words.begin(), words.end());  // usually sorted already
                   const double l = corpus.lengths[n];
                   if (!contributes(l)) continue;  // an empty document: counted in N, adds nothing
                   const double e = 1.0 / (N * l * (l - 1.0) * (l - 2.0));
                   const double f = 1.0 / (l * l * (l - 1.0));
                   const double h = e - 3.0 * beta2 * f + 2.0 * gamma3 / (l * l * l);
                   const double q = -3.0 * e + 3.0 * beta2 * f;
                   const double pairInv = 1.0 / (l * (l - 1.0));
                   const double p = 3.0 * beta2 * pairInv - 3.0 * gamma3 / (l * l);
                   const std::size_t m = words.size();
                   for (std::size_t x = 0; x < m; ++x) {
                     const int i = words[x].first;
                     const double ci = words[x].second;
                     lane.g[i] += e * ci;
                     lane.wordPair[i] += ci * pairInv;
                     lane.s[i] += ci / l;
                     const double hi = h * ci;
                     for (std::size_t y = x; y < m; ++y) {
                       const int j = words[y].first;
                       const double cij = ci * words[y].second;
                       lane.Q(i, j) += q * cij;
                       lane.Pm(i, j) += p * cij;
                       const double hij = hi * words[y].second;
                       double* row = lane.cube.data() + (static_cast<std::size_t>(i) * dd + j) * dd;
                       for (std::size_t z = y; z < m; ++z) row[words[z].first] += hij * words[z].second;
                     }
                   }
                 }
               });
    }
  });
  guard.rethrow();
  if (isCanceled(feedback)) return cancelled();
  reportProgress(feedback, 0.9);
  Lane& total = lanes[0];
  for (int i = 1; i < kLanes; ++i) {
    for (std::size_t t = 0; t < total.cube.size(); ++t) total.cube[t] += lanes[i].cube[t];
    total.Q += lanes[i].Q;
    total.Pm += lanes[i].Pm;
    total.g += lanes[i].g;
    total.wordPair += lanes[i].wordPair;
    total.s += lanes[i].s;
    lanes[i] = Lane{};  // free the lane early
  }
  // V and P from their upper triangles.
  Eigen::MatrixXd V = total.Q.triangularView<Eigen::Upper>();
  V.triangularView<Eigen::StrictlyLower>() = total.Q.transpose().triangularView<Eigen::StrictlyLower>();
  V.diagonal() += 2.0 * total.g;
  Eigen::MatrixXd P = total.Pm.triangularView<Eigen::Upper>();
  P.triangularView<Eigen::StrictlyLower>() = total.Pm.transpose().triangularView<Eigen::StrictlyLower>();
  P.diagonal() -= 3.0 * beta2 * total.wordPair;
  const Eigen::VectorXd& s = total.s;

  // sym(R) on the unique entries i <= j <= l, mirrored.
  Tensor3 M3(d);
  for (int i = 0; i < d; ++i)
    for (int j = i; j < d; ++j)
      for (int l = j; l < d; ++l) {
        double v = total.cube[(static_cast<std::size_t>(i) * dd + j) * dd + l] + gamma3 * s[i] * s[j] * s[l];
        v += ((i == j ? V(i, l) : 0.0) + (i == l ? V(i, j) : 0.0) + (j == l ? V(j, i) : 0.0)) / 3.0;
        v += (P(i, j) * s[l] + P(i, l) * s[j] + P(j, l) * s[i]) / 3.0;
        M3(i, j, l) = M3(i, l, j) = M3(j, i, l) = M3(j, l, i) = M3(l, i, j) = M3(l, j, i) = v;
      }
  reportProgress(feedback, 1.0);
  if (!M3.allFinite()) return numericalFailure("the explicit third moment has NaN or infinite entries");
  return M3;
}


Result<Tensor3> whitenedThirdMoment(const Corpus& corpus, double alpha0, const Eigen::MatrixXd& W,
                                    Feedback* feedback, const DocumentScales* scales) {
  DPLDA_RETURN_IF_ERROR(validateMomentInputs(corpus, alpha0));
  if (W.rows() != corpus.vocabSize() || W.cols() < 1) {
    return invalidArgument("the whitening matrix must be " + std::to_string(corpus.vocabSize()) +
                           " x k, got " + std::to_string(W.rows()) + " x " + std::to_string(W.cols()));
  }
  if (!W.allFinite()) return numericalFailure("the whitening matrix contains NaN or infinite entries");

  // Every term of SPEC §3 mapped through W collapses into T̂ = sym(R) with
  //   R = Σ_n h_n y_n^⊗3 + Σ_i w_i⊗w_i⊗v_i + P⊗s + γ3 s^⊗3,
  // where y_n = Wᵀc_n, w_i = row i of W, s = Σ_n y_n/l_n, and
  //   h_n = e_n − 3β2 f_n + 2γ3/l³,  e_n = 1/(N l(l−1)(l−2)),  f_n = 1/(l²(l−1)),
  //   v_i = Σ_n q_n c_n(i) y_n + 2 g_i w_i,  q_n = −3e_n + 3β2 f_n,  g_i = Σ_n e_n c_n(i),
  //   P = 3β2 (Σ_n y yᵀ/(l(l−1)) − Wᵀdiag(Σ_n c_n/(l(l−1)))W) − 3γ3 Σ_n y yᵀ/l²,
  //   β2 = b/(N(N−1)), γ3 = c/(N(N−1)(N−2)).
  // R is symmetric in its first two indices, so only pairs i ≤ j are kept. One pass over the
  // documents, in blocks: y for the block (sparse rows times W), then GEMMs for the block's
  // contributions and a scatter of q_n c_n(i) y_n into v_i.
  const Eigen::Index N = corpus.docCount(), d = corpus.vocabSize(), k = W.cols();
  const double Nd = static_cast<double>(N);
  const MomentConstants mc = MomentConstants::fromAlpha0(alpha0);
  const double beta2 = mc.b / (Nd * (Nd - 1.0));
  const double gamma3 = mc.c / (Nd * (Nd - 1.0) * (Nd - 2.0));
  const Eigen::Index np = k * (k + 1) / 2;
  std::vector<std::pair<int, int>> pairs;
  pairs.reserve(np);
  for (int i = 0; i < k; ++i)
    for (int j = i; j < k; ++j) pairs.emplace_back(i, j);
  // K(r, p) = X(r, i) X(r, j) for the pair p = (i, j).
  auto pairProducts = [&](const Eigen::MatrixXd& X, Eigen::Index rows, Eigen::MatrixXd& K) {
    for (Eigen::Index p = 0; p < np; ++p)
      K.col(p).head(rows) = X.col(pairs[p].first).head(rows).cwiseProduct(X.col(pairs[p].second).head(rows));
  };

  struct Lane {
    Eigen::MatrixXd R, A1, A2;              // R(l, p); Σ y yᵀ/l²; Σ y yᵀ/(l(l−1))
    Eigen::VectorXd s;                      // Σ y/l
    Eigen::VectorXd g, wordPair;            // Σ e_n c_n(i); Σ c_n(i)/(l(l−1))
  };
  using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using RowMap = Eigen::Map<RowMajorMatrix>;
  // Row-major W and y, padded with zero columns to kp, a whole number of 8-double vectors: the
  // sparse rows times W and the scatter into V are contiguous row updates of a width the compiler
  // vectorises without a scalar tail (8x faster at k = 50 than column-major; at k = 5 the padding
  // replaces Eigen's per-row set-up for runtime-sized rows, most of the pass).
  // Each lane's V = Σ_n q_n c_n(i) y_n (61 MB for 16 lanes at NYTimes size) is on huge pages
  // (huge_pages.h): fewer faults. W's rows stay on the heap: on huge pages too, W's row i and V's
  // row i sat at the same offset in 2 MiB-aligned arrays, and the pass was slower (cache sets).
  const Eigen::Index kp = (k + 7) / 8 * 8;
  RowMajorMatrix Wr = RowMajorMatrix::Zero(d, kp);
  Wr.leftCols(k) = W;
  const Eigen::Index nb = std::min<Eigen::Index>(blockRows(np), 1024);
  const Eigen::Index blocks = (N + nb - 1) / nb;
  // R is k·k(k+1)/2 doubles: one per lane is 4 copies of k³/2 (2 GB each at k = 800; issue 28).
  // Above kSharedTensorBytes one lane sums every block, and the threads share its R instead,
  // each updating a fixed range of R's columns. Both ways depend on k only: the bits do not
  // depend on the thread count.
  const bool sharedR = moments_detail::whitenedTensorSharesR(k);
  const int laneCount = moments_detail::whitenedTensorLanes(d, k);
  std::vector<Lane> lanes(static_cast<std::size_t>(laneCount));
  HugePageArray<double> vStore(static_cast<std::size_t>(laneCount * d * kp));
  auto laneV = [&](int laneIndex) { return RowMap(vStore.data() + laneIndex * d * kp, d, kp); };
  const Eigen::Index slices = sharedR ? 16 : 1;
  auto addPairTerms = [&](const Eigen::MatrixXd& Y, const Eigen::MatrixXd& HY, Eigen::Index rows, Eigen::MatrixXd& K,
                          Eigen::MatrixXd& R) {
    if (!sharedR) {
      pairProducts(Y, rows, K);
      R.noalias() += HY.topRows(rows).transpose() * K.topRows(rows);
      return;
    }
    ParallelGuard guard;
#pragma omp parallel for schedule(dynamic, 1)
    for (Eigen::Index slice = 0; slice < slices; ++slice) guard.run([&] {
      const Eigen::Index p0 = np * slice / slices, p1 = np * (slice + 1) / slices;
      for (Eigen::Index p = p0; p < p1; ++p)
        K.col(p).head(rows) = Y.col(pairs[p].first).head(rows).cwiseProduct(Y.col(pairs[p].second).head(rows));
      R.middleCols(p0, p1 - p0).noalias() += HY.topRows(rows).transpose() * K.middleCols(p0, p1 - p0).topRows(rows);
    });
    guard.rethrow();
  };
  auto laneBody = [&](int laneIndex) {
    Lane& lane = lanes[laneIndex];
    lane.R = Eigen::MatrixXd::Zero(k, np);
    lane.A1 = lane.A2 = Eigen::MatrixXd::Zero(k, k);
    lane.s = Eigen::VectorXd::Zero(k);
    RowMap V = laneV(laneIndex);  // zero: fresh pages
    lane.g = lane.wordPair = Eigen::VectorXd::Zero(d);
    Eigen::MatrixXd Y(nb, k), HY(nb, k), K(nb, np);
    RowMajorMatrix Yr(nb, kp);
    Eigen::VectorXd invL(nb), invL2(nb), pairInv(nb);
    for (Eigen::Index b = laneIndex; b < blocks; b += laneCount) {
      if (isCanceled(feedback)) return;
      const Eigen::Index start = b * nb, rows = std::min(nb, N - start);
      // The block's documents are read once (a streamed corpus: its pages released after).
      withRows(corpus, start, start + rows, [&](Eigen::Index, Eigen::Index, const int* outer, auto entry) {
        for (Eigen::Index r = 0; r < rows; ++r) {
          double* y = Yr.row(r).data();
          std::fill(y, y + kp, 0.0);
          for (Eigen::Index e = outer[start + r]; e < outer[start + r + 1]; ++e) {
            const auto [j, c] = entry(e);
            moments_detail::addScaledRow(y, c, Wr.row(j).data(), kp);
          }
        }
        Y.topRows(rows) = Yr.topRows(rows).leftCols(k);
        for (Eigen::Index r = 0; r < rows; ++r) {
          // Clipping (docs/PRIVACY.md §12) scales the terms from M̃3ⁿ by s3, from M̃2ⁿ by s2 and each
          // M̃1ⁿ factor by s1; scales of 1 change no bit. An empty document (Corpus::emptyDocuments)
          // has scales 0: it counts in N and adds nothing.
          const bool in = contributes(corpus.lengths[start + r]);
          const double l = in ? corpus.lengths[start + r] : kMinDocumentLength;
          const double s1 = !in ? 0.0 : scales ? scales->m1[start + r] : 1.0;
          const double s2 = !in ? 0.0 : scales ? scales->m2[start + r] : 1.0;
          const double s3 = !in ? 0.0 : scales ? scales->m3[start + r] : 1.0;
          const double e = s3 / (Nd * l * (l - 1.0) * (l - 2.0));
          const double f = s1 * s2 / (l * l * (l - 1.0));
          const double h = e - 3.0 * beta2 * f + 2.0 * gamma3 * (s1 * s1 * s1) / (l * l * l);
          const double q = -3.0 * e + 3.0 * beta2 * f;
          invL[r] = s1 / l;
          invL2[r] = s1 * s1 / (l * l);
          pairInv[r] = s2 / (l * (l - 1.0));
          HY.row(r) = h * Y.row(r);
          for (Eigen::Index t = outer[start + r]; t < outer[start + r + 1]; ++t) {
            const auto [i, c] = entry(t);
            moments_detail::addScaledRow(V.row(i).data(), q * c, Yr.row(r).data(), kp);
            lane.g[i] += e * c;
            lane.wordPair[i] += c * pairInv[r];
          }
        }
      });
      const auto Yb = Y.topRows(rows);
      lane.s.noalias() += Yb.transpose() * invL.head(rows);
      lane.A1.noalias() += Yb.transpose() * invL2.head(rows).asDiagonal() * Yb;
      lane.A2.noalias() += Yb.transpose() * pairInv.head(rows).asDiagonal() * Yb;
      addPairTerms(Y, HY, rows, K, lane.R);
    }
  };
  if (sharedR) laneBody(0);
  else forEachLane(static_cast<double>(N) * np * k, laneBody, laneCount);
  if (isCanceled(feedback)) return cancelled();
  reportProgress(feedback, 0.8);
  Lane total = std::move(lanes[0]);  // moved, not copied: R alone may be gigabytes
  RowMap totalV = laneV(0);
  for (int i = 1; i < laneCount; ++i) {
    total.R += lanes[i].R;
    total.A1 += lanes[i].A1;
    total.A2 += lanes[i].A2;
    total.s += lanes[i].s;
    totalV += laneV(i);
    total.g += lanes[i].g;
    total.wordPair += lanes[i].wordPair;
    lanes[i] = Lane{};  // free the lane early
  }
  Eigen::MatrixXd& R = total.R;
  const Eigen::VectorXd& s = total.s;
  const Eigen::MatrixXd P =
      3.0 * beta2 * (total.A2 - W.transpose() * total.wordPair.asDiagonal() * W) - 3.0 * gamma3 * total.A1;
  const Eigen::MatrixXd V = Eigen::MatrixXd(totalV.leftCols(k)) + 2.0 * total.g.asDiagonal() * W;  // d x k
  // Σ_i w_i⊗w_i⊗v_i, blocked over words.
  {
    Eigen::MatrixXd Wb(nb, k), K(nb, np);
    for (Eigen::Index start = 0; start < d; start += nb) {
      const Eigen::Index rows = std::min(nb, d - start);
      Wb.topRows(rows) = W.middleRows(start, rows);
      pairProducts(Wb, rows, K);
      R.noalias() += V.middleRows(start, rows).transpose() * K.topRows(rows);
    }
  }
  for (Eigen::Index p = 0; p < np; ++p) {
    const auto [i, j] = pairs[p];
    R.col(p) += (P(i, j) + gamma3 * s[i] * s[j]) * s;
  }

  // T(i,j,l) = (R(ij|l) + R(il|j) + R(jl|i)) / 3.
  std::vector<Eigen::Index> pairIndex(static_cast<std::size_t>(k * k));
  for (Eigen::Index p = 0; p < np; ++p) {
    const auto [i, j] = pairs[p];
    pairIndex[i * k + j] = pairIndex[j * k + i] = p;
  }
  Tensor3 T(static_cast<int>(k));
  for (Eigen::Index i = 0; i < k; ++i)
    for (Eigen::Index j = 0; j < k; ++j)
      for (Eigen::Index t = 0; t < k; ++t)
        T(i, j, t) = (R(t, pairIndex[i * k + j]) + R(j, pairIndex[i * k + t]) + R(i, pairIndex[j * k + t])) / 3.0;
  reportProgress(feedback, 1.0);
  if (!T.allFinite()) return numericalFailure("the whitened tensor has NaN or infinite entries");
  return T;
}

}  // namespace dplda
