#include "core/internal/json_io.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "bankcheck/error.h"
#include "bankcheck/limits.h"

namespace bankcheck {
namespace {

// Appends ". advice" unless there is no advice.
std::string WithAdvice(std::string message, const std::string& advice) {
  if (!advice.empty()) message += ". " + advice;
  return message;
}

// The parser's own reason without its "[json.exception...] parse error at line 1, column 2: "
// prefix, since the message gives the position in the file's own terms.
std::string ParserReason(const std::string& what) {
  const size_t colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

std::string FormatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

LineColumn LineColumnAt(const std::string& text, size_t offset) {
  if (offset > text.size()) offset = text.size();
  LineColumn position;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++position.line;
      line_start = i + 1;
    }
  }
  position.column = offset - line_start + 1;
  return position;
}

nlohmann::json ParseJsonText(const std::string& text, const std::filesystem::path& path,
                             const std::string& advice) {
  // Nesting is bounded as the parser goes: a file of "[[[[..." would otherwise take memory many
  // times its size (limits.h).
  const auto bounded_depth = [&](int depth, nlohmann::json::parse_event_t, const nlohmann::json&) {
    if (depth > kMaxJsonDepth) {
      throw Error(ErrorKind::kBadInput,
                  WithAdvice(path.string() + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                                 " levels, more than bankcheck reads (limits.h)",
                             advice));
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, bounded_depth);
  } catch (const nlohmann::json::parse_error& e) {
    // `byte` is the 1-based index of the last character read, i.e. the offending one.
    const LineColumn at = LineColumnAt(text, e.byte > 0 ? e.byte - 1 : 0);
    throw Error(ErrorKind::kBadInput,
                WithAdvice(path.string() + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                               ": invalid JSON (" + ParserReason(e.what()) + ")",
                           advice));
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double ("1e400"): out_of_range, which names the number.
    throw Error(ErrorKind::kBadInput,
                WithAdvice(path.string() + ": invalid JSON (" + ParserReason(e.what()) + ")", advice));
  }
}

std::string DumpJson(const nlohmann::json& value) {
  // Replace (never throw on) invalid UTF-8 in names: a report must still be written.
  return value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string DescribeJsonValue(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "the string " + value.dump();
    case nlohmann::json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    default: {
      std::string text = value.dump();
      if (text.size() > 40) text = text.substr(0, 40) + "...";
      return text;
    }
  }
}

FieldReader::FieldReader(const nlohmann::json& value, std::string where, std::string advice, std::string path)
    : value_(value), where_(std::move(where)), advice_(std::move(advice)), path_(std::move(path)) {}

bool FieldReader::Has(const char* key) const {
  RequireObject();
  return value_.contains(key);
}

FieldReader FieldReader::Field(const std::string& key) const {
  RequireObject();
  const std::string child_path = path_.empty() ? key : path_ + "." + key;
  const auto found = value_.find(key);
  if (found == value_.end()) {
    throw Error(ErrorKind::kBadInput, WithAdvice(where_ + ": " + child_path + " is missing", advice_));
  }
  return FieldReader(*found, where_, advice_, child_path);
}

FieldReader FieldReader::Element(size_t index) const {
  RequireArray();
  return FieldReader(value_.at(index), where_, advice_, path_ + "[" + std::to_string(index) + "]");
}

void FieldReader::RequireObject() const {
  if (!value_.is_object()) Fail("an object");
}

void FieldReader::RequireArray() const {
  if (!value_.is_array()) Fail("an array");
}

void FieldReader::AllowOnlyFields(std::initializer_list<const char*> known) const {
  AllowOnlyFields(std::vector<std::string>(known.begin(), known.end()));
}

void FieldReader::AllowOnlyFields(const std::vector<std::string>& known) const {
  RequireObject();
  for (const auto& item : value_.items()) {
    bool is_known = false;
    for (const std::string& name : known) is_known = is_known || item.key() == name;
    if (!is_known) {
      std::string names;
      for (const std::string& name : known) names += std::string(names.empty() ? "" : ", ") + name;
      const std::string field = path_.empty() ? item.key() : path_ + "." + item.key();
      throw Error(
          ErrorKind::kBadInput,
          WithAdvice(where_ + ": unknown field " + field + " (expected only: " + names + ")", advice_));
    }
  }
}

uint64_t FieldReader::Unsigned() const {
  // Parsed text gives non-negative integers as unsigned; values built in code may be signed.
  const bool non_negative_integer =
      value_.is_number_unsigned() || (value_.is_number_integer() && value_.get<int64_t>() >= 0);
  if (!non_negative_integer) Fail("a non-negative integer");
  return value_.get<uint64_t>();
}

uint32_t FieldReader::Unsigned32() const {
  const uint64_t value = Unsigned();
  if (value > std::numeric_limits<uint32_t>::max()) Fail("an integer below 2^32");
  return static_cast<uint32_t>(value);
}

double FieldReader::Number() const {
  if (!value_.is_number()) Fail("a number");
  const double value = value_.get<double>();
  if (!std::isfinite(value)) Fail("a finite number");
  return value;
}

double FieldReader::NumberIn(double low, double high) const {
  const double value = Number();
  if (value < low || value > high) Fail("a number from " + FormatNumber(low) + " to " + FormatNumber(high));
  return value;
}

std::string FieldReader::String() const {
  if (!value_.is_string()) Fail("a string");
  return value_.get<std::string>();
}

std::vector<std::string> FieldReader::StringArray() const {
  RequireArray();
  std::vector<std::string> strings;
  for (size_t i = 0; i < value_.size(); ++i) strings.push_back(Element(i).String());
  return strings;
}

void FieldReader::Fail(const std::string& requirement) const {
  const std::string name = path_.empty() ? "the document" : path_;
  throw Error(ErrorKind::kBadInput, WithAdvice(where_ + ": " + name + " must be " + requirement +
                                                   ", but is " + DescribeJsonValue(value_),
                                               advice_));
}

void FieldReader::FailWith(const std::string& message) const {
  const std::string prefix = path_.empty() ? where_ : where_ + ": " + path_;
  throw Error(ErrorKind::kBadInput, WithAdvice(prefix + ": " + message, advice_));
}

}  // namespace bankcheck
