// bankcheck_emulate_oracle: the kernel suite's real SASS emulated and compared, instruction by
// instruction, with the per-instruction rows a GPU measured (results/cases/*.json of a run with
// attribution). Every difference is a bug in the emulator, never a tolerance.
//
//   bankcheck_emulate_oracle <suite program or cubin> <results cases folder> [case prefix...]
//
// The launches' argument bytes are rebuilt here per kernel family from the case name (the real
// path records them, framework/emulate/runtime): pointers are fake 256-byte-aligned addresses
// (global addresses never reach a shared address in these kernels; an emulation in which they did
// would differ and say so), the int arguments are the case's sizes.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "bankcheck/emulator.h"
#include "bankcheck/error.h"
#include "bankcheck/shared_kind.h"

namespace {

using bankcheck::emulate::Emulate;
using bankcheck::emulate::Emulation;
using bankcheck::emulate::LaunchToEmulate;
using bankcheck::emulate::Module;
using json = nlohmann::json;

// The int arguments of a case's launches, in order; false when this family's are not known here.
bool IntArguments(const std::string& case_name, std::vector<int32_t>* ints) {
  const std::string family = case_name.substr(0, case_name.find('/'));
  const std::string last = case_name.substr(case_name.rfind('/') + 1);
  std::smatch match;
  static const std::regex sizes(R"(^([0-9]+)x([0-9]+)(?:x([0-9]+))?$)");
  if (family == "transpose" || family == "column_sums" || family == "transpose16" ||
      family == "sgemm_tiled" || family == "sgemm_helper_loads") {
    if (!std::regex_match(last, match, sizes)) return false;
    // transpose/column_sums (rows, cols); transpose16 (width, height) of a square; sgemm (n, k).
    ints->push_back(std::stoi(match[1]));
    ints->push_back(std::stoi(match[2]));
    return true;
  }
  if (family == "strided") {
    static const std::regex stride(R"(_s([0-9]+)(/|_|$))");
    if (!std::regex_search(case_name, match, stride)) return false;
    ints->push_back(std::stoi(match[1]));
    return true;
  }
  if (family == "offset_experiment") {
    static const std::regex offset(R"(offset_([0-9]+)$)");
    if (!std::regex_search(case_name, match, offset)) return false;
    ints->push_back(std::stoi(match[1]));
    ints->push_back(10000);  // the launch's step count (kSteps in kernels/offset_experiment.cu)
    return true;
  }
  return family == "reduction" || family == "puzzle" || family == "classic_demo";
}

std::vector<uint8_t> ParamBytes(const bankcheck::emulate::KernelInfo& info,
                                const std::vector<int32_t>& ints) {
  uint32_t size = 0;
  for (const auto& slot : info.params) size = std::max(size, slot.offset + slot.size);
  std::vector<uint8_t> bytes(size, 0);
  size_t next_int = 0;
  uint64_t next_pointer = 0x7f0000000000ull;
  for (const auto& slot : info.params) {
    if (slot.size == 8) {
      std::memcpy(bytes.data() + slot.offset, &next_pointer, 8);
      next_pointer += 0x10000000ull;
    } else if (slot.size == 4 && next_int < ints.size()) {
      std::memcpy(bytes.data() + slot.offset, &ints[next_int++], 4);
    }
  }
  return bytes;
}

struct Totals {
  int decided = 0, equal = 0, differ = 0, undecided = 0, not_tried = 0;
  std::map<std::string, int> undecided_by_reason;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <suite program or cubin> <results cases folder> [case prefix...]\n",
                 argv[0]);
    return 2;
  }
  try {
    const Module module = Module::FromCubinFile(argv[1]);
    std::vector<std::string> prefixes(argv + 3, argv + argc);
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(argv[2]))
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    Totals totals;
    for (const auto& file : files) {
      std::ifstream in(file);
      const json document = json::parse(in);
      for (const auto& [case_name, result] : document.at("cases").items()) {
        if (!prefixes.empty() && std::none_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) {
              return case_name.rfind(p, 0) == 0;
            }))
          continue;
        if (!result.contains("launches")) continue;
        for (const json& launch : result.at("launches")) {
          if (!launch.contains("instructions") || !launch.contains("mangled")) continue;
          const std::string mangled = launch.at("mangled");
          const auto* info = module.Find(mangled);
          std::vector<int32_t> ints;
          if (info == nullptr || !IntArguments(case_name, &ints)) {
            ++totals.not_tried;
            continue;
          }
          LaunchToEmulate request;
          request.mangled = mangled;
          const auto dim = [](const json& d) {
            return bankcheck::Dim3{d.at(0).get<uint32_t>(), d.at(1).get<uint32_t>(), d.at(2).get<uint32_t>()};
          };
          request.grid = dim(launch.at("grid"));
          request.block = dim(launch.at("block"));
          request.dynamic_shared_bytes = launch.at("dynamic_shared_bytes");
          request.param_bytes = ParamBytes(*info, ints);
          const Emulation emulation = Emulate(module, request);
          if (emulation.undecided) {
            ++totals.undecided;
            ++totals.undecided_by_reason[emulation.undecided->reason];
            std::printf("undecided %s: %s\n", case_name.c_str(), emulation.undecided->Describe().c_str());
            continue;
          }
          ++totals.decided;
          std::map<uint32_t, const bankcheck::InstructionCounts*> emulated;
          for (const auto& row : emulation.record->instructions) emulated[row.pc_offset] = &row;
          std::vector<std::string> differences;
          std::map<uint32_t, bool> seen;
          for (const json& row : launch.at("instructions")) {
            const uint32_t pc = row.at("pc");
            seen[pc] = true;
            const auto found = emulated.find(pc);
            const uint64_t executions = row.at("executions"), wavefronts = row.at("wavefronts");
            const uint64_t ideal = row.value("ideal", uint64_t{0});
            char line[256];
            if (found == emulated.end()) {
              if (executions == 0) continue;
              std::snprintf(line, sizeof line,
                            "pc 0x%04x %s: GPU %llu exec %llu wf %llu ideal, emulated none", pc,
                            row.at("opcode").get<std::string>().c_str(), (unsigned long long)executions,
                            (unsigned long long)wavefronts, (unsigned long long)ideal);
              differences.push_back(line);
              continue;
            }
            const auto& mine = *found->second;
            if (mine.executions != executions || mine.wavefronts != wavefronts ||
                (row.contains("ideal") && mine.ideal_wavefronts != ideal) ||
                mine.opcode != row.at("opcode")) {
              std::snprintf(
                  line, sizeof line,
                  "pc 0x%04x %s: GPU %llu exec %llu wf %llu ideal, emulated %s %llu exec %llu wf %llu ideal",
                  pc, row.at("opcode").get<std::string>().c_str(), (unsigned long long)executions,
                  (unsigned long long)wavefronts, (unsigned long long)ideal, mine.opcode.c_str(),
                  (unsigned long long)mine.executions, (unsigned long long)mine.wavefronts,
                  (unsigned long long)mine.ideal_wavefronts);
              differences.push_back(line);
            }
          }
          for (const auto& [pc, row] : emulated)
            if (!seen.count(pc) && row->executions != 0) {
              char line[160];
              std::snprintf(line, sizeof line, "pc 0x%04x %s: GPU no row, emulated %llu exec", pc,
                            row->opcode.c_str(), (unsigned long long)row->executions);
              differences.push_back(line);
            }
          if (differences.empty()) {
            ++totals.equal;
            std::printf("equal     %s (%zu instructions)\n", case_name.c_str(), emulated.size());
          } else {
            ++totals.differ;
            std::printf("DIFFER    %s\n", case_name.c_str());
            for (const std::string& d : differences) std::printf("            %s\n", d.c_str());
          }
        }
      }
    }
    std::printf(
        "decided %d, equal %d, differ %d; undecided %d; not tried %d (no argument values known here)\n",
        totals.decided, totals.equal, totals.differ, totals.undecided, totals.not_tried);
    for (const auto& [reason, count] : totals.undecided_by_reason)
      std::printf("  %3d x %s\n", count, reason.c_str());
    return totals.differ == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bankcheck_emulate_oracle: %s\n", error.what());
    return 2;
  }
}
