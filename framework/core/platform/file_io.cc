#include "core/platform/file_io.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <system_error>
#include <utility>

#include "bankcheck/core/error.h"
#include "bankcheck/core/limits.h"

namespace bankcheck {
namespace {

std::string ErrnoText(int error_number) { return std::generic_category().message(error_number); }

// Appends ". advice" unless there is no advice.
std::string WithAdvice(std::string message, const std::string& advice) {
  if (!advice.empty()) message += ". " + advice;
  return message;
}

// Closes a descriptor on every path out of a function.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// The mode a replacement of `name` keeps (the old file's, never world-writable), or none when
// there is no such file. Refuses a symbolic link (never written through, docs/security.md) and
// anything but a regular file.
std::optional<mode_t> ModeOfExistingTarget(int folder_fd, const std::string& name,
                                           const std::filesystem::path& target) {
  struct stat status {};
  if (::fstatat(folder_fd, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw Error(ErrorKind::kBadInput, "cannot write " + target.string() + " (" + ErrnoText(errno) + ")");
  }
  if (S_ISLNK(status.st_mode)) {
    throw Error(ErrorKind::kBadInput, "refusing to write " + target.string() +
                                          ": it is a symbolic link, which bankcheck never writes through; "
                                          "remove the link or write to another path");
  }
  if (!S_ISREG(status.st_mode)) {
    throw Error(ErrorKind::kBadInput, "refusing to write " + target.string() +
                                          ": it exists and is not a regular file; remove it or write to "
                                          "another path");
  }
  return status.st_mode & 0777 & ~static_cast<mode_t>(S_IWOTH);
}

// "<name>.tmp.<16 random hex digits>": a name another user cannot guess in advance.
std::string TemporaryName(const std::string& name) {
  static std::random_device random;
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%08x%08x", random(), random());
  return name + ".tmp." + suffix;
}

// Creates a fresh temporary for `name` in the folder (O_EXCL: never an existing file or link),
// with `mode` (less the umask); returns its descriptor and sets `temporary` to its name.
int CreateTemporary(int folder_fd, const std::string& name, mode_t mode, const std::filesystem::path& target,
                    std::string& temporary) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporary = TemporaryName(name);
    const int fd =
        ::openat(folder_fd, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0) return fd;
    if (errno != EEXIST) {
      throw Error(ErrorKind::kBadInput, "cannot create a temporary file beside " + target.string() + " (" +
                                            ErrnoText(errno) + "); is its folder writable?");
    }
  }
  throw Error(ErrorKind::kBadInput,
              "cannot create a temporary file beside " + target.string() + ": every name tried was taken");
}

}  // namespace

std::string ReadTextFile(const std::filesystem::path& path, const std::string& advice) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw Error(ErrorKind::kBadInput, WithAdvice(path.string() + ": is a folder, not a file", advice));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::kBadInput,
                WithAdvice(path.string() + ": cannot be read (" + ErrnoText(errno) + ")", advice));
  }
  // Read in chunks, at most one byte past the limit: the size a stat reports says nothing about a
  // pipe or a device such as /dev/zero.
  std::string text;
  char chunk[1 << 16];
  while (in && text.size() <= kMaxInputFileBytes) {
    in.read(chunk, sizeof chunk);
    text.append(chunk, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) {
    throw Error(ErrorKind::kBadInput, WithAdvice(path.string() + ": read error", advice));
  }
  if (text.size() > kMaxInputFileBytes) {
    throw Error(ErrorKind::kBadInput,
                path.string() + ": larger than " + std::to_string(kMaxInputFileBytes >> 20) +
                    " MiB, the most bankcheck reads (limits.h, docs/security.md); is it the right file?");
  }
  return text;
}

bool WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t written = ::write(fd, content.data(), content.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<size_t>(written));
  }
  return true;
}

