#include "core/corpus/synthetic_generator.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "core/common/memory_budget.h"
#include "core/common/random.h"

namespace dplda {

namespace {

// Refuse parameter sets whose output would not fit comfortably in memory or take hours.
// d * k numbers in the truth: truth.json spends up to 26 bytes on each (24 digits and ", "), and
// its readers take at most 1 GiB (truth_io.h), so at 1e8 `generate` wrote files `run --truth`
// refused (issue 28).
constexpr double kMaxTopicEntries = 4e7;
constexpr double kMaxGeneratedMeanLength = 9.9e6;
constexpr double kMaxTokens = 1e10;       // expected total tokens drawn
constexpr double kMaxCorpusBytes = 8.0 * (1ull << 30);
constexpr int kProgressChunk = 1000;
constexpr long long kTokenPollMask = (1LL << 20) - 1;

std::string fmt(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

Status resourceLimit(std::string msg) { return {StatusCode::ResourceLimit, std::move(msg)}; }

// Document lengths: fixed, or Poisson(lambda) conditioned on l >= 3. For small lambda the
// rejection loop would almost never accept (P(l >= 3) ~ lambda^3/6), so there the conditional
// law is tabulated and sampled by inversion; for lambda >= 10 rejection accepts > 99.7%.
class LengthSampler {
 public:
  explicit LengthSampler(const GeneratorParams& p) : m_fixed(p.fixedLength), m_mean(p.meanLength) {
    if (m_fixed) {
      m_fixedValue = static_cast<long long>(p.meanLength);
    } else if (m_mean < kRejectionThreshold) {
      // w_j proportional to lambda^j / j! for j >= 3, relative to w_3 = 1.
      double w = 1.0, total = 0.0;
      for (int j = kMinDocumentLength; j < 400; ++j) {
        total += w;
        m_cumulative.push_back(total);
        w *= m_mean / (j + 1);
        if (j > m_mean && w < 1e-18 * total) break;
      }
    }
  }

  long long sample(RandomSource& rng) const {
    if (m_fixed) return m_fixedValue;
    if (!m_cumulative.empty()) {
      const double u = uniform01(rng) * m_cumulative.back();
      auto it = std::upper_bound(m_cumulative.begin(), m_cumulative.end(), u);
      if (it == m_cumulative.end()) --it;
      return kMinDocumentLength + static_cast<long long>(it - m_cumulative.begin());
    }
    for (;;) {
      const std::uint64_t l = poisson(rng, m_mean);
      if (l >= static_cast<std::uint64_t>(kMinDocumentLength)) return static_cast<long long>(l);
    }
  }

 private:
  static constexpr double kRejectionThreshold = 10.0;
  bool m_fixed;
  double m_mean;
  long long m_fixedValue = 0;
  std::vector<double> m_cumulative;
};

}  // namespace

Status validateGeneratorParams(const GeneratorParams& p) {
  if (p.vocabSize < 1 || p.vocabSize > kMaxVocabularySize) {
    return invalidArgument("vocabSize must be in 1.." + std::to_string(kMaxVocabularySize) + ", got " +
                           std::to_string(p.vocabSize));
  }
  if (p.topicCount < 1)
    return invalidArgument("topicCount must be >= 1, got " + std::to_string(p.topicCount));
  if (p.topicCount > p.vocabSize) {
    return invalidArgument("topicCount must be <= vocabSize (" + std::to_string(p.vocabSize) + "), got " +
                           std::to_string(p.topicCount));
  }
  if (p.docCount < 1) return invalidArgument("docCount must be >= 1, got " + std::to_string(p.docCount));
  if (!std::isfinite(p.alpha0) || p.alpha0 <= 0.0 || p.alpha0 > kMaxAlpha0) {
    return invalidArgument("alpha0 must be a number in (0, " + fmt(kMaxAlpha0) + "], got " + fmt(p.alpha0));
  }
  if (p.prior != GeneratorParams::Prior::Random && p.prior != GeneratorParams::Prior::Symmetric) {
    return invalidArgument("prior must be Random or Symmetric, got value " +
                           std::to_string(static_cast<int>(p.prior)));
  }
  if (!std::isfinite(p.beta) || p.beta <= 0.0 || p.beta > kMaxBeta) {
    return invalidArgument("beta must be a number in (0, " + fmt(kMaxBeta) + "], got " + fmt(p.beta));
  }
  if (!std::isfinite(p.meanLength) || p.meanLength <= 0.0) {
    return invalidArgument("meanLength must be a finite number > 0, got " + fmt(p.meanLength));
  }
  // Documents hold at most kMaxDocumentLength tokens (corpus.h); a Poisson length stays below it
  // when its mean is 10 standard deviations lower.
  if (p.meanLength > kMaxGeneratedMeanLength) {
    return invalidArgument("meanLength must be at most " + fmt(kMaxGeneratedMeanLength) + " (documents hold at most " +
                           std::to_string(kMaxDocumentLength) + " tokens), got " + fmt(p.meanLength));
  }
  if (p.fixedLength && (p.meanLength < kMinDocumentLength || p.meanLength != std::floor(p.meanLength))) {
    return invalidArgument("meanLength must be a whole number >= " + std::to_string(kMinDocumentLength) +
                           " when fixedLength is set, got " + fmt(p.meanLength));
  }
  const double topicEntries = static_cast<double>(p.vocabSize) * p.topicCount;
  if (topicEntries > kMaxTopicEntries) {
    return resourceLimit("vocabSize x topicCount = " + fmt(topicEntries) + " topic entries exceed the limit of " +
                         fmt(kMaxTopicEntries) + " (truth.json, up to 26 bytes an entry, must stay within the 1 GiB "
                         "that run --truth reads)");
  }
  // Conditioning on l >= 3 raises the mean of short documents to at least 3.
  const double meanLen = std::max(p.meanLength, static_cast<double>(kMinDocumentLength));
  const double tokens = meanLen * p.docCount;
  if (tokens > kMaxTokens) {
    return resourceLimit("docCount x meanLength = " + fmt(tokens) + " expected tokens exceed the limit of " +
                         fmt(kMaxTokens));
  }
  // CSR storage: value (8) + column index (4) per non-zero, plus row pointers and lengths.
  const double nnz = std::min(meanLen, static_cast<double>(p.vocabSize)) * p.docCount;
  const double bytes = 12.0 * nnz + 16.0 * p.docCount;
  if (nnz > INT_MAX || bytes > kMaxCorpusBytes) {
    return resourceLimit("the corpus would hold about " + fmt(nnz) + " non-zero counts (" +
                         fmt(std::round(bytes / (1 << 20))) + " MiB), more than the generator allows");
  }
  // Before allocating (issue 28: 6.5 GB at the caps above, std::bad_alloc under a 4 GB limit): the
  // corpus while it is built and its copy written out, and the truth with its sampling tables.
  DPLDA_RETURN_IF_ERROR(checkMemory(3.0 * bytes + 4.0 * 8.0 * topicEntries, "generating the corpus",
                                    "about " + fmt(nnz) + " non-zero counts and " + fmt(topicEntries) +
                                        " topic entries"));
  return Status::ok();
}

Result<SyntheticCorpus> generateLdaCorpus(const GeneratorParams& p, Feedback* feedback) {
  DPLDA_RETURN_IF_ERROR(validateGeneratorParams(p));
  const int d = p.vocabSize, k = p.topicCount, n = p.docCount;

  // ---- the truth, from SeededRandom(seed) ----
  SeededRandom truthRng(p.seed);
  LdaModel truth;
  truth.alpha.resize(k);
  if (p.prior == GeneratorParams::Prior::Random) {
    const std::vector<double> share = dirichlet(truthRng, std::vector<double>(k, 1.0));
    for (int i = 0; i < k; ++i) truth.alpha[i] = p.alpha0 * share[i];
  } else {
    truth.alpha.setConstant(p.alpha0 / k);
  }
  // A random prior can give an alpha_i that underflows to 0 only for absurd alpha0; keep it
  // strictly positive so the document Dirichlet below stays defined.
  for (int i = 0; i < k; ++i) truth.alpha[i] = std::max(truth.alpha[i], std::numeric_limits<double>::min());

  truth.topics.resize(d, k);
  std::vector<AliasTable> wordTables;
  wordTables.reserve(k);
  const std::vector<double> betaVec(d, p.beta);
  for (int i = 0; i < k; ++i) {
    const std::vector<double> mu = dirichlet(truthRng, betaVec);
    for (int w = 0; w < d; ++w) truth.topics(w, i) = mu[w];
    wordTables.emplace_back(mu);
  }
  if (isCanceled(feedback)) return cancelled();

  // ---- the documents, from the derived stream ----
  SeededRandom docRng(deriveSeed(p.seed, 1));
  const LengthSampler lengths(p);
  const std::vector<double> alphaVec(truth.alpha.data(), truth.alpha.data() + k);

  std::vector<int> outer(static_cast<std::size_t>(n) + 1, 0);
  std::vector<int> inner;
  std::vector<double> values;
  const double meanLen = std::max(p.meanLength, static_cast<double>(kMinDocumentLength));
  inner.reserve(static_cast<std::size_t>(std::min(meanLen, static_cast<double>(d)) * n * 1.05) + 16);
  values.reserve(inner.capacity());
  Eigen::VectorXd docLengths(n);

  std::vector<long long> wordCount(d, 0);
  std::vector<int> touched;
  std::vector<double> cumTheta(k);
  for (int doc = 0; doc < n; ++doc) {
    if (doc % kProgressChunk == 0) {
      if (isCanceled(feedback)) return cancelled();
      reportProgress(feedback, static_cast<double>(doc) / n);
    }
    const std::vector<double> theta = dirichlet(docRng, alphaVec);
    double acc = 0.0;
    int lastPositive = 0;
    for (int i = 0; i < k; ++i) {
      acc += theta[i];
      cumTheta[i] = acc;
      if (theta[i] > 0.0) lastPositive = i;
    }
    const long long len = lengths.sample(docRng);
    touched.clear();
    for (long long t = 0; t < len; ++t) {
      // Very long documents (few documents, huge meanLength) still notice a cancel.
      if ((t & kTokenPollMask) == kTokenPollMask && isCanceled(feedback)) return cancelled();
      // Categorical(theta) by inversion: zero-probability topics have empty intervals.
      const double u = uniform01(docRng) * acc;
      int z = static_cast<int>(std::upper_bound(cumTheta.begin(), cumTheta.end(), u) - cumTheta.begin());
      if (z > lastPositive) z = lastPositive;
      const int w = wordTables[z].sample(docRng);
      if (wordCount[w]++ == 0) touched.push_back(w);
    }
    std::sort(touched.begin(), touched.end());
    if (inner.size() + touched.size() > static_cast<std::size_t>(INT_MAX)) {
      return Status(StatusCode::ResourceLimit, "the synthetic corpus has more than 2^31 non-zero counts");
    }
    for (int w : touched) {
      inner.push_back(w);
      values.push_back(static_cast<double>(wordCount[w]));
      wordCount[w] = 0;
    }
    outer[doc + 1] = static_cast<int>(inner.size());
    docLengths[doc] = static_cast<double>(len);
  }

  SyntheticCorpus out;
  const Eigen::Map<const SparseCounts> view(n, d, static_cast<int>(inner.size()), outer.data(), inner.data(),
                                            values.data());
  out.corpus.counts = view;
  out.corpus.counts.makeCompressed();
  out.corpus.lengths = std::move(docLengths);
  out.corpus.droppedDocuments = 0;
  // Word names w0.. and every document are the generator's: nothing about the vocabulary is private.
  out.corpus.provenance.vocabulary = VocabularyOrigin::Public;
  out.corpus.provenance.source = "generate";
  out.corpus.vocab.reserve(d);
  for (int w = 0; w < d; ++w) out.corpus.vocab.push_back(std::string("w").append(std::to_string(w)));
  out.truth = std::move(truth);
  reportProgress(feedback, 1.0);
  return out;
}

}  // namespace dplda
