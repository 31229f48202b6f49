// The text campaign (issue 28 §2, §7; docs/FUZZING.md): hostile text through `dplda import-text`
// and the corpus it writes through `dplda run`. Families (one in five cases stacks two):
//   control-bytes   C0/C1 controls, ESC sequences, NUL, DEL inside words and lines
//   invalid-utf8    lone continuation bytes, overlong forms, encoded surrogates, cut sequences
//   invisible       format and invisible characters inside words: zero-width space/joiners, soft
//                   hyphen, U+061C, bidirectional embeddings/overrides/isolates, U+FEFF, tag
//                   characters, U+180E, U+1680, U+3164 (the "Trojan source" class)
//   long-token      a token just below, at or above 1 MiB (vocab.txt's line limit), a 2 MiB line
//   many-tokens     tens of thousands of distinct tokens
//   layout          CRLF, a BOM, blank lines, a file without a final line end, an empty file
//   separator       --separator with the separator lines anywhere (empty documents, one document)
//   records         CSV (--column) and JSON Lines (--field) with broken quoting, missing fields,
//                   control characters in fields
//   gzip            a .gz name over garbage after the gzip magic
//   random-bytes    a file of random bytes
// Every plain text also spells one or two of its words with an invisible character inside, at
// every occurrence (frequent enough to be vocabulary words). import-text selects
// the vocabulary by counts (--vocab-from-counts) in three cases in four.
// Checks, besides the common ones (fuzz_support.h, which include no control byte or format
// character on the terminal): import-text ends with 0, 3 or 4; what it writes is read back by
// `dplda run` (a refusal of its own docword.txt or vocab.txt is a failure); the words of the
// run's top-word lists are the words of vocab.txt, unchanged.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "fuzz/fuzz_support.h"

namespace {

void writeBytes(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) f.write(bytes);
}

QByteArray readBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

const std::vector<std::string>& invisibles() {
  static const std::vector<std::string> v = {
      "\xe2\x80\x8b", "\xe2\x80\x8c", "\xe2\x80\x8d", "\xc2\xad", "\xd8\x9c", "\xe2\x80\xaa", "\xe2\x80\xab",
      "\xe2\x80\xac", "\xe2\x80\xad", "\xe2\x80\xae", "\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9",
      "\xef\xbb\xbf", "\xf3\xa0\x80\x81", "\xf3\xa0\x81\x81", "\xe1\xa0\x8e", "\xe1\x9a\x80", "\xe3\x85\xa4",
      "\xd8\x80", "\xe2\x81\xa0", "\xe2\x80\xa8", "\xe2\x80\xa9"};
  return v;
}

const std::vector<std::string>& badUtf8() {
  static const std::vector<std::string> v = {"\x80", "\xbf", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
                                             "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80", "\xfe",
                                             "\xff", "\xc3", "\xe2\x82", "\xf0\x9f\x98"};
  return v;
}

// A token position: just after a letter of a random word, so that the insertion lands inside words.
void insertInWord(std::string& text, fuzz::Rng& rng, const std::string& what) {
  for (int tries = 0; tries < 20; ++tries) {
    const std::size_t at = rng.below(text.size() + 1);
    if (at > 0 && at < text.size() && text[at - 1] >= 'a' && text[at - 1] <= 'z' && text[at] >= 'a' && text[at] <= 'z') {
      text.insert(at, what);
      return;
    }
  }
  fuzz::insertAt(text, rng, what);
}

// A public vocabulary file (import-text --vocabulary): words of the texts and others, one a line,
// with a BOM, CRLF or trailing blank lines (all read), or one hostile line (a repeated word, a
// blank line between words, white space or a control byte in a word, invalid UTF-8, a word over
// the 4 096-byte limit, no word at all), which must be refused.
struct WordList {
  std::string text;
  QStringList words;  // as vocab.txt must list them when the list is read
  bool hostile = false;
};

