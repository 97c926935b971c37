#pragma once
// The folder every file bankcheck writes goes into (file_io.h's writers, the baselines' .lock),
// opened once and used through its descriptor: the folder checked is the folder written to.

#include <filesystem>
#include <utility>

namespace bankcheck {

// An open output folder, reached one component at a time from `/` with openat(O_NOFOLLOW |
// O_DIRECTORY) and checked on each descriptor (fstat), so that everything on the way can be renamed
// or replaced only by root or the caller: no other user can swap a folder under bankcheck between
// the check and the write (the renameat2(RENAME_EXCHANGE) race), and what is written is written
// with *at calls on the descriptor, never by path again (docs/security.md, "Every path bankcheck
// writes"). The rule, in this one place for every writer:
// - each folder on the way must belong to the caller or to root, and a root folder that others may
//   write to must be sticky (as /tmp); BANKCHECK_SAFE_DIRECTORIES (absolute paths separated by
//   ':', "DIR/*" for DIR and every folder below it; as git's safe.directory) names folders trusted
//   all the same, by their path without links;
// - a symbolic link on the way is followed only when it belongs to the caller or to root and sits
//   in a folder that passed and that others may not write to, or that is sticky (the kernel's
//   fs.protected_symlinks): nobody else can have planted it or can change it. Its target is read
//   (readlinkat) and walked the same way, component by component ("/" starts again at the root,
//   ".." is the parent of the folder reached), at most 40 links in all (the kernel's limit);
// - a relative path is walked from `/` too, by the current folder's path: $PWD when it names the
//   current folder (after `cd` into a link, the path the shell shows), else getcwd()'s; so a path
//   and its relative spelling are decided alike.
// ".." in the path given is taken lexically ("a/../b" is "b", never a trip through whatever "a"
// is); the file itself is never a link (file_io.h). Error(kBadInput) naming the folder or link and
// what to do otherwise.
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
  OutputFolder(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  static OutputFolder Walk(const std::filesystem::path& folder, bool create,
                           const std::filesystem::path& writing);

  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace bankcheck
