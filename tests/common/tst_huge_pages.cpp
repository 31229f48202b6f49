// Tests of core/common/huge_pages (issue 27 §2): the arrays the fit's passes index at random and
// the packed counts are zeroed, aligned to a huge page (else the kernel cannot use one), marked
// for transparent huge pages, and released: no mapping outlives its array.
#include <QtTest>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "core/common/huge_pages.h"

using namespace dplda;

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

// The process's mapped address space in pages (/proc/self/statm, first field).
long mappedPages() {
  std::ifstream in("/proc/self/statm");
  long pages = 0;
  in >> pages;
  return pages;
}

// The smaps block of the mapping that contains p ("" when none does).
std::string smapsOf(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream in("/proc/self/smaps");
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {  // a mapping's first line
      if (inside) return block;
      inside = lo <= a && a < hi;
      block.clear();
    }
    if (inside) block += line + "\n";
  }
  return inside ? block : "";
}

std::string thpMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string all;
  std::getline(in, all);
  return all;
}

}  // namespace

class TestHugePages : public QObject {
  Q_OBJECT
 private slots:
  void arraysAreZeroedAlignedAndWritable() {
    // Not a whole number of huge pages, and an element type other than double.
    for (const std::size_t count : {std::size_t{1}, std::size_t{3} << 18, (std::size_t{5} << 20) + 7}) {
      HugePageArray<std::uint32_t> a(count);
      QCOMPARE(a.size(), count);
      QVERIFY(!a.empty());
      QCOMPARE(reinterpret_cast<std::uintptr_t>(a.data()) % kHugePage, std::uintptr_t{0});
      bool zero = true;
      for (std::size_t i = 0; i < count; ++i) zero = zero && a[i] == 0u;
      QVERIFY(zero);
      a[0] = 1u;
      a[count - 1] = 7u;  // the last element is inside the mapping
      QCOMPARE(a[count - 1], 7u);
    }
    HugePageArray<double> none(0);
    QVERIFY(none.empty() && none.data() == nullptr);
  }

  void movesTransferTheMappingAndReleaseTheOldOne() {
    HugePageArray<double> a(1000);
    a[999] = 2.5;
    double* p = a.data();
    HugePageArray<double> b(std::move(a));
    QVERIFY(a.empty() && a.data() == nullptr);
    QCOMPARE(b.data(), p);
    QCOMPARE(b[999], 2.5);
    HugePageArray<double> c(10);
    c = std::move(b);  // c's own mapping is released here
    QCOMPARE(c.data(), p);
    QVERIFY(b.empty());
  }

  void noMappingOutlivesItsArray() {
    // 200 arrays of 64 MiB: 12.5 GiB of address space if any were kept.
    const long before = mappedPages();
    for (int i = 0; i < 200; ++i) {
      HugePageArray<double> a(std::size_t{8} << 20);
      a[i] = 1.0;
      HugePageArray<double> b(std::size_t{1} << 10);
      b = std::move(a);
    }
    const long grown = mappedPages() - before;
    QVERIFY2(grown < (std::int64_t{64} << 20) / 4096, qPrintable(QString("grew by %1 pages").arg(grown)));
  }

  void theMappingIsMarkedForHugePages() {
    if (thpMode().find("[never]") != std::string::npos || thpMode().empty())
      QSKIP("transparent huge pages are off on this kernel");
    if (!std::ifstream("/proc/self/smaps")) QSKIP("no /proc/self/smaps to read the mapping's flags from");
    HugePageArray<double> a(std::size_t{1} << 20);  // 8 MiB
    const std::string smaps = smapsOf(a.data());
    QVERIFY2(!smaps.empty(), "no mapping holds the array");
    // "hg" in VmFlags: madvise(MADV_HUGEPAGE) was applied to the whole mapping.
    const std::size_t flags = smaps.find("VmFlags:");
    QVERIFY(flags != std::string::npos);
    QVERIFY2(smaps.find(" hg", flags) != std::string::npos, smaps.c_str());
  }
};

QTEST_APPLESS_MAIN(TestHugePages)
#include "tst_huge_pages.moc"
