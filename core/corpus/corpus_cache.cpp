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
#include <new>
#include <vector>

#include "core/common/text_escape.h"
#include "core/corpus/mapped_file.h"
#include "core/corpus/text_import.h"
#include "core/corpus/uci_io.h"

namespace dplda {

namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------- XXH64 (streaming)

constexpr std::uint64_t P1 = 11400714785074694791ULL, P2 = 14029467366897019727ULL, P3 = 1609587929392839161ULL,
                        P4 = 9650029242287828579ULL, P5 = 2870177450012600261ULL;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline std::uint64_t read64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // little-endian hosts only (the cache header checks the byte order)
}
inline std::uint32_t read32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline std::uint64_t round1(std::uint64_t acc, std::uint64_t in) { return rotl(acc + in * P2, 31) * P1; }
inline std::uint64_t merge(std::uint64_t acc, std::uint64_t v) { return (acc ^ round1(0, v)) * P1 + P4; }

class Xxh64 {
 public:
  explicit Xxh64(std::uint64_t seed = 0) : m_v{seed + P1 + P2, seed + P2, seed, seed - P1}, m_seed(seed) {}
  void update(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    m_total += n;
    if (m_fill) {
      const std::size_t take = std::min(n, 32 - m_fill);
      std::memcpy(m_buf + m_fill, p, take);
      m_fill += take;
      p += take;
      n -= take;
      if (m_fill < 32) return;
      stripe(m_buf);
      m_fill = 0;
    }
    // The lanes in locals: p is unsigned char*, which may alias the members, so updating the
    // members in the loop would store and reload them for every stripe.
    std::uint64_t v0 = m_v[0], v1 = m_v[1], v2 = m_v[2], v3 = m_v[3];
    for (; n >= 32; p += 32, n -= 32) {
      v0 = round1(v0, read64(p));
      v1 = round1(v1, read64(p + 8));
      v2 = round1(v2, read64(p + 16));
      v3 = round1(v3, read64(p + 24));
    }
    m_v[0] = v0;
    m_v[1] = v1;
    m_v[2] = v2;
    m_v[3] = v3;
    std::memcpy(m_buf, p, n);
    m_fill = n;
  }
  std::uint64_t digest() const {
    std::uint64_t h = m_total >= 32 ? rotl(m_v[0], 1) + rotl(m_v[1], 7) + rotl(m_v[2], 12) + rotl(m_v[3], 18)
                                    : m_seed + P5;
    if (m_total >= 32)
      for (std::uint64_t v : m_v) h = merge(h, v);
    h += m_total;
    const unsigned char* p = m_buf;
    std::size_t n = m_fill;
    for (; n >= 8; p += 8, n -= 8) h = rotl(h ^ round1(0, read64(p)), 27) * P1 + P4;
    if (n >= 4) {
      h = rotl(h ^ (static_cast<std::uint64_t>(read32(p)) * P1), 23) * P2 + P3;
      p += 4;
      n -= 4;
    }
    for (; n > 0; ++p, --n) h = rotl(h ^ (*p * P5), 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ (h >> 32);
  }

 private:
  void stripe(const unsigned char* p) {
    for (int i = 0; i < 4; ++i) m_v[i] = round1(m_v[i], read64(p + 8 * i));
  }
  std::uint64_t m_v[4];
  std::uint64_t m_seed;
  std::uint64_t m_total = 0;
  unsigned char m_buf[32] = {};
  std::size_t m_fill = 0;
};

// ---------------------------------------------------------------- the file header

constexpr char kMagic[8] = {'D', 'P', 'L', 'D', 'A', 'C', 'S', 'R'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kByteOrder = 0x01020304;
constexpr std::size_t kEdgeBytes = 64 << 10;

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
  std::uint64_t reserved[5];
  std::uint64_t headerHash;  // XXH64 of every byte above
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
  explicit HashedWriter(std::FILE* f) : m_file(f) {}
  void put(const void* p, std::size_t n) {
    if (!m_ok || n == 0) return;
    m_hash.update(p, n);
    m_ok = std::fwrite(p, 1, n, m_file) == n;
    m_written += n;
  }
  void pad() {
    static const char zeros[8] = {};
    put(zeros, align8(m_written) - m_written);
  }
  bool ok() const { return m_ok; }
  std::uint64_t hash() const { return m_hash.digest(); }
  std::size_t written() const { return m_written; }

 private:
  std::FILE* m_file;
  Xxh64 m_hash;
  bool m_ok = true;
  std::size_t m_written = 0;
};

std::uint64_t edgeHash(const MappedFile& f) {
  const std::string_view v = f.view();
  Xxh64 h;
  h.update(v.data(), std::min(v.size(), kEdgeBytes));
  if (v.size() > kEdgeBytes) {
    const std::size_t from = std::max(kEdgeBytes, v.size() - kEdgeBytes);
    h.update(v.data() + from, v.size() - from);
  }
  return h.digest();
}

}  // namespace

