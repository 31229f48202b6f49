// Tests of the binary corpus cache (issue 11): a cached load is bit-identical to the text parse;
// a stale cache (the text changed) and a corrupt one (a flipped byte, a truncation, a forged
// structure behind a valid checksum) are detected and rebuilt, never trusted.
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>
#include <omp.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <algorithm>
#include <string>

#include "core/corpus/corpus_cache.h"
#include "core/corpus/synthetic_generator.h"
#include "core/corpus/uci_io.h"

using namespace dplda;
namespace fs = std::filesystem;

namespace {

bool identical(const Corpus& a, const Corpus& b) {
  const auto& x = a.counts;
  const auto& y = b.counts;
  if (x.rows() != y.rows() || x.cols() != y.cols() || x.nonZeros() != y.nonZeros() || !y.isCompressed()) return false;
  const std::size_t n = static_cast<std::size_t>(x.nonZeros());
  return std::memcmp(x.outerIndexPtr(), y.outerIndexPtr(), sizeof(int) * (x.rows() + 1)) == 0 &&
         std::memcmp(x.innerIndexPtr(), y.innerIndexPtr(), sizeof(int) * n) == 0 &&
         std::memcmp(x.valuePtr(), y.valuePtr(), sizeof(double) * n) == 0 &&
         std::memcmp(a.lengths.data(), b.lengths.data(), sizeof(double) * a.lengths.size()) == 0 &&
         a.lengths.size() == b.lengths.size() && a.vocab == b.vocab && a.droppedDocuments == b.droppedDocuments;
}

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeAll(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace

class TestCorpusCache : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;
  int m_case = 0;

  // A folder with a generated corpus (with vocab.txt unless `names` is false).
  fs::path makeCorpus(int docs = 400, bool names = true) {
    GeneratorParams p;
    p.vocabSize = names ? 60 : 20;  // without vocab.txt every word id must be used: 20 of them are
    p.docCount = docs;
    p.meanLength = 20;
    p.seed = 5 + m_case;
    const auto gen = generateLdaCorpus(p);
    const fs::path dir = fs::path(m_tmp.path().toStdString()) / ("c" + std::to_string(m_case++));
    if (!gen.ok() || !writeUciCorpus(gen->corpus, dir.string()).isOk()) return {};
    if (!names) fs::remove(dir / "vocab.txt");
    return dir;
  }

  // Loads through the cache and checks the result against a plain text parse.
  CorpusLoadReport loadAndCompare(const fs::path& dir, const CorpusCacheOptions& options = {}) {
    CorpusLoadReport report;
    const auto cached = loadUciCorpus(dir.string(), options, nullptr, &report);
    const auto text = readUciCorpus(dir.string());
    if (!cached.ok() || !text.ok()) {
      const std::string why = "a load failed: " + (cached.ok() ? text.status() : cached.status()).toString();
      QTest::qFail(why.c_str(), __FILE__, __LINE__);
      return report;
    }
    if (!identical(text.value(), cached.value())) QTest::qFail("cached corpus differs from the text", __FILE__, __LINE__);
    return report;
  }

 private slots:
  void initTestCase() { QVERIFY(m_tmp.isValid()); }

  void roundTripIsBitIdentical() {
    for (bool names : {true, false}) {
      const fs::path dir = makeCorpus(400, names);
      QVERIFY(!dir.empty());
      const CorpusLoadReport first = loadAndCompare(dir);
      QVERIFY(!first.fromCache);
      QVERIFY2(first.cacheWritten, first.note.c_str());
      QCOMPARE(QString::fromStdString(first.cachePath), QString::fromStdString((dir / "docword.txt.dplda-cache").string()));
      const CorpusLoadReport second = loadAndCompare(dir);
      QVERIFY2(second.fromCache, second.note.c_str());
      QVERIFY(second.note.empty());
      // The docword file named directly finds the same cache.
      CorpusLoadReport direct;
      QVERIFY(loadUciCorpus((dir / "docword.txt").string(), {}, nullptr, &direct).ok());
      QVERIFY(direct.fromCache);
    }
  }

  // Dropped documents, a repeated line, and a count at the reader's limit (10^7 tokens per document).
  void oddCorporaRoundTrip() {
    const fs::path dir = fs::path(m_tmp.path().toStdString()) / "odd";
    fs::create_directories(dir);
    writeAll(dir / "docword.txt", "5\n3\n7\n1 1 2\n1 1 1\n2 2 1\n3 3 9000000\n3 1 1\n5 2 4\n5 3 4\n");
    writeAll(dir / "vocab.txt", "caf\xc3\xa9\nnew york\nz\n");
    QVERIFY(loadAndCompare(dir).cacheWritten);
    const CorpusLoadReport again = loadAndCompare(dir);
    QVERIFY(again.fromCache);
    const auto c = loadUciCorpus(dir.string());
    QCOMPARE(c->droppedDocuments, 2);
    QCOMPARE(c->counts.coeff(1, 2), 9000000.0);
    QCOMPARE(QString::fromStdString(c->vocab[0]), QString::fromUtf8("caf\xc3\xa9"));
  }

  void staleCachesAreRebuilt() {
    const fs::path dir = makeCorpus();
    QVERIFY(loadAndCompare(dir).cacheWritten);
    const fs::path docword = dir / "docword.txt";
    std::string text = readAll(docword);

    // A different size.
    writeAll(docword, text + "\n");
    CorpusLoadReport r = loadAndCompare(dir);
    QVERIFY(!r.fromCache);
    QVERIFY2(r.note.find("stale") != std::string::npos, r.note.c_str());
    QVERIFY(r.cacheWritten);
    QVERIFY(loadAndCompare(dir).fromCache);

    // Same size, the modification time put back: the hash of the text tells.
    const auto stamp = fs::last_write_time(docword);
    const std::size_t at = text.find('\n', text.find('\n', text.find('\n') + 1) + 1) + 1;  // first entry line
    std::string changed = text + "\n";
    const std::size_t countAt = changed.find('\n', at) - 1;
    changed[countAt] = changed[countAt] == '1' ? '2' : '1';
    writeAll(docword, changed);
    fs::last_write_time(docword, stamp);
    r = loadAndCompare(dir);
    QVERIFY(!r.fromCache);
    QVERIFY2(r.note.find("stale") != std::string::npos, r.note.c_str());

    // vocab.txt edited, then removed.
    std::string vocab = readAll(dir / "vocab.txt");
    vocab[0] = vocab[0] == 'x' ? 'y' : 'x';
    writeAll(dir / "vocab.txt", vocab);
    r = loadAndCompare(dir);
    QVERIFY(!r.fromCache && r.note.find("stale") != std::string::npos);
    QVERIFY(loadAndCompare(dir).fromCache);

    // vocab.txt added beside a corpus cached without one.
    const fs::path plain = makeCorpus(400, false);
    QVERIFY(loadAndCompare(plain).cacheWritten);
    const auto w = readUciCorpus(plain.string());
    std::string names;
    for (int i = 0; i < w->vocabSize(); ++i) names += "word" + std::to_string(i) + "\n";
    writeAll(plain / "vocab.txt", names);
    r = loadAndCompare(plain);
    QVERIFY2(!r.fromCache && r.note.find("stale") != std::string::npos, r.note.c_str());
    QVERIFY(loadAndCompare(plain).fromCache);
  }

  // Issue 28: an edit in the middle of a large file that keeps the size and restores the
  // modification time (touch -r) was trusted by a key of size, time and the file's edges.
  void editInTheMiddleIsSeen() {
    const fs::path dir = makeCorpus(6000);
    const fs::path docword = dir / "docword.txt";
    const std::string text = readAll(docword);
    QVERIFY2(text.size() > (300u << 10), "the corpus must be larger than the old edges (2 x 64 KiB)");
    QVERIFY(loadAndCompare(dir).cacheWritten);
    const auto stamp = fs::last_write_time(docword);
    // A count in the middle: a digit 1..8 becomes the next digit (same size, still valid).
    std::size_t at = text.size() / 2;
    at = text.find('\n', at);
    std::size_t digit = at - 1;
    while (!(text[digit] >= '1' && text[digit] <= '8')) digit = text.find('\n', digit + 2) - 1;
    std::string edited = text;
    edited[digit] = static_cast<char>(edited[digit] + 1);
    {
      std::fstream f(docword, std::ios::in | std::ios::out | std::ios::binary);  // in place
      f.seekp(static_cast<std::streamoff>(digit));
      f.put(edited[digit]);
    }
    fs::last_write_time(docword, stamp);
    QCOMPARE(readAll(docword).size(), text.size());
    const CorpusLoadReport r = loadAndCompare(dir);  // compares with a fresh parse of the text
    QVERIFY2(!r.fromCache && r.note.find("stale") != std::string::npos, r.note.c_str());
    QVERIFY(loadAndCompare(dir).fromCache);
    // The same in vocab.txt: one letter of a word in the middle.
    const fs::path vocabPath = dir / "vocab.txt";
    std::string vocab = readAll(vocabPath);
    const auto vstamp = fs::last_write_time(vocabPath);
    std::size_t letter = vocab.size() / 2;
    while (vocab[letter] == '\n') ++letter;
    vocab[letter] = vocab[letter] == 'q' ? 'r' : 'q';
    writeAll(vocabPath, vocab);
    fs::last_write_time(vocabPath, vstamp);
    const CorpusLoadReport v = loadAndCompare(dir);
    QVERIFY2(!v.fromCache && v.note.find("stale") != std::string::npos, v.note.c_str());
  }

  // Issue 28: the cache writer used the predictable name docword.txt.dplda-cache.tmp<pid> and
  // followed a link planted there. Now: an exclusive temporary file; links at the cache's own
  // name are replaced, not followed.
  void plantedLinksAreNotFollowed() {
    const fs::path dir = makeCorpus();
    const fs::path victim = fs::path(m_tmp.path().toStdString()) / "victim.txt";
    writeAll(victim, "precious");
    const fs::path cache = dir / "docword.txt.dplda-cache";
    fs::create_symlink(victim, cache.string() + ".tmp" + std::to_string(getpid()));
    CorpusLoadReport r = loadAndCompare(dir);
    QVERIFY2(r.cacheWritten, r.note.c_str());
    QCOMPARE(readAll(victim), std::string("precious"));
    fs::remove(cache);
    fs::create_symlink(victim, cache);  // the cache's name itself
    r = loadAndCompare(dir);
    QVERIFY2(r.cacheWritten && r.note.find("corrupt") != std::string::npos, r.note.c_str());
    QCOMPARE(readAll(victim), std::string("precious"));
    QVERIFY(!fs::is_symlink(cache));
    // No temporary file is left beside the corpus.
    for (const auto& e : fs::directory_iterator(dir))
      QVERIFY2(e.path().filename().string().find(".tmp") == std::string::npos || fs::is_symlink(e.path()),
               e.path().c_str());
  }

  // Issue 28: a FIFO at docword.txt, vocab.txt or the cache's name waited forever.
  void specialFilesAreRefused() {
    const fs::path dir = makeCorpus();
    const fs::path cache = dir / "docword.txt.dplda-cache";
    QCOMPARE(mkfifo(cache.c_str(), 0600), 0);
    CorpusLoadReport r = loadAndCompare(dir);  // the text, not cached; the FIFO stays
    QVERIFY(!r.fromCache && !r.cacheWritten);
    QVERIFY2(r.note.find("FIFO") != std::string::npos, r.note.c_str());
    QVERIFY(fs::is_fifo(cache));
    for (const char* name : {"vocab.txt", "docword.txt"}) {
      const fs::path file = dir / name;
      fs::rename(file, dir / "saved");
      QCOMPARE(mkfifo(file.c_str(), 0600), 0);
      const auto loaded = loadUciCorpus(dir.string());
      QVERIFY2(!loaded.ok() && loaded.status().message().find("FIFO") != std::string::npos,
               loaded.status().message().c_str());
      fs::remove(file);
      fs::rename(dir / "saved", file);
    }
  }

  // Issue 28 (UBSan: memcpy(dst, NULL, 0) in the key): empty files give the text reader's errors.
  void emptyFilesGiveTheReadersErrors() {
    const fs::path dir = makeCorpus();
    for (const char* name : {"vocab.txt", "docword.txt"}) {
      writeAll(dir / name, "");
      const auto a = loadUciCorpus(dir.string());
      const auto b = readUciCorpus(dir.string());
      QVERIFY(!a.ok());
      QCOMPARE(QString::fromStdString(a.status().toString()), QString::fromStdString(b.status().toString()));
    }
  }

  void corruptCachesAreRebuilt() {
    const fs::path dir = makeCorpus(2000);
    QVERIFY(loadAndCompare(dir).cacheWritten);
    const fs::path cache = dir / "docword.txt.dplda-cache";
    const std::string good = readAll(cache);
    QVERIFY(good.size() > 4096);
    struct Case {
      const char* what;
      std::string bytes;
      const char* expect;
    };
    std::string payloadFlip = good, headerFlip = good, lastFlip = good;
    payloadFlip[good.size() / 2] ^= 0x10;
    headerFlip[40] ^= 0x01;
    lastFlip[good.size() - 1] ^= 0x80;
    const std::vector<Case> cases = {{"payload byte", payloadFlip, "payload checksum"},
                                     {"header byte", headerFlip, "header checksum"},
                                     {"last byte", lastFlip, "checksum"},
                                     {"truncated", good.substr(0, good.size() - 8), "size"},
                                     {"truncated header", good.substr(0, 100), "shorter than its header"},
                                     {"empty", std::string(), "shorter than its header"},
                                     {"appended", good + "x", "size"},
                                     {"text", std::string(300, 'a'), "not a dplda corpus cache"}};
    for (const Case& c : cases) {
      writeAll(cache, c.bytes);
      const CorpusLoadReport r = loadAndCompare(dir);
      QVERIFY2(!r.fromCache, c.what);
      QVERIFY2(r.note.find("corrupt") != std::string::npos && r.note.find(c.expect) != std::string::npos,
               qPrintable(QString("%1: %2").arg(c.what, QString::fromStdString(r.note))));
      QVERIFY2(r.cacheWritten, c.what);
      QVERIFY2(readAll(cache) == good, c.what);  // rebuilt: the same bytes as the first time
    }
  }

  // The checksum only says the bytes are those written; a cache made by anything else with a
  // valid checksum but a word id outside the vocabulary must still be refused.
  void forgedStructureIsRefused() {
    const fs::path dir = makeCorpus();
    const auto key = corpusSourceKey((dir / "docword.txt").string(), (dir / "vocab.txt").string());
    QVERIFY(key.ok());
    auto corpus = readUciCorpus(dir.string());
    QVERIFY(corpus.ok());
    const std::string path = corpusCachePath((dir / "docword.txt").string());
    struct Forgery {
      const char* expect;
      std::function<void(Corpus&)> apply;
    };
    const std::vector<Forgery> forgeries = {
        {"word ids", [](Corpus& c) { c.counts.innerIndexPtr()[0] = c.vocabSize() + 3; }},
        {"word ids", [](Corpus& c) { c.counts.innerIndexPtr()[1] = c.counts.innerIndexPtr()[0]; }},
        {"positive integer", [](Corpus& c) { c.counts.valuePtr()[2] = 0.5; }},
        {"length of row", [](Corpus& c) { c.lengths[0] += 1; }},
        {"printable", [](Corpus& c) { c.vocab[3] = "bad\x1b[2Jword"; }},
    };
    for (const Forgery& f : forgeries) {
      Corpus forged = corpus.value();
      f.apply(forged);
      QVERIFY(writeCorpusCache(forged, key.value(), path).isOk());
      const auto r = readCorpusCache(path, key.value());
      QVERIFY2(!r.ok(), f.expect);
      QVERIFY2(r.status().message().find(f.expect) != std::string::npos, r.status().message().c_str());
      CorpusLoadReport report;
      const auto loaded = loadUciCorpus(dir.string(), {}, nullptr, &report);
      QVERIFY(loaded.ok() && !report.fromCache && report.cacheWritten);
      QVERIFY(identical(corpus.value(), loaded.value()));
    }
  }

  // Issue 27 §5: the hashes are of 16 MiB blocks, hashed on all the threads, and the rows are
  // checked in chunks on all the threads. A text and a cache of several blocks: the writer's
  // streamed payload hash and the reader's parallel one agree, the key does not depend on the
  // thread count, a byte flipped in the last block is seen, and of two forged rows in different
  // chunks the first is the one named.
  void largeFilesAreHashedAndCheckedInBlocks() {
    GeneratorParams p;
    p.vocabSize = 3000;
    p.docCount = 80000;
    p.meanLength = 60;
    p.seed = 11;
    const auto gen = generateLdaCorpus(p);
    QVERIFY(gen.ok());
    const fs::path dir = fs::path(m_tmp.path().toStdString()) / "large";
    QVERIFY(writeUciCorpus(gen->corpus, dir.string()).isOk());
    const std::string docword = (dir / "docword.txt").string(), vocab = (dir / "vocab.txt").string();
    QVERIFY2(fs::file_size(docword) > (2 * 16u << 20), "the text must span several hash blocks");
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto serialKey = corpusSourceKey(docword, vocab);
    omp_set_num_threads(std::max(2, threads));
    const auto key = corpusSourceKey(docword, vocab);
    omp_set_num_threads(threads);
    QVERIFY(serialKey.ok() && key.ok());
    QVERIFY(serialKey.value() == key.value());
    QVERIFY(loadAndCompare(dir).cacheWritten);
    const fs::path cache = dir / "docword.txt.dplda-cache";
    QVERIFY2(fs::file_size(cache) > (2 * 16u << 20), "the cache's payload must span several hash blocks");
    for (bool stream : {false, true}) {
      const auto r = readCorpusCache(cache.string(), key.value(), stream);
      QVERIFY2(r.ok(), r.ok() ? "" : r.status().toString().c_str());
    }
    QVERIFY(loadAndCompare(dir).fromCache);
    // A byte of the last block (a word of the vocabulary, at the end of the payload).
    const std::string good = readAll(cache);
    std::string flipped = good;
    flipped[flipped.size() - 20] ^= 0x01;
    writeAll(cache, flipped);
    const auto corrupt = readCorpusCache(cache.string(), key.value());
    QVERIFY(!corrupt.ok() && corrupt.status().message().find("payload checksum") != std::string::npos);
    // Rows 5 001 and 60 001 forged (behind a valid checksum): the first is named.
    Corpus forged = gen->corpus;
    for (int row : {60000, 5000}) forged.counts.valuePtr()[forged.counts.outerIndexPtr()[row]] = 0.5;
    QVERIFY(writeCorpusCache(forged, key.value(), cache.string()).isOk());
    for (bool stream : {false, true}) {
      const auto r = readCorpusCache(cache.string(), key.value(), stream);
      QVERIFY(!r.ok());
      QVERIFY2(r.status().message().find("positive integer in row 5001") != std::string::npos,
               r.status().message().c_str());
    }
  }

  void disabledCacheWritesNothing() {
    const fs::path dir = makeCorpus();
    CorpusCacheOptions off;
    off.enabled = false;
    CorpusLoadReport r;
    QVERIFY(loadUciCorpus(dir.string(), off, nullptr, &r).ok());
    QVERIFY(!r.cacheWritten && !r.fromCache);
    QVERIFY(!fs::exists(dir / "docword.txt.dplda-cache"));
  }

  // A read-only corpus folder: the fallback folder when one is given, else quietly no cache.
  // (Root writes into read-only folders: there a folder in the cache's place blocks it.)
  void readOnlyCorpusFolder() {
    const fs::path dir = makeCorpus();
    if (geteuid() == 0) fs::create_directories(dir / "docword.txt.dplda-cache" / "blocker");
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
    CorpusLoadReport r = loadAndCompare(dir);
    QVERIFY(!r.cacheWritten && !r.fromCache);
    QVERIFY2(r.note.find("cannot") != std::string::npos, r.note.c_str());
    CorpusCacheOptions options;
    options.fallbackDir = (fs::path(m_tmp.path().toStdString()) / "fallback" / "cache").string();
    r = loadAndCompare(dir, options);
    QVERIFY2(r.cacheWritten, r.note.c_str());
    QVERIFY(r.cachePath.rfind(options.fallbackDir, 0) == 0);
    r = loadAndCompare(dir, options);
    QVERIFY2(r.fromCache, r.note.c_str());
    fs::permissions(dir, fs::perms::owner_all);
  }

  // Errors are the text reader's, and nothing is cached for a bad corpus.
  void badInputIsNotCached() {
    const fs::path dir = fs::path(m_tmp.path().toStdString()) / "bad";
    fs::create_directories(dir);
    writeAll(dir / "docword.txt", "3\n4\n3\n1 1 3\n1 x 3\n");
    const auto a = loadUciCorpus(dir.string());
    const auto b = readUciCorpus(dir.string());
    QVERIFY(!a.ok());
    QCOMPARE(QString::fromStdString(a.status().toString()), QString::fromStdString(b.status().toString()));
    QVERIFY(!fs::exists(dir / "docword.txt.dplda-cache"));
    const auto missing = loadUciCorpus((dir / "nope").string());
    QCOMPARE(statusCodeName(missing.status().code()), statusCodeName(StatusCode::IoError));
  }
};

QTEST_APPLESS_MAIN(TestCorpusCache)
#include "tst_corpus_cache.moc"
