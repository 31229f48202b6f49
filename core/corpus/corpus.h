#pragma once
// The bag-of-words corpus: an N x d sparse count matrix (row = document) plus vocabulary.
//
// Stored as an Eigen row-major sparse matrix (CSR) of doubles: the moment code walks
// documents row by row and multiplies C by dense k-column blocks (Y = C W), which Eigen's
// sparse-dense products do well; counts are exact small integers in double.
#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace dplda {

using SparseCounts = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

// Documents shorter than this are not part of the corpus (SPEC §1): the third-moment
// estimator divides by l(l-1)(l-2).
inline constexpr int kMinDocumentLength = 3;

struct Corpus {
  SparseCounts counts;             // N x d, entries are positive integer counts
  Eigen::VectorXd lengths;         // l_n = row sums of counts
  std::vector<std::string> vocab;  // size d, or empty when words have no names
  int droppedDocuments = 0;        // documents with fewer than kMinDocumentLength tokens

  int docCount() const { return static_cast<int>(counts.rows()); }
  int vocabSize() const { return static_cast<int>(counts.cols()); }
  long long nnz() const { return counts.nonZeros(); }
  double maxLength() const { return lengths.size() ? lengths.maxCoeff() : 0.0; }
  std::string wordName(int i) const {
    return i < static_cast<int>(vocab.size()) ? vocab[i] : "w" + std::to_string(i);
  }
};

// Builds a corpus from (doc, word, count) triplets with 0-based ids. Documents with fewer
// than kMinDocumentLength tokens are dropped and counted; empty rows are dropped too.
// Duplicate (doc, word) pairs are summed. Returns BadInput for negative/zero/non-integer
// counts or ids out of range, naming the offending triplet.
struct CountTriplet {
  int doc;
  int word;
  double count;
};
Result<Corpus> buildCorpus(int docCount, int vocabSize, const std::vector<CountTriplet>& triplets,
                           std::vector<std::string> vocab = {});

// The ground truth of a synthetic corpus.
struct LdaModel {
  Eigen::VectorXd alpha;   // k Dirichlet parameters, sum alpha0
  Eigen::MatrixXd topics;  // d x k, each column on the simplex
  double alpha0() const { return alpha.sum(); }
  int topicCount() const { return static_cast<int>(alpha.size()); }
  int vocabSize() const { return static_cast<int>(topics.rows()); }
};

}  // namespace dplda
