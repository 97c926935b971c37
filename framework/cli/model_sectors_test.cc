// `bankcheck predict` and `explain` with --op ldg, stg, ldgsts_g, ldl, stl: the sector model
// (memory_sectors.h) through the built binary, on the patterns the H200 measured.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/platform/test_support.h"

#ifndef BANKCHECK_CLI_PATH
#error "BANKCHECK_CLI_PATH must name the bankcheck binary"
#endif

namespace {

using bankcheck::testing_support::CliRun;
using ::testing::HasSubstr;

class ModelSectorsTest : public bankcheck::testing_support::TempDirTest {
 protected:
  CliRun Bankcheck(const std::string& arguments) {
    return bankcheck::testing_support::RunCli(BANKCHECK_CLI_PATH, arguments, dir_);
  }
  nlohmann::json Predict(const std::string& arguments) {
    const CliRun run = Bankcheck("predict --json " + arguments);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return nlohmann::json::parse(run.out);
  }
};

TEST_F(ModelSectorsTest, GlobalSectorsAndIdealPerWarp) {
  const nlohmann::json stride2 = Predict("--op ldg --bytes 4 --stride 2");
  EXPECT_EQ(stride2.at("op"), "ldg");
  EXPECT_EQ(stride2.at("sectors"), 8);
  EXPECT_EQ(stride2.at("ideal"), 4);
  EXPECT_EQ(stride2.at("active_lanes"), 32);
  EXPECT_EQ(Predict("--op ldg --bytes 4 --stride 32").at("sectors"), 32);
  const nlohmann::json float4 = Predict("--op ldg --bytes 16 --stride 1 --offset 16");
  EXPECT_EQ(float4.at("sectors"), 17);
  EXPECT_EQ(float4.at("ideal"), 16);
  const nlohmann::json partial = Predict("--op stg --bytes 4 --stride 3 --active 12");
  EXPECT_EQ(partial.at("sectors"), 5);
  EXPECT_EQ(partial.at("ideal"), 2);
  EXPECT_EQ(Predict("--op stg --bytes 1 --stride 1").at("sectors"), 1);
}

TEST_F(ModelSectorsTest, CpAsyncGlobalReadsTakeTheGlobalRule) {
  // A 16-byte cp.async from contiguous sources reads 16 sectors, from sources 32 bytes apart 32;
  // its shared side (--op ldgsts) is the bank model's.
  const nlohmann::json contiguous = Predict("--op ldgsts_g --bytes 16 --stride 1");
  EXPECT_EQ(contiguous.at("op"), "ldgsts_g");
  EXPECT_EQ(contiguous.at("sectors"), 16);
  EXPECT_EQ(contiguous.at("ideal"), 16);
  const nlohmann::json apart = Predict("--op ldgsts_g --bytes 16 --stride 2");
  EXPECT_EQ(apart.at("sectors"), 32);
  EXPECT_EQ(apart.at("ideal"), 16);
  EXPECT_EQ(Predict("--op ldgsts_g --bytes 4 --stride 1 --active 8").at("sectors"), 1);
  EXPECT_THAT(Bankcheck("predict --op ldgsts_g --bytes 8 --stride 1").out,
              HasSubstr("8-byte cp.async global read (LDGSTS), 32 active lanes: 8 sectors"));
}

TEST_F(ModelSectorsTest, LocalOffsetsInterleaveAcrossTheWarp) {
  const nlohmann::json spill = Predict("--op stl --bytes 4 --stride 0 --offset 16");
  EXPECT_EQ(spill.at("sectors"), 4);
  EXPECT_TRUE(spill.at("ideal").is_null());
  EXPECT_EQ(Predict("--op ldl --bytes 8 --stride 0").at("sectors"), 8);
  const CliRun text = Bankcheck("predict --op ldl --bytes 4 --stride 0 --active 9");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(
      text.out,
      "4-byte local load (LDL) at local offsets, 9 active lanes: 2 sectors (local memory has no ideal)\n");
}

TEST_F(ModelSectorsTest, TextSaysTheExcessAndExplainListsEachSectorsLanes) {
  const CliRun predict = Bankcheck("predict --op ldg --bytes 4 --stride 2");
  EXPECT_EQ(predict.out, "4-byte global load (LDG), 32 active lanes: 8 sectors, ideal 4 (4 more)\n");
  const CliRun explain = Bankcheck("explain --op ldg --bytes 4 --addresses 0,4,64,-,100");
  EXPECT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_EQ(explain.out,
            "4-byte global load (LDG), 4 active lanes: 3 sectors, ideal 1 (2 more)\n"
            "  sector 0x0-0x1f: lanes 0 1\n"
            "  sector 0x40-0x5f: lanes 2\n"
            "  sector 0x60-0x7f: lanes 4\n");
  EXPECT_THAT(Bankcheck("explain --op stl --bytes 4 --stride 0").out, HasSubstr("(o / 4) * 128 + L * 4"));
}

TEST_F(ModelSectorsTest, BadInputSaysWhatToDo) {
  const CliRun svg = Bankcheck("explain --op ldg --bytes 4 --stride 1 --svg map.svg");
  EXPECT_EQ(svg.exit_code, 2);
  EXPECT_THAT(svg.err, HasSubstr("leave --svg out"));
  const CliRun atomics = Bankcheck("predict --op atomg --bytes 4 --stride 1");
  EXPECT_EQ(atomics.exit_code, 2);
  EXPECT_THAT(atomics.err, HasSubstr("no rule for global atomics"));
  EXPECT_THAT(atomics.err, HasSubstr("ldg, stg, ldl, stl"));
  EXPECT_EQ(Bankcheck("predict --op ldg --bytes 4 --addresses 0,2").exit_code, 2);  // misaligned
}

}  // namespace
