// Global- and local-memory traffic: the other two ways a kernel wastes memory bandwidth, under the
// same contract as bank conflicts (docs/counters.md, "Global and local memory").
//
// Global memory moves in 32-byte sectors. A warp's load or store costs the sectors its active lanes'
// bytes touch; its ideal is the sectors those bytes would fill if they were contiguous (the
// distinct bytes / 32, rounded up). A line's ways are sectors per ideal sector: 1 (coalesced) for
// consecutive 4-byte lanes, 2 for stride 2, 8 for stride 32 (every lane its own sector, 32 against
// 4), 17/16 for 16-byte lanes that start 16 bytes into a 32-byte sector. These lines say so with
// `ldg`/`stg` terms; a change that breaks coalescing fails there, and against the baseline.
//
// Local memory is a thread's stack: local arrays indexed by data, and registers spilled when a
// kernel needs more than it may have. It has no ideal; its instructions and sectors are compared
// with the baseline (more is a regression), and a kernel that must not spill says so with
// c.expect: no local instructions.
//
// Cases: global_memory/<pattern>/64x256 (64 blocks of 256 threads, one load and one store per
// thread), local_memory/data_indexed/64x256, local_memory/spilled_tile/1x256 (an 8x8 register tile
// of accumulators under __launch_bounds__(256, 8), which leaves 32 registers) and
// local_memory/register_tile/1x256 (the same tile with the registers it needs: no local traffic).

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"
#include "outer_product_tile.cuh"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kBlocks = 64;
constexpr unsigned kThreads = 256;
constexpr unsigned kN = kBlocks * kThreads;

__global__ void CoalescedCopy(const float* __restrict__ in, float* __restrict__ out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];  // bankcheck: ldg coalesced, stg coalesced
}

__global__ void Stride2Gather(const float* __restrict__ in, float* __restrict__ out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[2 * i];  // bankcheck: ldg 2-way, stg coalesced
}

__global__ void Stride32Gather(const float* __restrict__ in, float* __restrict__ out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[32 * i];  // bankcheck: ldg 8-way, stg coalesced
}

// `in` is 16-byte aligned but not 32: every warp's 512 bytes straddle 17 sectors.
__global__ void MisalignedFloat4Copy(const float4* __restrict__ in, float4* __restrict__ out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];  // bankcheck: ldg 1.0625-way, stg coalesced
}

struct Particle {  // 32 bytes: reading one field per lane touches a sector per lane
  float x, y, z, w, vx, vy, vz, mass;
};

__global__ void ArrayOfStructsRead(const Particle* __restrict__ in, float* __restrict__ out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i].x;  // bankcheck: ldg 8-way, stg coalesced
}

// A 32-float array indexed by data cannot live in registers: the compiler puts it on the stack.
__global__ void DataIndexedLocalArray(const int* __restrict__ index, const float* __restrict__ in,
                                      float* __restrict__ out) {
  float values[32];
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 32; ++k) values[index[k] & 31] = in[t * 32 + k];
  out[t] = values[index[threadIdx.x % 32] & 31];
}

// One global-memory case: `in` of `in_floats` random floats, `out` of kN elements of `Out`, and the
// output the host expects.
template <typename Out>
void RegisterGlobalCase(const std::string& pattern, const std::string& description, size_t in_floats,
                        void (*launch)(const float*, Out*),
                        Out (*expected_at)(const std::vector<float>&, size_t)) {
  KernelCase c;
  c.name = "global_memory/" + pattern + "/64x256";
  c.description = description;
  c.run = [=](CaseContext& ctx) {
    const std::vector<float> in = RandomIntegerFloats(in_floats, 0x610B + static_cast<uint32_t>(in_floats));
    DeviceBuffer<float> d_in(in);
    DeviceBuffer<Out> d_out(kN);
    ctx.Measure([&] { launch(d_in.get(), d_out.get()); });
    std::vector<Out> expected(kN);
    for (size_t i = 0; i < kN; ++i) expected[i] = expected_at(in, i);
    ExpectVectorsEqual(d_out.ToHost(), expected, pattern + " output");
  };
  RegisterKernelCase(std::move(c));
}

float4 Float4At(const std::vector<float>& in, size_t i) {
  return {in[4 + 4 * i], in[5 + 4 * i], in[6 + 4 * i], in[7 + 4 * i]};
}

