#pragma once
// Large buffers on 2 MiB pages where the kernel allows it: the corpus arrays a reader fills, the
// 4-byte copy of the counts, the M̂2 product's per-lane rows, the whitened tensor's scatter rows,
// the released M̃2 and the block eigensolver's Krylov basis.
//
// Why: on this project's 2-core VM a 4 KiB page fault costs microseconds, and a buffer of hundreds
// of megabytes faults in page by page; at d = 2·10⁴ a per-word table also spans more pages than the
// first-level TLB maps. Transparent huge pages fault in 2 MiB at a time and map a table with a few
// TLB entries. Debian's kernels give them only to memory marked with madvise(MADV_HUGEPAGE)
// ("madvise" mode, the default). On the NYT-sized fit the eigen step took 27 % less time, the
// Debian whitened release 14 % (docs/BENCHMARKS.md, issue 27). Where the
// kernel gives none (mode "never", other systems) this is plain zeroed memory and nothing else
// changes.
#include <cstddef>
#include <type_traits>
#include <utility>

namespace dplda {

// Asks for transparent huge pages on [data, data + bytes) of fresh, untouched memory (the corpus
// arrays a reader is about to fill): 2 MiB pages instead of 512 page faults each, which was most
// of loading a cached corpus (issue 11). A hint only; the whole 2 MiB pages inside the range.
void adviseHugePages(void* data, std::size_t bytes);

namespace huge_pages {
// `bytes` zeroed, 2 MiB-aligned, marked for huge pages; *mapped gets what to release (std::bad_alloc
// when the memory is not there).
void* allocate(std::size_t bytes, std::size_t* mapped);
void release(void* p, std::size_t mapped) noexcept;
}  // namespace huge_pages

template <class T>
class HugePageArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  HugePageArray() = default;
  explicit HugePageArray(std::size_t count) : m_count(count) {
    if (count > 0) m_data = static_cast<T*>(huge_pages::allocate(count * sizeof(T), &m_mapped));
  }
  ~HugePageArray() { huge_pages::release(m_data, m_mapped); }
  HugePageArray(HugePageArray&& other) noexcept
      : m_data(std::exchange(other.m_data, nullptr)),
        m_count(std::exchange(other.m_count, 0)),
        m_mapped(std::exchange(other.m_mapped, 0)) {}
  HugePageArray& operator=(HugePageArray&& other) noexcept {
    if (this != &other) {
      huge_pages::release(m_data, m_mapped);
      m_data = std::exchange(other.m_data, nullptr);
      m_count = std::exchange(other.m_count, 0);
      m_mapped = std::exchange(other.m_mapped, 0);
    }
    return *this;
  }
  HugePageArray(const HugePageArray&) = delete;
  HugePageArray& operator=(const HugePageArray&) = delete;

  // At least `count` elements: this array when it holds as many (its contents as they are), else
  // a fresh zeroed one in its place (the old contents dropped). For working memory a caller keeps
  // across repeated calls.
  T* ensureSize(std::size_t count) {
    if (m_count < count) *this = HugePageArray(count);
    return m_data;
  }
  T* data() { return m_data; }
  const T* data() const { return m_data; }
  std::size_t size() const { return m_count; }
  bool empty() const { return m_count == 0; }
  T& operator[](std::size_t i) { return m_data[i]; }
  const T& operator[](std::size_t i) const { return m_data[i]; }

 private:
  T* m_data = nullptr;
  std::size_t m_count = 0;
  std::size_t m_mapped = 0;  // bytes mapped: the array rounded up to whole 2 MiB pages
};

}  // namespace dplda
