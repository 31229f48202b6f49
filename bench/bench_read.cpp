// Reads a UCI corpus once and prints one JSON line (issue 11; run by bench/bench_read.sh):
//   bench_read --mode text|cache|load|stream|key PATH
// text: the text parser (readUciCorpus), no cache. cache: loadUciCorpus, which must find a
// valid cache (exit 4 otherwise). load: loadUciCorpus as the command line uses it (parses and
// writes the cache when there is none). key: only the cache's key (the XXH3 hash of the whole
// text of docword.txt and vocab.txt, issue 28), the part of a cached load that reads the text. Times the read inside the process; peak memory is the
// process's high-water mark (VmHWM), which includes the pages of a mapped file while they are
// resident.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/corpus/corpus_cache.h"
#include "core/corpus/uci_io.h"

namespace {

double statusMiB(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::stod(line.substr(std::strlen(field))) / 1024.0;
  return 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || std::strcmp(argv[1], "--mode") != 0) {
    std::cerr << "usage: bench_read --mode text|cache|load|key PATH\n";
    return 2;
  }
  const std::string mode = argv[2], path = argv[3];
  const auto start = std::chrono::steady_clock::now();
  dplda::CorpusLoadReport report;
  dplda::Result<dplda::Corpus> corpus = dplda::Status();
  if (mode == "key") {
    const std::vector<std::string> files = dplda::uciCorpusFiles(path);
    const auto key = dplda::corpusSourceKey(files[0], files[1]);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!key.ok()) {
      std::cerr << "bench_read: " << key.status().toString() << "\n";
      return 3;
    }
    std::printf("{\"mode\": \"key\", \"key_ms\": %.1f, \"bytes\": %llu, \"peak_rss_mib\": %.0f}\n", ms,
                static_cast<unsigned long long>(key->docwordSize + key->vocabSize), statusMiB("VmHWM:"));
    return 0;
  }
  if (mode == "text") {
    corpus = dplda::readUciCorpus(path);
  } else if (mode == "cache" || mode == "load") {
    corpus = dplda::loadUciCorpus(path, {}, nullptr, &report);
  } else if (mode == "stream") {  // as `dplda run` loads: the counts left in the cache's mapping
    dplda::CorpusCacheOptions streamed;
    streamed.stream = true;
    corpus = dplda::loadUciCorpus(path, streamed, nullptr, &report);
  } else {
    std::cerr << "bench_read: unknown mode " << mode << "\n";
    return 2;
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!corpus.ok()) {
    std::cerr << "bench_read: " << corpus.status().toString() << "\n";
    return 3;
  }
  if (mode == "cache" && !report.fromCache) {
    std::cerr << "bench_read: no valid cache (" << report.note << ")\n";
    return 4;
  }
  std::printf("{\"mode\": \"%s\", \"read_ms\": %.1f, \"docs\": %d, \"vocab\": %d, \"nnz\": %lld, \"from_cache\": %s, "
              "\"cache_written\": %s, \"rss_mib\": %.0f, \"peak_rss_mib\": %.0f}\n",
              mode.c_str(), ms, corpus->docCount(), corpus->vocabSize(), corpus->nnz(),
              report.fromCache ? "true" : "false", report.cacheWritten ? "true" : "false", statusMiB("VmRSS:"),
              statusMiB("VmHWM:"));
  return 0;
}
