#pragma once
// The recorder's random numbers (record.cc, mma_inputs.cc): splitmix64 from a fixed seed per form.

#include <cstdint>

namespace bankcheck::conformance {

inline uint64_t Next(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace bankcheck::conformance