void RegisterGlobalMemoryCases() {
  RegisterGlobalCase<float>(
      "coalesced", "out[i] = in[i]: consecutive 4-byte lanes, 4 sectors per warp (the ideal)", kN,
      [](const float* in, float* out) { CoalescedCopy<<<kBlocks, kThreads>>>(in, out); },
      [](const std::vector<float>& in, size_t i) { return in[i]; });
  RegisterGlobalCase<float>(
      "stride2", "out[i] = in[2 * i]: every other float, 8 sectors per warp load against 4", 2 * kN,
      [](const float* in, float* out) { Stride2Gather<<<kBlocks, kThreads>>>(in, out); },
      [](const std::vector<float>& in, size_t i) { return in[2 * i]; });
  RegisterGlobalCase<float>(
      "stride32", "out[i] = in[32 * i]: a sector per lane, 32 per warp load against 4", 32 * kN,
      [](const float* in, float* out) { Stride32Gather<<<kBlocks, kThreads>>>(in, out); },
      [](const std::vector<float>& in, size_t i) { return in[32 * i]; });
  RegisterGlobalCase<float4>(
      "misaligned_float4",
      "16-byte loads from 16 bytes past a 32-byte boundary: 17 sectors per warp against 16", 4 * kN + 4,
      [](const float* in, float4* out) {
        MisalignedFloat4Copy<<<kBlocks, kThreads>>>(reinterpret_cast<const float4*>(in + 4), out);
      },
      Float4At);
  RegisterGlobalCase<float>(
      "array_of_structs", "one float of a 32-byte struct per lane: 32 sectors per warp load against 4",
      8 * kN,
      [](const float* in, float* out) {
        ArrayOfStructsRead<<<kBlocks, kThreads>>>(reinterpret_cast<const Particle*>(in), out);
      },
      [](const std::vector<float>& in, size_t i) { return in[8 * i]; });
}

BANKCHECK_REGISTER_CASES(RegisterGlobalMemoryCases);

void RegisterLocalMemoryCases() {
  {
    KernelCase c;
    c.name = "local_memory/data_indexed/64x256";
    c.description = "a 32-float array written and read at indices read from memory: on the stack (STL, LDL)";
    c.run = [](CaseContext& ctx) {
      const std::vector<float> in = RandomIntegerFloats(size_t{kN} * 32, 0x10CA);
      std::vector<int> index(32);
      for (int k = 0; k < 32; ++k) index[k] = (k * 7 + 3) % 32;  // a permutation: every slot written
      DeviceBuffer<float> d_in(in);
      DeviceBuffer<int> d_index(index);
      DeviceBuffer<float> d_out(kN);
      ctx.Measure(
          [&] { DataIndexedLocalArray<<<kBlocks, kThreads>>>(d_index.get(), d_in.get(), d_out.get()); });
      std::vector<float> expected(kN);
      for (size_t t = 0; t < kN; ++t) {
        float values[32];
        for (int k = 0; k < 32; ++k) values[index[k] & 31] = in[t * 32 + k];
        expected[t] = values[index[t % 32] & 31];
      }
      ExpectVectorsEqual(d_out.ToHost(), expected, "data-indexed local array output");
    };
    RegisterKernelCase(std::move(c));
  }
  // The same tile with 8 blocks per SM (32 registers: spilled) and with 1 (the registers it needs).
  const auto tile = [](const std::string& name, const std::string& description, bool spills,
                       void (*launch)(const float*, const float*, float*)) {
    KernelCase c;
    c.name = "local_memory/" + name + "/1x256";
    c.description = description;
    // A kernel that must not spill says so: no local instructions at all.
    if (!spills) {
      c.expect[MemoryKind::kLocalLoad].instructions = 0;
      c.expect[MemoryKind::kLocalStore].instructions = 0;
    }
    c.run = [launch, name](CaseContext& ctx) {
      const std::vector<float> a = RandomIntegerFloats(64 * 2048, 0xA11, -8, 8);
      const std::vector<float> b = RandomIntegerFloats(64 * 2048, 0xB22, -8, 8);
      DeviceBuffer<float> d_a(a), d_b(b);
      DeviceBuffer<float> d_out(256 * 64);
      ctx.Measure([&] { launch(d_a.get(), d_b.get(), d_out.get()); });
      // Small integers: every product and partial sum is exact in float, in any order.
      std::vector<float> expected(256 * 64, 0.0f);
      for (size_t t = 0; t < 256; ++t)
        for (size_t k = 0; k < 64; ++k)
          for (size_t i = 0; i < 8; ++i)
            for (size_t j = 0; j < 8; ++j)
              expected[(t * 8 + i) * 8 + j] += a[k * 2048 + t * 8 + i] * b[k * 2048 + t * 8 + j];
      ExpectVectorsEqual(d_out.ToHost(), expected, name + " output");
    };
    RegisterKernelCase(std::move(c));
  };
  tile("spilled_tile", "an 8x8 accumulator tile under __launch_bounds__(256, 8): 32 registers, spilled", true,
       [](const float* a, const float* b, float* out) { OuterProductTile<8><<<1, 256>>>(a, b, out); });
  tile("register_tile", "the same tile under __launch_bounds__(256, 1): in registers, no local memory", false,
       [](const float* a, const float* b, float* out) { OuterProductTile<1><<<1, 256>>>(a, b, out); });
}

BANKCHECK_REGISTER_CASES(RegisterLocalMemoryCases);

}  // namespace
}  // namespace bankcheck::kernels
