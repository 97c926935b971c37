// Strided shared-memory access: each lane of a warp stores one element at `lane * stride`, and
// after __syncthreads loads the element its neighbour lane (lane + 1) % 32 stored, at
// `((lane + 1) % 32) * stride`. Both accesses touch the same set of addresses, so the load and the
// store have the same bank pattern; reading another lane's element keeps the compiler from
// forwarding the stored value (a load of the thread's own just-stored element can be removed).
//
// Bank rules (shared/research/bank-model.md): a warp's 1-, 2- and 4-byte accesses are served in one
// group of 32 lanes, 8-byte accesses in two groups of 16, 16-byte accesses in four groups of 8; a
// group costs the largest number of distinct 4-byte words any bank holds. For 4-byte words a
// stride s gives gcd(s, 32) ways (not 32 / gcd(s, 32): stride 2 is 2-way, stride 16 is 16-way).
//
// Cases: strided/<type>_s<stride>/<blocks>x32, with one warp (1 block) and with 4,096 single-warp
// blocks; every launch executes one shared load and one shared store instruction per warp. The
// kernel's two lines say what each case costs (line annotations qualified by case).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kWarp = 32;

template <typename T, int kCapacity>
__global__ void __launch_bounds__(kWarp)
    StridedStoreLoad(const T* __restrict__ in, T* __restrict__ out, int stride) {
  __shared__ T buf[kCapacity];
  const unsigned lane = threadIdx.x;
  const size_t base = static_cast<size_t>(blockIdx.x) * kWarp;
  // bankcheck: 32-way in strided/u32_s32/* | strided/u32_s64/*, 16-way in strided/u16_s32/* | strided/u32_s16/* | strided/u64_s32/*, 8-way in strided/u128_s32/* | strided/u32_s8/* | strided/u8_s32/*, 4-way in strided/u128_s4/* | strided/u32_s4/* | strided/u64_s4/*, 2-way in strided/u128_s2/* | strided/u16_s4/* | strided/u32_s2/* | strided/u64_s2/*, conflict-free
  buf[lane * stride] = in[base + lane];
  __syncthreads();
  // bankcheck: 32-way in strided/u32_s32/* | strided/u32_s64/*, 16-way in strided/u16_s32/* | strided/u32_s16/* | strided/u64_s32/*, 8-way in strided/u128_s32/* | strided/u32_s8/* | strided/u8_s32/*, 4-way in strided/u128_s4/* | strided/u32_s4/* | strided/u64_s4/*, 2-way in strided/u128_s2/* | strided/u16_s4/* | strided/u32_s2/* | strided/u64_s2/*, conflict-free
  out[base + lane] = buf[((lane + 1) % kWarp) * stride];
}

// Every lane's output is its neighbour's input; for stride 0 every lane reads the one word all
// lanes wrote, which holds one lane's value (which lane wins is not specified).
template <typename T>
void CheckStridedOutput(const std::vector<T>& in, const std::vector<T>& out, int stride, unsigned blocks) {
  if (gtest::SkipOutputCheck("strided output")) return;
  if (stride != 0) {
    std::vector<T> expected(in.size());
    for (size_t b = 0; b < blocks; ++b)
      for (size_t lane = 0; lane < kWarp; ++lane)
        expected[b * kWarp + lane] = in[b * kWarp + (lane + 1) % kWarp];
    ExpectVectorsEqual(out, expected, "strided output");
    return;
  }
  size_t bad_blocks = 0;
  size_t first_bad = 0;
  for (size_t b = 0; b < blocks; ++b) {
    const T* block_out = &out[b * kWarp];
    bool ok = false;
    for (size_t lane = 0; lane < kWarp && !ok; ++lane)
      ok = std::memcmp(&block_out[0], &in[b * kWarp + lane], sizeof(T)) == 0;
    for (size_t lane = 1; lane < kWarp && ok; ++lane)
      ok = std::memcmp(&block_out[lane], &block_out[0], sizeof(T)) == 0;
    if (!ok && bad_blocks++ == 0) first_bad = b;
  }
  EXPECT_EQ(bad_blocks, 0u) << bad_blocks << " of " << blocks
                            << " blocks did not broadcast one of their inputs to all lanes; first: block "
                            << first_bad;
}

