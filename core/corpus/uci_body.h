#pragma once
// Internal to core/corpus/uci_io.cpp: the body of docword.txt ("docID wordID count" lines)
// parsed into row-sorted arrays, and the CSR corpus built from them without a triplet copy.
//
// A chunk holds its entries in file order: word ids (int32) and counts (uint32; the rare count
// above 2^32 - 1 is stored as 0 and kept in `bigCounts`), 8 bytes an entry, and its runs of
// consecutive lines with the same document. A file ordered by document (the UCI norm) has one
// run per document and is copied into the CSR as it is; any other order is grouped by document,
// sorted by word and merged. Chunks of one file can be parsed in parallel: the result does not
// depend on how the body was split.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda::uci {

// Token helpers shared by the header, vocabulary and body readers (one definition, the same
// messages everywhere).
inline constexpr std::size_t kMaxLineBytes = 1 << 20;  // no sane docword/vocab line is this long
bool isBlank(char c);
std::string_view trim(std::string_view s);
std::string quoteToken(std::string_view s);  // quoted and escaped, at most 40 characters
// A whole token as a non-negative decimal integer (digits only, at most 18 of them).
bool parseUnsigned(std::string_view token, long long& value);

struct Header {
  long long docs = 0, words = 0, nnz = 0;
  long long line[3] = {0, 0, 0};  // the line of each header value
};

struct Run {
  int doc;            // 0-based
  long long begin;    // first entry of the run in its chunk
  double length;      // sum of its counts
};

struct Chunk {
  std::vector<std::int32_t> words;   // 0-based word ids
  std::vector<std::uint32_t> counts; // 0 marks a count kept in bigCounts
  std::vector<std::pair<long long, double>> bigCounts;  // (entry, count), entries ascending
  std::vector<Run> runs;
  long long lines = 0;        // lines consumed (blank ones included)
  long long largestWord = 0;  // 1-based, 0 when no entry
  bool sorted = true;         // (doc, word) strictly increasing inside the chunk
  int lastWord = -1;

  long long entries() const { return static_cast<long long>(words.size()); }
  double count(long long i) const;
};

// What parseLine needs besides the line: the header, the escaped file name for messages, and
// whether NNZ is enforced here (sequential parse) or checked after the chunks are joined.
struct LineContext {
  const Header* header = nullptr;
  const std::string* name = nullptr;
  bool enforceNnz = true;
  long long entriesBefore = 0;  // entries of earlier chunks (sequential parse: 0)
};

// Parses one body line (without its '\n') numbered `lineNo` into `chunk`. Blank lines are
// skipped. Errors name the file, the line and the value (the messages of the reader).
Status parseLine(std::string_view line, long long lineNo, const LineContext& ctx, Chunk& chunk);

// Parses every line of `text` (complete lines; the last may lack '\n'), numbering them from
// `firstLine`. Polls `feedback` for cancellation; reports progress in [progressFrom,
// progressTo] when `progress` is set. `dropPages` (may be null) is called with byte ranges of
// `text` already parsed, so a memory-mapped file's pages can leave the resident set.
Status parseLines(std::string_view text, long long firstLine, const LineContext& ctx, Chunk& chunk,
                  Feedback* feedback, bool progress, double progressFrom, double progressTo,
                  const std::function<void(std::size_t, std::size_t)>* dropPages);

// Reserves a chunk for `bytes` of body text: the entry count is estimated from the line length
// of a sample (NNZ caps it; a header's NNZ is not trusted for memory).
void reserveFor(Chunk& chunk, std::string_view sample, std::size_t bytes, long long nnzCap);

// The corpus of the joined chunks (in file order): documents grouped, shorter than
// kMinDocumentLength dropped. Frees each chunk once it is copied.
Corpus buildFromChunks(std::vector<Chunk>& chunks, const Header& header, std::vector<std::string> vocab);

}  // namespace dplda::uci
