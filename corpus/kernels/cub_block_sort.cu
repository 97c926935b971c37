// CUB's block-wide sorts and histograms (CCCL as installed with the CUDA toolkit), one block each:
//   cub_block_radix_sort   cub::BlockRadixSort: keys only and key-value pairs; 32-bit unsigned
//                          and signed keys, 16- and 8-bit keys, a partial bit range, descending
//                          order, float keys; 128 threads x 1, 4 or 8 items; blocked output, and
//                          one case to a striped arrangement (SortBlockedToStriped).
//   cub_block_merge_sort   cub::BlockMergeSort: int keys, and int keys with values.
//   cub_block_histogram    cub::BlockHistogram: BLOCK_HISTO_SORT and BLOCK_HISTO_ATOMIC, 8-bit
//                          samples into 256 bins, and 64 bins.
// References: std::stable_sort (the radix sort is stable: a key-value case's values check it) and
// a counting loop.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "corpus_support.h"

namespace bankcheck::corpus {
namespace {

constexpr int kThreads = 128;

enum class Order { kAscending, kDescending, kStriped };

// Keys sorted by bits [kBeginBit, kEndBit); with a value type, the values follow their keys.
template <typename Key, typename Value, int kItems, Order kOrder, int kBeginBit, int kEndBit>
__global__ void __launch_bounds__(kThreads)
    RadixSortKernel(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out) {
  using Sort = cub::BlockRadixSort<Key, kThreads, kItems, Value>;
  __shared__ typename Sort::TempStorage storage;
  Key keys[kItems];
  Value values[kItems];
  for (int i = 0; i < kItems; ++i) {
    keys[i] = keys_in[threadIdx.x * kItems + i];
    values[i] = values_in[threadIdx.x * kItems + i];
  }
  Sort sort(storage);
  if constexpr (std::is_same_v<Value, cub::NullType>) {
    if constexpr (kOrder == Order::kAscending) sort.Sort(keys, kBeginBit, kEndBit);
    if constexpr (kOrder == Order::kDescending) sort.SortDescending(keys, kBeginBit, kEndBit);
    if constexpr (kOrder == Order::kStriped) sort.SortBlockedToStriped(keys, kBeginBit, kEndBit);
  } else {
    if constexpr (kOrder == Order::kAscending) sort.Sort(keys, values, kBeginBit, kEndBit);
    if constexpr (kOrder == Order::kDescending) sort.SortDescending(keys, values, kBeginBit, kEndBit);
    if constexpr (kOrder == Order::kStriped) sort.SortBlockedToStriped(keys, values, kBeginBit, kEndBit);
  }
  for (int i = 0; i < kItems; ++i) {
    // Blocked: thread t holds ranks t * kItems + i; striped: ranks i * kThreads + t.
    const int rank = kOrder == Order::kStriped ? i * kThreads + threadIdx.x : threadIdx.x * kItems + i;
    keys_out[rank] = keys[i];
    if constexpr (!std::is_same_v<Value, cub::NullType>) values_out[rank] = values[i];
  }
}

// The bits [begin, end) of a key as CUB orders them: unsigned as they are, signed and float with
// the sign flipped (and a negative float's other bits too).
template <typename Key>
uint64_t OrderedBits(Key key, int begin, int end) {
  uint64_t bits = 0;
  if constexpr (std::is_same_v<Key, float>) {
    uint32_t u;
    std::memcpy(&u, &key, 4);
    bits = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    bits &= 0xFFFFFFFFu;
  } else if constexpr (std::is_signed_v<Key>) {
    bits =
        static_cast<std::make_unsigned_t<Key>>(key) ^ (std::make_unsigned_t<Key>(1) << (8 * sizeof(Key) - 1));
  } else {
    bits = key;
  }
  const uint64_t width = static_cast<uint64_t>(end - begin);
  return (bits >> begin) & (width >= 64 ? ~0ull : ((1ull << width) - 1));
}

template <typename Key>
std::vector<Key> RandomKeys(size_t n, uint32_t seed) {
  if constexpr (std::is_same_v<Key, float>) {
    return SmallIntegerFloats(n, seed, -100000, 100000);
  } else {
    return kernels::RandomBits<Key>(n, seed);
  }
}

template <typename Key, typename Value, int kItems, Order kOrder, int kBeginBit = 0,
          int kEndBit = 8 * sizeof(Key)>
void AddRadixSortCase(const std::string& variant, const std::string& what) {
  constexpr bool kPairs = !std::is_same_v<Value, cub::NullType>;
  AddCase(
      "cub_block_radix_sort/" + variant + "/128x" + std::to_string(kItems),
      "cub::BlockRadixSort, " + what + ", one block of 128 threads x " + std::to_string(kItems) + " items",
      [](CaseContext& ctx) {
        const size_t n = static_cast<size_t>(kThreads) * kItems;
        const std::vector<Key> keys = RandomKeys<Key>(n, 0x4AD1u + kItems + kEndBit);
        std::vector<int32_t> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
          const uint64_t ka = OrderedBits(keys[a], kBeginBit, kEndBit);
          const uint64_t kb = OrderedBits(keys[b], kBeginBit, kEndBit);
          return kOrder == Order::kDescending ? ka > kb : ka < kb;
        });
        std::vector<Key> sorted_keys(n);
        for (size_t i = 0; i < n; ++i) sorted_keys[i] = keys[order[i]];
        DeviceBuffer<Key> d_keys(keys);
        DeviceBuffer<Key> d_keys_out(n);
        d_keys_out.Fill(0xFF);
        std::vector<int32_t> values(n);
        std::iota(values.begin(), values.end(), 0);  // a key's value is its input index
        DeviceBuffer<int32_t> d_values(values);
        DeviceBuffer<int32_t> d_values_out(n);
        d_values_out.Fill(0xFF);
        ctx.Measure([&] {
          if constexpr (kPairs) {
            RadixSortKernel<Key, Value, kItems, kOrder, kBeginBit, kEndBit>
                <<<1, kThreads>>>(d_keys.get(), d_values.get(), d_keys_out.get(), d_values_out.get());
          } else {
            RadixSortKernel<Key, Value, kItems, kOrder, kBeginBit, kEndBit>
                <<<1, kThreads>>>(d_keys.get(), reinterpret_cast<const Value*>(d_values.get()),
                                  d_keys_out.get(), reinterpret_cast<Value*>(d_values_out.get()));
          }
        });
        BANKCHECK_CUDA_CHECK(cudaGetLastError());
        ExpectVectorsEqual(d_keys_out.ToHost(), sorted_keys, "sorted keys");
        if constexpr (kPairs) ExpectVectorsEqual(d_values_out.ToHost(), order, "values (input indices)");
      });
}

