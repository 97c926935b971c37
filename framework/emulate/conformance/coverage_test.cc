// The conformance coverage (docs/emulate.md, "Checked against the GPU"): every form of a computing
// family (checked_forms.h) in the SASS of the kernel suite's emulated program must have GPU vectors
// (vectors.txt), or be one of the gaps below, each with why no kernel of forms.cu checks it, or have a
// kernel of forms.cu awaiting its vectors (awaiting_vectors.h: reported, not failed). The
// instructions of a float division's slow path (internal/float_division.h) are not counted: the
// emulator skips them, never computes them. Prints
//   forms computed in the suite: N, with vectors: M
// The program is BANKCHECK_CONFORMANCE_SUITE (ctest bankcheck_conformance_coverage sets it).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "bankcheck/core/error.h"
#include "bankcheck/emulate/emulator.h"
#include "emulate/conformance/awaiting_vectors.h"
#include "emulate/conformance/forms.h"
#include "emulate/conformance/vectors.h"
#include "emulate/internal/checked_forms.h"
#include "emulate/internal/float_division.h"
#include "emulate/internal/sass.h"

namespace bankcheck::conformance {
namespace {

// Forms of the suite no kernel of forms.cu makes ptxas emit, and why. The output pass leaves them
// unknown ("form ... (...), not among the forms checked against the GPU").
const std::map<std::string, std::string> kGaps = {
    {"ISETP.LT.U32.AND.EX",
     "only in the CUDA device runtime's memcpy/memset kernels (libcudadevrt), which no case launches; "
     "ptxas writes the other order (GT, GE) for every C++ or PTX comparison tried"},
};

// A form keeps every modifier but IMAD's names for its operands; a uniform opcode is its lane form's.
TEST(ConformanceForms, FormOfKeepsTheModifiersThatMatter) {
  using emulate::internal::FindOpcode;
  using emulate::internal::FormOf;
  EXPECT_EQ(FormOf("UIADD3", {"X"}, FindOpcode("UIADD3")), "IADD3.X");
  EXPECT_EQ(FormOf("IMAD", {"MOV", "U32"}, FindOpcode("IMAD")), "IMAD.U32");
  EXPECT_EQ(FormOf("IMAD", {"SHL", "U32"}, FindOpcode("IMAD")), "IMAD.U32");
  EXPECT_EQ(FormOf("IMAD", {"WIDE", "U32"}, FindOpcode("IMAD")), "IMAD.WIDE.U32");
  EXPECT_EQ(FormOf("VOTEU", {"ALL"}, FindOpcode("VOTEU")), "VOTE.ALL");
  EXPECT_EQ(FormOf("ISETP", {"GE", "U32", "AND", "EX"}, FindOpcode("ISETP")), "ISETP.GE.U32.AND.EX");
  EXPECT_EQ(FormOf("USHF", {"L", "U32"}, FindOpcode("USHF")), "SHF.L.U32");
}

// Whether a kernel of forms.cu claiming `form` awaits its vectors (awaiting_vectors.h).
bool AwaitsVectors(const std::string& form) {
  size_t count = 0;
  const Form* forms = Forms(&count);
  for (size_t i = 0; i < count; ++i)
    if (form == forms[i].opcode && kAwaitingVectors.count(forms[i].name)) return true;
  return false;
}

TEST(ConformanceCoverage, EveryFormTheSuiteComputesHasVectors) {
  const char* program = std::getenv("BANKCHECK_CONFORMANCE_SUITE");
  const char* required = std::getenv("BANKCHECK_REQUIRE_EMULATION");
  const bool require = required != nullptr && std::string(required) == "1";
  if (program == nullptr || *program == '\0') {
    if (require) FAIL() << "BANKCHECK_CONFORMANCE_SUITE names no program";
    GTEST_SKIP()
        << "BANKCHECK_CONFORMANCE_SUITE names no program (ctest bankcheck_conformance_coverage sets it)";
  }
  std::map<std::string, std::set<std::string>> kernels_of;  // form -> the kernels that have it
  try {
    const emulate::Module module = emulate::Module::FromCubinFile(program);
    for (const auto& [name, kernel] : module.data().kernels) {
      std::set<size_t> skipped;
      for (const emulate::internal::Instruction& instruction : kernel.code)
        if (instruction.float_division != nullptr)
          skipped.insert(instruction.float_division->skipped.begin(),
                         instruction.float_division->skipped.end());
      for (size_t i = 0; i < kernel.code.size(); ++i) {
        const emulate::internal::Instruction& instruction = kernel.code[i];
        if (instruction.info != nullptr &&
            emulate::internal::IsComputingFamily(instruction.info->semantics) && !skipped.count(i))
          kernels_of[emulate::internal::FormOf(instruction.base, instruction.modifiers, instruction.info)]
              .insert(name);
      }
    }
  } catch (const Error& e) {
    if (require) FAIL() << e.what();
    GTEST_SKIP() << "cannot read the suite's SASS: " << e.what();
  }
  RecordedVectors vectors;
  std::string problem;
  ASSERT_TRUE(ReadVectors(BANKCHECK_CONFORMANCE_VECTORS, &vectors, &problem)) << problem;
  std::set<std::string> recorded;
  for (const RecordedForm& form : vectors.forms) recorded.insert(form.opcode);
  ASSERT_FALSE(kernels_of.empty()) << program << " has no instruction of a computing family";
  size_t with_vectors = 0;
  for (const auto& [form, kernels] : kernels_of) {
    const bool has = recorded.count(form) > 0;
    with_vectors += has ? 1 : 0;
    std::printf("  %-24s %s (%zu kernels, %s)\n", form.c_str(), has ? "vectors" : "NO VECTORS",
                kernels.size(), emulate::internal::HasConformanceVectors(form) ? "computed" : "unknown");
    if (has) continue;
    if (AwaitsVectors(form)) {
      std::printf("    awaiting vectors (record them on the GPU): its kernel is in forms.cu\n");
      continue;
    }
    const auto gap = kGaps.find(form);
    EXPECT_NE(gap, kGaps.end()) << form << " (in " << *kernels.begin()
                                << ") has no GPU vectors: add a kernel for it to forms.cu and record them";
  }
  std::printf("forms computed in the suite: %zu, with vectors: %zu\n", kernels_of.size(), with_vectors);
  for (const auto& [form, why] : kGaps)
    EXPECT_EQ(recorded.count(form), 0u) << form << " has vectors now: remove it from the gaps";
}

}  // namespace
}  // namespace bankcheck::conformance
