#include "bankcheck/cuda/kernel_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <utility>

#include "bankcheck/core/error.h"

namespace bankcheck {
namespace {

using ::testing::ElementsAre;

// A registrar whose body has a comma outside any parentheses (a template's arguments, an
// initializer list): one macro argument all the same, run during static initialization.
int registrar_sum = 0;
BANKCHECK_REGISTER_CASES([] {
  const std::pair<int, int> parts{1, 2};
  registrar_sum = parts.first + parts.second;
});

TEST(KernelRegistryMacroTest, ARegistrarWithACommaOutsideParenthesesRuns) { EXPECT_EQ(registrar_sum, 3); }

class KernelRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearKernelCasesForTesting(); }
  void TearDown() override { ClearKernelCasesForTesting(); }

  static KernelCase Case(const std::string& name) {
    KernelCase c;
    c.name = name;
    c.run = [](CaseContext&) {};
    return c;
  }
};

std::vector<std::string> Names() {
  std::vector<std::string> names;
  for (const KernelCase* c : RegisteredKernelCases()) names.push_back(c->name);
  return names;
}

TEST_F(KernelRegistryTest, CasesComeBackSortedByName) {
  RegisterKernelCase(Case("transpose/padded"));
  RegisterKernelCase(Case("demo/stride2"));
  RegisterKernelCase(Case("demo/stride1"));
  EXPECT_THAT(Names(), ElementsAre("demo/stride1", "demo/stride2", "transpose/padded"));
  EXPECT_EQ(RegisteredKernelCases()[2]->topic(), "transpose");
}

TEST_F(KernelRegistryTest, ACaseKnowsTheLineThatRegisteredIt) {
  const int line = __LINE__ + 1;
  RegisterKernelCase(Case("demo/here"));
  KernelCase named = Case("demo/named");
  named.source_file = "kernels/mine.cu";
  named.source_line = 7;
  RegisterKernelCase(named);
  const std::vector<const KernelCase*> cases = RegisteredKernelCases();
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0]->source_file, __FILE__);
  EXPECT_EQ(cases[0]->source_line, line);
  EXPECT_EQ(cases[1]->source_file, "kernels/mine.cu") << "a case that names its source keeps it";
  EXPECT_EQ(cases[1]->source_line, 7);
}

TEST_F(KernelRegistryTest, AnExpectationIsStatedOnlyByWritingIt) {
  RegisterKernelCase(Case("demo/lines"));  // no c.expect: its lines, or its baseline only
  KernelCase stated = Case("demo/stated");
  stated.expect[MemoryKind::kSharedLoad].ways = 1;  // conflict-free, said explicitly
  RegisterKernelCase(stated);
  const std::vector<const KernelCase*> cases = RegisteredKernelCases();
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_FALSE(cases[0]->expect.stated()) << "registering (which validates the ways) must not state it";
  EXPECT_TRUE(cases[1]->expect.stated());
}

TEST_F(KernelRegistryTest, RejectsDuplicatesAndBadNames) {
  RegisterKernelCase(Case("demo/stride1"));
  EXPECT_THROW(RegisterKernelCase(Case("demo/stride1")), Error);
  EXPECT_THROW(RegisterKernelCase(Case("")), Error);
  EXPECT_THROW(RegisterKernelCase(Case("notopic")), Error);
  EXPECT_THROW(RegisterKernelCase(Case("Demo/Upper")), Error);
  EXPECT_THROW(RegisterKernelCase(Case("demo/with space")), Error);
  KernelCase no_run = Case("demo/norun");
  no_run.run = nullptr;
  EXPECT_THROW(RegisterKernelCase(no_run), Error);
  KernelCase bad_ways = Case("demo/badways");
  bad_ways.expect[MemoryKind::kSharedLoad].ways = 0.5;
  EXPECT_THROW(RegisterKernelCase(bad_ways), Error);
  EXPECT_THAT(Names(), ElementsAre("demo/stride1"));
}

}  // namespace
}  // namespace bankcheck
