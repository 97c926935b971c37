#include "core/records/run_cases.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "bankcheck/core/error.h"

namespace bankcheck::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Key;

TEST(KernelFunctionNameTest, DropsReturnTypeScopesTemplateArgumentsAndParameters) {
  EXPECT_EQ(KernelFunctionName("void bankcheck::kernels::transpose<32>(float const*, float*)"), "transpose");
  EXPECT_EQ(KernelFunctionName("matmul_kernel"), "matmul_kernel");
  EXPECT_EQ(KernelFunctionName("scale(float*, int)"), "scale");
  EXPECT_EQ(KernelFunctionName("void (anonymous namespace)::stride<2>(int*)"), "stride");
  EXPECT_EQ(KernelFunctionName("void cute::gemm_device<cute::tuple<int, int>, float (*)(int)>(float*, "
                               "void (*)(int))"),
            "gemm_device");
  EXPECT_EQ(KernelFunctionName("void f<(anonymous namespace)::Tag>(a::b<c::d>)"), "f");
}

TEST(KernelFunctionNameTest, ReturnsUnreadableNamesWhole) {
  EXPECT_EQ(KernelFunctionName("broken)"), "broken)");
  EXPECT_EQ(KernelFunctionName("(x)"), "(x)");
}

LaunchRecord Launch(const std::string& kernel, const std::string& range, uint64_t index) {
  LaunchRecord record;
  record.kernel = kernel;
  record.mangled_kernel = kernel;
  record.nvtx_range = range;
  record.process_launch = index;
  return record;
}

TEST(RunCasesTest, NamesCasesByRangeAndKernelWithOccurrences) {
  const auto cases =
      RunCases({Launch("void ns::scale<2>(float*)", "", 0), Launch("matmul_kernel", "gemm/128", 1),
                Launch("void ns::scale<4>(float*)", "", 2), Launch("matmul_kernel", "gemm/128", 3),
                Launch("matmul_kernel", "gemm/256", 4)});
  EXPECT_THAT(cases, ElementsAre(Key("gemm/128/matmul_kernel"), Key("gemm/128/matmul_kernel#2"),
                                 Key("gemm/256/matmul_kernel"), Key("scale"), Key("scale#2")));
  const CaseResult& second = cases.at("scale#2");
  ASSERT_EQ(second.launches.size(), 1u);
  EXPECT_EQ(second.launches[0].kernel, "void ns::scale<4>(float*)");
  EXPECT_EQ(second.description, "launch 2 of the process: void ns::scale<4>(float*)");
  EXPECT_EQ(cases.at("gemm/128/matmul_kernel#2").description,
            "launch 3 of the process: matmul_kernel in NVTX range 'gemm/128'");
  EXPECT_EQ(second.expected_by, ExpectedBy::kBaselineOnly);
}

TEST(RunCasesTest, AMeasuredOnceLaunchSaysHowManyRepeatsItStandsFor) {
  LaunchRecord first = Launch("matmul_kernel", "gemm", 0);
  first.notes.push_back(RepeatsNote(41));
  EXPECT_EQ(RepeatsOf(first), 41u);
  const auto cases = RunCases({first});
  EXPECT_EQ(cases.at("gemm/matmul_kernel").description,
            "launch 0 of the process: matmul_kernel in NVTX range 'gemm'; measured once for it and 41 later "
            "launch(es) of the same configuration (--measure-once)");
}

TEST(RunCasesTest, OnlyANoteAsRepeatsNoteWritesItCountsRepeats) {
  LaunchRecord record = Launch("k", "", 0);
  for (const std::string& note :
       {std::string("measure-once: 12"), std::string("measure-once: x") + RepeatsNote(3).substr(15),
        "measure-once: 99999999999999999999" + RepeatsNote(1).substr(15), RepeatsNote(5) + "!"})
    record.notes.push_back(note);
  EXPECT_EQ(RepeatsOf(record), 0u);
  record.notes.push_back(RepeatsNote(9999999999999999999u));  // 19 digits, the most read
  EXPECT_EQ(RepeatsOf(record), 9999999999999999999u);
}

TEST(LaunchFilterTest, SearchesBothPatterns) {
  const LaunchFilter all("", "");
  EXPECT_TRUE(all.Matches("anything", ""));
  const LaunchFilter kernel("^void ns::scale<", "");
  EXPECT_TRUE(kernel.Matches("void ns::scale<2>(float*)", "x"));
  EXPECT_FALSE(kernel.Matches("void ns::transpose(float*)", "x"));
  const LaunchFilter both("scale", "^gemm/");
  EXPECT_TRUE(both.Matches("scale", "gemm/128"));
  EXPECT_FALSE(both.Matches("scale", "conv/gemm/128"));
  EXPECT_FALSE(both.Matches("scale", ""));
}

