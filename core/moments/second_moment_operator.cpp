// M̂2 as an operator (SecondMomentOperator, declared in moments.h): the products the eigensolvers
// make, the packed copy of the counts they read, and the dense M̂2 for small d.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/common/huge_pages.h"
#include "core/moments/moment_lanes.h"
#include "core/moments/moments.h"

namespace dplda {

using moments_detail::blockRows;
using moments_detail::forEachLane;
using moments_detail::kLanes;

SecondMomentOperator::SecondMomentOperator(const Corpus& corpus, double alpha0, const DocumentScales* scales)
    : m_corpus(&corpus) {
  const double N = corpus.docCount();
  const double a = MomentConstants::fromAlpha0(alpha0).a;
  // Clipping scales M̃2ⁿ by f2 and M̃1ⁿ by f1 (so its same-document term by f1²); f = 1 is exact.
  // An empty document (Corpus::emptyDocuments) has f = 0: counted in N, adds nothing.
  const Eigen::ArrayXd in = (corpus.lengths.array() >= kMinDocumentLength).cast<double>();
  const Eigen::ArrayXd l = corpus.lengths.array().max(static_cast<double>(kMinDocumentLength));
  const Eigen::ArrayXd f1 = scales ? Eigen::ArrayXd(scales->m1.array() * in) : in;
  const Eigen::ArrayXd f2 = scales ? Eigen::ArrayXd(scales->m2.array() * in) : in;
  m_docWeights = (f2 / (N * l * (l - 1.0)) + a * f1.square() / (N * (N - 1.0) * l * l)).matrix();
  m_rankOneWeight = a / (N * (N - 1.0));
  // g = Σ_n c_n/(N l(l−1)) and S1 = Σ_n c_n/l in one pass over the counts, in lanes.
  const Eigen::Index docs = corpus.docCount(), d = corpus.vocabSize(), nb = 4096;
  const Eigen::Index blocks = (docs + nb - 1) / nb;
  std::vector<Eigen::VectorXd> diag(kLanes, Eigen::VectorXd::Zero(d)), sum1(kLanes, Eigen::VectorXd::Zero(d));
  forEachLane(static_cast<double>(corpus.nnz()) * 4, [&](int lane) {
    for (Eigen::Index b = lane; b < blocks; b += kLanes) {
      withRows(corpus, b * nb, std::min(docs, (b + 1) * nb),
               [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
                 for (Eigen::Index n = first; n < last; ++n) {
                   const double pair = f2[n] / (N * l[n] * (l[n] - 1.0)), inv = f1[n] / l[n];
                   for (Eigen::Index e = outer[n]; e < outer[n + 1]; ++e) {
                     const auto [j, c] = entry(e);
                     diag[lane][j] += c * pair;
                     sum1[lane][j] += c * inv;
                   }
                 }
               });
    }
  });
  m_diagonal = diag[0];
  m_sum1 = sum1[0];
  for (int lane = 1; lane < kLanes; ++lane) {
    m_diagonal += diag[lane];
    m_sum1 += sum1[lane];
  }
}

namespace {

// One pass of M̂2 x over documents [begin, end) into z: t_n = w_n c_nᵀx, then z += c_n t_n. The
// dot product keeps four running sums (added in a fixed order): one sum would be a chain of
// dependent additions, which bounded the product's speed rather than memory traffic. `entry(e)`
// gives (word, count) of the e-th stored non-zero; both storages give the same doubles.
template <class Entry>
void productPass(const int* outer, Eigen::Index begin, Eigen::Index end, const double* w, const double* x,
                 double* z, Entry entry) {
  for (Eigen::Index n = begin; n < end; ++n) {
    const Eigen::Index first = outer[n], last = outer[n + 1];
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    Eigen::Index e = first;
    for (; e + 4 <= last; e += 4) {
      const auto [j0, c0] = entry(e);
      const auto [j1, c1] = entry(e + 1);
      const auto [j2, c2] = entry(e + 2);
      const auto [j3, c3] = entry(e + 3);
      s0 += c0 * x[j0];
      s1 += c1 * x[j1];
      s2 += c2 * x[j2];
      s3 += c3 * x[j3];
    }
    for (; e < last; ++e) {
      const auto [j, c] = entry(e);
      s0 += c * x[j];
    }
    const double t = ((s0 + s1) + (s2 + s3)) * w[n];
    for (e = first; e < last; ++e) {
      const auto [j, c] = entry(e);
      z[j] += c * t;
    }
  }
}

// The number of fixed contiguous lanes of documents the product passes are cut into (it depends on
// the corpus shape only, so the lane sums, added in order, give the same bits for any thread
// count), after checking `packed` against the corpus.
Eigen::Index passLanes(const Corpus& corpus, const PackedCounts& packed) {
  if (!packed.empty() && packed.size() != static_cast<std::size_t>(corpus.nnz())) {
    throw std::invalid_argument("SecondMomentOperator: the packed counts are not this corpus's");
  }
  const Eigen::Index d = std::max<Eigen::Index>(corpus.vocabSize(), 1);
  return std::clamp<Eigen::Index>(corpus.nnz() / (16 * d), 1, moments_detail::kGramPassLanes);
}

// Calls pass(first, last, outer, entry) on documents [begin, end) in order, with entry(e) =
// (word, count) of the e-th stored non-zero, read from the packed copy when there is one, else
// through forEachRowBlock (the doubles in memory, or a streamed corpus's mapping block by block):
// the same values and the same order either way.
template <class Pass>
void withEntries(const Corpus& corpus, const PackedCounts& packed, Eigen::Index begin,
                 Eigen::Index end, Pass pass) {
  if (!packed.empty()) {
    const std::uint32_t* p = packed.data();
    pass(begin, end, corpus.streamed() ? corpus.mapped->outer.data() : corpus.counts.outerIndexPtr(), [p](Eigen::Index e) {
      return std::pair<std::uint32_t, double>{p[e] >> 16, static_cast<double>(p[e] & 0xFFFFu)};
    });
  } else {
    forEachRowBlock(corpus, begin, end, pass);
  }
}

}  // namespace

PackedCounts SecondMomentOperator::packCounts(Eigen::Index minNonZeros) const {
  const Corpus& corpus = *m_corpus;
  const Eigen::Index nnz = corpus.nnz();
  if (corpus.vocabSize() > 65536 || nnz < minNonZeros || nnz == 0) return {};
  if (corpus.streamed() && 4.0 * static_cast<double>(nnz) > kPackedStreamedBytes) return {};
  if (!corpus.streamed() && !corpus.counts.isCompressed()) return {};
  PackedCounts packed(static_cast<std::size_t>(nnz));  // (std::bad_alloc: the caller's memory check)
  auto pack = [](int word, double c, std::uint32_t& out) {
    const bool fits = c >= 1.0 && c < 65536.0 && c == std::floor(c);
    out = (static_cast<std::uint32_t>(word) << 16) | (fits ? static_cast<std::uint32_t>(c) : 0u);
    return fits;
  };
  bool exact = true;
  if (corpus.streamed()) {
    // One read of the mapping, in blocks of documents on the threads (their pages released after;
    // the new array's pages fault in on every core: 266 MB at NYTimes size).
    const Eigen::Index blocks = documentBlocks(corpus);
#pragma omp parallel for schedule(dynamic, 1) reduction(&& : exact) if (blocks > 1)
    for (Eigen::Index b = 0; b < blocks; ++b) {
      readDocumentBlock(corpus, b, [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
        for (Eigen::Index e = outer[first]; e < outer[last]; ++e) {
          const auto [word, c] = entry(e);
          exact = pack(word, c, packed[static_cast<std::size_t>(e)]) && exact;
        }
      });
    }
  } else {
    const double* v = corpus.counts.valuePtr();
    const int* cols = corpus.counts.innerIndexPtr();
#pragma omp parallel for schedule(static) reduction(&& : exact)
    for (Eigen::Index e = 0; e < nnz; ++e) exact = pack(cols[e], v[e], packed[static_cast<std::size_t>(e)]) && exact;
  }
  if (!exact) return {};
  return packed;
}

void SecondMomentOperator::perform_op(const double* x, double* y) const { perform_op(x, y, {}); }

void SecondMomentOperator::perform_op(const double* x, double* y, const PackedCounts& packed) const {
  const Corpus& corpus = *m_corpus;
  const Eigen::Index docs = corpus.docCount(), d = corpus.vocabSize();
  Eigen::Map<const Eigen::VectorXd> xv(x, d);
  Eigen::Map<Eigen::VectorXd> yv(y, d);
  // One pass over the counts (Lanczos makes ~90 of these at NYTimes scale, each bound by memory
  // traffic): a document's row is read for t_n and again, from cache, for the scatter. The
  // documents are cut into fixed contiguous lanes (their number depends on the corpus shape
  // only), each scattering into its own vector; the lanes are added in order, so the result is
  // bit-identical for any thread count (and for either storage of the counts). Threads take lanes
  // as they come.
  const Eigen::Index lanes = passLanes(corpus, packed);
  std::vector<Eigen::VectorXd> partial(static_cast<std::size_t>(lanes));
  ParallelGuard guard;
#pragma omp parallel for schedule(dynamic, 1) if (lanes > 1 && corpus.nnz() > 200000)
  for (Eigen::Index lane = 0; lane < lanes; ++lane) guard.run([&] {
    Eigen::VectorXd& zv = partial[static_cast<std::size_t>(lane)];
    zv = Eigen::VectorXd::Zero(d);
    const Eigen::Index begin = docs * lane / lanes, end = docs * (lane + 1) / lanes;
    withEntries(corpus, packed, begin, end,
                [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
                  productPass(outer, first, last, m_docWeights.data(), x, zv.data(), entry);
                });
  });
  guard.rethrow();
  yv = partial[0];
  for (std::size_t lane = 1; lane < partial.size(); ++lane) yv += partial[lane];
  yv -= m_diagonal.cwiseProduct(xv);
  yv -= (m_rankOneWeight * m_sum1.dot(xv)) * m_sum1;
}

namespace {

// M̂2's Gram part for B vectors at once over documents [begin, end). XZ is row-major d x 2B: row j
// holds x_j (B values) then the lane's sums z_j, so the scatter finds z_j in the cache line the
// gather just brought in for x_j (the pass is bound by those misses, not by arithmetic). The dot
// products keep two running sums per column (even and odd non-zeros, added at the end): one sum
// would be a chain of dependent additions. Each column's sums are formed in the same order
// whatever B is, so B changes no bit.
template <int B, class Entry>
void productPassB(const int* outer, Eigen::Index begin, Eigen::Index end, const double* w, double* XZ,
                  Entry entry) {
  constexpr Eigen::Index stride = 2 * B;
  for (Eigen::Index n = begin; n < end; ++n) {
    const Eigen::Index first = outer[n], last = outer[n + 1];
    double even[B] = {}, odd[B] = {};
    Eigen::Index e = first;
    for (; e + 2 <= last; e += 2) {
      const auto [j0, c0] = entry(e);
      const auto [j1, c1] = entry(e + 1);
      const double* x0 = XZ + stride * static_cast<Eigen::Index>(j0);
      const double* x1 = XZ + stride * static_cast<Eigen::Index>(j1);
      for (int i = 0; i < B; ++i) even[i] += c0 * x0[i];
      for (int i = 0; i < B; ++i) odd[i] += c1 * x1[i];
    }
    if (e < last) {
      const auto [j, c] = entry(e);
      const double* x = XZ + stride * static_cast<Eigen::Index>(j);
      for (int i = 0; i < B; ++i) even[i] += c * x[i];
    }
    double t[B];
    for (int i = 0; i < B; ++i) t[i] = (even[i] + odd[i]) * w[n];
    for (e = first; e < last; ++e) {
      const auto [j, c] = entry(e);
      double* z = XZ + stride * static_cast<Eigen::Index>(j) + B;
      for (int i = 0; i < B; ++i) z[i] += c * t[i];
    }
  }
}

// out = the Gram part of M̂2 X, B columns per pass over the counts (the last pass zero-padded).
template <int B>
void gramProduct(const Corpus& corpus, const PackedCounts& packed,
                 const Eigen::VectorXd& weights, const Eigen::MatrixXd& X, Eigen::MatrixXd& out,
                 HugePageArray<double>* reuse) {
  using Rows = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, 2 * B, Eigen::RowMajor>>;
  const Eigen::Index docs = corpus.docCount(), d = corpus.vocabSize(), b = X.cols();
  const Eigen::Index lanes = passLanes(corpus, packed);
  // Every lane's rows in one arena on huge pages (the gathers and scatters index them at random),
  // kept by the caller across the passes of a solve: a fresh arena faults in page by page.
  const Eigen::Index laneDoubles = d * 2 * B;
  HugePageArray<double> local;
  double* arena = (reuse ? *reuse : local).ensureSize(static_cast<std::size_t>(lanes * laneDoubles));
  std::vector<Rows> partial;
  for (Eigen::Index lane = 0; lane < lanes; ++lane) partial.emplace_back(arena + lane * laneDoubles, d, 2 * B);
  for (Eigen::Index c0 = 0; c0 < b; c0 += B) {
    const Eigen::Index width = std::min<Eigen::Index>(B, b - c0);
    ParallelGuard guard;
#pragma omp parallel for schedule(dynamic, 1) if (lanes > 1 && corpus.nnz() > 200000)
    for (Eigen::Index lane = 0; lane < lanes; ++lane) guard.run([&] {
      Rows& XZ = partial[static_cast<std::size_t>(lane)];
      XZ.setZero();
      XZ.leftCols(width) = X.middleCols(c0, width);
      const Eigen::Index begin = docs * lane / lanes, end = docs * (lane + 1) / lanes;
      withEntries(corpus, packed, begin, end,
                  [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
                    productPassB<B>(outer, first, last, weights.data(), XZ.data(), entry);
                  });
    });
    guard.rethrow();
    Eigen::MatrixXd sum = partial[0].middleCols(B, width);
    for (std::size_t lane = 1; lane < partial.size(); ++lane) sum += partial[lane].middleCols(B, width);
    out.middleCols(c0, width) = sum;
  }
}

// Vectors per pass: as many as keep a thread's rows of X and of its lane's sums (2 · d · B
// doubles) within kGramPassLaneDoubles, 2 to 8. Measured at NYTimes scale (d = 2·10⁴): B = 2 is
// best there (a pass costs ~1.4 single-vector passes; with B = 4 or 8 the rows outgrow L2 and a
// pass costs 2.4 or 5 single ones, and a block Lanczos of 4 vectors still needs 22 passes where 2
// need 29); at d = 8000 B = 4, at d <= 5000 B = 8.
int passWidth(Eigen::Index d, Eigen::Index b) {
  const Eigen::Index fits = moments_detail::kGramPassLaneDoubles / (2 * std::max<Eigen::Index>(d, 1));
  if (fits >= 8 && b > 4) return 8;
  if (fits >= 4 && b > 2) return 4;
  return 2;
}

}  // namespace

Eigen::MatrixXd SecondMomentOperator::apply(const Eigen::MatrixXd& X) const { return apply(X, {}); }

Eigen::MatrixXd SecondMomentOperator::apply(const Eigen::MatrixXd& X, const PackedCounts& packed,
                                            HugePageArray<double>* rows) const {
  const Corpus& corpus = *m_corpus;
  const Eigen::Index d = corpus.vocabSize();
  Eigen::MatrixXd out(d, X.cols());
  switch (passWidth(d, X.cols())) {
    case 16:
      gramProduct<16>(corpus, packed, m_docWeights, X, out, rows);
      break;
    case 8:
      gramProduct<8>(corpus, packed, m_docWeights, X, out, rows);
      break;
    case 4:
      gramProduct<4>(corpus, packed, m_docWeights, X, out, rows);
      break;
    default:
      gramProduct<2>(corpus, packed, m_docWeights, X, out, rows);
      break;
  }
  // The diagonal and rank-one corrections as in perform_op.
  out -= m_diagonal.asDiagonal() * X;
  out.noalias() -= (m_rankOneWeight * m_sum1) * (m_sum1.transpose() * X);
  return out;
}

Result<Eigen::MatrixXd> SecondMomentOperator::toDense(Feedback* feedback) const {
  // Blocked weighted Gram matrix: dense rank updates of sqrt(w_n) c_n, which run at GEMM
  // speed, instead of scattering nnz_n^2 products per document.
  const Corpus& corpus = *m_corpus;
  const Eigen::Index N = corpus.docCount(), d = corpus.vocabSize();
  const Eigen::Index nb = blockRows(d);
  const Eigen::Index blocks = (N + nb - 1) / nb;
  std::vector<Eigen::MatrixXd> lanes(kLanes, Eigen::MatrixXd::Zero(d, d));
  forEachLane(static_cast<double>(N) * d * d, [&](int lane) {
    Eigen::MatrixXd block(d, nb);
    for (Eigen::Index b = lane; b < blocks; b += kLanes) {
      if (isCanceled(feedback)) return;
      const Eigen::Index start = b * nb, rows = std::min(nb, N - start);
      block.leftCols(rows).setZero();
      withRows(corpus, start, start + rows,
               [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
                 for (Eigen::Index n = first; n < last; ++n) {
                   const double s = std::sqrt(m_docWeights[n]);
                   for (Eigen::Index e = outer[n]; e < outer[n + 1]; ++e) {
                     const auto [j, c] = entry(e);
                     block(j, n - start) = s * c;
                   }
                 }
               });
      lanes[lane].selfadjointView<Eigen::Lower>().rankUpdate(block.leftCols(rows));
    }
  });
  if (isCanceled(feedback)) return cancelled();
  Eigen::MatrixXd gram = lanes[0];
  for (int lane = 1; lane < kLanes; ++lane) gram += lanes[lane];
  Eigen::MatrixXd out = gram.selfadjointView<Eigen::Lower>();
  out.diagonal() -= m_diagonal;
  out.noalias() -= m_rankOneWeight * m_sum1 * m_sum1.transpose();
  return out;
}

}  // namespace dplda
