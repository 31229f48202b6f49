// Tests of the streamed corpus (issue 27 §4): counts read in place from the binary cache's mapping
// in blocks of documents (Corpus::mapped, forEachRowBlock) give the same entries, in the same
// order, as the resident corpus; each block's pages leave the resident set after it is read; a
// streamed corpus compacts, restores and keeps short documents as empty ones like a resident one.
#include <QtTest>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/corpus/corpus_cache.h"
#include "core/corpus/synthetic_generator.h"
#include "core/corpus/uci_io.h"
#include "core/corpus/vocabulary_compaction.h"

using namespace dplda;
namespace fs = std::filesystem;

namespace {

struct Entry {
  Eigen::Index doc;
  int word;
  double count;
  bool operator==(const Entry&) const = default;
};

// Every entry of documents [begin, end) as forEachRowBlock gives them, and the blocks' sizes.
std::vector<Entry> entriesOf(const Corpus& c, Eigen::Index begin, Eigen::Index end,
                             std::vector<Eigen::Index>* blockEntries = nullptr,
                             std::vector<Eigen::Index>* blockStarts = nullptr) {
  std::vector<Entry> out;
  forEachRowBlock(c, begin, end, [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
    if (blockEntries) blockEntries->push_back(outer[last] - outer[first]);
    if (blockStarts) blockStarts->push_back(first);
    for (Eigen::Index n = first; n < last; ++n)
      for (Eigen::Index e = outer[n]; e < outer[n + 1]; ++e) out.push_back({n, static_cast<int>(entry(e).first), entry(e).second});
  });
  return out;
}

// Resident kilobytes of the mapping that holds `address` (/proc/self/smaps); -1 if not found.
long residentKilobytesOfMapping(const void* address) {
  std::FILE* f = std::fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  const auto a = reinterpret_cast<unsigned long>(address);
  char line[512];
  bool inside = false;
  long rss = -1;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && std::strchr(line, '-') < std::strchr(line, ' ')) {
      inside = lo <= a && a < hi;
      continue;
    }
    long kb = 0;
    if (inside && std::sscanf(line, "Rss: %ld kB", &kb) == 1) {
      rss = kb;
      break;
    }
  }
  std::fclose(f);
  return rss;
}

}  // namespace

