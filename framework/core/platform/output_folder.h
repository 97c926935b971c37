#pragma once
// The folder every file bankcheck writes goes into (file_io.h's writers, the baselines' .lock),
// opened once and used through its descriptor: the folder checked is the folder written to.

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <utility>

namespace bankcheck {

// Why a user other than root and the caller could change what `status` describes (a folder on the
// way to what bankcheck writes, a program it runs from beside itself), or "" when none can: it
// must belong to the caller or to root, and nobody else may write to it, unless it is a sticky
// folder (as /tmp: others may add entries but not rename or remove ours). The one ownership rule
// of OutputFolder's walk, the GPU lock folder and the toolkit programs beside the wheel's program
// (nvdisasm.h); it holds for the caller's own folders too, whose mode may let others write.
std::string OthersMayChange(const struct stat& status);

// An open output folder, reached one component at a time from `/` with openat(O_NOFOLLOW |
// O_DIRECTORY) and checked on each descriptor (fstat), so that everything on the way can be renamed
// or replaced only by root or the caller: no other user can swap a folder under bankcheck between
// the check and the write (the renameat2(RENAME_EXCHANGE) race), and what is written is written
// with *at calls on the descriptor, never by path again (docs/security.md, "Every path bankcheck
// writes"). The rule, in this one place for every writer:
// - each folder on the way must pass OthersMayChange (the caller's or root's, and others may not
//   write to it unless it is sticky, as /tmp); BANKCHECK_SAFE_DIRECTORIES (absolute paths
//   separated by ':', "DIR/*" for DIR and every folder below it; as git's safe.directory) names
//   folders trusted all the same, by their path without links;
// - a symbolic link on the way is followed only when it belongs to the caller or to root (it sits
//   in a folder that passed, or that is named trusted; in a sticky one the kernel's
//   fs.protected_symlinks keeps others from replacing it): nobody else can have planted it or can
//   change it. Its target is read (readlinkat) and walked the same way, component by component ("/"
//   starts again at the root, ".." is the parent of the folder reached), at most 40 links in all
//   (the kernel's limit);
// - a relative path is walked from `/` too, by the current folder's path: $PWD when it names the
//   current folder (after `cd` into a link, the path the shell shows), else getcwd()'s; so a path
//   and its relative spelling are decided alike.
// ".." in the path given is taken lexically ("a/../b" is "b", never a trip through whatever "a"
// is); the file itself is never a link (file_io.h). Error(kBadInput) naming the folder or link and
// what to do otherwise.
// Why a user other than root and the caller may have put the file `file` (absolute) where it is or
// changed it, or "" when none can: a program or library bankcheck would `verb` ("run", "load") from
// beside itself (nvdisasm.h's toolkit programs beside the wheel's, `bankcheck run`'s injection
// library). Its folder is reached as OutputFolder reaches a folder written into (every folder on the
// way passes OthersMayChange, links only as there, BANKCHECK_SAFE_DIRECTORIES), and the file itself
// must be a regular file, not a link, that passes OthersMayChange. The reason names the file.
std::string OthersMayChangeFile(const std::filesystem::path& file, const std::string& verb);

class OutputFolder {
 public:
  // `folder`, which must exist (`writing`, when given, is the file the error messages name).
  static OutputFolder Open(const std::filesystem::path& folder, const std::filesystem::path& writing = {});
  // `folder`, creating it and the missing folders on the way (mkdirat, 0755 less the umask).
  static OutputFolder Create(const std::filesystem::path& folder);

  OutputFolder(OutputFolder&& other) noexcept;
  OutputFolder& operator=(OutputFolder&&) = delete;
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;
  ~OutputFolder();

  int fd() const { return fd_; }
  // The descriptor, which the caller now closes.
  int Release() { return std::exchange(fd_, -1); }
  // The path as given (empty for the current folder), for messages.
  const std::filesystem::path& path() const { return path_; }

 private:
  friend std::string OthersMayChangeFile(const std::filesystem::path& file, const std::string& verb);
  OutputFolder(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  // `verb`: what is refused in the messages ("write", "run").
  static OutputFolder Walk(const std::filesystem::path& folder, bool create,
                           const std::filesystem::path& writing, const std::string& verb);

  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace bankcheck
