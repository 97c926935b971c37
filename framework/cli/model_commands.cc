// `bankcheck predict` and `bankcheck explain`: one warp-level access through the CPU model,
// described either as a stride or as one address per lane, for one kind of instruction (--op: lds,
// sts, atoms, ldsm, stsm, ldgsts by the bank model; ldg, stg, ldgsts_g, ldl, stl by the sector model,
// memory_sectors.h; docs/model.md gives each kind's rule). A cp.async takes its global source too
// (--src-stride).

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/bank_map.h"
#include "bankcheck/core/bank_model.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/memory_kind.h"
#include "bankcheck/core/memory_sectors.h"
#include "commands.h"
#include "core/platform/file_io.h"

namespace bankcheck::cli {
namespace {

// Numbers are kept as text until the command runs, so that a malformed one gets a message
// naming the option and the value (and so that "010" is ten, not octal eight).
struct AccessOptions {
  std::string op = "lds";
  std::string bytes;
  std::string stride;
  std::string addresses;
  std::string active;
  std::string offset;
  std::string src_stride;  // ldgsts: lane i's global source at i * src_stride * bytes
};

[[noreturn]] void ThrowBadInput(const std::string& message) { throw Error(ErrorKind::kBadInput, message); }

// Decimal, or hexadecimal after 0x; nothing else (no sign, no spaces, no suffix).
uint64_t ParseUnsigned(const std::string& text, const std::string& what) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::string digits = hex ? text.substr(2) : text;
  const char* allowed = hex ? "0123456789abcdefABCDEF" : "0123456789";
  if (digits.empty() || digits.find_first_not_of(allowed) != std::string::npos) {
    ThrowBadInput(what + ": '" + text + "' is not a number (use decimal, or hex with 0x)");
  }
  errno = 0;
  const unsigned long long value = std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10);
  if (errno == ERANGE) ThrowBadInput(what + ": '" + text + "' is too large");
  return static_cast<uint64_t>(value);
}