std::uint64_t xxhash64(const void* data, std::size_t size, std::uint64_t seed) {
  Xxh64 h(seed);
  h.update(data, size);
  return h.digest();
}

Result<CorpusSourceKey> corpusSourceKey(const std::string& docwordPath, const std::string& vocabPath) {
  CorpusSourceKey key;
  auto stamp = [](const std::string& path, std::uint64_t& size, std::int64_t& mtime,
                  std::uint64_t& hash) -> Status {
    const std::string name = escapeText(path);
    auto f = MappedFile::open(path, name);
    if (!f.ok()) return f.status();
    if (!f->regular()) return ioError(name + " is not a regular file: not cached");
    if (f->size() > 0 && !f->mapped()) return ioError(name + " cannot be mapped: not cached");
    size = f->size();
    mtime = f->mtimeNs();
    hash = edgeHash(f.value());
    return Status::ok();
  };
  DPLDA_RETURN_IF_ERROR(stamp(docwordPath, key.docwordSize, key.docwordMtimeNs, key.docwordEdgeHash));
  std::error_code ec;
  if (!vocabPath.empty() && fs::exists(vocabPath, ec)) {
    key.hasVocab = 1;
    DPLDA_RETURN_IF_ERROR(stamp(vocabPath, key.vocabSize, key.vocabMtimeNs, key.vocabEdgeHash));
  }
  return key;
}

std::string corpusCachePath(const std::string& docwordPath, const std::string& dir) {
  if (dir.empty()) return docwordPath + ".dplda-cache";
  std::error_code ec;
  const std::string absolute = fs::absolute(docwordPath, ec).lexically_normal().string();
  char name[40];
  std::snprintf(name, sizeof(name), "%016llx.dplda-cache",
                static_cast<unsigned long long>(xxhash64(absolute.data(), absolute.size())));
  return (fs::path(dir) / name).string();
}

Status writeCorpusCache(const Corpus& corpus, const CorpusSourceKey& key, const std::string& cachePath) {
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

  // Written under a temporary name and renamed: a concurrent load sees the old file or the new.
  const std::string tmp = cachePath + ".tmp" + std::to_string(getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return ioError("cannot create " + escapeText(tmp) + ": " + std::strerror(errno));
  std::fseek(f, static_cast<long>(sizeof(CacheHeader)), SEEK_SET);
  HashedWriter w(f);
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
  h.payloadHash = w.hash();
  h.headerHash = xxhash64(&h, offsetof(CacheHeader, headerHash));
  bool ok = w.ok() && w.written() == h.payloadBytes && std::fseek(f, 0, SEEK_SET) == 0 &&
            std::fwrite(&h, sizeof(h), 1, f) == 1;
  const int err = errno;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), cachePath.c_str()) != 0) {
    const std::string why = std::strerror(ok ? errno : err);
    std::remove(tmp.c_str());
    return ioError("cannot write " + name + ": " + why);
  }
  return Status::ok();
}

namespace {

struct RowCopy {
  double sum = 0.0;
  bool badId = false, badCount = false;
};

// Copies the entries [b, e) of a row into the corpus and checks them, without a branch per entry
// (the flags are tested once per row). A 4-byte count is an integer by construction: only 0 is
// refused; an 8-byte one must be a positive integer.
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
    innerOut[i] = id;
    values[i] = v;
    out.sum += v;
  }
  return out;
}

}  // namespace

