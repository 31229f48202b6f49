// The memory a run may still allocate and the refusal that names what a stage needs (issue 28).
#include <QtTest>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "core/common/memory_budget.h"

using namespace dplda;

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
    const double unlimited = availableMemoryBytes();
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
    const double budget = availableMemoryBytes();
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
    QVERIFY(checkMemory(std::nan(""), "x", "y").code() == StatusCode::ResourceLimit);
  }
};

QTEST_APPLESS_MAIN(TestMemoryBudget)
#include "tst_memory_budget.moc"
