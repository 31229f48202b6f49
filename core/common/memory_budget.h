#pragma once
// How much memory a run may still allocate, and the refusal when a stage would need more
// (issue 28): a run says what it needs and why before allocating, instead of ending in
// std::bad_alloc or being killed. The budget is the smallest of the limits that are set:
//  - DPLDA_MEMORY_LIMIT (bytes, or with a K, M, G or T suffix in powers of 1024), less what the
//    process holds now (its resident memory): the user's own limit, and the one that works where
//    an address-space limit cannot (AddressSanitizer reserves terabytes of address space);
//  - the memory limit of the process's cgroup (cgroup v2 memory.max, v1 memory.limit_in_bytes,
//    the smallest of its cgroup and their parents), less the resident memory: what containers and
//    CI runners set, and what ends a process with the OOM killer rather than std::bad_alloc;
//  - the address-space limit (setrlimit RLIMIT_AS, `ulimit -v`) less what the process maps now
//    and what the libraries map later (lazilyMappedBytes());
//  - the machine's physical memory less the resident memory.
// Other processes in the same cgroup are not counted: the budget is what this process may take.
#include <optional>
#include <string>

#include "core/common/status.h"

namespace dplda {

struct MemoryLimit {
  double bytes = 0.0;  // the limit itself
  std::string name;    // which limit, for messages: "DPLDA_MEMORY_LIMIT=2G", "the address-space limit (ulimit -v) of 2.1 GB"
};

struct MemoryBudget {
  double bytes = 0.0;  // what the process may still allocate (+infinity when nothing is known)
  std::string limit;   // the MemoryLimit::name of the limit that binds
};

// The budget above. InvalidArgument naming the variable when DPLDA_MEMORY_LIMIT is set but not a
// size (an empty value counts as unset).
Result<MemoryBudget> memoryBudget();

// "1.9 GB under DPLDA_MEMORY_LIMIT=2G": what a message says the process can allocate.
std::string budgetText(const MemoryBudget& budget);

// DPLDA_MEMORY_LIMIT's syntax: digits, optionally followed by K, M, G or T (either case; powers of
// 1024), at least 1 byte. InvalidArgument naming the variable and the value otherwise.
Result<double> parseMemoryLimit(const std::string& text);

// The memory limit of the cgroup that `membership` (the text of /proc/self/cgroup) places the
// process in, below the cgroup file system mounted at `cgroupRoot`: the smallest memory.max (v2)
// or memory.limit_in_bytes (v1) of the cgroup and its parents; nullopt when none is set.
std::optional<MemoryLimit> cgroupMemoryLimit(const std::string& membership,
                                             const std::string& cgroupRoot = "/sys/fs/cgroup");

// Under an address-space limit, what the libraries map later, on first use, and memoryBudget()
// keeps free for them: OpenBLAS's 128 MiB work buffer and glibc's 64 MiB arena per OpenMP thread.
double lazilyMappedBytes();

// "7.5 GB", "312 MB": sizes in messages.
std::string memoryText(double bytes);

// Ok when `bytes` fit in memoryBudget(); otherwise ResourceLimit:
// "<who> needs 7.5 GB for <what> (<why>); this process can allocate 3.9 GB under <limit>", or
// the budget's own error.
Status checkMemory(double bytes, const std::string& who, const std::string& what, const std::string& why = {});

}  // namespace dplda
