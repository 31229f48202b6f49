#include "core/corpus/corpus_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <filesystem>
#include <memory>
#include <new>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/common/huge_pages.h"
#include "core/common/memory_budget.h"
#include "core/common/safe_file.h"
#include "core/common/text_escape.h"
#include "core/corpus/mapped_file.h"
#include "core/corpus/text_import.h"
#include "core/corpus/uci_io.h"

namespace dplda {

namespace fs = std::filesystem;

namespace {

// XXH3-64 (libxxhash, inlined): a 64-bit non-cryptographic hash that streams at memory speed.
class Hasher {
 public:
  Hasher() {
    if (!m_state) throw std::bad_alloc();
    XXH3_64bits_reset(m_state.get());
  }
  void update(const void* data, std::size_t n) {
    if (n > 0) XXH3_64bits_update(m_state.get(), data, n);  // never a null pointer, even with n = 0
  }
  std::uint64_t digest() const { return XXH3_64bits_digest(m_state.get()); }

 private:
  struct Free {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  std::unique_ptr<XXH3_state_t, Free> m_state{XXH3_createState()};
};

std::uint64_t hashOf(const void* data, std::size_t n) { return n ? XXH3_64bits(data, n) : XXH3_64bits("", 0); }

// The keys' and the payload's hash: XXH3 of each 16 MiB block, then XXH3 of the blocks' digests
// in order (one block at least). The blocks are hashed on all the OpenMP threads: one core took
// 0.6 s of every load of a NYTimes-sized corpus to hash its 0.9 GB of text and 0.5 GB of cache
// (issue 27 §5); a writer computes the same value as it streams (BlockHasher).
constexpr std::size_t kHashBlock = std::size_t{16} << 20;

std::uint64_t combineBlocks(const std::vector<std::uint64_t>& digests) {
  return XXH3_64bits(digests.data(), digests.size() * sizeof(std::uint64_t));
}

class BlockHasher {
 public:
  void update(const void* data, std::size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      const std::size_t take = std::min(n, kHashBlock - m_inBlock);
      m_block.update(p, take);
      p += take;
      n -= take;
      if ((m_inBlock += take) == kHashBlock) {
        m_digests.push_back(m_block.digest());
        m_block = Hasher();
        m_inBlock = 0;
      }
    }
  }
  std::uint64_t digest() const {
    std::vector<std::uint64_t> d = m_digests;
    if (m_inBlock > 0 || d.empty()) d.push_back(m_block.digest());
    return combineBlocks(d);
  }

 private:
  Hasher m_block;
  std::size_t m_inBlock = 0;
  std::vector<std::uint64_t> m_digests;
};

// BlockHasher's value for the bytes [from, to) of a file, the blocks on the OpenMP threads, each
// read with pread(2) into the thread's buffer: no page of the file enters the process (mapped and
// released behind, the blocks' page faults and TLB shootdowns took longer than the hashing).
Status hashFileRange(int fd, const std::string& name, std::uint64_t from, std::uint64_t to, std::uint64_t& hash) {
  const std::uint64_t n = to - from;
  const auto blocks = static_cast<std::int64_t>(std::max<std::uint64_t>(1, (n + kHashBlock - 1) / kHashBlock));
  std::vector<std::uint64_t> digests(static_cast<std::size_t>(blocks));
  std::vector<int> failure(static_cast<std::size_t>(blocks), 0);  // errno, or -1: the file ended early
#pragma omp parallel if (blocks > 1)
  {
    std::vector<char> buffer(std::size_t{1} << 20);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < blocks; ++b) {
      Hasher h;
      std::uint64_t at = from + static_cast<std::uint64_t>(b) * kHashBlock;
      const std::uint64_t end = std::min(to, at + kHashBlock);
      while (at < end) {
        const ssize_t got = pread(fd, buffer.data(), static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), end - at)),
                                  static_cast<off_t>(at));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          failure[static_cast<std::size_t>(b)] = got < 0 ? errno : -1;
          break;
        }
        h.update(buffer.data(), static_cast<std::size_t>(got));
        at += static_cast<std::uint64_t>(got);
      }
      digests[static_cast<std::size_t>(b)] = h.digest();
    }
  }
  for (int e : failure) {
    if (e > 0) return ioError("cannot read " + name + ": " + std::strerror(e));
    if (e < 0) return ioError(name + " changed while it was read");
  }
  hash = combineBlocks(digests);
  return Status::ok();
}

