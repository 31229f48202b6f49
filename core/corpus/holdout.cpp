#include "core/corpus/holdout.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/common/number_text.h"
#include "core/common/random.h"

namespace dplda {

Corpus selectDocuments(const Corpus& corpus, const std::vector<int>& ids) {
  Corpus out;
  out.vocab = corpus.vocab;
  const SparseCounts& X = corpus.counts;
  out.counts.resize(static_cast<Eigen::Index>(ids.size()), X.cols());
  long long nnz = 0;
  for (int n : ids) nnz += X.outerIndexPtr()[n + 1] - X.outerIndexPtr()[n];
  out.counts.resizeNonZeros(static_cast<Eigen::Index>(nnz));
  int* outer = out.counts.outerIndexPtr();
  outer[0] = 0;
  long long q = 0;
  for (std::size_t r = 0; r < ids.size(); ++r) {
    const int n = ids[r];
    for (int p = X.outerIndexPtr()[n]; p < X.outerIndexPtr()[n + 1]; ++p, ++q) {
      out.counts.innerIndexPtr()[q] = X.innerIndexPtr()[p];
      out.counts.valuePtr()[q] = X.valuePtr()[p];
    }
    outer[r + 1] = static_cast<int>(q);
  }
  out.lengths.resize(static_cast<Eigen::Index>(ids.size()));
  for (std::size_t r = 0; r < ids.size(); ++r) out.lengths[static_cast<Eigen::Index>(r)] = corpus.lengths[ids[r]];
  out.emptyDocuments = static_cast<int>((out.lengths.array() == 0.0).count());
  out.provenance = corpus.provenance;
  return out;
}

Result<HoldoutSplit> splitHoldout(const Corpus& corpus, double fraction, std::uint64_t seed) {
  const int N = corpus.docCount();
  if (!(std::isfinite(fraction) && fraction >= 0.0 && fraction < 1.0)) {
    return invalidArgument("the held-out fraction must be in [0, 1), got " + shortNumber(fraction));
  }
  const long long testCount = std::llround(fraction * N);
  if (fraction > 0 && (testCount < 1 || testCount > N - 1)) {
    return invalidArgument("a held-out fraction of " + shortNumber(fraction) + " of " + std::to_string(N) +
                           " documents leaves " + std::to_string(testCount) +
                           " test documents; each part needs at least one");
  }
  std::vector<int> perm(N);
  std::iota(perm.begin(), perm.end(), 0);
  SeededRandom rng(seed);
  for (int i = N - 1; i > 0; --i) std::swap(perm[i], perm[uniformIndex(rng, static_cast<std::uint64_t>(i) + 1)]);
  HoldoutSplit s;
  s.fraction = fraction;
  s.seed = seed;
  s.testIds.assign(perm.begin(), perm.begin() + testCount);
  s.trainIds.assign(perm.begin() + testCount, perm.end());
  std::sort(s.testIds.begin(), s.testIds.end());
  std::sort(s.trainIds.begin(), s.trainIds.end());
  s.train = selectDocuments(corpus, s.trainIds);
  s.train.droppedDocuments = corpus.droppedDocuments;
  s.test = selectDocuments(corpus, s.testIds);
  return s;
}

}  // namespace dplda
