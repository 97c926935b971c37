#include "bankcheck/core/bank_model.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <sstream>

#include "bankcheck/core/bank_map.h"
#include "bankcheck/core/error.h"
#include "core/model/internal/access_rules.h"

namespace bankcheck {
namespace {

using internal::IsValidAccessSize;

[[noreturn]] void ThrowBadSize(uint32_t bytes) {
  throw Error(ErrorKind::kBadInput, "shared access size " + std::to_string(bytes) +
                                        " bytes is not supported; use 1, 2, 4, 8 or 16");
}

[[noreturn]] void ThrowMisaligned(int lane, uint64_t address, uint32_t bytes) {
  std::ostringstream message;
  message << "lane " << lane << " address 0x" << std::hex << address << std::dec << " (" << address
          << ") is not aligned to its " << bytes << "-byte access size";
  throw Error(ErrorKind::kBadInput, message.str());
}

// 4-byte words an access of `bytes` bytes touches: sub-word accesses touch one.
int WordsPerLane(uint32_t bytes) {
  return bytes > kBankWordBytes ? static_cast<int>(bytes / kBankWordBytes) : 1;
}

int LowestSetBit(uint32_t mask) { return __builtin_ctz(mask); }

// Whether `unit` is among the first `count` units of the phase. Searches backwards: a repeated
// unit is most often the neighbouring lane's.
bool SeenBefore(const uint64_t* units, int count, uint64_t unit) {
  for (int i = count - 1; i >= 0; --i) {
    if (units[i] == unit) return true;
  }
  return false;
}

// The cost of one phase: the most distinct words any bank holds.
//
// An aligned 8- or 16-byte access covers 2 or 4 consecutive words of one bank row, so the phase
// can be counted in "units" of the access size over 128 / size unit-banks: every word of a unit
// sits in a different bank of its unit-bank, and each of those banks holds exactly the phase's
// distinct units of that unit-bank. Sub-word accesses count in 4-byte units. This gives one
// entry per lane (never more than 32) whatever the size.
//
// Per unit-bank, one word of state: bits 0-31 are a set of hashed rows (a clear bit proves a unit
// new, so most inputs need no search), bits 32 and up count the distinct units. Only the banks
// the phase touches are cleared.
template <int kUnitShift, int kBankShift>
uint32_t PhaseWavefronts(const uint64_t* addresses, uint32_t lane_mask, uint64_t& address_bits) {
  constexpr uint64_t kBankMask = (uint64_t{1} << kBankShift) - 1;
  uint64_t units[kWarpSize];
  uint64_t bank_state[uint64_t{1} << kBankShift];
  int count = 0;
  uint64_t bits = 0;
  for (; lane_mask != 0; lane_mask &= lane_mask - 1) {
    const uint64_t address = addresses[LowestSetBit(lane_mask)];
    bits |= address;
    const uint64_t unit = address >> kUnitShift;
    units[count++] = unit;
    bank_state[unit & kBankMask] = 0;
  }
  address_bits |= bits;

  uint32_t most = 0;
  for (int i = 0; i < count; ++i) {
    const uint64_t unit = units[i];
    uint64_t& state = bank_state[unit & kBankMask];
    const uint64_t row = unit >> kBankShift;
    // Folding keeps regular row patterns (strides) free of hash collisions.
    const uint64_t row_bit = uint64_t{1} << ((row ^ (row >> 5)) % 32);
    const bool is_new = (state & row_bit) == 0 || !SeenBefore(units, i, unit);
    state = (state | row_bit) + (static_cast<uint64_t>(is_new) << 32);
    most = std::max(most, static_cast<uint32_t>(state >> 32));
  }
  return most;
}

template <int kLanesPerPhase, int kUnitShift, int kBankShift>
uint32_t SumPhaseWavefronts(const WarpAccess& access, uint32_t& ideal, uint64_t& address_bits) {
  constexpr uint32_t kPhaseLanes = kLanesPerPhase >= 32 ? ~0u : (1u << kLanesPerPhase) - 1u;
  uint32_t wavefronts = 0;
  for (int first = 0; first < kWarpSize; first += kLanesPerPhase) {
    const uint32_t lane_mask = (access.active_mask >> first) & kPhaseLanes;
    if (lane_mask == 0) continue;
    ++ideal;
    wavefronts +=
        PhaseWavefronts<kUnitShift, kBankShift>(access.addresses.data() + first, lane_mask, address_bits);
  }
  return wavefronts;
}

WarpCost MakeCost(uint32_t wavefronts, uint32_t ideal) {
  WarpCost cost;
  cost.wavefronts = wavefronts;
  cost.ideal = ideal;
  cost.conflicts = wavefronts - ideal;
  cost.ways = ideal == 0 ? 1.0 : static_cast<double>(wavefronts) / ideal;
  return cost;
}

// A 16-byte cp.async's phase copies a row of 128 bytes (bank_model.h: kCopyPhaseLanes lanes of
// kCopyChunkBytes).
constexpr uint64_t kCopyRowBytes = 128;

// The phase's cost: one wavefront for a row copy, otherwise one per active lane.
uint32_t CopyPhaseWavefronts(const WarpCopy& copy, int first_lane) {
  const uint32_t lane_mask = (copy.destination.active_mask >> first_lane) & kCopyPhaseMask;
  if (lane_mask == 0) return 0;
  if (IsRowCopy(copy.destination.addresses.data() + first_lane, copy.sources.data() + first_lane, lane_mask))
    return 1;
  return static_cast<uint32_t>(__builtin_popcount(lane_mask));
}

// A cp.async reads its source at the alignment of its size, as it writes its destination.
void ValidateSources(const WarpCopy& copy) {
  const uint64_t misalignment = copy.destination.bytes - 1u;
  for (uint32_t mask = copy.destination.active_mask; mask != 0; mask &= mask - 1) {
    const int lane = LowestSetBit(mask);
    if ((copy.sources[lane] & misalignment) != 0) {
      std::ostringstream message;
      message << "lane " << lane << " global source 0x" << std::hex << copy.sources[lane] << std::dec << " ("
              << copy.sources[lane] << ") is not aligned to its " << copy.destination.bytes
              << "-byte copy size";
      throw Error(ErrorKind::kBadInput, message.str());
    }
  }
}

// The first phase with the most wavefronts, and its worst bank.
void MarkWorstPhase(WarpExplanation& explanation) {
  explanation.worst_phase = -1;
  explanation.worst_bank = -1;
  for (size_t p = 0; p < explanation.phases.size(); ++p) {
    const PhaseExplanation& phase = explanation.phases[p];
    if (phase.wavefronts > 0 && (explanation.worst_phase < 0 ||
                                 phase.wavefronts > explanation.phases[explanation.worst_phase].wavefronts)) {
      explanation.worst_phase = static_cast<int>(p);
      explanation.worst_bank = phase.worst_bank;
    }
  }
}

}  // namespace

WarpAccess WarpAccess::Strided(uint32_t bytes, int64_t stride_elements, int active_lanes, uint64_t offset) {
  if (active_lanes < 0 || active_lanes > kWarpSize) {
    throw Error(ErrorKind::kBadInput,
                std::to_string(active_lanes) + " active lanes requested; a warp has 0 to 32 lanes");
  }
  WarpAccess access;
  access.bytes = bytes;
  for (int lane = 0; lane < active_lanes; ++lane) {
    // Checked arithmetic: a negative or huge stride must not wrap around silently.
    int64_t delta = 0;
    uint64_t address = 0;
    bool out_of_range = __builtin_mul_overflow(stride_elements, int64_t{lane} * bytes, &delta);
    if (!out_of_range && delta >= 0) {
      out_of_range = __builtin_add_overflow(offset, static_cast<uint64_t>(delta), &address);
    } else if (!out_of_range) {
      out_of_range = __builtin_sub_overflow(offset, 0 - static_cast<uint64_t>(delta), &address);
    }
    if (out_of_range) {
      throw Error(ErrorKind::kBadInput,
                  "lane " + std::to_string(lane) + "'s address falls outside 0..2^64-1 (offset " +
                      std::to_string(offset) + ", stride " + std::to_string(stride_elements) + ")");
    }
    access.SetLane(lane, address);
  }
  return access;
}

int LanesPerPhase(uint32_t bytes) {
  if (!IsValidAccessSize(bytes)) ThrowBadSize(bytes);
  if (bytes == 16) return 8;
  if (bytes == 8) return 16;
  return 32;
}

void ValidateWarpAccess(const WarpAccess& access) {
  if (!IsValidAccessSize(access.bytes)) ThrowBadSize(access.bytes);
  const uint64_t misalignment = access.bytes - 1u;
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const int lane = LowestSetBit(mask);
    if ((access.addresses[lane] & misalignment) != 0)
      ThrowMisaligned(lane, access.addresses[lane], access.bytes);
  }
}

