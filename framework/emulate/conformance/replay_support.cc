// The conformance replay's shared steps (replay_support.h).
#include "emulate/conformance/replay_support.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <utility>

#include "bankcheck/core/error.h"
#include "emulate/conformance/forms.h"
#include "emulate/internal/checked_forms.h"
#include "emulated_runtime/internal/launch_capture.h"

namespace bankcheck::conformance {

using emulate::runtime::TheCapture;

std::string Hex(uint32_t word) {
  char text[16];
  std::snprintf(text, sizeof text, "%08x", word);
  return text;
}

// The outputs of form `index` computed by the emulator on `in` (a launch of in.size() / kInputs
// threads); false with `why` when not computed.
bool Replay(size_t index, const std::vector<uint32_t>& in, std::vector<uint32_t>* out, std::string* why) {
  uint32_t *device_in = nullptr, *device_out = nullptr;
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&device_in), in.size() * 4), cudaSuccess);
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&device_out), out->size() * 4), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(device_in, in.data(), in.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemset(device_out, 0, out->size() * 4), cudaSuccess);
  TheCapture().BeginCase();
  EXPECT_EQ(LaunchForm(index, device_in, device_out, static_cast<uint32_t>(in.size() / kInputs)), 0);
  EXPECT_EQ(cudaMemcpy(out->data(), device_out, out->size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  *why = TheCapture().OutputNotComputed();
  EXPECT_EQ(cudaFree(device_in), cudaSuccess);
  EXPECT_EQ(cudaFree(device_out), cudaSuccess);
  return why->empty();
}

namespace {

// The SASS of the file that holds form `index`'s kernel (forms.cu or forms_mma.cu), read once.
const emulate::Module* ModuleOf(size_t index, std::string* problem) {
  static std::map<const void*, std::pair<std::unique_ptr<emulate::Module>, std::string>> modules;
  const emulate::runtime::RegisteredKernel* kernel = TheCapture().Find(FormStub(index));
  if (kernel == nullptr) {
    *problem = "the forms' kernels were not registered with the stand-in runtime";
    return nullptr;
  }
  auto [read, fresh] = modules.try_emplace(kernel->fatbin);
  if (fresh) {
    try {
      read->second.first = std::make_unique<emulate::Module>(emulate::Module::FromFatbin(kernel->fatbin));
    } catch (const Error& e) {
      read->second.second = e.what();
    }
  }
  *problem = read->second.second;
  return read->second.first.get();
}

}  // namespace

const emulate::Module* FormsModule(std::string* problem) { return ModuleOf(0, problem); }

bool HasForm(const std::string& name, const std::string& form) {
  std::string problem;
  const emulate::Module* module = ModuleOf(FormIndex(name), &problem);
  if (module == nullptr) return false;
  const auto kernel = module->data().kernels.find(name);
  if (kernel == module->data().kernels.end()) return false;
  for (const emulate::internal::Instruction& instruction : kernel->second.code)
    if (emulate::internal::FormOf(instruction.base, instruction.modifiers, instruction.info) == form)
      return true;
  return false;
}

size_t FormIndex(const std::string& name) {
  size_t count = 0;
  const Form* forms = Forms(&count);
  for (size_t i = 0; i < count; ++i)
    if (name == forms[i].name) return i;
  ADD_FAILURE() << "no form " << name;
  return 0;
}

}  // namespace bankcheck::conformance