template <int kItems, bool kPairs>
__global__ void __launch_bounds__(kThreads)
    MergeSortKernel(const int32_t* keys_in, int32_t* keys_out, int32_t* values_out) {
  using Sort = cub::BlockMergeSort<int32_t, kThreads, kItems, int32_t>;
  __shared__ typename Sort::TempStorage storage;
  int32_t keys[kItems];
  int32_t values[kItems];
  for (int i = 0; i < kItems; ++i) {
    keys[i] = keys_in[threadIdx.x * kItems + i];
    values[i] = threadIdx.x * kItems + i;
  }
  const auto less = [](int32_t a, int32_t b) { return a < b; };
  if constexpr (kPairs) {
    Sort(storage).StableSort(keys, values, less);
  } else {
    Sort(storage).Sort(keys, less);
  }
  for (int i = 0; i < kItems; ++i) {
    keys_out[threadIdx.x * kItems + i] = keys[i];
    if constexpr (kPairs) values_out[threadIdx.x * kItems + i] = values[i];
  }
}

template <int kItems, bool kPairs>
void AddMergeSortCase() {
  AddCase(std::string("cub_block_merge_sort/") + (kPairs ? "stable_pairs" : "keys") + "_int/128x" +
              std::to_string(kItems),
          std::string("cub::BlockMergeSort of int ") + (kPairs ? "keys with values (StableSort)" : "keys") +
              ", one block of 128 threads x " + std::to_string(kItems) + " items",
          [](CaseContext& ctx) {
            const size_t n = static_cast<size_t>(kThreads) * kItems;
            const std::vector<int32_t> keys = kernels::RandomInts(n, 0x3E6Eu + kItems, -50, 50);
            std::vector<int32_t> order(n);
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(),
                             [&](int32_t a, int32_t b) { return keys[a] < keys[b]; });
            std::vector<int32_t> sorted(n);
            for (size_t i = 0; i < n; ++i) sorted[i] = keys[order[i]];
            DeviceBuffer<int32_t> d_keys(keys);
            DeviceBuffer<int32_t> d_keys_out(n);
            DeviceBuffer<int32_t> d_values_out(n);
            d_keys_out.Fill(0xFF);
            d_values_out.Fill(0xFF);
            ctx.Measure([&] {
              MergeSortKernel<kItems, kPairs>
                  <<<1, kThreads>>>(d_keys.get(), d_keys_out.get(), d_values_out.get());
            });
            BANKCHECK_CUDA_CHECK(cudaGetLastError());
            ExpectVectorsEqual(d_keys_out.ToHost(), sorted, "sorted keys");
            if constexpr (kPairs) ExpectVectorsEqual(d_values_out.ToHost(), order, "values (input indices)");
          });
}

