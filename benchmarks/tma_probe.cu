// TMA and bulk copies of chosen boxes, one launch each, for benchmarks/tma_probe.sh: which counters
// see their global reads and writes (ncu's launch metrics, the SASS Metrics API, a range-profiler
// session beside bankcheck's own metrics), against the sector model's rule for a box
// (TensorBoxSectors, memory_sectors.h). Modes:
//   plain              run every launch unmeasured (for ncu)
//   sass               measure each launch by SASS metrics (the default way) and print its kinds
//   range METRIC...    measure each launch in a range-profiler session with METRIC... as extra
//                      metrics, and print them and its kinds
// Every line a launch prints starts with its case name; "box" lines give the tensor map and the
// coordinates, so the sectors the rule predicts can be computed from them.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/memory_kind.h"
#include "bankcheck/core/memory_sectors.h"
#include "bankcheck/cuda/counter_session.h"

namespace {

constexpr int kSharedBytes = 16384;

__device__ uint32_t SharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ void WaitParity0(uint32_t bar) {
  uint32_t done = 0;
  while (!done)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar)
        : "memory");
}

__device__ void ExpectBytes(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// One box per block: block b loads at (x, y + b * dy).
__global__ void TmaLoad(const __grid_constant__ CUtensorMap map, int rank, int x, int y, int dy,
                        uint32_t bytes, float* sink) {
  __shared__ alignas(1024) unsigned char tile[kSharedBytes];
  __shared__ alignas(8) uint64_t barrier;
  const uint32_t bar = SharedAddress(&barrier);
  const uint32_t dst = SharedAddress(tile);
  const int yy = y + static_cast<int>(blockIdx.x) * dy;
  if (threadIdx.x == 0) {
    ExpectBytes(bar, bytes);
    if (rank == 1)
      asm volatile(
          "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2}], "
          "[%3];" ::"r"(dst),
          "l"(&map), "r"(x), "r"(bar)
          : "memory");
    else
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
          "[%4];" ::"r"(dst),
          "l"(&map), "r"(x), "r"(yy), "r"(bar)
          : "memory");
    WaitParity0(bar);
    sink[blockIdx.x] = reinterpret_cast<const float*>(tile)[0];
  }
}

__global__ void TmaStore(const __grid_constant__ CUtensorMap map, int x, int y, int dy) {
  __shared__ alignas(1024) unsigned char tile[kSharedBytes];
  for (int i = static_cast<int>(threadIdx.x); i < kSharedBytes / 4; i += static_cast<int>(blockDim.x))
    reinterpret_cast<float*>(tile)[i] = static_cast<float>(i);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    const int yy = y + static_cast<int>(blockIdx.x) * dy;
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&map),
                 "r"(x), "r"(yy), "r"(SharedAddress(tile))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

__global__ void BulkLoad(const float* src, uint32_t bytes, float* sink) {
  __shared__ alignas(128) unsigned char tile[kSharedBytes];
  __shared__ alignas(8) uint64_t barrier;
  const uint32_t bar = SharedAddress(&barrier);
  if (threadIdx.x == 0) {
    ExpectBytes(bar, bytes);
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            SharedAddress(tile)),
        "l"(src), "r"(bytes), "r"(bar)
        : "memory");
    WaitParity0(bar);
    sink[0] = reinterpret_cast<const float*>(tile)[1];
  }
}

__global__ void BulkStore(float* dst, uint32_t bytes) {
  __shared__ alignas(128) unsigned char tile[kSharedBytes];
  for (int i = static_cast<int>(threadIdx.x); i < kSharedBytes / 4; i += static_cast<int>(blockDim.x))
    reinterpret_cast<float*>(tile)[i] = static_cast<float>(i);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
                 "r"(SharedAddress(tile)), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

// 16-byte cp.async (LDGSTS.128), 4 per warp, every lane 16 contiguous bytes: 16 sectors each.
__global__ void CpAsync16(const float4* src, float* sink) {
  __shared__ alignas(128) float4 tile[4 * 32];
  for (int k = 0; k < 4; ++k) {
    const uint32_t dst = SharedAddress(&tile[k * 32 + threadIdx.x]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src + k * 32 + threadIdx.x)
                 : "memory");
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  sink[threadIdx.x] = tile[threadIdx.x].x;
}

void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

PFN_cuTensorMapEncodeTiled_v12000 Encoder() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  Check(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status),
        "cuTensorMapEncodeTiled");
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

struct Box {
  const char* name;
  bool store;
  CUtensorMapDataType type;
  uint32_t element_bytes;
  uint32_t rank;
  uint64_t dims[2];
  uint64_t row_stride;  // bytes
  uint32_t box[2];
  CUtensorMapSwizzle swizzle;
  int x, y, dy;
  unsigned blocks;
};