void WriteFileAtomically(const std::filesystem::path& path, const std::string& content) {
  const std::string name = path.filename().string();
  if (name.empty() || name == "." || name == "..") {
    throw Error(ErrorKind::kBadInput, "cannot write " + path.string() + ": it names a folder, not a file");
  }
  WriteFileIn(OutputFolder::Open(path.has_parent_path() ? path.parent_path() : ".", path), name, content);
}

void WriteFileIn(const OutputFolder& output, const std::string& name, const std::string& content) {
  const std::filesystem::path path = output.path() / name;
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    throw Error(ErrorKind::kBadInput, "cannot write " + path.string() + ": it names no file of the folder");
  }
  const int folder_fd = output.fd();
  const std::optional<mode_t> old_mode = ModeOfExistingTarget(folder_fd, name, path);
  std::string temporary;
  Descriptor file{CreateTemporary(folder_fd, name, old_mode ? 0600 : 0644, path, temporary)};
  // Removes the temporary and reports the step that failed, with the errno it left. The message
  // names the path the user gave, never the temporary's internal name.
  const auto fail = [&](const char* step) {
    const int error_number = errno;
    ::unlinkat(folder_fd, temporary.c_str(), 0);
    throw Error(ErrorKind::kBadInput, "cannot write " + path.string() + ": " + step +
                                          " its temporary copy in the same folder failed (" +
                                          ErrnoText(error_number) + "); " + path.string() +
                                          " was left unchanged");
  };
  if (old_mode && ::fchmod(file.fd, *old_mode) != 0) fail("setting the mode of");
  if (!WriteAll(file.fd, content) || ::fsync(file.fd) != 0) fail("writing");
  if (::close(std::exchange(file.fd, -1)) != 0) fail("writing");
  try {
    ModeOfExistingTarget(folder_fd, name, path);  // a link planted meanwhile is refused, not replaced
  } catch (const Error&) {
    ::unlinkat(folder_fd, temporary.c_str(), 0);
    throw;
  }
  if (::renameat(folder_fd, temporary.c_str(), folder_fd, name.c_str()) != 0) fail("renaming");
  ::fsync(folder_fd);  // best effort: the rename itself already happened
}

bool RemoveFileIn(const OutputFolder& folder, const std::string& name) {
  if (::unlinkat(folder.fd(), name.c_str(), 0) == 0) return true;
  if (errno == ENOENT) return false;
  throw Error(ErrorKind::kBadInput,
              "cannot remove " + (folder.path() / name).string() + " (" + ErrnoText(errno) + ")");
}

void CreateOutputFolders(const std::filesystem::path& folder) { OutputFolder::Create(folder); }

bool AppendToExistingFile(const std::filesystem::path& path, const std::string& text) {
  const Descriptor file{::open(path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)};
  struct stat status {};
  return file.fd >= 0 && ::fstat(file.fd, &status) == 0 && S_ISREG(status.st_mode) && WriteAll(file.fd, text);
}

namespace {
// Refuses what `fd` opened at a lock path unless it is a regular file of one link.
void CheckLockFile(int fd, const std::filesystem::path& shown_path) {
  struct stat status {};
  std::string why;
  if (::fstat(fd, &status) != 0) {
    why = "cannot be examined (" + ErrnoText(errno) + ")";
  } else if (!S_ISREG(status.st_mode)) {
    why = "it is not a regular file";
  } else if (status.st_nlink != 1) {
    why = "it has " + std::to_string(status.st_nlink) +
          " hard links, so it may be another file's second name (someone may have planted it)";
  }
  if (why.empty()) return;
  ::close(fd);
  throw Error(ErrorKind::kBadInput, "refusing to use the lock file " + shown_path.string() + ": " + why +
                                        "; remove it and run again");
}
}  // namespace

