#pragma once
// The bank model's rules of a shared access that more than one of its files checks (bank_model.cc
// costs warps, predict_launch.cc predicts whole launches).

#include <cstdint>

#include "bankcheck/core/memory_kind.h"

namespace bankcheck::internal {

// The sizes a shared access may have: 1, 2, 4, 8 or 16 bytes.
inline bool IsValidAccessSize(uint32_t bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16;
}

// ldmatrix and stmatrix: 16-byte rows, eight lanes per matrix.
inline bool IsMatrixKind(MemoryKind kind) {
  return kind == MemoryKind::kSharedLdmatrix || kind == MemoryKind::kSharedStmatrix;
}

}  // namespace bankcheck::internal
