#pragma once
// The bag-of-words corpus: an N x d sparse count matrix (row = document) plus vocabulary.
//
// Stored as an Eigen row-major sparse matrix (CSR) of doubles: the moment code walks
// documents row by row and multiplies C by dense k-column blocks (Y = C W), which Eigen's
// sparse-dense products do well; counts are exact small integers in double.
#include <Eigen/Dense>
#include <algorithm>
#include <Eigen/Sparse>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/common/status.h"
#include "core/corpus/corpus_provenance.h"

namespace dplda {

using SparseCounts = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

// Documents shorter than this are not part of the corpus (SPEC §1): the third-moment
// estimator divides by l(l-1)(l-2).
inline constexpr int kMinDocumentLength = 3;

// The ranges every reader, generator and validation function of the tool accepts. Each is
// named in the messages of the values it refuses (docs/FUZZING.md says why these values).
//
// Vocabulary size d (UCI header W, import-text --vocab, generate --vocab): memory and time of
// a fit grow with d even when few words are used (about 350 bytes and 2 µs per word for the
// moment operator's per-thread lanes and the eigensolver's Krylov vectors), so a 100-byte
// corpus file declaring W = 10^7 would take 3 GB and 40 s before any check on the data.
// At 10^6 that is 0.35 GB and 2 s; real vocabularies (NYTimes 102 660, PubMed 141 043 words)
// are well below it.
inline constexpr int kMaxVocabularySize = 1000000;
// α0, the sum of the Dirichlet prior (run --alpha0, generate --alpha0, sessions): the estimator
// constants a = α0/(α0+1), b = −α0/(α0+2), c = 2α0²/((α0+1)(α0+2)) are within 1e-6 of their
// limits 1, −1, 2 at α0 = 1e6 (the fit no longer changes), while α0² overflows near 1.3e154.
inline constexpr double kMaxAlpha0 = 1e6;
// The generator's topic concentration β: Dirichlet(β·1_d) is uniform to within 1e-3 at 1e6, and
// its gamma draws (β·d of them summed) must stay finite.
inline constexpr double kMaxBeta = 1e6;
// The public clipping length L_max of input perturbation (run/sweep --max-length, sessions):
// longer than any real document (a long book is 10^5–10^6 tokens), and small enough that the
// noisy counts (up to 8.6 σ with σ ∝ L_max) and their cubes in the third moment stay finite.
inline constexpr double kMaxClipLength = 1e7;

// The most tokens a document may hold (docword.txt counts and document lengths, import-text,
// generate): longer than any real document (a long book is 10^5–10^6 tokens), as kMaxClipLength.
// Held-out evaluation lists a document's tokens one by one (perplexity.h), so a count of 2^40 in a
// 30 KB file ended in std::bad_alloc inside a worker thread (issue 28).
inline constexpr long long kMaxDocumentLength = 10000000;

class MappedFile;

// A streamed pass reads this many entries (8 bytes each in the mapping) per block and thread.
inline constexpr Eigen::Index kStreamBlockEntries = Eigen::Index{1} << 22;

// The counts of a streamed corpus: read in place from the memory-mapped binary cache
// (corpus_cache.h) instead of copied into memory, so a fit holds a few blocks of documents at a
// time, not 12 bytes per count (issue 27 §4). The row offsets are in memory (4 bytes per document,
// with the empty documents a text import keeps appended); the word ids and counts are the cache's
// sections, whose pages are released behind every block read (forEachRowBlock below).
struct MappedCounts {
  std::shared_ptr<const MappedFile> file;  // keeps the mapping open
  Eigen::Index cols = 0;                   // columns the passes see (fewer when compacted)
  std::vector<int> outer;                  // rows + 1 offsets into the entries
  const std::int32_t* words = nullptr;     // word id of each entry (the cache's ids)
  const std::uint32_t* counts = nullptr;   // count of each entry
  std::size_t wordsAt = 0, countsAt = 0;   // byte offsets of the two sections in the file
  // Compaction (vocabulary_compaction.h): the column of each cache word id; empty: the ids themselves.
  std::vector<int> wordMap;
  Eigen::Index blockEntries = 0;           // entries per block of forEachRowBlock (0: kStreamBlockEntries)
  bool keepPages = false;                  // release() keeps the pages (CorpusCacheOptions::keepMappedBytes)
  Eigen::Index nnz() const { return outer.empty() ? 0 : outer.back(); }
  // Drops the mapped pages of entries [from, to) from the resident set (rounded out to whole pages:
  // a page another block still reads is read again from the page cache, never wrong), unless
  // keepPages.
  void release(Eigen::Index from, Eigen::Index to) const;
};

struct Corpus {
  Corpus() = default;
  Corpus(const Corpus&) = default;
  Corpus& operator=(const Corpus&) = default;
  // Eigen 3.4's SparseMatrix has no move constructor: without these a moved Corpus (every
  // Result<Corpus>, make_shared<Corpus>(take(...))) deep-copied its counts (issue 11).
  Corpus(Corpus&& o) noexcept
      : lengths(std::move(o.lengths)),
        vocab(std::move(o.vocab)),
        droppedDocuments(o.droppedDocuments),
        emptyDocuments(o.emptyDocuments),
        provenance(std::move(o.provenance)),
        mapped(std::move(o.mapped)) {
    counts.swap(o.counts);
  }
  Corpus& operator=(Corpus&& o) noexcept {
    counts.swap(o.counts);
    lengths.swap(o.lengths);
    vocab.swap(o.vocab);
    std::swap(droppedDocuments, o.droppedDocuments);
    std::swap(emptyDocuments, o.emptyDocuments);
    std::swap(provenance, o.provenance);
    std::swap(mapped, o.mapped);
    return *this;
  }

