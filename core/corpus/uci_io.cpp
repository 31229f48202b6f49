#include "core/corpus/uci_io.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

#include "core/common/text_escape.h"
#include "core/corpus/text_import.h"

namespace dplda {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kChunkBytes = 1 << 20;
constexpr std::size_t kMaxLineBytes = 1 << 20;  // no sane docword/vocab line is this long
constexpr long long kCancelPollLines = 1 << 20;

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

std::string quoteToken(std::string_view s) { return quoteText(s, 40); }

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
  return s;
}

// Reads a file line by line through a fixed buffer: no per-token iostream work, and memory
// stays bounded however large the file is. A UTF-8 byte order mark at the start of the file
// is skipped (editors on Windows write one); `name` is the file name as it goes into
// messages (already escaped).
class LineReader {
 public:
  LineReader(std::FILE* f, std::string name) : m_file(f), m_name(std::move(name)), m_buf(kChunkBytes) {}

  // Returns true and sets `line` (without the '\n') or false at end of file / on error.
  bool next(std::string_view& line) {
    if (!nextRaw(line)) return false;
    if (m_lineNumber == 1 && line.substr(0, kUtf8Bom.size()) == kUtf8Bom) line.remove_prefix(kUtf8Bom.size());
    return true;
  }

  long long lineNumber() const { return m_lineNumber; }
  long long bytesConsumed() const { return m_consumedBefore + static_cast<long long>(m_begin); }
  const Status& status() const { return m_status; }

 private:
  bool nextRaw(std::string_view& line) {
    for (;;) {
      const char* start = m_buf.data() + m_begin;
      const void* nl = std::memchr(start, '\n', m_end - m_begin);
      if (nl) {
        const char* stop = static_cast<const char*>(nl);
        line = std::string_view(start, stop - start);
        m_begin += line.size() + 1;
        ++m_lineNumber;
        return true;
      }
      if (m_eof) {
        if (m_begin == m_end) return false;
        line = std::string_view(start, m_end - m_begin);  // last line without '\n'
        m_begin = m_end;
        ++m_lineNumber;
        return true;
      }
      if (!fill()) return false;
    }
  }

  bool fill() {
    // Move the partial line to the front, grow if a single line fills the buffer.
    const std::size_t rest = m_end - m_begin;
    if (rest >= kMaxLineBytes) {
      m_status = badInput(m_name + " line " + std::to_string(m_lineNumber + 1) + " is longer than " +
                          std::to_string(kMaxLineBytes) + " bytes");
      return false;
    }
    m_consumedBefore += static_cast<long long>(m_begin);
    std::memmove(m_buf.data(), m_buf.data() + m_begin, rest);
    m_begin = 0;
    m_end = rest;
    if (m_buf.size() - m_end < kChunkBytes / 2) m_buf.resize(m_buf.size() * 2);
    const std::size_t got = std::fread(m_buf.data() + m_end, 1, m_buf.size() - m_end, m_file);
    m_end += got;
    if (got == 0) {
      if (std::ferror(m_file)) {
        m_status = ioError("cannot read " + m_name + ": " + std::strerror(errno));
        return false;
      }
      m_eof = true;
    }
    return true;
  }

  std::FILE* m_file;
  std::string m_name;
  std::vector<char> m_buf;
  std::size_t m_begin = 0, m_end = 0;
  long long m_consumedBefore = 0;
  long long m_lineNumber = 0;
  bool m_eof = false;
  Status m_status;
};

Result<FilePtr> openForReading(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return ioError("file not found: " + escapeText(path.string()));
  if (fs::is_directory(path, ec)) return ioError("expected a file but found a folder: " + escapeText(path.string()));
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) return ioError("cannot open " + escapeText(path.string()) + ": " + std::strerror(errno));
  return f;
}

// Parses a whole token as a non-negative decimal integer (digits only, at most 18 of them).
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

// Splits at blanks into at most `maxTokens` tokens; returns the number found (maxTokens + 1 if more).
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

