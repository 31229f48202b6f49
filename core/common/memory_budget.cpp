#include "core/common/memory_budget.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif


namespace dplda {

double lazilyMappedBytes() {
  int threads = 1;
#ifdef _OPENMP
  threads = std::max(1, omp_get_max_threads());
#endif
  return (128.0 + 64.0 * threads) * 1048576.0;
}

double availableMemoryBytes() {
  double available = std::numeric_limits<double>::infinity();
#ifdef __linux__
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  const long pages = sysconf(_SC_PHYS_PAGES);
  if (pages > 0 && page > 0) available = static_cast<double>(pages) * page;
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    // The address space already mapped (code, libraries, thread stacks, data) counts against it.
    double mapped = 0.0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      unsigned long size = 0;
      if (std::fscanf(f, "%lu", &size) == 1) mapped = static_cast<double>(size) * page;
      std::fclose(f);
    }
    // A Laplace run under 400 MiB (220 MB estimated) failed in std::bad_alloc with 94 MB mapped at
    // the check and 242 MB at the failure: OpenBLAS's buffer had been mapped in between.
    const double later = lazilyMappedBytes();
    available = std::min(available, std::max(0.0, static_cast<double>(limit.rlim_cur) - mapped - later));
  }
#endif
  return available;
}

std::string memoryText(double bytes) {
  const char* unit = "bytes";
  double v = bytes;
  for (const char* u : {"kB", "MB", "GB", "TB", "PB"}) {
    if (v < 1000.0) break;
    v /= 1000.0;
    unit = u;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, v < 10.0 && unit[0] != 'b' ? "%.1f %s" : "%.0f %s", v, unit);
  return buf;
}

Status checkMemory(double bytes, const std::string& who, const std::string& what, const std::string& why) {
  const double available = availableMemoryBytes();
  if (bytes <= available) return Status::ok();
  return Status(StatusCode::ResourceLimit, who + " needs " + memoryText(bytes) + " for " + what +
                                               (why.empty() ? "" : " (" + why + ")") + "; this process can allocate " +
                                               memoryText(available));
}

}  // namespace dplda
