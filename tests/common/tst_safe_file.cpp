// Tests of core/common/safe_file (issue 28): inputs that are not regular files are refused
// without waiting, outputs are written atomically through an exclusive temporary file, never
// over an input, never through a planted link, and every failed write is an error.
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>
#include <cstring>
#include <set>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/common/safe_file.h"

using namespace dplda;
namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeAll(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

bool contains(const Status& s, const std::string& part) { return s.message().find(part) != std::string::npos; }

// The entries of a folder (temporary files left behind would show here).
std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

}  // namespace

class TestSafeFile : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;
  fs::path dir(const std::string& name) {
    const fs::path d = fs::path(m_tmp.path().toStdString()) / name;
    fs::create_directories(d);
    return d;
  }

 private slots:
  void initTestCase() { QVERIFY(m_tmp.isValid()); }

  // A FIFO with no writer, a socket, a device and a folder: refused at once with what it is.
  void specialFilesAreRefusedWithoutWaiting() {
    const fs::path d = dir("special");
    const fs::path fifo = d / "fifo", sock = d / "sock", file = d / "file";
    QCOMPARE(mkfifo(fifo.c_str(), 0600), 0);
    const int s = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, sock.c_str(), sizeof(addr.sun_path) - 1);
    QCOMPARE(bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    writeAll(file, "text");
    fs::create_symlink(fifo, d / "link-to-fifo");
    struct Case {
      std::string path, expect;
    };
    const std::vector<Case> cases = {{fifo.string(), "is a FIFO (named pipe), not a regular file"},
                                     {(d / "link-to-fifo").string(), "is a FIFO"},
                                     {sock.string(), "is a socket, not a regular file"},
                                     {"/dev/null", "is a character device, not a regular file"},
                                     {d.string(), "found a folder"},
                                     {(d / "missing").string(), "file not found"}};
    for (const Case& c : cases) {
      const Status r = requireRegularFile(c.path);
      QVERIFY2(!r.isOk() && contains(r, c.expect), (c.path + ": " + r.message()).c_str());
      const auto fd = openRegularFile(c.path);  // a FIFO would block here without O_NONBLOCK
      QVERIFY2(!fd.ok() && (contains(fd.status(), c.expect) || contains(fd.status(), "cannot open")),
               (c.path + ": " + fd.status().message()).c_str());
    }
    QVERIFY(requireRegularFile(file.string()).isOk());
    const auto fd = openRegularFile(file.string());
    QVERIFY(fd.ok());
    char buf[8] = {};
    QCOMPARE(read(fd.value(), buf, sizeof(buf)), ssize_t(4));  // blocking again, readable
    close(fd.value());
    close(s);
  }

  // readFileText: at most the size asked for, fewer when the file is shorter (it shrank after its
  // size was taken), and a FIFO put at the name refused at once instead of waited on.
  void readFileTextReadsWhatWasSized() {
    const fs::path d = dir("read");
    const fs::path file = d / "file", fifo = d / "fifo";
    writeAll(file, "0123456789");
    QCOMPARE(readFileText(file.string(), 10).value(), std::string("0123456789"));
    QCOMPARE(readFileText(file.string(), 4).value(), std::string("0123"));
    QCOMPARE(readFileText(file.string(), 100).value(), std::string("0123456789"));
    QCOMPARE(mkfifo(fifo.c_str(), 0600), 0);
    const auto r = readFileText(fifo.string(), 10);
    QVERIFY2(!r.ok() && contains(r.status(), "is a FIFO"), r.status().message().c_str());
    QVERIFY(!readFileText((d / "missing").string(), 10).ok());
  }

  void atomicWriteReplacesOnlyWhenComplete() {
    const fs::path d = dir("atomic");
    const fs::path out = d / "out.json";
    writeAll(out, "old");
    chmod(out.c_str(), 0640);
    {
      auto f = AtomicFile::create(out.string());
      QVERIFY(f.ok());
      QVERIFY(f->write("new text").isOk());
      QCOMPARE(readAll(out), std::string("old"));  // nothing visible before the commit
      QVERIFY(f->temporaryPath().find(d.string()) == 0);  // beside the destination
      // Dropped without commit (an error on the way): the old file stays, no temporary is left.
    }
    QCOMPARE(readAll(out), std::string("old"));
    QCOMPARE(entries(d), std::set<std::string>{"out.json"});
    QVERIFY(writeFileAtomically(out.string(), "new text").isOk());
    QCOMPARE(readAll(out), std::string("new text"));
    QCOMPARE(entries(d), std::set<std::string>{"out.json"});
    struct stat st {};
    QCOMPARE(stat(out.c_str(), &st), 0);
    QCOMPARE(st.st_mode & 0777, mode_t(0640));  // the replaced file's mode is kept

    // writeAt completes a header after the payload (the corpus cache's layout).
    auto f = AtomicFile::create((d / "h.bin").string());
    QVERIFY(f.ok());
    QVERIFY(f->write("....payload").isOk());
    QVERIFY(f->writeAt(0, "HEAD", 4).isOk());
    QVERIFY(!f->writeAt(10, "toolong", 7).isOk());  // beyond what was written
    QVERIFY(f->commit().isOk() == false);           // the first failure sticks
    QVERIFY(!fs::exists(d / "h.bin"));
  }

  // A link planted at the destination is replaced, never followed: its target is untouched.
  void plantedLinksAreNotFollowed() {
    const fs::path d = dir("links");
    const fs::path victim = d / "victim.txt", out = d / "out.txt";
    writeAll(victim, "precious");
    fs::create_symlink(victim, out);
    QVERIFY(writeFileAtomically(out.string(), "output").isOk());
    QCOMPARE(readAll(victim), std::string("precious"));
    QVERIFY(!fs::is_symlink(out));
    QCOMPARE(readAll(out), std::string("output"));
    fs::create_symlink(d / "nowhere", d / "dangling");  // a dangling link too
    QVERIFY(writeFileAtomically((d / "dangling").string(), "x").isOk());
    QVERIFY(!fs::exists(d / "nowhere"));
  }

  void inputsAreNeverOverwritten() {
    const fs::path d = dir("inputs");
    const fs::path docword = d / "docword.txt", other = d / "other.txt";
    writeAll(docword, "3\n3\n1\n1 1 3\n");
    fs::create_symlink(docword, d / "link.txt");
    fs::create_hard_link(docword, d / "hard.txt");
    OutputRules rules;
    rules.inputs = {docword.string()};
    for (const char* name : {"docword.txt", "link.txt", "hard.txt"}) {
      const Status s = writeFileAtomically((d / name).string(), "{}", rules);
      QVERIFY2(!s.isOk() && contains(s, "input") && contains(s, "overwritten"), (std::string(name) + ": " + s.message()).c_str());
    }
    QCOMPARE(readAll(docword), std::string("3\n3\n1\n1 1 3\n"));
    QVERIFY(writeFileAtomically(other.string(), "{}", rules).isOk());
    // An existing output with replace off: refused with the caller's hint.
    rules.replace = false;
    rules.forceHint = "; give --force";
    const Status s = checkOutputFile(other.string(), rules);
    QVERIFY2(!s.isOk() && contains(s, "already exists") && contains(s, "--force"), s.message().c_str());
    QVERIFY(checkOutputFile((d / "new.txt").string(), rules).isOk());
  }

  void nonRegularDestinationsAreRefused() {
    const fs::path d = dir("dest");
    const fs::path fifo = d / "fifo";
    QCOMPARE(mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string& p : {std::string("/dev/full"), std::string("/dev/null"), fifo.string(), d.string()}) {
      const Status s = writeFileAtomically(p, "x");
      QVERIFY2(!s.isOk() && contains(s, "cannot write"), (p + ": " + s.message()).c_str());
    }
    QVERIFY(fs::is_fifo(fifo));
    QVERIFY(!checkOutputFile("").isOk());
  }

  // A full disk: every write is checked. RLIMIT_FSIZE makes write(2) fail with EFBIG past the
  // limit (SIGXFSZ ignored), in a child process so that the limit stays there.
  void failedWritesAreErrors() {
    const fs::path d = dir("full");
    const fs::path out = d / "big.bin";
    writeAll(out, "old");
    const pid_t pid = fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
      signal(SIGXFSZ, SIG_IGN);
      struct rlimit lim = {1 << 20, 1 << 20};
      setrlimit(RLIMIT_FSIZE, &lim);
      const std::string block(3 << 20, 'x');
      const Status s = writeFileAtomically(out.string(), block);
      _exit(!s.isOk() && s.message().find("cannot write") != std::string::npos ? 0 : 1);
    }
    int status = 0;
    QCOMPARE(waitpid(pid, &status, 0), pid);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 0);
    QCOMPARE(readAll(out), std::string("old"));
    QCOMPARE(entries(d), std::set<std::string>{"big.bin"});
  }

  void outputFolders() {
    const fs::path root = dir("folders");
    const fs::path corpus = root / "train";
    fs::create_directories(corpus);
    writeAll(corpus / "docword.txt", "x");
    writeAll(corpus / "vocab.txt", "y");
    OutputRules rules;
    rules.inputs = {(corpus / "docword.txt").string(), (corpus / "vocab.txt").string()};
    // --write-split ROOT while reading ROOT/train: refused even when replacing is allowed.
    Status s = checkOutputFolder(root.string(), {"train", "test"}, rules);
    QVERIFY2(!s.isOk() && contains(s, "input") && contains(s, "train"), s.message().c_str());
    s = checkOutputFolder(corpus.string(), {"docword.txt", "vocab.txt"}, rules);
    QVERIFY2(!s.isOk() && contains(s, "input"), s.message().c_str());
    // Through a relative path with "..": the same folder.
    s = checkOutputFolder((corpus / ".." / "train").string(), {"docword.txt"}, rules);
    QVERIFY2(!s.isOk(), s.message().c_str());
    // Existing outputs without replace: named, with the hint; a new folder is fine.
    rules.inputs.clear();
    rules.replace = false;
    rules.forceHint = "; give --force";
    s = checkOutputFolder(corpus.string(), {"docword.txt", "vocab.txt", "truth.json"}, rules);
    QVERIFY2(!s.isOk() && contains(s, "already holds docword.txt, vocab.txt") && contains(s, "--force"),
             s.message().c_str());
    QVERIFY(checkOutputFolder((root / "fresh").string(), {"docword.txt"}, rules).isOk());
    rules.replace = true;
    QVERIFY(checkOutputFolder(corpus.string(), {"docword.txt"}, rules).isOk());
    s = checkOutputFolder((corpus / "docword.txt").string(), {"x"}, rules);
    QVERIFY2(!s.isOk() && contains(s, "not a folder"), s.message().c_str());
  }
};

QTEST_APPLESS_MAIN(TestSafeFile)
#include "tst_safe_file.moc"