int OpenLockFileAt(int folder_fd, const std::string& name, const std::filesystem::path& shown_path,
                   mode_t mode) {
  // A few tries: the file may be removed between a create that finds it and the open that follows.
  for (int attempt = 0; attempt < 10; ++attempt) {
    int fd = ::openat(folder_fd, name.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0) {
      if (::fchmod(fd, mode) != 0) {
        const int error_number = errno;
        ::close(fd);
        throw Error(ErrorKind::kBadInput, "cannot set the mode of the lock file " + shown_path.string() +
                                              " (" + ErrnoText(error_number) + ")");
      }
      CheckLockFile(fd, shown_path);
      return fd;
    }
    if (errno != EEXIST) {
      throw Error(ErrorKind::kBadInput, "cannot create the lock file " + shown_path.string() + " (" +
                                            ErrnoText(errno) + "); is its folder writable?");
    }
    // O_NONBLOCK: a FIFO planted there must not block the open (CheckLockFile refuses it).
    fd = ::openat(folder_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      CheckLockFile(fd, shown_path);
      return fd;
    }
    if (errno == ENOENT) continue;
    if (errno == ELOOP) {
      throw Error(ErrorKind::kBadInput, "refusing to use the lock file " + shown_path.string() +
                                            ": it is a symbolic link, which bankcheck never follows "
                                            "(someone may have planted it); remove it and run again");
    }
    throw Error(ErrorKind::kBadInput, "cannot open the lock file " + shown_path.string() + " (" +
                                          ErrnoText(errno) + "); remove it or ask its owner to");
  }
  throw Error(ErrorKind::kBadInput,
              "cannot open the lock file " + shown_path.string() + ": it keeps disappearing; run again");
}

ExclusiveFileLock::ExclusiveFileLock(const std::filesystem::path& path)
    : ExclusiveFileLock(OutputFolder::Open(path.has_parent_path() ? path.parent_path() : ".", path),
                        path.filename().string()) {}

ExclusiveFileLock::ExclusiveFileLock(const OutputFolder& folder, const std::string& name) {
  const std::filesystem::path path = folder.path() / name;
  fd_ = OpenLockFileAt(folder.fd(), name, path, 0644);
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int lock_errno = errno;
    ::close(fd_);
    throw Error(ErrorKind::kBadInput, "cannot lock " + path.string() + " (" + ErrnoText(lock_errno) + ")");
  }
}

ExclusiveFileLock::~ExclusiveFileLock() {
  // Closing the descriptor releases the lock.
  ::close(fd_);
}

void AppendToFile(const std::filesystem::path& path, const std::string& text) {
  // The folder is reached as every writer reaches its folder (OutputFolder: no link on the way,
  // folders of root or the caller only), and the file opened relative to it.
  const std::string name = path.filename().string();
  if (name.empty() || name == "." || name == "..") {
    throw Error(ErrorKind::kBadInput, "cannot append to " + path.string() + ": it names no file");
  }
  const OutputFolder folder = OutputFolder::Open(path.parent_path(), path);
  // O_NONBLOCK: a FIFO planted at the path fails to open instead of blocking until a reader comes.
  const Descriptor file{::openat(folder.fd(), name.c_str(),
                                 O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644)};
  if (file.fd < 0) {
    const int open_errno = errno;
    throw Error(ErrorKind::kBadInput,
                "refusing to append to " + path.string() + ": " +
                    (open_errno == ELOOP ? "it is a symbolic link, which bankcheck never "
                                           "follows; remove it or give another path"
                                         : "it cannot be opened (" + ErrnoText(open_errno) +
                                               "); is its folder there and writable?"));
  }
  struct stat status {};
  std::string why;
  if (::fstat(file.fd, &status) != 0)
    why = "it cannot be examined (" + ErrnoText(errno) + ")";
  else if (!S_ISREG(status.st_mode))
    why = "it is not a regular file";
  else if (status.st_nlink != 1)
    why = "it has " + std::to_string(status.st_nlink) +
          " hard links, so it may be another file's second name (someone may have planted it)";
  if (why.empty() && !WriteAll(file.fd, text)) why = "a write failed (" + ErrnoText(errno) + ")";
  if (!why.empty()) throw Error(ErrorKind::kBadInput, "refusing to append to " + path.string() + ": " + why);
}

}  // namespace bankcheck
