#pragma once
// Internal: an enum's names as one table of {value, name} pairs, read both ways, so that a name is
// written once (not in a switch and again in a parser).

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace bankcheck::internal {

template <typename Enum, size_t N>
const char* NameIn(const std::pair<Enum, const char*> (&table)[N], Enum value, const char* unknown) {
  for (const auto& [entry, name] : table)
    if (entry == value) return name;
  return unknown;
}

template <typename Enum, size_t N>
std::optional<Enum> ValueNamed(const std::pair<Enum, const char*> (&table)[N], const std::string& name) {
  for (const auto& [entry, entry_name] : table)
    if (name == entry_name) return entry;
  return std::nullopt;
}

}  // namespace bankcheck::internal
