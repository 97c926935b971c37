// CuTe (the nvidia-cutlass wheel's headers, optional: corpus/CMakeLists.txt) on SIMT code, one
// block of 256 threads:
//   cute_transpose  a 32x32 float tile copied global->shared with one thread layout (8x32, the
//                   column fastest) and shared->global with another (32x8, the row fastest), so the
//                   output is the input transposed; the shared tile row-major (the second copy
//                   walks columns: 32-way), padded to 33 columns, or Swizzle<5,0,5>-composed.
//   cute_gemm_simt  C (32x32, f32) = A (32x16) * B^T (B: 32x16, both K-major in global memory),
//                   one shared tile each, cute::gemm over a 16x16 thread layout (2x2 outputs a
//                   thread, UniversalFMA); the shared tiles K-major (16 floats a row), K-major
//                   padded (17), or M/N-major.
// Every tensor operation is CuTe's (make_tensor, local_partition, copy, gemm); ours are the layouts
// and the launch. References: the transpose and HostGemmNT (kernels/kernel_support.h), exact (small
// integers). Without CuTe's headers the same cases register and skip with the reason.

#if __has_include(<cute/tensor.hpp>)
#include <cute/tensor.hpp>
#define BANKCHECK_CORPUS_HAS_CUTE 1
#else
#define BANKCHECK_CORPUS_HAS_CUTE 0
#endif

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "corpus_support.h"

