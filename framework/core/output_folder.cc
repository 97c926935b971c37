#include "core/internal/output_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <system_error>
#include <utility>

#include "bankcheck/error.h"

namespace bankcheck {
namespace {

std::string ErrnoText(int error_number) { return std::generic_category().message(error_number); }

std::string Octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Closes a descriptor unless released.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
  int Release() { return std::exchange(fd, -1); }
};

// Why bankcheck must not write under the folder `status` describes, or "" when it may: only root
// and the caller may rename or replace what is in a folder on the way (see output_folder.h).
std::string Untrusted(const struct stat& status) {
  if (!S_ISDIR(status.st_mode)) return "it is not a folder";
  if (status.st_uid == ::geteuid()) return "";
  if (status.st_uid != 0) {
    return "it belongs to another user (uid " + std::to_string(status.st_uid) +
           "), not to you or root, who could swap what bankcheck writes there; use a folder of your own";
  }
  if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (status.st_mode & S_ISVTX) == 0) {
    return "others may write to it (mode " + Octal(status.st_mode) +
           ", not sticky) and swap what bankcheck writes there; use a folder of your own";
  }
  return "";
}

}  // namespace

OutputFolder::OutputFolder(OutputFolder&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

OutputFolder::~OutputFolder() {
  if (fd_ >= 0) ::close(fd_);
}

OutputFolder OutputFolder::Open(const std::filesystem::path& folder, const std::filesystem::path& writing) {
  return Walk(folder, false, writing);
}

OutputFolder OutputFolder::Create(const std::filesystem::path& folder) { return Walk(folder, true, {}); }

OutputFolder OutputFolder::Walk(const std::filesystem::path& folder, bool create,
                                const std::filesystem::path& writing) {
  const std::filesystem::path given = folder.empty() ? "." : folder;
  const std::string what =
      writing.empty() ? "cannot use the folder " + given.string() : "cannot write " + writing.string();
  const std::string refusing =
      writing.empty() ? "refusing to write under " + given.string() : "refusing to write " + writing.string();
  // Lexically: "a/../b" is "b" as written, never a trip through whatever "a" is.
  const std::filesystem::path wanted = given.lexically_normal();
  std::filesystem::path shown = wanted.is_absolute() ? wanted.root_path() : std::filesystem::path(".");
  // O_PATH: walking needs search permission only, not read (a 0711 folder on the way).
  const int flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  Descriptor current{::open(shown.c_str(), flags)};
  if (current.fd < 0) {
    throw Error(ErrorKind::kBadInput,
                what + ": cannot open " + shown.string() + " (" + ErrnoText(errno) + ")");
  }
  const auto check = [&](const std::filesystem::path& at) {
    struct stat status {};
    std::string why = ::fstat(current.fd, &status) != 0 ? "cannot be examined (" + ErrnoText(errno) + ")"
                                                        : Untrusted(status);
    if (!why.empty()) {
      throw Error(ErrorKind::kBadInput,
                  refusing + ": " + (at == "." ? "the current folder" : at.string()) + ": " + why);
    }
  };
  check(shown);
  for (const std::filesystem::path& part : wanted.relative_path()) {
    if (part.empty() || part == ".") continue;  // a trailing '/'
    shown = shown == "." ? part : shown / part;
    int next = ::openat(current.fd, part.c_str(), flags);
    if (next < 0 && errno == ENOENT && create) {
      if (::mkdirat(current.fd, part.c_str(), 0755) != 0 && errno != EEXIST) {
        throw Error(ErrorKind::kBadInput, "cannot create the folder " + shown.string() + " (" +
                                              ErrnoText(errno) + "); is its parent writable?");
      }
      next = ::openat(current.fd, part.c_str(), flags);
    }
    if (next < 0) {
      const int open_errno = errno;
      struct stat status {};
      const bool link =
          ::fstatat(current.fd, part.c_str(), &status, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(status.st_mode);
      if (link) {
        throw Error(ErrorKind::kBadInput,
                    refusing + ": " + shown.string() +
                        " is a symbolic link, and bankcheck follows no link on the way to what it writes "
                        "(one planted there could lead anywhere); give the real folder's path (realpath)");
      }
      if (open_errno == ENOENT) {
        throw Error(ErrorKind::kBadInput, what + (writing.empty() ? ": the folder " : ": its folder ") +
                                              given.string() + " does not exist; create it first" +
                                              (writing.empty() ? "" : "; the file was not written"));
      }
      if (open_errno == ENOTDIR) {
        throw Error(ErrorKind::kBadInput, what + ": " + shown.string() + " is not a folder");
      }
      throw Error(ErrorKind::kBadInput,
                  what + ": cannot open the folder " + shown.string() + " (" + ErrnoText(open_errno) + ")");
    }
    ::close(current.fd);
    current.fd = next;
    check(shown);
  }
  // The folder itself, readable where it may be (fsync needs it); "." of its own descriptor, so
  // it is the folder checked.
  const int readable = ::openat(current.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (readable >= 0) {
    ::close(current.fd);
    current.fd = readable;
  }
  return OutputFolder(current.Release(), folder);
}

}  // namespace bankcheck
