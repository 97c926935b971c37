// What one emulated launch costs on the CPU and how it grows with the grid (docs/emulate.md,
// "Speed"): a bounds-checked 32x8 tile transpose's shared accesses (the suite's transposes, written
// here as SASS so that no toolkit program is needed), grids of 1 to 16,384 blocks whose last row
// and column of blocks are partial. `grouped` counts a block with an evaluated one when it provably
// runs the same (EmulationLimits::group_blocks); `every_block` evaluates each. Counters:
// evaluated_blocks (of `blocks`), and per_block, the time per block of the grid (seconds).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bankcheck/emulate/emulator.h"

namespace {

using bankcheck::Dim3;
using bankcheck::emulate::Emulate;
using bankcheck::emulate::Emulation;
using bankcheck::emulate::EmulationLimits;
using bankcheck::emulate::LaunchToEmulate;
using bankcheck::emulate::Module;

// x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y; in range (x < width,
// y < height, the int arguments): tile[ty][tx] = ..., then ... = tile[tx][ty], tile rows 33 words.
constexpr char kTranspose[] = R"(
.text._Z9transposePKfPfii:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   S2R R1, SR_TID.Y ;
        /*0020*/                   S2R R2, SR_CTAID.X ;
        /*0030*/                   S2R R3, SR_CTAID.Y ;
        /*0040*/                   S2UR UR4, SR_CgaCtaId ;
        /*0050*/                   UMOV UR5, 0x400 ;
        /*0060*/                   ULEA UR4, UR4, UR5, 0x18 ;
        /*0070*/                   IMAD R4, R2, 0x20, R0 ;
        /*0080*/                   IMAD R5, R3, 0x8, R1 ;
        /*0090*/                   ISETP.GE.AND P0, PT, R4, c[0x0][0x210], PT ;
        /*00a0*/                   ISETP.GE.OR P0, PT, R5, c[0x0][0x214], P0 ;
        /*00b0*/                   IMAD R6, R1, 0x21, R0 ;
        /*00c0*/                   SHF.L.U32 R6, R6, 0x2, RZ ;
        /*00d0*/              @!P0 STS [R6+UR4], RZ ;
        /*00e0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*00f0*/                   IMAD R7, R0, 0x21, R1 ;
        /*0100*/                   SHF.L.U32 R7, R7, 0x2, RZ ;
        /*0110*/              @!P0 LDS R8, [R7+UR4] ;
        /*0120*/                   EXIT ;
)";

void EmulateTranspose(benchmark::State& state, bool group_blocks) {
  static const Module module = Module::FromListings(kTranspose, "");
  const auto side = static_cast<uint32_t>(state.range(0));  // blocks per side
  LaunchToEmulate launch;
  launch.mangled = "_Z9transposePKfPfii";
  launch.grid = Dim3{side, side, 1};
  launch.block = Dim3{32, 8, 1};
  const int32_t size[2] = {static_cast<int32_t>(side * 32 - 5), static_cast<int32_t>(side * 8 - 3)};
  launch.param_bytes.resize(sizeof size);
  std::memcpy(launch.param_bytes.data(), size, sizeof size);
  EmulationLimits limits;
  limits.group_blocks = group_blocks;
  uint64_t evaluated = 0;
  for (auto _ : state) {
    const Emulation emulation = Emulate(module, launch, limits);
    if (!emulation.record) {
      state.SkipWithError(("undecided: " + emulation.undecided->Describe()).c_str());
      return;
    }
    evaluated = emulation.evaluated_blocks;
    benchmark::DoNotOptimize(emulation.record->stores().wavefronts);
  }
  const double blocks = static_cast<double>(side) * side;
  state.counters["blocks"] = blocks;
  state.counters["evaluated_blocks"] = static_cast<double>(evaluated);
  state.counters["per_block"] =
      benchmark::Counter(blocks, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Grouped(benchmark::State& state) { EmulateTranspose(state, true); }
void BM_EveryBlock(benchmark::State& state) { EmulateTranspose(state, false); }

BENCHMARK(BM_Grouped)->Arg(1)->Arg(8)->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EveryBlock)->Arg(1)->Arg(8)->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