namespace bankcheck::corpus {
namespace {

enum class TileLayout { kRowMajor, kPadded, kSwizzled, kMnMajor };

#if BANKCHECK_CORPUS_HAS_CUTE
constexpr int kThreads = 256;
constexpr int kTile = 32;  // the transpose's tile, and the GEMM's M and N
constexpr int kK = 16;     // the GEMM's K
using cute::_1;
using T32 = cute::Int<kTile>;
using TK = cute::Int<kK>;

template <TileLayout kLayout>
auto TransposeSmemLayout() {
  using namespace cute;
  if constexpr (kLayout == TileLayout::kPadded) {
    return Layout<Shape<T32, T32>, Stride<Int<kTile + 1>, _1>>{};
  } else if constexpr (kLayout == TileLayout::kSwizzled) {
    return composition(Swizzle<5, 0, 5>{}, Layout<Shape<T32, T32>, Stride<T32, _1>>{});
  } else {
    return Layout<Shape<T32, T32>, Stride<T32, _1>>{};
  }
}

template <TileLayout kLayout>
__global__ void __launch_bounds__(kThreads) CuteTransposeKernel(const float* in, float* out) {
  using namespace cute;
  using SmemLayout = decltype(TransposeSmemLayout<kLayout>());
  __shared__ float smem[cosize_v<SmemLayout>];
  Tensor g_in = make_tensor(make_gmem_ptr(in), Layout<Shape<T32, T32>, Stride<T32, _1>>{});      // (r, c)
  Tensor g_out_t = make_tensor(make_gmem_ptr(out), Layout<Shape<T32, T32>, Stride<_1, T32>>{});  // out[c][r]
  Tensor s_tile = make_tensor(make_smem_ptr(smem), SmemLayout{});
  const auto rows_fastest = Layout<Shape<T32, Int<8>>, Stride<_1, T32>>{};
  const auto columns_fastest = Layout<Shape<Int<8>, T32>, Stride<T32, _1>>{};
  copy(local_partition(g_in, columns_fastest, threadIdx.x),
       local_partition(s_tile, columns_fastest, threadIdx.x));
  __syncthreads();
  copy(local_partition(s_tile, rows_fastest, threadIdx.x),
       local_partition(g_out_t, rows_fastest, threadIdx.x));
}

// A (M x K) or B (N x K) in shared memory.
template <TileLayout kLayout>
auto GemmSmemLayout() {
  using namespace cute;
  if constexpr (kLayout == TileLayout::kPadded) {
    return Layout<Shape<T32, TK>, Stride<Int<kK + 1>, _1>>{};
  } else if constexpr (kLayout == TileLayout::kMnMajor) {
    return Layout<Shape<T32, TK>, Stride<_1, T32>>{};
  } else {
    return Layout<Shape<T32, TK>, Stride<TK, _1>>{};
  }
}

template <TileLayout kLayout>
__global__ void __launch_bounds__(kThreads) CuteGemmSimtKernel(const float* a, const float* b, float* c) {
  using namespace cute;
  using SmemLayout = decltype(GemmSmemLayout<kLayout>());
  __shared__ float smem_a[cosize_v<SmemLayout>];
  __shared__ float smem_b[cosize_v<SmemLayout>];
  Tensor g_a = make_tensor(make_gmem_ptr(a), Layout<Shape<T32, TK>, Stride<TK, _1>>{});
  Tensor g_b = make_tensor(make_gmem_ptr(b), Layout<Shape<T32, TK>, Stride<TK, _1>>{});
  Tensor g_c = make_tensor(make_gmem_ptr(c), Layout<Shape<T32, T32>, Stride<T32, _1>>{});
  Tensor s_a = make_tensor(make_smem_ptr(smem_a), SmemLayout{});
  Tensor s_b = make_tensor(make_smem_ptr(smem_b), SmemLayout{});
  const auto copy_threads = Layout<Shape<T32, Int<8>>, Stride<Int<8>, _1>>{};  // k fastest
  copy(local_partition(g_a, copy_threads, threadIdx.x), local_partition(s_a, copy_threads, threadIdx.x));
  copy(local_partition(g_b, copy_threads, threadIdx.x), local_partition(s_b, copy_threads, threadIdx.x));
  __syncthreads();
  const auto mma_threads = Layout<Shape<Int<16>, Int<16>>>{};                   // column-major: m fastest
  Tensor t_a = local_partition(s_a, mma_threads, threadIdx.x, Step<_1, X>{});   // (2, K)
  Tensor t_b = local_partition(s_b, mma_threads, threadIdx.x, Step<X, _1>{});   // (2, K)
  Tensor t_c = local_partition(g_c, mma_threads, threadIdx.x, Step<_1, _1>{});  // (2, 2)
  Tensor r_c = make_tensor_like(t_c);
  clear(r_c);
  gemm(t_a, t_b, r_c);
  copy(r_c, t_c);
}
#endif

#if !BANKCHECK_CORPUS_HAS_CUTE
const char* const kCuteMissing =
    "CuTe's headers were not found when this suite was built (pip install nvidia-cutlass, or "
    "-DBANKCHECK_CUTE_INCLUDE_DIR=...; see README): the CuTe corpus cases are not built";
#endif

template <TileLayout kLayout>
void AddTransposeCase(const char* layout_name, const char* what) {
  AddCase(std::string("cute_transpose/") + layout_name + "/32x32",
          std::string("CuTe local_partition copies of a 32x32 float tile through a ") + what +
              " shared tile, written transposed; one block of 256 threads",
          [](CaseContext& ctx) {
#if BANKCHECK_CORPUS_HAS_CUTE
            const std::vector<float> in = SmallIntegerFloats(kTile * kTile, 0xC07Eu);
            CheckLaunch(ctx, in, kernels::HostTranspose(in, kTile, kTile), "transposed tile",
                        [](const float* d_in, float* d_out) {
                          CuteTransposeKernel<kLayout><<<1, kThreads>>>(d_in, d_out);
                        });
#else
            (void)ctx;
            GTEST_SKIP() << kCuteMissing;
#endif
          });
}

template <TileLayout kLayout>
void AddGemmCase(const char* layout_name, const char* what) {
  AddCase(std::string("cute_gemm_simt/") + layout_name + "/32x32x16",
          std::string("cute::gemm (SIMT, UniversalFMA) of C 32x32 = A 32x16 * B^T, ") + what +
              " shared tiles, a 16x16 thread layout; one block of 256 threads",
          [](CaseContext& ctx) {
#if BANKCHECK_CORPUS_HAS_CUTE
            const std::vector<int32_t> a = kernels::RandomInts(kTile * kK, 0x6E44u, -8, 8);
            const std::vector<int32_t> b = kernels::RandomInts(kTile * kK, 0x6E45u, -8, 8);
            const std::vector<float> expected = kernels::HostGemmNT(a, b, kTile, kTile, kK);
            const std::vector<float> a_float(a.begin(), a.end());
            DeviceBuffer<float> d_b(std::vector<float>(b.begin(), b.end()));
            CheckLaunch(ctx, a_float, expected, "C", [&](const float* d_a, float* d_c) {
              CuteGemmSimtKernel<kLayout><<<1, kThreads>>>(d_a, d_b.get(), d_c);
            });
#else
            (void)ctx;
            GTEST_SKIP() << kCuteMissing;
#endif
          });
}

void RegisterCuteCases() {
  AddTransposeCase<TileLayout::kRowMajor>("row_major", "row-major");
  AddTransposeCase<TileLayout::kPadded>("padded", "padded (33 columns)");
  AddTransposeCase<TileLayout::kSwizzled>("swizzled", "Swizzle<5,0,5>-composed");
  AddGemmCase<TileLayout::kRowMajor>("k_major", "K-major");
  AddGemmCase<TileLayout::kPadded>("k_major_padded", "K-major padded (17)");
  AddGemmCase<TileLayout::kMnMajor>("mn_major", "M/N-major");
}

BANKCHECK_REGISTER_CASES(RegisterCuteCases);

}  // namespace
}  // namespace bankcheck::corpus
