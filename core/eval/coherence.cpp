#include "core/eval/coherence.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/eval/metrics.h"

namespace dplda {

namespace {

// |A ∩ B| of two increasing lists.
int intersectionSize(const std::vector<int>& a, const std::vector<int>& b) {
  int count = 0;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] < b[j]) ++i;
    else if (b[j] < a[i]) ++j;
    else ++count, ++i, ++j;
  }
  return count;
}

double npmi(int dij, int di, int dj, double r) {
  if (dij == 0) return -1.0;  // never together: the limit as P(w_i, w_j) -> 0
  const double pij = dij / r;
  if (pij >= 1.0) return 1.0;  // in every document: -log P = 0, the limit is 1
  return std::log(pij / ((di / r) * (dj / r))) / -std::log(pij);
}

}  // namespace

Result<CoherenceResult> topicCoherence(const Eigen::MatrixXd& topics, const Corpus& reference, int n) {
  const int d = static_cast<int>(topics.rows());
  if (n < 2 || n > d) {
    return invalidArgument("the coherence's top words N must be in 2.." + std::to_string(d) + " (the vocabulary), got " +
                           std::to_string(n));
  }
  if (reference.vocabSize() != d) {
    return badInput("the reference corpus has " + std::to_string(reference.vocabSize()) +
                    " words but the topics are over " + std::to_string(d));
  }
  if (!topics.allFinite()) return badInput("a topic has a weight that is not a finite number");
  CoherenceResult out;
  out.topWordCount = n;
  // The documents of each top word (only those words: k N lists, not d).
  std::unordered_map<int, std::vector<int>> docsOf;
  for (Eigen::Index t = 0; t < topics.cols(); ++t) {
    TopicCoherence c;
    c.topWords = topIndices(topics.col(t), n);
    for (int w : c.topWords) docsOf.try_emplace(w);
    out.topics.push_back(std::move(c));
  }
  int documents = 0;
  for (int doc = 0; doc < reference.docCount(); ++doc) {
    bool any = false;
    for (SparseCounts::InnerIterator it(reference.counts, doc); it; ++it) {
      if (it.value() <= 0) continue;
      any = true;
      const auto found = docsOf.find(static_cast<int>(it.index()));
      if (found != docsOf.end()) found->second.push_back(doc);  // increasing: rows in order
    }
    documents += any ? 1 : 0;
  }
  if (documents == 0) return badInput("the reference corpus has no document with a token");
  out.referenceDocuments = documents;
  const double r = documents;
  const double pairs = n * (n - 1) / 2.0;
  for (TopicCoherence& c : out.topics) {
    double npmiSum = 0.0, umassSum = 0.0;
    for (int w : c.topWords) c.absentWords += docsOf[w].empty() ? 1 : 0;
    for (int i = 1; i < n; ++i) {
      const std::vector<int>& di = docsOf[c.topWords[i]];
      for (int j = 0; j < i; ++j) {
        const std::vector<int>& dj = docsOf[c.topWords[j]];
        const int dij = intersectionSize(di, dj);
        npmiSum += npmi(dij, static_cast<int>(di.size()), static_cast<int>(dj.size()), r);
        umassSum += std::log((dij + 1.0) / std::max<double>(1.0, static_cast<double>(dj.size())));
      }
    }
    c.npmi = npmiSum / pairs;
    c.umass = umassSum / pairs;
    out.meanNpmi += c.npmi / static_cast<double>(out.topics.size());
    out.meanUmass += c.umass / static_cast<double>(out.topics.size());
  }
  return out;
}

}  // namespace dplda
