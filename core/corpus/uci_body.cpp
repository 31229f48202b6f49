#include "core/corpus/uci_body.h"

#include <algorithm>
#include <cstring>

#include "core/common/text_escape.h"

namespace dplda::uci {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
  return s;
}

std::string quoteToken(std::string_view s) { return quoteText(s, 40); }

bool parseUnsigned(std::string_view token, long long& value) {
  if (token.empty() || token.size() > 18) return false;
  long long v = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  value = v;
  return true;
}

namespace {

constexpr long long kMaxCount = kMaxDocumentLength;  // one count may fill a whole document
constexpr long long kCancelPollLines = 1 << 20;
constexpr std::size_t kDropBytes = 64u << 20;   // pages are released in steps of this

int splitTokens(std::string_view line, std::string_view* tokens, int maxTokens) {
  int count = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isBlank(line[i])) ++i;
    if (i >= line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !isBlank(line[j])) ++j;
    if (count == maxTokens) return maxTokens + 1;
    tokens[count++] = line.substr(i, j - i);
    i = j;
  }
  return count;
}

// The common line "digits blanks digits blanks digits": 0 blank, 1 three numbers, -1 anything
// else (the careful path below decides and words the message).
inline int fastLine(const char* p, const char* e, long long v[3]) {
  for (int t = 0; t < 3; ++t) {
    while (p < e && isBlank(*p)) ++p;
    if (p == e) return t == 0 ? 0 : -1;
    const char* s = p;
    unsigned long long x = 0;
    while (p < e && static_cast<unsigned char>(*p - '0') < 10) x = x * 10 + static_cast<unsigned>(*p++ - '0');
    if (p == s || p - s > 18 || (p < e && !isBlank(*p))) return -1;
    v[t] = static_cast<long long>(x);
  }
  while (p < e && isBlank(*p)) ++p;
  return p == e ? 1 : -1;
}

void addEntry(Chunk& c, long long doc, long long word, long long count) {
  const int d = static_cast<int>(doc - 1), w = static_cast<int>(word - 1);
  if (c.runs.empty() || c.runs.back().doc != d) {
    if (!c.runs.empty() && d < c.runs.back().doc) c.sorted = false;
    c.runs.push_back({d, c.entries(), 0.0});
  } else if (w <= c.lastWord) {
    c.sorted = false;
  }
  c.lastWord = w;
  c.runs.back().length += static_cast<double>(count);
  if (count > 0xFFFFFFFFLL) {
    c.bigCounts.emplace_back(c.entries(), static_cast<double>(count));
    c.counts.push_back(0);
  } else {
    c.counts.push_back(static_cast<std::uint32_t>(count));
  }
  c.words.push_back(w);
  c.largestWord = std::max(c.largestWord, word);
}

}  // namespace

double Chunk::count(long long i) const {
  const std::uint32_t v = counts[static_cast<std::size_t>(i)];
  if (v) return v;
  const auto it = std::lower_bound(bigCounts.begin(), bigCounts.end(), std::make_pair(i, 0.0));
  return it->second;
}

Status parseLine(std::string_view line, long long lineNo, const LineContext& ctx, Chunk& chunk) {
  const Header& h = *ctx.header;
  long long v[3];
  const int fast = fastLine(line.data(), line.data() + line.size(), v);
  if (fast == 0) return Status::ok();
  const auto where = [&]() { return *ctx.name + " line " + std::to_string(lineNo) + ": "; };
  if (ctx.enforceNnz && ctx.entriesBefore + chunk.entries() == h.nnz && fast == 1) {
    return badInput(where() + "more entries than NNZ = " + std::to_string(h.nnz) + " declared in the header");
  }
  if (fast == 1 && v[0] >= 1 && v[0] <= h.docs && v[1] >= 1 && v[1] <= h.words && v[2] >= 1 && v[2] <= kMaxCount) {
    addEntry(chunk, v[0], v[1], v[2]);
    return Status::ok();
  }
  // The careful path: the first problem of the line, in the order the reader has always checked.
  std::string_view tok[3];
  const int found = splitTokens(line, tok, 3);
  if (found == 0) return Status::ok();
  if (found != 3) {
    return badInput(where() + "expected three integers \"docID wordID count\" but found " + quoteToken(trim(line)));
  }
  if (ctx.enforceNnz && ctx.entriesBefore + chunk.entries() == h.nnz) {
    return badInput(where() + "more entries than NNZ = " + std::to_string(h.nnz) + " declared in the header");
  }
  long long doc = 0, word = 0, count = 0;
  if (!parseUnsigned(tok[0], doc))
    return badInput(where() + "document id " + quoteToken(tok[0]) + " is not a positive integer");
  if (!parseUnsigned(tok[1], word))
    return badInput(where() + "word id " + quoteToken(tok[1]) + " is not a positive integer");
  if (!parseUnsigned(tok[2], count))
    return badInput(where() + "count " + quoteToken(tok[2]) + " is not a positive integer");
  if (doc < 1 || doc > h.docs)
    return badInput(where() + "document id " + std::to_string(doc) + " is outside 1.." + std::to_string(h.docs));
  if (word < 1 || word > h.words)
    return badInput(where() + "word id " + std::to_string(word) + " is outside 1.." + std::to_string(h.words));
  if (count < 1) return badInput(where() + "count " + std::to_string(count) + " is not positive");
  if (count > kMaxCount) {
    return badInput(where() + "count " + std::to_string(count) + " is larger than " + std::to_string(kMaxCount) +
                    ", the most tokens a document may hold (docs/FUZZING.md)");
  }
  addEntry(chunk, doc, word, count);
  return Status::ok();
}

