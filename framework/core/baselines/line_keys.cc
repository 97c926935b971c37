#include "core/baselines/line_keys.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "bankcheck/core/count_sum.h"
#include "bankcheck/core/limits.h"
#include "core/annotations/internal/source_lexer.h"
#include "core/platform/source_paths.h"

namespace bankcheck {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' || c == '\n'; }

// Cut at a UTF-8 character boundary, so that a key is valid text wherever it is shown.
void CutToLimit(std::string& code) {
  if (code.size() <= kMaxLineCodeBytes) return;
  size_t end = kMaxLineCodeBytes;
  while (end > 0 && (static_cast<unsigned char>(code[end]) & 0xC0) == 0x80) --end;
  code.resize(end);
  while (!code.empty() && code.back() == ' ') code.pop_back();
}

}  // namespace

std::vector<SourceLineKey> SourceLineKeys(std::string_view text) {
  const internal::LexedSource lexed = internal::LexSource(text);
  // Comments as [begin, end) ranges in source order; a line's characters inside one are dropped.
  std::vector<std::pair<size_t, size_t>> comments;
  comments.reserve(lexed.comments.size());
  // A comment's text is what is between its delimiters: the range adds "//" or "/*" and "*/".
  for (const internal::SourceComment& comment : lexed.comments)
    comments.emplace_back(comment.begin - 2, comment.begin + comment.text.size() + (comment.block ? 2 : 0));
  std::vector<SourceLineKey> keys(lexed.lines.size());
  std::unordered_map<std::string, uint32_t> seen;
  size_t next_comment = 0;
  for (size_t i = 0; i < lexed.lines.size(); ++i) {
    const internal::SourceLine& line = lexed.lines[i];
    std::string code;
    bool space = false;
    for (size_t k = line.begin; k < line.end; ++k) {
      while (next_comment < comments.size() && comments[next_comment].second <= k) ++next_comment;
      if (next_comment < comments.size() && comments[next_comment].first <= k) {
        // A comment is whitespace between tokens.
        k = std::min(comments[next_comment].second, line.end) - 1;
        space = true;
        continue;
      }
      if (IsSpace(text[k])) {
        space = true;
        continue;
      }
      if (space && !code.empty()) code += ' ';
      space = false;
      code += text[k];
    }
    CutToLimit(code);
    keys[i].occurrence = code.empty() ? 0 : seen[code]++;
    keys[i].code = std::move(code);
  }
  return keys;
}

LineKey KeyOf(const LineRecord& line) {
  return {line.file, line.code, line.code.empty() ? line.line : line.occurrence, line.kind};
}

void AttachLineRecords(std::vector<LaunchRecord>& records, const std::string& source_root,
                       const LineKeysOfFile& keys_of) {
  std::map<std::string, const std::vector<SourceLineKey>*> files;  // each file asked once
  const auto keys_of_file = [&](const std::string& file) {
    auto found = files.find(file);
    if (found == files.end()) found = files.emplace(file, keys_of ? keys_of(file) : nullptr).first;
    return found->second;
  };
  for (LaunchRecord& record : records) {
    if (record.attributed_launches == 0) {
      record.lines.reset();
      continue;
    }
    std::vector<const InstructionCounts*> instructions;
    for (const InstructionCounts& instruction : record.instructions)
      if (!instruction.file.empty() && instruction.line != 0) instructions.push_back(&instruction);
    std::stable_sort(
        instructions.begin(), instructions.end(),
        [](const InstructionCounts* a, const InstructionCounts* b) { return a->pc_offset < b->pc_offset; });
    std::map<LineKey, LineRecord> by_key;
    std::map<LineKey, std::set<std::string>> opcodes_of;
    for (const InstructionCounts* instruction : instructions) {
      LineRecord line;
      line.file = WithoutRoot(instruction->file, source_root);
      line.line = instruction->line;
      line.kind = instruction->kind;
      const std::vector<SourceLineKey>* keys = keys_of_file(instruction->file);
      if (keys != nullptr && instruction->line <= keys->size()) {
        line.code = (*keys)[instruction->line - 1].code;
        line.occurrence = (*keys)[instruction->line - 1].occurrence;
      }
      const LineKey key = KeyOf(line);
      LineRecord& sum = by_key.emplace(key, std::move(line)).first->second;
      sum.executions = AddCounts(sum.executions, instruction->executions, "execution");
      sum.wavefronts = AddCounts(sum.wavefronts, instruction->wavefronts, "wavefront");
      sum.ideal_wavefronts =
          AddCounts(sum.ideal_wavefronts, instruction->ideal_wavefronts, "ideal wavefront");
      if (opcodes_of[key].insert(instruction->opcode).second) sum.opcodes.push_back(instruction->opcode);
    }
    std::vector<LineRecord> lines;
    lines.reserve(by_key.size());
    for (auto& [key, line] : by_key) lines.push_back(std::move(line));
    record.lines = std::move(lines);
  }
}

}  // namespace bankcheck
