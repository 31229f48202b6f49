#include "core/corpus/vocabulary_compaction.h"

#include <algorithm>
#include <vector>

namespace dplda {

VocabularyCompaction compactVocabulary(Corpus& corpus) {
  VocabularyCompaction c;
  const int d = corpus.vocabSize();
  c.vocabSize = d;
  std::vector<int> newId(static_cast<std::size_t>(d), -1);
  // The words used, from blocks of documents on the threads (each thread marks its own copy).
  const Eigen::Index blocks = documentBlocks(corpus);
#pragma omp parallel if (blocks > 1)
  {
    std::vector<unsigned char> used(static_cast<std::size_t>(d), 0);
#pragma omp for schedule(dynamic, 1)
    for (Eigen::Index b = 0; b < blocks; ++b) {
      readDocumentBlock(corpus, b, [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
        for (Eigen::Index e = outer[first]; e < outer[last]; ++e) used[static_cast<std::size_t>(entry(e).first)] = 1;
      });
    }
#pragma omp critical(vocabulary_compaction)
    for (int w = 0; w < d; ++w)
      if (used[static_cast<std::size_t>(w)]) newId[static_cast<std::size_t>(w)] = 0;
  }
  for (int w = 0; w < d; ++w) {
    if (newId[static_cast<std::size_t>(w)] < 0) continue;
    newId[static_cast<std::size_t>(w)] = static_cast<int>(c.wordIds.size());
    c.wordIds.push_back(w);
  }
  if (!c.compacted()) return c;
  // The map is increasing, so every row stays sorted by column.
  if (corpus.mapped) {  // a streamed corpus maps its word ids as it reads them
    auto m = std::make_shared<MappedCounts>(*corpus.mapped);
    m->wordMap = std::move(newId);
    m->cols = static_cast<Eigen::Index>(c.wordIds.size());
    corpus.mapped = std::move(m);
  } else {
    int* inner = corpus.counts.innerIndexPtr();
    for (Eigen::Index e = 0; e < corpus.counts.nonZeros(); ++e)
      inner[e] = newId[static_cast<std::size_t>(inner[e])];
    corpus.counts.conservativeResize(corpus.counts.rows(), static_cast<Eigen::Index>(c.wordIds.size()));
    corpus.counts.makeCompressed();
  }
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
  if (corpus.mapped) {
    auto m = std::make_shared<MappedCounts>(*corpus.mapped);
    m->wordMap.clear();
    m->cols = c.vocabSize;
    corpus.mapped = std::move(m);
  } else {
    corpus.counts.conservativeResize(corpus.counts.rows(), c.vocabSize);
    int* inner = corpus.counts.innerIndexPtr();
    for (Eigen::Index e = 0; e < corpus.counts.nonZeros(); ++e)
      inner[e] = c.wordIds[static_cast<std::size_t>(inner[e])];
  }
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
