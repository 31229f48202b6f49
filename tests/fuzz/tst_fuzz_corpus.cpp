// The corpus fuzz campaign (issue 15, docs/FUZZING.md): seeded mutations of a small valid UCI
// corpus in the families a hostile file uses (truncations, flipped digits, huge and negative
// numbers, NaN text, CRLF, BOM, NUL and control bytes, duplicate and unsorted lines,
// header/body disagreements, vocabularies of the wrong length, ...). Each case goes through the
// reader in this process and through `dplda run --corpus CASE --topics 3` under a time and
// memory limit; the campaign fails on any crash, sanitizer report, hang, exit status other than
// 0/3/4, error that is not exactly one line, control byte in the output, non-finite number in
// the output, or a semantics-preserving mutation (CRLF, BOM, shuffled lines...) that is refused.
//
// CI runs DPLDA_FUZZ_CASES (default 300) cases; scripts/fuzz.sh runs thousands on a sanitizer build.
// DPLDA_FUZZ_FAMILY=NAME runs one mutation family only (stacked with others in one case in five).
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "core/corpus/synthetic_generator.h"
#include "core/corpus/uci_io.h"
#include "fuzz/fuzz_support.h"

using namespace dplda;

namespace {

struct Files {
  std::string docword, vocab;
  bool hasVocab = true;
  bool nearLengthLimit = false;  // large-legal-counts brought documents close to kMaxDocumentLength
  bool pastLengthLimit = false;  // a later mutation may have pushed one past it (summed repeats)
};

struct Family {
  const char* name;
  bool preservesMeaning;  // the mutated corpus is the same corpus: it must be read and fitted
  std::function<void(Files&, fuzz::Rng&)> mutate;
};

// The header lines and the body lines of a docword text (the header is the first three lines).
void splitDocword(const std::string& text, std::vector<std::string>& header, std::vector<std::string>& body) {
  const std::vector<std::string> lines = fuzz::splitLines(text);
  header.assign(lines.begin(), lines.begin() + std::min<std::size_t>(3, lines.size()));
  body.assign(lines.begin() + std::min<std::size_t>(3, lines.size()), lines.end());
}

std::string& pickFile(Files& f, fuzz::Rng& rng) { return rng.chance(75) || !f.hasVocab ? f.docword : f.vocab; }

std::vector<Family> families() {
  using fuzz::Rng;
  std::vector<Family> f;
  f.push_back({"truncate", false, [](Files& x, Rng& r) {
                 std::string& t = pickFile(x, r);
                 t.resize(r.below(t.size() + 1));
               }});
  f.push_back({"flip-digit", false, [](Files& x, Rng& r) {
                 std::string& t = x.docword;
                 static const std::string repl = "0123456789-x. \t";
                 for (int tries = 0; tries < 50; ++tries) {
                   const std::size_t i = r.below(t.size());
                   if (t[i] >= '0' && t[i] <= '9') {
                     t[i] = repl[r.below(repl.size())];
                     return;
                   }
                 }
               }});
  f.push_back({"huge-number", false, [](Files& x, Rng& r) {
                 static const std::vector<std::string> huge = {
                     "2147483647", "2147483648", "4294967296", "9223372036854775807", "18446744073709551616",
                     "99999999999999999999", "1099511627776", "1099511627777", "1000000", "1000001", "20000000"};
                 fuzz::replaceNumber(x.docword, r, r.pick(huge));
               }});
  f.push_back({"negative-number", false, [](Files& x, Rng& r) {
                 fuzz::replaceNumber(x.docword, r, r.chance(50) ? std::string("-1") : std::string("-").append(std::to_string(r.below(100000))));
               }});
  f.push_back({"nan-text", false, [](Files& x, Rng& r) {
                 static const std::vector<std::string> t = {"nan", "NaN", "-nan", "inf", "-inf", "Infinity",
                                                            "1e5", "0x10", "1.5", "+3", "3e0", "1e999"};
                 fuzz::replaceNumber(x.docword, r, r.pick(t));
               }});
  f.push_back({"crlf", true, [](Files& x, Rng& r) {
                 auto crlf = [](std::string& s) {
                   std::string o;
                   for (char c : s) o += c == '\n' ? std::string("\r\n") : std::string(1, c);
                   s = o;
                 };
                 crlf(x.docword);
                 if (r.chance(60)) crlf(x.vocab);
               }});
  f.push_back({"bom", true, [](Files& x, Rng& r) {
                 const int which = static_cast<int>(r.below(3));
                 auto mark = [](std::string& s) {  // one mark, not two (stacked cases)
                   if (s.rfind("\xEF\xBB\xBF", 0) != 0) s = "\xEF\xBB\xBF" + s;
                 };
                 if (which != 1) mark(x.docword);
                 if (which != 0) mark(x.vocab);
               }});
  f.push_back({"nul-bytes", false, [](Files& x, Rng& r) {
                 const int n = 1 + static_cast<int>(r.below(3));
                 for (int i = 0; i < n; ++i) fuzz::insertAt(pickFile(x, r), r, std::string("\0", 1));
               }});
  f.push_back({"control-bytes", false, [](Files& x, Rng& r) {
                 const int n = 1 + static_cast<int>(r.below(3));
                 for (int i = 0; i < n; ++i) fuzz::insertAt(pickFile(x, r), r, r.pick(fuzz::controlSnippets()));
               }});
  f.push_back({"duplicate-lines", false, [](Files& x, Rng& r) {
                 std::vector<std::string> header, body;
                 splitDocword(x.docword, header, body);
                 if (body.empty()) return;
                 const int n = 1 + static_cast<int>(r.below(5));
                 for (int i = 0; i < n; ++i) body.insert(body.begin() + r.below(body.size() + 1), r.pick(body));
                 x.docword = fuzz::joinLines(header) + fuzz::joinLines(body);
               }});
  // Repeated (doc, word) lines are summed: with NNZ raised to match, the file is valid.
  f.push_back({"duplicate-lines-nnz", true, [](Files& x, Rng& r) {
                 std::vector<std::string> header, body;
                 splitDocword(x.docword, header, body);
                 if (body.empty() || header.size() < 3) return;
                 x.pastLengthLimit = x.nearLengthLimit;  // a repeated count of 10^7 sums past the limit
                 const int n = 1 + static_cast<int>(r.below(5));
                 for (int i = 0; i < n; ++i) body.insert(body.begin() + r.below(body.size() + 1), r.pick(body));
                 header[2] = std::to_string(body.size());
                 x.docword = fuzz::joinLines(header) + fuzz::joinLines(body);
               }});
  f.push_back({"unsorted-lines", true, [](Files& x, Rng& r) {
                 std::vector<std::string> header, body;
                 splitDocword(x.docword, header, body);
                 for (std::size_t i = body.size(); i > 1; --i) std::swap(body[i - 1], body[r.below(i)]);
                 x.docword = fuzz::joinLines(header) + fuzz::joinLines(body);
               }});
  f.push_back({"header-body", false, [](Files& x, Rng& r) {
                 std::vector<std::string> header, body;
                 splitDocword(x.docword, header, body);
                 if (header.size() < 3) return;
                 const int which = static_cast<int>(r.below(3));
                 const long long v = std::strtoll(header[which].c_str(), nullptr, 10);  // 0 when mangled
                 const std::vector<long long> values = {2147483647, 2147483648LL, 20000000, 1000001, 1000000,
                                                        v + 1, v - 1, v * 2, v / 2, 0, 1, 3};
                 header[which] = std::to_string(r.pick(values));
                 if (r.chance(30)) x.hasVocab = false;
                 x.docword = fuzz::joinLines(header) + fuzz::joinLines(body);
               }});
  f.push_back({"vocab-length", false, [](Files& x, Rng& r) {
                 std::vector<std::string> lines = fuzz::splitLines(x.vocab);
                 switch (r.below(5)) {
                   case 0: lines.erase(lines.begin() + r.below(lines.size())); break;
                   case 1: lines.push_back("extra"); break;
                   case 2: lines.resize(r.below(lines.size())); break;
                   case 3: x.hasVocab = false; break;
                   default: lines.insert(lines.begin() + r.below(lines.size() + 1), ""); break;
                 }
                 x.vocab = fuzz::joinLines(lines);
               }});
  f.push_back({"blank-lines", false, [](Files& x, Rng& r) {
                 std::string& t = pickFile(x, r);
                 std::vector<std::string> lines = fuzz::splitLines(t);
                 static const std::vector<std::string> blanks = {"", " ", "\t", " \t ", "\r", "\v"};
                 const int n = 1 + static_cast<int>(r.below(4));
                 for (int i = 0; i < n; ++i) lines.insert(lines.begin() + r.below(lines.size() + 1), r.pick(blanks));
                 t = fuzz::joinLines(lines);
               }});
  // Blanks between and after the numbers are separators: same corpus.
  f.push_back({"whitespace", true, [](Files& x, Rng& r) {
                 std::vector<std::string> header, body;
                 splitDocword(x.docword, header, body);
                 static const std::vector<std::string> seps = {"\t", "  ", " \t", "   "};
                 for (std::string& line : body) {
                   if (!r.chance(30)) continue;
                   std::string o;
                   for (char c : line) o += c == ' ' ? r.pick(seps) : std::string(1, c);
                   line = o + (r.chance(50) ? " " : "\t");
                 }
                 x.docword = fuzz::joinLines(header) + fuzz::joinLines(body);
               }});
  f.push_back({"long-line", false, [](Files& x, Rng& r) {
                 std::string& t = pickFile(x, r);
                 const std::size_t n = r.chance(50) ? (1u << 20) + 10 : 70000;
                 t.insert(r.below(t.size() + 1), std::string(n, r.chance(50) ? '7' : 'a'));
               }});
  f.push_back({"big-counts", false, [](Files& x, Rng& r) {
                 std::vector<std::string> header, body;
                 splitDocword(x.docword, header, body);
                 // Around kMaxDocumentLength (10^7) too: a count, or two in one document, beyond it.
                 static const std::vector<std::string> counts = {"1099511627776", "1099511627777", "4294967296",
                                                                 "999999999999", "1000000000",  "10000000",
                                                                 "10000001",      "6000000"};
                 const int n = 1 + static_cast<int>(r.below(body.size() / 4 + 1));
                 for (int i = 0; i < n && !body.empty(); ++i) {
                   std::string& line = body[r.below(body.size())];
                   const auto sp = line.find_last_of(' ');
                   if (sp != std::string::npos) line = line.substr(0, sp + 1) + r.pick(counts);
                 }
                 x.docword = fuzz::joinLines(header) + fuzz::joinLines(body);
               }});
  // Counts near but below the limit, so that large LEGAL counts go through the whole pipeline
  // (big-counts is almost always refused): 1 to 4 documents of a length close to
  // kMaxDocumentLength (10^7, also the largest clipping length L_max), one count filling nearly
  // the whole document or the length spread over its words; or every document's counts scaled by
  // up to 10^4. Each document stays at or below 10^7 tokens: the corpus must be read and fitted.
  f.push_back({"large-legal-counts", true, [](Files& x, Rng& r) {
                 std::vector<std::string> header, body;
                 splitDocword(x.docword, header, body);
                 struct Entry {
                   std::size_t line;
                   long long doc, word, count;
                 };
                 std::map<long long, std::vector<Entry>> docs;
                 for (std::size_t i = 0; i < body.size(); ++i) {
                   std::istringstream in(body[i]);
                   Entry e{i, 0, 0, 0};
                   if (in >> e.doc >> e.word >> e.count && e.count >= 1) docs[e.doc].push_back(e);
                 }
                 if (docs.empty()) return;
                 auto put = [&](Entry& e, long long count) {  // a document may be picked twice: keep counts current
                   e.count = count;
                   body[e.line] = std::to_string(e.doc) + " " + std::to_string(e.word) + " " + std::to_string(count);
                 };
                 if (r.chance(20)) {  // every document's counts scaled: 200 documents of 10^4 to 10^5 tokens
                   static const std::vector<long long> factors = {1000, 4096, 10000};
                   const long long factor = r.pick(factors);
                   for (auto& [doc, entries] : docs) {
                     long long length = 0;
                     for (const Entry& e : entries) length += e.count;
                     if (length * factor > kMaxDocumentLength) continue;
                     for (Entry& e : entries) put(e, e.count * factor);
                   }
                 } else {
                   static const std::vector<long long> lengths = {10000000, 9999999, 9999997, 9000000,
                                                                  8388608,  5000001, 1000000};
                   const int n = 1 + static_cast<int>(r.below(4));
                   for (int d = 0; d < n; ++d) {
                     auto it = docs.begin();
                     std::advance(it, static_cast<long>(r.below(docs.size())));
                     std::vector<Entry>& entries = it->second;
                     const long long length = r.pick(lengths);
                     const long long m = static_cast<long long>(entries.size());
                     Entry& big = entries[r.below(entries.size())];
                     long long others = 0;
                     for (const Entry& e : entries) others += &e == &big ? 0 : e.count;
                     const auto mode = r.below(3);
                     if (mode == 0 && others < length) {  // one word takes what the others leave
                       put(big, length - others);
                     } else if (mode <= 1) {  // one count of nearly 10^7, every other word once
                       for (Entry& e : entries) put(e, &e == &big ? length - (m - 1) : 1);
                     } else {  // the length spread over the document's words
                       for (std::size_t j = 0; j < entries.size(); ++j)
                         put(entries[j], length / m + (j == 0 ? length % m : 0));
                     }
                   }
                 }
                 x.docword = fuzz::joinLines(header) + fuzz::joinLines(body);
                 x.nearLengthLimit = true;
               }});
  f.push_back({"vocab-bytes", false, [](Files& x, Rng& r) {
                 static const std::vector<std::string> bad = {"\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                                              "\xc0\xaf", "\x1b[2J", "\t", "\xc2\x85",
                                                              "\xe2\x80\xae", "caf\xc3\xa9", "\xe6\x97\xa5"};
                 fuzz::insertAt(x.vocab, r, r.pick(bad));
               }});
  f.push_back({"random-bytes", false, [](Files& x, Rng& r) {
                 std::string& t = pickFile(x, r);
                 const int n = 1 + static_cast<int>(r.below(8));
                 for (int i = 0; i < n && !t.empty(); ++i) t[r.below(t.size())] = static_cast<char>(r.below(256));
               }});
  // Issue 28: a header-sized vocabulary with few words used (W up to 10^6, no vocab.txt, the
  // largest id = W): the fit must follow the words used, in memory and in its output.
  f.push_back({"sparse-huge-vocab", true, [](Files& x, Rng& r) {
                 std::vector<std::string> header, body;
                 splitDocword(x.docword, header, body);
                 if (header.size() < 3) return;
                 const long long W = r.chance(50) ? 1000000 : 100000 + static_cast<long long>(r.below(900000));
                 // Word w becomes w * (W / largest): ids stay distinct and in order; the largest is W.
                 long long largest = 0;
                 for (const std::string& line : body) {
                   std::istringstream in(line);
                   long long doc = 0, word = 0;
                   if (in >> doc >> word) largest = std::max(largest, word);
                 }
                 if (largest < 1 || largest > W) return;
                 for (std::string& line : body) {
                   std::istringstream in(line);
                   long long doc = 0, word = 0, count = 0;
                   if (!(in >> doc >> word >> count) || word < 1) continue;
                   const long long id = word == largest ? W : word * (W / largest);
                   line = std::to_string(doc) + " " + std::to_string(id) + " " + std::to_string(count);
                 }
                 header[1] = std::to_string(W);
                 x.docword = fuzz::joinLines(header) + fuzz::joinLines(body);
                 x.hasVocab = false;
               }});
  f.push_back({"empty-file", false, [](Files& x, Rng& r) {
                 if (r.chance(50)) x.docword.clear();
                 else x.vocab.clear();
               }});
  f.push_back({"zero-ids", false, [](Files& x, Rng& r) { fuzz::replaceNumber(x.docword, r, "0"); }});
  return f;
}

void writeText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The longest document of a docword text (the sum of each document's counts), or -1 when a body
// line is not three numbers.
long long longestDocument(const std::string& docword) {
  std::vector<std::string> header, body;
  splitDocword(docword, header, body);
  std::map<long long, long long> lengths;
  long long longest = 0;
  for (const std::string& line : body) {
    std::istringstream in(line);
    long long doc = 0, word = 0, count = 0;
    if (!(in >> doc >> word >> count)) return -1;
    longest = std::max(longest, lengths[doc] += count);
  }
  return longest;
}

// No printed nan/inf on stdout or stderr, except in the topic lines, which list vocabulary words.
QStringList printedNonFinite(const fuzz::Outcome& o) {
  static const QRegularExpression topicLine("^\\s+\\d+\\s+alpha (\\S+):");
  QStringList p;
  for (const QByteArray* stream : {&o.out, &o.err})
    for (const QString& line : fuzz::nonEmptyLines(*stream)) {
      const auto m = topicLine.match(line);
      if (m.hasMatch() ? fuzz::hasNonFiniteWord(m.captured(1)) : fuzz::hasNonFiniteWord(line))
        p << QString("non-finite number on %1: ").arg(stream == &o.out ? "stdout" : "stderr") + line.left(200);
    }
  return p;
}

// Problems with a successful run's output: the JSON exists, and topics, alpha and the
// eigenvalues are all finite numbers (Qt writes NaN and infinity as null).
QStringList successProblems(const QString& jsonPath, const fuzz::Outcome& o, int k, bool spectral) {
  QStringList p;
  QFile f(jsonPath);
  if (!f.open(QIODevice::ReadOnly)) return {"no JSON written on success"};
  QJsonParseError err;
  const QJsonObject json = QJsonDocument::fromJson(f.readAll(), &err).object();
  if (err.error != QJsonParseError::NoError) return {"invalid JSON: " + err.errorString()};
  auto allNumbers = [](const QJsonArray& a) {
    for (const QJsonValue& v : a)
      if (!v.isDouble()) return false;
    return !a.isEmpty();
  };
  if (json.value("alpha").toArray().size() != k || !allNumbers(json.value("alpha").toArray()))
    p << "alpha is not k finite numbers";
  const QJsonArray topics = json.value("topics").toArray();
  if (topics.size() != k) p << "topics is not k arrays";
  for (const QJsonValue& t : topics)
    if (!allNumbers(t.toArray())) p << "a topic holds a non-finite number";
  if (spectral && !allNumbers(json.value("non_private_diagnostics").toObject().value("eigenvalues").toArray()))
    p << "eigenvalues hold a non-finite number";
  // The topics speak of every word of the declared vocabulary (compacted fits included).
  const int vocab = json.value("corpus").toObject().value("vocab").toInt();
  for (const QJsonValue& t : topics)
    if (t.toArray().size() != vocab) p << "a topic does not have one entry per word of the vocabulary";
  if (json.contains("perplexity") && !json.value("perplexity").toObject().value("perplexity").isDouble())
    p << "perplexity is not a finite number";
  return p + printedNonFinite(o);
}

}  // namespace

class TestFuzzCorpus : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;
  Files m_base;

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    GeneratorParams p;
    p.vocabSize = 30;
    p.topicCount = 3;
    p.docCount = 200;
    p.meanLength = 15;
    p.seed = 11;
    const auto gen = generateLdaCorpus(p);
    QVERIFY(gen.ok());
    const std::string base = m_tmp.filePath("base").toStdString();
    QVERIFY(writeUciCorpus(gen->corpus, base).isOk());
    m_base.docword = readText(base + "/docword.txt");
    m_base.vocab = readText(base + "/vocab.txt");
    QVERIFY(readUciCorpus(base).ok());
  }

