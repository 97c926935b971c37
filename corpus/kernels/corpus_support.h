#pragma once
// What every corpus case does (corpus/CMakeLists.txt): copy its input to the device, launch the
// library's primitive in one measured launch, read the output back and compare it with a plain CPU
// reference (ExpectVectorsEqual, kernels/kernel_support.h: on the GPU always; emulated where the
// output was computed, docs/emulate.md). Host code only; the kernels are in each topic's file.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::corpus {

using kernels::ExpectVectorsEqual;

// Registers case `name` ("<topic>/<variant>"), whose run is `run`. The cases state no annotation:
// the code is the library's, and they are checked against their measured baselines.
inline void AddCase(std::string name, std::string description, std::function<void(CaseContext&)> run) {
  KernelCase c;
  c.name = std::move(name);
  c.description = std::move(description);
  c.run = std::move(run);
  RegisterKernelCase(std::move(c));
}

// Launches `launch(in, out)` once, measured, on a copy of `in` and an output of expected.size()
// elements poisoned with 0xFF bytes, and checks the output against `expected`.
template <typename In, typename Out, typename Launch>
void CheckLaunch(CaseContext& ctx, const std::vector<In>& in, const std::vector<Out>& expected,
                 const std::string& what, Launch&& launch) {
  DeviceBuffer<In> d_in(in);
  DeviceBuffer<Out> d_out(expected.size());
  d_out.Fill(0xFF);
  ctx.Measure([&] { launch(d_in.get(), d_out.get()); });
  BANKCHECK_CUDA_CHECK(cudaGetLastError());
  ExpectVectorsEqual(d_out.ToHost(), expected, what);
}

// `n` integer-valued floats in [lo, hi]: small enough that every partial sum of a case is exact in
// float whatever the order of the additions, so the CPU reference compares with ==.
inline std::vector<float> SmallIntegerFloats(size_t n, uint32_t seed, int32_t lo = -1000, int32_t hi = 1000) {
  return kernels::RandomIntegerFloats(n, seed, lo, hi);
}

}  // namespace bankcheck::corpus
