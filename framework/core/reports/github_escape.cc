#include "core/reports/internal/github_escape.h"

#include <stdexcept>

namespace bankcheck::github {
namespace {

std::string Escape(std::string_view text, bool property) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      case ':':
        out += property ? "%3A" : ":";
        break;
      case ',':
        out += property ? "%2C" : ",";
        break;
      default:
        out += c;
    }
  }
  return out;
}

bool IsWord(std::string_view word) {
  if (word.empty()) return false;
  for (const char c : word)
    if (c < 'a' || c > 'z') return false;
  return true;
}

}  // namespace

std::string EscapeData(std::string_view text) { return Escape(text, false); }

std::string EscapeProperty(std::string_view text) { return Escape(text, true); }

std::string WorkflowCommand(std::string_view name,
                            const std::vector<std::pair<std::string, std::string>>& properties,
                            std::string_view data) {
  if (!IsWord(name)) throw std::invalid_argument("a workflow command's name must be [a-z]+");
  std::string out = "::" + std::string(name);
  bool first = true;
  for (const auto& [key, value] : properties) {
    if (!IsWord(key)) throw std::invalid_argument("a workflow command's property key must be [a-z]+");
    if (value.empty()) continue;
    out += (first ? " " : ",") + key + "=" + EscapeProperty(value);
    first = false;
  }
  return out + "::" + EscapeData(data) + "\n";
}

}  // namespace bankcheck::github
