#pragma once
// Topic coherence over document co-occurrence (what text-analysis users compare topic models on):
// for each topic, its top N words w_1..w_N (largest weight first, ties by word id; N public) and,
// over the R documents of a reference corpus that hold a token, D(w) = the documents holding w and D(w, v) = those
// holding both (a document counts once, however often it repeats a word).
//
// NPMI (Bouma 2009; the C_NPMI of Röder et al. 2015 with document windows), averaged over the
// N(N−1)/2 pairs j < i:
//   NPMI(w_i, w_j) = log(P(w_i, w_j) / (P(w_i) P(w_j))) / −log P(w_i, w_j),  P(w) = D(w)/R, P(w, v) = D(w, v)/R.
//   Conventions: a pair that never co-occurs (D(w_i, w_j) = 0, also when a word occurs nowhere)
//   has NPMI = −1, its limit as P(w_i, w_j) → 0; a pair in every document (P = 1) has NPMI = 1.
//   Range [−1, 1]; higher is more coherent.
// UMass (Mimno et al. 2011), averaged over the same pairs (Mimno's sum / (N(N−1)/2), so values
// for different N compare; gensim's u_mass aggregates the same way):
//   UMass(w_i, w_j) = log((D(w_i, w_j) + 1) / D(w_j)),  j < i (w_j the more probable word).
//   Convention: a word that occurs in no reference document is counted as D(w_j) = 1 (the term is
//   then log 1 = 0, not infinite); such words are counted per topic (absentWords). Range (−∞, log 2];
//   higher is more coherent.
// Whose data it is decides the label (docs/PRIVACY.md): coherence on the training corpus is an
// exact statistic of the private documents (a non-private diagnostic); on a public reference
// corpus it is post-processing of the released topics.
#include <Eigen/Dense>
#include <vector>

#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

inline constexpr int kDefaultCoherenceTopWords = 10;

struct TopicCoherence {
  std::vector<int> topWords;  // word ids, largest weight first
  double npmi = 0.0;          // mean over pairs
  double umass = 0.0;         // mean over pairs
  int absentWords = 0;        // top words in no reference document
};

struct CoherenceResult {
  std::vector<TopicCoherence> topics;  // one per column of the topics
  double meanNpmi = 0.0;               // mean over topics
  double meanUmass = 0.0;
  int topWordCount = 0;                // N
  int referenceDocuments = 0;          // R (documents with at least one token)
};

// topics: d x k (column = topic). InvalidArgument for N outside 2..d; BadInput when the reference
// has another vocabulary size, no document with a token, or a topic with a non-finite weight.
Result<CoherenceResult> topicCoherence(const Eigen::MatrixXd& topics, const Corpus& reference,
                                       int topWordCount = kDefaultCoherenceTopWords);

}  // namespace dplda
