#pragma once
// Reading JSON for people: syntax errors that name the file, line and column, and typed fields
// whose errors name the field, so whoever edits a file by hand knows what to fix. The baseline,
// results and benchmark readers use it; file_io.h reads and writes the files themselves.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bankcheck {

// 1-based line and column of the byte at `offset` (0-based) in `text`.
struct LineColumn {
  size_t line = 1;
  size_t column = 1;
};
LineColumn LineColumnAt(const std::string& text, size_t offset);

// Parses `text`, which was read from `path`. A syntax error becomes Error(kBadInput):
//   "<path>:<line>:<column>: invalid JSON (<parser's reason>). <advice>"
// as do a number too large for a double and nesting deeper than kMaxJsonDepth (limits.h).
nlohmann::json ParseJsonText(const std::string& text, const std::filesystem::path& path,
                             const std::string& advice);

// The one serialization bankcheck writes: keys sorted, 2-space indent, trailing newline. Being
// canonical is what keeps untouched entries byte-identical when a file is rewritten.
std::string DumpJson(const nlohmann::json& value);

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
  double Number() const;  // finite (JSON has no NaN; "1e400" fails at parsing)
  // A number from `low` to `high` (inclusive); fails naming the range otherwise.
  double NumberIn(double low, double high) const;
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

// "1e+18", "0.5": a number for error messages (%g).
std::string FormatNumber(double value);

// "the string \"12\"", "-3", "an object", ... for error messages.
std::string DescribeJsonValue(const nlohmann::json& value);

}  // namespace bankcheck
