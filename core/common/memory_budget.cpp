#include "core/common/memory_budget.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/common/text_escape.h"

namespace dplda {

namespace {

constexpr const char* kVariable = "DPLDA_MEMORY_LIMIT";
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The first line of a small kernel file, without its line end; empty when it cannot be read.
std::string firstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  return line;
}

std::string wholeFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream all;
  if (in) all << in.rdbuf();
  return all.str();
}

// A cgroup limit file's value: bytes, or nullopt for "max", v1's "unlimited" (2^63 rounded down
// to a page) and anything unreadable.
std::optional<double> limitValue(const std::string& path) {
  const std::string text = firstLine(path);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19) return std::nullopt;
  const double bytes = std::strtod(text.c_str(), nullptr);
  if (bytes >= 0x1p62) return std::nullopt;
  return bytes;
}

#ifdef __linux__
double pageBytes() { return static_cast<double>(sysconf(_SC_PAGESIZE)); }

// Field `field` of /proc/self/statm (0: the address space mapped, 1: resident), in bytes.
double statmBytes(int field) {
  std::istringstream in(firstLine("/proc/self/statm"));
  unsigned long pages = 0;
  for (int i = 0; i <= field; ++i)
    if (!(in >> pages)) return 0.0;
  return static_cast<double>(pages) * pageBytes();
}
#endif

}  // namespace

double lazilyMappedBytes() {
  int threads = 1;
#ifdef _OPENMP
  threads = std::max(1, omp_get_max_threads());
#endif
  return (128.0 + 64.0 * threads) * 1048576.0;
}

Result<double> parseMemoryLimit(const std::string& text) {
  const auto refuse = [&](const std::string& why) -> Status {
    return invalidArgument(std::string(kVariable) + " " + quoteText(text) + " " + why +
                           ": write bytes as digits, optionally followed by K, M, G or T (powers of 1024), e.g. " +
                           kVariable + "=2G");
  };
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return refuse("is not a memory size");
  double scale = 1.0;
  if (digits + 1 == text.size()) {
    switch (text.back()) {
      case 'K': case 'k': scale = 0x1p10; break;
      case 'M': case 'm': scale = 0x1p20; break;
      case 'G': case 'g': scale = 0x1p30; break;
      case 'T': case 't': scale = 0x1p40; break;
      default: return refuse("is not a memory size");
    }
  } else if (digits != text.size()) {
    return refuse("is not a memory size");
  }
  if (digits > 15) return refuse("is larger than any machine's memory");
  const double bytes = std::strtod(text.substr(0, digits).c_str(), nullptr) * scale;
  if (bytes < 1.0) return refuse("is zero");
  if (bytes >= 0x1p62) return refuse("is larger than any machine's memory");
  return bytes;
}

std::optional<MemoryLimit> cgroupMemoryLimit(const std::string& membership, const std::string& cgroupRoot) {
  std::optional<MemoryLimit> best;
  // Every line is "ID:CONTROLLERS:PATH": "0::/PATH" is cgroup v2, "N:...memory...:/PATH" the v1
  // memory controller. A limit on a parent applies to its children too.
  std::istringstream lines(membership);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
    std::string path = line.substr(b + 1);
    const bool v2 = line.compare(0, a, "0") == 0 && controllers == ",,";
    const bool v1 = controllers.find(",memory,") != std::string::npos;
    if (!v2 && !v1) continue;
    const std::string base = v2 ? cgroupRoot : cgroupRoot + "/memory";
    const char* file = v2 ? "/memory.max" : "/memory.limit_in_bytes";
    while (true) {
      if (const auto bytes = limitValue(base + path + file); bytes && (!best || *bytes < best->bytes))
        best = MemoryLimit{*bytes, std::string("the memory limit of cgroup ") + escapeText(path.empty() ? "/" : path) +
                                       " (" + (file + 1) + ", " + memoryText(*bytes) + ")"};
      if (path.empty() || path == "/") break;
      path = path.substr(0, path.find_last_of('/'));
    }
  }
  return best;
}

Result<MemoryBudget> memoryBudget() {
  const char* variable = std::getenv(kVariable);
  const std::string text = variable ? variable : "";
  std::optional<double> userLimit;
  if (!text.empty()) {
    const Result<double> parsed = parseMemoryLimit(text);
    if (!parsed.ok()) return parsed.status();
    userLimit = parsed.value();
  }
  MemoryBudget budget{kInfinity, "no known limit"};
  const auto consider = [&](double bytes, const std::string& name) {
    if (bytes < budget.bytes) budget = MemoryBudget{std::max(0.0, bytes), name};
  };
#ifdef __linux__
  const double resident = statmBytes(1);
  if (userLimit) consider(*userLimit - resident, std::string(kVariable) + "=" + text);
  if (const auto cgroup = cgroupMemoryLimit(wholeFile("/proc/self/cgroup")))
    consider(cgroup->bytes - resident, cgroup->name);
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    // The address space already mapped (code, libraries, thread stacks, data) counts against it.
    // A Laplace run under 400 MiB (220 MB estimated) failed in std::bad_alloc with 94 MB mapped at
    // the check and 242 MB at the failure: OpenBLAS's buffer had been mapped in between.
    const double bytes = static_cast<double>(limit.rlim_cur);
    consider(bytes - statmBytes(0) - lazilyMappedBytes(),
             "the address-space limit (ulimit -v) of " + memoryText(bytes));
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  if (pages > 0) {
    const double physical = static_cast<double>(pages) * pageBytes();
    consider(physical - resident, "the machine's " + memoryText(physical) + " of memory");
  }
#else
  if (userLimit) consider(*userLimit, std::string(kVariable) + "=" + text);
#endif
  return budget;
}

std::string budgetText(const MemoryBudget& budget) { return memoryText(budget.bytes) + " under " + budget.limit; }

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
  const Result<MemoryBudget> budget = memoryBudget();
  if (!budget.ok()) return budget.status();
  if (bytes <= budget->bytes) return Status::ok();
  return Status(StatusCode::ResourceLimit, who + " needs " + memoryText(bytes) + " for " + what +
                                               (why.empty() ? "" : " (" + why + ")") + "; this process can allocate " +
                                               budgetText(budget.value()));
}

}  // namespace dplda
