// TMA loads and their mbarriers emulated (semantics_async.cc), in the shape nvcc 13 emits for
// CuTe's SM90_TMA_LOAD (kernels/wgmma_layouts.cu): thread 0 initializes the barrier, arrives
// expecting the tile's bytes and issues UTMALDG in an ELECT loop; every thread waits on the phase.
// Their global reads (global_tma_ld) costed from the stand-in runtime's tensor map by the box rule
// (TensorBoxSectors), and left not counted, saying why, where the map or coordinates are not known.

#include <gmock/gmock.h>

#include <cstring>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/core/memory_sectors.h"
#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"
#include "emulate/internal/tensor_map.h"

namespace bankcheck::emulate {
namespace {

using internal::StandInTensorMap;
using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

// The kernel's body with `init_low`/`init_high` (mbarrier.init's words: count 1 gives 0x1ffffe,
// 0x7ffff800) and `copy` in place of the UTMALDG.
std::string Body(const std::string& init_low = "0x1ffffe", const std::string& init_high = "0x7ffff800",
                 const std::string& copy = "UTMALDG.2D [UR4], [UR10], desc[UR12]") {
  return R"(
        /*0040*/                   UMOV UR6, )" +
         init_low + R"( ;
        /*0050*/                   UMOV UR7, )" +
         init_high + R"( ;
        /*0060*/                   ISETP.NE.AND P0, PT, R0, RZ, PT ;
        /*0070*/                   VOTEU.ALL UP0, P0 ;
        /*0080*/              @!UP0 SYNCS.EXCH.64 URZ, [UR4+0x4000], UR6 ;
        /*0090*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*00a0*/               @P0 BRA `(.L_x_1) ;
        /*00b0*/                   IMAD.MOV.U32 R2, RZ, RZ, 0x4000 ;
        /*00c0*/                   PLOP3.LUT P0, PT, PT, PT, PT, 0x80, 0x0 ;
        /*00d0*/                   SYNCS.ARRIVE.TRANS64 RZ, [UR4+0x4000], R2 ;
.L_x_2:
        /*00e0*/               @P0 ELECT P1, URZ, PT ;
        /*00f0*/                   )" +
         copy + R"( ;
        /*0100*/               @P1 PLOP3.LUT P0, PT, P1, PT, PT, 0x8, 0x0 ;
        /*0110*/                   PLOP3.LUT P1, PT, PT, PT, PT, 0x8, 0x0 ;
        /*0120*/               @P0 BRA.U.ANY `(.L_x_2) ;
.L_x_1:
        /*0130*/                   SHF.L.U32 R3, RZ, 0x1f, RZ ;
.L_x_3:
        /*0140*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P2, [UR4+0x4000], R3 ;
        /*0150*/              @!P2 BRA `(.L_x_3) ;
        /*0160*/                   IMAD.SHL.U32 R4, R0, 0x4, RZ ;
        /*0170*/                   STS [R4+UR4], RZ ;
        /*0180*/                   EXIT ;
)";
}

Emulation EmulateBody(const std::string& body) {
  return Emulate(Listing(body), Launch(Dim3{2, 1, 1}, Dim3{128, 1, 1}));
}

std::string WhyUndecided(const Emulation& emulation) {
  if (!emulation.undecided) {
    ADD_FAILURE() << "decided, where it should be undecided";
    return "";
  }
  return emulation.undecided->reason;
}

TEST(EmulateTmaTest, TheWaitDecidesOnceTheArrivalAndTheCopyRanAndNoRowCostsThem) {
  const Emulation emulation = EmulateBody(Body());
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(emulation.record->stores().instructions, 2u * 4);  // every warp of both blocks waited
  ASSERT_EQ(emulation.record->instructions.size(), 1u);        // no row for SYNCS, ELECT or UTMALDG
  EXPECT_EQ(emulation.record->instructions[0].opcode, "STS");
  // The copy's map address (UR10) was never written: its global reads are not counted, and why.
  EXPECT_TRUE(emulation.record->not_counted[MemoryKind::kGlobalTmaLoad]);
  ASSERT_EQ(emulation.record->notes.size(), 1u);
  EXPECT_THAT(emulation.record->notes[0],
              HasSubstr("feeds the tensor map's address of UTMALDG.2D at pc 0x00f0"));
}

TEST(EmulateTmaTest, AWaitForBytesNoCopyDeliversIsUndecided) {
  EXPECT_THAT(WhyUndecided(EmulateBody(Body("0x1ffffe", "0x7ffff800", "NOP"))),
              HasSubstr("waits for transaction bytes that no tensor copy evaluated before it delivers"));
}

TEST(EmulateTmaTest, APhaseThatNeedsMoreArrivalsThanEvaluatedIsUndecided) {
  // Two arrivals expected (0x100000 - 2 = 0xffffe), one made.
  EXPECT_THAT(WhyUndecided(EmulateBody(Body("0x1ffffc", "0x7ffff000"))),
              HasSubstr("waits for an mbarrier phase that no warp evaluated before it completes"));
  EXPECT_THAT(WhyUndecided(EmulateBody(Body("0x1ffffe", "0x1234"))),
              HasSubstr("initializes an mbarrier with a value the emulator does not decode"));
}

TEST(EmulateTmaTest, AnElectionAmongSeveralLanesHasNoKnownLeader) {
  const std::string why = WhyUndecided(EmulateBody(R"(
        /*0040*/                   ELECT P1, URZ, PT ;
        /*0050*/               @P1 STS [UR4], RZ ;
        /*0060*/                   EXIT ;
)"));
  EXPECT_THAT(why, HasSubstr("ELECT at pc 0x0040"));
  const Emulation one = EmulateBody(R"(
        /*0040*/                   ISETP.EQ.AND P0, PT, R0, 0x5, PT ;
        /*0050*/                   ELECT P1, UR8, P0 ;
        /*0060*/               @P1 STS [UR4+0x10], RZ ;
        /*0070*/                   EXIT ;
)");
  ASSERT_TRUE(one.record) << one.undecided->Describe();
  EXPECT_EQ(Row(*one.record, 0x60).executions, 2u);  // lane 5 of warp 0, in each block
}

// ---- global_tma_ld: the box rule on the stand-in runtime's maps ----

// A kernel in the shape nvcc 13 gives benchmarks/tma_probe.cu's TmaLoad (a __grid_constant__
// CUtensorMap): thread 0 initializes the mbarrier, arrives expecting the box's bytes and issues
// `copy` at (x, y + 32 * blockIdx.x), x and y the arguments at offsets 0xf0 and 0xf4; `map_address`
// puts the map's generic address in UR14:UR15, by default the parameters' window (bank 0's 0x198)
// plus the map's offset, 0x70, as nvcc forms a __grid_constant__ parameter's address.
const std::vector<std::string> kGridConstantMap = {"ULDC.64 UR14, c[0x0][0x198]",
                                                   "UIADD3 UR14, UP0, UR14, 0x70, URZ",
                                                   "UIADD3.X UR15, URZ, UR15, URZ, UP0, !UPT"};
constexpr size_t kMapOffset = 0x70, kCoordinatesOffset = 0xf0;

Module CopyKernel(const std::vector<std::string>& map_address = kGridConstantMap,
                  const std::string& copy = "UTMALDG.2D [UR8], [UR14]", const std::string& after = "EXIT") {
  std::vector<std::string> code = {"ISETP.NE.AND P0, PT, R0, RZ, PT",
                                   "@P0 EXIT",
                                   "UIADD3 UR9, UR4, 0x4000, URZ",
                                   "UMOV UR6, 0x1ffffe",
                                   "UMOV UR7, 0x7ffff800",
                                   "SYNCS.EXCH.64 URZ, [UR9], UR6",
                                   "IMAD.MOV.U32 R2, RZ, RZ, 0x1000",
                                   "SYNCS.ARRIVE.TRANS64 RZ, [UR9], R2",
                                   "ULDC.64 UR10, c[0x0][0x300]",
                                   "S2UR UR12, SR_CTAID.X",
                                   "ULEA UR11, UR12, UR11, 0x5",
                                   "UMOV UR8, UR4"};
  code.insert(code.end(), map_address.begin(), map_address.end());
  for (const std::string& line : {copy, std::string("SHF.L.U32 R3, RZ, 0x1f, RZ"),
                                  std::string("SYNCS.PHASECHK.TRANS64.TRYWAIT P2, [UR9], R3"), after})
    code.push_back(line);
  if (after != "EXIT") code.push_back("EXIT");
  std::ostringstream body;
  uint32_t pc = 0x40;
  for (const std::string& line : code) {
    body << "        /*" << std::hex << std::setw(4) << std::setfill('0') << pc << "*/                   "
         << line << " ;\n";
    pc += 0x10;
  }
  return Listing(body.str());
}

// A row-major 2D tensor of `type` at a sector-aligned address, `row_bytes` apart, its box box_x by
// box_y, as the stand-in's cuTensorMapEncodeTiled keeps it (no interleave, element strides 1,
// L2 promotion 128 bytes as CuTe's maps have).
StandInTensorMap Map2D(uint8_t type, uint32_t width, uint32_t height, uint64_t row_bytes, uint32_t box_x,
                       uint32_t box_y) {
  StandInTensorMap map;
  map.address = 0x7f0000010000;
  map.type = type;
  map.rank = 2;
  map.l2_promotion = internal::tensor_map::kL2_128B;
  map.dims_minus_one[0] = width - 1;
  map.dims_minus_one[1] = height - 1;
  map.strides[0] = row_bytes;
  map.box[0] = box_x;
  map.box[1] = box_y;
  map.element_strides[0] = map.element_strides[1] = 1;
  return map;
}

std::vector<uint8_t> Arguments(const void* map, int32_t x, int32_t y) {
  std::vector<uint8_t> bytes(kCoordinatesOffset + 8);
  if (map != nullptr) std::memcpy(bytes.data() + kMapOffset, map, internal::kTensorMapBytes);
  std::memcpy(bytes.data() + kCoordinatesOffset, &x, 4);
  std::memcpy(bytes.data() + kCoordinatesOffset + 4, &y, 4);
  return bytes;
}

std::vector<uint8_t> Arguments(const StandInTensorMap& map, int32_t x, int32_t y) {
  uint8_t bytes[internal::kTensorMapBytes] = {};
  std::memcpy(bytes, &map, sizeof map);
  return Arguments(bytes, x, y);
}

// What the box rule gives for the load of each of `blocks` blocks (block b at (x, y + 32 b)), the
// tensor as the test's own TensorBox describes it.
uint64_t RulesSectors(uint32_t element_bytes, uint64_t width, uint64_t height, uint64_t row_bytes,
                      uint32_t box_x, uint32_t box_y, int32_t x, int32_t y, uint32_t blocks) {
  uint64_t sectors = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    TensorBox box;
    box.address = 0x7f0000010000;
    box.rank = 2;
    box.element_bytes = element_bytes;
    box.dims = {width, height};
    box.strides = {0, row_bytes};
    box.box = {box_x, box_y};
    box.at = {x, y + 32 * static_cast<int64_t>(b)};
    const TmaSectors cost = TensorBoxSectors(box, false);
    EXPECT_TRUE(cost.decided()) << cost.undecided;
    sectors += cost.sectors;
  }
  return sectors;
}

// The launch's TMA load counts; fails the test where they are not counted.
KindCounts TmaLoads(const Emulation& emulation) {
  if (!emulation.record) {
    ADD_FAILURE() << emulation.undecided->Describe();
    return {};
  }
  const LaunchRecord& record = *emulation.record;
  EXPECT_FALSE(record.not_counted[MemoryKind::kGlobalTmaLoad])
      << (record.notes.empty() ? std::string("no note") : record.notes[0]);
  EXPECT_FALSE(record.not_counted[MemoryKind::kGlobalTmaStore]);
  return record.kinds[MemoryKind::kGlobalTmaLoad];
}

// Why the launch's TMA kinds are not counted (its note); fails the test where they are.
std::string WhyTmaNotCounted(const Emulation& emulation) {
  if (!emulation.record) {
    ADD_FAILURE() << emulation.undecided->Describe();
    return "";
  }
  const LaunchRecord& record = *emulation.record;
  EXPECT_TRUE(record.not_counted[MemoryKind::kGlobalTmaLoad]);
  EXPECT_TRUE(record.not_counted[MemoryKind::kGlobalTmaStore]);
  EXPECT_FALSE(record.not_counted[MemoryKind::kSharedLoad]);
  for (const std::string& note : record.notes)
    if (note.find("TMA") != std::string::npos) return note;
  ADD_FAILURE() << "no note says why TMA is not counted";
  return "";
}

Emulation EmulateCopy(const std::vector<uint8_t>& arguments, uint32_t blocks = 1,
                      const Module& kernel = CopyKernel()) {
  return Emulate(kernel, Launch(Dim3{blocks, 1, 1}, Dim3{32, 1, 1}, arguments));
}

TEST(EmulateTmaTest, ALoadCountsOneInstructionPerCopyAndTheBoxRulesSectors) {
  using internal::tensor_map::kFloat32;
  // Boxes of benchmarks/tma_probe.cu, with the sectors the H100 measured (benchmarks/data/
  // tma_probe_h100.txt): inside (128), 16 bytes past a sector (160), across the edge (128), across
  // an odd edge (142), before the tensor (128), wholly outside it (128).
  struct Case {
    int32_t x, y;
    uint32_t width, height;
    uint64_t measured;
  };
  for (const Case& c :
       {Case{32, 32, 256, 256, 128}, Case{4, 0, 256, 256, 160}, Case{240, 240, 256, 256, 128},
        Case{236, 236, 250, 250, 142}, Case{-16, -16, 256, 256, 128}, Case{512, 512, 256, 256, 128}}) {
    const StandInTensorMap map = Map2D(kFloat32, c.width, c.height, 1024, 32, 32);
    const KindCounts loads = TmaLoads(EmulateCopy(Arguments(map, c.x, c.y)));
    EXPECT_EQ(loads.instructions, 1u) << c.x << ", " << c.y;
    EXPECT_EQ(loads.wavefronts, RulesSectors(4, c.width, c.height, 1024, 32, 32, c.x, c.y, 1)) << c.x;
    EXPECT_EQ(loads.wavefronts, c.measured) << c.x << ", " << c.y;
    EXPECT_FALSE(loads.ideal_known());  // none exists
  }
}

TEST(EmulateTmaTest, EveryBlockIsCountedAtItsOwnBox) {
  using internal::tensor_map::kFloat32;
  // Block b copies at row 32 b: the rows of the last blocks lie past the tensor's 70, which a load
  // reads as if they began on a sector (4 each), where the rows inside, 16 bytes past one, cost 5.
  const StandInTensorMap map = Map2D(kFloat32, 250, 70, 1024, 32, 32);
  const Emulation emulation = EmulateCopy(Arguments(map, 236, 0), 4);
  const KindCounts loads = TmaLoads(emulation);
  EXPECT_EQ(loads.instructions, 4u);
  EXPECT_EQ(loads.wavefronts, RulesSectors(4, 250, 70, 1024, 32, 32, 236, 0, 4));
  EXPECT_EQ(loads.wavefronts, 32u * 5 + 32 * 5 + (6 * 5 + 26 * 4) + 32 * 4);
  EXPECT_EQ(emulation.evaluated_blocks, 4u);  // the coordinates depend on the block: none grouped
  // A launch total, as the GPU counts it: on no instruction's row, so on no line.
  for (const InstructionCounts& row : emulation.record->instructions)
    EXPECT_NE(row.kind, MemoryKind::kGlobalTmaLoad) << row.opcode;
}

TEST(EmulateTmaTest, AMapInKnownGlobalMemoryIsReadWhereTheKernelWritesNoGlobalMemory) {
  using internal::tensor_map::kFloat16;
  // A 64x64 f16 tile in one 64x64 box, 128-byte rows (load_f16_64x64_sw128: 256 sectors).
  StandInTensorMap map = Map2D(kFloat16, 64, 64, 128, 64, 64);
  map.swizzle = internal::tensor_map::kSwizzle128B;
  constexpr uint64_t kMapAddress = 0x7f0000020000;
  class MapInMemory final : public KnownMemory {
   public:
    explicit MapInMemory(const StandInTensorMap& map) { std::memcpy(bytes_, &map, sizeof map); }
    bool Read(uint64_t address, uint32_t size, void* out) const override {
      if (address < kMapAddress || address - kMapAddress + size > sizeof bytes_) return false;
      std::memcpy(out, bytes_ + (address - kMapAddress), size);
      return true;
    }

   private:
    uint8_t bytes_[internal::kTensorMapBytes] = {};
  };
  // The map's address is the first argument (a const CUtensorMap*).
  std::vector<uint8_t> arguments = Arguments(nullptr, 0, 0);
  std::memcpy(arguments.data(), &kMapAddress, 8);
  LaunchToEmulate launch = Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}, arguments);
  launch.memory = std::make_shared<MapInMemory>(map);
  const KindCounts loads = TmaLoads(Emulate(CopyKernel({"ULDC.64 UR14, c[0x0][0x210]"}), launch));
  EXPECT_EQ(loads.instructions, 1u);
  EXPECT_EQ(loads.wavefronts, 256u);
  // A kernel that may write global memory may have written the map: not read.
  const Module writes =
      CopyKernel({"ULDC.64 UR14, c[0x0][0x210]"}, "UTMALDG.2D [UR8], [UR14]", "STG.E desc[UR6][R4.64], RZ");
  EXPECT_THAT(
      WhyTmaNotCounted(Emulate(writes, launch)),
      HasSubstr(
          "the tensor map's bytes in global memory are not known (the kernel may write global memory)"));
  launch.memory = nullptr;
  EXPECT_THAT(WhyTmaNotCounted(Emulate(CopyKernel({"ULDC.64 UR14, c[0x0][0x210]"}), launch)),
              HasSubstr("the tensor map's bytes in global memory are not known"));
}

TEST(EmulateTmaTest, AMapNotInTheStandInLayoutLeavesTheTmaKindsNotCounted) {
  using internal::tensor_map::kFloat32;
  // A map the driver encoded (its bytes are the GPU's, not the stand-in's), or none at all.
  uint8_t driver_encoded[internal::kTensorMapBytes];
  for (size_t i = 0; i < sizeof driver_encoded; ++i) driver_encoded[i] = static_cast<uint8_t>(0x5a + 7 * i);
  const Emulation emulation = EmulateCopy(Arguments(driver_encoded, 32, 32));
  EXPECT_THAT(WhyTmaNotCounted(emulation),
              AllOf(HasSubstr("TMA copies' global traffic not counted"), HasSubstr("UTMALDG.2D at pc"),
                    HasSubstr("not in the stand-in runtime's layout")));
  // Still decided (the wait completes, the copy ran), and no other kind is lost.
  EXPECT_EQ(emulation.record->kinds[MemoryKind::kGlobalTmaLoad].instructions, 0u);
  EXPECT_FALSE(emulation.record->not_counted[MemoryKind::kGlobalLoad]);
  // Bytes that begin with the magic but hold what the encoder never writes.
  StandInTensorMap doctored = Map2D(kFloat32, 256, 256, 1024, 32, 32);
  doctored.rank = 9;
  EXPECT_THAT(WhyTmaNotCounted(EmulateCopy(Arguments(doctored, 32, 32))),
              HasSubstr("values its cuTensorMapEncodeTiled never writes"));
  // Arguments too short to hold the map.
  EXPECT_THAT(WhyTmaNotCounted(EmulateCopy(std::vector<uint8_t>(kMapOffset + 16))),
              HasSubstr("the tensor map's address is not that of a kernel parameter"));
}

TEST(EmulateTmaTest, AMapOfAFormNotMeasuredLeavesTheTmaKindsNotCounted) {
  using namespace internal::tensor_map;  // NOLINT(build/namespaces): the map's enumerators
  StandInTensorMap promoted = Map2D(kFloat32, 256, 256, 1024, 32, 32);
  promoted.l2_promotion = kL2_256B;
  EXPECT_THAT(WhyTmaNotCounted(EmulateCopy(Arguments(promoted, 32, 32))),
              AllOf(HasSubstr("L2 promotion of 256 bytes"), HasSubstr("was not measured")));
  StandInTensorMap strided = Map2D(kFloat32, 256, 256, 1024, 32, 32);
  strided.element_strides[1] = 2;
  EXPECT_THAT(WhyTmaNotCounted(EmulateCopy(Arguments(strided, 32, 32))),
              HasSubstr("element strides other than 1"));
  StandInTensorMap bytes = Map2D(kUint8, 256, 256, 256, 32, 32);
  EXPECT_THAT(WhyTmaNotCounted(EmulateCopy(Arguments(bytes, 32, 32))), HasSubstr("1-byte elements"));
  StandInTensorMap filled = Map2D(kFloat32, 256, 256, 1024, 32, 32);
  filled.oob_fill = kOobFillNanRequestZeroFma;
  EXPECT_THAT(WhyTmaNotCounted(EmulateCopy(Arguments(filled, 32, 32))), HasSubstr("out-of-bounds NaN fill"));
  // A 3D copy of a 2D map.
  EXPECT_THAT(WhyTmaNotCounted(EmulateCopy(Arguments(Map2D(kFloat32, 256, 256, 1024, 32, 32), 32, 32), 1,
                                           CopyKernel(kGridConstantMap, "UTMALDG.3D [UR8], [UR14]"))),
              HasSubstr("copies a box of rank 3 with a tensor map of rank 2"));
}

TEST(EmulateTmaTest, WhatTheRuleLeavesUndecidedIsNotCounted) {
  using internal::tensor_map::kFloat32;
  // A row inside in its other coordinates but wholly past the first dimension: not measured.
  EXPECT_THAT(WhyTmaNotCounted(EmulateCopy(Arguments(Map2D(kFloat32, 256, 256, 1024, 32, 32), 256, 0))),
              AllOf(HasSubstr("the box of UTMALDG.2D at pc"), HasSubstr("not measured")));
}

TEST(EmulateTmaTest, UnknownCoordinatesOrAddressesLeaveTheTmaKindsNotCounted) {
  using internal::tensor_map::kFloat32;
  const std::vector<uint8_t> arguments = Arguments(Map2D(kFloat32, 256, 256, 1024, 32, 32), 32, 32);
  // A coordinate no instruction wrote (UR16 for the second of a copy whose registers start at UR14).
  EXPECT_THAT(
      WhyTmaNotCounted(EmulateCopy(arguments, 1, CopyKernel(kGridConstantMap, "UTMALDG.2D [UR14], [UR14]"))),
      HasSubstr("feeds coordinate 0 of UTMALDG.2D at pc"));
  // The map's address from a register no instruction wrote.
  EXPECT_THAT(WhyTmaNotCounted(EmulateCopy(arguments, 1, CopyKernel({"NOP"}, "UTMALDG.2D [UR8], [UR20]"))),
              HasSubstr("feeds the tensor map's address of UTMALDG.2D at pc"));
  // A cache policy (desc[URp], CuTe's form) moves no other bytes: counted.
  EXPECT_EQ(TmaLoads(EmulateCopy(arguments, 1,
                                 CopyKernel(kGridConstantMap, "UTMALDG.2D [UR8], [UR14], desc[UR16]")))
                .wavefronts,
            128u);
}

TEST(EmulateTmaTest, AGlobalAccessOfTheParametersWindowIsNotCounted) {
  // A generic load of a __grid_constant__ parameter through its address: no counter was measured.
  const Emulation emulation = Emulate(Listing(R"(
        /*0040*/                   ULDC.64 UR14, c[0x0][0x198] ;
        /*0050*/                   IMAD.U32 R2, RZ, RZ, UR14 ;
        /*0060*/                   IMAD.U32 R3, RZ, RZ, UR15 ;
        /*0070*/                   LD.E R5, desc[UR6][R2.64+0x70] ;
        /*0080*/                   EXIT ;
)"),
                                      Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}, Arguments(nullptr, 0, 0)));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_TRUE(emulation.record->not_counted[MemoryKind::kGlobalLoad]);
  ASSERT_FALSE(emulation.record->notes.empty());
  EXPECT_THAT(emulation.record->notes[0],
              HasSubstr("reaches the kernel's parameters through their generic address"));
}

}  // namespace
}  // namespace bankcheck::emulate