Result<std::vector<std::string>> readVocab(const fs::path& path, long long expectedWords) {
  auto file = openForReading(path);
  if (!file.ok()) return file.status();
  const std::string name = escapeText(path.string());
  LineReader reader(file->get(), name);
  std::vector<std::string> words;
  long long pendingBlank = 0;  // blank lines are allowed only at the end of the file
  long long firstBlankLine = 0;
  std::string_view line;
  while (reader.next(line)) {
    const long long invalid = findInvalidUtf8(line);
    if (invalid >= 0) {
      return badInput(name + " line " + std::to_string(reader.lineNumber()) + ": invalid UTF-8 at byte " +
                      std::to_string(invalid + 1) + " of the line");
    }
    const std::string_view word = trim(line);
    if (word.empty()) {
      if (pendingBlank++ == 0) firstBlankLine = reader.lineNumber();
      continue;
    }
    if (pendingBlank > 0) {
      return badInput(name + " line " + std::to_string(firstBlankLine) +
                      " is empty: every line must name one word");
    }
    if (static_cast<long long>(words.size()) >= expectedWords) {
      return badInput(name + " has more lines than the " + std::to_string(expectedWords) +
                      " words of docword.txt (line " + std::to_string(reader.lineNumber()) + ": " +
                      quoteToken(word) + ")");
    }
    // Words are printed (top words, plots, JSON): a control character in one would reach the
    // user's terminal.
    if (hasControlText(word)) {
      return badInput(name + " line " + std::to_string(reader.lineNumber()) + ": the word " + quoteToken(word) +
                      " holds a control character (shown escaped); vocabulary words must be printable text");
    }
    words.emplace_back(word);
  }
  if (!reader.status().isOk()) return reader.status();
  if (static_cast<long long>(words.size()) != expectedWords) {
    return badInput(name + " has " + std::to_string(words.size()) +
                    " words but docword.txt declares W = " + std::to_string(expectedWords));
  }
  return words;
}

// The corpus from validated triplets (ids in range, positive integer counts) ordered by
// (doc, word) with no repeats. Same result as buildCorpus, but O(nnz) time and memory whatever
// D says (a header can declare 2^31 documents), and without setFromTriplets' copies.
Result<Corpus> buildFromSortedTriplets(int docCount, int vocabSize, const std::vector<CountTriplet>& triplets,
                                       std::vector<std::string> vocab) {
  if (!vocab.empty() && static_cast<int>(vocab.size()) != vocabSize) {
    return badInput("vocabulary has " + std::to_string(vocab.size()) + " words but the counts use " +
                    std::to_string(vocabSize));
  }
  std::vector<int> outer(1, 0), inner;
  std::vector<double> values, lengths;
  inner.reserve(triplets.size());
  values.reserve(triplets.size());
  for (std::size_t begin = 0; begin < triplets.size();) {
    std::size_t end = begin;
    double length = 0.0;
    for (; end < triplets.size() && triplets[end].doc == triplets[begin].doc; ++end)
      length += triplets[end].count;
    if (length >= kMinDocumentLength) {
      for (std::size_t e = begin; e < end; ++e) {
        inner.push_back(triplets[e].word);
        values.push_back(triplets[e].count);
      }
      outer.push_back(static_cast<int>(inner.size()));
      lengths.push_back(length);
    }
    begin = end;
  }
  const int kept = static_cast<int>(lengths.size());
  Corpus corpus;
  corpus.counts = Eigen::Map<const SparseCounts>(kept, vocabSize, static_cast<int>(inner.size()),
                                                 outer.data(), inner.data(), values.data());
  corpus.counts.makeCompressed();
  corpus.lengths = Eigen::Map<const Eigen::VectorXd>(lengths.data(), kept);
  corpus.droppedDocuments = docCount - kept;
  corpus.vocab = std::move(vocab);
  return corpus;
}

