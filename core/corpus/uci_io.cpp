#include "core/corpus/uci_io.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string_view>
#include <vector>

#include "core/common/memory_budget.h"
#include "core/common/parallel_guard.h"
#include "core/common/safe_file.h"
#include "core/common/text_escape.h"
#include "core/corpus/mapped_file.h"
#include "core/corpus/text_import.h"
#include "core/corpus/uci_body.h"

namespace dplda {

namespace fs = std::filesystem;

namespace {

using uci::kMaxLineBytes;
using uci::parseUnsigned;
using uci::quoteToken;
using uci::trim;

constexpr std::size_t kChunkBytes = 1 << 20;

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

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
  auto fd = openRegularFile(path.string());  // a FIFO or device is refused, never waited on
  if (!fd.ok()) return fd.status();
  FilePtr f(fdopen(fd.value(), "rb"));
  if (!f) {
    const int err = errno;
    ::close(fd.value());
    return ioError("cannot open " + escapeText(path.string()) + ": " + std::strerror(err));
  }
  return f;
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

// The lines of a memory-mapped file, with LineReader's interface (and its BOM and line-length
// rules), for the header; the body is parsed in place by uci::parseLines.
class MemLineReader {
 public:
  MemLineReader(std::string_view text, std::string name) : m_s(text), m_name(std::move(name)) {}
  bool next(std::string_view& line) {
    if (m_pos >= m_s.size()) return false;
    const std::size_t nl = m_s.find('\n', m_pos);
    const std::size_t stop = nl == std::string_view::npos ? m_s.size() : nl;
    if (stop - m_pos >= kMaxLineBytes) {
      m_status = badInput(m_name + " line " + std::to_string(m_lineNumber + 1) + " is longer than " +
                          std::to_string(kMaxLineBytes) + " bytes");
      return false;
    }
    line = m_s.substr(m_pos, stop - m_pos);
    m_pos = nl == std::string_view::npos ? m_s.size() : nl + 1;
    if (++m_lineNumber == 1 && line.substr(0, kUtf8Bom.size()) == kUtf8Bom) line.remove_prefix(kUtf8Bom.size());
    return true;
  }
  long long lineNumber() const { return m_lineNumber; }
  std::size_t offset() const { return m_pos; }
  const Status& status() const { return m_status; }

