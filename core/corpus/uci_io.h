#pragma once
// The UCI bag-of-words format (archive.ics.uci.edu "Bag of Words"):
//   docword.txt  three header lines D, W, NNZ, then NNZ lines "docID wordID count" (1-based ids)
//   vocab.txt    optional, one word per line; line i names word id i
// Reading is strict: every problem is a Status naming the file, the line and the value (user
// text escaped, core/common/text_escape.h). Repeated (doc, word) lines are summed. Documents
// with fewer than 3 tokens are dropped and counted in Corpus::droppedDocuments; if none is left
// the read fails with BadInput. A UTF-8 byte order mark at the start of either file is skipped,
// CRLF line ends are accepted. Hostile headers cost nothing: W above kMaxVocabularySize is
// refused (ResourceLimit) before the body is read, memory follows the entries in the file, not
// D or NNZ, and without vocab.txt W must be the largest word id used (docs/FUZZING.md).
//
// Speed and memory (issue 11, docs/BENCHMARKS.md): docword.txt is memory-mapped and parsed in
// place by one chunk per OpenMP thread (a pipe is streamed); the CSR is filled from row-sorted
// 8-byte entries, so the peak is about 20 bytes per non-zero (the corpus itself is 12). The
// corpus and every message are the same for any thread count. loadUciCorpus
// (core/corpus/corpus_cache.h) adds the binary cache.
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/safe_file.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

// `path` is a folder holding docword.txt (and optionally vocab.txt), or a docword file itself,
// in which case vocab.txt is looked for in the same folder. When vocab.txt exists its number of
// lines must equal W, it must be valid UTF-8 and its words printable (no control characters).
// Polls feedback while reading (Cancelled).
Result<Corpus> readUciCorpus(const std::string& path, Feedback* feedback = nullptr);

// The files readUciCorpus(path) reads: docword.txt and vocab.txt (which may not exist). For the
// inputs a command must never write over (core/common/safe_file.h).
std::vector<std::string> uciCorpusFiles(const std::string& path);

// Creates the folder `dir` (and parents) and writes docword.txt and vocab.txt (names "w0".. when
// the corpus has none), atomically (core/common/safe_file.h): `rules` says which inputs are never
// written over and whether an existing corpus there may be replaced. Counts are written as
// integers. Refuses an empty corpus (it could not be read back) and vocabulary words containing
// line breaks.
Status writeUciCorpus(const Corpus& corpus, const std::string& dir, const OutputRules& rules = {});

}  // namespace dplda