// Orders triplets by (doc, word) and sums repeated pairs.
void sortAndMerge(std::vector<CountTriplet>& triplets) {
  std::sort(triplets.begin(), triplets.end(), [](const CountTriplet& a, const CountTriplet& b) {
    return a.doc != b.doc ? a.doc < b.doc : a.word < b.word;
  });
  std::size_t out = 0;
  for (std::size_t i = 0; i < triplets.size(); ++i) {
    if (out > 0 && triplets[out - 1].doc == triplets[i].doc && triplets[out - 1].word == triplets[i].word) {
      triplets[out - 1].count += triplets[i].count;
    } else {
      triplets[out++] = triplets[i];
    }
  }
  triplets.resize(out);
}

}  // namespace

Result<Corpus> readUciCorpus(const std::string& pathText, Feedback* feedback) {
  if (pathText.empty()) return invalidArgument("the UCI corpus path is empty");
  const fs::path path(pathText);
  std::error_code ec;
  fs::path docwordPath, vocabPath;
  if (fs::is_directory(path, ec)) {
    docwordPath = path / "docword.txt";
    vocabPath = path / "vocab.txt";
  } else if (fs::exists(path, ec)) {
    docwordPath = path;
    vocabPath = path.parent_path() / "vocab.txt";
  } else {
    return ioError("UCI corpus path not found: " + escapeText(pathText));
  }
  auto file = openForReading(docwordPath);
  if (!file.ok()) return file.status();
  const std::string name = escapeText(docwordPath.string());
  const auto fileSize = fs::file_size(docwordPath, ec);

  LineReader reader(file->get(), name);
  auto where = [&](long long line) { return name + " line " + std::to_string(line) + ": "; };

  // ---- header: D, W, NNZ, one positive integer per line ----
  static const char* const kHeaderNames[3] = {"D (number of documents)", "W (vocabulary size)",
                                              "NNZ (number of entries)"};
  long long header[3] = {0, 0, 0};
  long long headerLine[3] = {0, 0, 0};
  std::string_view line;
  for (int h = 0; h < 3;) {
    if (!reader.next(line)) {
      if (!reader.status().isOk()) return reader.status();
      return badInput(name + " ends inside the header: expected " + kHeaderNames[h] + " on line " +
                      std::to_string(reader.lineNumber() + 1));
    }
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    long long v = 0;
    if (!parseUnsigned(t, v) || v <= 0 || v > INT32_MAX) {
      return badInput(where(reader.lineNumber()) + "header value " + kHeaderNames[h] +
                      " must be a positive integer below 2^31, got " + quoteToken(t));
    }
    headerLine[h] = reader.lineNumber();
    header[h++] = v;
  }
  const long long docs = header[0], words = header[1], nnz = header[2];
  if (static_cast<double>(nnz) > static_cast<double>(docs) * static_cast<double>(words)) {
    return badInput(name + ": NNZ = " + std::to_string(nnz) + " exceeds D x W = " + std::to_string(docs) +
                    " x " + std::to_string(words));
  }
  // W sizes everything downstream (every stage of a fit holds vectors of length W): refuse a
  // vocabulary the tool cannot fit before anything is read or allocated. D and NNZ cost
  // nothing by themselves: memory follows the entries actually in the file.
  if (words > kMaxVocabularySize) {
    return Status(StatusCode::ResourceLimit,
                  where(headerLine[1]) + "header value W (vocabulary size) = " + std::to_string(words) +
                      " is above the limit of " + std::to_string(kMaxVocabularySize) + " words");
  }

  // ---- body ----
  std::vector<CountTriplet> triplets;
  // Each entry line takes at least 6 bytes ("1 1 1\n"): do not trust NNZ for the reservation.
  const long long plausible = ec ? nnz : std::min<long long>(nnz, static_cast<long long>(fileSize / 6) + 1);
  triplets.reserve(static_cast<std::size_t>(plausible));
  long long entries = 0;
  long long largestWord = 0;  // the largest word id of any entry
  bool sorted = true;  // UCI files are normally ordered by (doc, word): then no sort is needed
  std::string_view tok[3];
  while (reader.next(line)) {
    const long long lineNo = reader.lineNumber();
    if ((lineNo & (kCancelPollLines - 1)) == 0) {
      if (isCanceled(feedback)) return cancelled();
      if (fileSize > 0)
        reportProgress(feedback, 0.9 * reader.bytesConsumed() / static_cast<double>(fileSize));
    }
    const int found = splitTokens(line, tok, 3);
    if (found == 0) continue;  // blank line
    if (found != 3) {
      return badInput(where(lineNo) + "expected three integers \"docID wordID count\" but found " +
                      quoteToken(trim(line)));
    }
    if (entries == nnz) {
      return badInput(where(lineNo) + "more entries than NNZ = " + std::to_string(nnz) +
                      " declared in the header");
    }
    long long doc = 0, word = 0, count = 0;
    if (!parseUnsigned(tok[0], doc)) {
      return badInput(where(lineNo) + "document id " + quoteToken(tok[0]) + " is not a positive integer");
    }
    if (!parseUnsigned(tok[1], word)) {
      return badInput(where(lineNo) + "word id " + quoteToken(tok[1]) + " is not a positive integer");
    }
    if (!parseUnsigned(tok[2], count)) {
      return badInput(where(lineNo) + "count " + quoteToken(tok[2]) + " is not a positive integer");
    }
    if (doc < 1 || doc > docs) {
      return badInput(where(lineNo) + "document id " + std::to_string(doc) + " is outside 1.." +
                      std::to_string(docs));
    }
    if (word < 1 || word > words) {
      return badInput(where(lineNo) + "word id " + std::to_string(word) + " is outside 1.." +
                      std::to_string(words));
    }
    if (count < 1) return badInput(where(lineNo) + "count " + std::to_string(count) + " is not positive");
    if (count > (1LL << 40)) {
      return badInput(where(lineNo) + "count " + std::to_string(count) + " is implausibly large");
    }
    largestWord = std::max(largestWord, word);
    const CountTriplet t{static_cast<int>(doc - 1), static_cast<int>(word - 1), static_cast<double>(count)};
    if (sorted && !triplets.empty()) {
      const CountTriplet& prev = triplets.back();
      sorted = prev.doc < t.doc || (prev.doc == t.doc && prev.word < t.word);
    }
    triplets.push_back(t);
    ++entries;
  }
  if (!reader.status().isOk()) return reader.status();
  if (entries < nnz) {
    return badInput(name + " is truncated: the header declares NNZ = " + std::to_string(nnz) +
                    " entries but the file ends after " + std::to_string(entries) + " (at line " +
                    std::to_string(reader.lineNumber()) + ")");
  }
  file->reset();  // close early

  std::vector<std::string> vocab;
  const bool hasVocab = fs::exists(vocabPath, ec);
  if (hasVocab) {
    auto v = readVocab(vocabPath, words);
    if (!v.ok()) return v.status();
    vocab = std::move(v).value();
  }
  if (isCanceled(feedback)) return cancelled();
  // Without vocab.txt nothing but the header vouches for the words no entry uses; a W above
  // the largest word id would only add empty columns (and their memory), so the header and
  // the body disagree.
  if (!hasVocab && words > largestWord) {
    return badInput(where(headerLine[1]) + "header value W (vocabulary size) = " + std::to_string(words) +
                    " but the largest word id in the file is " + std::to_string(largestWord) +
                    ", and there is no vocab.txt naming the other words: set W to " + std::to_string(largestWord) +
                    " or add vocab.txt");
  }

  if (!sorted) sortAndMerge(triplets);
  auto corpus =
      buildFromSortedTriplets(static_cast<int>(docs), static_cast<int>(words), triplets, std::move(vocab));
  if (!corpus.ok()) return Status(corpus.status().code(), name + ": " + corpus.status().message());
  if (corpus->docCount() == 0) {
    return badInput(name + ": no documents with at least " + std::to_string(kMinDocumentLength) +
                    " tokens (" + std::to_string(corpus->droppedDocuments) + " shorter documents dropped)");
  }
  reportProgress(feedback, 1.0);
  return corpus;
}

