#pragma once
// The words no document uses, taken out of a corpus for a non-private fit and put back for its
// output (issue 28): a 1.5 KB docword.txt may declare W = 10^6 words, and every stage of a fit
// holds vectors of length d (the VI topics are k x d: 1.6 GB each at k = 200). Compacting makes
// memory follow the words used; the output speaks of the original word ids and names.
//
// A word that no training document uses gets probability 0 in every fitted topic. Only
// non-private fits compact: a private release adds noise over every word of the declared
// vocabulary (which words a corpus uses is private), so it keeps all d columns.
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "core/corpus/corpus.h"

namespace dplda {

struct VocabularyCompaction {
  std::vector<int> wordIds;                // column j of the compacted corpus is original word wordIds[j]
  std::vector<std::string> removedNames;   // the original vocabulary (names of all d words), if it had one
  int vocabSize = 0;                       // the original d
  bool compacted() const { return static_cast<int>(wordIds.size()) != vocabSize; }
};

// Drops the columns no document uses, in place (O(nnz + d)); the corpus keeps the names of the
// words it keeps. Nothing changes when every word is used.
VocabularyCompaction compactVocabulary(Corpus& corpus);

// Undoes compactVocabulary on the same corpus (ids and names back to the original ones); the
// compaction still maps rows for expandWordRows.
void restoreVocabulary(Corpus& corpus, VocabularyCompaction& compaction);

// Rows of a (compacted d') x k matrix placed at their original word ids of a d x k matrix;
// the other rows are 0.
Eigen::MatrixXd expandWordRows(const Eigen::MatrixXd& compact, const VocabularyCompaction& compaction);

}  // namespace dplda
