#pragma once
// A compact binary cache of a parsed UCI corpus, so that a second load of the same text is
// near-instant (issue 11).
//
// Where: next to the docword file (docword.txt -> docword.txt.dplda-cache). When that folder is
// not writable the cache goes to CorpusCacheOptions::fallbackDir if one is given (named by a
// hash of the docword file's absolute path), else the corpus is simply not cached.
//
// Keyed on the source: the size and a 64-bit hash of the whole text of docword.txt (XXH3,
// libxxhash, of each 16 MiB block, then of the blocks' digests: the blocks are hashed on all the
// threads), and the same for vocab.txt (or its absence). An edit anywhere is seen, also one
// that keeps the size and puts the modification time back (issue 28: a cache keyed on size and
// time was trusted after such an edit). Hashing reads the text once, with pread(2) into small
// buffers (0.1 s for the 0.94 GB of a NYTimes-sized text in the page cache, 2 threads; a cold read
// is the disk's speed): a small part of a parse (docs/BENCHMARKS.md). The
// key is taken before the text is parsed, so a file changed during the parse leaves a cache that
// is stale at the next load. Inputs that are not regular files (a FIFO, /dev/stdin as a pipe) are
// refused by the reader; a corpus in a system folder (/dev, /proc, /sys) is not cached beside it.
//
// Never trusted: a cache is used only if its header, the key, the file size and the checksum of
// its payload (the same block hash) all match, and its structure is valid (row offsets, word ids in range
// and increasing in each row, positive integer counts, lengths equal to the row sums, printable
// vocabulary). Anything else (stale, truncated, a flipped byte, another format version) is
// reported in CorpusLoadReport::note and the cache is rebuilt from the text. Files are written
// by AtomicFile (core/common/safe_file.h): an exclusive temporary file renamed when complete, so a
// reader never sees half a cache and a link planted beside the corpus is never followed.
//
// Layout (host byte order, checked by a marker): a 192-byte header, then 8-byte aligned sections
// rows+1 int32 row offsets, nnz int32 word ids, nnz counts (uint32, or double when a count does
// not fit 32 bits), rows double lengths, and the vocabulary (cols uint32 lengths, then bytes).
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

struct CorpusCacheOptions {
  bool enabled = true;
  std::string fallbackDir;  // used only when the corpus folder is not writable; empty: skip
  // Read the counts in place from the cache's mapping (Corpus::mapped, a streamed corpus) instead
  // of copying them into memory: a fit then holds a few blocks of documents, not 12 bytes per
  // count (issue 27 §4). Without a usable cache the corpus is resident, as always.
  bool stream = false;
  // A streamed cache of at most this many bytes keeps its pages mapped once read, instead of
  // releasing them behind every block: the passes after the first (the second moment, the
  // packing, the tensor, the coherence) find them mapped (each pass over a released NYTimes-sized
  // mapping faulted it in again: 1.5 s of a 4.4 s fit). The pages are the page cache's, clean: the
  // kernel can still reclaim them. 0: always released (the bounded memory of issue 27 §4).
  double keepMappedBytes = 0.0;
};

// What the command line and the app use: `enabled`, and the fallback folder from the
// environment variable DPLDA_CACHE_DIR (unset: none). DPLDA_NO_CACHE=1 disables the cache.
// keepMappedBytes: a quarter of the memory budget (memory_budget.h), at most 1.5 GiB (a cache of
// ~2·10⁸ counts; larger corpora stream in bounded memory).
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
  std::uint64_t docwordHash = 0;  // the block hash of the whole file (XXH3-64 of 16 MiB blocks, then of their digests)
  std::uint64_t hasVocab = 0;
  std::uint64_t vocabSize = 0;
  std::uint64_t vocabHash = 0;
  bool operator==(const CorpusSourceKey&) const = default;
};

// readUciCorpus with the cache: a valid cache is loaded, otherwise the text is parsed (errors
// exactly as readUciCorpus) and a cache is written. With options.enabled false it is
// readUciCorpus. `report` (optional) says what happened.
Result<Corpus> loadUciCorpus(const std::string& path, const CorpusCacheOptions& options = {},
                             Feedback* feedback = nullptr, CorpusLoadReport* report = nullptr);

// The pieces, for tests and tools. The key of a docword file and its vocab.txt (which may be
// absent); IoError when either is not a regular file or cannot be read.
Result<CorpusSourceKey> corpusSourceKey(const std::string& docwordPath, const std::string& vocabPath);
// The cache file beside docwordPath, or in `dir` when dir is not empty.
std::string corpusCachePath(const std::string& docwordPath, const std::string& dir = {});
// Never written over one of `inputs` (the corpus files), nor over anything but a regular file.
Status writeCorpusCache(const Corpus& corpus, const CorpusSourceKey& key, const std::string& cachePath,
                        const std::vector<std::string>& inputs = {});
// BadInput naming the cache file and what is wrong ("stale: ...", "corrupt: ..."); ResourceLimit
// when a resident corpus would not fit in memory. `stream`, `keepMappedBytes`: see CorpusCacheOptions.
Result<Corpus> readCorpusCache(const std::string& cachePath, const CorpusSourceKey& expected, bool stream = false,
                              double keepMappedBytes = 0.0);

}  // namespace dplda
