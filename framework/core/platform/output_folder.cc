#include "core/platform/output_folder.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <deque>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "bankcheck/core/error.h"
#include "core/platform/environment.h"

namespace bankcheck {
namespace {

constexpr const char* kSafeDirectories = "BANKCHECK_SAFE_DIRECTORIES";
constexpr int kMaxLinks = 40;  // the kernel's own limit on the links of one path (MAXSYMLINKS)

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

// The parts of a path between its '/'s, empty ones left out.
std::deque<std::string> Components(const std::string& path) {
  std::deque<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = std::min(path.find('/', start), path.size());
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// The folders BANKCHECK_SAFE_DIRECTORIES names: "DIR" that folder, "DIR/*" it and every folder
// below it; compared with a folder's path without links.
class SafeDirectories {
 public:
  SafeDirectories() {
    for (std::string entry : AbsolutePathListFromEnvironment(kSafeDirectories)) {
      const bool tree = entry.size() >= 2 && entry.compare(entry.size() - 2, 2, "/*") == 0;
      if (tree) entry.resize(entry.size() - 1);
      std::string folder = std::filesystem::path(entry).lexically_normal().string();
      while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
      (tree ? trees_ : folders_).push_back(folder);
    }
  }
  bool Contains(const std::string& folder) const {
    for (const std::string& safe : folders_)
      if (folder == safe) return true;
    for (const std::string& root : trees_) {
      if (folder == root || root == "/" ||
          (folder.compare(0, root.size(), root) == 0 && folder.size() > root.size() &&
           folder[root.size()] == '/'))
        return true;
    }
    return false;
  }

 private:
  std::vector<std::string> folders_;
  std::vector<std::string> trees_;
};

// What a refused folder or link's message ends with when the user may trust it by name.
std::string TrustAdvice(const std::string& folder) {
  return "; use a folder of your own, or, if you trust whoever may change it, add " + folder + " to " +
         kSafeDirectories + " (paths separated by ':')";
}

}  // namespace

std::string OthersMayChange(const struct stat& status) {
  if (status.st_uid != 0 && status.st_uid != ::geteuid())
    return "it belongs to another user (uid " + std::to_string(status.st_uid) + "), not to you or root";
  const bool sticky_folder = S_ISDIR(status.st_mode) && (status.st_mode & S_ISVTX) != 0;
  if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !sticky_folder) {
    return "others may write to it (mode " + Octal(status.st_mode) +
           (S_ISDIR(status.st_mode) ? ", not sticky)" : ")");
  }
  return "";
}

namespace {

// Why bankcheck must not write under the folder `status` describes, or "" when it may: only root
// and the caller may rename or replace what is in a folder on the way (see output_folder.h).
std::string Untrusted(const struct stat& status, const std::string& folder) {
  if (!S_ISDIR(status.st_mode)) return "it is not a folder";
  const std::string why = OthersMayChange(status);
  if (why.empty()) return "";
  const bool owners = status.st_uid == 0 || status.st_uid == ::geteuid();
  return why + ", so another user could swap what is in it" +
         (owners ? "; make it writable by its owner alone (chmod go-w " + folder + ")" : "") +
         TrustAdvice(folder);
}

// Why the link `link` describes must not be followed, or "" when it may: nobody but root and the
// caller can have made it (the folder holding it passed Untrusted, or is named trusted).
std::string UnfollowableLink(const struct stat& link) {
  if (link.st_uid != 0 && link.st_uid != ::geteuid()) {
    return "of another user (uid " + std::to_string(link.st_uid) +
           "), who could point it anywhere: bankcheck follows only links of yours or root's; remove it, or "
           "give a path without it";
  }
  return "";
}

// One walk: the folder open now, reached from `/`, and its path, which holds no link.
class Walker {
 public:
  // `what`: "cannot write F" (or "cannot use the folder F"); `refusing`: "refusing to write F"
  // (or "refusing to write under F"); `missing`: the message when a folder on the way is absent.
  Walker(std::string what, std::string refusing, std::string missing, bool create)
      : what_(std::move(what)),
        refusing_(std::move(refusing)),
        missing_(std::move(missing)),
        create_(create) {
    Root();
  }

