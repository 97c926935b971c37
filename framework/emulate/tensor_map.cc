// The stand-in runtime's tensor maps read back (internal/tensor_map.h): which of them the emulator
// costs, and the box a copy of one moves.

#include "emulate/internal/tensor_map.h"

#include <string>

namespace bankcheck::emulate::internal {

std::optional<std::string> UncostedTensorMap(const StandInTensorMap& map) {
  using namespace tensor_map;  // NOLINT(build/namespaces): the enumerators
  const uint32_t element_bytes = TensorMapElementBytes(map.type);
  bool encoded = map.rank >= 1 && map.rank <= kTensorMapMaxRank && element_bytes != 0 &&
                 map.interleave <= kInterleave32B && map.swizzle <= kSwizzle128B &&
                 map.l2_promotion <= kL2_256B && map.oob_fill <= kOobFillNanRequestZeroFma;
  for (uint32_t i = 0; encoded && i < map.rank; ++i)
    encoded =
        map.box[i] >= 1 && map.box[i] <= 256 && map.element_strides[i] >= 1 && map.element_strides[i] <= 8;
  if (!encoded)
    return std::string(
        "its bytes begin as the stand-in runtime's map does but hold values its "
        "cuTensorMapEncodeTiled never writes");
  std::string form;
  const auto add = [&form](const std::string& what) { form += (form.empty() ? "" : ", ") + what; };
  if (map.rank > 2) add("rank " + std::to_string(map.rank));
  if (element_bytes != 2 && element_bytes != 4) add(std::to_string(element_bytes) + "-byte elements");
  if (map.interleave != kInterleaveNone) add("an interleaved layout");
  for (uint32_t i = 0; i < map.rank; ++i)
    if (map.element_strides[i] != 1) {
      add("element strides other than 1");
      break;
    }
  if (map.l2_promotion != kL2None && map.l2_promotion != kL2_128B)
    add(std::string("L2 promotion of ") + (map.l2_promotion == kL2_64B ? "64" : "256") + " bytes");
  if (map.oob_fill != kOobFillNone) add("out-of-bounds NaN fill");
  if (form.empty()) return std::nullopt;
  return "its tensor map has " + form +
         ", a form whose TMA traffic was not measured (the box rule was fitted to tensors of rank 1 and 2 "
         "of 2- and 4-byte elements, without interleave or element strides, L2 promotion none or 128 "
         "bytes: docs/counters.md, \"TMA\"); measure it on an sm_90 GPU (benchmarks/tma_probe.cu) before "
         "the emulator costs it";
}

TensorBox BoxOf(const StandInTensorMap& map, const std::array<int32_t, kTensorMapMaxRank>& at) {
  TensorBox box;
  box.address = map.address;
  box.rank = map.rank;
  box.element_bytes = TensorMapElementBytes(map.type);
  for (uint32_t i = 0; i < map.rank && i < kTensorMapMaxRank; ++i) {
    box.dims[i] = uint64_t{map.dims_minus_one[i]} + 1;
    box.strides[i] = i == 0 ? 0 : map.strides[i - 1];
    box.box[i] = map.box[i];
    box.at[i] = at[i];
  }
  return box;
}

}  // namespace bankcheck::emulate::internal
