#include "bankcheck/file_io.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include "bankcheck/error.h"

namespace bankcheck {
namespace {

std::string ErrnoText(int error_number) { return std::generic_category().message(error_number); }

// Appends ". advice" unless there is no advice.
std::string WithAdvice(std::string message, const std::string& advice) {
  if (!advice.empty()) message += ". " + advice;
  return message;
}

// Writes all of `content` to `fd`, retrying short writes.
bool WriteAll(int fd, const std::string& content) {
  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += written;
    left -= static_cast<size_t>(written);
  }
  return true;
}

void FsyncFolder(const std::filesystem::path& folder) {
  const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the rename itself already happened
  ::fsync(fd);
  ::close(fd);
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
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    throw Error(ErrorKind::kBadInput, WithAdvice(path.string() + ": read error", advice));
  }
  return text.str();
}

void WriteFileAtomically(const std::filesystem::path& path, const std::string& content) {
  const std::filesystem::path temporary = path.string() + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw Error(ErrorKind::kBadInput, "cannot create " + temporary.string() + " (" + ErrnoText(errno) +
                                          "); is the folder writable?");
  }
  const bool written = WriteAll(fd, content) && ::fsync(fd) == 0;
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) {
    ::unlink(temporary.c_str());
    throw Error(ErrorKind::kBadInput, "cannot write " + temporary.string() + " (" +
                                          ErrnoText(written ? errno : write_errno) + "); " + path.string() +
                                          " was left unchanged");
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    ::unlink(temporary.c_str());
    throw Error(ErrorKind::kBadInput, "cannot rename " + temporary.string() + " to " + path.string() + " (" +
                                          ErrnoText(rename_errno) + "); the file was left unchanged");
  }
  FsyncFolder(path.parent_path());
}

ExclusiveFileLock::ExclusiveFileLock(const std::filesystem::path& path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw Error(ErrorKind::kBadInput,
                "cannot open the lock file " + path.string() + " (" + ErrnoText(errno) + ")");
  }
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

}  // namespace bankcheck