// clang-format off
const Box kBoxes[] = {
    {"load_f32_32x32_in", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 32, 32, 0, 1},
    {"load_f32_32x32_x4", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 4, 0, 0, 1},
    {"load_f32_8x8", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {8, 8}, CU_TENSOR_MAP_SWIZZLE_NONE, 8, 8, 0, 1},
    {"load_f32_8x8_x4", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {8, 8}, CU_TENSOR_MAP_SWIZZLE_NONE, 4, 8, 0, 1},
    {"load_f32_4x32_rows16", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {4, 256}, 16, {4, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 0, 0, 0, 1},
    {"load_f32_32x32_edge", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 240, 240, 0, 1},
    {"load_f32_32x32_negative", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, -16, -16, 0, 1},
    {"load_f32_32x32_outside", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 512, 512, 0, 1},
    {"load_f32_32x32_odd_edge", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {250, 250}, 1024, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 236, 236, 0, 1},
    {"load_f16_64x64_sw128", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 2, {64, 64}, 128, {64, 64}, CU_TENSOR_MAP_SWIZZLE_128B, 0, 0, 0, 1},
    {"load_f16_32x64_sw64", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 2, {64, 64}, 128, {32, 64}, CU_TENSOR_MAP_SWIZZLE_64B, 32, 0, 0, 1},
    {"load_f32_1d_64", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 1, {4096, 1}, 0, {64, 1}, CU_TENSOR_MAP_SWIZZLE_NONE, 4, 0, 0, 1},
    {"load_f32_32x32_grid528", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 16896}, 1024, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 32, 0, 32, 528},
    {"store_f32_32x32_in", true, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 32, 32, 0, 1},
    {"store_f32_32x32_x4", true, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 4, 0, 0, 1},
    {"store_f32_32x32_edge", true, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 240, 240, 0, 1},
    {"store_f32_8x8_x4", true, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {8, 8}, CU_TENSOR_MAP_SWIZZLE_NONE, 4, 8, 0, 1},
    // Boxes the rule was not fitted to (the discovery run had the ones above).
    // No store box starts before the tensor: on the H100 a store at x = -4 faults (an illegal
    // instruction) and ends the process's CUDA context.
    {"load_f32_48x8_x4", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {48, 8}, CU_TENSOR_MAP_SWIZZLE_NONE, 4, 0, 0, 1},
    {"load_f32_32x8_negative_x4", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {32, 8}, CU_TENSOR_MAP_SWIZZLE_NONE, -4, 8, 0, 1},
    {"load_f32_32x8_right_of", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {32, 8}, CU_TENSOR_MAP_SWIZZLE_NONE, 256, 8, 0, 1},
    {"load_f32_32x8_odd_x", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {250, 250}, 1024, {32, 8}, CU_TENSOR_MAP_SWIZZLE_NONE, 244, 0, 0, 1},
    {"store_f32_32x8_odd_x", true, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {250, 250}, 1024, {32, 8}, CU_TENSOR_MAP_SWIZZLE_NONE, 244, 0, 0, 1},
    {"load_f32_32x8_odd_y_x4", false, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 250}, 1024, {32, 8}, CU_TENSOR_MAP_SWIZZLE_NONE, 4, 246, 0, 1},
    {"store_f32_4x32_rows16", true, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {4, 256}, 16, {4, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 0, 0, 0, 1},
    {"load_u8_80x4_x16", false, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, 2, {1024, 64}, 1024, {80, 4}, CU_TENSOR_MAP_SWIZZLE_NONE, 16, 0, 0, 1},
    {"store_f32_32x32_grid8", true, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {256, 256}, 1024, {32, 32}, CU_TENSOR_MAP_SWIZZLE_NONE, 4, 0, 32, 8},
};
// clang-format on

// What the sector model predicts for a box, over its blocks.
std::string Predict(const Box& b, const void* global) {
  bankcheck::TensorBox box;
  box.address = reinterpret_cast<uintptr_t>(global);
  box.rank = b.rank;
  box.element_bytes = b.element_bytes;
  box.dims = {b.dims[0], b.dims[1]};
  box.strides = {0, b.row_stride};
  box.box = {b.box[0], b.box[1]};
  uint64_t sectors = 0;
  for (unsigned block = 0; block < b.blocks; ++block) {
    box.at = {b.x, b.y + static_cast<int64_t>(block) * b.dy};
    const bankcheck::TmaSectors cost = bankcheck::TensorBoxSectors(box, b.store);
    if (!cost.decided()) return "undecided (" + cost.undecided + ")";
    sectors += cost.sectors;
  }
  return std::to_string(sectors);
}

struct Launch {
  std::string name;
  std::function<void()> run;
};