  SparseCounts counts;             // N x d, entries are positive integer counts
  Eigen::VectorXd lengths;         // l_n = row sums of counts
  std::vector<std::string> vocab;  // size d, or empty when words have no names
  int droppedDocuments = 0;        // documents with fewer than kMinDocumentLength tokens
  // Documents that count in N but contribute nothing: rows with no entries (length 0). A text
  // import keeps a document left with fewer than 3 vocabulary tokens this way, so that N is the
  // public number of documents on neighbouring inputs (SPEC §17, docs/PRIVACY.md §13). Every
  // estimator skips them (contributes()) and divides by N = docCount().
  int emptyDocuments = 0;
  CorpusProvenance provenance;     // where the vocabulary and the documents came from
  // Set for a streamed corpus (loadUciCorpus with CorpusCacheOptions::stream): `counts` is then
  // empty and the passes read these through forEachRowBlock / withRows, the one way every moment
  // pass reads documents. Code that reads `counts` directly (held-out splits, VI, input
  // perturbation, the online decomposer) is given resident corpora only (run_command.cpp).
  std::shared_ptr<const MappedCounts> mapped;

  bool streamed() const { return mapped != nullptr; }
  int docCount() const { return static_cast<int>(mapped ? Eigen::Index(mapped->outer.size()) - 1 : counts.rows()); }
  int vocabSize() const { return static_cast<int>(mapped ? mapped->cols : counts.cols()); }
  long long nnz() const { return mapped ? mapped->nnz() : counts.nonZeros(); }
  double maxLength() const { return lengths.size() ? lengths.maxCoeff() : 0.0; }
  // Documents with a non-zero contribution (docCount() minus the empty ones).
  int contributingDocCount() const { return docCount() - emptyDocuments; }
  std::string wordName(int i) const {
    // append, not "w" + to_string: GCC 12 reports a false -Wrestrict on the latter when inlined.
    return i < static_cast<int>(vocab.size()) ? vocab[i] : std::string("w").append(std::to_string(i));
  }
};

// Reading the counts of documents [begin, end): f(begin, end, outer, entry) once, where outer[n]
// to outer[n+1] are the entries of document n and entry(e) = std::pair(column, count) of entry e,
// both storages giving the same doubles. A streamed corpus's pages of the range leave the resident
// set after f: callers keep the range to a bounded block (a few thousand documents).
template <class F>
void withRows(const Corpus& corpus, Eigen::Index begin, Eigen::Index end, F&& f) {
  if (begin >= end) return;
  if (!corpus.mapped) {
    const SparseCounts* C = &corpus.counts;
    SparseCounts compressed;  // no reader makes an uncompressed matrix; a test might
    if (!C->isCompressed()) {
      compressed = *C;
      compressed.makeCompressed();
      C = &compressed;
    }
    const double* v = C->valuePtr();
    const int* cols = C->innerIndexPtr();
    f(begin, end, C->outerIndexPtr(), [v, cols](Eigen::Index e) { return std::pair<int, double>{cols[e], v[e]}; });
    return;
  }
  const MappedCounts& m = *corpus.mapped;
  const std::int32_t* words = m.words;
  const std::uint32_t* counts = m.counts;
  if (m.wordMap.empty()) {
    f(begin, end, m.outer.data(),
      [words, counts](Eigen::Index e) { return std::pair<int, double>{words[e], static_cast<double>(counts[e])}; });
  } else {
    const int* map = m.wordMap.data();
    f(begin, end, m.outer.data(), [words, counts, map](Eigen::Index e) {
      return std::pair<int, double>{map[words[e]], static_cast<double>(counts[e])};
    });
  }
  m.release(m.outer[static_cast<std::size_t>(begin)], m.outer[static_cast<std::size_t>(end)]);
}

// withRows over [begin, end) in order, in blocks of about kStreamBlockEntries entries for a
// streamed corpus (one block for a resident one). The documents are visited in the same order
// either way, so sums formed across blocks have the same bits.
template <class F>
void forEachRowBlock(const Corpus& corpus, Eigen::Index begin, Eigen::Index end, F&& f) {
  if (!corpus.mapped) return withRows(corpus, begin, end, f);
  const std::vector<int>& outer = corpus.mapped->outer;
  const Eigen::Index block = corpus.mapped->blockEntries > 0 ? corpus.mapped->blockEntries : kStreamBlockEntries;
  while (begin < end) {
    // The documents up to `block` entries from begin (at least one document).
    const auto limit = static_cast<long long>(outer[static_cast<std::size_t>(begin)]) + block;
    auto it = std::upper_bound(outer.begin() + begin + 1, outer.begin() + end + 1, limit,
                               [](long long v, int o) { return v < o; });
    const Eigen::Index stop = std::max<Eigen::Index>(begin + 1, (it - outer.begin()) - 1);
    withRows(corpus, begin, stop, f);
    begin = stop;
  }
}

// A pass on the OpenMP threads with state of its own per thread takes the documents in fixed
// blocks of kDocumentsPerBlock: `#pragma omp for` over b < documentBlocks(corpus), block b read
// by readDocumentBlock (the blocks do not depend on the thread count).
inline constexpr Eigen::Index kDocumentsPerBlock = 8192;
inline Eigen::Index documentBlocks(const Corpus& corpus) {
  return (corpus.docCount() + kDocumentsPerBlock - 1) / kDocumentsPerBlock;
}
template <class F>
void readDocumentBlock(const Corpus& corpus, Eigen::Index block, F&& f) {
  const Eigen::Index begin = block * kDocumentsPerBlock;
  forEachRowBlock(corpus, begin, std::min<Eigen::Index>(corpus.docCount(), begin + kDocumentsPerBlock), f);
}

// Whether a document of this length enters the estimators (empty documents do not).
inline bool contributes(double length) { return length >= kMinDocumentLength; }

// Keeps documents with fewer than kMinDocumentLength tokens as empty rows (no entries) instead of
// dropping them: the rows appended at the end, droppedDocuments moved to emptyDocuments.
void keepDroppedAsEmpty(Corpus& corpus);

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
