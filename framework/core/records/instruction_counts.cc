#include "bankcheck/core/instruction_counts.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "bankcheck/core/count_sum.h"
#include "bankcheck/core/limits.h"
#include "core/platform/environment.h"
#include "core/platform/source_paths.h"
#include "core/reports/text_table.h"

namespace bankcheck {
namespace {

// The table's first columns (location, offset, opcode) read left to right; the counts after them
// are right-aligned so that their digits line up.
constexpr size_t kTextColumns = 3;

std::string Offset(uint32_t pc_offset) {
  char text[16];
  std::snprintf(text, sizeof(text), "+0x%04x", static_cast<unsigned>(pc_offset));
  return text;
}

// Paths and opcodes come from results files: each cell is one line with its control characters
// shown (PlainLine), whole however long.
std::vector<std::string> Cells(const InstructionCounts& instruction, const std::string& source_root) {
  const std::string location = SourceLocation(instruction, source_root);
  return {PlainLine(location, location.size()), Offset(instruction.pc_offset),
          PlainLine(instruction.opcode, instruction.opcode.size()),
          WithThousands(instruction.executions) + " exec",
          // "wf" (wavefronts) for shared memory, "sectors" for global and local memory.
          WithThousands(instruction.wavefronts) +
              (InfoOf(instruction.kind).space == MemorySpace::kShared ? " wf" : " sectors"),
          WithThousands(instruction.ideal_wavefronts) + " ideal", "+" + WithThousands(instruction.excess())};
}

// A cell wider than its column (one longer than kMaxColumnWidth) is printed whole, unpadded.
std::string AlignedLine(const std::vector<std::string>& cells, const std::vector<size_t>& widths) {
  std::string line;
  for (size_t column = 0; column < cells.size(); ++column) {
    const std::string padding(widths[column] - std::min(widths[column], cells[column].size()), ' ');
    if (column > 0) line += "  ";
    line += column < kTextColumns ? cells[column] + padding : padding + cells[column];
  }
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

}  // namespace

void SortByExcess(std::vector<InstructionCounts>& instructions) {
  std::sort(instructions.begin(), instructions.end(),
            [](const InstructionCounts& a, const InstructionCounts& b) {
              if (a.excess() != b.excess()) return a.excess() > b.excess();
              if (a.executions != b.executions) return a.executions > b.executions;
              return a.pc_offset < b.pc_offset;
            });
}

const SourceFrame& AttributedFrame(const std::vector<SourceFrame>& chain, const std::string& project_root,
                                   const std::string& excluded_root) {
  for (const SourceFrame& frame : chain)
    if (IsLexicallyUnder(frame.file, project_root) && !IsLexicallyUnder(frame.file, excluded_root))
      return frame;
  return chain.back();
}

void AttributeToChain(InstructionCounts& instruction, std::vector<SourceFrame> chain,
                      const std::string& project_root, const std::string& excluded_root) {
  const SourceFrame& attributed = AttributedFrame(chain, project_root, excluded_root);
  instruction.file = attributed.file;
  instruction.line = attributed.line;
  // Frames beyond the limit are the outermost: the attributed line is kept apart, in file and line.
  if (chain.size() > kMaxInlineFrames) chain.resize(kMaxInlineFrames);
  instruction.inline_chain = chain.size() > 1 ? std::move(chain) : std::vector<SourceFrame>{};
}

const SourceFrame* InlinedFrom(const InstructionCounts& instruction) {
  if (instruction.inline_chain.empty()) return nullptr;
  const SourceFrame& innermost = instruction.inline_chain.front();
  return innermost.file == instruction.file && innermost.line == instruction.line ? nullptr : &innermost;
}

std::string SourceLocation(const InstructionCounts& instruction, const std::string& source_root) {
  if (instruction.file.empty() || instruction.line == 0) return "<no line info>";
  std::string location = WithoutRoot(instruction.file, source_root) + ":" + std::to_string(instruction.line);
  if (const SourceFrame* from = InlinedFrom(instruction))
    location += " (" + WithoutRoot(from->file, source_root) + ":" + std::to_string(from->line) + ")";
  return location;
}

std::string FormatInstructionTable(const std::vector<InstructionCounts>& instructions, size_t limit,
                                   const std::string& source_root) {
  const size_t shown = limit == 0 ? instructions.size() : std::min(limit, instructions.size());
  std::vector<std::vector<std::string>> rows;
  std::vector<size_t> widths;
  for (size_t i = 0; i < shown; ++i) {
    rows.push_back(Cells(instructions[i], source_root));
    widths.resize(rows.back().size(), 0);
    for (size_t column = 0; column < widths.size(); ++column)
      widths[column] = std::max(widths[column], std::min(rows.back()[column].size(), kMaxColumnWidth));
  }
  std::string table;
  for (const std::vector<std::string>& row : rows) table += AlignedLine(row, widths);
  const size_t left_out = instructions.size() - shown;
  if (left_out > 0)
    table += "... " + std::to_string(left_out) + " more instruction" + (left_out == 1 ? "" : "s") + "\n";
  return table;
}

PerKind<InstructionTotals> TotalsByKind(const std::vector<InstructionCounts>& instructions) {
  PerKind<InstructionTotals> totals;
  for (const InstructionCounts& instruction : instructions) {
    InstructionTotals& total = totals[instruction.kind];
    total.executions = AddCounts(total.executions, instruction.executions, "execution");
    total.wavefronts = AddCounts(total.wavefronts, instruction.wavefronts, "wavefront");
    total.ideal_wavefronts =
        AddCounts(total.ideal_wavefronts, instruction.ideal_wavefronts, "ideal wavefront");
  }
  return totals;
}

std::string SourceRootFromEnvironment() { return AbsolutePathFromEnvironment("BANKCHECK_SOURCE_ROOT"); }

}  // namespace bankcheck
