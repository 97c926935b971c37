// The bits of a float or double and back, for the float semantics (semantics_fp32.cc,
// semantics_wide.cc): registers hold bits, the host computes on values.
#pragma once

#include <cstdint>
#include <cstring>

namespace bankcheck::emulate::internal {

// std::bit_cast's job, which C++17 lacks.
template <typename To, typename From>
To BitCast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "a bit cast keeps the size");
  To to{};
  std::memcpy(&to, &from, sizeof to);
  return to;
}

inline float AsFloat(uint32_t bits) { return BitCast<float>(bits); }
inline uint32_t Bits32(float value) { return BitCast<uint32_t>(value); }
inline double AsDouble(uint64_t bits) { return BitCast<double>(bits); }
inline uint64_t Bits64(double value) { return BitCast<uint64_t>(value); }

}  // namespace bankcheck::emulate::internal
