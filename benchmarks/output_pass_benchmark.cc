// The output pass's speed (ComputeOutputs, docs/emulate.md "Computed outputs"): three kernels as
// nvcc -O3 -arch=sm_90 compiles them (cuobjdump -sass, trimmed to the listing Module::FromListings
// reads, so that no toolkit program is needed), each run with values against host buffers that stand
// for device memory, its stores checked against the same computation on the host:
//   saxpy   y[i] = a * x[i] + y[i], a grid-stride loop of global loads, an FFMA and a store;
//   reduce  a block's sum of in[i] ^ (i * 7) over a grid-stride loop, then a shared-memory tree
//           with a barrier per level (BSSY/BSYNC, guarded LDS/STS);
//   sgemm   C = A B through 16x16 shared tiles: two barriers per tile, LDS and FFMA inner loop.
// Counter warp_instructions_per_second: the warp instructions the pass ran (its limit's unit,
// ComputedOutputs::warp_instructions) per second of wall time. output_pass_speed.sh compares two
// builds' runs.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bankcheck/emulate/emulator.h"

namespace {

using bankcheck::Dim3;
using bankcheck::emulate::ComputedOutputs;
using bankcheck::emulate::ComputeOutputs;
using bankcheck::emulate::KnownMemory;
using bankcheck::emulate::LaunchToEmulate;
using bankcheck::emulate::Module;

// for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
//   y[i] = a * x[i] + y[i];   (int n, float a, const float* __restrict__ x, float* y)
constexpr char kSaxpy[] = R"(
.text._Z5saxpyifPKfPf:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_CTAID.X ;
        /*0020*/                   ULDC UR4, c[0x0][0x0] ;
        /*0030*/                   ULDC UR8, c[0x0][0x210] ;
        /*0040*/                   S2R R3, SR_TID.X ;
        /*0050*/                   IMAD R0, R0, UR4, R3 ;
        /*0060*/                   ISETP.GE.AND P0, PT, R0, UR8, PT ;
        /*0070*/               @P0 EXIT ;
        /*0080*/                   LDC.64 R6, c[0x0][0x218] ;
        /*0090*/                   ULDC UR5, c[0x0][0xc] ;
        /*00a0*/                   ULDC.64 UR6, c[0x0][0x208] ;
        /*00b0*/                   UIMAD UR4, UR4, UR5, URZ ;
        /*00c0*/                   ULDC UR5, c[0x0][0x214] ;
        /*00d0*/                   LDC.64 R8, c[0x0][0x220] ;
.L_x_0:
        /*00e0*/                   IMAD.WIDE R2, R0, 0x4, R6 ;
        /*00f0*/                   IMAD.WIDE R4, R0.reuse, 0x4, R8 ;
        /*0100*/                   LDG.E.CONSTANT R2, desc[UR6][R2.64] ;
        /*0110*/                   LDG.E R11, desc[UR6][R4.64] ;
        /*0120*/                   IADD3 R0, R0, UR4, RZ ;
        /*0130*/                   ISETP.GE.AND P0, PT, R0, UR8, PT ;
        /*0140*/                   FFMA R11, R2, UR5, R11 ;
        /*0150*/                   STG.E desc[UR6][R4.64], R11 ;
        /*0160*/              @!P0 BRA `(.L_x_0) ;
        /*0170*/                   EXIT ;
.L_x_1:
        /*0180*/                   BRA `(.L_x_1) ;
)";

// __shared__ int s[256]; sum of in[i] ^ (i * 7) for i = blockIdx.x * 256 + t, stepping 256 *
// gridDim.x, below n; s[t] = sum; then for k = 128 .. 1: if (t < k) s[t] += s[t + k]; with
// __syncthreads() after each; thread 0 stores s[0] to out[blockIdx.x].   (const int* in, int* out,
// int n)
constexpr char kReduce[] = R"(
.text._Z6reducePKiPii:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_CTAID.X ;
        /*0020*/                   ULDC UR8, c[0x0][0x220] ;
        /*0030*/                   ULDC.64 UR6, c[0x0][0x208] ;
        /*0040*/                   BSSY B0, 0x160 ;
        /*0050*/                   S2R R3, SR_TID.X ;
        /*0060*/                   IMAD.MOV.U32 R8, RZ, RZ, RZ ;
        /*0070*/                   IMAD R2, R0, 0x100, R3 ;
        /*0080*/                   ISETP.GE.AND P0, PT, R2, UR8, PT ;
        /*0090*/               @P0 BRA `(.L_x_1) ;
        /*00a0*/                   LDC R11, c[0x0][0xc] ;
        /*00b0*/                   IMAD.MOV.U32 R8, RZ, RZ, RZ ;
        /*00c0*/                   LDC.64 R6, c[0x0][0x210] ;
.L_x_0:
        /*00d0*/                   IMAD.WIDE R4, R2, 0x4, R6 ;
        /*00e0*/                   LDG.E R4, desc[UR6][R4.64] ;
        /*00f0*/                   IMAD R9, R2, 0x7, RZ ;
        /*0100*/                   IMAD R2, R11, 0x100, R2 ;
        /*0110*/                   ISETP.GE.AND P0, PT, R2, UR8, PT ;
        /*0120*/                   LOP3.LUT R9, R4, R9, RZ, 0x3c, !PT ;
        /*0130*/                   IADD3 R8, R9, R8, RZ ;
        /*0140*/              @!P0 BRA `(.L_x_0) ;