 private:
  std::string_view m_s;
  std::string m_name;
  std::size_t m_pos = 0;
  long long m_lineNumber = 0;
  Status m_status;
};

// The header: D, W, NNZ, one positive integer per line (blank lines before them skipped), then
// the checks that need no body: NNZ <= D x W, and W within kMaxVocabularySize before anything
// is allocated.
template <class Reader>
Status readHeader(Reader& reader, const std::string& name, uci::Header& h) {
  static const char* const kHeaderNames[3] = {"D (number of documents)", "W (vocabulary size)",
                                              "NNZ (number of entries)"};
  long long header[3] = {0, 0, 0};
  std::string_view line;
  for (int i = 0; i < 3;) {
    if (!reader.next(line)) {
      if (!reader.status().isOk()) return reader.status();
      return badInput(name + " ends inside the header: expected " + kHeaderNames[i] + " on line " +
                      std::to_string(reader.lineNumber() + 1));
    }
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    long long v = 0;
    if (!parseUnsigned(t, v) || v <= 0 || v > INT32_MAX) {
      return badInput(name + " line " + std::to_string(reader.lineNumber()) + ": header value " + kHeaderNames[i] +
                      " must be a positive integer below 2^31, got " + quoteToken(t));
    }
    h.line[i] = reader.lineNumber();
    header[i++] = v;
  }
  h.docs = header[0];
  h.words = header[1];
  h.nnz = header[2];
  if (static_cast<double>(h.nnz) > static_cast<double>(h.docs) * static_cast<double>(h.words)) {
    return badInput(name + ": NNZ = " + std::to_string(h.nnz) + " exceeds D x W = " + std::to_string(h.docs) +
                    " x " + std::to_string(h.words));
  }
  // W sizes everything downstream (every stage of a fit holds vectors of length W): refuse a
  // vocabulary the tool cannot fit before anything is read or allocated. D and NNZ cost
  // nothing by themselves: memory follows the entries actually in the file.
  if (h.words > kMaxVocabularySize) {
    return Status(StatusCode::ResourceLimit,
                  name + " line " + std::to_string(h.line[1]) + ": header value W (vocabulary size) = " +
                      std::to_string(h.words) + " is above the limit of " + std::to_string(kMaxVocabularySize) +
                      " words");
  }
  return Status::ok();
}

// Below this much body text one thread parses it all (starting threads costs more).
constexpr std::size_t kParallelBytes = 8u << 20;

// The parse holds each entry twice on the way (the chunks' word ids and counts, then the corpus's
// 12-byte CSR entry): about 16 bytes an entry, measured 15.9 at 6.7·10⁸ entries (10.6 GB peak).
// NNZ is exact for a file that parses (more or fewer entries are refused), and a line takes at
// least 6 bytes, so a lying header cannot claim more than the file holds. D costs nothing by itself
// (documents without entries are dropped or kept empty).
Status checkParseMemory(const uci::Header& h, std::uint64_t fileBytes, const std::string& name) {
  const double entries = std::min(static_cast<double>(h.nnz), static_cast<double>(fileBytes) / 6.0);
  return checkMemory(16.0 * entries, "reading " + name,
                     "its " + std::to_string(h.nnz) + " entries in memory",
                     "a spectral run streams a corpus from its binary cache, but the cache is written from the parse");
}

Status outOfMemory(const std::string& name) {
  return Status(StatusCode::ResourceLimit, name + ": not enough memory to hold the entries of the file");
}

// The body of a memory-mapped docword.txt, split at line ends into one chunk per thread. The
// chunks are parsed with their own line numbers and without the NNZ limit; if any of them
// fails (or NNZ is exceeded), the body is parsed again by one thread, which stops at the first
// problem in file order with its true line number: messages do not depend on the thread count.
Status parseMappedBody(const MappedFile& file, std::size_t bodyStart, long long firstLine, const uci::Header& header,
                       const std::string& name, Feedback* feedback, std::vector<uci::Chunk>& chunks) {
  const std::string_view body = file.view().substr(bodyStart);
  const int threads = std::max(1, omp_get_max_threads());
  const int n = static_cast<int>(std::clamp<std::size_t>(body.size() / kParallelBytes, 1, threads));
  std::vector<std::size_t> cut(n + 1, body.size());
  cut[0] = 0;
  for (int i = 1; i < n; ++i) {
    const std::size_t nl = body.find('\n', std::max(cut[i - 1], body.size() / n * i));
    cut[i] = nl == std::string_view::npos ? body.size() : nl + 1;
  }
  const std::function<void(std::size_t, std::size_t)> drop = [&](std::size_t a, std::size_t b) {
    file.dropPages(bodyStart + a, bodyStart + b);
  };
  auto parse = [&](int i, std::vector<uci::Chunk>& out, bool whole) -> Status {
    const std::string_view part =
        whole ? body : body.substr(cut[static_cast<std::size_t>(i)], cut[i + 1] - cut[static_cast<std::size_t>(i)]);
    uci::LineContext ctx{&header, &name, whole, 0};
    try {
      uci::reserveFor(out[static_cast<std::size_t>(i)], part, part.size(), header.nnz);
      return uci::parseLines(part, whole ? firstLine : 1, ctx, out[static_cast<std::size_t>(i)], feedback, i == 0,
                             0.0, 0.9, &drop);
    } catch (const std::bad_alloc&) {
      return outOfMemory(name);
    }
  };
  chunks.assign(static_cast<std::size_t>(n), uci::Chunk());
  if (n == 1) return parse(0, chunks, true);
  std::vector<Status> status(static_cast<std::size_t>(n));
  ParallelGuard guard;
#pragma omp parallel for num_threads(n) schedule(static, 1)
  for (int i = 0; i < n; ++i) guard.run([&] { status[static_cast<std::size_t>(i)] = parse(i, chunks, false); });
  guard.rethrow();
  long long entries = 0;
  bool failed = false;
  for (int i = 0; i < n; ++i) {
    const Status& s = status[static_cast<std::size_t>(i)];
    if (s.code() == StatusCode::Cancelled || s.code() == StatusCode::ResourceLimit) return s;
    failed = failed || !s.isOk();
    entries += chunks[static_cast<std::size_t>(i)].entries();
  }
  if (!failed && entries <= header.nnz) return Status::ok();
  chunks.assign(1, uci::Chunk());
  const Status s = parse(0, chunks, true);
  return s.isOk() ? badInput(name + ": the parallel and sequential parses disagree") : s;
}

// A docword.txt that cannot be mapped (a pipe, a device, or mmap refused): read line by line.
Status parseStreamedBody(LineReader& reader, long long fileSize, const uci::Header& header, const std::string& name,
                         Feedback* feedback, std::vector<uci::Chunk>& chunks) {
  chunks.assign(1, uci::Chunk());
  uci::Chunk& chunk = chunks[0];
  const uci::LineContext ctx{&header, &name, true, 0};
  std::string_view line;
  try {
    while (reader.next(line)) {
      const long long lineNo = reader.lineNumber();
      if ((lineNo & ((1 << 20) - 1)) == 0) {
        if (isCanceled(feedback)) return cancelled();
        if (fileSize > 0) reportProgress(feedback, 0.9 * reader.bytesConsumed() / static_cast<double>(fileSize));
      }
      DPLDA_RETURN_IF_ERROR(uci::parseLine(line, lineNo, ctx, chunk));
      ++chunk.lines;
    }
  } catch (const std::bad_alloc&) {
    return outOfMemory(name);
  }
  return reader.status();
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
  const std::string name = escapeText(docwordPath.string());
  if (!fs::exists(docwordPath, ec)) return ioError("file not found: " + name);
  if (fs::is_directory(docwordPath, ec)) return ioError("expected a file but found a folder: " + name);
  auto mapped = MappedFile::open(docwordPath.string(), name);
  if (!mapped.ok()) return mapped.status();

  uci::Header header;
  std::vector<uci::Chunk> chunks;
  long long lastLine = 0;  // the number of lines in the file
  if (mapped->mapped()) {
    MemLineReader reader(mapped->view(), name);
    DPLDA_RETURN_IF_ERROR(readHeader(reader, name, header));
    DPLDA_RETURN_IF_ERROR(checkParseMemory(header, mapped->size(), name));
    DPLDA_RETURN_IF_ERROR(parseMappedBody(mapped.value(), reader.offset(), reader.lineNumber() + 1, header, name,
                                          feedback, chunks));
    lastLine = reader.lineNumber();
  } else {
    // The descriptor already open: a pipe cannot be opened a second time once its writer is gone.
    FilePtr file(fdopen(dup(mapped->fd()), "rb"));
    if (!file) return ioError("cannot open " + name + ": " + std::strerror(errno));
    LineReader reader(file.get(), name);
    DPLDA_RETURN_IF_ERROR(readHeader(reader, name, header));
    DPLDA_RETURN_IF_ERROR(checkParseMemory(header, mapped->size(), name));
    DPLDA_RETURN_IF_ERROR(
        parseStreamedBody(reader, static_cast<long long>(mapped->size()), header, name, feedback, chunks));
    lastLine = reader.lineNumber() - chunks[0].lines;
  }
  mapped->close();
  long long entries = 0, largestWord = 0;
  for (const uci::Chunk& c : chunks) {
    entries += c.entries();
    lastLine += c.lines;
    largestWord = std::max(largestWord, c.largestWord);
  }
  if (entries < header.nnz) {
    return badInput(name + " is truncated: the header declares NNZ = " + std::to_string(header.nnz) +
                    " entries but the file ends after " + std::to_string(entries) + " (at line " +
                    std::to_string(lastLine) + ")");
  }

  std::vector<std::string> vocab;
  // A link named vocab.txt counts even when it leads nowhere: refused, not read as no vocabulary.
  const bool hasVocab = fs::exists(fs::symlink_status(vocabPath, ec));
  if (hasVocab) {
    auto v = readVocab(vocabPath, header.words);
    if (!v.ok()) return v.status();
    vocab = std::move(v).value();
  }
  if (isCanceled(feedback)) return cancelled();
  // Without vocab.txt nothing but the header vouches for the words no entry uses; a W above
  // the largest word id would only add empty columns (and their memory), so the header and
  // the body disagree.
  if (!hasVocab && header.words > largestWord) {
    return badInput(name + " line " + std::to_string(header.line[1]) + ": header value W (vocabulary size) = " +
                    std::to_string(header.words) + " but the largest word id in the file is " +
                    std::to_string(largestWord) + ", and there is no vocab.txt naming the other words: set W to " +
                    std::to_string(largestWord) + " or add vocab.txt");
  }
  Corpus corpus;
  try {
    corpus = uci::buildFromChunks(chunks, header, std::move(vocab));
  } catch (const std::bad_alloc&) {
    return outOfMemory(name);
  }
  if (corpus.maxLength() > static_cast<double>(kMaxDocumentLength)) {
    Eigen::Index row = 0;
    corpus.lengths.maxCoeff(&row);
    return badInput(name + ": document " + std::to_string(row + 1) + " (counting the documents kept) has " +
                    std::to_string(static_cast<long long>(corpus.lengths[row])) + " tokens, more than " +
                    std::to_string(kMaxDocumentLength) + ", the most a document may hold (docs/FUZZING.md)");
  }
  if (corpus.docCount() == 0) {
    return badInput(name + ": no documents with at least " + std::to_string(kMinDocumentLength) +
                    " tokens (" + std::to_string(corpus.droppedDocuments) + " shorter documents dropped)");
  }
  reportProgress(feedback, 1.0);
  return corpus;
}

namespace {

// Text output onto an AtomicFile, with integers formatted in place.
class Writer {
 public:
  explicit Writer(const fs::path& path, const OutputRules& rules) {
    auto f = AtomicFile::create(path.string(), rules);
    if (f.ok()) m_file = std::move(f).value();
    else m_status = f.status();
  }
  bool ok() const { return m_status.isOk(); }
  const Status& status() const { return m_status; }

