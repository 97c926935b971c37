// Every fp32 input of the GPU's special function unit (MUFU), all 2^32 of them, against the CPU:
//
//   bankcheck_mufu_exhaustive OUT_DIR
//
// 1. The tables of the MUFU model (framework/emulate/internal/mufu_model.h): the GPU's outputs of
//    MUFU.RCP over [1, 2) and of MUFU.RSQ and MUFU.SQRT over [1, 4), written to OUT_DIR/mufu_<f>.i8,
//    one signed byte per entry, the output's difference from MufuReference in units in the last
//    place (with a histogram of the differences). The emulator's copies are these files as
//    `gzip -9n` compresses them, framework/emulate/data/mufu_<f>.i8.gz, with their CRC-32s (of the
//    .i8 bytes) pinned in framework/emulate/mufu_tables.cc.
// 2. The model with those tables against the GPU on all 2^32 inputs of each: "equal on
//    4,294,967,296 inputs", or the count that differ per input class with the first few.
// 3. MUFU.EX2, MUFU.LG2 and MUFU.TANH, which have no model: how far the GPU's outputs are from the
//    correctly rounded value (through double) over all 2^32 inputs, for whoever models them next.
// Every function is the single MUFU instruction its PTX compiles to (.ftz: no subnormal fix-up
// around it); ci/checks or a reader can confirm with cuobjdump -sass. Exit 0 when every model is
// equal everywhere, 1 when one differs, 2 on an error.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "internal/mufu_model.h"

namespace {

using bankcheck::emulate::internal::AsFloat;
using bankcheck::emulate::internal::Bits32;
using bankcheck::emulate::internal::MufuFunction;
using bankcheck::emulate::internal::MufuModel;
using bankcheck::emulate::internal::MufuReference;
using bankcheck::emulate::internal::MufuTableInput;
using bankcheck::emulate::internal::MufuTableSize;

enum Op { kRcp, kRsq, kSqrt, kEx2, kLg2, kTanh };

template <Op kOp>
__global__ void Evaluate(uint32_t first, uint32_t count, uint32_t* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const float x = __uint_as_float(first + i);
  float y;
  if constexpr (kOp == kRcp) asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  if constexpr (kOp == kRsq) asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  if constexpr (kOp == kSqrt) asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  if constexpr (kOp == kEx2) asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  if constexpr (kOp == kLg2) asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  if constexpr (kOp == kTanh) asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  out[i] = __float_as_uint(y);
}

struct Function {
  Op op;
  const char* sass;
  const char* ptx;
  void (*kernel)(uint32_t first, uint32_t count, uint32_t* out);  // Evaluate<op>
};

constexpr Function kFunctions[] = {
    {kRcp, "MUFU.RCP", "rcp.approx.ftz.f32", Evaluate<kRcp>},
    {kRsq, "MUFU.RSQ", "rsqrt.approx.ftz.f32", Evaluate<kRsq>},
    {kSqrt, "MUFU.SQRT", "sqrt.approx.ftz.f32", Evaluate<kSqrt>},
    {kEx2, "MUFU.EX2", "ex2.approx.ftz.f32", Evaluate<kEx2>},
    {kLg2, "MUFU.LG2", "lg2.approx.ftz.f32", Evaluate<kLg2>},
    {kTanh, "MUFU.TANH", "tanh.approx.f32", Evaluate<kTanh>},
};
static_assert(kFunctions[kRcp].op == kRcp && kFunctions[kTanh].op == kTanh, "kFunctions[op] is op's row");

void Check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "mufu_exhaustive: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(2);
}

// The GPU's outputs of op for inputs first .. first + count - 1 (count <= the buffers' size).
void RunOnGpu(Op op, uint32_t first, uint32_t count, uint32_t* device, uint32_t* host) {
  const uint32_t threads = 256, blocks = (count + threads - 1) / threads;
  kFunctions[op].kernel<<<blocks, threads>>>(first, count, device);
  Check(cudaGetLastError(), "launch");
  Check(cudaMemcpy(host, device, size_t{count} * 4, cudaMemcpyDeviceToHost), "copy back");
}

MufuFunction ModelOf(Op op) {
  return op == kRcp ? MufuFunction::kRcp : op == kRsq ? MufuFunction::kRsq : MufuFunction::kSqrt;
}

const char* ClassOf(uint32_t x) {
  const uint32_t exponent = (x >> 23) & 0xffu, significand = x & 0x7fffffu;
  const bool negative = x >> 31;
  if (exponent == 0) return significand == 0 ? "zero" : (negative ? "negative subnormal" : "subnormal");
  if (exponent == 0xff) return significand != 0 ? "nan" : (negative ? "-inf" : "+inf");
  return negative ? "negative normal" : "normal";
}

