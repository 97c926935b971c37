#pragma once
// The sm_90 facts the evaluator relies on, in one place: constant bank 0's layout, the special
// registers it knows, the lanes that give ldmatrix/stmatrix rows, and wgmma's measured cost. Each
// was checked against the SASS nvcc 13 emits for sm_90 (docs/emulate.md); the shared window's base
// nvcc computes from SR_CgaCtaId (`SR_CgaCtaId << 24 | 0x400`), which is why SR_CgaCtaId must be
// known.

#include <cstdint>
#include <string_view>

#include "bankcheck/core/bank_model.h"

namespace bankcheck::emulate::internal::sm90 {

// Constant bank 0: blockDim.x, .y, .z at 0x0, 0x4, 0x8, gridDim.x, .y, .z at 0xc, 0x10, 0x14; the
// arguments from the kernel's parameter base (KernelInfo::param_base, 0x210 unless the cubin says).
inline constexpr uint32_t kLaunchConfigurationBank = 0;
inline constexpr uint32_t kBlockDimOffset = 0x0;
inline constexpr uint32_t kGridDimOffset = 0xc;
inline constexpr uint32_t kLaunchConfigurationEnd = 0x18;
inline constexpr uint32_t kDefaultParamBase = 0x210;
// The thread's initial stack pointer (every kernel starts `MOV R1, c[0x0][0x28]`; STL and LDL
// address the stack from R1). Its real value is not read: the evaluator gives it this stand-in, the
// same in every lane, so each lane's local offsets are known up to a common multiple of 16, which
// is all the local sector rule needs (LocalSectors, memory_sectors.h).
inline constexpr uint32_t kStackPointerOffset = 0x28;
inline constexpr uint32_t kStandInStackTop = 0x10000;
// The generic address of the kernel's parameters: nvcc 13 forms a __grid_constant__ parameter's
// address (a CUtensorMap's, which UTMALDG names) as the 64-bit word of bank 0 at 0x198 plus the
// parameter's offset (EIATTR_KPARAM_INFO), so the word addresses the parameters' base. Its real
// value is not read: the counting pass gives it this stand-in (the output pass leaves it unknown,
// so no output is computed from it), whose high word no host address (the stand-in runtime's
// device memory) and no shared window has; its low word is the parameter base, so that an
// address's low word is its offset in bank 0 (a CUtensorMap parameter's is a multiple of 64).
// A global or generic access there reads the parameters, which no counter was measured for: the
// evaluator does not cost it (sector_cost.cc).
inline constexpr uint32_t kParameterWindowOffset = 0x198;
inline constexpr uint32_t kParameterWindowHighWord = 0x00020000u;
constexpr bool InParameterWindow(uint64_t address) {
  return static_cast<uint32_t>(address >> 32) == kParameterWindowHighWord;
}
// A cluster launch's words of bank 0 (read by nvcc 13's SASS for %is_explicit_cluster,
// %cluster_nctaid, %nclusterid and %cluster_nctarank): 1 at 0x140 when the launch has clusters, the
// cluster's dimensions at 0x144, 0x148, 0x14c, the grid's dimensions in clusters at 0x15c, 0x160,
// 0x164, the blocks per cluster at 0x188. (0x150-0x158 hold the reciprocals of the cluster's
// dimensions as floats, whose rounding is not known: unknown.)
inline constexpr uint32_t kExplicitClusterOffset = 0x140;
inline constexpr uint32_t kClusterDimOffset = 0x144;
inline constexpr uint32_t kClustersInGridOffset = 0x15c;
inline constexpr uint32_t kClusterBlocksOffset = 0x188;

// A generic address in the shared window: the high word is SR_SWINHI's; the low word is a
// shared::cluster address, the block's rank in its cluster in bits 24-31 (nvcc 13 forms a remote
// block's address with PRMT ..., 0x654: the rank into the top byte) and the offset in the block's
// shared memory below. The evaluator's SR_SWINHI is a value no host address (the stand-in
// runtime's device memory) has as its high word: above the 47 bits of user space.
inline constexpr uint32_t kSharedWindowHighWord = 0x00010000u;
inline constexpr uint32_t kClusterRankShift = 24;
static_assert(kParameterWindowHighWord != kSharedWindowHighWord, "the two windows are told apart");
// The largest cluster sm_90 runs: 8 blocks, 16 with cudaFuncAttributeNonPortableClusterSizeAllowed
// (measured on an H200: more is cudaErrorInvalidClusterSize).
inline constexpr uint32_t kMaxPortableClusterBlocks = 8, kMaxClusterBlocks = 16;

// The special registers the evaluator gives values (S2R, S2UR, CS2R), by nvdisasm's names
// (%lanemask_ge is SR_GEMASK); kOther: unknown.
enum class SpecialRegister : uint8_t {
  kOther,
  kTidX,
  kTidY,
  kTidZ,
  kCtaidX,
  kCtaidY,
  kCtaidZ,
  kLaneId,
  kCgaCtaId,          // the block's rank in its cluster (0 without clusters)
  kSharedWindowHigh,  // SR_SWINHI: the high word of the shared window's generic addresses
  kLaneMaskEq,
  kLaneMaskLt,
  kLaneMaskLe,
  kLaneMaskGt,
  kLaneMaskGe,
  kZero,  // SRZ
};

constexpr SpecialRegister SpecialRegisterOf(std::string_view name) {
  constexpr std::pair<std::string_view, SpecialRegister> kNames[] = {
      {"SR_TID.X", SpecialRegister::kTidX},
      {"SR_TID.Y", SpecialRegister::kTidY},
      {"SR_TID.Z", SpecialRegister::kTidZ},
      {"SR_CTAID.X", SpecialRegister::kCtaidX},
      {"SR_CTAID.Y", SpecialRegister::kCtaidY},
      {"SR_CTAID.Z", SpecialRegister::kCtaidZ},
      {"SR_LANEID", SpecialRegister::kLaneId},
      {"SR_CgaCtaId", SpecialRegister::kCgaCtaId},
      {"SR_SWINHI", SpecialRegister::kSharedWindowHigh},
      {"SR_EQMASK", SpecialRegister::kLaneMaskEq},
      {"SR_LTMASK", SpecialRegister::kLaneMaskLt},
      {"SR_LEMASK", SpecialRegister::kLaneMaskLe},
      {"SR_GTMASK", SpecialRegister::kLaneMaskGt},
      {"SR_GEMASK", SpecialRegister::kLaneMaskGe},
      {"SRZ", SpecialRegister::kZero},
  };
  for (const auto& [text, special] : kNames)
    if (name == text) return special;
  return SpecialRegister::kOther;
}

// ldmatrix/stmatrix .x1/.x2/.x4: every lane runs it (.sync.aligned); lanes 8m..8m+7 give the rows
// of matrix m.
constexpr uint32_t MatrixRowLanes(int matrices) {
  const int rows = 8 * matrices;
  return rows >= kWarpSize ? 0xffffffffu : (1u << rows) - 1;
}

// wgmma (HGMMA) with both operands read from shared memory through descriptors: the warpgroup's
// four warps each read a quarter of the A (M x K) and B (N x K) tiles, in 128-byte wavefronts with
// no conflict whatever the GMMA layout (a core matrix, 8 rows of 16 bytes, lies in 8 different
// 16-byte bank groups in each layout, swizzled or not). Measured on the H100
// (baselines/sm_90/wgmma_layouts.json, docs/counters.md) for one form only: HGMMA.64x64x16.F32
// (f16 inputs, f32 accumulators, both operands K-major, in each of the four layouts), 8
// wavefronts, ideal 8, per warp. Other shapes and types are not costed: no measurement says
// whether the hardware reads them the same way.
struct WgmmaShape {
  uint32_t m, n, k, element_bytes;
};
inline constexpr WgmmaShape kMeasuredWgmma{64, 64, 16, 2};
inline constexpr char kMeasuredWgmmaModifiers[][9] = {"64x64x16", "F32"};
inline constexpr uint32_t kWarpgroupThreads = 128;
inline constexpr uint32_t kWavefrontBytes = kSharedBanks * kBankWordBytes;

constexpr uint32_t WgmmaOperandWavefronts(const WgmmaShape& shape) {
  const uint32_t warps = kWarpgroupThreads / kWarpSize;
  return (shape.m + shape.n) * shape.k * shape.element_bytes / warps / kWavefrontBytes;
}
// The f32 accumulator registers of each thread: M x N over the warpgroup's threads.
constexpr int WgmmaAccumulators(const WgmmaShape& shape) {
  return static_cast<int>(shape.m * shape.n / kWarpgroupThreads);
}
static_assert(WgmmaOperandWavefronts(kMeasuredWgmma) == 8, "the measured 8 wavefronts per warp");
static_assert(WgmmaAccumulators(kMeasuredWgmma) == 32, "R24..R55 in the measured SASS");

}  // namespace bankcheck::emulate::internal::sm90