// ---------------------------------------------------------------- the file header

constexpr char kMagic[8] = {'D', 'P', 'L', 'D', 'A', 'C', 'S', 'R'};
constexpr std::uint32_t kVersion = 3;  // 2: keyed on a hash of the whole text; 3: XXH3 of 16 MiB blocks
constexpr std::uint32_t kByteOrder = 0x01020304;

struct CacheHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t byteOrder;
  std::uint32_t minDocLength;  // the reader's rule baked into the rows (kMinDocumentLength)
  std::uint32_t valueBytes;    // 4: uint32 counts, 8: double counts
  CorpusSourceKey key;
  std::int64_t rows, cols, nnz, dropped;
  std::uint64_t hasVocab, vocabBytes;
  std::uint64_t payloadBytes, payloadHash;
  std::uint64_t reserved[7];
  std::uint64_t headerHash;  // XXH3 of every byte above
};
static_assert(sizeof(CacheHeader) == 192, "the cache header is 192 bytes");

std::size_t align8(std::size_t n) { return (n + 7) & ~std::size_t(7); }

struct Layout {
  std::size_t outer, inner, values, lengths, vocabLengths, vocabBytes, end;
};

Layout layoutOf(const CacheHeader& h) {
  Layout l{};
  l.outer = sizeof(CacheHeader);
  l.inner = l.outer + align8(static_cast<std::size_t>(h.rows + 1) * 4);
  l.values = l.inner + align8(static_cast<std::size_t>(h.nnz) * 4);
  l.lengths = l.values + align8(static_cast<std::size_t>(h.nnz) * h.valueBytes);
  l.vocabLengths = l.lengths + static_cast<std::size_t>(h.rows) * 8;
  l.vocabBytes = l.vocabLengths + (h.hasVocab ? align8(static_cast<std::size_t>(h.cols) * 4) : 0);
  l.end = l.vocabBytes + (h.hasVocab ? align8(h.vocabBytes) : 0);
  return l;
}

// ---------------------------------------------------------------- writing

class HashedWriter {
 public:
  explicit HashedWriter(AtomicFile& f) : m_file(f) {}
  void put(const void* p, std::size_t n) {
    if (!m_status.isOk() || n == 0) return;
    m_hash.update(p, n);
    m_status = m_file.write(p, n);
    m_written += n;
  }
  void pad() {
    static const char zeros[8] = {};
    put(zeros, align8(m_written) - m_written);
  }
  const Status& status() const { return m_status; }
  std::uint64_t hash() const { return m_hash.digest(); }
  std::size_t written() const { return m_written; }

 private:
  AtomicFile& m_file;
  BlockHasher m_hash;
  Status m_status;
  std::size_t m_written = 0;
};

}  // namespace

Result<CorpusSourceKey> corpusSourceKey(const std::string& docwordPath, const std::string& vocabPath) {
  CorpusSourceKey key;
  auto stamp = [](const std::string& path, std::uint64_t& size, std::uint64_t& hash) -> Status {
    const std::string name = escapeText(path);
    auto f = MappedFile::open(path, name, /*tryMap=*/false);  // refuses anything but a regular file, without waiting
    if (!f.ok()) return f.status();
    size = f->size();
    return hashFileRange(f->fd(), name, 0, f->size(), hash);
  };
  DPLDA_RETURN_IF_ERROR(stamp(docwordPath, key.docwordSize, key.docwordHash));
  std::error_code ec;
  if (!vocabPath.empty() && fs::exists(fs::symlink_status(vocabPath, ec))) {  // as readUciCorpus
    key.hasVocab = 1;
    DPLDA_RETURN_IF_ERROR(stamp(vocabPath, key.vocabSize, key.vocabHash));
  }
  return key;
}