int64_t ParseSigned(const std::string& text, const std::string& what) {
  const bool negative = !text.empty() && text[0] == '-';
  const uint64_t magnitude = ParseUnsigned(negative ? text.substr(1) : text, what);
  if (magnitude > (negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1)) {
    ThrowBadInput(what + ": '" + text + "' is out of range");
  }
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

std::string Trim(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// Whether the sector model (memory_sectors.h) costs the kind: the global and local loads and stores
// whose sectors were measured, and cp.async's global reads (CopySourceSectors, as the emulator
// counts them); atomics and reductions were not.
bool IsSectorKind(MemoryKind kind) {
  return kind == MemoryKind::kGlobalLoad || kind == MemoryKind::kGlobalStore ||
         kind == MemoryKind::kGlobalCpAsync || kind == MemoryKind::kLocalLoad ||
         kind == MemoryKind::kLocalStore;
}

// Kinds the model has a rule for (docs/model.md); wgmma operands, distributed shared memory and
// global atomics and reductions have none.
bool HasModelRule(MemoryKind kind) {
  return (InfoOf(kind).space == MemorySpace::kShared && kind != MemoryKind::kSharedWgmma &&
          kind != MemoryKind::kSharedDsmem) ||
         IsSectorKind(kind);
}

bool IsMatrixKind(MemoryKind kind) {
  return kind == MemoryKind::kSharedLdmatrix || kind == MemoryKind::kSharedStmatrix;
}

// "lds, sts, atoms, ldsm, stsm, ldgsts, ldg, stg, ldl, stl"
std::string ValidOps() {
  std::string ops;
  for (const MemoryKindInfo& info : MemoryKinds()) {
    if (HasModelRule(info.kind)) ops += (ops.empty() ? "" : ", ") + std::string(info.op);
  }
  return ops;
}

MemoryKind ParseOp(const std::string& text) {
  const std::optional<MemoryKind> kind = MemoryKindFromOp(text);
  if (!kind) ThrowBadInput("--op '" + text + "': unknown instruction; use one of " + ValidOps());
  if (!HasModelRule(*kind)) {
    ThrowBadInput("--op '" + text + "': the model has no rule for " + InfoOf(*kind).title + "; use one of " +
                  ValidOps());
  }
  return *kind;
}

// The access one instruction of `kind` makes. For ldmatrix/stmatrix each lane's address is the
// 16-byte row it supplies: lanes 0-7 (.x1), 0-15 (.x2) or all 32 (.x4).
WarpAccess BuildAccess(const AccessOptions& options, MemoryKind kind) {
  const bool matrix = IsMatrixKind(kind);
  uint64_t bytes = kMatrixRowBytes;
  if (!options.bytes.empty()) {
    bytes = ParseUnsigned(options.bytes, "--bytes");
    if (matrix && bytes != kMatrixRowBytes) {
      ThrowBadInput("--bytes " + options.bytes + " with --op " + options.op +
                    ": ldmatrix/stmatrix rows are 16 bytes (leave --bytes out or give 16)");
    }
    if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16) {
      ThrowBadInput("--bytes " + options.bytes + ": the access size must be 1, 2, 4, 8 or 16 bytes");
    }
  } else if (!matrix) {
    ThrowBadInput("--bytes is required: the size each lane accesses, 1, 2, 4, 8 or 16");
  }
  const bool has_stride = !options.stride.empty();
  const bool has_addresses = !options.addresses.empty();
  if (has_stride == has_addresses) {
    ThrowBadInput(has_stride
                      ? "give either --stride or --addresses, not both"
                      : "give --stride S (lane i accesses offset + i*S*bytes) or --addresses a0,a1,...");
  }

  WarpAccess access;
  if (has_stride) {
    const int64_t stride = ParseSigned(options.stride, "--stride");
    const uint64_t active = options.active.empty() ? kWarpSize : ParseUnsigned(options.active, "--active");
    if (active > kWarpSize) ThrowBadInput("--active " + options.active + ": a warp has at most 32 lanes");
    if (matrix && active != 8 && active != 16 && active != 32) {
      ThrowBadInput("--active " + options.active +
                    ": ldmatrix/stmatrix take 8 (.x1), 16 (.x2) or 32 (.x4) row addresses");
    }
    const uint64_t offset = options.offset.empty() ? 0 : ParseUnsigned(options.offset, "--offset");
    access = WarpAccess::Strided(static_cast<uint32_t>(bytes), stride, static_cast<int>(active), offset);
  } else {
    access.bytes = static_cast<uint32_t>(bytes);
    std::vector<std::string> fields;
    size_t start = 0;
    while (true) {
      const size_t comma = options.addresses.find(',', start);
      fields.push_back(Trim(options.addresses.substr(start, comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (fields.size() > kWarpSize) {
      ThrowBadInput("--addresses has " + std::to_string(fields.size()) +
                    " entries; a warp has at most 32 lanes");
    }
    if (matrix && fields.size() != 8 && fields.size() != 16 && fields.size() != 32) {
      ThrowBadInput("--addresses has " + std::to_string(fields.size()) +
                    " entries; ldmatrix/stmatrix take 8 (.x1), 16 (.x2) or 32 (.x4) row addresses");
    }
    for (size_t lane = 0; lane < fields.size(); ++lane) {
      if (fields[lane] == "-") {
        if (matrix) {
          ThrowBadInput("--addresses entry " + std::to_string(lane) +
                        ": every lane of an ldmatrix/stmatrix supplies a row; '-' is not allowed");
        }
        continue;  // inactive lane
      }
      access.SetLane(static_cast<int>(lane),
                     ParseUnsigned(fields[lane], "--addresses entry " + std::to_string(lane)));
    }
  }
  ValidateWarpAccess(access);
  return access;
}

// The instruction as the model takes it: the shared access, and for a cp.async its global
// sources, lane i's at i*T*bytes (T = --src-stride, default 1: contiguous; lane 31's at 0 when T is
// negative). Only where the sources lie relative to each other matters (docs/model.md).
WarpCopy BuildInstruction(const AccessOptions& options, MemoryKind kind) {
  if (!options.src_stride.empty() && kind != MemoryKind::kSharedCpAsync) {
    ThrowBadInput("--src-stride " + options.src_stride + " with --op " + options.op +
                  ": only a cp.async (--op ldgsts) has a global source");
  }
  WarpCopy copy;
  copy.destination = BuildAccess(options, kind);
  if (kind != MemoryKind::kSharedCpAsync) return copy;
  const int64_t stride = options.src_stride.empty() ? 1 : ParseSigned(options.src_stride, "--src-stride");
  const uint64_t bytes = copy.destination.bytes;
  const uint64_t magnitude = stride < 0 ? 0 - static_cast<uint64_t>(stride) : static_cast<uint64_t>(stride);
  uint64_t lowest = 0;  // lane 0's source when lane 31's is lowest
  if (stride < 0 && __builtin_mul_overflow(magnitude, bytes * (kWarpSize - 1), &lowest)) {
    ThrowBadInput("--src-stride " + options.src_stride + " is out of range");
  }
  copy.sources = WarpAccess::Strided(copy.destination.bytes, stride, kWarpSize, lowest).addresses;
  return copy;
}

// Options shared by predict and explain.
void AddAccessOptions(CLI::App& command, AccessOptions& options) {
  command
      .add_option("--op", options.op,
                  "The instruction: " + ValidOps() +
                      " (default lds); ldsm/stsm are ldmatrix/stmatrix, ldgsts is cp.async, atoms shared "
                      "atomics")
      ->type_name("OP");
  command
      .add_option("--bytes", options.bytes,
                  "Bytes each lane accesses: 1, 2, 4, 8 or 16; required, except for ldsm/stsm (16-byte rows)")
      ->type_name("B");
  CLI::Option* stride =
      command
          .add_option(
              "--stride", options.stride,
              "Lane i accesses offset + i*S*B (S in elements; may be 0); for ldsm/stsm, B = 16: lane i's row")
          ->type_name("S");
  CLI::Option* addresses =
      command
          .add_option(
              "--addresses", options.addresses,
              "One byte address per lane, comma separated; '-' for an inactive lane; decimal or 0x hex")
          ->type_name("A0,A1,...");
  CLI::Option* active =
      command
          .add_option("--active", options.active,
                      "With --stride: lanes 0..N-1 are active (default 32); ldsm/stsm: 8, 16 or 32 rows "
                      "(.x1, .x2, .x4)")
          ->type_name("N");
  CLI::Option* offset =
      command.add_option("--offset", options.offset, "With --stride: byte address of lane 0 (default 0)")
          ->type_name("O");
  command
      .add_option(
          "--src-stride", options.src_stride,
          "ldgsts only: lane i copies from global address i*T*B (T in elements; default 1, contiguous)")
      ->type_name("T");
  addresses->excludes(stride)->excludes(active)->excludes(offset);
  command.footer(
      "Bank = (address / 4) % 32. Lanes are served in phases of 32 (1-4 bytes), 16 (8 bytes) or 8 (16 "
      "bytes);\n"
      "a phase costs the most distinct 4-byte words any bank holds.\n"
      "--op lds, sts, atoms, ldgsts of 4 or 8 bytes: each lane accesses B bytes at its address, by\n"
      "that rule.\n"
      "--op ldgsts --bytes 16 (cp.async): phases of 8 lanes; a phase whose lanes copy one 128-byte\n"
      "global span (--src-stride) into one 128-byte shared row costs 1 wavefront, any other 1 per lane\n"
      "(fitted to and checked on the H100; partial phases and unaligned sources unmeasured).\n"
      "--op ldsm, stsm (ldmatrix/stmatrix): each of lanes 0..N-1 gives the address of one 16-byte row\n"
      "(N = 8, 16, 32 for .x1, .x2, .x4; with --stride, lane i's row is at O + i*S*16): a 16-byte access,\n"
      "one 8-row matrix per phase, so the ideal is the number of matrices.\n"
      "--op ldg, stg, ldgsts_g (global; ldgsts_g: a cp.async's reads of its sources): the distinct\n"
      "32-byte sectors the active lanes' bytes touch, over the whole warp; ideal = ceil(sum over those\n"
      "sectors of min(32, the lanes' bytes in it) / 32), each lane's bytes counted (ceil(distinct\n"
      "bytes / 32) when no two lanes share a byte). A 16-byte ldgsts_g reads as a copy into contiguous\n"
      "shared memory does: each phase of 8 lanes whose sources lie in one 128-byte span together, any\n"
      "other phase's lanes one by one.\n"
      "--op ldl, stl (local): addresses are the lanes' offsets in their own local memory; lane L's byte\n"
      "o lies at (o / 4) * 128 + L * 4 + o % 4; its distinct sectors (no ideal). See docs/model.md.\n"
      "Exit status: 0 done, 2 bad input.\n");
}

bool ColourWanted() { return isatty(fileno(stdout)) == 1 && std::getenv("NO_COLOR") == nullptr; }

// What the access is, for people: "ldmatrix .x4", "4-byte cp.async (LDGSTS), 32 active lanes";
// loads keep the plain "4-byte access, 32 active lanes".
std::string Heading(MemoryKind kind, const WarpAccess& access) {
  const int active = __builtin_popcount(access.active_mask);
  const MemoryKindInfo& info = InfoOf(kind);
  if (IsMatrixKind(kind)) return info.instruction + std::string(" .x") + std::to_string(active / 8);
  const std::string instruction =
      kind == MemoryKind::kSharedLoad ? "access" : info.instruction + std::string(" (") + info.sass + ")";
  if (IsSectorKind(kind) && InfoOf(kind).space == MemorySpace::kLocal)
    return std::to_string(access.bytes) + "-byte " + instruction + " at local offsets, " +
           std::to_string(active) + (active == 1 ? " active lane" : " active lanes");
  return std::to_string(access.bytes) + "-byte " + instruction + ", " + std::to_string(active) +
         (active == 1 ? " active lane" : " active lanes");
}

// For a bank map of anything but a plain load: how the instruction becomes the access drawn.
std::string HowCosted(MemoryKind kind, const WarpAccess& access) {
  if (kind == MemoryKind::kSharedLoad) return "";
  if (IsMatrixKind(kind)) {
    const int matrices = __builtin_popcount(access.active_mask) / 8;
    return Heading(kind, access) + ": " + std::to_string(matrices) +
           (matrices == 1 ? " matrix" : " matrices") +
           " of 8 rows; each lane's 16-byte row is served as a 16-byte access, one matrix per phase\n";
  }
  if (kind == MemoryKind::kSharedCpAsync && access.bytes == 16) {
    return Heading(kind, access) +
           ": phases of 8 lanes; a phase whose lanes copy one 128-byte global span into one 128-byte "
           "shared row costs 1 wavefront, any other 1 per lane; the banks below are the destinations'\n";
  }
  return Heading(kind, access) + ": served as an ordinary " + std::to_string(access.bytes) + "-byte access\n";
}

// What a reader of this prediction should know: where the model is known not to match, or guesses.
void PrintCaveats(MemoryKind kind, const WarpAccess& access) {
  if (kind == MemoryKind::kSharedCpAsync && access.bytes == 16) {
    std::cerr << "bankcheck: note: the 16-byte cp.async rule is fitted to the H100's measurements; partial "
                 "phases and unaligned sources are unmeasured (docs/model.md)\n";
  }
  if (const std::optional<std::string> why = UnmeasuredWideAccess(kind, access))
    std::cerr << "bankcheck: note: the GPU may count this access otherwise: " << *why << " (docs/model.md)\n";
}

bool IsLocal(MemoryKind kind) { return InfoOf(kind).space == MemorySpace::kLocal; }

// ldgsts_g: the reads of a copy into contiguous shared memory (lane i at i * bytes, one row a
// phase); a copy whose shared side splits its phases (--op ldgsts --stride) reads its lanes apart.
SectorCost CostSectors(MemoryKind kind, const WarpAccess& access) {
  if (kind != MemoryKind::kGlobalCpAsync) return IsLocal(kind) ? LocalSectors(access) : GlobalSectors(access);
  WarpCopy copy;
  copy.destination.bytes = access.bytes;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (access.active(lane)) {
      copy.destination.SetLane(lane, static_cast<uint64_t>(lane) * access.bytes);
      copy.sources[lane] = access.addresses[lane];
    }
  return CopySourceSectors(copy);
}

// "8 sectors, ideal 4 (4 sectors more)"; local memory: no ideal.
std::string DescribeSectors(MemoryKind kind, const SectorCost& cost) {
  const std::string sectors = std::to_string(cost.sectors) + (cost.sectors == 1 ? " sector" : " sectors");
  if (IsLocal(kind)) return sectors + " (local memory has no ideal)";
  const uint64_t excess = cost.sectors - cost.ideal;
  return sectors + ", ideal " + std::to_string(cost.ideal) +
         (excess == 0 ? " (no excess)" : " (" + std::to_string(excess) + " more)");
}

// Each sector the access touches and the lanes whose bytes are in it, one line each.
std::string ExplainSectors(MemoryKind kind, const WarpAccess& access) {
  const bool local = IsLocal(kind);
  std::string text = Heading(kind, access) + ": " + DescribeSectors(kind, CostSectors(kind, access)) + "\n";
  if (local)
    text +=
        "lane L's byte o lies at (o / 4) * 128 + L * 4 + o % 4 of the warp's local memory "
        "(4-byte words interleaved across the warp)\n";
  for (const uint64_t sector : SectorsTouched(access, local)) {
    std::string lanes;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (!access.active(lane)) continue;
      WarpAccess one;
      one.bytes = access.bytes;
      one.SetLane(lane, access.addresses[lane]);
      const std::vector<uint64_t> its = SectorsTouched(one, local);
      if (std::find(its.begin(), its.end(), sector) != its.end())
        lanes += (lanes.empty() ? "" : " ") + std::to_string(lane);
    }
    char bytes[64];
    std::snprintf(bytes, sizeof bytes, "0x%llx-0x%llx",
                  static_cast<unsigned long long>(sector * kSectorBytes),
                  static_cast<unsigned long long>(sector * kSectorBytes + kSectorBytes - 1));
    text += "  sector " + std::string(bytes) + ": lanes " + lanes + "\n";
  }
  return text;
}

}  // namespace

void AddModelCommands(CLI::App& app) {
  {
    auto options = std::make_shared<AccessOptions>();
    auto json = std::make_shared<bool>(false);
    CLI::App* predict = app.add_subcommand(
        "predict",
        "Predict one warp access's wavefronts, ideal wavefronts and conflicts with the CPU bank model");
    AddAccessOptions(*predict, *options);
    predict->add_flag(
        "--json", *json,
        "Print one line of JSON: {op, wavefronts, ideal, conflicts, ways, bytes (per lane), active_lanes}; "
        "for ldg, stg, ldgsts_g, ldl, stl: {op, sectors, ideal (null for local), bytes, active_lanes}");
    predict->callback([options, json] {
      const MemoryKind kind = ParseOp(options->op);
      const WarpCopy instruction = BuildInstruction(*options, kind);
      const WarpAccess& access = instruction.destination;
      if (IsSectorKind(kind)) {
        const SectorCost cost = CostSectors(kind, access);
        if (*json) {
          nlohmann::ordered_json out;
          out["op"] = InfoOf(kind).op;
          out["sectors"] = cost.sectors;
          out["ideal"] = IsLocal(kind) ? nlohmann::ordered_json() : nlohmann::ordered_json(cost.ideal);
          out["bytes"] = access.bytes;
          out["active_lanes"] = __builtin_popcount(access.active_mask);
          std::cout << out.dump() << "\n";
        } else {
          std::cout << Heading(kind, access) << ": " << DescribeSectors(kind, cost) << "\n";
        }
        return;
      }
      const WarpCost cost = CostInstruction(kind, instruction);
      PrintCaveats(kind, access);
      if (*json) {
        nlohmann::ordered_json out;
        out["op"] = InfoOf(kind).op;
        out["wavefronts"] = cost.wavefronts;
        out["ideal"] = cost.ideal;
        out["conflicts"] = cost.conflicts;
        out["ways"] = cost.ways;
        out["bytes"] = access.bytes;
        out["active_lanes"] = __builtin_popcount(access.active_mask);
        std::cout << out.dump() << "\n";
      } else {
        std::cout << Heading(kind, access) << ": " << DescribeWarpCost(cost) << "\n";
      }
    });
  }
  {
    auto options = std::make_shared<AccessOptions>();
    auto svg_path = std::make_shared<std::string>();
    CLI::App* explain = app.add_subcommand(
        "explain",
        "Draw one warp access's bank map: per phase, each bank's lanes and words, the worst bank marked");
    AddAccessOptions(*explain, *options);
    explain->add_option("--svg", *svg_path, "Write the bank map as SVG to FILE instead of printing it")
        ->type_name("FILE");
    explain->callback([options, svg_path] {
      const MemoryKind kind = ParseOp(options->op);
      if (IsSectorKind(kind)) {
        if (!svg_path->empty())
          ThrowBadInput("--svg with --op " + options->op +
                        ": bank maps are of shared memory; leave --svg out");
        std::cout << ExplainSectors(kind, BuildInstruction(*options, kind).destination);
        return;
      }
      const WarpExplanation explanation = ExplainInstruction(kind, BuildInstruction(*options, kind));
      PrintCaveats(kind, explanation.access);
      if (!svg_path->empty()) {
        WriteFileAtomically(*svg_path, RenderBankMapSvg(explanation));
        std::cout << "wrote " << *svg_path << ": " << Heading(kind, explanation.access) << ": "
                  << DescribeWarpCost(explanation.cost) << "\n";
        return;
      }
      BankMapOptions map_options;
      map_options.color = ColourWanted();
      std::cout << HowCosted(kind, explanation.access) << RenderBankMapText(explanation, map_options);
    });
  }
}

}  // namespace bankcheck::cli
