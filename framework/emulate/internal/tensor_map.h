#pragma once
// The stand-in runtime's tensor map, in one place: the layout its cuTensorMapEncodeTiled
// (runtime/driver_api.cc) writes into a CUtensorMap, and the emulator reads back where an emulated
// UTMALDG names the map (semantics_async.cc), to cost the copy's global sectors by the core's box
// rule (TensorBoxSectors, bankcheck/core/memory_sectors.h). The map is opaque to the program, so the
// stand-in keeps the arguments it was given, readably, instead of the GPU's encoding: no value in it
// is made up. A map whose bytes do not begin with the magic (one the driver encoded, bytes the
// program wrote) is not read. The emulator itself needs no CUDA header: the enumerations' values are
// cuda.h's, which driver_api.cc checks against it.

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "bankcheck/core/memory_sectors.h"

namespace bankcheck::emulate::internal {

// sizeof(CUtensorMap): 128 bytes; the driver takes (and the GPU reads) a map at an address aligned
// to 64 bytes (cuda.h's cuTensorMapEncodeTiled).
inline constexpr size_t kTensorMapBytes = 128;
inline constexpr uint32_t kTensorMapAlignment = 64;
inline constexpr uint32_t kTensorMapMaxRank = 5;
inline constexpr char kStandInTensorMapMagic[8] = {'b', 'a', 'n', 'k', 't', 'm', 'a', 'p'};

// cuda.h's CUtensorMapDataType, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion
// and CUtensorMapFloatOOBfill values the stand-in keeps (sm_90's: the packed 4- and 6-bit types and
// the 128-byte swizzles of 32- and 64-byte atoms are later GPUs', not emulated).
namespace tensor_map {
enum Type : uint8_t {
  kUint8 = 0,
  kUint16,
  kUint32,
  kInt32,
  kUint64,
  kInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kBfloat16,
  kFloat32Ftz,
  kTfloat32,
  kTfloat32Ftz,
  kFirstPackedType,  // CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B
};
enum Interleave : uint8_t { kInterleaveNone = 0, kInterleave16B, kInterleave32B };
enum Swizzle : uint8_t { kSwizzleNone = 0, kSwizzle32B, kSwizzle64B, kSwizzle128B };
enum L2Promotion : uint8_t { kL2None = 0, kL2_64B, kL2_128B, kL2_256B };
enum OobFill : uint8_t { kOobFillNone = 0, kOobFillNanRequestZeroFma };
}  // namespace tensor_map

// The bytes of a CUtensorMap the stand-in encoded: the arguments of cuTensorMapEncodeTiled as cuda.h
// documents them (dimensions, box and element strides in elements; strides in bytes), dimension 0
// first. Only the first `rank` entries of each array are used; strides[i] is dimension i + 1's.
struct StandInTensorMap {
  char magic[8] = {kStandInTensorMapMagic[0], kStandInTensorMapMagic[1], kStandInTensorMapMagic[2],
                   kStandInTensorMapMagic[3], kStandInTensorMapMagic[4], kStandInTensorMapMagic[5],
                   kStandInTensorMapMagic[6], kStandInTensorMapMagic[7]};
  uint64_t address = 0;
  uint8_t type = 0, rank = 0, interleave = 0, swizzle = 0, l2_promotion = 0, oob_fill = 0;
  uint8_t reserved[2] = {};
  uint32_t box[kTensorMapMaxRank] = {}, element_strides[kTensorMapMaxRank] = {};
  uint32_t dims_minus_one[kTensorMapMaxRank] = {};  // a dimension is 1 to 2^32 elements
  uint64_t strides[kTensorMapMaxRank - 1] = {};
};
static_assert(sizeof(StandInTensorMap) <= kTensorMapBytes, "the stand-in fits the map");

// A type's element size in bytes; 0 for the packed types and values no type has.
constexpr uint32_t TensorMapElementBytes(uint32_t type) {
  using namespace tensor_map;  // NOLINT(build/namespaces): the enumerators above
  switch (type) {
    case kUint8:
      return 1;
    case kUint16:
    case kFloat16:
    case kBfloat16:
      return 2;
    case kUint32:
    case kInt32:
    case kFloat32:
    case kFloat32Ftz:
    case kTfloat32:
    case kTfloat32Ftz:
      return 4;
    case kUint64:
    case kInt64:
    case kFloat64:
      return 8;
    default:
      return 0;
  }
}

// The stand-in map in the kTensorMapBytes bytes at `bytes`, or nullopt when they do not begin with
// the magic.
inline std::optional<StandInTensorMap> ReadStandInTensorMap(const uint8_t* bytes) {
  if (std::memcmp(bytes, kStandInTensorMapMagic, sizeof kStandInTensorMapMagic) != 0) return std::nullopt;
  StandInTensorMap map;
  std::memcpy(&map, bytes, sizeof map);
  return map;
}

// Why the copies of `map` are not costed (nullopt: they are). Bytes the stand-in's encoder never
// writes (it validates every argument) are not its map. The box rule was fitted to the forms the
// H100 measured (docs/counters.md, "TMA"; benchmarks/tma_probe.cu and the suite's wgmma_layouts TMA
// cases): tensors of rank 1 and 2 with 2- and 4-byte elements, every swizzle, no interleave, element
// strides of 1, L2 promotion none or 128 bytes and no out-of-bounds NaN fill. Any other form was not
// measured, and its copies are not costed until it is.
std::optional<std::string> UncostedTensorMap(const StandInTensorMap& map);

// The box a copy of `map` moves, its first element at `at` (dimension 0 first; rank entries).
TensorBox BoxOf(const StandInTensorMap& map, const std::array<int32_t, kTensorMapMaxRank>& at);

}  // namespace bankcheck::emulate::internal
