// CUB's block-wide primitives that look at neighbouring items (CCCL as installed with the CUDA
// toolkit), one block of 128 threads:
//   cub_block_adjacent_difference  cub::BlockAdjacentDifference SubtractLeft and SubtractRight,
//                                  ints and integer-valued floats, 1 and 4 items a thread.
//   cub_block_discontinuity        cub::BlockDiscontinuity FlagHeads, FlagTails and
//                                  FlagHeadsAndTails of runs of ints.
//   cub_block_shuffle              cub::BlockShuffle Offset (by 1 and by -3), Rotate, Up, Down.
//   cub_block_run_length_decode    cub::BlockRunLengthDecode of runs of lengths 0 to 5 (trailing
//                                  zeros), decoded window by window.
// References: the definitions, on the CPU, over the block's items in blocked order.

#include <cstdint>
#include <cub/block/block_adjacent_difference.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_run_length_decode.cuh>
#include <cub/block/block_shuffle.cuh>
#include <string>
#include <type_traits>
#include <vector>

#include "corpus_support.h"

namespace bankcheck::corpus {
namespace {

constexpr int kThreads = 128;

struct Minus {
  template <typename T>
  __device__ T operator()(const T& a, const T& b) const {
    return a - b;
  }
};

struct NotEqual {
  __device__ bool operator()(int32_t a, int32_t b) const { return a != b; }
};

// SubtractLeft: out[e] = in[e] - in[e - 1] (out[0] = in[0]); SubtractRight: out[e] = in[e] -
// in[e + 1] (the last item kept).
template <typename T, int kItems, bool kLeft>
__global__ void __launch_bounds__(kThreads) AdjacentDifferenceKernel(const T* in, T* out) {
  using Difference = cub::BlockAdjacentDifference<T, kThreads>;
  __shared__ typename Difference::TempStorage storage;
  T items[kItems];
  for (int i = 0; i < kItems; ++i) items[i] = in[threadIdx.x * kItems + i];
  if constexpr (kLeft) {
    Difference(storage).SubtractLeft(items, items, Minus{});
  } else {
    Difference(storage).SubtractRight(items, items, Minus{});
  }
  for (int i = 0; i < kItems; ++i) out[threadIdx.x * kItems + i] = items[i];
}

template <typename T, int kItems, bool kLeft>
void AddAdjacentDifferenceCase(const char* type_name) {
  const std::string direction = kLeft ? "subtract_left" : "subtract_right";
  AddCase("cub_block_adjacent_difference/" + direction + "_" + type_name + "/128x" + std::to_string(kItems),
          "cub::BlockAdjacentDifference " + direction + " of " + type_name +
              "s, one block of 128 threads x " + std::to_string(kItems) + " items",
          [](CaseContext& ctx) {
            const size_t n = static_cast<size_t>(kThreads) * kItems;
            std::vector<T> in;
            if constexpr (std::is_same_v<T, float>) {
              in = SmallIntegerFloats(n, 0xAD1u + kItems);
            } else {
              in = kernels::RandomInts(n, 0xAD1u + kItems);
            }
            std::vector<T> expected(in);
            for (size_t e = 0; e < n; ++e) {
              if (kLeft && e > 0) expected[e] = in[e] - in[e - 1];
              if (!kLeft && e + 1 < n) expected[e] = in[e] - in[e + 1];
            }
            CheckLaunch(ctx, in, expected, "differences", [](const T* d_in, T* d_out) {
              AdjacentDifferenceKernel<T, kItems, kLeft><<<1, kThreads>>>(d_in, d_out);
            });
          });
}

enum class Flags { kHeads, kTails, kHeadsAndTails };

// Output: per item, bit 0 its head flag, bit 1 its tail flag.
template <int kItems, Flags kFlags>
__global__ void __launch_bounds__(kThreads) DiscontinuityKernel(const int32_t* in, int32_t* out) {
  using Discontinuity = cub::BlockDiscontinuity<int32_t, kThreads>;
  __shared__ typename Discontinuity::TempStorage storage;
  int32_t items[kItems];
  int32_t heads[kItems] = {};
  int32_t tails[kItems] = {};
  for (int i = 0; i < kItems; ++i) items[i] = in[threadIdx.x * kItems + i];
  if constexpr (kFlags == Flags::kHeads) Discontinuity(storage).FlagHeads(heads, items, NotEqual{});
  if constexpr (kFlags == Flags::kTails) Discontinuity(storage).FlagTails(tails, items, NotEqual{});
  if constexpr (kFlags == Flags::kHeadsAndTails)
    Discontinuity(storage).FlagHeadsAndTails(heads, tails, items, NotEqual{});
  for (int i = 0; i < kItems; ++i) out[threadIdx.x * kItems + i] = (heads[i] ? 1 : 0) | (tails[i] ? 2 : 0);
}

template <int kItems, Flags kFlags>
void AddDiscontinuityCase() {
  const char* names[] = {"flag_heads", "flag_tails", "flag_heads_and_tails"};
  const std::string name = names[static_cast<int>(kFlags)];
  AddCase("cub_block_discontinuity/" + name + "/128x" + std::to_string(kItems),
          "cub::BlockDiscontinuity " + name + " of runs of ints, one block of 128 threads x " +
              std::to_string(kItems) + " items",
          [](CaseContext& ctx) {
            const size_t n = static_cast<size_t>(kThreads) * kItems;
            const std::vector<int32_t> in = kernels::RandomInts(n, 0xD15Cu + kItems, 0, 2);  // runs
            std::vector<int32_t> expected(n);
            for (size_t e = 0; e < n; ++e) {
              const bool head = e == 0 || in[e] != in[e - 1];
              const bool tail = e + 1 == n || in[e] != in[e + 1];
              expected[e] =
                  (kFlags != Flags::kTails && head ? 1 : 0) | (kFlags != Flags::kHeads && tail ? 2 : 0);
            }
            CheckLaunch(ctx, in, expected, "flags", [](const int32_t* d_in, int32_t* d_out) {
              DiscontinuityKernel<kItems, kFlags><<<1, kThreads>>>(d_in, d_out);
            });
          });
}

enum class Shuffle { kOffsetUp1, kOffsetDown3, kRotate5, kUp, kDown };

// Offset and Rotate move one item a thread (entries that receive nothing keep the input); Up and
// Down shift the block's kItems-a-thread tile by one item.
template <int kItems, Shuffle kShuffle>
__global__ void __launch_bounds__(kThreads) ShuffleKernel(const int32_t* in, int32_t* out) {
  using BlockShuffle = cub::BlockShuffle<int32_t, kThreads>;
  __shared__ typename BlockShuffle::TempStorage storage;
  int32_t items[kItems];
  int32_t moved[kItems];
  for (int i = 0; i < kItems; ++i) moved[i] = items[i] = in[threadIdx.x * kItems + i];
  if constexpr (kShuffle == Shuffle::kOffsetUp1) BlockShuffle(storage).Offset(items[0], moved[0], 1);
  if constexpr (kShuffle == Shuffle::kOffsetDown3) BlockShuffle(storage).Offset(items[0], moved[0], -3);
  if constexpr (kShuffle == Shuffle::kRotate5) BlockShuffle(storage).Rotate(items[0], moved[0], 5);
  if constexpr (kShuffle == Shuffle::kUp) BlockShuffle(storage).Up(items, moved);
  if constexpr (kShuffle == Shuffle::kDown) BlockShuffle(storage).Down(items, moved);
  for (int i = 0; i < kItems; ++i) out[threadIdx.x * kItems + i] = moved[i];
}

// The reference of ShuffleKernel, from cub/block/block_shuffle.cuh's definitions: Offset(d) gives
// thread t the item of thread t + d (where that exists), Rotate(d) that of (t + d) % threads; Up
// gives each item its predecessor in the blocked tile (item 0 of thread 0 keeps its own), Down its
// successor (the last item of the last thread keeps its own).
std::vector<int32_t> HostShuffle(const std::vector<int32_t>& in, int items, Shuffle shuffle) {
  std::vector<int32_t> out(in);
  const int n = static_cast<int>(in.size());
  for (int t = 0; t < kThreads; ++t) {
    const int d = shuffle == Shuffle::kOffsetUp1 ? 1 : -3;
    if ((shuffle == Shuffle::kOffsetUp1 || shuffle == Shuffle::kOffsetDown3) && t + d >= 0 &&
        t + d < kThreads)
      out[t * items] = in[(t + d) * items];
    if (shuffle == Shuffle::kRotate5) out[t * items] = in[((t + 5) % kThreads) * items];
  }
  for (int e = 0; e < n; ++e) {
    if (shuffle == Shuffle::kUp && e > 0) out[e] = in[e - 1];
    if (shuffle == Shuffle::kDown && e + 1 < n) out[e] = in[e + 1];
  }
  return out;
}

template <int kItems, Shuffle kShuffle>
void AddShuffleCase() {
  const char* names[] = {"offset_up_1", "offset_down_3", "rotate_5", "up", "down"};
  const std::string name = names[static_cast<int>(kShuffle)];
  AddCase("cub_block_shuffle/" + name + "/128x" + std::to_string(kItems),
          "cub::BlockShuffle " + name + " of ints, one block of 128 threads x " + std::to_string(kItems) +
              " items",
          [](CaseContext& ctx) {
            const std::vector<int32_t> in = kernels::RandomInts(kThreads * kItems, 0x5F1Eu + kItems);
            CheckLaunch(ctx, in, HostShuffle(in, kItems, kShuffle), "shuffled items",
                        [](const int32_t* d_in, int32_t* d_out) {
                          ShuffleKernel<kItems, kShuffle><<<1, kThreads>>>(d_in, d_out);
                        });
          });
}

constexpr int kRunsPerThread = 2;
constexpr int kDecodedPerThread = 4;

// Runs (value, length) in, blocked; the decoded items and their offsets within their runs out,
// window after window of kThreads * kDecodedPerThread items, up to `capacity` items in all.
__global__ void __launch_bounds__(kThreads)
    RunLengthDecodeKernel(const int32_t* values_in, const uint32_t* lengths_in, int32_t* decoded_out,
                          uint32_t* offsets_out, uint32_t capacity) {
  using Decode = cub::BlockRunLengthDecode<int32_t, kThreads, kRunsPerThread, kDecodedPerThread>;
  __shared__ typename Decode::TempStorage storage;
  int32_t values[kRunsPerThread];
  uint32_t lengths[kRunsPerThread];
  for (int i = 0; i < kRunsPerThread; ++i) {
    values[i] = values_in[threadIdx.x * kRunsPerThread + i];
    lengths[i] = lengths_in[threadIdx.x * kRunsPerThread + i];
  }
  uint32_t total = 0;
  Decode decode(storage, values, lengths, total);
  for (uint32_t window = 0; window < total; window += kThreads * kDecodedPerThread) {
    int32_t decoded[kDecodedPerThread];
    uint32_t offsets[kDecodedPerThread];
    decode.RunLengthDecode(decoded, offsets, window);
    for (int i = 0; i < kDecodedPerThread; ++i) {
      const uint32_t at = window + threadIdx.x * kDecodedPerThread + i;
      if (at < total && at < capacity) {
        decoded_out[at] = decoded[i];
        offsets_out[at] = offsets[i];
      }
    }
  }
}

void AddRunLengthDecodeCase() {
  AddCase(
      "cub_block_run_length_decode/int_runs/128x2",
      "cub::BlockRunLengthDecode of 256 int runs of lengths 1 to 5 (the last 16 of length 0), one block of "
      "128 threads x 2 runs, decoded 512 items a window",
      [](CaseContext& ctx) {
        const size_t runs = kThreads * kRunsPerThread;
        const std::vector<int32_t> values = kernels::RandomInts(runs, 0x41DEu);
        std::vector<int32_t> drawn = kernels::RandomInts(runs, 0x41DFu, 1, 5);
        std::vector<uint32_t> lengths(drawn.begin(), drawn.end());
        for (size_t r = runs - 16; r < runs; ++r) lengths[r] = 0;  // trailing empty runs
        std::vector<int32_t> decoded;
        std::vector<uint32_t> offsets;
        for (size_t r = 0; r < runs; ++r) {
          for (uint32_t k = 0; k < lengths[r]; ++k) {
            decoded.push_back(values[r]);
            offsets.push_back(k);
          }
        }
        DeviceBuffer<int32_t> d_values(values);
        DeviceBuffer<uint32_t> d_lengths(lengths);
        DeviceBuffer<int32_t> d_decoded(decoded.size());
        DeviceBuffer<uint32_t> d_offsets(offsets.size());
        d_decoded.Fill(0xFF);
        d_offsets.Fill(0xFF);
        const auto capacity = static_cast<uint32_t>(decoded.size());
        ctx.Measure([&] {
          RunLengthDecodeKernel<<<1, kThreads>>>(d_values.get(), d_lengths.get(), d_decoded.get(),
                                                 d_offsets.get(), capacity);
        });
        BANKCHECK_CUDA_CHECK(cudaGetLastError());
        ExpectVectorsEqual(d_decoded.ToHost(), decoded, "decoded items");
        ExpectVectorsEqual(d_offsets.ToHost(), offsets, "offsets within their runs");
      });
}

void RegisterNeighborCases() {
  AddAdjacentDifferenceCase<int32_t, 4, true>("int");
  AddAdjacentDifferenceCase<int32_t, 4, false>("int");
  AddAdjacentDifferenceCase<float, 1, true>("float");
  AddAdjacentDifferenceCase<float, 4, false>("float");
  AddDiscontinuityCase<4, Flags::kHeads>();
  AddDiscontinuityCase<4, Flags::kTails>();
  AddDiscontinuityCase<4, Flags::kHeadsAndTails>();
  AddShuffleCase<1, Shuffle::kOffsetUp1>();
  AddShuffleCase<1, Shuffle::kOffsetDown3>();
  AddShuffleCase<1, Shuffle::kRotate5>();
  AddShuffleCase<4, Shuffle::kUp>();
  AddShuffleCase<4, Shuffle::kDown>();
  AddRunLengthDecodeCase();
}

BANKCHECK_REGISTER_CASES(RegisterNeighborCases);

}  // namespace
}  // namespace bankcheck::corpus
