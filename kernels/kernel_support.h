#pragma once
// Host-side helpers shared by the kernel files in kernels/: fixed-seed random inputs, a host
// transpose, a host GEMM reference, and vector comparisons that report the first mismatch and the mismatch
// count instead of one failure per element. Header only; registers nothing.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "bankcheck/testing/testing.h"

namespace bankcheck::kernels {

constexpr unsigned CeilDiv(unsigned a, unsigned b) { return (a + b - 1) / b; }

// `n` integers drawn uniformly from [lo, hi] with a fixed seed.
inline std::vector<int32_t> RandomInts(size_t n, uint32_t seed, int32_t lo = -1000, int32_t hi = 1000) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> dist(lo, hi);
  std::vector<int32_t> values(n);
  for (auto& v : values) v = dist(rng);
  return values;
}

// `n` integer-valued floats in [lo, hi] (exact in float, so results compare with ==).
inline std::vector<float> RandomIntegerFloats(size_t n, uint32_t seed, int32_t lo = -100000,
                                              int32_t hi = 100000) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> dist(lo, hi);
  std::vector<float> values(n);
  for (auto& v : values) v = static_cast<float>(dist(rng));
  return values;
}

// `n` values of a trivially copyable T whose bytes are all random (any bit pattern: use only for
// data that is copied, never for arithmetic on floats).
template <typename T>
std::vector<T> RandomBits(size_t n, uint32_t seed) {
  static_assert(std::is_trivially_copyable_v<T>, "RandomBits needs a trivially copyable type");
  std::mt19937 rng(seed);
  std::vector<uint32_t> words((n * sizeof(T) + 3) / 4);
  for (auto& w : words) w = static_cast<uint32_t>(rng());
  std::vector<T> values(n);
  if (n != 0) std::memcpy(values.data(), words.data(), n * sizeof(T));
  return values;
}

// The transpose of a row-major rows x cols matrix (cols x rows, row-major).
template <typename T>
std::vector<T> HostTranspose(const std::vector<T>& in, size_t rows, size_t cols) {
  std::vector<T> out(in.size());
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
  return out;
}

// C = A * B^T for row-major A (m x k) and B (n x k), as floats: the reference of the f16 GEMMs,
// whose inputs are small integers so that every product and partial sum is exact in f32.
inline std::vector<float> HostGemmNT(const std::vector<int32_t>& a, const std::vector<int32_t>& b, size_t m,
                                     size_t n, size_t k) {
  std::vector<float> c(m * n);
  for (size_t row = 0; row < m; ++row) {
    for (size_t col = 0; col < n; ++col) {
      int32_t sum = 0;
      for (size_t i = 0; i < k; ++i) sum += a[row * k + i] * b[col * k + i];
      c[row * n + col] = static_cast<float>(sum);
    }
  }
  return c;
}

// `values` converted one by one to T through float (a half type, for the GEMMs' inputs).
template <typename T>
std::vector<T> ConvertedThroughFloat(const std::vector<int32_t>& values) {
  std::vector<T> converted;
  converted.reserve(values.size());
  for (const int32_t value : values) converted.push_back(T(static_cast<float>(value)));
  return converted;
}

namespace internal {
// One element, printed readably: numbers as numbers, other types (uint4, ...) as hex bytes.
template <typename T>
std::string Describe(const T& value) {
  std::ostringstream out;
  if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    out << static_cast<int>(value);
  } else if constexpr (std::is_arithmetic_v<T>) {
    out << value;
  } else {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out << "0x";
    for (size_t i = sizeof(T); i-- > 0;)
      out << std::hex << std::setw(2) << std::setfill('0') << int{bytes[i]};
  }
  return out.str();
}
}  // namespace internal

// Compares element by element (bitwise for non-arithmetic types) and adds ONE failure that gives
// the mismatch count and the first mismatch, so a wrong kernel on a large output stays readable.
// Checks nothing, saying why, where kernels are not run (the emulated program: SkipOutputCheck).
template <typename T>
void ExpectVectorsEqual(const std::vector<T>& actual, const std::vector<T>& expected,
                        const std::string& what) {
  static_assert(std::is_trivially_copyable_v<T>, "ExpectVectorsEqual needs a trivially copyable type");
  if (::bankcheck::gtest::SkipOutputCheck(what)) return;
  ASSERT_EQ(actual.size(), expected.size()) << what << ": sizes differ";
  size_t mismatches = 0;
  size_t first = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    bool equal;
    if constexpr (std::is_arithmetic_v<T>) {
      equal = actual[i] == expected[i];
    } else {
      equal = std::memcmp(&actual[i], &expected[i], sizeof(T)) == 0;
    }
    if (!equal && mismatches++ == 0) first = i;
  }
  EXPECT_EQ(mismatches, 0u) << what << ": " << mismatches << " of " << actual.size()
                            << " elements differ; first at index " << first << ": got "
                            << (mismatches ? internal::Describe(actual[first]) : std::string())
                            << ", expected "
                            << (mismatches ? internal::Describe(expected[first]) : std::string());
}

}  // namespace bankcheck::kernels
