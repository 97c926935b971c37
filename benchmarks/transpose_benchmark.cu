// What the 32-way conflict of a naive shared-memory transpose costs: a float transpose of 4096^2 and
// 8192^2 matrices with 32x8 thread blocks through an unpadded tile[32][32] (the column read is
// 32-way), a padded tile[32][33] and an XOR-swizzled tile (both conflict-free), against the
// device-to-device cudaMemcpy of the same bytes as the ceiling.
//
// Counters: GB/s is bytes read + written (2 * n * n * 4) per second; pct_of_copy is that as a
// percent of the copy's bandwidth, measured once when the program starts (the copy's own benchmark
// is reported too, as transpose/copy/<n>x<n>).

#include <memory>
#include <string>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "demo_kernels.cuh"
#include "gpu_benchmark.h"

namespace bankcheck::bench {
namespace {

template <TileLayout kLayout>
GpuCase TransposeCase(const char* variant, const std::shared_ptr<DeviceBuffer<float>>& in,
                      const std::shared_ptr<DeviceBuffer<float>>& out, int n, double copy_gbps) {
  GpuCase c;
  c.name = std::string("transpose/") + variant + "/" + std::to_string(n) + "x" + std::to_string(n);
  c.launch = [in, out, n] { LaunchTranspose<kLayout>(in->get(), out->get(), n, n); };
  c.bytes_per_launch = 2.0 * static_cast<double>(in->bytes());
  c.reference_gbps = copy_gbps;
  c.counters = {{"n", static_cast<double>(n)}};
  return c;
}

void AddSize(std::vector<GpuCase>& cases, int n) {
  const size_t elements = static_cast<size_t>(n) * n;
  auto in = std::make_shared<DeviceBuffer<float>>(PatternFloats(elements, static_cast<uint32_t>(n)));
  auto out = std::make_shared<DeviceBuffer<float>>(elements);
  out->Fill(0);

  GpuCase copy;
  copy.name = "transpose/copy/" + std::to_string(n) + "x" + std::to_string(n);
  copy.launch = [in, out] {
    BANKCHECK_CUDA_CHECK(cudaMemcpyAsync(out->get(), in->get(), in->bytes(), cudaMemcpyDeviceToDevice));
  };
  copy.measure_counters = false;
  copy.bytes_per_launch = 2.0 * static_cast<double>(in->bytes());
  // The ceiling, measured once here; the copy's benchmark below re-measures it.
  const double copy_gbps = copy.bytes_per_launch / (MedianLaunchMs(copy.launch, 5, 21) / 1e3) / 1e9;
  copy.reference_gbps = copy_gbps;
  copy.counters = {{"n", static_cast<double>(n)}};
  cases.push_back(copy);

  cases.push_back(TransposeCase<TileLayout::kUnpadded>("unpadded", in, out, n, copy_gbps));
  cases.push_back(TransposeCase<TileLayout::kPadded>("padded", in, out, n, copy_gbps));
  cases.push_back(TransposeCase<TileLayout::kSwizzled>("swizzled", in, out, n, copy_gbps));
}

std::vector<GpuCase> MakeCases() {
  std::vector<GpuCase> cases;
  AddSize(cases, 4096);
  AddSize(cases, 8192);
  return cases;
}

}  // namespace
}  // namespace bankcheck::bench

int main(int argc, char** argv) { return bankcheck::bench::Main(argc, argv, bankcheck::bench::MakeCases); }
