#include "bankcheck/core/bank_map.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "core/model/svg.h"

namespace bankcheck {
namespace {

constexpr const char* kAnsiReset = "\033[0m";
constexpr const char* kAnsiBold = "\033[1m";
constexpr const char* kAnsiWorst = "\033[1;31m";   // bold red
constexpr const char* kAnsiConflict = "\033[33m";  // yellow
constexpr const char* kAnsiDim = "\033[2m";

std::string Plural(uint64_t n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

std::string Hex(uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

// Byte addresses of the words, space separated.
std::string FormatWords(const std::vector<uint64_t>& words) {
  std::string text;
  for (uint64_t word : words) {
    if (!text.empty()) text += ' ';
    text += Hex(word * kBankWordBytes);
  }
  return text;
}

std::string FormatWays(double ways) {
  std::ostringstream out;
  out << std::setprecision(3) << ways << "-way";
  return out.str();
}

std::string AccessHeading(const WarpExplanation& explanation) {
  const WarpAccess& access = explanation.access;
  const int active = __builtin_popcount(access.active_mask);
  const size_t phases = explanation.phases.size();
  const int lanes_per_phase = phases == 0 ? kWarpSize : explanation.phases.front().lane_count;
  return std::to_string(access.bytes) + "-byte access, " +
         Plural(static_cast<uint64_t>(active), "active lane", "active lanes") + ", " +
         Plural(phases, "phase", "phases") + " of " + std::to_string(lanes_per_phase) +
         " lanes: " + DescribeWarpCost(explanation.cost);
}

// Cell colour by distinct words in the bank: idle grey, one word green, then warmer.
const char* CellFill(size_t words) {
  if (words == 0) return "#eeeeee";
  if (words == 1) return "#a6d96a";
  if (words == 2) return "#fee08b";
  if (words <= 4) return "#fdae61";
  return "#d73027";
}

}  // namespace

std::string DescribeWarpCost(const WarpCost& cost) {
  return Plural(cost.wavefronts, "wavefront", "wavefronts") + ", ideal " + std::to_string(cost.ideal) + ", " +
         Plural(cost.conflicts, "conflict", "conflicts") + " (" + FormatWays(cost.ways) + ")";
}

std::string FormatLaneRanges(const std::vector<int>& lanes) {
  std::string text;
  for (size_t i = 0; i < lanes.size();) {
    size_t end = i;
    while (end + 1 < lanes.size() && lanes[end + 1] == lanes[end] + 1) ++end;
    if (!text.empty()) text += ',';
    text += std::to_string(lanes[i]);
    if (end > i) text += (end == i + 1 ? "," : "-") + std::to_string(lanes[end]);
    i = end + 1;
  }
  return text;
}

std::string RenderBankMapText(const WarpExplanation& explanation, const BankMapOptions& options) {
  auto paint = [&](const char* code, const std::string& text) {
    return options.color ? std::string(code) + text + kAnsiReset : text;
  };
  std::ostringstream out;
  out << paint(kAnsiBold, AccessHeading(explanation)) << "\n";
  for (size_t p = 0; p < explanation.phases.size(); ++p) {
    const PhaseExplanation& phase = explanation.phases[p];
    const std::string lanes =
        std::to_string(phase.first_lane) + "-" + std::to_string(phase.first_lane + phase.lane_count - 1);
    if (phase.active_lanes == 0) {
      out << paint(kAnsiDim, "phase " + std::to_string(p) + " (lanes " + lanes + "): no active lane") << "\n";
      continue;
    }
    if (phase.served_with_previous) {
      out << paint(kAnsiDim, "phase " + std::to_string(p) + " (lanes " + lanes + "): served in phase " +
                                 std::to_string(p - 1) +
                                 "'s wavefront (a load whose lanes pair up on equal addresses)")
          << "\n";
      continue;
    }
    const auto idle = std::count_if(phase.banks.begin(), phase.banks.end(),
                                    [](const BankUse& bank) { return bank.words.empty(); });
    // The worst bank's words, not the phase's wavefronts: a 16-byte cp.async phase can cost more
    // than its worst bank holds (ExplainWarpCopy).
    const size_t worst_words = phase.banks[phase.worst_bank].words.size();
    out << paint(kAnsiBold, "phase " + std::to_string(p) + " (lanes " + lanes +
                                "): " + Plural(phase.wavefronts, "wavefront", "wavefronts") +
                                ", worst bank " + std::to_string(phase.worst_bank) + " (" +
                                Plural(worst_words, "word", "words") + "), " +
                                Plural(static_cast<uint64_t>(idle), "bank", "banks") + " idle")
        << "\n";
    for (int b = 0; b < kSharedBanks; ++b) {
      const BankUse& bank = phase.banks[b];
      if (bank.words.empty()) continue;
      std::ostringstream line;
      line << "  bank " << std::setw(2) << b << "  lanes " << std::left << std::setw(12)
           << FormatLaneRanges(bank.lanes) << std::right << " words " << FormatWords(bank.words);
      const bool worst = b == phase.worst_bank && worst_words > 1;
      if (b == phase.worst_bank) line << "  <- worst bank";
      const char* colour = worst ? kAnsiWorst : bank.words.size() > 1 ? kAnsiConflict : nullptr;
      out << (colour != nullptr ? paint(colour, line.str()) : line.str()) << "\n";
    }
  }
  return out.str();
}

std::string RenderBankMapSvg(const WarpExplanation& explanation) {
  constexpr int kCell = 28;
  constexpr int kLeft = 150;
  constexpr int kTop = 78;
  constexpr int kRight = 12;
  const int rows = static_cast<int>(explanation.phases.size());
  const int width = kLeft + kSharedBanks * kCell + kRight;
  const int height = kTop + rows * kCell + 24;

  std::string caption = "no active lane";
  if (explanation.worst_phase >= 0) {
    const PhaseExplanation& phase = explanation.phases[explanation.worst_phase];
    caption = "worst bank " + std::to_string(explanation.worst_bank) + " in phase " +
              std::to_string(explanation.worst_phase) + ": " +
              Plural(phase.banks[explanation.worst_bank].words.size(), "distinct word", "distinct words");
  }

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"monospace\" font-size=\"12\">\n";
  svg << "<title>" << XmlEscape(AccessHeading(explanation)) << "</title>\n";
  svg << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"#ffffff\"/>\n";
  svg << "<text x=\"8\" y=\"20\" font-size=\"14\" font-weight=\"bold\">"
      << XmlEscape(AccessHeading(explanation)) << "</text>\n";
  svg << "<text x=\"8\" y=\"40\" id=\"worst-bank\">" << XmlEscape(caption) << "</text>\n";
  for (int b = 0; b < kSharedBanks; ++b) {
    svg << "<text x=\"" << kLeft + b * kCell + kCell / 2 << "\" y=\"" << kTop - 8
        << "\" text-anchor=\"middle\">" << b << "</text>\n";
  }
  svg << "<text x=\"8\" y=\"" << kTop - 8 << "\">bank</text>\n";
  for (int p = 0; p < rows; ++p) {
    const PhaseExplanation& phase = explanation.phases[p];
    const int y = kTop + p * kCell;
    svg << "<text x=\"8\" y=\"" << y + kCell / 2 + 4 << "\">phase " << p << " (" << phase.wavefronts
        << " wf)</text>\n";
    for (int b = 0; b < kSharedBanks; ++b) {
      const BankUse& bank = phase.banks[b];
      const int x = kLeft + b * kCell;
      const bool worst = p == explanation.worst_phase && b == explanation.worst_bank;
      svg << "<g>";
      svg << "<title>phase " << p << ", bank " << b;
      if (!bank.words.empty()) {
        svg << ": lanes " << FormatLaneRanges(bank.lanes) << "; words " << FormatWords(bank.words);
      } else {
        svg << ": idle";
      }
      svg << "</title>";
      svg << "<rect x=\"" << x + 1 << "\" y=\"" << y + 1 << "\" width=\"" << kCell - 2 << "\" height=\""
          << kCell - 2 << "\" fill=\"" << CellFill(bank.words.size()) << "\" stroke=\""
          << (worst ? "#000000" : "#999999") << "\" stroke-width=\"" << (worst ? 3 : 1) << "\"/>";
      if (!bank.words.empty()) {
        svg << "<text x=\"" << x + kCell / 2 << "\" y=\"" << y + kCell / 2 + 4 << "\" text-anchor=\"middle\">"
            << bank.words.size() << "</text>";
      }
      svg << "</g>\n";
    }
  }
  svg << "<text x=\"8\" y=\"" << height - 8
      << "\" font-size=\"10\">cell: distinct 4-byte words the phase touches in the bank (hover for lanes and "
         "words)</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace bankcheck