namespace {

// Buffered writer with error tracking.
class Writer {
 public:
  explicit Writer(const fs::path& path) : m_name(escapeText(path.string())), m_file(std::fopen(path.c_str(), "wb")) {
    if (!m_file) m_status = ioError("cannot create " + m_name + ": " + std::strerror(errno));
    m_buf.reserve(kChunkBytes + 256);
  }
  bool ok() const { return m_status.isOk(); }
  const Status& status() const { return m_status; }

  void put(std::string_view s) {
    m_buf.append(s);
    if (m_buf.size() >= kChunkBytes) flush();
  }
  void putInt(long long v) {
    char tmp[24];
    const auto res = std::to_chars(tmp, tmp + sizeof(tmp), v);
    m_buf.append(tmp, res.ptr);
  }
  void endLine() { put("\n"); }

  Status close() {
    flush();
    if (m_file) {
      if (std::fclose(m_file.release()) != 0 && m_status.isOk()) {
        m_status = ioError("cannot write " + m_name + ": " + std::strerror(errno));
      }
    }
    return m_status;
  }

 private:
  void flush() {
    if (m_file && m_status.isOk() && !m_buf.empty()) {
      if (std::fwrite(m_buf.data(), 1, m_buf.size(), m_file.get()) != m_buf.size()) {
        m_status = ioError("cannot write " + m_name + ": " + std::strerror(errno));
      }
    }
    m_buf.clear();
  }