template <int kItems, int kBins, cub::BlockHistogramAlgorithm kAlgorithm>
__global__ void __launch_bounds__(kThreads) HistogramKernel(const uint8_t* samples_in, uint32_t* bins_out) {
  using Histogram = cub::BlockHistogram<uint8_t, kThreads, kItems, kBins, kAlgorithm>;
  __shared__ typename Histogram::TempStorage storage;
  __shared__ uint32_t bins[kBins];
  uint8_t samples[kItems];
  for (int i = 0; i < kItems; ++i) samples[i] = samples_in[threadIdx.x * kItems + i] % kBins;
  Histogram(storage).Histogram(samples, bins);
  __syncthreads();
  for (int bin = threadIdx.x; bin < kBins; bin += kThreads) bins_out[bin] = bins[bin];
}

template <int kItems, int kBins, cub::BlockHistogramAlgorithm kAlgorithm>
void AddHistogramCase() {
  const std::string algorithm = kAlgorithm == cub::BLOCK_HISTO_SORT ? "sort" : "atomic";
  AddCase("cub_block_histogram/" + algorithm + "/" + std::to_string(kBins) + "_bins/128x" +
              std::to_string(kItems),
          "cub::BlockHistogram BLOCK_HISTO_" +
              std::string(kAlgorithm == cub::BLOCK_HISTO_SORT ? "SORT" : "ATOMIC") + ", 8-bit samples into " +
              std::to_string(kBins) + " bins, one block of 128 threads x " + std::to_string(kItems) +
              " samples",
          [](CaseContext& ctx) {
            const size_t n = static_cast<size_t>(kThreads) * kItems;
            const std::vector<uint8_t> samples = kernels::RandomBits<uint8_t>(n, 0x4157u + kBins + kItems);
            std::vector<uint32_t> expected(kBins, 0);
            for (const uint8_t s : samples) ++expected[s % kBins];
            CheckLaunch(ctx, samples, expected, "bin counts", [](const uint8_t* d_in, uint32_t* d_out) {
              HistogramKernel<kItems, kBins, kAlgorithm><<<1, kThreads>>>(d_in, d_out);
            });
          });
}

void RegisterBlockSortCases() {
  using cub::NullType;
  AddRadixSortCase<uint32_t, NullType, 4, Order::kAscending>("keys_u32", "32-bit unsigned keys");
  AddRadixSortCase<uint32_t, NullType, 1, Order::kAscending>("keys_u32", "32-bit unsigned keys");
  AddRadixSortCase<int32_t, NullType, 4, Order::kAscending>("keys_i32", "32-bit signed keys");
  AddRadixSortCase<uint32_t, NullType, 4, Order::kAscending, 4, 20>("keys_u32_bits_4_20",
                                                                    "32-bit keys by bits 4 to 19 only");
  AddRadixSortCase<uint16_t, NullType, 8, Order::kAscending>("keys_u16", "16-bit unsigned keys");
  AddRadixSortCase<uint8_t, NullType, 8, Order::kAscending>("keys_u8", "8-bit unsigned keys");
  AddRadixSortCase<uint32_t, NullType, 4, Order::kDescending>("keys_u32_descending",
                                                              "32-bit keys, descending");
  AddRadixSortCase<float, NullType, 4, Order::kAscending>("keys_float", "float keys");
  AddRadixSortCase<uint32_t, NullType, 4, Order::kStriped>("keys_u32_to_striped",
                                                           "32-bit keys, sorted to a striped arrangement");
  AddRadixSortCase<uint32_t, int32_t, 4, Order::kAscending>("pairs_u32_i32", "32-bit keys with int values");
  AddRadixSortCase<uint16_t, int32_t, 4, Order::kDescending>("pairs_u16_i32_descending",
                                                             "16-bit keys with int values, descending");
  AddMergeSortCase<4, false>();
  AddMergeSortCase<4, true>();
  AddMergeSortCase<7, false>();
  AddHistogramCase<4, 256, cub::BLOCK_HISTO_SORT>();
  AddHistogramCase<4, 256, cub::BLOCK_HISTO_ATOMIC>();
  AddHistogramCase<8, 64, cub::BLOCK_HISTO_SORT>();
  AddHistogramCase<8, 64, cub::BLOCK_HISTO_ATOMIC>();
}

BANKCHECK_REGISTER_CASES(RegisterBlockSortCases);

}  // namespace
}  // namespace bankcheck::corpus
