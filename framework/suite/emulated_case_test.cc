// How the emulated program reports a case's own checks: output checks (after the case read back what
// its kernels would have written) as not evaluated, at their lines; everything else as it was.
#include "suite/internal/emulated_case.h"

#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/error.h"

namespace bankcheck::suites {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Reads back (the stand-in runtime's cudaMemcpy to the host after a launch) when the case says so:
// bytes not computed unless told otherwise.
class ReadBackEmulation final : public internal::LaunchEmulation {
 public:
  void Start() override {}
  std::vector<LaunchRecord> Finish() override { return {}; }
  void Abandon() override {}
  std::string TakeNotEmulated() override { return std::exchange(not_emulated_, ""); }
  void BeginCase() override {
    ++cases_;
    not_computed_.clear();
  }
  void ObserveOutputReadBack(std::function<void(const std::string&)> observer) override {
    observer_ = std::move(observer);
  }
  std::string OutputNotComputed() const override { return not_computed_; }
  void SetProjectSources(const std::string&, const std::string&) override {}

  void ReadBack(const std::string& not_computed = "the kernels did not run") {
    if (not_computed_.empty()) not_computed_ = not_computed;
    if (observer_) observer_(not_computed);
  }
  void NoteNotEmulated(std::string why) { not_emulated_ = std::move(why); }
  int cases_ = 0;
  std::function<void(const std::string&)> observer_;

 private:
  std::string not_emulated_;
  std::string not_computed_;
};

// What `run` reported to GoogleTest, held back from the running test. Intercepted for all threads,
// as RunEmulatedCase intercepts: a reporter for this thread alone would take what it reports first.
std::vector<::testing::TestPartResult> Reported(const std::function<void()>& run) {
  ::testing::TestPartResultArray reported;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ALL_THREADS, &reported);
    run();
  }
  std::vector<::testing::TestPartResult> results;
  for (int i = 0; i < reported.size(); ++i) results.push_back(reported.GetTestPartResult(i));
  return results;
}

KernelCase CaseRunning(std::function<void(CaseContext&)> run) {
  KernelCase c;
  c.name = "t/a";
  c.run = std::move(run);
  return c;
}

TEST(EmulatedCaseTest, ChecksAfterTheReadBackAreNotEvaluatedAndNamedByTheirLines) {
  ReadBackEmulation emulation;
  int output_line = 0;
  const KernelCase c = CaseRunning([&](CaseContext&) {
    emulation.ReadBack();
    for (int i = 0; i < 1000; ++i) {
      output_line = __LINE__ + 1;
      EXPECT_EQ(i + 1, 0) << "element " << i;
    }
    ASSERT_TRUE(false) << "a fatal output check";
  });
  CaseContext context;
  EmulatedCaseRun run;
  run = RunEmulatedCase(c, context, emulation);  // reports nothing: no EXPECT_*_FAILURE around it
  EXPECT_FALSE(::testing::Test::HasFailure());
  EXPECT_EQ(emulation.cases_, 1);
  EXPECT_EQ(run.unevaluated_failures, 1001u);
  ASSERT_EQ(run.unevaluated_checks.size(), 2u);
  EXPECT_THAT(run.unevaluated_checks[0],
              StartsWith(std::string(__FILE__) + ":" + std::to_string(output_line) + ": Expected equality"));
  EXPECT_THAT(run.unevaluated_checks[0], HasSubstr("element 0"));
  EXPECT_THAT(run.unevaluated_checks[1], HasSubstr("a fatal output check"));
  EXPECT_FALSE(emulation.observer_) << "the observer is the running case's alone";

  const std::string note = UnevaluatedChecksNote(run, 1);
  EXPECT_THAT(note, HasSubstr("1001 output check failures at 2 lines not evaluated"));
  EXPECT_THAT(note, HasSubstr(":" + std::to_string(output_line) + ": "));
  EXPECT_THAT(note, HasSubstr("... and 1 more lines"));
  EXPECT_EQ(UnevaluatedChecksNote(EmulatedCaseRun{}), "");
}

TEST(EmulatedCaseTest, ChecksBeforeTheReadBackFailAsUsual) {
  ReadBackEmulation emulation;
  const KernelCase c = CaseRunning([&](CaseContext&) {
    EXPECT_EQ(1, 2) << "a host check";
    emulation.ReadBack();
    EXPECT_EQ(3, 4) << "an output check";
  });
  CaseContext context;
  EmulatedCaseRun run;
  const auto reported = Reported([&] { run = RunEmulatedCase(c, context, emulation); });
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_TRUE(reported[0].nonfatally_failed());
  EXPECT_THAT(reported[0].message(), HasSubstr("a host check"));
  EXPECT_EQ(run.unevaluated_failures, 1u);
  EXPECT_THAT(run.unevaluated_checks, ElementsAre(HasSubstr("an output check")));
  EXPECT_EQ(run.output, "not computed: the kernels did not run");
}