WarpCost CostWarpAccess(const WarpAccess& access) {
  uint32_t ideal = 0;
  uint32_t wavefronts = 0;
  uint64_t address_bits = 0;  // OR of the active lanes' addresses: checks alignment once
  switch (access.bytes) {
    case 1:
    case 2:
    case 4:
      wavefronts = SumPhaseWavefronts<32, 2, 5>(access, ideal, address_bits);
      break;
    case 8:
      wavefronts = SumPhaseWavefronts<16, 3, 4>(access, ideal, address_bits);
      break;
    case 16:
      wavefronts = SumPhaseWavefronts<8, 4, 3>(access, ideal, address_bits);
      break;
    default:
      ThrowBadSize(access.bytes);
  }
  if ((address_bits & (access.bytes - 1u)) != 0) ValidateWarpAccess(access);  // throws, naming the lane
  return MakeCost(wavefronts, ideal);
}

WarpExplanation ExplainWarpAccess(const WarpAccess& access) {
  ValidateWarpAccess(access);
  WarpExplanation explanation;
  explanation.access = access;
  const int lanes_per_phase = LanesPerPhase(access.bytes);
  const int words_per_lane = WordsPerLane(access.bytes);
  uint32_t wavefronts = 0;
  uint32_t ideal = 0;
  for (int first = 0; first < kWarpSize; first += lanes_per_phase) {
    PhaseExplanation phase;
    phase.first_lane = first;
    phase.lane_count = lanes_per_phase;
    for (int lane = first; lane < first + lanes_per_phase; ++lane) {
      if (!access.active(lane)) continue;
      ++phase.active_lanes;
      uint64_t word = access.addresses[lane] / kBankWordBytes;
      for (int w = 0; w < words_per_lane; ++w, ++word) {
        BankUse& bank = phase.banks[word % kSharedBanks];
        if (bank.lanes.empty() || bank.lanes.back() != lane) bank.lanes.push_back(lane);
        if (std::find(bank.words.begin(), bank.words.end(), word) == bank.words.end())
          bank.words.push_back(word);
      }
    }
    for (int b = 0; b < kSharedBanks; ++b) {
      std::vector<uint64_t>& words = phase.banks[b].words;
      std::sort(words.begin(), words.end());
      if (words.size() > phase.wavefronts) {
        phase.wavefronts = static_cast<uint32_t>(words.size());
        phase.worst_bank = b;
      }
    }
    if (phase.active_lanes > 0) ++ideal;
    wavefronts += phase.wavefronts;
    explanation.phases.push_back(std::move(phase));
  }
  explanation.cost = MakeCost(wavefronts, ideal);
  MarkWorstPhase(explanation);
  return explanation;
}

