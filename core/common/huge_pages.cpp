#include "core/common/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace dplda {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}

void adviseHugePages(void* data, std::size_t bytes) {
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1), last = (begin + bytes) & ~(kHugePage - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

namespace huge_pages {

void* allocate(std::size_t bytes, std::size_t* mapped) {
  if (bytes > SIZE_MAX - 2 * kHugePage) throw std::bad_alloc();
  const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  // Map a huge page more than needed and unmap the ends, so that the kept range starts on a 2 MiB
  // boundary (a huge page must be aligned). Anonymous pages arrive zeroed.
  const std::size_t extra = rounded + kHugePage;
  void* raw = mmap(nullptr, extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(raw, aligned - start);
  if (const std::size_t tail = start + extra - (aligned + rounded); tail > 0)
    munmap(reinterpret_cast<void*>(aligned + rounded), tail);
  void* p = reinterpret_cast<void*>(aligned);
  adviseHugePages(p, rounded);  // advice only: without huge pages the memory still works
  *mapped = rounded;
  return p;
}

void release(void* p, std::size_t mapped) noexcept {
  if (p) munmap(p, mapped);
}

}  // namespace huge_pages

}  // namespace dplda
