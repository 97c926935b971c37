#include "testing/internal/held_results.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace bankcheck::gtest {
namespace {

TEST(HeldResultsTest, HoldsWhatTheCodeReportsInOrderAndTheTestPasses) {
  std::vector<::testing::TestPartResult> held;
  size_t while_held = 0;
  {
    HeldResults results(HeldResults::Threads::kThisThread);
    ADD_FAILURE() << "first";
    while_held = results.size();
    EXPECT_EQ(1, 2) << "second";
    held = results.Release();
  }
  EXPECT_EQ(while_held, 1u);
  ASSERT_EQ(held.size(), 2u);
  EXPECT_TRUE(held[0].failed());
  EXPECT_NE(std::string(held[0].message()).find("first"), std::string::npos) << held[0].message();
  EXPECT_NE(std::string(held[1].message()).find("second"), std::string::npos) << held[1].message();
}

TEST(HeldResultsTest, AfterReleaseResultsGoToTheTestAgain) {
  EXPECT_NONFATAL_FAILURE(
      {
        HeldResults results(HeldResults::Threads::kThisThread);
        ADD_FAILURE() << "held";
        results.Release();
        ADD_FAILURE() << "reported";
      },
      "reported");
}

TEST(HeldResultsTest, AllThreadsHoldsAnotherThreadsFailure) {
  HeldResults results(HeldResults::Threads::kAll);
  std::thread([] { ADD_FAILURE() << "from another thread"; }).join();
  const std::vector<::testing::TestPartResult> held = results.Release();
  ASSERT_EQ(held.size(), 1u);
  EXPECT_NE(std::string(held[0].message()).find("from another thread"), std::string::npos);
}

TEST(HeldResultsTest, ReportAgainReportsAResultAsItWasReported) {
  std::vector<::testing::TestPartResult> held;
  {
    HeldResults results(HeldResults::Threads::kThisThread);
    ADD_FAILURE_AT("kernels/k.cu", 12) << "output differs";
    held = results.Release();
  }
  ASSERT_EQ(held.size(), 1u);
  EXPECT_NONFATAL_FAILURE(ReportAgain(held[0]), "output differs");
  EXPECT_STREQ(held[0].file_name(), "kernels/k.cu");
  EXPECT_EQ(held[0].line_number(), 12);
}

}  // namespace
}  // namespace bankcheck::gtest
