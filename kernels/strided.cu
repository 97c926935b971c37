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
// blocks; every launch executes one shared load and one shared store instruction per warp.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bankcheck/bank_model.h"
#include "bankcheck/cuda_check.h"
#include "bankcheck/kernel_registry.h"
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
  buf[lane * stride] = in[base + lane];
  __syncthreads();
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

// One row of a case table: the stride in elements and the wavefronts one warp instruction (load
// or store: same addresses) costs there. Ideal is 1 wavefront per instruction for elements of 1, 2
// or 4 bytes, 2 for 8 bytes, 4 for 16 bytes.
struct StrideRow {
  int stride;
  unsigned wavefronts;
};

template <typename T, int kCapacity>
void RegisterStridedCase(const std::string& type_name, const StrideRow& row, unsigned blocks) {
  constexpr unsigned kIdeal = sizeof(T) <= 4 ? 1 : sizeof(T) / 4;
  const int stride = row.stride;
  if (stride < 0 || static_cast<long>(stride) * (kWarp - 1) >= kCapacity)
    throw Error(ErrorKind::kBadInput,
                "strided: stride " + std::to_string(stride) + " does not fit the buffer");

  KernelCase c;
  c.name = "strided/" + type_name + "_s" + std::to_string(stride) + "/" + std::to_string(blocks) + "x32";
  c.description = std::to_string(blocks) + " single-warp block(s): " + std::to_string(sizeof(T)) +
                  "-byte elements stored and loaded at lane * " + std::to_string(stride) +
                  (stride == 0 ? " (every lane the same element: broadcast read)" : "");
  c.expect[SharedKind::kLoad].ways = c.expect[SharedKind::kStore].ways =
      static_cast<double>(row.wavefronts) / kIdeal;
  c.expect[SharedKind::kLoad].instructions = c.expect[SharedKind::kStore].instructions = blocks;
  c.expect[SharedKind::kLoad].conflicts = c.expect[SharedKind::kStore].conflicts =
      static_cast<uint64_t>(blocks) * (row.wavefronts - kIdeal);
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
void RegisterStridedTable(const std::string& type_name, const StrideRow (&rows)[kRows]) {
  for (const StrideRow& row : rows) {
    RegisterStridedCase<T, kCapacity>(type_name, row, 1);
    // 4,096 single-warp blocks fill the GPU; every count is 4,096 times the one-warp count.
    // Measured on the H100 at this scale too (the research note had only u32 stride 1: 4,096 / 4,096
    // wavefronts, exact in the instrumented counters).
    RegisterStridedCase<T, kCapacity>(type_name, row, 4096);
  }
}

// 4-byte words: gcd(stride, 32) ways.
constexpr StrideRow kU32Rows[] = {
    // Broadcast read: 1 wavefront (bank-model.md rule 2). The store of stride 0 (32 lanes, one
    // word): 1 wavefront by the same rule, measured on the H100.
    {0, 1},   {1, 1},  // measured (research table: 1 inst / 1 wf / 0 conflicts, loads and stores)
    {2, 2},            // measured (1 / 2 / 1)
    {3, 1},            // measured on the H100: gcd(3, 32) = 1
    {4, 4},            // measured (1 / 4 / 3)
    {8, 8},            // measured (1 / 8 / 7)
    {16, 16},          // measured (1 / 16 / 15)
    {17, 1},           // measured on the H100: odd strides are conflict-free
    {32, 32},          // measured (1 / 32 / 31)
    {33, 1},           // measured on the H100: 33 = 1 (mod 32), the [32][33] padding stride
    {64, 32},          // measured on the H100: 32 distinct words, all in bank 0
};

// 1-byte elements: lane * stride bytes. Strides 1, 2, 4 put the warp in 8, 16, 32 consecutive
// words (lanes sharing a word cost nothing); stride 32 puts every lane in its own word, words
// lane * 8: banks 0, 8, 16, 24 with 8 words each, 8-way.
constexpr StrideRow kU8Rows[] = {
    {1, 1},   // measured on the H100 (sub-word stores into one word: believed to count once)
    {2, 1},   // measured on the H100
    {4, 1},   // measured on the H100
    {32, 8},  // measured on the H100
};

// 2-byte elements: word = lane * stride / 2.
constexpr StrideRow kU16Rows[] = {
    {1, 1},    // measured on the H100 (two lanes per word)
    {2, 1},    // measured on the H100
    {4, 2},    // measured on the H100: words lane * 2, 2-way
    {32, 16},  // measured on the H100: words lane * 16, banks 0 and 16
};

// 8-byte elements: two groups of 16 lanes, ideal 2 wavefronts per instruction.
constexpr StrideRow kU64Rows[] = {
    {1, 2},    // measured on the H100 (research measured 8-byte stride 1 = 2 wavefronts)
    {2, 4},    // measured on the H100 (research measured 8-byte stride 2: 2 conflicts)
    {4, 8},    // measured on the H100: 4-way in each group
    {32, 32},  // measured on the H100: 16 lanes of a group all in banks 0 and 1
};

// 16-byte elements: four groups of 8 lanes, ideal 4 wavefronts per instruction.
constexpr StrideRow kU128Rows[] = {
    {1, 4},    // measured on the H100 (research measured 16-byte stride 1 = 4 wavefronts)
    {2, 8},    // measured on the H100 (research measured 16-byte stride 2: 4 conflicts)
    {4, 16},   // measured on the H100: 4-way in each group
    {32, 32},  // measured on the H100: 8 lanes of a group in banks 0-3: 8-way
};

void RegisterStridedCases() {
  // Buffers: 32 lanes x the largest stride (4-byte: 64 -> 8 KB; 16-byte: 32 -> 16 KB).
  RegisterStridedTable<uint32_t, 32 * 64>("u32", kU32Rows);
  RegisterStridedTable<uint8_t, 32 * 32>("u8", kU8Rows);
  RegisterStridedTable<uint16_t, 32 * 32>("u16", kU16Rows);
  RegisterStridedTable<uint64_t, 32 * 32>("u64", kU64Rows);
  RegisterStridedTable<uint4, 32 * 32>("u128", kU128Rows);
}

// (A function, not a lambda: template argument lists have commas, which the macro would split.)
BANKCHECK_REGISTER_CASES(RegisterStridedCases);

}  // namespace
}  // namespace bankcheck::kernels
