#pragma once
// Bounds of byte spans [offset, offset + size), decided without computing offset + size where it
// could pass 2^64: an offset a crafted listing or kernel chooses (ld.param [param_1+-0x21c] reads
// c[0x0] at 2^64 - 4) wraps the sum to a small number, and `offset + size <= end` then holds for an
// offset far outside. Every such check of the framework's is one of these.

#include <cstdint>

namespace bankcheck::internal {

// Whether every byte of [offset, offset + size) lies in [0, end).
constexpr bool SpanWithin(uint64_t offset, uint64_t size, uint64_t end) {
  return offset <= end && size <= end - offset;
}

// offset + size, or UINT64_MAX where that passes 2^64: a span cut at the top of the address space.
constexpr uint64_t SpanEnd(uint64_t offset, uint64_t size) {
  return size > UINT64_MAX - offset ? UINT64_MAX : offset + size;
}

// Whether [offset, offset + size) is a span of at least one byte that does not pass 2^64.
constexpr bool SpanFits(uint64_t offset, uint64_t size) { return size != 0 && size <= UINT64_MAX - offset; }

}  // namespace bankcheck::internal
