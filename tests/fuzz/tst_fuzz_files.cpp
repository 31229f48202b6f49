// The files campaign (issue 28, docs/FUZZING.md): the file system around the command line.
//   special-input      a FIFO, socket, folder, device, dangling link or empty file in one input
//                      slot of one subcommand (--corpus, docword.txt, vocab.txt, the cache's name,
//                      --truth, --score-model, import-text --input, sweep --corpus, /dev/stdin)
//   output-onto-input  an output naming an input (--json onto docword.txt, vocab.txt, the truth, a
//                      link or hard link to them, /dev/full, a FIFO, a folder), --write-split onto
//                      the folder being read, generate / import-text --out onto a corpus,
//                      sweep --out onto an earlier report, with and without --force
//   stale-cache        an in-place edit of docword.txt or vocab.txt that keeps the size, with the
//                      modification time put back, between a cached run and the next
//   corrupt-cache      the binary cache damaged between a cached run and the next: bytes flipped
//                      (in the header or anywhere), cut, extended, zeroed, replaced by garbage of
//                      the same size, or by the cache of another corpus
// DPLDA_FUZZ_FAMILY=0..3 runs one family only (in the order above).
// Besides the common checks (fuzz_support.h): nothing hangs; a special file in an input slot is
// refused with exit 3 naming what it is; no file the user had is changed or lost (every file of
// the case folder is hashed before and after) unless --force asked for it; no temporary file is
// left; nothing is written into /dev; a run after the edit or the damage prints what --no-cache
// prints.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <QCryptographicHash>
#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "fuzz/fuzz_support.h"

namespace fs = std::filesystem;

namespace {

QByteArray readBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeBytes(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) f.write(bytes);
}

// Every regular file below `dir` (links not followed) and its SHA-256; the cache is left out
// (the tool's own file, rebuilt at will).
QMap<QString, QByteArray> snapshot(const QString& dir) {
  QMap<QString, QByteArray> out;
  QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System | QDir::NoSymLinks, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString f = it.next();
    if (f.endsWith(".dplda-cache") || !fs::is_regular_file(fs::symlink_status(f.toStdString()))) continue;
    out[f] = QCryptographicHash::hash(readBytes(f), QCryptographicHash::Sha256);
  }
  return out;
}

QStringList temporaryFiles(const QString& dir) {
  QStringList out;
  QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString f = it.next();
    if (QFileInfo(f).fileName().startsWith('.') && f.endsWith(".tmp")) out << f;
  }
  return out;
}

QStringList devCaches() { return QDir("/dev").entryList({"*dplda-cache*"}, QDir::AllEntries | QDir::System); }

void makeSocket(const QString& path) {
  const int s = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.toLocal8Bit().constData(), sizeof(addr.sun_path) - 1);
  bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  close(s);  // the socket file stays
}

// Puts a file-system object of kind `what` at `path` (replacing what is there).
void place(const QString& what, const QString& path) {
  fs::remove_all(path.toStdString());
  const std::string p = path.toStdString();
  if (what == "fifo") mkfifo(p.c_str(), 0600);
  else if (what == "socket") makeSocket(path);
  else if (what == "folder") fs::create_directories(p);
  else if (what == "empty") writeBytes(path, {});
  else if (what == "dangling-link") fs::create_symlink(p + ".nowhere", p);
  else if (what == "fifo-link") {
    mkfifo((p + ".fifo").c_str(), 0600);
    fs::create_symlink(p + ".fifo", p);
  } else fs::create_symlink(what.toStdString(), p);  // a device: /dev/null, /dev/zero, ...
}

const QStringList kObjects = {"fifo", "socket", "folder", "empty", "dangling-link", "fifo-link", "/dev/null",
                              "/dev/zero", "/dev/full", "/dev/urandom", "/dev/stdin"};

}  // namespace