Result<Corpus> readCorpusCache(const std::string& cachePath, const CorpusSourceKey& expected) {
  const std::string name = escapeText(cachePath);
  auto corrupt = [&](const std::string& why) { return badInput(name + " is corrupt: " + why); };
  auto file = MappedFile::open(cachePath, name);
  if (!file.ok()) return file.status();
  if (!file->mapped() || file->size() < sizeof(CacheHeader)) return corrupt("shorter than its header");
  const char* base = file->view().data();
  CacheHeader h;
  std::memcpy(&h, base, sizeof(h));
  if (std::memcmp(h.magic, kMagic, 8) != 0) return corrupt("not a dplda corpus cache");
  if (h.headerHash != xxhash64(&h, offsetof(CacheHeader, headerHash))) return corrupt("header checksum mismatch");
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
    // Hashed in blocks whose pages are released behind: a cache larger than memory still loads.
    // A cache of one block keeps its pages for the pass below (no second round of page faults).
    constexpr std::size_t kBlock = 64u << 20;
    Xxh64 hash;
    for (std::size_t at = sizeof(CacheHeader); at < l.end; at += kBlock) {
      const std::size_t n = std::min(kBlock, l.end - at);
      hash.update(base + at, n);
      if (l.end > kBlock) file->dropPages(at, at + n);
    }
    if (hash.digest() != h.payloadHash) return corrupt("payload checksum mismatch");
  }

  // The checksum says the bytes are the ones written; the structure is checked anyway (the file
  // could have been made by anything), so no later stage can index outside the matrix.
  const auto* outer = reinterpret_cast<const std::int32_t*>(base + l.outer);
  const auto* inner = reinterpret_cast<const std::int32_t*>(base + l.inner);
  const auto* lengths = reinterpret_cast<const double*>(base + l.lengths);
  if (outer[0] != 0 || outer[h.rows] != h.nnz) return corrupt("row offsets do not span the entries");
  Corpus corpus;
  try {
    corpus.counts.resize(h.rows, h.cols);
    corpus.counts.resizeNonZeros(h.nnz);
    corpus.lengths.resize(h.rows);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::ResourceLimit, name + ": not enough memory for the corpus");
  }
  adviseHugePages(corpus.counts.valuePtr(), static_cast<std::size_t>(h.nnz) * sizeof(double));
  adviseHugePages(corpus.counts.innerIndexPtr(), static_cast<std::size_t>(h.nnz) * sizeof(int));
  std::memcpy(corpus.counts.outerIndexPtr(), outer, static_cast<std::size_t>(h.rows + 1) * 4);
  int* innerOut = corpus.counts.innerIndexPtr();
  double* values = corpus.counts.valuePtr();
  const auto* narrow = reinterpret_cast<const std::uint32_t*>(base + l.values);
  const auto* wide = reinterpret_cast<const double*>(base + l.values);
  std::int64_t dropped = 0;  // entries whose mapped pages were released
  for (std::int64_t r = 0; r < h.rows; ++r) {
    const std::int32_t b = outer[r], e = outer[r + 1];
    if (e < b || e > h.nnz) return corrupt("row offsets decrease at row " + std::to_string(r + 1));
    const RowCopy row = h.valueBytes == 4 ? copyRow(inner, narrow, b, e, h.cols, innerOut, values)
                                          : copyRow(inner, wide, b, e, h.cols, innerOut, values);
    if (row.badId) return corrupt("word ids out of order or range in row " + std::to_string(r + 1));
    if (row.badCount) return corrupt("a count that is not a positive integer in row " + std::to_string(r + 1));
    // The copied part of the mapping leaves the resident set: memory stays at the corpus's size
    // plus a window, not twice the corpus.
    if (e - dropped >= (16 << 20)) {
      file->dropPages(l.inner + static_cast<std::size_t>(dropped) * 4, l.inner + static_cast<std::size_t>(e) * 4);
      file->dropPages(l.values + static_cast<std::size_t>(dropped) * h.valueBytes,
                      l.values + static_cast<std::size_t>(e) * h.valueBytes);
      dropped = e;
    }
    if (row.sum != lengths[r] || row.sum < kMinDocumentLength)
      return corrupt("the length of row " + std::to_string(r + 1) + " is not its sum of counts");
    corpus.lengths[r] = row.sum;
  }
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
  return corpus;
}

CorpusCacheOptions corpusCacheOptionsFromEnvironment(bool enabled) {
  CorpusCacheOptions o;
  const char* off = std::getenv("DPLDA_NO_CACHE");
  o.enabled = enabled && !(off && *off && std::strcmp(off, "0") != 0);
  if (const char* dir = std::getenv("DPLDA_CACHE_DIR")) o.fallbackDir = dir;
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
  std::error_code ec;
  const fs::path path(pathText);
  fs::path docword, vocab;
  if (fs::is_directory(path, ec)) {
    docword = path / "docword.txt";
    vocab = path / "vocab.txt";
  } else {
    docword = path;
    vocab = path.parent_path() / "vocab.txt";
  }
  if (!fs::is_regular_file(docword, ec)) return readUciCorpus(pathText, feedback);
  auto key = corpusSourceKey(docword.string(), vocab.string());
  if (!key.ok()) {
    rep.note = key.status().message();
    return readUciCorpus(pathText, feedback);
  }
  std::vector<std::string> candidates = {corpusCachePath(docword.string())};
  if (!options.fallbackDir.empty()) candidates.push_back(corpusCachePath(docword.string(), options.fallbackDir));
  for (const std::string& c : candidates) {
    if (!fs::exists(c, ec)) continue;
    auto cached = readCorpusCache(c, key.value());
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
    if (c != candidates.front()) fs::create_directories(options.fallbackDir, ec);
    const Status w = writeCorpusCache(corpus.value(), key.value(), c);
    if (w.isOk()) {
      rep.cacheWritten = true;
      rep.cachePath = c;
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