  // Walks `parts` from the folder open now (see output_folder.h).
  void Walk(std::deque<std::string> parts) {
    while (!parts.empty()) {
      const std::string part = std::move(parts.front());
      parts.pop_front();
      if (part == ".") continue;
      if (part == "..") {
        Enter("..", at_.parent_path());
        continue;
      }
      const std::filesystem::path path = at_ / part;
      struct stat entry {};
      if (::fstatat(current_.fd, part.c_str(), &entry, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT)
          Fail(what_ + ": cannot examine " + path.string() + " (" + ErrnoText(errno) + ")");
        if (!create_) Fail(missing_);
        if (::mkdirat(current_.fd, part.c_str(), 0755) != 0 && errno != EEXIST) {
          Fail("cannot create the folder " + path.string() + " (" + ErrnoText(errno) +
               "); is its parent writable?");
        }
        if (::fstatat(current_.fd, part.c_str(), &entry, AT_SYMLINK_NOFOLLOW) != 0)
          Fail(what_ + ": cannot examine " + path.string() + " (" + ErrnoText(errno) + ")");
      }
      if (S_ISLNK(entry.st_mode)) {
        const std::string target = ReadLink(part, entry, path);
        if (target[0] == '/') Root();
        std::deque<std::string> inserted = Components(target);
        parts.insert(parts.begin(), inserted.begin(), inserted.end());
        continue;
      }
      if (!S_ISDIR(entry.st_mode)) Fail(what_ + ": " + path.string() + " is not a folder");
      Enter(part, path);
    }
  }

  int fd() const { return current_.fd; }
  int Release() { return current_.Release(); }

 private:
  [[noreturn]] static void Fail(const std::string& message) { throw Error(ErrorKind::kBadInput, message); }

  void Root() { Open(::open("/", kFlags), "/"); }

  void Enter(const std::string& name, const std::filesystem::path& path) {
    Open(::openat(current_.fd, name.c_str(), kFlags), path);
  }

  // Makes `fd`, the folder `path`, the one open now, once it passes the check.
  void Open(int fd, const std::filesystem::path& path) {
    if (fd < 0) {
      const int open_errno = errno;
      Fail(what_ + ": cannot open the folder " + path.string() + " (" + ErrnoText(open_errno) + ")" +
           (open_errno == ELOOP || open_errno == ENOTDIR ? "; was it replaced while bankcheck walked it?"
                                                         : ""));
    }
    if (current_.fd >= 0) ::close(current_.fd);
    current_.fd = fd;
    at_ = path;
    struct stat status {};
    std::string why = ::fstat(fd, &status) != 0 ? "cannot be examined (" + ErrnoText(errno) + ")"
                                                : Untrusted(status, path.string());
    if (!why.empty() && safe_.Contains(path.string())) why.clear();
    if (!why.empty()) Fail(refusing_ + ": " + path.string() + ": " + why);
  }

  // The target of the link `name` (described by `link`) of the folder open now, when the rule lets
  // bankcheck follow it.
  std::string ReadLink(const std::string& name, const struct stat& link, const std::filesystem::path& path) {
    if (++links_ > kMaxLinks) {
      Fail(refusing_ + ": more than " + std::to_string(kMaxLinks) + " symbolic links on the way (the last " +
           path.string() + "): links that lead to each other in a loop? Give the real folder's path");
    }
    const std::string why = UnfollowableLink(link);
    if (!why.empty()) Fail(refusing_ + ": " + path.string() + " is a symbolic link " + why);
    char target[PATH_MAX];
    const ssize_t size = ::readlinkat(current_.fd, name.c_str(), target, sizeof target);
    if (size < 0) Fail(what_ + ": cannot read the link " + path.string() + " (" + ErrnoText(errno) + ")");
    if (size == 0 || static_cast<size_t>(size) >= sizeof target) {
      Fail(what_ + ": the link " + path.string() + " has " +
           (size == 0 ? "an empty target" : "too long a target"));
    }
    return std::string(target, static_cast<size_t>(size));
  }

  // O_PATH: walking needs search permission only, not read (a 0711 folder on the way).
  static constexpr int kFlags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

