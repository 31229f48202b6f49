// The memory a run may still allocate and the refusal that names what a stage needs (issue 28).
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "core/common/memory_budget.h"

using namespace dplda;

namespace {

double budgetBytes() {
  const Result<MemoryBudget> b = memoryBudget();
  return b.ok() ? b->bytes : -1.0;
}

bool writeFile(const QString& path, const QByteArray& text) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

// Sets DPLDA_MEMORY_LIMIT for one scope and puts back what the environment had.
class LimitVariable {
 public:
  explicit LimitVariable(const char* value) {
    if (const char* old = std::getenv("DPLDA_MEMORY_LIMIT")) m_old = old;
    ::setenv("DPLDA_MEMORY_LIMIT", value, 1);
  }
  ~LimitVariable() {
    if (m_old) ::setenv("DPLDA_MEMORY_LIMIT", m_old->c_str(), 1);
    else ::unsetenv("DPLDA_MEMORY_LIMIT");
  }

 private:
  std::optional<std::string> m_old;
};

}  // namespace

class TestMemoryBudget : public QObject {
  Q_OBJECT
 private slots:
  void sizesReadAsUsersWriteThem() {
    QCOMPARE(memoryText(512), std::string("512 bytes"));
    QCOMPARE(memoryText(7.5e9), std::string("7.5 GB"));
    QCOMPARE(memoryText(312e6), std::string("312 MB"));
    QCOMPARE(memoryText(1.2e12), std::string("1.2 TB"));
  }

