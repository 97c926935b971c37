#pragma once
// Files that several processes read and write: whole-file reads with errors that name the file,
// atomic replacement, and an advisory lock for read-modify-write.

#include <filesystem>
#include <string>

namespace bankcheck {

// The whole file; Error(kBadInput) naming the file (and `advice`) when it cannot be read.
std::string ReadTextFile(const std::filesystem::path& path, const std::string& advice);

// Replaces `path` with `content` so that a reader sees the old file or the new one, never a
// partial one: writes `<path>.tmp.<pid>` in the same folder, fsyncs it, renames it over `path`,
// and fsyncs the folder. The temporary file is removed when any step fails.
void WriteFileAtomically(const std::filesystem::path& path, const std::string& content);

// flock(LOCK_EX) on `path` (created if absent), released on destruction. Each instance opens its
// own descriptor, so it excludes other threads of this process as well as other processes.
class ExclusiveFileLock {
 public:
  explicit ExclusiveFileLock(const std::filesystem::path& path);
  ~ExclusiveFileLock();
  ExclusiveFileLock(const ExclusiveFileLock&) = delete;
  ExclusiveFileLock& operator=(const ExclusiveFileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace bankcheck