namespace {

// Lanes first..first+count-1 as a mask.
uint32_t LaneMask(int first, int count) { return count >= kWarpSize ? ~0u : ((1u << count) - 1u) << first; }

// The lanes of the two phases starting at `first` of an 8- or 16-byte access, as a mask.
uint32_t PhasePairMask(uint32_t bytes, int first) { return LaneMask(first, 2 * LanesPerPhase(bytes)); }

// Every lane of the mask reads the address of lane n^1, or every lane that of lane n^2.
bool PairsUp(const WarpAccess& access, uint32_t mask) {
  bool with_next = true, with_second_next = true;
  for (uint32_t rest = mask; rest != 0; rest &= rest - 1) {
    const int lane = LowestSetBit(rest);
    with_next = with_next && access.addresses[lane] == access.addresses[lane ^ 1];
    with_second_next = with_second_next && access.addresses[lane] == access.addresses[lane ^ 2];
  }
  return with_next || with_second_next;
}

// The distinct words the lanes of the mask touch lie in distinct banks.
bool DistinctWordsInDistinctBanks(const WarpAccess& access, uint32_t mask) {
  std::array<uint64_t, kSharedBanks> word_in{};
  uint32_t used = 0;  // bit b: bank b holds word_in[b]
  const int words_per_lane = WordsPerLane(access.bytes);
  for (uint32_t rest = mask; rest != 0; rest &= rest - 1) {
    uint64_t word = access.addresses[LowestSetBit(rest)] / kBankWordBytes;
    for (int w = 0; w < words_per_lane; ++w, ++word) {
      const uint32_t bank = static_cast<uint32_t>(word % kSharedBanks);
      if ((used >> bank & 1u) != 0 && word_in[bank] != word) return false;
      used |= 1u << bank;
      word_in[bank] = word;
    }
  }
  return true;
}

}  // namespace

