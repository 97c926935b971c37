// PredictLaunch (bank_model.h): a launch's warps and instructions from its access functions, kind
// by kind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/core/error.h"
#include "core/model/internal/bank_model_test_support.h"

namespace bankcheck {
namespace {

using ::testing::HasSubstr;
using testing_support::KindOf;
using testing_support::MessageOf;
using testing_support::OneWarp;
using testing_support::Strided;
using testing_support::ToWarpAccess;

// ---------------------------------------------------------------------------------------------
// Launch level.

TEST(PredictLaunchTest, StrideTwoOverTwoHundredFiftySixThreads) {
  const PredictedCounts predicted =
      PredictLaunch(Dim3{1}, Dim3{256},
                    {
                        SharedStore("smem[tid*2]", 4, [](Dim3, Dim3 t) { return 4u * t.x * 2; }),
                        SharedLoad("smem[tid*2]", 4, [](Dim3, Dim3 t) { return 4u * t.x * 2; }),
                    });
  for (const KindCounts& counts : {predicted[MemoryKind::kSharedLoad], predicted[MemoryKind::kSharedStore]}) {
    EXPECT_EQ(counts.instructions, 8u);
    EXPECT_EQ(counts.wavefronts, 16u);
    EXPECT_EQ(counts.ideal_wavefronts, 8u);
    EXPECT_EQ(counts.conflicts(), 8u);
  }
  EXPECT_THAT(predicted.bank_map,
              HasSubstr("worst instruction: store 'smem[tid*2]' in block (0,0,0), warp 0"));
  EXPECT_THAT(predicted.bank_map, HasSubstr("1 conflict (2-way)"));
}

TEST(PredictLaunchTest, StrideThirtyTwoOverTwoHundredFiftySixThreads) {
  const PredictedCounts predicted =
      PredictLaunch(Dim3{1}, Dim3{256},
                    {
                        SharedLoad("smem[tid*32]", 4, [](Dim3, Dim3 t) { return 4u * t.x * 32; }),
                    });
  EXPECT_EQ(predicted[MemoryKind::kSharedLoad], (KindCounts{8, 256, 8}));
  EXPECT_EQ(predicted[MemoryKind::kSharedLoad].conflicts(), 248u);
  EXPECT_EQ(predicted[MemoryKind::kSharedStore], KindCounts{});
  EXPECT_THAT(predicted.bank_map, HasSubstr("<- worst bank"));
}

TEST(PredictLaunchTest, NaiveTransposeThroughUnpaddedTile) {
  const PredictedCounts predicted =
      PredictLaunch(Dim3{4, 4}, Dim3{32, 32},
                    {
                        SharedStore("tile[ty][tx]", 4, [](Dim3, Dim3 t) { return 4u * (t.y * 32 + t.x); }),
                        SharedLoad("tile[tx][ty]", 4, [](Dim3, Dim3 t) { return 4u * (t.x * 32 + t.y); }),
                    });
  EXPECT_EQ(predicted[MemoryKind::kSharedStore], (KindCounts{512, 512, 512}));
  EXPECT_EQ(predicted[MemoryKind::kSharedLoad], (KindCounts{512, 16384, 512}));
  EXPECT_THAT(predicted.bank_map,
              HasSubstr("worst instruction: load 'tile[tx][ty]' in block (0,0,0), warp 0"));
  EXPECT_THAT(predicted.bank_map, HasSubstr("32 wavefronts, ideal 1, 31 conflicts (32-way)"));

  const PredictedCounts padded =
      PredictLaunch(Dim3{4, 4}, Dim3{32, 32},
                    {
                        SharedLoad("tile[tx][ty]", 4, [](Dim3, Dim3 t) { return 4u * (t.x * 33 + t.y); }),
                    });
  EXPECT_EQ(padded[MemoryKind::kSharedLoad], (KindCounts{512, 512, 512}));
}

TEST(PredictLaunchTest, PartialLastWarpHasInactiveLanes) {
  const PredictedCounts predicted =
      PredictLaunch(Dim3{2}, Dim3{48},
                    {
                        SharedLoad("smem[tid*32]", 4, [](Dim3, Dim3 t) { return 4u * t.x * 32; }),
                    });
  // Per block: warp 0 32-way, warp 1 (16 lanes) 16-way.
  EXPECT_EQ(predicted[MemoryKind::kSharedLoad], (KindCounts{4, 96, 4}));
  EXPECT_THAT(predicted.bank_map, HasSubstr("warp 0 (threads 0-31)"));
}

TEST(PredictLaunchTest, NulloptLanesAreInactiveAndEmptyWarpsAreNotInstructions) {
  const PredictedCounts predicted =
      PredictLaunch(Dim3{1}, Dim3{128},
                    {
                        SharedStore("if (tid < 40) smem[tid]", 4,
                                    [](Dim3, Dim3 t) -> std::optional<uint32_t> {
                                      if (t.x >= 40) return std::nullopt;
                                      return 4 * t.x;
                                    }),
                    });
  EXPECT_EQ(predicted[MemoryKind::kSharedStore], (KindCounts{2, 2, 2}));
}

TEST(PredictLaunchTest, IterationsRepeatAnInstructionWithItsOwnAddresses) {
  // for (i = 0; i < 4; ++i) smem[tid * (i + 1)]: 1-, 2-, 3- (odd: 1) and 4-way.
  const PredictedCounts predicted = PredictLaunch(
      Dim3{1}, Dim3{64},
      {
          SharedLoad(
              "smem[tid*(i+1)]", 4, [](Dim3, Dim3 t, uint32_t i) { return 4u * t.x * (i + 1); }, 4),
      });
  EXPECT_EQ(predicted[MemoryKind::kSharedLoad], (KindCounts{8, 2 * (1 + 2 + 1 + 4), 8}));
  EXPECT_THAT(predicted.bank_map, HasSubstr("iteration 3"));
}

TEST(PredictLaunchTest, ThreadsAreNumberedXFastest) {
  // Block 8x4x2: warp 0 holds y = 0..3 of z = 0. Address depends on y only, 32 words apart: the
  // four rows conflict in bank 0 (4-way) only if x is the fastest index.
  const PredictedCounts predicted =
      PredictLaunch(Dim3{1}, Dim3{8, 4, 2},
                    {
                        SharedLoad("smem[ty*32]", 4, [](Dim3, Dim3 t) { return 4u * 32 * t.y; }),
                        SharedStore("smem[tz*32 + linear]", 4,
                                    [](Dim3, Dim3 t) { return 4u * (t.z * 32 + t.y * 8 + t.x); }),
                    });
  EXPECT_EQ(predicted[MemoryKind::kSharedLoad], (KindCounts{2, 8, 2}));
  EXPECT_EQ(predicted[MemoryKind::kSharedStore], (KindCounts{2, 2, 2}));
}

TEST(PredictLaunchTest, BlockIndexReachesTheAddressFunction) {
  // Odd blocks read with stride 2, even blocks with stride 1.
  const PredictedCounts predicted = PredictLaunch(
      Dim3{2, 2}, Dim3{32},
      {
          SharedLoad("smem[tid*(1+bx%2)]", 4, [](Dim3 b, Dim3 t) { return 4u * t.x * (1 + b.x % 2); }),
      });
  EXPECT_EQ(predicted[MemoryKind::kSharedLoad], (KindCounts{4, 6, 4}));
}

TEST(PredictLaunchTest, NoAccessesPredictNothing) {
  const PredictedCounts predicted = PredictLaunch(Dim3{1}, Dim3{32}, {});
  EXPECT_EQ(predicted[MemoryKind::kSharedLoad], KindCounts{});
  EXPECT_EQ(predicted[MemoryKind::kSharedStore], KindCounts{});
  EXPECT_TRUE(predicted.bank_map.empty());
}

// ---------------------------------------------------------------------------------------------
// Instruction kinds.

TEST(PredictLaunchTest, EachKindHasItsOwnSlot) {
  // Kind k executes k + 1 times per warp, conflict-free: its slot alone holds k + 1 instructions.
  std::vector<SharedAccess> accesses;
  for (const MemoryKindInfo& info : MemoryKinds()) {
    const bool matrix = info.kind == MemoryKind::kSharedLdmatrix || info.kind == MemoryKind::kSharedStmatrix;
    const uint32_t bytes = matrix ? 16 : 4;
    accesses.push_back(SharedAccessOf(
        info.kind, info.op, bytes, [bytes](Dim3, Dim3 t) { return bytes * t.x; },
        static_cast<uint32_t>(IndexOf(info.kind) + 1)));
  }
  const PredictedCounts predicted = PredictLaunch(Dim3{1}, Dim3{32}, accesses);
  for (const MemoryKindInfo& info : MemoryKinds()) {
    const uint64_t n = IndexOf(info.kind) + 1;
    const bool matrix = info.kind == MemoryKind::kSharedLdmatrix || info.kind == MemoryKind::kSharedStmatrix;
    const uint64_t phases = matrix ? 4 : 1;
    EXPECT_EQ(predicted[info.kind], (KindCounts{n, n * phases, n * phases, Provenance::kExact}))
        << info.title;
  }
}

TEST(PredictLaunchTest, OnlyTheKindsExecutedAreCounted) {
  const PredictedCounts predicted =
      PredictLaunch(Dim3{2}, Dim3{64},
                    {
                        CpAsync("cp.async smem[tid*32]", 4, [](Dim3, Dim3 t) { return 4u * 32 * t.x; }),
                        SharedAtomic("atomicAdd(&smem[tid*2])", 4, [](Dim3, Dim3 t) { return 4u * 2 * t.x; }),
                    });
  EXPECT_EQ(predicted[MemoryKind::kSharedCpAsync], (KindCounts{4, 4 * 32, 4}));
  EXPECT_EQ(predicted[MemoryKind::kSharedAtomic], (KindCounts{4, 4 * 2, 4}));
  for (const MemoryKindInfo& info : MemoryKinds()) {
    if (info.kind == MemoryKind::kSharedCpAsync || info.kind == MemoryKind::kSharedAtomic) continue;
    EXPECT_EQ(predicted[info.kind], KindCounts{}) << info.title;
  }
  EXPECT_THAT(predicted.bank_map,
              HasSubstr("worst instruction: cp.async 'cp.async smem[tid*32]' in block (0,0,0), warp 0"));
}

// Lanes below `rows` supply row lane * row_stride bytes; the others supply none.
SharedAccess MatrixRows(MemoryKind kind, int rows, uint32_t row_stride) {
  auto address = [rows, row_stride](Dim3, Dim3 t) -> std::optional<uint32_t> {
    if (static_cast<int>(t.x) >= rows) return std::nullopt;
    return row_stride * t.x;
  };
  return kind == MemoryKind::kSharedLdmatrix ? Ldmatrix("ldmatrix", address) : Stmatrix("stmatrix", address);
}

TEST(PredictLaunchTest, LdmatrixRowsAreSixteenByteAccessesOneMatrixPerPhase) {
  // Measured on the H100: x4 with contiguous rows 4 wavefronts / ideal 4; rows 128 B apart 32 / 4.
  EXPECT_EQ(OneWarp(MatrixRows(MemoryKind::kSharedLdmatrix, 32, 16)), (KindCounts{1, 4, 4}));
  EXPECT_EQ(OneWarp(MatrixRows(MemoryKind::kSharedLdmatrix, 32, 128)), (KindCounts{1, 32, 4}));
  EXPECT_EQ(OneWarp(MatrixRows(MemoryKind::kSharedLdmatrix, 32, 128)).conflicts(), 28u);
  // x2 and x1: fewer matrices, fewer phases.
  EXPECT_EQ(OneWarp(MatrixRows(MemoryKind::kSharedLdmatrix, 16, 16)), (KindCounts{1, 2, 2}));
  EXPECT_EQ(OneWarp(MatrixRows(MemoryKind::kSharedLdmatrix, 16, 128)), (KindCounts{1, 16, 2}));
  EXPECT_EQ(OneWarp(MatrixRows(MemoryKind::kSharedLdmatrix, 8, 16)), (KindCounts{1, 1, 1}));
  EXPECT_EQ(OneWarp(MatrixRows(MemoryKind::kSharedLdmatrix, 8, 128)), (KindCounts{1, 8, 1}));
  // Rows 64 B apart: a matrix's 8 rows fall on two groups of 4 banks, 4 rows each: 4-way.
  EXPECT_EQ(OneWarp(MatrixRows(MemoryKind::kSharedLdmatrix, 32, 64)), (KindCounts{1, 16, 4}));
  // Rows 144 B apart (a 128-byte row padded by 16): every row in its own 4 banks.
  EXPECT_EQ(OneWarp(MatrixRows(MemoryKind::kSharedLdmatrix, 32, 144)), (KindCounts{1, 4, 4}));
  // stmatrix follows the same rule, in its own slot.
  EXPECT_EQ(OneWarp(MatrixRows(MemoryKind::kSharedStmatrix, 32, 128)), (KindCounts{1, 32, 4}));
}

TEST(PredictLaunchTest, SwizzledLdmatrixTileIsConflictFree) {
  // A 16x16 b16 fragment of a row-major tile 64 halves (128 B) wide, read with ldmatrix.x4:
  // lane l supplies row l % 16, 16-byte chunk l / 16. Unswizzled, each matrix's 8 rows share
  // banks (8-way); with the chunk XORed by row % 8 they spread over all 32 banks.
  const PredictedCounts plain =
      PredictLaunch(Dim3{1}, Dim3{32},
                    {
                        Ldmatrix("ldmatrix.x4 tile[row][chunk]",
                                 [](Dim3, Dim3 t) { return 128u * (t.x % 16) + 16u * (t.x / 16); }),
                    });
  EXPECT_EQ(plain[MemoryKind::kSharedLdmatrix], (KindCounts{1, 32, 4}));
  EXPECT_THAT(plain.bank_map, HasSubstr("worst instruction: ldmatrix 'ldmatrix.x4 tile[row][chunk]'"));
  const PredictedCounts swizzled = PredictLaunch(
      Dim3{1}, Dim3{32},
      {
          Ldmatrix("ldmatrix.x4 tile[row][chunk ^ row%8]",
                   [](Dim3, Dim3 t) { return 128u * (t.x % 16) + 16u * ((t.x / 16) ^ (t.x % 8)); }),
      });
  EXPECT_EQ(swizzled[MemoryKind::kSharedLdmatrix], (KindCounts{1, 4, 4}));
}

TEST(PredictLaunchTest, CpAsyncAndAtomicsUseTheRuleForTheirSize) {
  // Measured on the H100: cp.async 4 B at word stride 32: 32 wavefronts, 31 conflicts.
  const KindCounts cp_async = OneWarp(CpAsync("cp.async", 4, [](Dim3, Dim3 t) { return 4u * 32 * t.x; }));
  EXPECT_EQ(cp_async, (KindCounts{1, 32, 1}));
  EXPECT_EQ(cp_async.conflicts(), 31u);
  EXPECT_EQ(OneWarp(CpAsync("cp.async", 8, [](Dim3, Dim3 t) { return 8u * t.x; })), (KindCounts{1, 2, 2}));
  EXPECT_EQ(OneWarp(SharedAtomic("atomicAdd", 4, [](Dim3, Dim3 t) { return 4u * 2 * t.x; })),
            (KindCounts{1, 2, 1}));
  EXPECT_EQ(OneWarp(SharedAtomic("atomicAdd(&smem[0])", 4, [](Dim3, Dim3) { return 0u; })),
            (KindCounts{1, 1, 1}));
}

TEST(PredictLaunchTest, MatrixRowsMustBeSixteenBytes) {
  const std::string message = MessageOf([] {
    PredictLaunch(
        Dim3{1}, Dim3{32},
        {SharedAccessOf(MemoryKind::kSharedStmatrix, "stmatrix", 8, [](Dim3, Dim3 t) { return 8u * t.x; })});
  });
  EXPECT_THAT(message, HasSubstr("stmatrix 'stmatrix'"));
  EXPECT_THAT(message, HasSubstr("rows are 16 bytes"));
  EXPECT_THAT(MessageOf([] {
                PredictLaunch(Dim3{1}, Dim3{32},
                              {Ldmatrix("ldmatrix", [](Dim3, Dim3 t) { return 16u * t.x + 8; })});
              }),
              HasSubstr("ldmatrix 'ldmatrix' in block (0,0,0), warp 0"));
}

TEST(PredictLaunchTest, BadInputNamesTheAccess) {
  const std::string misaligned = MessageOf([] {
    PredictLaunch(Dim3{3}, Dim3{64}, {SharedLoad("smem[tid]+2", 4, [](Dim3 b, Dim3 t) {
                    return 4u * t.x + (b.x == 2 && t.x == 40 ? 2u : 0u);
                  })});
  });
  EXPECT_THAT(misaligned, HasSubstr("load 'smem[tid]+2' in block (2,0,0), warp 1"));
  EXPECT_THAT(misaligned, HasSubstr("lane 8"));
  EXPECT_EQ(KindOf([] { PredictLaunch(Dim3{0}, Dim3{32}, {}); }), ErrorKind::kBadInput);
  EXPECT_THAT(MessageOf([] { PredictLaunch(Dim3{1}, Dim3{1025}, {}); }), HasSubstr("at most 1024"));
  EXPECT_THAT(MessageOf([] {
                PredictLaunch(Dim3{1}, Dim3{32}, {SharedAccess{"x", MemoryKind::kSharedLoad, 4, 1, {}, {}}});
              }),
              HasSubstr("'x' has no address function"));
  EXPECT_THAT(
      MessageOf([] { PredictLaunch(Dim3{1}, Dim3{32}, {SharedLoad("x", 3, [](Dim3, Dim3) { return 0; })}); }),
      HasSubstr("1, 2, 4, 8 or 16"));
  EXPECT_THAT(MessageOf([] {
                PredictLaunch(Dim3{1}, Dim3{32}, {SharedLoad("x", 4, [](Dim3, Dim3) { return -4; })});
              }),
              HasSubstr("negative"));
}
}  // namespace
}  // namespace bankcheck