std::string corpusCachePath(const std::string& docwordPath, const std::string& dir) {
  if (dir.empty()) return docwordPath + ".dplda-cache";
  std::error_code ec;
  const std::string absolute = fs::absolute(docwordPath, ec).lexically_normal().string();
  char name[40];
  std::snprintf(name, sizeof(name), "%016llx.dplda-cache",
                static_cast<unsigned long long>(hashOf(absolute.data(), absolute.size())));
  return (fs::path(dir) / name).string();
}

Status writeCorpusCache(const Corpus& corpus, const CorpusSourceKey& key, const std::string& cachePath,
                        const std::vector<std::string>& inputs) {
  const std::string name = escapeText(cachePath);
  const SparseCounts& m = corpus.counts;
  if (!m.isCompressed()) return invalidArgument("cannot cache " + name + ": the counts are not compressed");
  CacheHeader h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kVersion;
  h.byteOrder = kByteOrder;
  h.minDocLength = kMinDocumentLength;
  h.key = key;
  h.rows = m.rows();
  h.cols = m.cols();
  h.nnz = m.nonZeros();
  h.dropped = corpus.droppedDocuments;
  h.hasVocab = corpus.vocab.empty() ? 0 : 1;
  if (h.hasVocab && static_cast<std::int64_t>(corpus.vocab.size()) != h.cols)
    return invalidArgument("cannot cache " + name + ": the vocabulary does not match the columns");
  for (const std::string& w : corpus.vocab) h.vocabBytes += w.size();
  bool narrow = true;
  for (Eigen::Index i = 0; i < h.nnz && narrow; ++i) narrow = m.valuePtr()[i] <= 4294967295.0;
  h.valueBytes = narrow ? 4 : 8;
  const Layout layout = layoutOf(h);
  h.payloadBytes = layout.end - sizeof(CacheHeader);

  // A new temporary file (exclusive, random name: never a planted link) renamed when complete:
  // a concurrent load sees the old cache or the new one.
  OutputRules rules;
  rules.inputs = inputs;
  auto file = AtomicFile::create(cachePath, rules);
  if (!file.ok()) return file.status();
  DPLDA_RETURN_IF_ERROR(file->write(&h, sizeof(h)));  // completed below, once the payload is hashed
  HashedWriter w(file.value());
  w.put(m.outerIndexPtr(), static_cast<std::size_t>(h.rows + 1) * 4);
  w.pad();
  w.put(m.innerIndexPtr(), static_cast<std::size_t>(h.nnz) * 4);
  w.pad();
  if (narrow) {
    std::vector<std::uint32_t> block(1 << 16);
    for (Eigen::Index i = 0; i < h.nnz; i += static_cast<Eigen::Index>(block.size())) {
      const Eigen::Index n = std::min<Eigen::Index>(static_cast<Eigen::Index>(block.size()), h.nnz - i);
      for (Eigen::Index j = 0; j < n; ++j) block[static_cast<std::size_t>(j)] = static_cast<std::uint32_t>(m.valuePtr()[i + j]);
      w.put(block.data(), static_cast<std::size_t>(n) * 4);
    }
  } else {
    w.put(m.valuePtr(), static_cast<std::size_t>(h.nnz) * 8);
  }
  w.pad();
  w.put(corpus.lengths.data(), static_cast<std::size_t>(h.rows) * 8);
  if (h.hasVocab) {
    std::vector<std::uint32_t> lengths;
    lengths.reserve(corpus.vocab.size());
    for (const std::string& s : corpus.vocab) lengths.push_back(static_cast<std::uint32_t>(s.size()));
    w.put(lengths.data(), lengths.size() * 4);
    w.pad();
    for (const std::string& s : corpus.vocab) w.put(s.data(), s.size());
    w.pad();
  }
  DPLDA_RETURN_IF_ERROR(w.status());
  if (w.written() != h.payloadBytes) return ioError("cannot write " + name + ": the payload size is not its layout's");
  h.payloadHash = w.hash();
  h.headerHash = hashOf(&h, offsetof(CacheHeader, headerHash));
  DPLDA_RETURN_IF_ERROR(file->writeAt(0, &h, sizeof(h)));
  return file->commit(/*sync=*/false);  // a cache lost in a crash is rebuilt from the text
}