bool ArePairedLoadPhases(const WarpAccess& access, int first) {
  if (access.bytes != 8 && access.bytes != 16) return false;
  const uint32_t mask = PhasePairMask(access.bytes, first);
  return (access.active_mask & mask) == mask && PairsUp(access, mask) &&
         DistinctWordsInDistinctBanks(access, mask);
}

std::optional<std::string> UnmeasuredWideAccess(MemoryKind kind, const WarpAccess& access) {
  if ((kind != MemoryKind::kSharedLoad && kind != MemoryKind::kSharedStore) ||
      (access.bytes != 8 && access.bytes != 16))
    return std::nullopt;
  const std::string what =
      std::to_string(access.bytes) + "-byte " + (kind == MemoryKind::kSharedLoad ? "load" : "store");
  const auto lanes = [](int first, int count) {
    return "lanes " + std::to_string(first) + "-" + std::to_string(first + count - 1);
  };
  // One active lane is one wavefront and one ideal, whichever lane and address (measured:
  // core/model/testdata/paired_loads_fixture.inc); it is only lanes off beside others that the model
  // does not follow.
  if (__builtin_popcount(access.active_mask) == 1) return std::nullopt;
  const int phase_lanes = LanesPerPhase(access.bytes);
  for (int first = 0; first < kWarpSize; first += phase_lanes) {
    const uint32_t mask = LaneMask(first, phase_lanes);
    const uint32_t active = access.active_mask & mask;
    if (active != 0 && active != mask)
      return "a phase of a " + what + " (" + lanes(first, phase_lanes) +
             ") has lanes off, which the GPU serves and idealizes in ways the model does not follow";
  }
  for (int first = 0; kind == MemoryKind::kSharedLoad && first < kWarpSize; first += 2 * phase_lanes) {
    const uint32_t mask = PhasePairMask(access.bytes, first);
    if ((access.active_mask & mask) == mask && PairsUp(access, mask) &&
        !DistinctWordsInDistinctBanks(access, mask))
      return lanes(first, 2 * phase_lanes) + " of a " + what +
             " pair up on equal addresses whose words share a bank, whose ideal the model does not follow";
  }
  return std::nullopt;
}

WarpCost CostInstruction(MemoryKind kind, const WarpCopy& instruction) {
  if (kind == MemoryKind::kSharedCpAsync) return CostWarpCopy(instruction);
  const WarpAccess& access = instruction.destination;
  const WarpCost cost = CostWarpAccess(access);
  if (kind != MemoryKind::kSharedLoad || (access.bytes != 8 && access.bytes != 16)) return cost;
  // Each paired pair of phases costs 1 and 1 ideal where CostWarpAccess counted 2 and 2 (both
  // phases active and conflict-free).
  uint32_t paired = 0;
  for (int first = 0; first < kWarpSize; first += 2 * LanesPerPhase(access.bytes))
    if (ArePairedLoadPhases(access, first)) ++paired;
  return paired == 0 ? cost : MakeCost(cost.wavefronts - paired, cost.ideal - paired);
}