std::vector<Launch> Launches(unsigned char* global, float* sink) {
  std::vector<Launch> launches;
  const auto encode = Encoder();
  for (const Box& b : kBoxes) {
    auto* map = new CUtensorMap{};
    const cuuint64_t dims[2] = {b.dims[0], b.dims[1]};
    const cuuint64_t strides[1] = {b.row_stride};
    const cuuint32_t box[2] = {b.box[0], b.box[1]};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult r = encode(map, b.type, b.rank, global, dims, strides, box, element_strides,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, b.swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      std::fprintf(stderr, "%s: cuTensorMapEncodeTiled failed (%d)\n", b.name, static_cast<int>(r));
      std::exit(1);
    }
    std::printf(
        "%s box rank %u element_bytes %u dims %llu %llu row_stride %llu box %u %u swizzle %d at %d %d dy %d "
        "blocks %u %s\n",
        b.name, b.rank, b.element_bytes, static_cast<unsigned long long>(b.dims[0]),
        static_cast<unsigned long long>(b.dims[1]), static_cast<unsigned long long>(b.row_stride), b.box[0],
        b.box[1], static_cast<int>(b.swizzle), b.x, b.y, b.dy, b.blocks, b.store ? "store" : "load");
    std::printf("%s predict %s\n", b.name, Predict(b, global).c_str());
    const uint32_t bytes = b.box[0] * (b.rank == 2 ? b.box[1] : 1) * b.element_bytes;
    if (b.store)
      launches.push_back({b.name, [=] { TmaStore<<<b.blocks, 128>>>(*map, b.x, b.y, b.dy); }});
    else
      launches.push_back(
          {b.name,
           [=] { TmaLoad<<<b.blocks, 32>>>(*map, static_cast<int>(b.rank), b.x, b.y, b.dy, bytes, sink); }});
  }
  for (const auto& [name, offset] : {std::pair<const char*, uint64_t>{"bulk_load_4096", 0},
                                     {"bulk_load_4096_at16", 16},
                                     {"bulk_store_4096", 0},
                                     {"bulk_store_4096_at16", 16}})
    std::printf("%s predict %llu\n", name,
                static_cast<unsigned long long>(
                    bankcheck::CopyRunSectors(reinterpret_cast<uintptr_t>(global) + offset, 4096)));
  launches.push_back(
      {"bulk_load_4096", [=] { BulkLoad<<<1, 32>>>(reinterpret_cast<float*>(global), 4096, sink); }});
  launches.push_back({"bulk_load_4096_at16",
                      [=] { BulkLoad<<<1, 32>>>(reinterpret_cast<float*>(global + 16), 4096, sink); }});
  launches.push_back(
      {"bulk_store_4096", [=] { BulkStore<<<1, 128>>>(reinterpret_cast<float*>(global), 4096); }});
  launches.push_back(
      {"bulk_store_4096_at16", [=] { BulkStore<<<1, 128>>>(reinterpret_cast<float*>(global + 16), 4096); }});
  launches.push_back(
      {"cp_async16_x4", [=] { CpAsync16<<<1, 32>>>(reinterpret_cast<float4*>(global), sink); }});
  return launches;
}

void PrintRecord(const std::string& name, const bankcheck::LaunchRecord& r) {
  for (const bankcheck::MemoryKindInfo& info : bankcheck::MemoryKinds()) {
    const bankcheck::KindCounts& c = r.kinds[info.kind];
    if (r.not_counted[info.kind]) {
      if (info.space == bankcheck::MemorySpace::kGlobal)
        std::printf("%s kind %s not counted\n", name.c_str(), info.key);
      continue;
    }
    if (c.instructions != 0 || c.wavefronts != 0)
      std::printf("%s kind %s instructions %llu traffic %llu ideal %llu\n", name.c_str(), info.key,
                  static_cast<unsigned long long>(c.instructions),
                  static_cast<unsigned long long>(c.wavefronts),
                  static_cast<unsigned long long>(c.ideal_wavefronts));
  }
  for (const auto& [metric, value] : r.extra_metrics)
    std::printf("%s metric %s %.0f\n", name.c_str(), metric.c_str(), value);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "plain";
  unsigned char* global = nullptr;
  float* sink = nullptr;
  Check(cudaMalloc(&global, 64u << 20), "cudaMalloc");
  Check(cudaMemset(global, 0, 64u << 20), "cudaMemset");
  Check(cudaMalloc(&sink, 4096 * sizeof(float)), "cudaMalloc");
  const std::vector<Launch> launches = Launches(global, sink);
  for (const Launch& l : launches) {
    if (mode == "plain") {
      l.run();
      Check(cudaDeviceSynchronize(), l.name.c_str());
      std::printf("%s ran\n", l.name.c_str());
      continue;
    }
    bankcheck::SessionOptions options;
    if (mode == "range") {
      options.counters = bankcheck::SessionOptions::Counters::kRangeProfiler;
      for (int i = 2; i < argc; ++i) options.extra_metrics.push_back(argv[i]);
    }
    try {
      const std::vector<bankcheck::LaunchRecord> records = bankcheck::Measure(l.run, options);
      for (const bankcheck::LaunchRecord& r : records) PrintRecord(l.name, r);
    } catch (const std::exception& e) {
      std::printf("%s error %s\n", l.name.c_str(), e.what());
    }
  }
  Check(cudaDeviceSynchronize(), "end");
  return 0;
}
