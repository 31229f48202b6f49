#pragma once
// A read-only regular file for the corpus readers: memory-mapped (the parser and the binary cache
// then read the page cache directly, with no copy and no per-line buffer), or, when mmap fails
// (e.g. under an address-space limit), open for plain read(2) streaming. Anything but a regular
// file (a FIFO, a device, a socket, a folder) is refused by open, without blocking (issue 28).
// Internal to core/corpus.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/status.h"

namespace dplda {

class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Opens `path`; `shownName` is the escaped name used in messages ("cannot read NAME: why");
  // the refusals are openRegularFile's (core/common/safe_file.h).
  // With `tryMap` false the file is only opened (streaming).
  static Result<MappedFile> open(const std::string& path, const std::string& shownName, bool tryMap = true);

  bool mapped() const { return m_data != nullptr; }
  std::string_view view() const { return {static_cast<const char*>(m_data), m_size}; }
  int fd() const { return m_fd; }
  std::uint64_t size() const { return m_size; }  // st_size

  // Hints that [from, to) of the mapping will not be read again: its pages leave this process's
  // resident set (they stay in the page cache), so reading a file larger than RAM stays bounded.
  void dropPages(std::size_t from, std::size_t to) const;
  // The same for every page that holds a byte of [from, to): for ranges read in place by several
  // threads (a streamed corpus's blocks), where a shared edge page is simply read again from the
  // page cache. Keeps a streamed pass's resident set at its blocks (issue 27 §4).
  void releasePages(std::size_t from, std::size_t to) const;
  void close();

 private:
  int m_fd = -1;
  void* m_data = nullptr;
  std::size_t m_size = 0;
};

}  // namespace dplda