.L_x_1:
        /*0150*/                   BSYNC B0 ;
        /*0160*/                   S2UR UR5, SR_CgaCtaId ;
        /*0170*/                   UMOV UR4, 0x400 ;
        /*0180*/                   ISETP.GT.AND P0, PT, R3.reuse, 0x7f, PT ;
        /*0190*/                   ISETP.GT.AND P1, PT, R3, 0x3f, PT ;
        /*01a0*/                   ULEA UR4, UR5, UR4, 0x18 ;
        /*01b0*/                   LEA R5, R3, UR4, 0x2 ;
        /*01c0*/                   STS [R5], R8 ;
        /*01d0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*01e0*/              @!P0 LDS R2, [R5] ;
        /*01f0*/              @!P0 LDS R7, [R5+0x200] ;
        /*0200*/              @!P0 IMAD.IADD R2, R2, 0x1, R7 ;
        /*0210*/              @!P0 STS [R5], R2 ;
        /*0220*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0230*/                   ISETP.GT.AND P0, PT, R3, 0x1f, PT ;
        /*0240*/              @!P1 LDS R4, [R5] ;
        /*0250*/              @!P1 LDS R7, [R5+0x100] ;
        /*0260*/              @!P1 IMAD.IADD R4, R4, 0x1, R7 ;
        /*0270*/              @!P1 STS [R5], R4 ;
        /*0280*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0290*/                   ISETP.GT.AND P1, PT, R3, 0xf, PT ;
        /*02a0*/              @!P0 LDS R6, [R5] ;
        /*02b0*/              @!P0 LDS R7, [R5+0x80] ;
        /*02c0*/              @!P0 IMAD.IADD R6, R6, 0x1, R7 ;
        /*02d0*/              @!P0 STS [R5], R6 ;
        /*02e0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*02f0*/                   ISETP.GT.AND P0, PT, R3, 0x7, PT ;
        /*0300*/              @!P1 LDS R2, [R5] ;
        /*0310*/              @!P1 LDS R7, [R5+0x40] ;
        /*0320*/              @!P1 IADD3 R2, R2, R7, RZ ;
        /*0330*/              @!P1 STS [R5], R2 ;
        /*0340*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0350*/                   ISETP.GT.AND P1, PT, R3, 0x3, PT ;
        /*0360*/              @!P0 LDS R4, [R5] ;
        /*0370*/              @!P0 LDS R7, [R5+0x20] ;
        /*0380*/              @!P0 IMAD.IADD R4, R4, 0x1, R7 ;
        /*0390*/              @!P0 STS [R5], R4 ;
        /*03a0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*03b0*/                   ISETP.GT.AND P0, PT, R3, 0x1, PT ;
        /*03c0*/              @!P1 LDS R6, [R5] ;
        /*03d0*/              @!P1 LDS R7, [R5+0x10] ;
        /*03e0*/              @!P1 IMAD.IADD R6, R6, 0x1, R7 ;
        /*03f0*/              @!P1 STS [R5], R6 ;
        /*0400*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0410*/                   ISETP.GT.AND P1, PT, R3, RZ, PT ;
        /*0420*/              @!P0 LDS R2, [R5] ;
        /*0430*/              @!P0 LDS R7, [R5+0x8] ;
        /*0440*/              @!P0 IADD3 R2, R2, R7, RZ ;
        /*0450*/              @!P0 STS [R5], R2 ;
        /*0460*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0470*/                   ISETP.NE.AND P0, PT, R3, RZ, PT ;
        /*0480*/              @!P1 LDS R4, [R5] ;
        /*0490*/              @!P1 LDS R7, [R5+0x4] ;
        /*04a0*/              @!P1 IMAD.IADD R4, R4, 0x1, R7 ;
        /*04b0*/              @!P1 STS [R5], R4 ;
        /*04c0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*04d0*/               @P0 EXIT ;
        /*04e0*/                   LDS R5, [UR4] ;
        /*04f0*/                   LDC.64 R2, c[0x0][0x218] ;
        /*0500*/                   IMAD.WIDE.U32 R2, R0, 0x4, R2 ;
        /*0510*/                   STG.E desc[UR6][R2.64], R5 ;
        /*0520*/                   EXIT ;