namespace {

struct RowCopy {
  double sum = 0.0;
  bool badId = false, badCount = false;
};

// Checks the entries [b, e) of a row, and copies them into the corpus unless innerOut is null (a
// streamed corpus reads them in place), without a branch per entry (the flags are tested once per
// row). A 4-byte count is an integer by construction: only 0 is refused; an 8-byte one must be a
// positive integer.
template <class Count>
RowCopy copyRow(const std::int32_t* inner, const Count* counts, std::int32_t b, std::int32_t e, std::int64_t cols,
                int* innerOut, double* values) {
  RowCopy out;
  std::int32_t previous = -1;
  for (std::int32_t i = b; i < e; ++i) {
    const std::int32_t id = inner[i];
    out.badId |= (id <= previous) | (id >= cols);
    previous = id;
    const double v = static_cast<double>(counts[i]);
    if constexpr (std::is_same_v<Count, double>) out.badCount |= !(v >= 1.0 && v <= 9.0e15 && v == std::floor(v));
    else out.badCount |= counts[i] == 0;
    if (innerOut) {
      innerOut[i] = id;
      values[i] = v;
    }
    out.sum += v;
  }
  return out;
}

}  // namespace

Result<Corpus> readCorpusCache(const std::string& cachePath, const CorpusSourceKey& expected, bool stream,
                              double keepMappedBytes) {
  const std::string name = escapeText(cachePath);
  auto corrupt = [&](const std::string& why) { return badInput(name + " is corrupt: " + why); };
  auto file = MappedFile::open(cachePath, name);
  if (!file.ok()) return file.status();
  if (!file->mapped() || file->size() < sizeof(CacheHeader)) return corrupt("shorter than its header");
  const char* base = file->view().data();
  CacheHeader h;
  std::memcpy(&h, base, sizeof(h));
  if (std::memcmp(h.magic, kMagic, 8) != 0) return corrupt("not a dplda corpus cache");
  if (h.headerHash != hashOf(&h, offsetof(CacheHeader, headerHash))) return corrupt("header checksum mismatch");
  if (h.version != kVersion || h.byteOrder != kByteOrder || h.minDocLength != kMinDocumentLength)
    return badInput(name + " is stale: written by another version of the reader");
  if (!(h.key == expected)) return badInput(name + " is stale: docword.txt or vocab.txt changed since it was written");
  if (h.rows < 1 || h.rows >= INT32_MAX || h.cols < 1 || h.cols > kMaxVocabularySize || h.nnz < 0 ||
      h.nnz >= INT32_MAX || h.dropped < 0 || h.rows + h.dropped > INT32_MAX || (h.valueBytes != 4 && h.valueBytes != 8) ||
      h.vocabBytes > (1ULL << 40))
    return corrupt("impossible sizes in the header");
  const Layout l = layoutOf(h);
  if (l.end != file->size() || h.payloadBytes != l.end - sizeof(CacheHeader))
    return corrupt("its size (" + std::to_string(file->size()) + " bytes) is not the " + std::to_string(l.end) +
                   " its header implies");
  {
    std::uint64_t hash = 0;
    DPLDA_RETURN_IF_ERROR(hashFileRange(file->fd(), name, sizeof(CacheHeader), l.end, hash));
    if (hash != h.payloadHash) return corrupt("payload checksum mismatch");
  }

  // The checksum says the bytes are the ones written; the structure is checked anyway (the file
  // could have been made by anything), so no later stage can index outside the matrix.
  const auto* outer = reinterpret_cast<const std::int32_t*>(base + l.outer);
  const auto* inner = reinterpret_cast<const std::int32_t*>(base + l.inner);
  const auto* lengths = reinterpret_cast<const double*>(base + l.lengths);
  if (outer[0] != 0 || outer[h.rows] != h.nnz) return corrupt("row offsets do not span the entries");
  // Streamed (issue 27 §4): the counts stay in the mapping, read in place by the passes; only the
  // row offsets and lengths are copied. 8-byte counts (never written for counts below 2^32, which
  // every reader enforces) are not streamed.
  stream = stream && h.valueBytes == 4;
  const bool keepMapped = stream && static_cast<double>(l.end) <= keepMappedBytes;
  Corpus corpus;
  if (!stream) {
    const double bytes = static_cast<double>(h.nnz) * (sizeof(double) + sizeof(int)) +
                         static_cast<double>(h.rows) * (sizeof(double) + sizeof(int));
    DPLDA_RETURN_IF_ERROR(checkMemory(bytes, "loading " + name, "the corpus's counts in memory",
                                      std::to_string(h.nnz) + " counts, 12 bytes each"));
  }
  auto mapped = std::make_shared<MappedCounts>();
  try {
    if (stream) {
      mapped->outer.assign(outer, outer + h.rows + 1);
    } else {
      corpus.counts.resize(h.rows, h.cols);
      corpus.counts.resizeNonZeros(h.nnz);
    }
    corpus.lengths.resize(h.rows);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::ResourceLimit, name + ": not enough memory for the corpus");
  }
  int* innerOut = nullptr;
  double* values = nullptr;
  if (!stream) {
    adviseHugePages(corpus.counts.valuePtr(), static_cast<std::size_t>(h.nnz) * sizeof(double));
    adviseHugePages(corpus.counts.innerIndexPtr(), static_cast<std::size_t>(h.nnz) * sizeof(int));
    std::memcpy(corpus.counts.outerIndexPtr(), outer, static_cast<std::size_t>(h.rows + 1) * 4);
    innerOut = corpus.counts.innerIndexPtr();
    values = corpus.counts.valuePtr();
  }
  const auto* narrow = reinterpret_cast<const std::uint32_t*>(base + l.values);
  const auto* wide = reinterpret_cast<const double*>(base + l.values);
  for (std::int64_t r = 0; r < h.rows; ++r)  // first, so that the rows can be split below
    if (outer[r + 1] < outer[r] || outer[r + 1] > h.nnz) return corrupt("row offsets decrease at row " + std::to_string(r + 1));
  // The rows in waves of about 2^24 entries, each wave's rows in chunks on the OpenMP threads and
  // its mapped pages released behind it (memory stays at the corpus's size plus a wave, not twice
  // the corpus; one release per wave: releasing from every thread cost TLB shootdowns). The first
  // bad row is the one reported, whatever the thread count.
  enum Fault : char { kNone, kBadId, kBadCount, kBadLength };
  constexpr std::int64_t kChunkRows = 1024, kWaveEntries = std::int64_t{1} << 24;
  std::pair<std::int64_t, Fault> fault{h.rows, kNone};
  for (std::int64_t w0 = 0; w0 < h.rows && fault.second == kNone;) {
    std::int64_t w1 = w0 + 1;  // the wave: rows [w0, w1), at least one
    while (w1 < h.rows && outer[w1] - outer[w0] < kWaveEntries) ++w1;
    const std::int64_t chunks = (w1 - w0 + kChunkRows - 1) / kChunkRows;
    std::vector<std::pair<std::int64_t, Fault>> firstFault(static_cast<std::size_t>(chunks), {h.rows, kNone});
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t r0 = w0 + c * kChunkRows, r1 = std::min(w1, r0 + kChunkRows);
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::int32_t b = outer[r], e = outer[r + 1];
        const RowCopy row = h.valueBytes == 4 ? copyRow(inner, narrow, b, e, h.cols, innerOut, values)
                                              : copyRow(inner, wide, b, e, h.cols, innerOut, values);
        const Fault f = row.badId ? kBadId
                        : row.badCount ? kBadCount
                        : (row.sum != lengths[r] || row.sum < kMinDocumentLength) ? kBadLength
                                                                                  : kNone;
        if (f != kNone) {
          firstFault[static_cast<std::size_t>(c)] = {r, f};
          break;
        }
        corpus.lengths[r] = row.sum;
      }
    }
    for (const auto& f : firstFault)
      if (f.second != kNone) {
        fault = f;
        break;
      }
    const std::size_t b = static_cast<std::size_t>(outer[w0]), e = static_cast<std::size_t>(outer[w1]);
    if (!keepMapped) {
      file->dropPages(l.inner + b * 4, l.inner + e * 4);
      file->dropPages(l.values + b * h.valueBytes, l.values + e * h.valueBytes);
    }
    w0 = w1;
  }
  const std::string badRow = std::to_string(fault.first + 1);
  if (fault.second == kBadId) return corrupt("word ids out of order or range in row " + badRow);
  if (fault.second == kBadCount) return corrupt("a count that is not a positive integer in row " + badRow);
  if (fault.second == kBadLength) return corrupt("the length of row " + badRow + " is not its sum of counts");
  if (h.hasVocab) {
    const auto* wordLengths = reinterpret_cast<const std::uint32_t*>(base + l.vocabLengths);
    const char* bytes = base + l.vocabBytes;
    std::uint64_t at = 0;
    corpus.vocab.reserve(static_cast<std::size_t>(h.cols));
    for (std::int64_t i = 0; i < h.cols; ++i) {
      const std::string_view word(bytes + at, wordLengths[i]);
      at += wordLengths[i];
      if (at > h.vocabBytes || word.empty() || findInvalidUtf8(word) >= 0 || hasControlText(word))
        return corrupt("vocabulary word " + std::to_string(i + 1) + " is not a printable word");
      corpus.vocab.emplace_back(word);
    }
    if (at != h.vocabBytes) return corrupt("the vocabulary bytes do not add up");
  }
  corpus.droppedDocuments = static_cast<int>(h.dropped);
  if (stream) {
    if (!keepMapped) file->releasePages(0, file->size());  // the checks' pages; the passes map theirs again
    mapped->keepPages = keepMapped;
    mapped->cols = h.cols;
    mapped->words = inner;
    mapped->counts = narrow;
    mapped->wordsAt = l.inner;
    mapped->countsAt = l.values;
    mapped->file = std::make_shared<const MappedFile>(std::move(file).value());
    corpus.mapped = std::move(mapped);
  }
  return corpus;
}

