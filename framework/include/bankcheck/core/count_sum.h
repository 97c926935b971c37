#pragma once
// Sums of counts that refuse to wrap: counts come from results and baseline files that pull
// requests bring, and a sum wrapped at 2^64 would show a huge count as a small one (a comparison
// showing "ld 0" for a kernel full of conflicts).

#include <cstdint>
#include <string>

#include "bankcheck/core/error.h"

namespace bankcheck {

// a + b; Error(kBadInput) naming `what` ("load wavefronts") when the sum does not fit in 64 bits.
inline uint64_t AddCounts(uint64_t a, uint64_t b, const std::string& what) {
  uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    throw Error(ErrorKind::kBadInput,
                "the sum of " + what + " counts does not fit in 64 bits (" + std::to_string(a) + " + " +
                    std::to_string(b) +
                    "): no run counts so many; check the results or baseline files they "
                    "came from");
  }
  return sum;
}

}  // namespace bankcheck