Status parseLines(std::string_view text, long long firstLine, const LineContext& ctx, Chunk& chunk,
                  Feedback* feedback, bool progress, double progressFrom, double progressTo,
                  const std::function<void(std::size_t, std::size_t)>* dropPages) {
  const Header& h = *ctx.header;
  const char* const base = text.data();
  const char* p = base;
  const char* const end = base + text.size();
  std::size_t dropped = 0;
  long long lineNo = firstLine;
  while (p < end) {
    const char* const lineStart = p;
    // The common line, scanned in place up to its '\n' (no memchr, no token views): three runs
    // of at most 18 digits separated by spaces or tabs. Anything else goes to parseLine.
    long long v[3];
    bool fast = true;
    for (int t = 0; t < 3 && fast; ++t) {
      while (p < end && (*p == ' ' || *p == '\t')) ++p;
      const char* s = p;
      unsigned long long x = 0;
      while (p < end && static_cast<unsigned char>(*p - '0') < 10) x = x * 10 + static_cast<unsigned>(*p++ - '0');
      fast = p != s && p - s <= 18;
      v[t] = static_cast<long long>(x);
    }
    if (fast) {
      while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
      fast = (p == end || *p == '\n') && static_cast<std::size_t>(p - lineStart) < kMaxLineBytes &&
             v[0] >= 1 && v[0] <= h.docs && v[1] >= 1 && v[1] <= h.words && v[2] >= 1 && v[2] <= kMaxCount &&
             !(ctx.enforceNnz && ctx.entriesBefore + chunk.entries() == h.nnz);
    }
    if (fast) {
      addEntry(chunk, v[0], v[1], v[2]);
      if (p < end) ++p;
    } else {
      const char* nl = static_cast<const char*>(std::memchr(lineStart, '\n', static_cast<std::size_t>(end - lineStart)));
      const char* stop = nl ? nl : end;
      if (static_cast<std::size_t>(stop - lineStart) >= kMaxLineBytes) {
        return badInput(*ctx.name + " line " + std::to_string(lineNo) + " is longer than " +
                        std::to_string(kMaxLineBytes) + " bytes");
      }
      DPLDA_RETURN_IF_ERROR(
          parseLine(std::string_view(lineStart, static_cast<std::size_t>(stop - lineStart)), lineNo, ctx, chunk));
      p = nl ? nl + 1 : end;
    }
    ++chunk.lines;
    ++lineNo;
    if ((chunk.lines & (kCancelPollLines - 1)) == 0) {
      if (isCanceled(feedback)) return cancelled();
      const std::size_t done = static_cast<std::size_t>(p - base);
      if (progress) reportProgress(feedback, progressFrom + (progressTo - progressFrom) * done / text.size());
      if (dropPages && done - dropped >= kDropBytes) {
        (*dropPages)(dropped, done);
        dropped = done;
      }
    }
  }
  return Status::ok();
}

void reserveFor(Chunk& chunk, std::string_view sample, std::size_t bytes, long long nnzCap) {
  sample = sample.substr(0, 1 << 20);
  const long long lines = std::max<long long>(1, std::count(sample.begin(), sample.end(), '\n'));
  const double perLine = std::max(6.0, static_cast<double>(sample.size()) / lines);  // "1 1 1\n" at least
  const long long estimate = static_cast<long long>(1.05 * bytes / perLine) + 1024;
  const auto n = static_cast<std::size_t>(std::min(estimate, nnzCap));
  chunk.words.reserve(n);
  chunk.counts.reserve(n);
}

namespace {

// A document's entries in one chunk: [begin, end) of chunk `chunk`.
struct Piece {
  int doc;
  int chunk;
  long long begin, end;
  double length;
};

std::vector<Piece> piecesOf(const std::vector<Chunk>& chunks, bool& sorted) {
  std::vector<Piece> pieces;
  std::size_t total = 0;
  for (const Chunk& c : chunks) total += c.runs.size();
  pieces.reserve(total);
  sorted = true;
  for (std::size_t ci = 0; ci < chunks.size(); ++ci) {
    const Chunk& c = chunks[ci];
    if (!c.sorted) sorted = false;
    for (std::size_t r = 0; r < c.runs.size(); ++r) {
      const long long end = r + 1 < c.runs.size() ? c.runs[r + 1].begin : c.entries();
      if (!pieces.empty() && r == 0) {  // the seam between two chunks
        const Piece& prev = pieces.back();
        const int prevWord = chunks[prev.chunk].words[static_cast<std::size_t>(prev.end - 1)];
        if (c.runs[r].doc < prev.doc || (c.runs[r].doc == prev.doc && c.words[0] <= prevWord)) sorted = false;
      }
      pieces.push_back({c.runs[r].doc, static_cast<int>(ci), c.runs[r].begin, end, c.runs[r].length});
    }
  }
  return pieces;
}

void release(Chunk& c) { c = Chunk(); }

}  // namespace