template <typename T, int kCapacity>
void RegisterStridedCase(const std::string& type_name, int stride, unsigned blocks) {
  if (stride < 0 || static_cast<long>(stride) * (kWarp - 1) >= kCapacity)
    throw Error(ErrorKind::kBadInput,
                "strided: stride " + std::to_string(stride) + " does not fit the buffer");

  KernelCase c;
  c.name = "strided/" + type_name + "_s" + std::to_string(stride) + "/" + std::to_string(blocks) + "x32";
  c.description = std::to_string(blocks) + " single-warp block(s): " + std::to_string(sizeof(T)) +
                  "-byte elements stored and loaded at lane * " + std::to_string(stride) +
                  (stride == 0 ? " (every lane the same element: broadcast read)" : "");
  c.predict = [stride, blocks] {
    const uint64_t pitch = static_cast<uint64_t>(stride) * sizeof(T);  // bytes between lanes
    return PredictLaunch(
        Dim3{blocks}, Dim3{kWarp},
        {SharedStore("buf[lane * stride]", sizeof(T), [=](Dim3, Dim3 t) { return t.x * pitch; }),
         SharedLoad("buf[((lane + 1) % 32) * stride]", sizeof(T),
                    [=](Dim3, Dim3 t) { return ((t.x + 1) % kWarp) * pitch; })});
  };
  c.run = [stride, blocks](CaseContext& ctx) {
    const size_t n = static_cast<size_t>(blocks) * kWarp;
    const std::vector<T> in = RandomBits<T>(n, 0x5717u + static_cast<uint32_t>(stride) * 131u + sizeof(T));
    DeviceBuffer<T> d_in(in);
    DeviceBuffer<T> d_out(n);
    d_out.Fill(0xFF);
    ctx.Measure([&] { StridedStoreLoad<T, kCapacity><<<blocks, kWarp>>>(d_in.get(), d_out.get(), stride); });
    CheckStridedOutput(in, d_out.ToHost(), stride, blocks);
  };
  RegisterKernelCase(std::move(c));
}

template <typename T, int kCapacity, size_t kRows>
void RegisterStridedTable(const std::string& type_name, const int (&strides)[kRows]) {
  for (const int stride : strides) {
    RegisterStridedCase<T, kCapacity>(type_name, stride, 1);
    // 4,096 single-warp blocks fill the GPU; every count is 4,096 times the one-warp count.
    RegisterStridedCase<T, kCapacity>(type_name, stride, 4096);
  }
}

// The strides of each element size; what each costs is on the kernel's lines (the same for the
// load and the store). 4-byte words: gcd(stride, 32) ways. Stride 0 is a broadcast: 32 lanes, one
// word, 1 wavefront for the load and the store (bank-model.md rule 2). Odd strides are
// conflict-free (33 = 1 mod 32 is the [32][33] padding stride); 64 puts 32 distinct words in bank 0.
constexpr int kU32Strides[] = {0, 1, 2, 3, 4, 8, 16, 17, 32, 33, 64};

// 1-byte elements: lane * stride bytes. Strides 1, 2, 4 put the warp in 8, 16, 32 consecutive
// words (lanes sharing a word cost nothing); stride 32 puts every lane in its own word, words
// lane * 8: banks 0, 8, 16, 24 with 8 words each, 8-way.
constexpr int kU8Strides[] = {1, 2, 4, 32};

// 2-byte elements: word = lane * stride / 2. Strides 1 and 2: two lanes per word or one word each,
// conflict-free; 4: words lane * 2, 2-way; 32: words lane * 16, banks 0 and 16, 16-way.
constexpr int kU16Strides[] = {1, 2, 4, 32};

// 8-byte elements: two groups of 16 lanes, ideal 2 wavefronts per instruction; stride 4 is 4-way in
// each group, stride 32 puts the 16 lanes of a group all in banks 0 and 1.
constexpr int kU64Strides[] = {1, 2, 4, 32};

// 16-byte elements: four groups of 8 lanes, ideal 4 wavefronts per instruction; stride 4 is 4-way
// in each group, stride 32 puts the 8 lanes of a group in banks 0-3: 8-way.
constexpr int kU128Strides[] = {1, 2, 4, 32};

void RegisterStridedCases() {
  // Buffers: 32 lanes x the largest stride (4-byte: 64 -> 8 KB; 16-byte: 32 -> 16 KB).
  RegisterStridedTable<uint32_t, 32 * 64>("u32", kU32Strides);
  RegisterStridedTable<uint8_t, 32 * 32>("u8", kU8Strides);
  RegisterStridedTable<uint16_t, 32 * 32>("u16", kU16Strides);
  RegisterStridedTable<uint64_t, 32 * 32>("u64", kU64Strides);
  RegisterStridedTable<uint4, 32 * 32>("u128", kU128Strides);
}

// (A function, not a lambda: template argument lists have commas, which the macro would split.)
BANKCHECK_REGISTER_CASES(RegisterStridedCases);

}  // namespace
}  // namespace bankcheck::kernels
