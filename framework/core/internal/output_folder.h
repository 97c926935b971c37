#pragma once
// The folder every file bankcheck writes goes into (file_io.h's writers, the baselines' .lock),
// opened once and used through its descriptor: the folder checked is the folder written to.

#include <filesystem>

namespace bankcheck {

// An open output folder. Reached from a trusted start, `/` for an absolute path and the current
// folder for a relative one, one component at a time with openat(O_NOFOLLOW | O_DIRECTORY): a
// symbolic link anywhere on the way is refused, never followed (one planted there could lead
// anywhere), and each folder opened, the start included, is checked on its descriptor (fstat): it
// must belong to the caller or to root, and a root folder that others may write to must be sticky
// (as /tmp). So everything on the way can be renamed or replaced only by root or the caller: no
// other user can swap a folder under bankcheck between the check and the write (the
// renameat2(RENAME_EXCHANGE) race), and what is written is written with *at calls on the
// descriptor, never by path again. Error(kBadInput) naming the folder and what to do otherwise
// (docs/security.md).
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