TEST(EmulatedCaseTest, ChecksOfComputedOutputsCountAsFailuresUntilAReadBackIsNotComputed) {
  ReadBackEmulation emulation;
  const KernelCase c = CaseRunning([&](CaseContext&) {
    emulation.ReadBack("");
    EXPECT_EQ(1, 2) << "a check of a computed output";
    emulation.ReadBack("a store's value is unknown");
    EXPECT_EQ(3, 4) << "a check after bytes not computed were read";
  });
  CaseContext context;
  EmulatedCaseRun run;
  const auto reported = Reported([&] { run = RunEmulatedCase(c, context, emulation); });
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_THAT(reported[0].message(), HasSubstr("a check of a computed output"));
  EXPECT_THAT(run.unevaluated_checks, ElementsAre(HasSubstr("a check after bytes not computed")));
  EXPECT_EQ(run.output, "not computed: a store's value is unknown");
}

TEST(EmulatedCaseTest, TheOutputStatusSaysWhetherTheChecksRanAndPassed) {
  ReadBackEmulation emulation;
  CaseContext context;
  const KernelCase passes = CaseRunning([&](CaseContext&) {
    emulation.ReadBack("");
    EXPECT_EQ(1, 1);
  });
  EXPECT_EQ(RunEmulatedCase(passes, context, emulation).output, "passed");
  const KernelCase fails = CaseRunning([&](CaseContext&) {
    emulation.ReadBack("");
    EXPECT_EQ(1, 2) << "computed and wrong";
  });
  EmulatedCaseRun run;
  const auto reported = Reported([&] { run = RunEmulatedCase(fails, context, emulation); });
  EXPECT_EQ(reported.size(), 1u);
  EXPECT_EQ(run.output, "failed");
  EXPECT_EQ(run.unevaluated_failures, 0u);
  const KernelCase reads_nothing = CaseRunning([](CaseContext&) {});
  EXPECT_THAT(RunEmulatedCase(reads_nothing, context, emulation).output, StartsWith("no output checks: "));
  const KernelCase undecided = CaseRunning([&](CaseContext&) {
    emulation.ReadBack("");
    emulation.NoteNotEmulated("not decided: a branch on a loaded value");
  });
  EXPECT_EQ(RunEmulatedCase(undecided, context, emulation).output, "not computed: the case was not decided");
}

TEST(EmulatedCaseTest, WithoutAReadBackEveryFailureCounts) {
  ReadBackEmulation emulation;
  const KernelCase c = CaseRunning([&](CaseContext&) { ASSERT_TRUE(false) << "never read back"; });
  CaseContext context;
  EmulatedCaseRun run;
  const auto reported = Reported([&] { run = RunEmulatedCase(c, context, emulation); });
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_TRUE(reported[0].fatally_failed());
  EXPECT_THAT(reported[0].message(), HasSubstr("never read back"));
  EXPECT_EQ(run.unevaluated_failures, 0u);
}

TEST(EmulatedCaseTest, ASkipAndTheReasonsToSkipAreKept) {
  ReadBackEmulation emulation;
  const KernelCase tools = CaseRunning([&](CaseContext&) {
    emulation.ReadBack();
    throw Error(ErrorKind::kToolMissing, "cannot run nvdisasm");
  });
  CaseContext context;
  EmulatedCaseRun run = RunEmulatedCase(tools, context, emulation);
  EXPECT_EQ(run.tool_missing, "cannot run nvdisasm");

  const KernelCase graph = CaseRunning([&](CaseContext&) {
    emulation.NoteNotEmulated("not emulated: cudaGraphLaunch");
    throw Error(ErrorKind::kCuda, "cudaGraphLaunch failed");  // what the case's CUDA check made of it
  });
  run = RunEmulatedCase(graph, context, emulation);
  EXPECT_EQ(run.not_emulated, "not emulated: cudaGraphLaunch");

  const KernelCase other = CaseRunning([&](CaseContext&) {
    EXPECT_EQ(1, 2) << "reported before the error propagates";
    throw Error(ErrorKind::kBadInput, "a fatbin without sm_90 code");
  });
  const auto reported = Reported([&] { EXPECT_THROW(RunEmulatedCase(other, context, emulation), Error); });
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_THAT(reported[0].message(), HasSubstr("reported before the error propagates"));
}

TEST(EmulatedCaseTest, ACaseThatSkipsItselfStillSkips) {
  ReadBackEmulation emulation;
  const KernelCase c = CaseRunning([&](CaseContext&) {
    emulation.ReadBack();
    GTEST_SKIP() << "needs sm_90a";
  });
  CaseContext context;
  const auto reported = Reported([&] { RunEmulatedCase(c, context, emulation); });
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_TRUE(reported[0].skipped());
  EXPECT_THAT(reported[0].message(), HasSubstr("needs sm_90a"));
}

}  // namespace
}  // namespace bankcheck::suites
