#pragma once
// Test-only helpers of the per-line counts' tests (line_counts_test.cc, check_lines_test.cc):
// attributed records, lines with chosen counts, and source files with annotations.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/line_annotations.h"
#include "core/annotations/line_counts.h"

namespace bankcheck::testing_support {

inline constexpr char kFile[] = "/src/bankcheck/kernels/transpose.cu";
inline constexpr char kOther[] = "/src/bankcheck/kernels/gemm.cu";

inline LaunchRecord Attributed(const std::string& kernel, std::vector<InstructionCounts> instructions,
                               uint32_t launches = 1) {
  LaunchRecord record;
  record.kernel = kernel;
  record.instructions = std::move(instructions);
  record.attributed_launches = launches;
  return record;
}

inline LineCounts Line(uint32_t line, MemoryKind kind, uint64_t wavefronts, uint64_t ideal,
                       const std::string& opcode = "", const std::string& file = kFile) {
  LineCounts counts;
  counts.file = file;
  counts.line = line;
  counts.kind = kind;
  counts.executions = ideal;
  counts.wavefronts = wavefronts;
  counts.ideal_wavefronts = ideal;
  counts.opcodes = {opcode.empty() ? InfoOf(kind).sass : opcode};
  return counts;
}

// Source files by name, scanned as CheckLines would find them; a name not given cannot be read.
class Sources {
 public:
  void Add(const std::string& file, const std::string& text) {
    scans_[file] = ScanLineAnnotations(text, file);
  }
  AnnotationsOfFile Lookup() const {
    return [this](const std::string& file) -> const LineAnnotationScan* {
      const auto found = scans_.find(file);
      return found == scans_.end() ? nullptr : &found->second;
    };
  }

 private:
  std::map<std::string, LineAnnotationScan> scans_;
};

// `lines` lines of code, each "x;", with `annotated` text placed at the end of chosen lines.
inline std::string Source(uint32_t lines, const std::map<uint32_t, std::string>& comments) {
  std::string text;
  for (uint32_t line = 1; line <= lines; ++line) {
    const auto comment = comments.find(line);
    text += "x;" + (comment == comments.end() ? "" : "  " + comment->second) + "\n";
  }
  return text;
}

}  // namespace bankcheck::testing_support