// Mismatches of the model, by input class, with the first few of each.
struct Mismatches {
  std::mutex mutex;
  uint64_t total = 0;
  std::vector<std::pair<std::string, uint64_t>> counts;
  std::vector<std::string> examples;

  void Add(const char* cls, uint64_t n, const std::vector<std::string>& first) {
    std::lock_guard<std::mutex> lock(mutex);
    total += n;
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == cls; });
    if (it == counts.end())
      counts.emplace_back(cls, n);
    else
      it->second += n;
    for (const auto& e : first)
      if (examples.size() < 24) examples.push_back(e);
  }
};

// Distance of the GPU's outputs from the correctly rounded value, for the functions without a model.
struct Accuracy {
  std::mutex mutex;
  uint64_t equal = 0, within1 = 0, within2 = 0, farther = 0, nan_mismatch = 0;
  int64_t worst = 0;
  uint32_t worst_input = 0;
};

double Reference(Op op, double x) {
  switch (op) {
    case kEx2:
      return std::exp2(x);
    case kLg2:
      return std::log2(x);
    case kTanh:
      return std::tanh(x);
    default:
      return 0;
  }
}

// Signed distance in units in the last place between two finite floats' bits (monotonic order).
int64_t UlpDistance(uint32_t a, uint32_t b) {
  auto ordered = [](uint32_t v) -> int64_t {
    return (v >> 31) ? -static_cast<int64_t>(v & 0x7fffffffu) : static_cast<int64_t>(v);
  };
  return ordered(a) - ordered(b);
}

template <typename Body>
void Parallel(uint32_t count, Body body) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const uint64_t begin = uint64_t{count} * t / threads, end = uint64_t{count} * (t + 1) / threads;
      body(static_cast<uint32_t>(begin), static_cast<uint32_t>(end));
    });
  for (auto& th : pool) th.join();
}

void CompareModel(Op op, uint32_t first, uint32_t count, const uint32_t* gpu, const uint32_t* table,
                  Mismatches& out) {
  const MufuFunction f = ModelOf(op);
  Parallel(count, [&](uint32_t begin, uint32_t end) {
    std::vector<std::pair<const char*, uint64_t>> local;
    std::vector<std::string> first_examples;
    for (uint32_t i = begin; i < end; ++i) {
      const uint32_t x = first + i, model = MufuModel(f, x, [table](uint32_t e) { return table[e]; });
      if (model == gpu[i]) continue;
      const char* cls = ClassOf(x);
      auto it = std::find_if(local.begin(), local.end(), [&](const auto& c) { return c.first == cls; });
      if (it == local.end())
        local.emplace_back(cls, 1);
      else
        ++it->second;
      if (first_examples.size() < 4) {
        char line[160];
        std::snprintf(line, sizeof line, "%s x=0x%08x (%g): gpu 0x%08x (%g), model 0x%08x (%g)", cls, x,
                      AsFloat(x), gpu[i], AsFloat(gpu[i]), model, AsFloat(model));
        first_examples.emplace_back(line);
      }
    }
    for (const auto& [cls, n] : local) {
      out.Add(cls, n, first_examples);  // the thread's first examples go with its first class
      first_examples.clear();
    }
  });
}

void MeasureAccuracy(Op op, uint32_t first, uint32_t count, const uint32_t* gpu, Accuracy& out) {
  Parallel(count, [&](uint32_t begin, uint32_t end) {
    uint64_t equal = 0, within1 = 0, within2 = 0, farther = 0, nan_mismatch = 0;
    int64_t worst = 0;
    uint32_t worst_input = 0;
    for (uint32_t i = begin; i < end; ++i) {
      const uint32_t x = first + i;
      const uint32_t ref = Bits32(static_cast<float>(Reference(op, AsFloat(x))));
      const bool gpu_nan = std::isnan(AsFloat(gpu[i])), ref_nan = std::isnan(AsFloat(ref));
      if (gpu_nan || ref_nan) {
        if (gpu_nan != ref_nan)
          ++nan_mismatch;
        else
          ++equal;
        continue;
      }
      if (gpu[i] == ref) {
        ++equal;
        continue;
      }
      const int64_t d = UlpDistance(gpu[i], ref), a = d < 0 ? -d : d;
      if (a <= 1)
        ++within1;
      else if (a <= 2)
        ++within2;
      else
        ++farther;
      if (a > worst) worst = a, worst_input = x;
    }
    std::lock_guard<std::mutex> lock(out.mutex);
    out.equal += equal, out.within1 += within1, out.within2 += within2, out.farther += farther;
    out.nan_mismatch += nan_mismatch;
    if (worst > out.worst) out.worst = worst, out.worst_input = worst_input;
  });
}

