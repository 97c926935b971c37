#pragma once
// Internal helpers shared by the baseline and results code: reading JSON files with errors that
// name the file, line and column; reading fields with errors that name the field; writing files
// atomically; and an advisory lock for read-modify-write of files shared between processes.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bankcheck::internal {

// 1-based line and column of the byte at `offset` (0-based) in `text`.
struct LineColumn {
  size_t line = 1;
  size_t column = 1;
};
LineColumn LineColumnAt(const std::string& text, size_t offset);

// The whole file; Error(kBadInput) naming the file (and `advice`) when it cannot be read.
std::string ReadTextFile(const std::filesystem::path& path, const std::string& advice);

// Parses `text`, which was read from `path`. A syntax error becomes Error(kBadInput):
//   "<path>:<line>:<column>: invalid JSON (<parser's reason>). <advice>"
nlohmann::json ParseJsonText(const std::string& text, const std::filesystem::path& path,
                             const std::string& advice);

// The one serialization bankcheck writes: keys sorted, 2-space indent, trailing newline. Being
// canonical is what keeps untouched entries byte-identical when a file is rewritten.
std::string DumpJson(const nlohmann::json& value);

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

// Reads typed fields out of a parsed document. Every error is Error(kBadInput) and reads
//   "<where>: <path.to.field> must be <what>, but is <found>. <advice>"
// so a person editing the file by hand knows exactly which value to fix.
class FieldReader {
 public:
  FieldReader(const nlohmann::json& value, std::string where, std::string advice, std::string path = "");

  const nlohmann::json& json() const { return value_; }
  const std::string& path() const { return path_; }

  bool Has(const char* key) const;                  // requires an object
  FieldReader Field(const std::string& key) const;  // required field of an object
  FieldReader Element(size_t index) const;          // element of an array

  void RequireObject() const;
  void RequireArray() const;
  // Fails naming the first key that is not in `known` (catches typos in hand-edited files).
  void AllowOnlyFields(std::initializer_list<const char*> known) const;
  void AllowOnlyFields(const std::vector<std::string>& known) const;

  uint64_t Unsigned() const;
  uint32_t Unsigned32() const;
  double Number() const;
  std::string String() const;
  std::vector<std::string> StringArray() const;

  [[noreturn]] void Fail(const std::string& requirement) const;
  // A failure that is not about the value's type: "<where>: <path>: <message>. <advice>".
  [[noreturn]] void FailWith(const std::string& message) const;

 private:
  const nlohmann::json& value_;
  std::string where_;
  std::string advice_;
  std::string path_;
};

// "the string \"12\"", "-3", "an object", ... for error messages.
std::string DescribeJsonValue(const nlohmann::json& value);

}  // namespace bankcheck::internal
