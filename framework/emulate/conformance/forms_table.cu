// The forms' table (forms.h) over the kernels of forms.cu, listed in forms.def.

#include <cuda_runtime_api.h>

#include "emulate/conformance/forms.h"

#define F(name, opcode, inputs, outputs) \
  extern "C" __global__ void form_##name(const uint32_t* __restrict__ in, uint32_t* __restrict__ out);
#define P(name, opcode, inputs, outputs, n) \
  extern "C" __global__ void form_##name(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, int n);
#include "emulate/conformance/forms.def"
#undef F
#undef P

namespace bankcheck::conformance {
namespace {

using Kernel = void (*)(const uint32_t*, uint32_t*);
using KernelWithN = void (*)(const uint32_t*, uint32_t*, int);
// The n a kernel with a parameter is launched with: form_isetp_le's loop runs k = -64, -32, ..., 96.
constexpr int kLoopEnd = 100;
struct Entry {
  Form form;
  Kernel kernel;
  KernelWithN kernel_with_n;
  int n;
};
const Entry kEntries[] = {
#define F(name, opcode, inputs, outputs) \
  {{"form_" #name, opcode, Inputs::inputs, outputs}, form_##name, nullptr, 0},
#define P(name, opcode, inputs, outputs, n) \
  {{"form_" #name, opcode, Inputs::inputs, outputs}, nullptr, form_##name, n},
#include "emulate/conformance/forms.def"
};
#undef F
#undef P
constexpr size_t kCount = sizeof kEntries / sizeof kEntries[0];
Form kFormsTable[kCount];

}  // namespace

const Form* Forms(size_t* count) {
  for (size_t i = 0; i < kCount; ++i) kFormsTable[i] = kEntries[i].form;
  *count = kCount;
  return kFormsTable;
}

int LaunchForm(size_t index, const uint32_t* in, uint32_t* out, uint32_t threads) {
  const Entry& entry = kEntries[index];
  if (entry.kernel != nullptr)
    entry.kernel<<<1, threads>>>(in, out);
  else
    entry.kernel_with_n<<<1, threads>>>(in, out, entry.n);
  return static_cast<int>(cudaGetLastError());
}

const void* FormStub(size_t index) {
  const Entry& entry = kEntries[index];
  return entry.kernel != nullptr ? reinterpret_cast<const void*>(entry.kernel)
                                 : reinterpret_cast<const void*>(entry.kernel_with_n);
}

}  // namespace bankcheck::conformance