// The table of a modelled function from the GPU, written as differences from MufuReference.
std::vector<uint32_t> MeasureTable(Op op, uint32_t* device, uint32_t* host, const std::string& dir) {
  const MufuFunction f = ModelOf(op);
  const uint32_t size = MufuTableSize(f);
  RunOnGpu(op, MufuTableInput(0), size, device, host);
  std::vector<uint32_t> table(host, host + size);
  std::vector<signed char> diffs(size);
  std::vector<uint64_t> histogram(256);
  for (uint32_t i = 0; i < size; ++i) {
    const int64_t d = static_cast<int64_t>(table[i]) - MufuReference(f, MufuTableInput(i));
    if (d < -127 || d > 127) {
      std::fprintf(stderr, "mufu_exhaustive: table entry %u of %s is %" PRId64 " ulp off\n", i,
                   kFunctions[op].sass, d);
      std::exit(2);
    }
    diffs[i] = static_cast<signed char>(d);
    ++histogram[static_cast<uint8_t>(d + 128)];
  }
  const std::string path = dir + "/mufu_" + (op == kRcp ? "rcp" : op == kRsq ? "rsq" : "sqrt") + ".i8";
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file || std::fwrite(diffs.data(), 1, size, file) != size || std::fclose(file) != 0) {
    std::fprintf(stderr, "mufu_exhaustive: cannot write %s\n", path.c_str());
    std::exit(2);
  }
  std::printf("%s table: %u entries in %s; differences from the correctly rounded value (ulp: entries):",
              kFunctions[op].sass, size, path.c_str());
  for (int d = -128; d < 128; ++d)
    if (histogram[static_cast<size_t>(d + 128)])
      std::printf(" %d: %" PRIu64, d, histogram[static_cast<size_t>(d + 128)]);
  std::printf("\n");
  return table;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  cudaDeviceProp prop{};
  Check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  Check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  Check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  std::printf("device %s (sm_%d%d), driver %d, runtime %d\n", prop.name, prop.major, prop.minor, driver,
              runtime);

  constexpr uint32_t kChunk = 1u << 28;
  uint32_t *device = nullptr, *host = nullptr;
  Check(cudaMalloc(&device, size_t{kChunk} * 4), "cudaMalloc");
  Check(cudaMallocHost(&host, size_t{kChunk} * 4), "cudaMallocHost");
  bool all_equal = true;
  for (const Function& fn : kFunctions) {
    const bool modelled = fn.op == kRcp || fn.op == kRsq || fn.op == kSqrt;
    std::vector<uint32_t> table;
    if (modelled) table = MeasureTable(fn.op, device, host, dir);
    Mismatches mismatches;
    Accuracy accuracy;
    for (uint64_t first = 0; first < (uint64_t{1} << 32); first += kChunk) {
      RunOnGpu(fn.op, static_cast<uint32_t>(first), kChunk, device, host);
      if (modelled)
        CompareModel(fn.op, static_cast<uint32_t>(first), kChunk, host, table.data(), mismatches);
      else
        MeasureAccuracy(fn.op, static_cast<uint32_t>(first), kChunk, host, accuracy);
    }
    if (modelled && mismatches.total == 0) {
      std::printf("%s (%s): model equal on 4294967296 inputs\n", fn.sass, fn.ptx);
    } else if (modelled) {
      all_equal = false;
      std::printf("%s (%s): model differs on %" PRIu64 " of 4294967296 inputs:", fn.sass, fn.ptx,
                  mismatches.total);
      for (const auto& [cls, n] : mismatches.counts) std::printf(" %s %" PRIu64 ";", cls.c_str(), n);
      std::printf("\n");
      for (const auto& e : mismatches.examples) std::printf("  %s\n", e.c_str());
    } else {
      std::printf("%s (%s): no model; of 4294967296 inputs, equal to the correctly rounded value %" PRIu64
                  ", 1 ulp off %" PRIu64 ", 2 ulp %" PRIu64 ", farther %" PRIu64 " (worst %" PRId64
                  " ulp at 0x%08x), NaN where the reference is not or back %" PRIu64 "\n",
                  fn.sass, fn.ptx, accuracy.equal, accuracy.within1, accuracy.within2, accuracy.farther,
                  accuracy.worst, accuracy.worst_input, accuracy.nan_mismatch);
    }
    std::fflush(stdout);
  }
  return all_equal ? 0 : 1;
}