Corpus buildFromChunks(std::vector<Chunk>& chunks, const Header& header, std::vector<std::string> vocab) {
  bool sorted = true;
  std::vector<Piece> pieces = piecesOf(chunks, sorted);
  const int d = static_cast<int>(header.words);
  Corpus corpus;
  if (sorted) {
    // Documents are consecutive pieces with one doc id (more than one only across a seam).
    long long keptRows = 0, keptNnz = 0;
    for (std::size_t i = 0; i < pieces.size();) {
      std::size_t j = i;
      double length = 0.0;
      long long n = 0;
      for (; j < pieces.size() && pieces[j].doc == pieces[i].doc; ++j) {
        length += pieces[j].length;
        n += pieces[j].end - pieces[j].begin;
      }
      if (length >= kMinDocumentLength) {
        ++keptRows;
        keptNnz += n;
      }
      i = j;
    }
    corpus.counts.resize(static_cast<Eigen::Index>(keptRows), d);
    corpus.counts.resizeNonZeros(static_cast<Eigen::Index>(keptNnz));
    corpus.lengths.resize(static_cast<Eigen::Index>(keptRows));
    int* outer = corpus.counts.outerIndexPtr();
    int* inner = corpus.counts.innerIndexPtr();
    double* values = corpus.counts.valuePtr();
    long long row = 0, at = 0;
    outer[0] = 0;
    int lastChunk = 0;
    for (std::size_t i = 0; i < pieces.size();) {
      std::size_t j = i;
      double length = 0.0;
      for (; j < pieces.size() && pieces[j].doc == pieces[i].doc; ++j) length += pieces[j].length;
      if (length >= kMinDocumentLength) {
        for (std::size_t q = i; q < j; ++q) {
          const Piece& p = pieces[q];
          const Chunk& c = chunks[static_cast<std::size_t>(p.chunk)];
          std::memcpy(inner + at, c.words.data() + p.begin, sizeof(int) * static_cast<std::size_t>(p.end - p.begin));
          for (long long e = p.begin; e < p.end; ++e) {
            const std::uint32_t v = c.counts[static_cast<std::size_t>(e)];
            values[at++] = v ? static_cast<double>(v) : c.count(e);
          }
        }
        corpus.lengths[static_cast<Eigen::Index>(row)] = length;
        outer[++row] = static_cast<int>(at);
      }
      // Chunks before the current one are fully copied: free them now (lower peak memory).
      for (; lastChunk < pieces[j - 1].chunk; ++lastChunk) release(chunks[static_cast<std::size_t>(lastChunk)]);
      i = j;
    }
  } else {
    // Any order: group the pieces by document (stable, so file order within a document), then
    // sort each document's entries by word and sum repeated words.
    std::stable_sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.doc < b.doc; });
    std::vector<int> outer(1, 0), inner;
    std::vector<double> values, lengths;
    std::vector<std::pair<int, double>> doc;
    for (std::size_t i = 0; i < pieces.size();) {
      std::size_t j = i;
      doc.clear();
      for (; j < pieces.size() && pieces[j].doc == pieces[i].doc; ++j) {
        const Chunk& c = chunks[static_cast<std::size_t>(pieces[j].chunk)];
        for (long long e = pieces[j].begin; e < pieces[j].end; ++e)
          doc.emplace_back(c.words[static_cast<std::size_t>(e)], c.count(e));
      }
      std::sort(doc.begin(), doc.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      std::size_t out = 0;
      for (std::size_t k = 0; k < doc.size(); ++k) {
        if (out > 0 && doc[out - 1].first == doc[k].first) doc[out - 1].second += doc[k].second;
        else doc[out++] = doc[k];
      }
      double length = 0.0;
      for (std::size_t k = 0; k < out; ++k) length += doc[k].second;
      if (length >= kMinDocumentLength) {
        for (std::size_t k = 0; k < out; ++k) {
          inner.push_back(doc[k].first);
          values.push_back(doc[k].second);
        }
        outer.push_back(static_cast<int>(inner.size()));
        lengths.push_back(length);
      }
      i = j;
    }
    for (Chunk& c : chunks) release(c);
    const int kept = static_cast<int>(lengths.size());
    corpus.counts = Eigen::Map<const SparseCounts>(kept, d, static_cast<int>(inner.size()), outer.data(),
                                                   inner.data(), values.data());
    corpus.lengths = Eigen::Map<const Eigen::VectorXd>(lengths.data(), kept);
  }
  for (Chunk& c : chunks) release(c);
  corpus.counts.makeCompressed();
  corpus.droppedDocuments = static_cast<int>(header.docs - corpus.counts.rows());
  corpus.vocab = std::move(vocab);
  return corpus;
}

}  // namespace dplda::uci