.L_x_2:
        /*0530*/                   BRA `(.L_x_2) ;
)";

// __shared__ float ta[16][16], tb[16][16]; row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
// for each tile k0: ta[ty][tx] = a[row * n + k0 + tx], tb[ty][tx] = b[(k0 + ty) * n + col],
// __syncthreads(), acc += ta[ty][k] * tb[k][tx] for k < 16, __syncthreads(); c[row * n + col] =
// acc.   (int n, const float* a, const float* b, float* c)
constexpr char kSgemm[] = R"(
.text._Z5sgemmiPKfS0_Pf:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R5, SR_CTAID.Y ;
        /*0020*/                   ULDC UR4, c[0x0][0x210] ;
        /*0030*/                   ULDC.64 UR8, c[0x0][0x208] ;
        /*0040*/                   MOV R12, UR4 ;
        /*0050*/                   S2R R2, SR_TID.Y ;
        /*0060*/                   IMAD.MOV.U32 R3, RZ, RZ, RZ ;
        /*0070*/                   ISETP.GE.AND P0, PT, R12, 0x1, PT ;
        /*0080*/                   S2R R4, SR_CTAID.X ;
        /*0090*/                   S2R R7, SR_TID.X ;
        /*00a0*/                   LEA R0, R5, R2, 0x4 ;
        /*00b0*/                   IMAD R5, R4, 0x10, R7 ;
        /*00c0*/              @!P0 BRA `(.L_x_2) ;
        /*00d0*/                   S2UR UR6, SR_CgaCtaId ;
        /*00e0*/                   UMOV UR4, 0x400 ;
        /*00f0*/                   HFMA2.MMA R3, -RZ, RZ, 0, 0 ;
        /*0100*/                   UIADD3 UR5, UR4, 0x400, URZ ;
        /*0110*/                   IMAD R4, R0, R12, R7 ;
        /*0120*/                   ULEA UR5, UR6, UR5, 0x18 ;
        /*0130*/                   ULEA UR4, UR6, UR4, 0x18 ;
        /*0140*/                   LEA R11, R2.reuse, UR5, 0x6 ;
        /*0150*/                   LEA R13, R2, UR4, 0x6 ;
        /*0160*/                   UMOV UR4, URZ ;
        /*0170*/                   LEA R14, R7.reuse, UR5, 0x2 ;
        /*0180*/                   IMAD R11, R7.reuse, 0x4, R11 ;
        /*0190*/                   LEA R10, R7, R13, 0x2 ;
        /*01a0*/                   IADD3 R13, R13, 0x8, RZ ;
        /*01b0*/                   VIADD R14, R14, 0x80 ;