WordList wordList(fuzz::Rng& rng, const std::vector<std::string>& known) {
  WordList l;
  std::vector<std::string> words;
  for (const std::string& w : known)
    if (rng.chance(60)) words.push_back(w);
  for (int i = static_cast<int>(rng.below(5)); i > 0; --i) words.push_back("absent" + std::to_string(i));
  for (std::size_t i = words.size(); i > 1; --i) std::swap(words[i - 1], words[rng.below(i)]);
  if (words.empty()) words.push_back("river");
  for (const std::string& w : words) l.words << QString::fromStdString(w);
  std::vector<std::string> lines = words;
  if (rng.chance(33)) {
    l.hostile = true;
    const std::size_t at = rng.below(lines.size() + 1);
    switch (rng.below(7)) {
      case 0: lines.insert(lines.begin() + at, rng.pick(words)); break;
      case 1: lines.insert(lines.begin() + std::min(at, lines.size() - 1), ""); break;
      case 2: lines.insert(lines.begin() + at, "two words"); break;
      case 3: lines.insert(lines.begin() + at, "ri" + rng.pick(fuzz::controlSnippets()) + "ver9"); break;
      case 4: lines.insert(lines.begin() + at, "w" + rng.pick(badUtf8()) + "x"); break;
      case 5: lines.insert(lines.begin() + at, std::string(4097, 'w')); break;
      default: lines.assign(1 + rng.below(3), ""); break;
    }
  }
  const bool crlf = rng.chance(20);
  if (rng.chance(20)) l.text = "\xEF\xBB\xBF";
  for (const std::string& line : lines) l.text += line + (crlf ? "\r\n" : "\n");
  if (!l.hostile && rng.chance(20)) l.text += "\n\n";
  return l;
}

}  // namespace

