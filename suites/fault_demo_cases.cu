// Cases for the tests of failing cases (suites/fault_isolation_test.cc, suites/suite_runner_test.cc),
// in a program of their own so that the kernel suite never runs them: a conflict-free case, a case
// whose kernel writes through a bad address while measured (a sticky fault: the process's CUDA
// context is lost), another conflict-free case that must still run and pass, in a fresh process,
// and a case whose 2-way load its annotation does not admit (its failure names the load's line).
// Its tests are named as those of a suite whose TEST_PREFIX is "fault_suite".
#include <gtest/gtest.h>

#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "bankcheck/suite/suite.h"

namespace bankcheck::suites {
namespace {

__global__ void CopyThroughShared(const int* in, int* out) {
  __shared__ int buf[32];
  buf[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = buf[31 - threadIdx.x];
}

__global__ void WriteThroughBadAddress(int* out) {
  // Far beyond any allocation: an illegal address, which CUDA cannot recover the context from.
  out[threadIdx.x + (size_t{1} << 40)] = 1;
}

// Lanes read words 2 apart: two lanes per bank, 2-way.
__global__ void ReadAtStride2(const int* in, int* out) {
  __shared__ int buf[64];
  buf[threadIdx.x] = in[threadIdx.x];
  buf[threadIdx.x + 32] = in[threadIdx.x + 32];
  __syncthreads();
  out[threadIdx.x] = buf[threadIdx.x * 2];
}

void RegisterCopyCase(const char* name) {
  KernelCase c;
  c.name = name;
  c.description = "one warp copies 32 ints through shared memory, reversed";
  c.expect[MemoryKind::kSharedLoad].instructions = 1;
  c.expect[MemoryKind::kSharedStore].instructions = 1;
  c.run = [](CaseContext& ctx) {
    std::vector<int> in(32);
    for (int i = 0; i < 32; ++i) in[static_cast<size_t>(i)] = i * 7;
    DeviceBuffer<int> d_in(in), d_out(32);
    ctx.Measure([&] { CopyThroughShared<<<1, 32>>>(d_in.get(), d_out.get()); });
    const std::vector<int> out = d_out.ToHost();
    for (int i = 0; i < 32; ++i) EXPECT_EQ(out[static_cast<size_t>(i)], (31 - i) * 7) << i;
  };
  RegisterKernelCase(std::move(c));
}

[[maybe_unused]] const bool kSettings = [] {
  SuiteSettings settings;
  settings.test_prefix = "fault_suite";
  return SetSuiteSettings(settings);
}();

BANKCHECK_REGISTER_CASES([] {
  RegisterCopyCase("fault_demo/a_before");
  KernelCase fault;
  fault.name = "fault_demo/b_illegal_address";
  fault.description = "a kernel that writes through an illegal address while measured";
  fault.run = [](CaseContext& ctx) {
    DeviceBuffer<int> d_out(32);
    ctx.Measure([&] { WriteThroughBadAddress<<<1, 32>>>(d_out.get()); });
  };
  RegisterKernelCase(std::move(fault));
  RegisterCopyCase("fault_demo/c_after");
  KernelCase conflicted;
  conflicted.name = "fault_demo/d_unannotated_conflict";
  conflicted.description = "a 2-way load in a case annotated conflict-free";
  conflicted.expect[MemoryKind::kSharedLoad].ways = 1;  // stated: without it the case would be baseline-only
  conflicted.run = [](CaseContext& ctx) {
    const std::vector<int> in(64, 1);
    DeviceBuffer<int> d_in(in);
    DeviceBuffer<int> d_out(32);
    ctx.Measure([&] { ReadAtStride2<<<1, 32>>>(d_in.get(), d_out.get()); });
  };
  RegisterKernelCase(std::move(conflicted));
});

}  // namespace
}  // namespace bankcheck::suites
