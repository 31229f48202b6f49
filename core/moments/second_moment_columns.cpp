#include "core/moments/second_moment_columns.h"

namespace dplda {

SecondMomentColumns::SecondMomentColumns(const SecondMomentOperator& op) : m_op(&op) {
  const Corpus& corpus = *op.m_corpus;
  const Eigen::Index d = corpus.vocabSize(), docs = corpus.docCount();
  // A counting sort of the entries by word, documents ascending within a word.
  m_start.assign(static_cast<std::size_t>(d + 1), 0);
  forEachRowBlock(corpus, 0, docs, [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
    for (Eigen::Index e = outer[first]; e < outer[last]; ++e) ++m_start[static_cast<std::size_t>(entry(e).first) + 1];
  });
  for (Eigen::Index c = 0; c < d; ++c) m_start[c + 1] += m_start[c];
  m_doc.resize(static_cast<std::size_t>(m_start[d]));
  m_entry.resize(m_doc.size());
  std::vector<std::int64_t> next(m_start.begin(), m_start.end() - 1);
  m_sortedRows = true;
  forEachRowBlock(corpus, 0, docs, [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
    for (Eigen::Index n = first; n < last; ++n)
      for (Eigen::Index e = outer[n]; e < outer[n + 1]; ++e) {
        const int word = entry(e).first;
        const auto slot = static_cast<std::size_t>(next[static_cast<std::size_t>(word)]++);
        m_doc[slot] = static_cast<std::int32_t>(n);
        m_entry[slot] = static_cast<std::int32_t>(e);
        if (e > outer[n] && entry(e - 1).first >= word) m_sortedRows = false;
      }
  });
}

void SecondMomentColumns::withColumns(const std::function<void(const AddColumn&)>& body) const {
  const SecondMomentOperator& op = *m_op;
  const Corpus& corpus = *op.m_corpus;
  const Eigen::Index d = corpus.vocabSize();
  const double* w = op.m_docWeights.data();
  const double* g = op.m_diagonal.data();
  const double* s1 = op.m_sum1.data();
  const double r = op.m_rankOneWeight;
  // M̂2 = Cᵀ diag(w) C − diag(g) − r S1 S1ᵀ (moments.h), column c from row c down.
  withRows(corpus, 0, corpus.docCount(), [&](Eigen::Index, Eigen::Index, const int* outer, auto entry) {
    body([&](Eigen::Index c, double* out) {
      for (std::int64_t at = m_start[c]; at < m_start[c + 1]; ++at) {
        const std::int32_t n = m_doc[static_cast<std::size_t>(at)];
        const Eigen::Index self = m_entry[static_cast<std::size_t>(at)];
        const double scale = w[n] * entry(self).second;
        if (m_sortedRows) {  // the words from c on follow c's entry
          for (Eigen::Index e = self; e < outer[n + 1]; ++e) {
            const auto [j, count] = entry(e);
            out[j - c] += scale * count;
          }
        } else {
          for (Eigen::Index e = outer[n]; e < outer[n + 1]; ++e) {
            const auto [j, count] = entry(e);
            if (j >= c) out[j - c] += scale * count;
          }
        }
      }
      out[0] -= g[c];
      const double rc = r * s1[c];
      for (Eigen::Index i = 0; i < d - c; ++i) out[i] -= rc * s1[c + i];
    });
  });
}

}  // namespace dplda
