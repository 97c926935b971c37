#include "core/platform/json_io.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/limits.h"

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

// Builds the document from the parser's SAX events, refusing nesting deeper than kMaxJsonDepth
// and containers of more than kMaxJsonElements as the parser goes (limits.h): a file of "[[[[..."
// or "[{},{},...]" is refused after reading no more of it than the limit. The builder sees each
// value once, so a parse is linear in the text; a parse callback would not be, since with one
// nlohmann rescans the parent container whenever an object closes.
class BoundedJsonBuilder {
 public:
  using json = nlohmann::json;

  BoundedJsonBuilder(json& root, std::string file, std::string advice)
      : root_(root), file_(std::move(file)), advice_(std::move(advice)) {}

  bool null() { return Add(nullptr); }
  bool boolean(bool value) { return Add(value); }
  bool number_integer(json::number_integer_t value) { return Add(value); }
  bool number_unsigned(json::number_unsigned_t value) { return Add(value); }
  bool number_float(json::number_float_t value, const json::string_t&) { return Add(value); }
  bool string(json::string_t& value) { return Add(std::move(value)); }
  bool binary(json::binary_t& value) { return Add(json::binary(std::move(value))); }

  bool start_object(std::size_t) { return Open(json::value_t::object); }
  bool key(json::string_t& key) {
    json& object = *open_.back();
    CheckElements(object.size());
    member_ = &object[std::move(key)];
    return true;
  }
  bool end_object() { return Close(); }
  bool start_array(std::size_t) { return Open(json::value_t::array); }
  bool end_array() { return Close(); }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    failed_ = true;
    // out_of_range (a number too large for a double) names the number; its position is not the
    // number's own.
    positioned_ = dynamic_cast<const json::parse_error*>(&e) != nullptr;
    position_ = position;
    reason_ = ParserReason(e.what());
    return false;
  }

  bool failed() const { return failed_; }
  bool positioned() const { return positioned_; }
  std::size_t position() const { return position_; }
  const std::string& reason() const { return reason_; }

 private:
  // Places `value` where the parser is: the document itself, the next element of an array, or the
  // member whose key came last.
  json* Place(json&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& parent = *open_.back();
    if (parent.is_array()) {
      CheckElements(parent.size());
      parent.push_back(std::move(value));
      return &parent.back();
    }
    *member_ = std::move(value);
    return member_;
  }

  bool Add(json&& value) {
    Place(std::move(value));
    return true;
  }

  bool Open(json::value_t type) {
    if (open_.size() >= static_cast<std::size_t>(kMaxJsonDepth)) {
      Fail("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels, more than bankcheck reads");
    }
    open_.push_back(Place(json(type)));
    return true;
  }

  bool Close() {
    open_.pop_back();
    return true;
  }

  // Before adding an element to a container that holds `elements`.
  void CheckElements(std::size_t elements) const {
    if (elements >= kMaxJsonElements) {
      Fail("a JSON array or object of more than " + std::to_string(kMaxJsonElements) +
           " elements, more than bankcheck reads");
    }
  }

  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(ErrorKind::kBadInput, WithAdvice(file_ + ": " + what + " (limits.h)", advice_));
  }

  json& root_;
  std::string file_;
  std::string advice_;
  std::vector<json*> open_;  // the containers not yet closed, outermost first
  json* member_ = nullptr;   // the object member whose key came last
  bool failed_ = false;
  bool positioned_ = false;
  std::size_t position_ = 0;
  std::string reason_;
};

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
  nlohmann::json document;
  BoundedJsonBuilder builder(document, path.string(), advice);
  try {
    nlohmann::json::sax_parse(text, &builder);
  } catch (const nlohmann::json::exception& e) {
    // Not expected (errors reach the builder's parse_error), but a parser exception must still be
    // bad input naming the file.
    throw Error(ErrorKind::kBadInput,
                WithAdvice(path.string() + ": invalid JSON (" + ParserReason(e.what()) + ")", advice));
  }
  if (builder.failed()) {
    if (!builder.positioned()) {
      // A number too large for a double ("1e400"): out_of_range, which names the number.
      throw Error(ErrorKind::kBadInput,
                  WithAdvice(path.string() + ": invalid JSON (" + builder.reason() + ")", advice));
    }
    // The position is the 1-based index of the last character read, i.e. the offending one.
    const LineColumn at = LineColumnAt(text, builder.position() > 0 ? builder.position() - 1 : 0);
    throw Error(ErrorKind::kBadInput,
                WithAdvice(path.string() + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                               ": invalid JSON (" + builder.reason() + ")",
                           advice));
  }
  return document;
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
