#include "core/platform/environment.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "bankcheck/core/error.h"

namespace bankcheck {
namespace {

// The variable's value, "" when unset.
std::string ValueOf(const char* variable) {
  const char* value = std::getenv(variable);
  return value != nullptr ? value : "";
}

Error Refused(const char* variable, const std::string& value, const std::string& accepted) {
  return Error(ErrorKind::kBadInput, std::string(variable) + "='" + value + "' is not accepted: " + accepted +
                                         "; set it so, or unset it");
}

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool HasControlCharacter(const std::string& text) {
  return std::any_of(text.begin(), text.end(), [](unsigned char c) { return std::iscntrl(c) != 0; });
}

}  // namespace

bool FlagFromEnvironment(const char* variable) {
  const std::string value = ValueOf(variable);
  const std::string word = Lowercase(value);
  if (word.empty() || word == "0" || word == "false" || word == "no" || word == "off") return false;
  if (word == "1" || word == "true" || word == "yes" || word == "on") return true;
  throw Refused(variable, value, "it is an on/off switch: 1, true, yes, on, or 0, false, no, off");
}

std::string AbsolutePathFromEnvironment(const char* variable) {
  const std::string value = ValueOf(variable);
  if (value.empty()) return "";
  if (value[0] != '/' || HasControlCharacter(value))
    throw Refused(variable, value, "it must be an absolute path (starting with '/', no control characters)");
  return value;
}

std::vector<std::string> AbsolutePathListFromEnvironment(const char* variable) {
  const std::string value = ValueOf(variable);
  std::vector<std::string> paths;
  size_t start = 0;
  while (start <= value.size()) {
    const size_t end = std::min(value.find(':', start), value.size());
    const std::string entry = value.substr(start, end - start);
    if (!entry.empty()) {
      if (entry[0] != '/' || HasControlCharacter(entry)) {
        throw Refused(variable, value,
                      "it must be absolute paths separated by ':' (each starting with '/', no control "
                      "characters), and '" +
                          entry + "' is not one");
      }
      paths.push_back(entry);
    }
    start = end + 1;
  }
  return paths;
}

std::string ExecutableFromEnvironment(const char* variable) {
  const std::string value = AbsolutePathFromEnvironment(variable);
  if (value.empty()) return "";
  struct stat status {};
  const std::string why = ::stat(value.c_str(), &status) != 0  ? "does not exist"
                          : !S_ISREG(status.st_mode)           ? "is not a regular file"
                          : ::access(value.c_str(), X_OK) != 0 ? "is not executable"
                                                               : "";
  if (why.empty()) return value;
  throw Refused(variable, value, "it must be the absolute path of a program, and this " + why);
}

std::string LabelFromEnvironment(const char* variable) {
  const std::string value = ValueOf(variable);
  const bool label =
      value.size() <= 100 && std::all_of(value.begin(), value.end(), [](unsigned char c) {
        return std::isalnum(c) != 0 || c == '.' || c == '_' || c == '+' || c == '/' || c == '-';
      });
  if (!label) throw Refused(variable, value, "it must be 1 to 100 of A-Z a-z 0-9 . _ + / -");
  return value;
}

std::string PwdNaming(const struct stat& current) {
  const char* pwd = std::getenv("PWD");
  struct stat status {};
  if (pwd == nullptr || pwd[0] != '/' || ::stat(pwd, &status) != 0) return "";
  return status.st_dev == current.st_dev && status.st_ino == current.st_ino ? pwd : "";
}

}  // namespace bankcheck