  void campaign() {
    const std::vector<Family> fams = families();
    // DPLDA_FUZZ_FAMILY=NAME (e.g. big-counts): every case starts with that family, so one family
    // gets thousands of cases (it is one in 31 otherwise).
    const QString only = qEnvironmentVariable("DPLDA_FUZZ_FAMILY");
    const auto chosen = std::find_if(fams.begin(), fams.end(), [&](const Family& f) { return only == f.name; });
    QVERIFY2(only.isEmpty() || chosen != fams.end(), qPrintable("DPLDA_FUZZ_FAMILY: no family " + only));
    const bool one = !only.isEmpty();
    const int cases = fuzz::caseCount(300);
    const std::uint64_t seed = fuzz::campaignSeed();
    fuzz::Tally tally;
    QStringList failures;
    double slowest = 0;
    for (int i = 0; i < cases; ++i) {
      fuzz::Rng rng(fuzz::mix(seed * 1000003ull + static_cast<std::uint64_t>(i)));
      Files files = m_base;
      // Every family in turn for the first cases, then random ones; one case in five stacks 2-3.
      const Family& family = one ? *chosen : i < static_cast<int>(fams.size()) ? fams[i] : rng.pick(fams);
      family.mutate(files, rng);
      QString name = family.name;
      bool preserves = family.preservesMeaning;
      if ((one || i >= static_cast<int>(fams.size())) && rng.chance(20)) {
        const int extra = 1 + static_cast<int>(rng.below(2));
        for (int e = 0; e < extra; ++e) {
          const Family& more = rng.pick(fams);
          more.mutate(files, rng);
          name += QString("+") + more.name;
          preserves = preserves && more.preservesMeaning;
        }
      }
      if (files.pastLengthLimit) preserves = false;
      const QString family2 = name.section('+', 0, 0) + (name.contains('+') ? "+stacked" : "");

      const QString dir = m_tmp.filePath(QString("case-%1").arg(i));
      std::filesystem::remove_all(dir.toStdString());
      std::filesystem::create_directories(dir.toStdString());
      writeText(dir.toStdString() + "/docword.txt", files.docword);
      if (files.hasVocab) writeText(dir.toStdString() + "/vocab.txt", files.vocab);

      QStringList problems;
      // The reader, in this process (under the sanitizers when the build has them).
      const auto read = readUciCorpus(dir.toStdString());
      if (!read.ok()) {
        const std::string& m = read.status().message();
        if (dplda::hasEscapedText(m)) problems << "reader message holds a control byte";
        if (m.find("docword.txt") == std::string::npos && m.find("vocab.txt") == std::string::npos)
          problems << "reader message names no file: " + QString::fromStdString(m).left(200);
      } else if (read->vocabSize() > kMaxVocabularySize || read->docCount() < 1 || !read->lengths.allFinite()) {
        problems << "reader accepted an inconsistent corpus";
      }
      // Large legal counts, alone: read with every count as written.
      if (name == "large-legal-counts") {
        const long long longest = longestDocument(files.docword);
        if (!read.ok())
          problems << "the reader refused a corpus within the limits: " + QString::fromStdString(read.status().message()).left(300);
        else if (read->maxLength() != static_cast<double>(longest))
          problems << QString("longest document read as %1 tokens, written as %2").arg(read->maxLength(), 0, 'f', 0).arg(longest);
      }

      // dplda run, as a user runs it.
      const QString json = dir + "/out.json";
      // Spectral, spectral with held-out evaluation (which lists each document's tokens), VI.
      QStringList args{"run", "--corpus", dir, "--topics", "3", "--json", json};
      if (i % 3 >= 1) args << "--holdout" << "0.2";
      if (i % 3 == 2) args << "--model" << "vi" << "--iterations" << "3";
      // Large legal counts: one spectral case in four is input perturbation with a clipping
      // length L_max near the documents' lengths (up to its own limit, 10^7). A private run may
      // release nothing (exit 4), but a legal corpus and L_max are never refused (exit 3).
      bool clipped = false;
      if (family.name == std::string("large-legal-counts") && i % 3 != 2 && rng.chance(25)) {
        static const std::vector<QString> lmax = {"10000000", "9999999", "5000000", "1000", "3"};
        args << "--config" << "input" << "--max-length" << rng.pick(lmax) << "--noise-seed"
             << QString::number(rng.below(1000));
        clipped = true;
      }
      const fuzz::Outcome o = fuzz::runDplda(args);
      slowest = std::max(slowest, o.seconds);
      problems << fuzz::commonProblems(o, "run", {0, 3, 4});
      if (!read.ok() && o.code != 3 && !o.crashed && !o.timedOut)
        problems << QString("the reader refused the corpus but dplda run exited %1").arg(o.code);
      if (o.code == 0) problems << successProblems(json, o, 3, i % 3 != 2);
      if (clipped) {  // a private run: every number of the JSON too (Qt writes NaN and infinity as null)
        if (o.code != 0) problems << printedNonFinite(o);
        QFile f(json);
        static const QRegularExpression null(":\\s*null");
        if (f.open(QIODevice::ReadOnly) && null.match(QString::fromUtf8(f.readAll())).hasMatch())
          problems << "a JSON null (NaN or infinity) in the private run's JSON";
      }
      if (preserves && o.code != 0 && !(clipped && o.code == 4))
        problems << "a mutation that keeps the corpus (" + name + ") was refused: " +
                        QString::fromUtf8(o.err.trimmed().left(300));

      const QString outcome = (o.timedOut ? "hang" : o.crashed ? "crash" : QString("exit%1").arg(o.code)) +
                              (clipped ? "-input" : "");
      tally.add(family2, problems.isEmpty() ? outcome : "FAIL");
      if (!problems.isEmpty())
        failures << fuzz::keepFailure("corpus", i, name, dir, problems, "dplda " + args.join(' '));
      std::filesystem::remove_all(dir.toStdString());
    }
    qInfo("corpus fuzz: %d cases, seed %llu, slowest case %.2f s\n%s", cases,
          static_cast<unsigned long long>(seed), slowest, qPrintable(tally.table()));
    QVERIFY2(failures.isEmpty(), qPrintable(QString("%1 failing cases:\n").arg(failures.size()) +
                                            failures.mid(0, 30).join('\n')));
  }
};

DPLDA_FUZZ_MAIN(TestFuzzCorpus)
#include "tst_fuzz_corpus.moc"