.L_x_0:
        /*01c0*/                   LDC R12, c[0x0][0x210] ;
        /*01d0*/                   IADD3 R16, R2, UR4, RZ ;
        /*01e0*/                   IADD3 R15, R4, UR4, RZ ;
        /*01f0*/                   LDC.64 R8, c[0x0][0x218] ;
        /*0200*/                   LDC.64 R6, c[0x0][0x220] ;
        /*0210*/                   IMAD R17, R16, R12, R5 ;
        /*0220*/                   IMAD.WIDE R8, R15, 0x4, R8 ;
        /*0230*/                   LDG.E R9, desc[UR8][R8.64] ;
        /*0240*/                   IMAD.WIDE R6, R17, 0x4, R6 ;
        /*0250*/                   LDG.E R6, desc[UR8][R6.64] ;
        /*0260*/                   UIADD3 UR4, UR4, 0x10, URZ ;
        /*0270*/                   IMAD.MOV.U32 R15, RZ, RZ, 0x80 ;
        /*0280*/                   MOV R16, R13 ;
        /*0290*/                   MOV R17, R14 ;
        /*02a0*/                   ISETP.LE.AND P1, PT, R12, UR4, PT ;
        /*02b0*/                   STS [R10], R9 ;
        /*02c0*/                   STS [R11], R6 ;
        /*02d0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
.L_x_1:
        /*02e0*/                   LDS R18, [R17+-0x80] ;
        /*02f0*/                   VIADD R15, R15, 0x100 ;
        /*0300*/                   LDS.64 R6, [R16+-0x8] ;
        /*0310*/                   ISETP.NE.AND P0, PT, R15, 0x480, PT ;
        /*0320*/                   LDS R19, [R17+-0x40] ;
        /*0330*/                   LDS R20, [R17] ;
        /*0340*/                   LDS.64 R8, [R16] ;
        /*0350*/                   LDS R21, [R17+0x40] ;
        /*0360*/                   IADD3 R16, R16, 0x10, RZ ;
        /*0370*/                   IADD3 R17, R17, 0x100, RZ ;
        /*0380*/                   FFMA R6, R18, R6, R3 ;
        /*0390*/                   FFMA R7, R19, R7, R6 ;
        /*03a0*/                   FFMA R8, R20, R8, R7 ;
        /*03b0*/                   FFMA R3, R21, R9, R8 ;
        /*03c0*/               @P0 BRA `(.L_x_1) ;
        /*03d0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*03e0*/              @!P1 BRA `(.L_x_0) ;
.L_x_2:
        /*03f0*/                   LDC.64 R6, c[0x0][0x228] ;
        /*0400*/                   IMAD R5, R0, R12, R5 ;
        /*0410*/                   IMAD.WIDE R4, R5, 0x4, R6 ;
        /*0420*/                   STG.E desc[UR8][R4.64], R3 ;
        /*0430*/                   EXIT ;