class TestFuzzFiles : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;
  QString m_base, m_text, m_other;  // m_other: another corpus, with its cache
  fuzz::Tally m_tally;
  QStringList m_failures;
  int m_index = 0;
  QString m_family, m_caseDir, m_command;

  QString newCase(const QString& family) {
    m_family = family;
    m_caseDir = m_tmp.filePath(QString("case-%1").arg(m_index));
    QDir().mkpath(m_caseDir + "/c");
    for (const char* f : {"docword.txt", "vocab.txt", "truth.json"})
      QFile::copy(m_base + "/" + f, m_caseDir + "/c/" + f);
    return m_caseDir + "/c";
  }

  fuzz::Outcome run(const QStringList& args) {
    m_command = "dplda " + args.join(' ');
    return fuzz::runDplda(args);
  }

  void report(const fuzz::Outcome& o, QStringList problems, const QString& command) {
    problems = fuzz::commonProblems(o, command, {0, 3, 4}) + problems;
    if (!temporaryFiles(m_caseDir).isEmpty()) problems << "temporary files left: " + temporaryFiles(m_caseDir).join(", ");
    if (!devCaches().isEmpty()) problems << "a file written into /dev: " + devCaches().join(", ");
    m_tally.add(m_family, problems.isEmpty() ? "ok" : "FAIL");
    if (!problems.isEmpty())
      m_failures << fuzz::keepFailure("files", m_index, m_family, m_caseDir, problems, m_command);
  }

  void specialInput(fuzz::Rng& rng) {
    const QString c = newCase("special-input");
    const QString what = rng.pick(std::vector<QString>(kObjects.begin(), kObjects.end()));
    const QString x = m_caseDir + "/x";
    const std::vector<QString> inputSlots = {"--corpus", "docword.txt", "vocab.txt", "cache", "--truth", "--score-model",
                                        "vi --truth", "import-text", "sweep --corpus"};
    const QString slot = rng.pick(inputSlots);
    QStringList args = {"run", "--corpus", c, "--topics", "3"};
    bool inputSlot = true;  // a special object here must be refused (exit 3)
    const QString object = what == "/dev/stdin" ? what : x;
    if (what != "/dev/stdin") place(what, x);
    if (slot == "--corpus") args[2] = object;
    else if (slot == "docword.txt" || slot == "vocab.txt" || slot == "cache") {
      if (slot == "cache") {
        // A valid run first, so that a cache exists to be replaced by the object.
        fuzz::runDplda({"run", "--corpus", c, "--topics", "3"});
        inputSlot = false;  // the cache is optional: the text is read instead
      }
      const QString at = c + "/" + (slot == "cache" ? QString("docword.txt.dplda-cache") : slot);
      if (what == "/dev/stdin") place("/dev/stdin", at);
      else place(what, at);
    } else if (slot == "--truth") args << "--truth" << object;
    else if (slot == "--score-model") args << "--holdout" << "0.2" << "--score-model" << object;
    else if (slot == "vi --truth") args << "--model" << "vi" << "--iterations" << "3" << "--truth" << object;
    else if (slot == "import-text") args = {"import-text", "--input", object, "--vocab", "20", "--out", m_caseDir + "/imp"};
    else args = {"sweep", "--corpus", object, "--topics", "3", "--trials", "1", "--epsilons", "1", "--configs", "none",
                 "--formats", "none", "--out", m_caseDir + "/sweep"};
    // An empty file is a regular file: refused by the readers (exit 3) as an empty corpus or
    // truth, or read as an empty text; a folder as --corpus is a corpus folder without docword.txt.
    const auto before = snapshot(m_caseDir);
    const fuzz::Outcome o = run(args);
    QStringList problems;
    if (inputSlot && what != "empty" && o.code != 3) problems << QString("exit %1 for a %2 as %3").arg(o.code).arg(what, slot);
    if (!inputSlot && o.code != 0) problems << QString("exit %1 with a %2 at the cache's name").arg(o.code).arg(what);
    if (inputSlot && o.code == 3 && what != "empty" && what != "folder" &&
        !QRegularExpression("FIFO|socket|device|not found|folder|not a regular file").match(QString::fromUtf8(o.err)).hasMatch())
      problems << "the refusal does not say what the file is: " + QString::fromUtf8(o.err.left(200));
    const auto after = snapshot(m_caseDir);
    for (auto it = before.begin(); it != before.end(); ++it)
      if (after.value(it.key()) != it.value()) problems << "changed or lost: " + it.key();
    report(o, problems, args[0]);
  }

  void outputOntoInput(fuzz::Rng& rng) {
    const QString c = newCase("output-onto-input");
    const bool force = rng.chance(30);
    QStringList args;
    bool mayChange = false;  // --force asked to replace an earlier output (never an input)
    bool refusal = true;
    switch (rng.below(6)) {
      case 0: {  // --json onto an input, a link to one, or a special file
        QFile::link(c + "/docword.txt", c + "/link.json");
        fs::create_hard_link((c + "/vocab.txt").toStdString(), (c + "/hard.json").toStdString());
        place("fifo", m_caseDir + "/fifo");
        const std::vector<QString> targets = {c + "/docword.txt", c + "/vocab.txt", c + "/truth.json",
                                              c + "/link.json",   c + "/hard.json", "/dev/full",
                                              "/dev/null",        m_caseDir + "/fifo", c};
        const QString t = rng.pick(targets);
        args = {"run", "--corpus", rng.chance(50) ? c : c + "/docword.txt", "--topics", "3", "--truth",
                c + "/truth.json", "--json", t};
        if (rng.chance(30)) args << "--model" << "vi" << "--iterations" << "3";
        break;
      }
      case 1: {  // --write-split onto the folder being read (P with P/train read), or below the corpus
        const QString p = m_caseDir + "/p";
        QDir().mkpath(p);
        fs::rename(c.toStdString(), (p + "/train").toStdString());
        const bool onto = rng.chance(60);
        args = {"run", "--corpus", p + "/train", "--topics", "3", "--holdout", "0.2", "--write-split",
                onto ? p : p + "/train"};
        refusal = onto;  // P/train/train and P/train/test overwrite nothing
        break;
      }
      case 2:  // generate onto an existing corpus
        args = {"generate", "--vocab", "20", "--topics", "2", "--docs", "60", "--out", c};
        mayChange = force;
        refusal = !force;
        break;
      case 3:  // import-text of the corpus's own file into its folder
        args = {"import-text", "--input", c + "/" + (rng.chance(50) ? "docword.txt" : "vocab.txt"), "--vocab", "20",
                "--out", c};
        break;
      case 4:  // import-text of other text onto an existing corpus
        args = {"import-text", "--input", m_text, "--vocab", "20", "--out", c};
        mayChange = force;
        refusal = !force;
        break;
      default: {  // sweep onto an earlier report
        const QString out = m_caseDir + "/report";
        QDir().mkpath(out);
        writeBytes(out + "/" + (rng.chance(50) ? "report.md" : "results.csv"), "the user's notes");
        args = {"sweep", "--corpus", c, "--topics", "3", "--trials", "1", "--epsilons", "1", "--configs", "none",
                "--formats", "none", "--out", out};
        mayChange = force;
        refusal = !force;
      }
    }
    if (force) args << "--force";
    const auto before = snapshot(m_caseDir);
    const fuzz::Outcome o = run(args);
    QStringList problems;
    if (refusal && o.code != 3) problems << QString("exit %1 where a refusal was due").arg(o.code);
    if (!mayChange) {
      const auto after = snapshot(m_caseDir);
      for (auto it = before.begin(); it != before.end(); ++it)
        if (after.value(it.key()) != it.value()) problems << "changed or lost: " + it.key();
    }
    report(o, problems, args[0]);
  }

  void staleCache(fuzz::Rng& rng) {
    const QString c = newCase("stale-cache");
    const QString a = m_caseDir + "/a.json", b = m_caseDir + "/b.json";
    fuzz::runDplda({"run", "--corpus", c, "--topics", "3", "--json", a});  // writes the cache
    const bool vocab = rng.chance(30);
    const QString file = c + (vocab ? "/vocab.txt" : "/docword.txt");
    const std::string path = file.toStdString();
    struct stat st {};
    stat(path.c_str(), &st);
    QByteArray text = readBytes(file);
    const int edits = 1 + static_cast<int>(rng.below(3));
    for (int e = 0; e < edits && !text.isEmpty(); ++e) {
      // A byte of the same class, so that the size stays and the file mostly stays valid.
      qsizetype at = static_cast<qsizetype>(rng.below(static_cast<std::size_t>(text.size())));
      const char ch = text[at];
      if (ch >= '0' && ch <= '9') text[at] = static_cast<char>('0' + (ch - '0' + 1 + rng.below(9)) % 10);
      else if (ch >= 'a' && ch <= 'z') text[at] = static_cast<char>('a' + (ch - 'a' + 1 + rng.below(25)) % 26);
      else if (rng.chance(50)) {  // swap two lines of the same length
        const QList<QByteArray> lines = text.split('\n');
        const qsizetype i = static_cast<qsizetype>(rng.below(static_cast<std::size_t>(lines.size())));
        for (qsizetype j = 0; j < lines.size(); ++j) {
          if (j != i && lines[j].size() == lines[i].size() && lines[j] != lines[i]) {
            QList<QByteArray> swapped = lines;
            std::swap(swapped[i], swapped[j]);
            text = swapped.join('\n');
            break;
          }
        }
      }
    }
    {
      QFile f(file);  // in place, as an editor that keeps the inode would
      if (f.open(QIODevice::ReadWrite)) f.write(text);
    }
    const struct timespec times[2] = {st.st_atim, st.st_mtim};
    utimensat(AT_FDCWD, path.c_str(), times, 0);
    compareWithNoCache(c, a, b);
  }

  void corruptCache(fuzz::Rng& rng) {
    const QString c = newCase("corrupt-cache");
    const QString a = m_caseDir + "/a.json", b = m_caseDir + "/b.json";
    fuzz::runDplda({"run", "--corpus", c, "--topics", "3", "--json", a});  // writes the cache
    const QString cache = c + "/docword.txt.dplda-cache";
    QByteArray bytes = readBytes(cache);
    const auto at = [&](std::size_t limit) {
      return static_cast<qsizetype>(rng.below(std::min<std::size_t>(limit, static_cast<std::size_t>(bytes.size()))));
    };
    switch (bytes.isEmpty() ? 5 : rng.below(7)) {
      case 0:  // bytes flipped anywhere
        for (int n = 1 + static_cast<int>(rng.below(8)); n > 0; --n) bytes[at(SIZE_MAX)] ^= static_cast<char>(1 + rng.below(255));
        break;
      case 1:  // a byte of the header
        bytes[at(160)] ^= static_cast<char>(1 + rng.below(255));
        break;
      case 2: bytes.truncate(at(SIZE_MAX)); break;
      case 3: bytes.append(QByteArray(1 + static_cast<qsizetype>(rng.below(4096)), static_cast<char>(rng.below(256)))); break;
      case 4: {
        const qsizetype from = at(SIZE_MAX);
        const qsizetype n = std::min<qsizetype>(bytes.size() - from, 1 + static_cast<qsizetype>(rng.below(4096)));
        bytes.replace(from, n, QByteArray(n, '\0'));
        break;
      }
      case 5:
        for (char& ch : bytes) ch = static_cast<char>(rng.below(256));
        break;
      default: bytes = readBytes(m_other + "/docword.txt.dplda-cache");
    }
    writeBytes(cache, bytes);
    compareWithNoCache(c, a, b);
  }

  // A cached run of `c` after the edit or the damage against a run without the cache: the same
  // exit status and the same topics, α, top words and corpus summary.
  void compareWithNoCache(const QString& c, const QString& a, const QString& b) {
    const fuzz::Outcome cached = run({"run", "--corpus", c, "--topics", "3", "--json", a});
    const QString cachedCommand = m_command;
    const fuzz::Outcome fresh = fuzz::runDplda({"run", "--corpus", c, "--topics", "3", "--no-cache", "--json", b});
    QStringList problems = fuzz::commonProblems(fresh, "run", {0, 3, 4});
    if (cached.code != fresh.code) problems << QString("exit %1 with the cache, %2 without").arg(cached.code).arg(fresh.code);
    if (cached.code == 0 && fresh.code == 0) {
      const QJsonObject x = QJsonDocument::fromJson(readBytes(a)).object(), y = QJsonDocument::fromJson(readBytes(b)).object();
      for (const char* key : {"topics", "alpha", "top_words", "corpus"})
        if (x[key] != y[key]) problems << QString("%1 differ from --no-cache: a stale cache was trusted").arg(key);
    }
    m_command = cachedCommand;
    report(cached, problems, "run");
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    QVERIFY2(devCaches().isEmpty(), "a *.dplda-cache file is already in /dev: remove it first");
    m_base = m_tmp.filePath("base");
    const fuzz::Outcome g = fuzz::runDplda(
        {"generate", "--vocab", "40", "--topics", "3", "--docs", "300", "--seed", "3", "--out", m_base});
    QVERIFY2(g.code == 0, g.err.constData());
    m_other = m_tmp.filePath("other");
    const fuzz::Outcome o = fuzz::runDplda(
        {"generate", "--vocab", "40", "--topics", "3", "--docs", "300", "--seed", "4", "--out", m_other});
    QVERIFY2(o.code == 0, o.err.constData());
    QVERIFY(fuzz::runDplda({"run", "--corpus", m_other, "--topics", "3"}).code == 0);
    QVERIFY(QFile::exists(m_other + "/docword.txt.dplda-cache"));
    m_text = m_tmp.filePath("text.txt");
    writeBytes(m_text, "alpha beta gamma delta\nbeta gamma delta epsilon\ngamma delta epsilon zeta\n");
  }

  void campaign() {
    const int cases = fuzz::caseCount(60);
    const std::uint64_t seed = fuzz::campaignSeed();
    // DPLDA_FUZZ_FAMILY (0-3) runs one family only: case i is then case i of that family.
    const int only = qEnvironmentVariableIsSet("DPLDA_FUZZ_FAMILY") ? qEnvironmentVariableIntValue("DPLDA_FUZZ_FAMILY") : -1;
    for (m_index = 0; m_index < cases; ++m_index) {
      fuzz::Rng rng(fuzz::mix(seed * 0x100000001B3ull + static_cast<std::uint64_t>(m_index)));
      switch (only >= 0 ? only : m_index % 4) {
        case 0: specialInput(rng); break;
        case 1: outputOntoInput(rng); break;
        case 2: staleCache(rng); break;
        default: corruptCache(rng);
      }
      fs::remove_all(m_caseDir.toStdString());
    }
    qInfo().noquote() << QString("files campaign, seed %1, %2 cases:\n").arg(seed).arg(cases) + m_tally.table();
    QVERIFY2(m_failures.isEmpty(), qPrintable(QString("%1 failing cases:\n").arg(m_failures.size()) +
                                               m_failures.mid(0, 30).join("\n")));
  }
};

DPLDA_FUZZ_MAIN(TestFuzzFiles)
#include "tst_fuzz_files.moc"
