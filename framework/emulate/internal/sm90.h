#pragma once
// The sm_90 facts the evaluator relies on, in one place: constant bank 0's layout, the special
// registers it knows, and the lanes that give ldmatrix/stmatrix rows. Each was checked against the
// SASS nvcc 13 emits for sm_90 (docs/emulate.md); the shared window's base nvcc computes from
// SR_CgaCtaId (`SR_CgaCtaId << 24 | 0x400`), which is why SR_CgaCtaId must be known.

#include <cstdint>
#include <string_view>

#include "bankcheck/bank_model.h"

namespace bankcheck::emulate::internal::sm90 {

// Constant bank 0: blockDim.x, .y, .z at 0x0, 0x4, 0x8, gridDim.x, .y, .z at 0xc, 0x10, 0x14; the
// arguments from the kernel's parameter base (KernelInfo::param_base, 0x210 unless the cubin says).
inline constexpr uint32_t kLaunchConfigurationBank = 0;
inline constexpr uint32_t kBlockDimOffset = 0x0;
inline constexpr uint32_t kGridDimOffset = 0xc;
inline constexpr uint32_t kLaunchConfigurationEnd = 0x18;
inline constexpr uint32_t kDefaultParamBase = 0x210;
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
// The largest cluster sm_90 runs: 8 blocks, 16 with cudaFuncAttributeNonPortableClusterSizeAllowed
// (measured on an H200: more is cudaErrorInvalidClusterSize).
inline constexpr uint32_t kMaxPortableClusterBlocks = 8, kMaxClusterBlocks = 16;

// The special registers the evaluator gives values (S2R, S2UR, CS2R); kOther: unknown.
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
      {"SR_LANEMASK_EQ", SpecialRegister::kLaneMaskEq},
      {"SR_LANEMASK_LT", SpecialRegister::kLaneMaskLt},
      {"SR_LANEMASK_LE", SpecialRegister::kLaneMaskLe},
      {"SR_LANEMASK_GT", SpecialRegister::kLaneMaskGt},
      {"SR_LANEMASK_GE", SpecialRegister::kLaneMaskGe},
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

}  // namespace bankcheck::emulate::internal::sm90
