#include "core/common/safe_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/common/text_escape.h"

namespace dplda {

namespace fs = std::filesystem;

namespace {

const char* kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Status notRegular(const std::string& shown, mode_t mode) {
  if (S_ISDIR(mode)) return ioError("expected a file but found a folder: " + shown);
  return ioError(shown + " is " + kindOf(mode) + ", not a regular file");
}

bool sameFile(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// The inputs that exist, by identity (a link or a second hard link is the same file).
std::vector<std::pair<std::string, struct stat>> existingInputs(const std::vector<std::string>& inputs) {
  std::vector<std::pair<std::string, struct stat>> out;
  for (const std::string& in : inputs) {
    struct stat st {};
    if (!in.empty() && ::stat(in.c_str(), &st) == 0) out.emplace_back(in, st);
  }
  return out;
}

// True when `inner` is `outer` or below it, comparing the resolved paths component by component.
bool isAtOrBelow(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

fs::path resolved(const std::string& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::absolute(p, ec).lexically_normal() : r;
}

std::string randomSuffix() {
  std::uint64_t r = 0;
  if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != static_cast<ssize_t>(sizeof(r))) {
    // No entropy yet (early boot): unique enough with the clock and a counter; O_EXCL decides.
    static std::atomic<std::uint64_t> counter{0};
    r = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
        (static_cast<std::uint64_t>(getpid()) << 32) ^ (++counter * 0x9E3779B97F4A7C15ull);
  }
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%012llx", static_cast<unsigned long long>(r & 0xFFFFFFFFFFFFull));
  return buf;
}

}  // namespace

Status requireRegularFile(const std::string& path) {
  const std::string shown = escapeText(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return ioError("file not found: " + shown);
    return ioError("cannot open " + shown + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) return notRegular(shown, st.st_mode);
  return Status::ok();
}

Result<int> openRegularFile(const std::string& path) {
  const std::string shown = escapeText(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return ioError("file not found: " + shown);
    if (errno == ENXIO) return ioError(shown + " is a socket, not a regular file");
    return ioError("cannot open " + shown + ": " + std::strerror(errno));
  }
  struct stat st {};
  Status problem;
  if (fstat(fd, &st) != 0) problem = ioError("cannot read " + shown + ": " + std::strerror(errno));
  else if (!S_ISREG(st.st_mode)) problem = notRegular(shown, st.st_mode);
  else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
    problem = ioError("cannot read " + shown + ": " + std::strerror(errno));
  if (!problem.isOk()) {
    ::close(fd);
    return problem;
  }
  return fd;
}

Status checkOutputFile(const std::string& path, const OutputRules& rules) {
  if (path.empty()) return invalidArgument("the output file path is empty");
  const std::string shown = escapeText(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Status::ok();  // new (or a dangling link: replaced, not followed)
  if (!S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return ioError("cannot write " + shown + ": it is a folder");
    return ioError("cannot write " + shown + ": it is " + kindOf(st.st_mode) + ", not a regular file");
  }
  for (const auto& [in, ist] : existingInputs(rules.inputs)) {
    if (sameFile(st, ist)) {
      return ioError("cannot write " + shown + ": it is " +
                     (in == path ? std::string("an input of this command")
                                 : "the input " + escapeText(in) + " of this command") +
                     " and would be overwritten");
    }
  }
  if (!rules.replace) return ioError(shown + " already exists: not replaced" + rules.forceHint);
  return Status::ok();
}

Status checkOutputFolder(const std::string& dir, const std::vector<std::string>& names, const OutputRules& rules) {
  if (dir.empty()) return invalidArgument("the output folder path is empty");
  const std::string shown = escapeText(dir);
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    return ioError("cannot write into " + shown + ": it is " + kindOf(st.st_mode) + ", not a folder");
  const auto inputs = existingInputs(rules.inputs);
  std::vector<std::string> existing;
  for (const std::string& name : names) {
    const fs::path target = fs::path(dir) / name;
    const fs::path resolvedTarget = resolved(target.string());
    struct stat tst {};
    const bool exists = ::lstat(target.c_str(), &tst) == 0;
    if (exists) ::stat(target.c_str(), &tst);  // a link is judged by what it names
    for (const auto& [in, ist] : inputs) {
      if ((exists && sameFile(tst, ist)) || isAtOrBelow(resolved(in), resolvedTarget)) {
        return ioError("cannot write " + escapeText(target.string()) + ": the input " + escapeText(in) +
                       " of this command is there and would be overwritten; choose another folder");
      }
    }
    if (exists) existing.push_back(name);
  }
  if (!rules.replace && !existing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < existing.size(); ++i) list += (i ? ", " : "") + escapeText(existing[i]);
    return ioError(shown + " already holds " + list + ": not replaced" + rules.forceHint);
  }
  return Status::ok();
}

Result<std::string> readFileText(const std::string& path, std::uintmax_t size) {
  auto fd = openRegularFile(path);
  if (!fd.ok()) return fd.status();
  std::string text(static_cast<std::size_t>(size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd.value(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd.value());
      return ioError("cannot read " + escapeText(path) + ": " + std::strerror(err));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd.value());
  text.resize(got);
  return text;
}

// ---------------------------------------------------------------- AtomicFile

AtomicFile::~AtomicFile() { discard(); }

AtomicFile::AtomicFile(AtomicFile&& o) noexcept { *this = std::move(o); }

AtomicFile& AtomicFile::operator=(AtomicFile&& o) noexcept {
  if (this != &o) {
    discard();
    m_fd = std::exchange(o.m_fd, -1);
    m_path = std::move(o.m_path);
    m_tmp = std::exchange(o.m_tmp, std::string());
    m_shown = std::move(o.m_shown);
    m_buffer = std::move(o.m_buffer);
    m_written = o.m_written;
    m_status = std::move(o.m_status);
  }
  return *this;
}

void AtomicFile::discard() {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
  if (!m_tmp.empty()) ::unlink(m_tmp.c_str());
  m_tmp.clear();
}

Result<AtomicFile> AtomicFile::create(const std::string& path, const OutputRules& rules) {
  DPLDA_RETURN_IF_ERROR(checkOutputFile(path, rules));
  AtomicFile f;
  f.m_path = path;
  f.m_shown = escapeText(path);
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::string leaf = p.filename().string();
  for (int attempt = 0; attempt < 100 && f.m_fd < 0; ++attempt) {
    const std::string tmp = (dir / ("." + leaf + "." + randomSuffix() + ".tmp")).string();
    f.m_fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (f.m_fd >= 0) f.m_tmp = tmp;
    else if (errno != EEXIST) return ioError("cannot create " + f.m_shown + ": " + std::strerror(errno));
  }
  if (f.m_fd < 0) return ioError("cannot create a temporary file beside " + f.m_shown);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) fchmod(f.m_fd, st.st_mode & 07777);  // keep its mode
  return f;
}

Status AtomicFile::fail(const std::string& what, int err) {
  if (m_status.isOk()) m_status = ioError("cannot " + what + " " + m_shown + ": " + std::strerror(err));
  return m_status;
}

Status AtomicFile::writeAll(const char* p, std::size_t n) {
  while (m_status.isOk() && n > 0) {
    const ssize_t w = ::write(m_fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return fail("write", w < 0 ? errno : ENOSPC);
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return m_status;
}

Status AtomicFile::flush() {
  writeAll(m_buffer.data(), m_buffer.size());
  m_buffer.clear();
  return m_status;
}

Status AtomicFile::write(std::string_view bytes) {
  if (m_fd < 0 && m_status.isOk()) m_status = ioError("cannot write " + m_shown + ": the file is not open");
  if (!m_status.isOk()) return m_status;
  m_written += bytes.size();
  constexpr std::size_t kBuffer = 1 << 20;
  if (bytes.size() >= kBuffer) {  // large blocks go straight through
    DPLDA_RETURN_IF_ERROR(flush());
    return writeAll(bytes.data(), bytes.size());
  }
  m_buffer.append(bytes);
  return m_buffer.size() >= kBuffer ? flush() : m_status;
}

Status AtomicFile::writeAt(std::uint64_t offset, const void* data, std::size_t size) {
  if (!m_status.isOk()) return m_status;
  if (offset + size > m_written) return fail("write", EINVAL);
  DPLDA_RETURN_IF_ERROR(flush());
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t w = ::pwrite(m_fd, p, size, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return fail("write", w < 0 ? errno : ENOSPC);
    p += w;
    offset += static_cast<std::uint64_t>(w);
    size -= static_cast<std::size_t>(w);
  }
  return m_status;
}

Status AtomicFile::commit(bool sync) {
  if (m_fd < 0 && m_status.isOk()) m_status = ioError("cannot write " + m_shown + ": the file is not open");
  flush();
  if (m_status.isOk() && sync && ::fsync(m_fd) != 0) fail("write", errno);
  if (m_fd >= 0) {
    const int closed = ::close(m_fd);
    m_fd = -1;
    if (closed != 0) fail("write", errno);
  }
  if (m_status.isOk() && std::rename(m_tmp.c_str(), m_path.c_str()) != 0) fail("write", errno);
  if (!m_status.isOk()) {
    discard();
    return m_status;
  }
  m_tmp.clear();  // renamed: nothing to remove
  return Status::ok();
}

Status writeFileAtomically(const std::string& path, std::string_view bytes, const OutputRules& rules) {
  auto f = AtomicFile::create(path, rules);
  if (!f.ok()) return f.status();
  DPLDA_RETURN_IF_ERROR(f->write(bytes));
  return f->commit();
}

}  // namespace dplda
