// CUB's block-wide data movement (CCCL as installed with the CUDA toolkit), one or two blocks of
// 128 threads each:
//   cub_block_exchange    cub::BlockExchange: striped<->blocked and warp-striped<->blocked, with
//                         CUB's padding (8 items a thread: a power of two above 4) and without
//                         (4 or 5 items), with and without WARP_TIME_SLICING; ScatterToBlocked.
//   cub_block_load_store  cub::BlockLoad then cub::BlockStore of the same algorithm: DIRECT,
//                         STRIPED, VECTORIZE, TRANSPOSE, WARP_TRANSPOSE, WARP_TRANSPOSE_TIMESLICED.
// The exchanges' output is a permutation of the input, computed on the CPU from the arrangements'
// definitions:
// blocked, thread t item i is element t * items + i; striped, i * threads + t; warp-striped, warp
// w's lane l item i is w * 32 * items + i * 32 + l.

#include <cstdint>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <string>
#include <vector>

#include "corpus_support.h"

namespace bankcheck::corpus {
namespace {

constexpr int kThreads = 128;

enum class Arrangement { kBlocked, kStriped, kWarpStriped };

// The element of a block's tile that thread t's item i is in `arrangement`.
int Element(Arrangement arrangement, int items, int t, int i) {
  switch (arrangement) {
    case Arrangement::kBlocked:
      return t * items + i;
    case Arrangement::kStriped:
      return i * kThreads + t;
    default:
      return (t / 32) * 32 * items + i * 32 + t % 32;
  }
}

enum class Exchange {
  kStripedToBlocked,
  kBlockedToStriped,
  kWarpStripedToBlocked,
  kBlockedToWarpStriped,
  kScatter
};

// Each block reads its tile blocked (thread t's item i: element t * items + i), exchanges as if
// the items were in the exchange's source arrangement, and writes them blocked again: the output
// is the input permuted as the reference says (never the identity).
template <typename T, int kItems, bool kTimeSliced, Exchange kExchange>
__global__ void __launch_bounds__(kThreads) ExchangeKernel(const T* in, T* out) {
  using BlockExchange = cub::BlockExchange<T, kThreads, kItems, kTimeSliced>;
  __shared__ typename BlockExchange::TempStorage storage;
  const T* tile_in = in + blockIdx.x * kThreads * kItems;
  T* tile_out = out + blockIdx.x * kThreads * kItems;
  T items[kItems];
  for (int i = 0; i < kItems; ++i) items[i] = tile_in[threadIdx.x * kItems + i];
  if constexpr (kExchange == Exchange::kStripedToBlocked) {
    BlockExchange(storage).StripedToBlocked(items, items);
  } else if constexpr (kExchange == Exchange::kBlockedToStriped) {
    BlockExchange(storage).BlockedToStriped(items, items);
  } else if constexpr (kExchange == Exchange::kWarpStripedToBlocked) {
    BlockExchange(storage).WarpStripedToBlocked(items, items);
  } else if constexpr (kExchange == Exchange::kBlockedToWarpStriped) {
    BlockExchange(storage).BlockedToWarpStriped(items, items);
  } else {
    // Each item to the blocked rank of the reversed tile.
    int ranks[kItems];
    for (int i = 0; i < kItems; ++i) ranks[i] = kThreads * kItems - 1 - (threadIdx.x * kItems + i);
    BlockExchange(storage).ScatterToBlocked(items, items, ranks);
  }
  for (int i = 0; i < kItems; ++i) tile_out[threadIdx.x * kItems + i] = items[i];
}

const char* ExchangeName(Exchange exchange) {
  switch (exchange) {
    case Exchange::kStripedToBlocked:
      return "striped_to_blocked";
    case Exchange::kBlockedToStriped:
      return "blocked_to_striped";
    case Exchange::kWarpStripedToBlocked:
      return "warp_striped_to_blocked";
    case Exchange::kBlockedToWarpStriped:
      return "blocked_to_warp_striped";
    default:
      return "scatter_to_blocked";
  }
}

// The reference: thread t's item i, read at blocked element t * items + i, is the tile's element
// Element(from, t, i); after the exchange thread t's item i is element Element(to, t, i), written
// at t * items + i.
std::vector<int32_t> HostExchange(const std::vector<int32_t>& in, Exchange exchange, int items,
                                  unsigned blocks) {
  const int tile = kThreads * items;
  std::vector<int32_t> out(in.size());
  for (unsigned b = 0; b < blocks; ++b) {
    const int32_t* tile_in = in.data() + b * tile;
    int32_t* tile_out = out.data() + b * tile;
    if (exchange == Exchange::kScatter) {
      for (int e = 0; e < tile; ++e) tile_out[tile - 1 - e] = tile_in[e];
      continue;
    }
    Arrangement from = Arrangement::kBlocked, to = Arrangement::kBlocked;
    if (exchange == Exchange::kStripedToBlocked) from = Arrangement::kStriped;
    if (exchange == Exchange::kBlockedToStriped) to = Arrangement::kStriped;
    if (exchange == Exchange::kWarpStripedToBlocked) from = Arrangement::kWarpStriped;
    if (exchange == Exchange::kBlockedToWarpStriped) to = Arrangement::kWarpStriped;
    std::vector<int32_t> by_element(tile);
    for (int t = 0; t < kThreads; ++t)
      for (int i = 0; i < items; ++i) by_element[Element(from, items, t, i)] = tile_in[t * items + i];
    for (int t = 0; t < kThreads; ++t)
      for (int i = 0; i < items; ++i) tile_out[t * items + i] = by_element[Element(to, items, t, i)];
  }
  return out;
}

template <int kItems, bool kTimeSliced, Exchange kExchange>
void AddExchangeCase(unsigned blocks) {
  const bool padded = kItems > 4 && (kItems & (kItems - 1)) == 0;
  AddCase(std::string("cub_block_exchange/") + ExchangeName(kExchange) + (kTimeSliced ? "_time_sliced" : "") +
              "/" + std::to_string(blocks) + "x128x" + std::to_string(kItems),
          std::string("cub::BlockExchange ") + ExchangeName(kExchange) + " of ints, " +
              std::to_string(blocks) + " block(s) of 128 threads x " + std::to_string(kItems) + " items" +
              (padded ? " (CUB pads its shared buffer)" : " (no padding)") +
              (kTimeSliced ? ", WARP_TIME_SLICING" : ""),
          [blocks](CaseContext& ctx) {
            const std::vector<int32_t> in = kernels::RandomInts(blocks * kThreads * kItems, 0xE8Cu + kItems);
            CheckLaunch(ctx, in, HostExchange(in, kExchange, kItems, blocks), "exchanged items",
                        [blocks](const int32_t* d_in, int32_t* d_out) {
                          ExchangeKernel<int32_t, kItems, kTimeSliced, kExchange>
                              <<<blocks, kThreads>>>(d_in, d_out);
                        });
          });
}

template <typename T, int kItems, cub::BlockLoadAlgorithm kLoad, cub::BlockStoreAlgorithm kStore>
__global__ void __launch_bounds__(kThreads) LoadStoreKernel(const T* in, T* out) {
  using Load = cub::BlockLoad<T, kThreads, kItems, kLoad>;
  using Store = cub::BlockStore<T, kThreads, kItems, kStore>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
  } storage;
  T items[kItems];
  Load(storage.load).Load(in + blockIdx.x * kThreads * kItems, items);
  __syncthreads();
  Store(storage.store).Store(out + blockIdx.x * kThreads * kItems, items);
}

template <typename T, int kItems, cub::BlockLoadAlgorithm kLoad, cub::BlockStoreAlgorithm kStore>
void AddLoadStoreCase(const char* algorithm, const char* type_name, unsigned blocks) {
  AddCase(std::string("cub_block_load_store/") + algorithm + "_" + type_name + "/" + std::to_string(blocks) +
              "x128x" + std::to_string(kItems),
          std::string("cub::BlockLoad then cub::BlockStore, both ") + algorithm + ", " + type_name + "s, " +
              std::to_string(blocks) + " block(s) of 128 threads x " + std::to_string(kItems) +
              " items: the output is the input",
          [blocks](CaseContext& ctx) {
            const std::vector<T> in = kernels::RandomBits<T>(blocks * kThreads * kItems, 0x10ADu + kItems);
            CheckLaunch(ctx, in, in, "copied items", [blocks](const T* d_in, T* d_out) {
              LoadStoreKernel<T, kItems, kLoad, kStore><<<blocks, kThreads>>>(d_in, d_out);
            });
          });
}

void RegisterBlockExchangeCases() {
  AddExchangeCase<4, false, Exchange::kStripedToBlocked>(1);
  AddExchangeCase<8, false, Exchange::kStripedToBlocked>(2);
  AddExchangeCase<5, false, Exchange::kStripedToBlocked>(1);
  AddExchangeCase<4, false, Exchange::kBlockedToStriped>(1);
  AddExchangeCase<8, false, Exchange::kBlockedToStriped>(1);
  AddExchangeCase<8, true, Exchange::kBlockedToStriped>(1);
  AddExchangeCase<4, false, Exchange::kWarpStripedToBlocked>(1);
  AddExchangeCase<8, false, Exchange::kWarpStripedToBlocked>(1);
  AddExchangeCase<8, false, Exchange::kBlockedToWarpStriped>(1);
  AddExchangeCase<8, true, Exchange::kStripedToBlocked>(1);
  AddExchangeCase<4, false, Exchange::kScatter>(1);

  AddLoadStoreCase<int32_t, 4, cub::BLOCK_LOAD_DIRECT, cub::BLOCK_STORE_DIRECT>("direct", "int", 2);
  AddLoadStoreCase<int32_t, 4, cub::BLOCK_LOAD_STRIPED, cub::BLOCK_STORE_STRIPED>("striped", "int", 2);
  AddLoadStoreCase<int32_t, 4, cub::BLOCK_LOAD_VECTORIZE, cub::BLOCK_STORE_VECTORIZE>("vectorize", "int", 2);
  AddLoadStoreCase<int32_t, 4, cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE>("transpose", "int", 2);
  AddLoadStoreCase<int32_t, 8, cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE>("transpose", "int", 1);
  AddLoadStoreCase<int32_t, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>(
      "warp_transpose", "int", 2);
  AddLoadStoreCase<int32_t, 8, cub::BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED,
                   cub::BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED>("warp_transpose_timesliced", "int", 1);
  AddLoadStoreCase<int64_t, 2, cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE>("transpose", "int64",
                                                                                      1);
  AddLoadStoreCase<int16_t, 8, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>(
      "warp_transpose", "int16", 1);
}

BANKCHECK_REGISTER_CASES(RegisterBlockExchangeCases);

}  // namespace
}  // namespace bankcheck::corpus
