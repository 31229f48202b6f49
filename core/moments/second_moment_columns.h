#pragma once
// M̂2 column by column, for forming the whitened release M̃2 = M̂2ᶜ + E in double before the
// eigensolver's passes read it (core/pipeline/whitened_release.cpp, docs/PRIVACY.md §11.1).
//
// Column c of the Gram part Cᵀ diag(w) C is the sum, over the documents n holding word c, of
// w_n c_n(c) c_n: with an index of each word's documents (8 bytes per count) it is a sum of those
// documents' rows into a d-vector that stays in cache. Over all columns, Σ_n nnz_n² multiply-adds
// (half of them kept: the lower triangle): at d = 8 000 (Debian descriptions) 3.5·10⁷, where the
// products M̂2ᶜ X of the Krylov passes read every count 24 × 16 times.
#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/moments/moments.h"

namespace dplda {

class SecondMomentColumns {
 public:
  using AddColumn = std::function<void(Eigen::Index c, double* out)>;
  // Reads the operator's corpus once (in blocks, for a streamed one) to index each word's
  // documents. The operator must outlive this object.
  explicit SecondMomentColumns(const SecondMomentOperator& op);
  // Calls body(addColumn) once; addColumn(c, out) adds M̂2(c + i, c) to out[i] for i = 0 .. d − c − 1,
  // summed in a fixed order (documents ascending), so it may run for several columns at once on
  // any threads. The counts are read in place while body runs.
  void withColumns(const std::function<void(const AddColumn&)>& body) const;
  // Bytes this object holds (the index): 8 per count plus 8 per word.
  static double indexBytes(double nnz, double vocabSize) { return 8.0 * nnz + 8.0 * (vocabSize + 1.0); }

 private:
  const SecondMomentOperator* m_op;
  std::vector<std::int64_t> m_start;  // word c's documents are m_doc[m_start[c] .. m_start[c + 1])
  std::vector<std::int32_t> m_doc;    // the document
  std::vector<std::int32_t> m_entry;  // the position of its count of c among the corpus's entries
  bool m_sortedRows = true;           // every document's words ascending (a reader's usual order)
};

}  // namespace dplda
