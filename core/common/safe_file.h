#pragma once
// Files that are never lost and never waited on (issue 28). The one way the project reads a
// named input and writes an output:
//
// Inputs are regular files. A FIFO, a device, a socket or a folder where a file is expected is
// refused with a message naming it ("X is a FIFO (named pipe), not a regular file"): opening a
// FIFO for reading waits for a writer forever, /dev/zero never ends.
//
// Outputs are written atomically: the bytes go to a new temporary file in the same folder,
// created exclusively (O_CREAT | O_EXCL | O_NOFOLLOW, a random name: a file or link planted
// under a guessed name is never opened), every write and the close are checked (a full disk is
// an error, not a short file), and the file is renamed over the destination only when complete.
// A reader sees the old file or the new one; an error leaves the old one untouched. Refused
// before anything is written: an output that is one of the command's own inputs (the same file,
// also through a link or a second name), and a destination that exists and is not a regular file
// (a folder, /dev/full, a FIFO). Replacing an existing destination is the caller's decision
// (OutputRules::replace): a folder that already holds what would be written is refused unless
// the user said so (--force).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"

namespace dplda {

// IoError unless `path` names a regular file (links followed): "file not found: X",
// "X is a folder, not a file", "X is a FIFO (named pipe), not a regular file", ... Never blocks.
Status requireRegularFile(const std::string& path);

// Opens `path` for reading without blocking (O_NONBLOCK: a FIFO is not waited on) and returns the
// descriptor (O_CLOEXEC, blocking again) when it is a regular file; the messages of
// requireRegularFile otherwise, or "cannot open X: why".
Result<int> openRegularFile(const std::string& path);

// At most `size` bytes of the regular file `path` (fewer when it is shorter), read through
// openRegularFile: the readers check the size and the memory it takes first, then read.
Result<std::string> readFileText(const std::string& path, std::uintmax_t size);

struct OutputRules {
  // Files the command reads: never written over, whatever name the output is given.
  std::vector<std::string> inputs;
  // An existing output may be replaced. False: refused, and the message ends with `forceHint`
  // (the command line's "; give --force to replace it").
  bool replace = true;
  std::string forceHint;
};

// The checks of an output file without writing it: refuses an empty path, a destination that
// exists and is not a regular file, one of rules.inputs, and (rules.replace false) any existing
// destination.
Status checkOutputFile(const std::string& path, const OutputRules& rules = {});

// A folder that will receive `names` (files or subfolders written by one command): refuses when
// `dir` exists and is not a folder, when one of rules.inputs is dir/NAME or lies below it (a
// corpus read from the folder being written), and (rules.replace false) when one of the names
// already exists there, saying which. Nothing is created.
Status checkOutputFolder(const std::string& dir, const std::vector<std::string>& names,
                         const OutputRules& rules = {});

// An output being written: create (the checks of checkOutputFile), write, commit. Destroyed
// without commit (an error on the way), the temporary file is removed and the destination stays
// as it was.
class AtomicFile {
 public:
  AtomicFile() = default;
  ~AtomicFile();
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  static Result<AtomicFile> create(const std::string& path, const OutputRules& rules = {});

  // Appends (buffered); the first failure is kept and returned by every later call and commit.
  Status write(std::string_view bytes);
  Status write(const void* data, std::size_t size) { return write({static_cast<const char*>(data), size}); }
  // Writes at `offset` of what was written so far (e.g. a header completed at the end).
  Status writeAt(std::uint64_t offset, const void* data, std::size_t size);
  std::uint64_t written() const { return m_written; }
  // Flushes, syncs to the disk when `sync` (a derived file such as the corpus cache can skip
  // it: a cache lost in a crash is rebuilt), closes and renames over the destination.
  Status commit(bool sync = true);

  const std::string& path() const { return m_path; }
  const std::string& temporaryPath() const { return m_tmp; }

 private:
  Status flush();
  Status writeAll(const char* data, std::size_t size);
  Status fail(const std::string& what, int err);
  void discard();
  int m_fd = -1;
  std::string m_path, m_tmp, m_shown;
  std::string m_buffer;
  std::uint64_t m_written = 0;
  Status m_status;
};

// create + write + commit.
Status writeFileAtomically(const std::string& path, std::string_view bytes, const OutputRules& rules = {});

}  // namespace dplda
