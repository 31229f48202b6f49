#pragma once
// A compact binary cache of a parsed UCI corpus, so that a second load of the same text is
// near-instant (issue 11).
//
// Where: next to the docword file (docword.txt -> docword.txt.dplda-cache). When that folder is
// not writable the cache goes to CorpusCacheOptions::fallbackDir if one is given (named by a
// hash of the docword file's absolute path), else the corpus is simply not cached.
//
// Keyed on the source: size, modification time (ns) and a 64-bit hash of the first and last
// 64 KiB of docword.txt, and the same for vocab.txt (or its absence). Not a hash of the whole
// text: that would read all of it (24 s of the 937 MB NYTimes-sized file was reading it, and a
// cold read alone is seconds), which is what the cache exists to avoid. Any ordinary edit changes
// the size or the time; the edge hash also catches a same-size replacement whose time was
// restored (cp -p, rsync -t) in its header or tail. An edit in the middle that keeps the size and
// restores the nanosecond time is not detected: --no-cache (or deleting the cache) is the way
// out. The key is taken before the text is parsed, so a file changed during the parse leaves a
// cache that is stale at the next load.
//
// Never trusted: a cache is used only if its header, the key, the file size and the XXH64
// checksum of its payload all match, and its structure is valid (row offsets, word ids in range
// and increasing in each row, positive integer counts, lengths equal to the row sums, printable
// vocabulary). Anything else (stale, truncated, a flipped byte, another format version) is
// reported in CorpusLoadReport::note and the cache is rebuilt from the text. Files are written
// to a temporary name and renamed, so a reader never sees half a cache.
//
// Layout (host byte order, checked by a marker): a 192-byte header, then 8-byte aligned sections
// rows+1 int32 row offsets, nnz int32 word ids, nnz counts (uint32, or double when a count does
// not fit 32 bits), rows double lengths, and the vocabulary (cols uint32 lengths, then bytes).
#include <cstdint>
#include <string>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

struct CorpusCacheOptions {
  bool enabled = true;
  std::string fallbackDir;  // used only when the corpus folder is not writable; empty: skip
};

// What the command line and the app use: `enabled`, and the fallback folder from the
// environment variable DPLDA_CACHE_DIR (unset: none). DPLDA_NO_CACHE=1 disables the cache.
CorpusCacheOptions corpusCacheOptionsFromEnvironment(bool enabled = true);

struct CorpusLoadReport {
  bool fromCache = false;     // the corpus came from a valid cache
  bool cacheWritten = false;  // the text was parsed and a cache written
  std::string cachePath;      // the cache used or written (empty if none)
  std::string note;           // why a cache was rejected or not written (empty when all went well)
};

// The identity of the source files a cache was built from.
struct CorpusSourceKey {
  std::uint64_t docwordSize = 0;
  std::int64_t docwordMtimeNs = 0;
  std::uint64_t docwordEdgeHash = 0;
  std::uint64_t hasVocab = 0;
  std::uint64_t vocabSize = 0;
  std::int64_t vocabMtimeNs = 0;
  std::uint64_t vocabEdgeHash = 0;
  bool operator==(const CorpusSourceKey&) const = default;
};

// readUciCorpus with the cache: a valid cache is loaded, otherwise the text is parsed (errors
// exactly as readUciCorpus) and a cache is written. With options.enabled false it is
// readUciCorpus. `report` (optional) says what happened.
Result<Corpus> loadUciCorpus(const std::string& path, const CorpusCacheOptions& options = {},
                             Feedback* feedback = nullptr, CorpusLoadReport* report = nullptr);

// The pieces, for tests and tools. The key of a docword file and its vocab.txt (which may be
// absent); IoError when docword cannot be read as a regular file.
Result<CorpusSourceKey> corpusSourceKey(const std::string& docwordPath, const std::string& vocabPath);
// The cache file beside docwordPath, or in `dir` when dir is not empty.
std::string corpusCachePath(const std::string& docwordPath, const std::string& dir = {});
Status writeCorpusCache(const Corpus& corpus, const CorpusSourceKey& key, const std::string& cachePath);
// BadInput naming the cache file and what is wrong ("stale: ...", "corrupt: ...").
Result<Corpus> readCorpusCache(const std::string& cachePath, const CorpusSourceKey& expected);

// XXH64 of `size` bytes (seed 0).
std::uint64_t xxhash64(const void* data, std::size_t size, std::uint64_t seed = 0);

}  // namespace dplda