class TestFuzzText : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;
  std::vector<std::string> m_words;

  // 200 documents of 10-25 words over a 60-word vocabulary: enough for a 3-topic run.
  std::string baseText(fuzz::Rng& rng) const {
    std::string text;
    for (int d = 0; d < 200; ++d) {
      const int n = 10 + static_cast<int>(rng.below(16));
      for (int i = 0; i < n; ++i) text += (i ? " " : "") + m_words[((d % 3) * 20 + rng.below(30)) % 60];
      text += "\n";
    }
    return text;
  }

  // Applies one family to `text` (the input file's bytes); may set the file name and options.
  QString mutate(fuzz::Rng& rng, std::string& text, QString& fileName, QStringList& options) {
    static const std::vector<QString> families = {"control-bytes", "invalid-utf8", "invisible", "long-token",
                                                  "many-tokens",   "layout",       "separator", "records",
                                                  "gzip",          "random-bytes"};
    const QString family = rng.pick(families);
    const int n = 1 + static_cast<int>(rng.below(12));
    if (family == "control-bytes") {
      for (int i = 0; i < n; ++i) insertInWord(text, rng, rng.pick(fuzz::controlSnippets()));
    } else if (family == "invalid-utf8") {
      for (int i = 0; i < n; ++i) insertInWord(text, rng, rng.pick(badUtf8()));
    } else if (family == "invisible") {
      for (int i = 0; i < 3 * n; ++i) insertInWord(text, rng, rng.pick(invisibles()));
    } else if (family == "long-token") {
      const std::size_t len = rng.pick(std::vector<std::size_t>{(1u << 20) - 2, (1u << 20) - 1, 1u << 20,
                                                                (1u << 20) + 1, 2u << 20});
      std::string token(len, 'q');
      if (rng.chance(50)) token = std::string(len / 2, 'q') + " " + std::string(len / 2, 'r');  // a long line
      text.insert(text.find('\n') == std::string::npos ? 0 : text.find('\n') + 1, token + "\n");
    } else if (family == "many-tokens") {
      const int distinct = 1000 * (1 + static_cast<int>(rng.below(50)));
      for (int i = 0; i < distinct; ++i) {
        text += "tok" + std::to_string(rng.next() % 100000000ull);
        text += i % 12 == 11 ? "\n" : " ";
      }
    } else if (family == "layout") {
      switch (rng.below(5)) {
        case 0: {
          std::string crlf;
          for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
          text = crlf;
          break;
        }
        case 1: text = "\xef\xbb\xbf" + text; break;
        case 2:
          for (int i = 0; i < 5 * n; ++i) fuzz::insertAt(text, rng, "\n\n");
          break;
        case 3:
          while (!text.empty() && text.back() == '\n') text.pop_back();
          break;
        default: text.clear();
      }
    } else if (family == "separator") {
      const std::string sep = rng.pick(std::vector<std::string>{"%", "---", "\xc2\xa7"});
      options << "--separator" << QString::fromStdString(sep);
      for (int i = 0; i < n; ++i) {
        const std::size_t line = text.find('\n', rng.below(text.size() + 1));
        text.insert(line == std::string::npos ? text.size() : line + 1, sep + "\n" + (rng.chance(30) ? sep + "\n" : ""));
      }
    } else if (family == "records") {
      const bool csv = rng.chance(50);
      std::string out = csv ? "id,text\n" : "";
      const std::vector<std::string> lines = fuzz::splitLines(text);
      // Half of the files have one damaged record: a stray quote, backslash, escape sequence or
      // NUL in the field, an unclosed quote, a field of the wrong type.
      const std::size_t damaged = rng.chance(50) ? rng.below(lines.size()) : lines.size();
      const int damage = static_cast<int>(rng.below(3));
      for (std::size_t i = 0; i < lines.size(); ++i) {
        std::string field = lines[i];
        const bool hit = i == damaged;
        if (hit && damage == 0)
          field += rng.pick(std::vector<std::string>{"\"", "\\", "\x1b[2J", std::string("\0", 1), "\",\""});
        const std::string id = std::to_string(i + 1);
        if (csv) out += id + ",\"" + field + (hit && damage == 1 ? "" : "\"") + "\n";
        else out += hit && damage == 2 ? "{\"text\": 1}\n" : "{\"id\": " + id + ", \"text\": \"" + field + "\"}\n";
      }
      text = out;
      fileName = csv ? "in.csv" : "in.jsonl";
      options << (csv ? "--column" : "--field") << "text";
    } else if (family == "gzip") {
      std::string garbage;
      for (int i = 0; i < 200 + n * 100; ++i) garbage += static_cast<char>(rng.below(256));
      text = rng.chance(50) ? "\x1f\x8b\x08" + garbage : garbage;
      fileName = "in.txt.gz";
    } else {
      text.clear();
      for (int i = 0; i < 1000 * n; ++i) text += static_cast<char>(rng.below(256));
    }
    return family;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    for (const char* w : {"river", "bank", "water", "stream", "fish", "boat", "shore", "flood", "bridge", "lake",
                          "money", "loan", "credit", "interest", "account", "market", "stock", "trade", "price", "cash",
                          "music", "guitar", "song", "concert", "piano", "melody", "rhythm", "band", "drum", "voice",
                          "garden", "flower", "seed", "soil", "tree", "leaf", "root", "bloom", "grass", "rain",
                          "planet", "orbit", "comet", "galaxy", "rocket", "star", "moon", "solar", "space", "telescope",
                          "kitchen", "bread", "butter", "oven", "recipe", "flour", "sugar", "salt", "pepper", "spoon"})
      m_words.push_back(w);
  }

  void campaign() {
    const int cases = fuzz::caseCount(40);
    const std::uint64_t seed = fuzz::campaignSeed();
    fuzz::Tally tally;
    QStringList failures;
    int fittedInvisible = 0;  // runs whose vocabulary held a word with an invisible character
    for (int i = 0; i < cases; ++i) {
      fuzz::Rng rng(fuzz::mix(seed * 0x9E3779B1ull + static_cast<std::uint64_t>(i) + 17));
      const QString dir = m_tmp.filePath(QString("case-%1").arg(i));
      QDir().mkpath(dir);
      std::string text = baseText(rng);
      QString fileName = "in.txt";
      QStringList options;
      QString family = mutate(rng, text, fileName, options);
      if (rng.chance(20)) family += "+" + mutate(rng, text, fileName, options);
      // Every plain text also spells one or two of its words with an invisible character inside
      // (§7), wherever they occur, so that they are frequent enough to be vocabulary words.
      for (int k = 1 + static_cast<int>(rng.below(2)); k > 0 && fileName == "in.txt"; --k) {
        const std::string& word = rng.pick(m_words);
        const std::string spelled = word.substr(0, 2) + rng.pick(invisibles()) + word.substr(2);
        for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + spelled.size()))
          text.replace(at, word.size(), spelled);
      }
      const QString input = dir + "/" + fileName, out = dir + "/corpus";
      writeBytes(input, QByteArray(text.data(), static_cast<qsizetype>(text.size())));
      QStringList args{"import-text", "--input", input, "--out", out, "--vocab",
                       rng.pick(std::vector<QString>{"5", "50", "1000", "1000000"})};
      // Mostly the public selection by counts (the private one keeps only words in about 160 of
      // these 200 documents, often none: a refusal, which a quarter of the cases take).
      if (rng.chance(75)) args << "--vocab-from-counts";
      if (rng.chance(20)) args << "--keep-case";
      if (rng.chance(20)) args << "--numbers";
      if (rng.chance(20)) args << "--keep-stopwords";
      // One case in five: a public word list (--vocabulary FILE), read by the path the app's reused
      // private selections share (listedVocabulary, ui/worker/released_vocabularies.h); a third of
      // the lists are hostile and must be refused naming the list. A list that is read becomes
      // vocab.txt as it is, in its order.
      const WordList list = rng.chance(20) ? wordList(rng, m_words) : WordList{};
      if (!list.text.empty() || list.hostile) {
        writeBytes(dir + "/list.txt", QByteArray::fromStdString(list.text));
        args = QStringList{"import-text", "--input", input, "--out", out, "--vocabulary", dir + "/list.txt"} +
               args.mid(7).filter(QRegularExpression("^--(keep-case|numbers|keep-stopwords)$"));
        family += list.hostile ? "+list-hostile" : "+list";
      }
      args << options;
      QString command = "dplda " + args.join(' ');
      const fuzz::Outcome imp = fuzz::runDplda(args);
      // --separator splits plain text only: with --column or --field it is a usage error, as is an
      // option given twice (a family stacked on itself).
      const bool conflicting = (options.contains("--separator") && (options.contains("--column") || options.contains("--field"))) ||
                               QStringList(options).removeDuplicates() > 0;
      QStringList problems = fuzz::commonProblems(imp, "import-text", conflicting ? QList<int>{2} : QList<int>{0, 3, 4});
      // The text is read before the list, so a text refused on its own is refused naming the input.
      if (list.hostile && imp.code == 0) problems << "a hostile word list was read";
      if (list.hostile && imp.code == 3 && !imp.err.contains("list.txt") && !imp.err.contains(fileName.toUtf8()))
        problems << "the refusal names neither the word list nor the input";
      if (!list.hostile && !list.text.empty() && imp.code == 0) {
        QStringList written;
        for (const QByteArray& w : readBytes(out + "/vocab.txt").split('\n'))
          if (!w.isEmpty()) written << QString::fromUtf8(w);
        if (written != list.words) problems << "vocab.txt is not the word list as given, in its order";
      }
      QString outcome = QString("import%1").arg(imp.code);
      if (imp.code == 0 && problems.isEmpty()) {
        const QStringList runArgs{"run", "--corpus", out, "--topics", "3", "--json", dir + "/run.json"};
        command = "dplda " + runArgs.join(' ');
        const fuzz::Outcome r = fuzz::runDplda(runArgs);
        problems << fuzz::commonProblems(r, "run", {0, 3, 4});
        outcome += QString("+run%1").arg(r.code);
        if (r.code == 3 && (r.err.contains("docword.txt") || r.err.contains("vocab.txt")))
          problems << "run refused the corpus import-text wrote: " + QString::fromUtf8(r.err.trimmed().left(300));
        if (r.code == 0) {
          QSet<QString> vocabulary;
          bool shownEscaped = false;  // a word with an invisible or format character reached the run
          for (const QByteArray& w : readBytes(out + "/vocab.txt").split('\n')) {
            if (!w.isEmpty()) vocabulary.insert(QString::fromUtf8(w));
            shownEscaped = shownEscaped || dplda::hasEscapedText(w.toStdString());
          }
          if (shownEscaped) ++fittedInvisible;
          const QJsonArray topics = QJsonDocument::fromJson(readBytes(dir + "/run.json")).object()["top_words"].toArray();
          if (topics.isEmpty()) problems << "no top_words in the run's JSON";
          for (const QJsonValue& t : topics)
            for (const QJsonValue& w : t.toArray())
              if (!vocabulary.contains(w.toString()))
                problems << "top word not in vocab.txt as written: " + QString::fromStdString(dplda::quoteText(w.toString().toStdString()));
        }
      }
      const QString listed = list.text.empty() ? "" : list.hostile ? "+list-hostile" : "+list";
      tally.add(family.section('+', 0, 0) + listed, problems.isEmpty() ? outcome : "FAIL");
      if (!problems.isEmpty()) failures << fuzz::keepFailure("text", i, family, dir, problems, command);
      std::filesystem::remove_all(dir.toStdString());
    }
    qInfo("text fuzz: %d cases, seed %llu, %d runs fitted words with invisible characters\n%s", cases,
          static_cast<unsigned long long>(seed), fittedInvisible, qPrintable(tally.table()));
    QVERIFY2(failures.isEmpty(), qPrintable(QString("%1 failing cases:\n").arg(failures.size()) +
                                            failures.mid(0, 30).join('\n')));
  }
};

DPLDA_FUZZ_MAIN(TestFuzzText)
#include "tst_fuzz_text.moc"
