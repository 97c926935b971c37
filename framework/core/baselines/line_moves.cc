#include "core/baselines/internal/line_moves.h"

#include <cstdint>
#include <map>
#include <tuple>

#include "core/baselines/line_keys.h"

namespace bankcheck::internal {
namespace {

// What a moved line keeps: its key but the file, and its counts.
using Signature = std::tuple<std::string, uint32_t, MemoryKind, uint64_t, uint64_t, uint64_t>;

Signature SignatureOf(const LineRecord& line) {
  const LineKey key = KeyOf(line);
  return {std::get<1>(key), std::get<2>(key), line.kind,
          line.executions,  line.wavefronts,  line.ideal_wavefronts};
}

}  // namespace

std::optional<std::vector<LineMove>> OnlyMovedLines(
    const std::vector<std::pair<const LineRecord*, const LineRecord*>>& differing) {
  std::multimap<Signature, const LineRecord*> added;
  std::vector<const LineRecord*> gone;
  for (const auto& [before, after] : differing) {
    if ((before == nullptr) == (after == nullptr)) return std::nullopt;  // a line whose counts changed
    if (after != nullptr)
      added.emplace(SignatureOf(*after), after);
    else
      gone.push_back(before);
  }
  if (gone.empty() || gone.size() != added.size()) return std::nullopt;
  std::map<std::string, std::string> to_of;    // old file -> new file
  std::map<std::string, std::string> from_of;  // new file -> old file
  std::map<std::pair<std::string, std::string>, size_t> moved;
  for (const LineRecord* line : gone) {
    const auto [first, last] = added.equal_range(SignatureOf(*line));
    const auto mapped = to_of.find(line->file);
    auto pick = last;
    for (auto it = first; it != last && pick == last; ++it) {
      if (it->second->file != line->file && (mapped == to_of.end() || mapped->second == it->second->file))
        pick = it;
    }
    if (pick == last) return std::nullopt;
    const std::string& to = pick->second->file;
    to_of.emplace(line->file, to);
    if (from_of.emplace(to, line->file).first->second != line->file) return std::nullopt;
    ++moved[{line->file, to}];
    added.erase(pick);
  }
  std::vector<LineMove> moves;
  for (const auto& [files, lines] : moved) moves.push_back({files.first, files.second, lines});
  return moves;
}

}  // namespace bankcheck::internal