  // Under an address-space limit the budget is the limit less what is mapped, and a request
  // beyond it is refused with what, why and how much there is.
  void addressSpaceLimitBoundsTheBudget() {
    rlimit saved{};
    QVERIFY(getrlimit(RLIMIT_AS, &saved) == 0);
    const double unlimited = budgetBytes();
    QVERIFY(unlimited > 0);
    rlimit limited = saved;
    // 1 GiB above what the process maps now (read back from the budget's own source).
    const double mapped = [] {
      unsigned long pages = 0;
      if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
        std::fclose(f);
      }
      return static_cast<double>(pages) * static_cast<double>(sysconf(_SC_PAGESIZE));
    }();
    QVERIFY(mapped > 0);
    limited.rlim_cur = static_cast<rlim_t>(mapped + lazilyMappedBytes() + (1ull << 30));
    if (saved.rlim_max != RLIM_INFINITY && limited.rlim_cur > saved.rlim_max) QSKIP("the hard limit is lower");
    QVERIFY(setrlimit(RLIMIT_AS, &limited) == 0);
    const Result<MemoryBudget> bounded = memoryBudget();
    const double budget = bounded.ok() ? bounded->bytes : -1.0;
    const Status big = checkMemory(4e9, "--topics 800", "the k x k x k tensor", "one copy per stage");
    const Status small = checkMemory(1e8, "--topics 8", "the tensor");
    QVERIFY(setrlimit(RLIMIT_AS, &saved) == 0);
    QVERIFY2(budget > 0.9 * (1ull << 30) && budget <= (1ull << 30), qPrintable(QString::number(budget)));
    QCOMPARE(big.code(), StatusCode::ResourceLimit);
    QVERIFY2(big.message().rfind("--topics 800 needs 4.0 GB for the k x k x k tensor (one copy per stage); this "
                                 "process can allocate 1.",
                                 0) == 0,
             big.message().c_str());
    QVERIFY(small.isOk());
    QVERIFY2(bounded->limit.rfind("the address-space limit (ulimit -v) of ", 0) == 0, bounded->limit.c_str());
    QVERIFY2(big.message().find("under the address-space limit (ulimit -v) of ") != std::string::npos, big.message().c_str());
    QVERIFY(checkMemory(std::nan(""), "x", "y").code() == StatusCode::ResourceLimit);
  }

  void memoryLimitSyntax_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("bytes");  // 0: refused
    QTest::newRow("bytes") << "1048576" << 1048576.0;
    QTest::newRow("2K") << "2K" << 2048.0;
    QTest::newRow("3m") << "3m" << 3.0 * (1 << 20);
    QTest::newRow("2G") << "2G" << 2.0 * (1 << 30);
    QTest::newRow("1T") << "1T" << 1099511627776.0;
    QTest::newRow("one byte") << "1" << 1.0;
    for (const char* bad : {"G", "2X", "-1", "1.5G", " 2G", "2G ", "2 G", "2GB", "2GiB", "0", "0G", "0x10",
                            "99999999999999999999", "4294967296T", "2\x1b[31mG"})
      QTest::newRow(bad) << QString(bad) << 0.0;
  }
  // DPLDA_MEMORY_LIMIT: digits with an optional K/M/G/T (powers of 1024); anything else is refused
  // naming the variable and the value, escaped.
  void memoryLimitSyntax() {
    QFETCH(QString, text);
    QFETCH(double, bytes);
    const Result<double> parsed = parseMemoryLimit(text.toStdString());
    if (bytes > 0) {
      QVERIFY2(parsed.ok(), parsed.status().message().c_str());
      QCOMPARE(parsed.value(), bytes);
      return;
    }
    QVERIFY(!parsed.ok());
    QCOMPARE(parsed.status().code(), StatusCode::InvalidArgument);
    const std::string& m = parsed.status().message();
    QVERIFY2(m.rfind("DPLDA_MEMORY_LIMIT '", 0) == 0 && m.find("K, M, G or T") != std::string::npos, m.c_str());
    QVERIFY2(m.find('\x1b') == std::string::npos, m.c_str());
  }

  // The variable bounds the budget (less what the process holds) and names itself in refusals; a
  // smaller address-space limit wins over it; a malformed value is an error wherever memory is
  // checked; an empty one counts as unset.
  void memoryLimitVariableBoundsTheBudget() {
    {
      LimitVariable limit("1G");
      const Result<MemoryBudget> b = memoryBudget();
      QVERIFY2(b.ok(), b.status().message().c_str());
      QCOMPARE(b->limit, std::string("DPLDA_MEMORY_LIMIT=1G"));
      QVERIFY2(b->bytes <= 0x1p30 && b->bytes > 0x1p30 - 512e6, qPrintable(QString::number(b->bytes)));
      const Status big = checkMemory(2e9, "--topics 500", "the tensor");
      QCOMPARE(big.code(), StatusCode::ResourceLimit);
      QVERIFY2(big.message().find("this process can allocate 1.") != std::string::npos &&
                   big.message().find(" GB under DPLDA_MEMORY_LIMIT=1G") != std::string::npos,
               big.message().c_str());
      QVERIFY(checkMemory(1e8, "--topics 5", "the tensor").isOk());

      rlimit saved{};
      QVERIFY(getrlimit(RLIMIT_AS, &saved) == 0);
      rlimit limited = saved;
      const double mapped = static_cast<double>(sysconf(_SC_PAGESIZE)) * [] {
        unsigned long pages = 0;
        if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
          if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
          std::fclose(f);
        }
        return static_cast<double>(pages);
      }();
      limited.rlim_cur = static_cast<rlim_t>(mapped + lazilyMappedBytes() + (256ull << 20));
      if (saved.rlim_max == RLIM_INFINITY || limited.rlim_cur <= saved.rlim_max) {
        QVERIFY(setrlimit(RLIMIT_AS, &limited) == 0);
        const Result<MemoryBudget> both = memoryBudget();
        QVERIFY(setrlimit(RLIMIT_AS, &saved) == 0);
        QVERIFY(both.ok());
        QVERIFY2(both->limit.rfind("the address-space limit", 0) == 0, both->limit.c_str());
        QVERIFY(both->bytes <= 256.0 * (1 << 20));
      }
    }
    {
      LimitVariable limit("lots");
      const Result<MemoryBudget> b = memoryBudget();
      QCOMPARE(b.status().code(), StatusCode::InvalidArgument);
      QVERIFY2(b.status().message().rfind("DPLDA_MEMORY_LIMIT 'lots' is not a memory size", 0) == 0,
               b.status().message().c_str());
      QCOMPARE(checkMemory(1.0, "x", "y").code(), StatusCode::InvalidArgument);
    }
    {
      LimitVariable limit("");
      const Result<MemoryBudget> b = memoryBudget();
      QVERIFY(b.ok());
      QVERIFY(b->limit.find("DPLDA_MEMORY_LIMIT") == std::string::npos);
    }
  }

  // cgroup limits from a file system laid out as the kernel's: the smallest limit of the cgroup
  // and its parents, v2 (memory.max, "max" = none) and v1 (memory.limit_in_bytes, 2^63 rounded
  // to a page = none); no limit files, no limit.
  void cgroupLimitIsTheSmallestOfTheCgroupAndItsParents() {
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString r = root.path();
    QVERIFY(writeFile(r + "/ci/memory.max", "3221225472\n"));
    QVERIFY(writeFile(r + "/ci/job/memory.max", "max\n"));
    QVERIFY(writeFile(r + "/ci/job/step/memory.max", "max\n"));
    const auto v2 = cgroupMemoryLimit("0::/ci/job/step\n", r.toStdString());
    QVERIFY(v2.has_value());
    QCOMPARE(v2->bytes, 3221225472.0);
    QCOMPARE(v2->name, std::string("the memory limit of cgroup /ci (memory.max, 3.2 GB)"));
    QVERIFY(writeFile(r + "/ci/job/memory.max", "1073741824\n"));
    QCOMPARE(cgroupMemoryLimit("0::/ci/job/step\n", r.toStdString())->bytes, 1073741824.0);
    QVERIFY(!cgroupMemoryLimit("0::/elsewhere\n", r.toStdString()).has_value());
    QVERIFY(!cgroupMemoryLimit("", r.toStdString()).has_value());
    QVERIFY(!cgroupMemoryLimit("garbage\n0:\n", r.toStdString()).has_value());

    QVERIFY(writeFile(r + "/memory/docker/memory.limit_in_bytes", "536870912\n"));
    QVERIFY(writeFile(r + "/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n"));
    QVERIFY(writeFile(r + "/memory/memory.limit_in_bytes", "9223372036854771712\n"));
    const auto v1 = cgroupMemoryLimit("12:pids:/docker/abc\n4:memory:/docker/abc\n0::/\n", r.toStdString());
    QVERIFY(v1.has_value());
    QCOMPARE(v1->bytes, 536870912.0);
    QCOMPARE(v1->name, std::string("the memory limit of cgroup /docker (memory.limit_in_bytes, 537 MB)"));
    QVERIFY(writeFile(r + "/memory/docker/memory.limit_in_bytes", "9223372036854771712\n"));
    QVERIFY(!cgroupMemoryLimit("4:memory:/docker/abc\n", r.toStdString()).has_value());
  }
};

QTEST_APPLESS_MAIN(TestMemoryBudget)
#include "tst_memory_budget.moc"