.L_x_3:
        /*0440*/                   BRA `(.L_x_3) ;
)";

// Host buffers at made-up device addresses: every byte known, every buffer allocated.
class Buffers : public KnownMemory {
 public:
  // Places `bytes` at the next free address; returns it.
  uint64_t Add(const void* bytes, size_t size) {
    const uint64_t address = next_;
    next_ += (size + 0xffff) & ~uint64_t{0xffff};
    buffers_.push_back({address, std::vector<uint8_t>(static_cast<const uint8_t*>(bytes),
                                                      static_cast<const uint8_t*>(bytes) + size)});
    return address;
  }
  bool Read(uint64_t address, uint32_t size, void* out) const override {
    const Buffer* buffer = Holding(address, size);
    if (buffer == nullptr) return false;
    std::memcpy(out, buffer->bytes.data() + (address - buffer->address), size);
    return true;
  }
  bool Allocated(uint64_t address, uint64_t size) const override { return Holding(address, size) != nullptr; }

 private:
  struct Buffer {
    uint64_t address;
    std::vector<uint8_t> bytes;
  };
  const Buffer* Holding(uint64_t address, uint64_t size) const {
    for (const Buffer& buffer : buffers_)
      if (address >= buffer.address && address - buffer.address + size <= buffer.bytes.size()) return &buffer;
    return nullptr;
  }
  std::vector<Buffer> buffers_;
  uint64_t next_ = 0x7f0000000000;
};

template <typename T>
void AddParam(LaunchToEmulate& launch, size_t offset, T value) {
  if (launch.param_bytes.size() < offset + sizeof value) launch.param_bytes.resize(offset + sizeof value);
  std::memcpy(launch.param_bytes.data() + offset, &value, sizeof value);
}

// The bytes the launch stored at `address`, `count` words of T; empty when they are not one run there.
template <typename T>
std::vector<T> Stored(const ComputedOutputs& outputs, uint64_t address, size_t count) {
  const auto run = outputs.written.find(address);
  if (run == outputs.written.end() || run->second.size() != count * sizeof(T)) return {};
  std::vector<T> words(count);
  std::memcpy(words.data(), run->second.data(), run->second.size());
  return words;
}

// Runs the output pass of `launch` until the benchmark has its time; `expected` is what it stores at
// `out`, word for word.
template <typename T>
void RunPass(benchmark::State& state, const Module& module, const LaunchToEmulate& launch, uint64_t out,
             const std::vector<T>& expected) {
  uint64_t instructions = 0;
  for (auto _ : state) {
    const ComputedOutputs outputs = ComputeOutputs(module, launch);
    if (outputs.not_computed) {
      state.SkipWithError(("not computed: " + outputs.not_computed->Describe()).c_str());
      return;
    }
    if (Stored<T>(outputs, out, expected.size()) != expected) {
      state.SkipWithError("the pass stored other bytes than the host computes");
      return;
    }
    instructions = outputs.warp_instructions;
  }
  state.counters["warp_instructions"] = static_cast<double>(instructions);
  state.counters["warp_instructions_per_second"] =
      benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Saxpy(benchmark::State& state) {
  static const Module module = Module::FromListings(kSaxpy, "");
  constexpr int kN = 1 << 16;
  constexpr float kA = 2.5f;
  std::vector<float> x(kN), y(kN), expected(kN);
  for (int i = 0; i < kN; ++i) {
    x[i] = static_cast<float>(i) * 0.37f;
    y[i] = 1.0f - static_cast<float>(i) * 0.11f;
    expected[i] = std::fma(kA, x[i], y[i]);
  }
  auto memory = std::make_shared<Buffers>();
  LaunchToEmulate launch;
  launch.mangled = "_Z5saxpyifPKfPf";
  launch.grid = Dim3{32, 1, 1};
  launch.block = Dim3{256, 1, 1};
  AddParam(launch, 0, int32_t{kN});
  AddParam(launch, 4, kA);
  AddParam(launch, 8, memory->Add(x.data(), x.size() * 4));
  const uint64_t out = memory->Add(y.data(), y.size() * 4);
  AddParam(launch, 16, out);
  launch.memory = memory;
  RunPass(state, module, launch, out, expected);
}

void BM_Reduce(benchmark::State& state) {
  static const Module module = Module::FromListings(kReduce, "");
  constexpr uint32_t kN = 1 << 16, kBlocks = 16, kThreads = 256;
  std::vector<uint32_t> in(kN), expected(kBlocks, 0);
  for (uint32_t i = 0; i < kN; ++i) {
    in[i] = i * 2654435761u;
    expected[i / kThreads % kBlocks] += in[i] ^ (i * 7);
  }
  std::vector<uint32_t> sums(kBlocks, 0);
  auto memory = std::make_shared<Buffers>();
  LaunchToEmulate launch;
  launch.mangled = "_Z6reducePKiPii";
  launch.grid = Dim3{kBlocks, 1, 1};
  launch.block = Dim3{kThreads, 1, 1};
  launch.dynamic_shared_bytes = kThreads * 4;  // the kernel's static s[256] (no ELF listing here)
  AddParam(launch, 0, memory->Add(in.data(), in.size() * 4));
  const uint64_t out = memory->Add(sums.data(), sums.size() * 4);
  AddParam(launch, 8, out);
  AddParam(launch, 16, int32_t{kN});
  launch.memory = memory;
  RunPass(state, module, launch, out, expected);
}

void BM_Sgemm(benchmark::State& state) {
  static const Module module = Module::FromListings(kSgemm, "");
  constexpr int kN = 64;
  // Small integers: every sum is exact, so the host's order of additions gives the same floats.
  std::vector<float> a(kN * kN), b(kN * kN), c(kN * kN, 0.0f), expected(kN * kN, 0.0f);
  for (int i = 0; i < kN * kN; ++i) {
    a[i] = static_cast<float>(i % 7 - 3);
    b[i] = static_cast<float>(i % 5 - 2);
  }
  for (int row = 0; row < kN; ++row)
    for (int col = 0; col < kN; ++col)
      for (int k = 0; k < kN; ++k) expected[row * kN + col] += a[row * kN + k] * b[k * kN + col];
  auto memory = std::make_shared<Buffers>();
  LaunchToEmulate launch;
  launch.mangled = "_Z5sgemmiPKfS0_Pf";
  launch.grid = Dim3{kN / 16, kN / 16, 1};
  launch.block = Dim3{16, 16, 1};
  launch.dynamic_shared_bytes = 2 * 16 * 16 * 4;  // the kernel's static ta and tb
  AddParam(launch, 0, int32_t{kN});
  AddParam(launch, 8, memory->Add(a.data(), a.size() * 4));
  AddParam(launch, 16, memory->Add(b.data(), b.size() * 4));
  const uint64_t out = memory->Add(c.data(), c.size() * 4);
  AddParam(launch, 24, out);
  launch.memory = memory;
  RunPass(state, module, launch, out, expected);
}

BENCHMARK(BM_Saxpy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reduce)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Sgemm)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
