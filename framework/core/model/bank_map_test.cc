#include "bankcheck/core/bank_map.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"

namespace bankcheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string TextFor(uint32_t bytes, int64_t stride, int active = 32, uint64_t offset = 0,
                    bool color = false) {
  BankMapOptions options;
  options.color = color;
  return RenderBankMapText(ExplainWarpAccess(WarpAccess::Strided(bytes, stride, active, offset)), options);
}

// The line of `text` that contains `needle`, or "" when none does.
std::string LineWith(const std::string& text, const std::string& needle) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(needle) != std::string::npos) return line;
  }
  return "";
}

TEST(FormatLaneRangesTest, CollapsesRuns) {
  EXPECT_EQ(FormatLaneRanges({}), "");
  EXPECT_EQ(FormatLaneRanges({7}), "7");
  EXPECT_EQ(FormatLaneRanges({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(FormatLaneRanges({0, 1}), "0,1");
  EXPECT_EQ(FormatLaneRanges({0, 16}), "0,16");
  EXPECT_EQ(FormatLaneRanges({0, 1, 2, 8, 16, 17, 18, 31}), "0-2,8,16-18,31");
}

TEST(DescribeWarpCostTest, SaysEverything) {
  EXPECT_EQ(DescribeWarpCost(CostWarpAccess(WarpAccess::Strided(4, 2))),
            "2 wavefronts, ideal 1, 1 conflict (2-way)");
  EXPECT_EQ(DescribeWarpCost(CostWarpAccess(WarpAccess::Strided(4, 1))),
            "1 wavefront, ideal 1, 0 conflicts (1-way)");
  // Phase 0 (lanes 0-7) is 2-way, phase 1 holds lane 8 alone.
  EXPECT_EQ(DescribeWarpCost(CostWarpAccess(WarpAccess::Strided(16, 2, 9))),
            "3 wavefronts, ideal 2, 1 conflict (1.5-way)");
}

TEST(BankMapTextTest, StrideTwoShowsPairsOfWords) {
  const std::string text = TextFor(4, 2);
  EXPECT_THAT(text, StartsWith("4-byte access, 32 active lanes, 1 phase of 32 lanes: 2 wavefronts, ideal 1, "
                               "1 conflict (2-way)\n"));
  EXPECT_THAT(text, HasSubstr("phase 0 (lanes 0-31): 2 wavefronts, worst bank 0 (2 words), 16 banks idle"));
  EXPECT_THAT(LineWith(text, "bank  0 "), HasSubstr("lanes 0,16"));
  EXPECT_THAT(LineWith(text, "bank  0 "), HasSubstr("words 0x0 0x80"));
  EXPECT_THAT(LineWith(text, "bank  0 "), HasSubstr("<- worst bank"));
  EXPECT_THAT(LineWith(text, "bank 30 "), HasSubstr("lanes 15,31"));
  EXPECT_THAT(LineWith(text, "bank 30 "), Not(HasSubstr("worst")));
  EXPECT_EQ(LineWith(text, "bank  1 "), "");  // idle banks are not listed
  EXPECT_THAT(text, Not(HasSubstr("\033[")));
}

TEST(BankMapTextTest, ThirtyTwoWayConflictListsEveryWord) {
  const std::string text = TextFor(4, 32, 32, 20);
  const std::string line = LineWith(text, "bank  5 ");
  EXPECT_THAT(line, HasSubstr("lanes 0-31"));
  EXPECT_THAT(line, HasSubstr("words 0x14 0x94 0x114"));
  EXPECT_THAT(line, HasSubstr("0xf94  <- worst bank"));
  EXPECT_THAT(text, HasSubstr("worst bank 5 (32 words), 31 banks idle"));
}

TEST(BankMapTextTest, WideAccessesShowEveryPhase) {
  const std::string text = TextFor(8, 2);
  EXPECT_THAT(text, HasSubstr("2 phases of 16 lanes: 4 wavefronts, ideal 2, 2 conflicts (2-way)"));
  EXPECT_THAT(text, HasSubstr("phase 0 (lanes 0-15): 2 wavefronts"));
  EXPECT_THAT(text, HasSubstr("phase 1 (lanes 16-31): 2 wavefronts"));
  // Lane 0's 8 bytes are words 0 and 1 (banks 0 and 1); lane 8 at byte 128 hits the same banks.
  EXPECT_THAT(LineWith(text, "bank  1 "), HasSubstr("lanes 0,8"));
}

TEST(BankMapTextTest, IdlePhasesAreSaidToBeIdle) {
  const std::string text = TextFor(16, 1, 8);
  EXPECT_THAT(text, HasSubstr("8 active lanes, 4 phases of 8 lanes: 1 wavefront, ideal 1"));
  EXPECT_THAT(text, HasSubstr("phase 1 (lanes 8-15): no active lane"));
  EXPECT_THAT(text, HasSubstr("phase 3 (lanes 24-31): no active lane"));
}

TEST(BankMapTextTest, ColourMarksTheWorstBank) {
  const std::string text = TextFor(4, 2, 32, 0, /*color=*/true);
  EXPECT_THAT(LineWith(text, "bank  0 "), StartsWith("\033[1;31m"));
  EXPECT_THAT(LineWith(text, "bank  2 "), StartsWith("\033[33m"));  // conflicting, not the worst
  // A conflict-free map has nothing to alarm anyone.
  EXPECT_THAT(TextFor(4, 1, 32, 0, true), Not(HasSubstr("\033[1;31m")));
}

TEST(BankMapTextTest, EmptyAccess) {
  const std::string text = RenderBankMapText(ExplainWarpAccess(WarpAccess{}));
  EXPECT_THAT(text, HasSubstr("0 active lanes"));
  EXPECT_THAT(text, HasSubstr("no active lane"));
}

// Checks that every element is closed in order, without parsing XML: a stack of tag names.
// Returns "" when balanced, else what went wrong.
std::string TagBalanceProblem(const std::string& svg) {
  std::vector<std::string> open;
  size_t pos = 0;
  while ((pos = svg.find('<', pos)) != std::string::npos) {
    const size_t end = svg.find('>', pos);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(pos);
    const std::string tag = svg.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '?' || tag[0] == '!') continue;
    if (tag.back() == '/') continue;  // self-closing
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes " + (open.empty() ? "nothing" : open.back());
      open.pop_back();
      continue;
    }
    open.push_back(tag.substr(0, tag.find_first_of(" \t\n")));
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return "";
}

TEST(BankMapSvgTest, IsBalancedAndNamesTheWorstBank) {
  const std::string svg = RenderBankMapSvg(ExplainWarpAccess(WarpAccess::Strided(4, 32, 32, 20)));
  EXPECT_THAT(svg, StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(TagBalanceProblem(svg), "");
  EXPECT_THAT(svg, HasSubstr("worst bank 5 in phase 0: 32 distinct words"));
  EXPECT_THAT(svg, HasSubstr("phase 0, bank 5: lanes 0-31; words 0x14"));
  EXPECT_THAT(svg, HasSubstr("stroke-width=\"3\""));  // the worst cell is outlined
  EXPECT_EQ(svg.find('&'), std::string::npos);        // nothing needed escaping here
}

TEST(BankMapSvgTest, EveryShapeIsBalanced) {
  for (uint32_t bytes : {1u, 2u, 4u, 8u, 16u}) {
    for (int64_t stride : {0, 1, 2, 3, 32, 33}) {
      const std::string svg = RenderBankMapSvg(ExplainWarpAccess(WarpAccess::Strided(bytes, stride)));
      EXPECT_EQ(TagBalanceProblem(svg), "") << bytes << " bytes, stride " << stride;
      EXPECT_THAT(svg, HasSubstr("worst bank ")) << bytes << " bytes, stride " << stride;
    }
  }
  const std::string empty = RenderBankMapSvg(ExplainWarpAccess(WarpAccess{}));
  EXPECT_EQ(TagBalanceProblem(empty), "");
  EXPECT_THAT(empty, HasSubstr("no active lane"));
}

}  // namespace
}  // namespace bankcheck
