#pragma once
// Files that several processes read and write: whole-file reads with errors that name the file,
// atomic replacement, and an advisory lock for read-modify-write.

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "core/platform/output_folder.h"

namespace bankcheck {

// The whole file; Error(kBadInput) naming the file (and `advice`) when it cannot be read, and naming
// the limit when it is larger than kMaxInputFileBytes (limits.h; only that much is ever read).
std::string ReadTextFile(const std::filesystem::path& path, const std::string& advice);

// The one way bankcheck writes a file (every -o, results, baselines, plots). Replaces `path` with
// `content` so that a reader sees the old file or the new one, never a partial one, and never
// writes through a link planted at the path (docs/security.md): creates a temporary
// `<name>.tmp.<random>` in the folder of `path` exclusively (O_CREAT|O_EXCL|O_NOFOLLOW), writes
// and fsyncs it, renames it over `path`, and fsyncs the folder, all on the folder's descriptor
// (OutputFolder::Open: no link on the way, folders of root or the caller only). A new file gets
// 0644 less the umask; an existing one keeps its mode. Never world-writable. Error(kBadInput)
// naming the file, with the old file unchanged and the temporary removed, when the folder is
// missing (folders are not created here) or refused, or `path` is a symbolic link or exists but is
// not a regular file, or a step fails.
void WriteFileAtomically(const std::filesystem::path& path, const std::string& content);
// The same into a folder already open: `name` is a file name, not a path.
void WriteFileIn(const OutputFolder& folder, const std::string& name, const std::string& content);
// Removes the file `name` of an open folder (never a folder); false when there is none.
bool RemoveFileIn(const OutputFolder& folder, const std::string& name);

// Creates `folder` and its missing parents (mode 0755 less the umask) for bankcheck's own output:
// OutputFolder::Create, checking every folder on the way as it does.
void CreateOutputFolders(const std::filesystem::path& folder);

// Writes all of `content` to `fd`, retrying short and interrupted writes; false with errno set
// on an error.
bool WriteAll(int fd, std::string_view content);

// Appends `text` to `path`, which must exist as a regular file (never created, never followed
// when it is a link); false when it cannot.
bool AppendToExistingFile(const std::filesystem::path& path, const std::string& text);

// Appends `text` to the regular file `path`, creating it (0644 less the umask) when absent: for a
// file that others write to as well (`bankcheck run --report "$GITHUB_STEP_SUMMARY"`). Never
// follows a symbolic link at `path` (O_NOFOLLOW) and never opens a FIFO or device there; refuses,
// with Error(kBadInput) naming the file, those and a file with other hard links (docs/security.md).
void AppendToFile(const std::filesystem::path& path, const std::string& text);

// Opens the lock file `name` in the folder open at `folder_fd`, for flock(2) only: read-only, as
// flock needs no more and nothing is ever written to a lock file. Creates it when absent
// (O_CREAT|O_EXCL|O_NOFOLLOW) and then sets exactly `mode` (whatever the umask, so that other users
// can open one meant to be shared); uses an existing one as found, never changing it. Refuses, with
// Error(kBadInput) naming `shown_path` and changing nothing, a symbolic link (never followed: a link
// planted in a shared folder could point anywhere, docs/security.md), anything but a regular file,
// and a file with other hard links.
int OpenLockFileAt(int folder_fd, const std::string& name, const std::filesystem::path& shown_path,
                   mode_t mode);

// flock(LOCK_EX) on `path` (created 0644 if absent; a link, a hard-linked or non-regular file
// there is refused, see OpenLockFileAt), released on destruction. Each instance opens its own
// descriptor, so it excludes other threads of this process as well as other processes.
class ExclusiveFileLock {
 public:
  explicit ExclusiveFileLock(const std::filesystem::path& path);
  // The lock file `name` in an open folder: the folder the caller then writes to.
  ExclusiveFileLock(const OutputFolder& folder, const std::string& name);
  ~ExclusiveFileLock();
  ExclusiveFileLock(const ExclusiveFileLock&) = delete;
  ExclusiveFileLock& operator=(const ExclusiveFileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace bankcheck
