// Distributed shared memory (sm_90): blocks of a 2-block cluster read each other's shared memory.
//
//   partner_read_<how>  4 blocks of 128 threads in clusters of 2 (a launch attribute). Each block
//                 stores its part of the input into its own shared memory (vec[t] = in[...]: one STS
//                 per warp, consecutive words, conflict-free), cluster.sync(), then thread t reads
//                 vec[t] of the partner block (cluster rank ^ 1) and writes it to global memory; a
//                 second cluster.sync() keeps each block's shared memory alive until its partner
//                 has read it. So each block's output is its partner's input. <how>:
//                 map_shared_rank  cooperative_groups: a generic address, SASS LD.E desc[..][R.64]
//                 ptx              mapa.shared::cluster + ld.shared::cluster: SASS LD.E [R] (a
//                                  32-bit cluster address)
//                 Both are one remote load per warp; two cases in case the counters tell them apart
//                 (on the H100 they did not: the same counts).
//
// Counts: a remote shared-memory access has an instruction counter (MemoryKind::kSharedDsmem,
// smsp__sass_inst_executed_op_dshared) but no wavefront counter, so only its instructions are
// annotated. Measured on the H100: 16 per launch (one per warp) for both variants.
//
// Needs compute capability 9.0: the kernel's body is compiled for sm_90 only, and on an older
// device the case skips with the reason.

#include <cooperative_groups.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/gpu_probe.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kThreads = 128;  // 4 warps
constexpr unsigned kBlocks = 4;     // 2 clusters
constexpr unsigned kClusterSize = 2;
constexpr unsigned kWarpsPerLaunch = kBlocks * kThreads / 32;  // 16

// How the partner's shared memory is read.
enum class RemoteRead {
  kMapSharedRank,  // cluster.map_shared_rank: a generic 64-bit address, LD.E desc[..][R.64]
  kPtx,            // mapa.shared::cluster + ld.shared::cluster: a 32-bit cluster address, LD.E [R]
};

template <RemoteRead kRead>
__global__ void __launch_bounds__(kThreads)
    ClusterPartnerRead(const float* __restrict__ in, float* __restrict__ out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  __shared__ float vec[kThreads];
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned t = threadIdx.x;
  const size_t base = static_cast<size_t>(blockIdx.x) * kThreads;
  vec[t] = in[base + t];  // bankcheck: conflict-free
  cluster.sync();
  const unsigned partner = cluster.block_rank() ^ 1u;
  float v;
  if constexpr (kRead == RemoteRead::kMapSharedRank) {
    v = cluster.map_shared_rank(vec, partner)[t];
  } else {
    const auto local = static_cast<unsigned>(__cvta_generic_to_shared(&vec[t]));
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(partner));
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
  }
  out[base + t] = v;
  cluster.sync();  // keeps this block's shared memory alive until its partner has read it
#else
  (void)in;
  (void)out;
#endif
}

template <RemoteRead kRead>
void RegisterPartnerReadCase(const std::string& variant, const std::string& how) {
  KernelCase c;
  c.name = "dsmem/partner_read_" + variant;
  c.description =
      "4 blocks x 128 threads in 2-block clusters: each block stores a vector in its shared memory and "
      "reads its partner's through " +
      how;
  // SASS (sm_90): one STS (vec[t] = ...; its line says conflict-free) and one LD.E (the partner's
  // vec[t]) per warp; no LDS. The remote load is a generic LD in the SASS: counted as a
  // distributed-shared access, and (as measured on the H100) not also as a shared load. How the
  // launch counts it is stated here: the distributed-shared kind has no wavefront counter, which a
  // line could be checked against.
  c.expect[MemoryKind::kSharedDsmem].instructions = kWarpsPerLaunch;
  c.expect[MemoryKind::kSharedLoad].instructions = 0;
  c.run = [](CaseContext& ctx) {
    const int major = ProbeGpu().compute_major;
    if (major < 9) {
      GTEST_SKIP() << "thread block clusters and distributed shared memory need compute capability 9.0; "
                      "this device has "
                   << major << ".x";
    }
    const size_t n = static_cast<size_t>(kBlocks) * kThreads;
    const std::vector<float> in = RandomIntegerFloats(n, 0xD5E3u + static_cast<uint32_t>(kRead));
    DeviceBuffer<float> d_in(in);
    DeviceBuffer<float> d_out(n);
    d_out.Fill(0xFF);
    cudaLaunchAttribute cluster_dims[1] = {};
    cluster_dims[0].id = cudaLaunchAttributeClusterDimension;
    cluster_dims[0].val.clusterDim.x = kClusterSize;
    cluster_dims[0].val.clusterDim.y = 1;
    cluster_dims[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(kBlocks);
    config.blockDim = dim3(kThreads);
    config.attrs = cluster_dims;
    config.numAttrs = 1;
    const float* d_in_ptr = d_in.get();
    float* d_out_ptr = d_out.get();
    ctx.Measure([&] {
      BANKCHECK_CUDA_CHECK(cudaLaunchKernelEx(&config, ClusterPartnerRead<kRead>, d_in_ptr, d_out_ptr));
    });
    std::vector<float> expected(n);
    for (size_t b = 0; b < kBlocks; ++b)
      for (size_t t = 0; t < kThreads; ++t) expected[b * kThreads + t] = in[(b ^ 1u) * kThreads + t];
    ExpectVectorsEqual(d_out.ToHost(), expected, "partner's vector");
  };
  RegisterKernelCase(std::move(c));
}

void RegisterDsmemCases() {
  RegisterPartnerReadCase<RemoteRead::kMapSharedRank>("map_shared_rank", "cluster.map_shared_rank");
  RegisterPartnerReadCase<RemoteRead::kPtx>("ptx", "mapa + ld.shared::cluster");
}

BANKCHECK_REGISTER_CASES(RegisterDsmemCases);

}  // namespace
}  // namespace bankcheck::kernels