  void put(std::string_view s) {
    if (m_status.isOk()) m_status = m_file.write(s);
  }
  void putInt(long long v) {
    char tmp[24];
    const auto res = std::to_chars(tmp, tmp + sizeof(tmp), v);
    put(std::string_view(tmp, static_cast<std::size_t>(res.ptr - tmp)));
  }
  void endLine() { put("\n"); }
  Status commit() { return m_status.isOk() ? m_file.commit() : m_status; }

 private:
  AtomicFile m_file;
  Status m_status;
};

}  // namespace

std::vector<std::string> uciCorpusFiles(const std::string& pathText) {
  const fs::path path(pathText);
  std::error_code ec;
  if (pathText.empty()) return {};
  if (fs::is_directory(path, ec)) return {(path / "docword.txt").string(), (path / "vocab.txt").string()};
  return {pathText, (path.parent_path() / "vocab.txt").string()};
}

Status writeUciCorpus(const Corpus& corpus, const std::string& dirText, const OutputRules& rules) {
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
  DPLDA_RETURN_IF_ERROR(checkOutputFolder(dirText, {"docword.txt", "vocab.txt"}, rules));
  const fs::path dir(dirText);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return ioError("cannot create the folder " + escapeText(dirText) + (ec ? ": " + ec.message() : std::string()));
  }

  // Both files complete before either replaces anything: a failure leaves the folder as it was.
  Writer docword(dir / "docword.txt", rules);
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
  DPLDA_RETURN_IF_ERROR(docword.status());

  Writer vocab(dir / "vocab.txt", rules);
  if (!vocab.ok()) return vocab.status();
  for (int i = 0; i < d; ++i) {
    vocab.put(corpus.wordName(i));
    vocab.endLine();
  }
  DPLDA_RETURN_IF_ERROR(vocab.status());
  DPLDA_RETURN_IF_ERROR(docword.commit());
  return vocab.commit();
}

}  // namespace dplda