  std::string m_name;
  FilePtr m_file;
  std::string m_buf;
  Status m_status;
};

}  // namespace

Status writeUciCorpus(const Corpus& corpus, const std::string& dirText) {
  if (dirText.empty()) return invalidArgument("the output folder path is empty");
  if (corpus.docCount() == 0) return badInput("cannot write an empty corpus (no documents)");
  const int d = corpus.vocabSize();
  if (!corpus.vocab.empty() && static_cast<int>(corpus.vocab.size()) != d) {
    return badInput("the corpus vocabulary has " + std::to_string(corpus.vocab.size()) + " words but " +
                    std::to_string(d) + " columns");
  }
  for (std::size_t i = 0; i < corpus.vocab.size(); ++i) {
    const std::string& w = corpus.vocab[i];
    if (w.empty() || w.find_first_of("\r\n") != std::string::npos || trim(w).size() != w.size()) {
      return badInput(
          "vocabulary word " + std::to_string(i + 1) + " " + quoteToken(w) +
          " is empty, has surrounding blanks or contains a line break: vocab.txt needs one word per line");
    }
  }
  const fs::path dir(dirText);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return ioError("cannot create the folder " + escapeText(dirText) + (ec ? ": " + ec.message() : std::string()));
  }

  Writer docword(dir / "docword.txt");
  if (!docword.ok()) return docword.status();
  docword.putInt(corpus.docCount());
  docword.endLine();
  docword.putInt(d);
  docword.endLine();
  docword.putInt(corpus.nnz());
  docword.endLine();
  for (int n = 0; n < corpus.counts.outerSize(); ++n) {
    for (SparseCounts::InnerIterator it(corpus.counts, n); it; ++it) {
      const double v = it.value();
      if (!(v >= 1.0) || v != std::floor(v) || v > 9.0e15) {
        return badInput("count " + std::to_string(v) + " of (document " + std::to_string(n + 1) + ", word " +
                        std::to_string(it.col() + 1) + ") is not a positive integer");
      }
      docword.putInt(n + 1);
      docword.put(" ");
      docword.putInt(it.col() + 1);
      docword.put(" ");
      docword.putInt(static_cast<long long>(v));
      docword.endLine();
    }
  }
  DPLDA_RETURN_IF_ERROR(docword.close());

  Writer vocab(dir / "vocab.txt");
  if (!vocab.ok()) return vocab.status();
  for (int i = 0; i < d; ++i) {
    vocab.put(corpus.wordName(i));
    vocab.endLine();
  }
  return vocab.close();
}

}  // namespace dplda
