#include "core/corpus/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "core/common/safe_file.h"

namespace dplda {

MappedFile::~MappedFile() { close(); }

MappedFile::MappedFile(MappedFile&& o) noexcept { *this = std::move(o); }

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    close();
    m_fd = std::exchange(o.m_fd, -1);
    m_data = std::exchange(o.m_data, nullptr);
    m_size = std::exchange(o.m_size, 0);
  }
  return *this;
}

void MappedFile::close() {
  if (m_data) munmap(m_data, m_size);
  if (m_fd >= 0) ::close(m_fd);
  m_data = nullptr;
  m_fd = -1;
}

Result<MappedFile> MappedFile::open(const std::string& path, const std::string& shownName, bool tryMap) {
  MappedFile f;
  // Regular files only, opened without waiting: a FIFO would block the open until a writer came.
  auto fd = openRegularFile(path);
  if (!fd.ok()) return fd.status();
  f.m_fd = fd.value();
  struct stat st {};
  if (fstat(f.m_fd, &st) != 0) return ioError("cannot read " + shownName + ": " + std::strerror(errno));
  f.m_size = static_cast<std::size_t>(st.st_size);
  if (tryMap && f.m_size > 0) {
    void* p = mmap(nullptr, f.m_size, PROT_READ, MAP_PRIVATE, f.m_fd, 0);
    if (p != MAP_FAILED) {
      f.m_data = p;
      madvise(p, f.m_size, MADV_SEQUENTIAL);  // read ahead aggressively, drop behind
    }
  }
  return f;
}

void MappedFile::dropPages(std::size_t from, std::size_t to) const {
  if (!m_data || to > m_size) return;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t a = (from + page - 1) / page * page;  // whole pages inside [from, to) only
  const std::size_t b = to / page * page;
  if (b > a) madvise(static_cast<char*>(m_data) + a, b - a, MADV_DONTNEED);
}

void MappedFile::releasePages(std::size_t from, std::size_t to) const {
  if (!m_data || to > m_size || to <= from) return;
  // Rounded out to 2 MiB of the file: a read fault may map a whole large folio of the page cache
  // (up to 2 MiB, aligned in the file) around the byte read, beyond the block asked for; measured,
  // page rounding left 2 MB resident after a pass over a 6.5 MB cache.
  const std::size_t page = std::max<std::size_t>(static_cast<std::size_t>(sysconf(_SC_PAGESIZE)), std::size_t{2} << 20);
  const std::size_t a = from / page * page, b = std::min(m_size, (to + page - 1) / page * page);
  madvise(static_cast<char*>(m_data) + a, b - a, MADV_DONTNEED);
}

}  // namespace dplda
