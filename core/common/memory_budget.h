#pragma once
// How much memory a run may still allocate, and the refusal when a stage would need more
// (issue 28): a run says what it needs and why before allocating, instead of ending in
// std::bad_alloc. The budget is the smaller of the address-space limit (setrlimit RLIMIT_AS,
// `ulimit -v`) less what the process already maps, and the machine's physical memory.
#include <string>

#include "core/common/status.h"

namespace dplda {

// Bytes the process may still allocate (see above); +infinity when nothing is known.
double availableMemoryBytes();

// Under an address-space limit, what the libraries map later, on first use, and availableMemoryBytes()
// keeps free for them: OpenBLAS's 128 MiB work buffer and glibc's 64 MiB arena per OpenMP thread.
double lazilyMappedBytes();

// "7.5 GB", "312 MB": sizes in messages.
std::string memoryText(double bytes);

// Ok when `bytes` fit in availableMemoryBytes(); otherwise ResourceLimit:
// "<who> needs 7.5 GB for <what> (<why>); this process can allocate 3.9 GB".
Status checkMemory(double bytes, const std::string& who, const std::string& what, const std::string& why = {});

}  // namespace dplda