TEST(LaunchFilterTest, RejectsAnInvalidPatternNamingTheOption) {
  try {
    LaunchFilter("ok", "gemm[");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), HasSubstr("--range 'gemm[' is not a valid regular expression"));
  }
}

TEST(RunSettingsTest, RoundTripsThroughTheEnvironment) {
  RunSettings settings;
  settings.output_dir = "/tmp/bankcheck-run-test";
  settings.kernel_pattern = "scale|transpose";
  settings.range_pattern = "^gemm/";
  settings.max_launches = 12;
  settings.attribute = true;
  settings.measure_once = true;
  for (const auto& [name, value] : settings.ToEnvironment()) ::setenv(name.c_str(), value.c_str(), 1);
  const std::optional<RunSettings> read = RunSettings::FromEnvironment();
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->output_dir, settings.output_dir);
  EXPECT_EQ(read->kernel_pattern, settings.kernel_pattern);
  EXPECT_EQ(read->range_pattern, settings.range_pattern);
  EXPECT_EQ(read->max_launches, 12u);
  EXPECT_TRUE(read->attribute);
  EXPECT_TRUE(read->measure_once);

  ::setenv("BANKCHECK_RUN_MAX_LAUNCHES", "-3", 1);
  EXPECT_THROW(RunSettings::FromEnvironment(), Error);
  ::unsetenv("BANKCHECK_RUN_DIR");
  EXPECT_FALSE(RunSettings::FromEnvironment().has_value());
  for (const auto& [name, value] : settings.ToEnvironment()) ::unsetenv(name.c_str());
}

TEST(CombineProcessResultsTest, KeepsEveryProcesssCases) {
  RunResults first;
  first.metadata.arch = "sm_90";
  first.cases = RunCases({Launch("scale", "", 0)});
  RunResults second = first;
  second.cases = RunCases({Launch("scale", "", 0), Launch("transpose", "", 1)});
  const RunResults combined = CombineProcessResults({first, second});
  EXPECT_EQ(combined.metadata.arch, "sm_90");
  EXPECT_THAT(combined.cases, ElementsAre(Key("scale"), Key("scale (process 2)"), Key("transpose")));
  EXPECT_EQ(combined.cases.at("scale (process 2)").name, "scale (process 2)");

  second.metadata.arch = "sm_80";
  EXPECT_THROW(CombineProcessResults({first, second}), Error);
}

TEST(LaunchConfigurationKeyTest, EqualExactlyWhenEveryFieldIs) {
  const std::string args("\x00\x10\x20", 3);
  const std::string key = LaunchConfigurationKey("gemm/128", "_Z4gemmPf", {8, 8, 1}, {256, 1, 1}, 0, args);
  EXPECT_EQ(key, LaunchConfigurationKey("gemm/128", "_Z4gemmPf", {8, 8, 1}, {256, 1, 1}, 0, args));
  EXPECT_NE(key, LaunchConfigurationKey("gemm/256", "_Z4gemmPf", {8, 8, 1}, {256, 1, 1}, 0, args));
  EXPECT_NE(key, LaunchConfigurationKey("gemm/128", "_Z4gemmPd", {8, 8, 1}, {256, 1, 1}, 0, args));
  EXPECT_NE(key, LaunchConfigurationKey("gemm/128", "_Z4gemmPf", {8, 1, 8}, {256, 1, 1}, 0, args));
  EXPECT_NE(key, LaunchConfigurationKey("gemm/128", "_Z4gemmPf", {8, 8, 1}, {128, 2, 1}, 0, args));
  EXPECT_NE(key, LaunchConfigurationKey("gemm/128", "_Z4gemmPf", {8, 8, 1}, {256, 1, 1}, 1024, args));
  EXPECT_NE(key, LaunchConfigurationKey("gemm/128", "_Z4gemmPf", {8, 8, 1}, {256, 1, 1}, 0, args + '\0'));
  // Length-prefixed: a range ending like a kernel's name cannot stand in for it.
  EXPECT_NE(LaunchConfigurationKey("a:", "b", {}, {}, 0, ""),
            LaunchConfigurationKey("a", ":b", {}, {}, 0, ""));
}

}  // namespace
}  // namespace bankcheck::internal
