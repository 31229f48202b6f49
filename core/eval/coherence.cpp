#include "core/eval/coherence.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/eval/metrics.h"

namespace dplda {

namespace {

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
  // One pass over the documents counting, for each topic, the documents of each top word and of
  // each pair of them (k n² counters; lists of the documents of each top word took 4 bytes per
  // document and word, gigabytes at 3·10⁶ documents: issue 27 §4).
  // A top word's (topic, rank) slots: slots[slotOf[word]], slotOf -1 for the other words. An array
  // indexed by word, not a hash map: the pass looks up every count (4 bytes a word).
  std::vector<int> slotOf(static_cast<std::size_t>(d), -1);
  std::vector<std::vector<std::pair<int, int>>> slots;
  for (Eigen::Index t = 0; t < topics.cols(); ++t) {
    TopicCoherence c;
    c.topWords = topIndices(topics.col(t), n);
    for (int i = 0; i < n; ++i) {
      int& s = slotOf[static_cast<std::size_t>(c.topWords[i])];
      if (s < 0) {
        s = static_cast<int>(slots.size());
        slots.emplace_back();
      }
      slots[static_cast<std::size_t>(s)].emplace_back(static_cast<int>(t), i);
    }
    out.topics.push_back(std::move(c));
  }
  const std::size_t k = out.topics.size(), nn = static_cast<std::size_t>(n);
  // [topic][i(i+1)/2 + j], j <= i: documents with both top words i and j (with i when j == i).
  const std::size_t triangle = nn * (nn + 1) / 2;
  std::vector<int> together(k * triangle, 0);
  int documents = 0;
  // Blocks of documents on the OpenMP threads, each thread's counts added at the end: integer
  // sums, the same whatever the order (a serial pass was 0.3 s of a NYTimes-sized `dplda run`).
  const Eigen::Index blocks = documentBlocks(reference);
#pragma omp parallel if (blocks > 1)
  {
    std::vector<int> mine(k * triangle, 0);
    std::vector<std::vector<int>> present(k);  // ranks of a topic's top words in the document
    int myDocuments = 0;
#pragma omp for schedule(dynamic, 1)
    for (Eigen::Index b = 0; b < blocks; ++b) {
      readDocumentBlock(reference, b, [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
        for (Eigen::Index doc = first; doc < last; ++doc) {
          bool any = false;
          for (auto& p : present) p.clear();
          for (Eigen::Index e = outer[doc]; e < outer[doc + 1]; ++e) {
            const auto [word, count] = entry(e);
            if (count <= 0) continue;
            any = true;
            const int s = slotOf[static_cast<std::size_t>(word)];
            if (s < 0) continue;
            for (const auto& [t, rank] : slots[static_cast<std::size_t>(s)])
              present[static_cast<std::size_t>(t)].push_back(rank);
          }
          myDocuments += any ? 1 : 0;
          for (std::size_t t = 0; t < k; ++t)
            for (const int i : present[t])
              for (const int j : present[t])
                if (j <= i)
                  ++mine[t * triangle + static_cast<std::size_t>(i) * (i + 1) / 2 + static_cast<std::size_t>(j)];
        }
      });
    }
#pragma omp critical(coherence_counts)
    {
      documents += myDocuments;
      for (std::size_t c = 0; c < mine.size(); ++c) together[c] += mine[c];
    }
  }
  if (documents == 0) return badInput("the reference corpus has no document with a token");
  out.referenceDocuments = documents;
  const double r = documents;
  const double pairs = n * (n - 1) / 2.0;
  for (std::size_t t = 0; t < k; ++t) {
    TopicCoherence& c = out.topics[t];
    auto count = [&](int i, int j) {  // j <= i
      return together[t * triangle + static_cast<std::size_t>(i) * (i + 1) / 2 + static_cast<std::size_t>(j)];
    };
    double npmiSum = 0.0, umassSum = 0.0;
    for (int i = 0; i < n; ++i) c.absentWords += count(i, i) == 0 ? 1 : 0;
    for (int i = 1; i < n; ++i) {
      const int di = count(i, i);
      for (int j = 0; j < i; ++j) {
        const int dj = count(j, j), dij = count(i, j);
        npmiSum += npmi(dij, di, dj, r);
        umassSum += std::log((dij + 1.0) / std::max<double>(1.0, static_cast<double>(dj)));
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