WarpExplanation ExplainInstruction(MemoryKind kind, const WarpCopy& instruction) {
  if (kind == MemoryKind::kSharedCpAsync) return ExplainWarpCopy(instruction);
  const WarpAccess& access = instruction.destination;
  WarpExplanation explanation = ExplainWarpAccess(access);
  if (kind != MemoryKind::kSharedLoad || (access.bytes != 8 && access.bytes != 16)) return explanation;
  const int phases_per_pair = 2;
  const int lanes_per_phase = LanesPerPhase(access.bytes);
  for (int first = 0; first < kWarpSize; first += phases_per_pair * lanes_per_phase) {
    if (!ArePairedLoadPhases(access, first)) continue;
    PhaseExplanation& second = explanation.phases[static_cast<size_t>(first / lanes_per_phase + 1)];
    second.wavefronts = 0;
    second.served_with_previous = true;
  }
  explanation.cost = CostInstruction(kind, instruction);
  MarkWorstPhase(explanation);
  return explanation;
}

bool IsRowCopy(const uint64_t* destinations, const uint64_t* sources, uint32_t lane_mask) {
  if (lane_mask == 0) return false;
  const uint64_t row = destinations[LowestSetBit(lane_mask)] / kCopyRowBytes;
  uint64_t lowest_source = std::numeric_limits<uint64_t>::max();
  for (uint32_t mask = lane_mask; mask != 0; mask &= mask - 1)
    lowest_source = std::min(lowest_source, sources[LowestSetBit(mask)]);
  uint32_t destination_chunks = 0;  // bit c: chunk c of the row is written
  uint32_t source_chunks = 0;       // bit c: bytes 16c..16c+15 above the lowest source are read
  for (uint32_t mask = lane_mask; mask != 0; mask &= mask - 1) {
    const int lane = LowestSetBit(mask);
    const uint64_t source_offset = sources[lane] - lowest_source;
    if (destinations[lane] / kCopyRowBytes != row || source_offset >= kCopyRowBytes) return false;
    const uint32_t destination_chunk = 1u << (destinations[lane] % kCopyRowBytes / kCopyChunkBytes);
    const uint32_t source_chunk = 1u << (source_offset / kCopyChunkBytes);
    if ((destination_chunks & destination_chunk) != 0 || (source_chunks & source_chunk) != 0) return false;
    destination_chunks |= destination_chunk;
    source_chunks |= source_chunk;
  }
  return true;
}

WarpCost CostWarpCopy(const WarpCopy& copy) {
  if (copy.destination.bytes != kCopyChunkBytes) {
    const WarpCost cost = CostWarpAccess(copy.destination);
    ValidateSources(copy);
    return cost;
  }
  ValidateWarpAccess(copy.destination);
  ValidateSources(copy);
  uint32_t wavefronts = 0;
  uint32_t ideal = 0;
  for (int first = 0; first < kWarpSize; first += kCopyPhaseLanes) {
    const uint32_t phase_wavefronts = CopyPhaseWavefronts(copy, first);
    wavefronts += phase_wavefronts;
    ideal += phase_wavefronts > 0 ? 1 : 0;
  }
  return MakeCost(wavefronts, ideal);
}

WarpExplanation ExplainWarpCopy(const WarpCopy& copy) {
  WarpExplanation explanation = ExplainWarpAccess(copy.destination);
  ValidateSources(copy);
  if (copy.destination.bytes != kCopyChunkBytes) return explanation;
  for (PhaseExplanation& phase : explanation.phases)
    phase.wavefronts = CopyPhaseWavefronts(copy, phase.first_lane);
  explanation.cost = CostWarpCopy(copy);
  MarkWorstPhase(explanation);
  return explanation;
}

}  // namespace bankcheck