  const std::string what_;
  const std::string refusing_;
  const std::string missing_;
  const bool create_;
  const SafeDirectories safe_;
  Descriptor current_;
  std::filesystem::path at_;
  int links_ = 0;
};

// The current folder's path as the user sees it: $PWD when it is absolute and names the current
// folder (`here`), as a shell keeps it after `cd` into a link; else getcwd()'s, which has no link.
std::string CurrentFolderPath(const struct stat& here, const std::string& what) {
  if (std::string pwd = PwdNaming(here); !pwd.empty()) return pwd;
  std::vector<char> buffer(PATH_MAX);
  if (::getcwd(buffer.data(), buffer.size()) == nullptr) {
    throw Error(ErrorKind::kBadInput, what + ": cannot tell the current folder's path (" + ErrnoText(errno) +
                                          "); give an absolute path");
  }
  return buffer.data();
}

}  // namespace

OutputFolder::OutputFolder(OutputFolder&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

OutputFolder::~OutputFolder() {
  if (fd_ >= 0) ::close(fd_);
}

OutputFolder OutputFolder::Open(const std::filesystem::path& folder, const std::filesystem::path& writing) {
  return Walk(folder, false, writing, "write");
}

OutputFolder OutputFolder::Create(const std::filesystem::path& folder) {
  return Walk(folder, true, {}, "write");
}

OutputFolder OutputFolder::Walk(const std::filesystem::path& folder, bool create,
                                const std::filesystem::path& writing, const std::string& verb) {
  const std::filesystem::path given = folder.empty() ? "." : folder;
  std::string what =
      writing.empty() ? "cannot use the folder " + given.string() : "cannot " + verb + " " + writing.string();
  std::string refusing = writing.empty() ? "refusing to write under " + given.string()
                                         : "refusing to " + verb + " " + writing.string();
  // Lexically: "a/../b" is "b" as written, never a trip through whatever "a" is.
  const std::filesystem::path wanted = given.lexically_normal();
  struct stat here {};
  std::string start = "/";
  if (!wanted.is_absolute()) {
    if (::stat(".", &here) != 0) {
      throw Error(ErrorKind::kBadInput, what + ": cannot examine the current folder (" + ErrnoText(errno) +
                                            "); give an absolute path");
    }
    start = CurrentFolderPath(here, what);
    const std::string from = " (from the current folder, " + start + ")";
    what += from;
    refusing += from;
  }
  const std::string missing = what + (writing.empty() ? ": the folder " : ": its folder ") + given.string() +
                              " does not exist; create it first" +
                              (writing.empty() || verb != "write" ? "" : "; the file was not written");
  Walker walker(what, refusing, missing, create);
  if (!wanted.is_absolute()) {
    walker.Walk(Components(start));
    struct stat reached {};
    if (::fstat(walker.fd(), &reached) != 0 || reached.st_dev != here.st_dev ||
        reached.st_ino != here.st_ino) {
      throw Error(ErrorKind::kBadInput,
                  what + ": " + start +
                      " leads to another folder than the current one now (was it moved?); "
                      "run again, or give an absolute path");
    }
  }
  walker.Walk(Components(wanted.string()));
  // The folder itself, readable where it may be (fsync needs it); "." of its own descriptor, so
  // it is the folder checked.
  const int readable = ::openat(walker.fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (readable >= 0) {
    ::close(walker.Release());
    return OutputFolder(readable, folder);
  }
  return OutputFolder(walker.Release(), folder);
}

std::string OthersMayChangeFile(const std::filesystem::path& file, const std::string& verb) {
  try {
    const OutputFolder folder = OutputFolder::Walk(file.parent_path(), false, file, verb);
    const std::string name = file.filename().string();
    struct stat status {};
    std::string why;
    if (::fstatat(folder.fd(), name.c_str(), &status, AT_SYMLINK_NOFOLLOW) != 0)
      why = "it cannot be examined (" + ErrnoText(errno) + ")";
    else if (S_ISLNK(status.st_mode))
      why = "it is a symbolic link";
    else if (!S_ISREG(status.st_mode))
      why = "it is not a regular file";
    else
      why = OthersMayChange(status);
    return why.empty() ? "" : "refusing to " + verb + " " + file.string() + ": " + why;
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace bankcheck
