#include "core/corpus/vocabulary_compaction.h"

namespace dplda {

VocabularyCompaction compactVocabulary(Corpus& corpus) {
  VocabularyCompaction c;
  const int d = corpus.vocabSize();
  c.vocabSize = d;
  std::vector<int> newId(static_cast<std::size_t>(d), -1);
  const SparseCounts& C = corpus.counts;
  for (Eigen::Index e = 0; e < C.nonZeros(); ++e) newId[static_cast<std::size_t>(C.innerIndexPtr()[e])] = 0;
  for (int w = 0; w < d; ++w) {
    if (newId[static_cast<std::size_t>(w)] < 0) continue;
    newId[static_cast<std::size_t>(w)] = static_cast<int>(c.wordIds.size());
    c.wordIds.push_back(w);
  }
  if (!c.compacted()) return c;
  // The map is increasing, so every row stays sorted by column.
  int* inner = corpus.counts.innerIndexPtr();
  for (Eigen::Index e = 0; e < corpus.counts.nonZeros(); ++e) inner[e] = newId[static_cast<std::size_t>(inner[e])];
  corpus.counts.conservativeResize(corpus.counts.rows(), static_cast<Eigen::Index>(c.wordIds.size()));
  corpus.counts.makeCompressed();
  if (!corpus.vocab.empty()) {
    c.removedNames = std::move(corpus.vocab);
    corpus.vocab.clear();
    for (int w : c.wordIds) corpus.vocab.push_back(c.removedNames[static_cast<std::size_t>(w)]);
  } else {
    // Names of the kept words as the original corpus printed them ("w" + original id).
    for (int w : c.wordIds) corpus.vocab.push_back(std::string("w").append(std::to_string(w)));
  }
  return c;
}

void restoreVocabulary(Corpus& corpus, VocabularyCompaction& c) {
  if (!c.compacted()) return;
  corpus.counts.conservativeResize(corpus.counts.rows(), c.vocabSize);
  int* inner = corpus.counts.innerIndexPtr();
  for (Eigen::Index e = 0; e < corpus.counts.nonZeros(); ++e) inner[e] = c.wordIds[static_cast<std::size_t>(inner[e])];
  corpus.vocab = std::move(c.removedNames);
  c.removedNames.clear();
}

Eigen::MatrixXd expandWordRows(const Eigen::MatrixXd& compact, const VocabularyCompaction& c) {
  if (!c.compacted()) return compact;
  Eigen::MatrixXd full = Eigen::MatrixXd::Zero(c.vocabSize, compact.cols());
  for (std::size_t j = 0; j < c.wordIds.size(); ++j) full.row(c.wordIds[j]) = compact.row(static_cast<Eigen::Index>(j));
  return full;
}

}  // namespace dplda