class TestStreamedCorpus : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;
  int m_case = 0;

  // A folder with a generated corpus and its binary cache (written by a first load).
  fs::path makeCorpus(int docs, int vocab, double length) {
    GeneratorParams p;
    p.vocabSize = vocab;
    p.docCount = docs;
    p.meanLength = length;
    p.seed = 11 + m_case;
    const auto gen = generateLdaCorpus(p);
    const fs::path dir = fs::path(m_tmp.path().toStdString()) / ("s" + std::to_string(m_case++));
    if (!gen.ok() || !writeUciCorpus(gen->corpus, dir.string()).isOk()) return {};
    CorpusLoadReport report;
    if (!loadUciCorpus(dir.string(), {}, nullptr, &report).ok() || !report.cacheWritten) return {};
    return dir;
  }

  static Corpus load(const fs::path& dir, bool stream, CorpusLoadReport* report = nullptr) {
    CorpusCacheOptions o;
    o.stream = stream;
    auto c = loadUciCorpus(dir.string(), o, nullptr, report);
    if (!c.ok()) qFatal("load failed: %s", c.status().toString().c_str());
    return std::move(c).value();
  }

  static void setBlockEntries(Corpus& c, Eigen::Index entries) {
    auto m = std::make_shared<MappedCounts>(*c.mapped);
    m->blockEntries = entries;
    c.mapped = std::move(m);
  }

 private slots:
  void initTestCase() { QVERIFY(m_tmp.isValid()); }

  void streamedLoadReadsTheCacheInPlace() {
    const fs::path dir = makeCorpus(500, 40, 30);
    QVERIFY(!dir.empty());
    CorpusLoadReport report;
    const Corpus s = load(dir, true, &report);
    const Corpus r = load(dir, false);
    QVERIFY(report.fromCache);
    QVERIFY(s.streamed());
    QVERIFY(!r.streamed());
    QCOMPARE(s.counts.nonZeros(), Eigen::Index(0));  // nothing copied into memory
    QCOMPARE(s.docCount(), r.docCount());
    QCOMPARE(s.vocabSize(), r.vocabSize());
    QCOMPARE(s.nnz(), r.nnz());
    QVERIFY(s.lengths == r.lengths);
    QVERIFY(s.vocab == r.vocab);
    // Without the cache there is nothing to stream: the corpus is resident.
    CorpusCacheOptions off;
    off.enabled = false;
    off.stream = true;
    QVERIFY(!loadUciCorpus(dir.string(), off).value().streamed());
  }

  void firstLoadStreamsTheCacheItWrote() {
    GeneratorParams p;
    p.vocabSize = 30;
    p.docCount = 200;
    p.meanLength = 20;
    const auto gen = generateLdaCorpus(p);
    QVERIFY(gen.ok());
    const fs::path dir = fs::path(m_tmp.path().toStdString()) / "first";
    QVERIFY(writeUciCorpus(gen->corpus, dir.string()).isOk());
    CorpusLoadReport report;
    const Corpus s = load(dir, true, &report);
    QVERIFY(report.cacheWritten);
    QVERIFY(s.streamed());
    QVERIFY(entriesOf(s, 0, s.docCount()) == entriesOf(gen->corpus, 0, gen->corpus.docCount()));
  }

  void blocksCoverTheDocumentsInOrderWithTheSameEntries() {
    const fs::path dir = makeCorpus(700, 50, 25);
    QVERIFY(!dir.empty());
    Corpus s = load(dir, true);
    const Corpus r = load(dir, false);
    for (const Eigen::Index block : {Eigen::Index(1), Eigen::Index(64), Eigen::Index(1000), Eigen::Index(0)}) {
      setBlockEntries(s, block);
      for (const auto& [begin, end] : std::vector<std::pair<Eigen::Index, Eigen::Index>>{{0, 700}, {13, 411}, {699, 700}}) {
        std::vector<Eigen::Index> sizes, starts;
        QVERIFY(entriesOf(s, begin, end, &sizes, &starts) == entriesOf(r, begin, end));
        QCOMPARE(starts.front(), begin);
        QVERIFY(std::is_sorted(starts.begin(), starts.end()));
        // A block holds at most `block` entries, or a single document.
        const Eigen::Index limit = block > 0 ? block : kStreamBlockEntries;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          const Eigen::Index docs = (i + 1 < starts.size() ? starts[i + 1] : end) - starts[i];
          QVERIFY2(sizes[i] <= limit || docs == 1, ("block " + std::to_string(i) + " holds " + std::to_string(sizes[i])).c_str());
        }
        if (block == 64 && begin == 0) QVERIFY(sizes.size() > 100);  // many blocks were read
      }
    }
  }

  void aPassLeavesNoPagesOfTheMappingResident() {
    // 8000 documents of ~250 tokens over 2000 words: ~1.6 M entries, ~13 MB of mapped sections.
    const fs::path dir = makeCorpus(8000, 2000, 250);
    QVERIFY(!dir.empty());
    Corpus s = load(dir, true);
    setBlockEntries(s, 1 << 14);
    const void* words = s.mapped->words;
    double sum = 0.0;
    long largest = 0;  // the most of the mapping resident while a block is read
    forEachRowBlock(s, 0, s.docCount(), [&](Eigen::Index first, Eigen::Index last, const int* outer, auto entry) {
      for (Eigen::Index e = outer[first]; e < outer[last]; ++e) sum += entry(e).second;
      if (first % 50 == 0) largest = std::max(largest, residentKilobytesOfMapping(words));
    });
    QCOMPARE(sum, s.lengths.sum());
    const long after = residentKilobytesOfMapping(words);
    QVERIFY(after >= 0);
    const long mappedKb = static_cast<long>(s.nnz() * 8 / 1024);
    QVERIFY2(mappedKb > 10000, std::to_string(mappedKb).c_str());
    // Without the release every page read would stay: all ~13 MB. One block is 128 KB of entries,
    // and a fault may map up to a 2 MiB folio of the page cache around it (released with it).
    QVERIFY2(after <= 256, ("resident after the pass: " + std::to_string(after) + " kB").c_str());
    QVERIFY2(largest <= 5 * 1024, ("resident during the pass: " + std::to_string(largest) + " kB").c_str());
  }

  // CorpusCacheOptions::keepMappedBytes: a cache within it keeps its pages once read (the passes
  // after the first fault nothing in), one above it releases them as above; the entries are the
  // same either way.
  void aKeptMappingStaysResident() {
    const fs::path dir = makeCorpus(8000, 2000, 250);
    QVERIFY(!dir.empty());
    const std::uintmax_t cacheBytes = fs::file_size(dir / "docword.txt.dplda-cache");
    for (const double keep : {double(cacheBytes), double(cacheBytes) - 1.0}) {
      CorpusCacheOptions o;
      o.stream = true;
      o.keepMappedBytes = keep;
      Corpus s = loadUciCorpus(dir.string(), o).value();
      QVERIFY(s.streamed());
      setBlockEntries(s, 1 << 14);
      QVERIFY(entriesOf(s, 0, s.docCount()) == entriesOf(load(dir, false), 0, s.docCount()));
      const long after = residentKilobytesOfMapping(s.mapped->words);
      const long mappedKb = static_cast<long>(s.nnz() * 8 / 1024);
      if (keep >= double(cacheBytes))
        QVERIFY2(after >= mappedKb * 9 / 10, ("kept: " + std::to_string(after) + " of " + std::to_string(mappedKb) + " kB").c_str());
      else
        QVERIFY2(after <= 256, ("released: " + std::to_string(after) + " kB resident").c_str());
    }
  }

  void compactionAndRestoreMatchTheResidentCorpus() {
    const fs::path dir = makeCorpus(300, 400, 8);  // short documents over many words: some unused
    QVERIFY(!dir.empty());
    Corpus s = load(dir, true);
    Corpus r = load(dir, false);
    setBlockEntries(s, 50);
    VocabularyCompaction cs = compactVocabulary(s), cr = compactVocabulary(r);
    QVERIFY(cr.compacted());
    QVERIFY(cs.wordIds == cr.wordIds);
    QCOMPARE(s.vocabSize(), r.vocabSize());
    QVERIFY(s.vocab == r.vocab);
    QVERIFY(entriesOf(s, 0, s.docCount()) == entriesOf(r, 0, r.docCount()));
    restoreVocabulary(s, cs);
    restoreVocabulary(r, cr);
    QCOMPARE(s.vocabSize(), 400);
    QVERIFY(entriesOf(s, 0, s.docCount()) == entriesOf(r, 0, r.docCount()));
    QVERIFY(s.vocab == r.vocab);
  }

  void shortDocumentsKeptAsEmptyRows() {
    const fs::path dir = makeCorpus(100, 20, 10);
    QVERIFY(!dir.empty());
    Corpus s = load(dir, true);
    Corpus r = load(dir, false);
    s.droppedDocuments = r.droppedDocuments = 3;
    keepDroppedAsEmpty(s);
    keepDroppedAsEmpty(r);
    QCOMPARE(s.docCount(), r.docCount());
    QCOMPARE(s.emptyDocuments, 3);
    QVERIFY(s.lengths == r.lengths);
    QVERIFY(entriesOf(s, 0, s.docCount()) == entriesOf(r, 0, r.docCount()));
    std::vector<Eigen::Index> sizes;
    entriesOf(s, s.docCount() - 3, s.docCount(), &sizes);
    QCOMPARE(sizes.size(), std::size_t(1));
    QCOMPARE(sizes[0], Eigen::Index(0));
  }
};

QTEST_GUILESS_MAIN(TestStreamedCorpus)
#include "tst_streamed_corpus.moc"
