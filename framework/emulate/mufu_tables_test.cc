// The MUFU tables built into the library (mufu_tables.h): their outputs are the GPU's recorded ones
// (conformance/vectors.txt, form_mufu_rcp, _rsq, _sqrt: special inputs, edges and random bits over
// the whole range), a copy that is corrupt, cut short or not the measured one gives no table, and in
// a launch MUFU.RCP, .RSQ and .SQRT are computed while the functions without a model, or without
// their table, are not.
#include "emulate/internal/mufu_tables.h"

#include <gmock/gmock.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"

namespace bankcheck::emulate::internal {
namespace {

using ::testing::HasSubstr;

// The recorded rows (three inputs, then the three outputs) of `form` in the conformance vectors.
std::vector<std::vector<uint32_t>> RecordedRows(const std::string& form) {
  std::ifstream file(BANKCHECK_CONFORMANCE_VECTORS);
  std::string line;
  std::vector<std::vector<uint32_t>> rows;
  bool in_form = false;
  while (std::getline(file, line)) {
    if (line.rfind("form ", 0) == 0) {
      in_form = line.rfind("form " + form + " ", 0) == 0;
      continue;
    }
    if (!in_form) continue;
    std::istringstream words(line);
    std::vector<uint32_t> row;
    std::string word;
    while (words >> word) row.push_back(static_cast<uint32_t>(std::stoul(word, nullptr, 16)));
    rows.push_back(row);
  }
  return rows;
}

std::vector<uint8_t> DataFile(const std::string& name) {
  std::ifstream file(std::string(BANKCHECK_MUFU_DATA_DIR) + "/" + name, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

TEST(MufuTablesTest, BuiltInTablesGiveTheGpusRecordedOutputs) {
  const struct {
    MufuFunction f;
    const char* form;
  } kForms[] = {{MufuFunction::kRcp, "form_mufu_rcp"},
                {MufuFunction::kRsq, "form_mufu_rsq"},
                {MufuFunction::kSqrt, "form_mufu_sqrt"}};
  for (const auto& [f, form] : kForms) {
    const MufuTable& table = BuiltInMufuTable(f);
    ASSERT_TRUE(table.ok()) << table.why();
    const std::vector<std::vector<uint32_t>> rows = RecordedRows(form);
    ASSERT_EQ(rows.size(), 256u) << form;
    for (const std::vector<uint32_t>& row : rows) {
      ASSERT_EQ(row.size(), 6u) << form;
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(table.Output(row[k]), row[3 + k]) << form << " of 0x" << std::hex << row[k];
    }
  }
}

TEST(MufuTablesTest, ACorruptOrWrongCopyGivesNoTable) {
  const std::vector<uint8_t> rcp = DataFile("mufu_rcp.i8.gz");
  ASSERT_GT(rcp.size(), 100000u);
  constexpr uint32_t kRcpCrc32 = 0x203b808eu;  // mufu_tables.cc's
  const MufuTable good(MufuFunction::kRcp, rcp.data(), rcp.size(), kRcpCrc32);
  ASSERT_TRUE(good.ok()) << good.why();
  EXPECT_EQ(good.Output(0x40000000u), 0x3f000000u);  // 1/2

  std::vector<uint8_t> flipped = rcp;
  flipped[flipped.size() / 2] ^= 0x10;
  const MufuTable corrupt(MufuFunction::kRcp, flipped.data(), flipped.size(), kRcpCrc32);
  EXPECT_FALSE(corrupt.ok());
  EXPECT_THAT(corrupt.why(), HasSubstr("MUFU.RCP's table, built into the library, cannot be read: zlib: "));

  const MufuTable cut(MufuFunction::kRcp, rcp.data(), rcp.size() / 2, kRcpCrc32);
  EXPECT_FALSE(cut.ok());
  EXPECT_THAT(cut.why(), HasSubstr("cannot be read: it is truncated"));

  const MufuTable unpinned(MufuFunction::kRcp, rcp.data(), rcp.size(), kRcpCrc32 ^ 1);
  EXPECT_FALSE(unpinned.ok());
  EXPECT_THAT(
      unpinned.why(),
      HasSubstr("cannot be read: its CRC-32 is not the pinned one (not the table measured on the GPU)"));

  const std::vector<uint8_t> rsq = DataFile("mufu_rsq.i8.gz");  // 2^24 entries, not 2^23
  const MufuTable other(MufuFunction::kRcp, rsq.data(), rsq.size(), kRcpCrc32);
  EXPECT_FALSE(other.ok());
  EXPECT_THAT(other.why(), HasSubstr("more than 8388608 bytes"));
}

TEST(MufuTablesTest, OnlyRcpRsqAndSqrtAreModelled) {
  const auto mufu = [](std::vector<std::string> modifiers) {
    Instruction in;
    in.base = "MUFU";
    in.modifiers = std::move(modifiers);
    return ModelledMufu(in);
  };
  EXPECT_EQ(mufu({"RCP"}), MufuFunction::kRcp);
  EXPECT_EQ(mufu({"RSQ"}), MufuFunction::kRsq);
  EXPECT_EQ(mufu({"SQRT"}), MufuFunction::kSqrt);
  EXPECT_EQ(mufu({"EX2"}), std::nullopt);
  EXPECT_EQ(mufu({"RCP64H"}), std::nullopt);
  EXPECT_EQ(mufu({"RSQ", "F16"}), std::nullopt);
}

// In a launch: the lane's index plus one as a float, through `op` into R6, truncated into the
// address R5.
std::string Through(const std::string& op) {
  return "IADD3 R7, R0, 0x1, RZ ;\n        /*0042*/ I2FP.F32.U32 R4, R7 ;\n        /*0044*/ " + op +
         " ;\n        /*0048*/ F2I.TRUNC.NTZ R5, R6";
}

TEST(MufuTablesTest, ALaunchComputesTheModelledFunctions) {
  for (const char* op : {"MUFU.RCP R6, R4", "MUFU.RSQ R6, R4", "MUFU.SQRT R6, R4", "MUFU.RSQ R6, |R4|"}) {
    const Emulation emulation = test_support::EmulateAddressFrom(Through(op));
    EXPECT_TRUE(emulation.record) << op << ": " << emulation.undecided->Describe();
  }
  EXPECT_THAT(test_support::WhyAddressUndecided(Through("MUFU.EX2 R6, R4")),
              HasSubstr("form MUFU.EX2 (MUFU.EX2 at pc 0x0044), not among the forms"));
}

// Without its table a function's outputs are unknown, the reason naming the table and what failed;
// the other functions are still computed.
TEST(MufuTablesTest, WithoutItsTableAFunctionIsUnknownSayingWhy) {
  std::vector<uint8_t> rsq = DataFile("mufu_rsq.i8.gz");
  ASSERT_GT(rsq.size(), 100000u);
  rsq[rsq.size() / 2] ^= 0x10;
  const MufuTable corrupt(MufuFunction::kRsq, rsq.data(), rsq.size(), 0x6782b986u);
  ASSERT_FALSE(corrupt.ok());
  const MufuTableForTesting without(MufuFunction::kRsq, corrupt);
  const std::string why = test_support::WhyAddressUndecided(Through("MUFU.RSQ R6, R4"));
  EXPECT_THAT(why, HasSubstr("MUFU.RSQ's table, built into the library, cannot be read: "));
  EXPECT_THAT(why, HasSubstr("(MUFU.RSQ at pc 0x0044)"));
  const Emulation sqrt = test_support::EmulateAddressFrom(Through("MUFU.SQRT R6, R4"));
  EXPECT_TRUE(sqrt.record) << sqrt.undecided->Describe();
}

}  // namespace
}  // namespace bankcheck::emulate::internal
