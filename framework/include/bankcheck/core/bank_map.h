#pragma once
// Bank maps: a warp access's per-phase, per-bank breakdown drawn for people, as plain text (what
// `bankcheck explain` prints and what failure messages show) or as an SVG picture.

#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"

namespace bankcheck {

struct BankMapOptions {
  bool color = false;  // ANSI colours: worst bank red, other conflicting banks yellow
};

// One line: "2 wavefronts, ideal 1, 1 conflict (2-way)".
std::string DescribeWarpCost(const WarpCost& cost);

// "0-3,8,10-11": ascending lanes with runs collapsed.
std::string FormatLaneRanges(const std::vector<int>& lanes);

// A heading line for the whole access, then per phase a line with its cost and worst bank, and
// one line per bank the phase touches (lanes, then the byte address of each distinct word); the
// worst bank's line ends in "<- worst bank". Idle banks are counted, not listed.
//
//   4-byte access, 32 active lanes, 1 phase of 32 lanes: 2 wavefronts, ideal 1, 1 conflict (2-way)
//   phase 0 (lanes 0-31): 2 wavefronts, worst bank 0 (2 words), 16 banks idle
//     bank  0  lanes 0,16     words 0x0 0x80  <- worst bank
//     bank  2  lanes 1,17     words 0x8 0x88
//     ...
std::string RenderBankMapText(const WarpExplanation& explanation, const BankMapOptions& options = {});

// The same breakdown as a standalone SVG document (phases as rows, banks as columns, each cell
// holding the number of distinct words, with lanes and words in its tooltip; the worst bank
// outlined and named in the caption).
std::string RenderBankMapSvg(const WarpExplanation& explanation);

}  // namespace bankcheck