namespace {

// /dev, /proc and /sys (after links: /dev/stdin is /proc/self/fd/0): no cache file belongs there.
bool inSystemFolder(const fs::path& file) {
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(file.parent_path().empty() ? "." : file.parent_path(), ec), ec);
  const auto top = ++folder.begin();
  return top != folder.end() && (*top == "dev" || *top == "proc" || *top == "sys");
}

}  // namespace

CorpusCacheOptions corpusCacheOptionsFromEnvironment(bool enabled) {
  CorpusCacheOptions o;
  const char* off = std::getenv("DPLDA_NO_CACHE");
  o.enabled = enabled && !(off && *off && std::strcmp(off, "0") != 0);
  if (const char* dir = std::getenv("DPLDA_CACHE_DIR")) o.fallbackDir = dir;
  const auto budget = memoryBudget();
  if (budget.ok()) o.keepMappedBytes = std::min(1.5 * (1u << 30), budget.value().bytes / 4.0);
  return o;
}

namespace {

Result<Corpus> loadCounts(const std::string& pathText, const CorpusCacheOptions& options, Feedback* feedback,
                          CorpusLoadReport* report) {
  CorpusLoadReport local;
  CorpusLoadReport& rep = report ? *report : local;
  rep = CorpusLoadReport();
  if (!options.enabled || pathText.empty()) return readUciCorpus(pathText, feedback);
  // The same resolution as readUciCorpus; anything odd is left to it (and its messages).
  const std::vector<std::string> inputs = uciCorpusFiles(pathText);
  const fs::path docword = inputs[0], vocab = inputs[1];
  std::error_code ec;
  if (!fs::is_regular_file(docword, ec)) return readUciCorpus(pathText, feedback);
  auto key = corpusSourceKey(docword.string(), vocab.string());
  if (!key.ok()) {
    rep.note = key.status().message();
    return readUciCorpus(pathText, feedback);
  }
  std::vector<std::string> candidates;
  if (inSystemFolder(docword)) rep.note = escapeText(docword.parent_path().string()) + " is a system folder: not cached beside it";
  else candidates.push_back(corpusCachePath(docword.string()));
  if (!options.fallbackDir.empty()) candidates.push_back(corpusCachePath(docword.string(), options.fallbackDir));
  for (const std::string& c : candidates) {
    if (!fs::exists(c, ec)) continue;
    auto cached = readCorpusCache(c, key.value(), options.stream, options.keepMappedBytes);
    if (cached.ok()) {
      rep.fromCache = true;
      rep.cachePath = c;
      reportProgress(feedback, 1.0);
      return cached;
    }
    rep.note += (rep.note.empty() ? "" : "; ") + cached.status().message() + " (rebuilt)";
  }
  auto corpus = readUciCorpus(pathText, feedback);
  if (!corpus.ok()) return corpus;
  // Next to the corpus; else the fallback folder; else (read-only media, no fallback) no cache.
  for (const std::string& c : candidates) {
    if (c != corpusCachePath(docword.string())) fs::create_directories(options.fallbackDir, ec);
    const Status w = writeCorpusCache(corpus.value(), key.value(), c, inputs);
    if (w.isOk()) {
      rep.cacheWritten = true;
      rep.cachePath = c;
      if (options.stream) {  // the parsed copy makes way for the cache read in place
        auto streamed = readCorpusCache(c, key.value(), true, options.keepMappedBytes);
        if (streamed.ok()) return streamed;
        rep.note += (rep.note.empty() ? "" : "; ") + streamed.status().message() + " (not streamed)";
      }
      return corpus;
    }
    rep.note += (rep.note.empty() ? "" : "; ") + w.message();
  }
  return corpus;
}

}  // namespace

Result<Corpus> loadUciCorpus(const std::string& pathText, const CorpusCacheOptions& options, Feedback* feedback,
                             CorpusLoadReport* report) {
  auto corpus = loadCounts(pathText, options, feedback, report);
  if (!corpus.ok()) return corpus;
  // What the privacy claim may assume (core/corpus/corpus_provenance.h): a text import keeps its
  // short documents as empty ones, so that N is public.
  std::error_code ec;
  const fs::path path(pathText);
  auto provenance = readCorpusProvenance((fs::is_directory(path, ec) ? path : path.parent_path()).string());
  if (!provenance.ok()) return provenance.status();
  corpus->provenance = std::move(provenance).value();
  if (corpus->provenance.shortDocumentsKept) keepDroppedAsEmpty(corpus.value());
  return corpus;
}

}  // namespace dplda
