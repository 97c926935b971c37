// The emulator's C interface (bankcheck/emulate/emulate_c.h, docs/emulate.md "The emulator as a library"):
// a launch described through handles is run as the stand-in runtime runs one (launch_capture.cc):
// its outputs computed when its kernel may write global memory, its record taken from that run when
// computed, else from Emulate. The caller's buffers are the only memory it reads or writes.

#include <algorithm>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/emulate/emulate_c.h"
#include "bankcheck/emulate/emulator.h"
#include "core/baselines/line_keys.h"
#include "core/platform/file_io.h"
#include "core/records/demangle.h"
#include "core/records/record_json.h"
#include "emulate/internal/limits.h"

namespace {

using bankcheck::Error;
using bankcheck::ErrorKind;
namespace emulate = bankcheck::emulate;

thread_local std::string last_error;

// Runs `body`, turning what it throws into a status and the thread's last error.
template <typename Body>
int Guarded(Body&& body) {
  last_error.clear();
  try {
    body();
    return BANKCHECK_EMU_OK;
  } catch (const Error& error) {
    last_error = error.what();
    return error.kind() == ErrorKind::kBadInput ? BANKCHECK_EMU_BAD_INPUT : BANKCHECK_EMU_FAILED;
  } catch (const std::bad_alloc&) {
    last_error = "out of memory";
  } catch (const std::exception& error) {
    last_error = error.what();
  } catch (...) {
    last_error = "an unknown error";
  }
  return BANKCHECK_EMU_FAILED;
}

void Require(bool holds, const std::string& message) {
  if (!holds) throw Error(ErrorKind::kBadInput, message);
}

// A host buffer standing for global memory at [device, device + size).
struct Buffer {
  uint64_t device = 0;
  uint8_t* host = nullptr;
  uint64_t size = 0;
  bool known = true;
};

// The mapped buffers as the evaluator reads them: bytes outside every buffer are neither read nor
// allocated, so a kernel's access there is unknown or refused, never host memory.
class MappedMemory final : public emulate::KnownMemory {
 public:
  explicit MappedMemory(const std::map<uint64_t, Buffer>& buffers) : buffers_(buffers) {}
  bool Read(uint64_t address, uint32_t size, void* out) const override {
    const Buffer* buffer = Holding(address, size);
    if (buffer == nullptr || !buffer->known) return false;
    std::memcpy(out, buffer->host + (address - buffer->device), size);
    return true;
  }
  bool Allocated(uint64_t address, uint64_t size) const override { return Holding(address, size) != nullptr; }

 private:
  // The buffer that holds every byte of [address, address + size); nullptr when none does.
  const Buffer* Holding(uint64_t address, uint64_t size) const {
    auto next = buffers_.upper_bound(address);
    if (next == buffers_.begin()) return nullptr;
    const Buffer& buffer = std::prev(next)->second;
    const uint64_t at = address - buffer.device;
    return at < buffer.size && size <= buffer.size - at ? &buffer : nullptr;
  }
  const std::map<uint64_t, Buffer>& buffers_;
};

// The key of each source line named by line info (line_keys.h), read once per launch; nullptr for a
// file that cannot be read (its lines are known by their numbers).
class SourceKeys {
 public:
  const std::vector<bankcheck::SourceLineKey>* operator()(const std::string& file) {
    auto found = keys_.find(file);
    if (found == keys_.end()) {
      std::optional<std::vector<bankcheck::SourceLineKey>> keys;
      try {
        keys = bankcheck::SourceLineKeys(bankcheck::ReadTextFile(file, ""));
      } catch (const Error&) {
        // Not on this machine, or too large.
      }
      found = keys_.emplace(file, std::move(keys)).first;
    }
    return found->second ? &*found->second : nullptr;
  }

 private:
  std::map<std::string, std::optional<std::vector<bankcheck::SourceLineKey>>> keys_;
};

}  // namespace

struct bankcheck_emu_module {
  explicit bankcheck_emu_module(emulate::Module&& read) : module(std::move(read)), names(module.Kernels()) {}
  emulate::Module module;
  std::vector<std::string> names;

  const emulate::KernelInfo& Kernel(const char* kernel) const {
    Require(kernel != nullptr, "no kernel name (a null pointer)");
    const emulate::KernelInfo* info = module.Find(kernel);
    if (info == nullptr) {
      std::string known;
      for (const std::string& name : names) known += (known.empty() ? "" : ", ") + name;
      throw Error(ErrorKind::kBadInput, std::string("the module has no kernel '") + kernel +
                                            "': name one of its kernels by its mangled name (" +
                                            (known.empty() ? "it has none" : known) + ")");
    }
    return *info;
  }
};

struct bankcheck_emu_launch {
  const bankcheck_emu_module* module = nullptr;
  const emulate::KernelInfo* kernel = nullptr;
  emulate::LaunchToEmulate launch;
  bool params_set = false;
  std::map<uint64_t, Buffer> buffers;  // by device address
  uint64_t output_limit = bankcheck::emulate::internal::kOutputWarpInstructions;
  std::string source_root;
};

struct bankcheck_emu_result {
  std::string record_json;
  std::string undecided;
  bool computed = false;
  std::string not_computed;
};

namespace {

std::string Described(const emulate::Undecided& why, const std::string& mangled) {
  return why.DescribeIn(bankcheck::internal::Demangle(mangled));
}

// Writes the bytes a launch stored into the buffers that hold them (every byte is in one: stores land
// only where MappedMemory says Allocated, and the runs between them are read from it).
void WriteBack(const std::map<uint64_t, std::vector<uint8_t>>& written, std::map<uint64_t, Buffer>& buffers) {
  for (const auto& [start, bytes] : written) {
    for (auto& [device, buffer] : buffers) {
      const uint64_t from = std::max(start, device);
      const uint64_t to = std::min(start + bytes.size(), device + buffer.size);
      if (from < to) std::memcpy(buffer.host + (from - device), bytes.data() + (from - start), to - from);
    }
  }
}

void Run(bankcheck_emu_launch& launch, bankcheck_emu_result& result) {
  const emulate::KernelInfo& kernel = *launch.kernel;
  Require(launch.params_set || kernel.ParamBytes() == 0,
          "the launch's parameters were not set: give the kernel's " + std::to_string(kernel.ParamBytes()) +
              " bytes of parameters (bankcheck_emu_launch_set_params)");
  Require(uint64_t{kernel.static_shared_bytes} + launch.launch.dynamic_shared_bytes <=
              emulate::internal::kMaxSharedOptIn,
          std::to_string(kernel.static_shared_bytes) + " bytes of static and " +
              std::to_string(launch.launch.dynamic_shared_bytes) +
              " of dynamic shared memory: more than a block may have on sm_90 (" +
              std::to_string(emulate::internal::kMaxSharedOptIn) + "), the GPU refuses such a launch");
  if (const auto invalid = emulate::internal::InvalidConfiguration(launch.launch.grid, launch.launch.block))
    throw Error(ErrorKind::kBadInput, *invalid + ": the GPU refuses such a launch, nothing to emulate");
  launch.launch.memory = std::make_shared<MappedMemory>(launch.buffers);
  const emulate::Module& module = launch.module->module;
  std::optional<bankcheck::LaunchRecord> record;
  // As the stand-in runtime runs a launch: a kernel that writes no global memory leaves it as it was.
  result.computed = true;
  if (emulate::MayWriteGlobalMemory(module, launch.launch.mangled)) {
    emulate::ComputedOutputs outputs;
    if (launch.output_limit == 0) {
      outputs.not_computed = emulate::Undecided{};
      outputs.not_computed->reason = "the output pass is off (an output limit of 0 warp instructions)";
    } else {
      emulate::EmulationLimits limits;
      limits.max_warp_instructions = launch.output_limit;
      try {
        outputs = emulate::ComputeOutputs(module, launch.launch, limits);
      } catch (const Error& error) {
        // As the stand-in runtime takes it: not computed; a launch the GPU refuses is refused below.
        outputs.not_computed = emulate::Undecided{};
        outputs.not_computed->reason = error.what();
      }
    }
    result.computed = !outputs.not_computed;
    if (outputs.not_computed) {
      result.not_computed = Described(*outputs.not_computed, launch.launch.mangled);
    } else {
      WriteBack(outputs.written, launch.buffers);
      record = std::move(outputs.record);
    }
  }
  if (!record) {
    emulate::Emulation emulation = emulate::Emulate(module, launch.launch);
    if (emulation.undecided) result.undecided = Described(*emulation.undecided, launch.launch.mangled);
    record = std::move(emulation.record);
  }
  launch.launch.memory.reset();
  if (!record) return;
  std::vector<bankcheck::LaunchRecord> records{std::move(*record)};
  SourceKeys keys;
  bankcheck::AttachLineRecords(records, launch.source_root,
                               [&keys](const std::string& file) { return keys(file); });
  result.record_json = bankcheck::LaunchRecordToJson(records.front(), bankcheck::RecordDetail::kFull).dump(2);
}

}  // namespace

extern "C" {

int bankcheck_emu_api_version(void) { return BANKCHECK_EMU_API_VERSION; }

const char* bankcheck_emu_last_error(void) { return last_error.c_str(); }

int bankcheck_emu_module_load(const void* image, size_t size, bankcheck_emu_module** module) {
  return Guarded([&] {
    Require(module != nullptr, "no place for the module (a null pointer)");
    *module = nullptr;
    Require(image != nullptr && size > 0, "no image: give the bytes of a cubin or fatbin");
    auto read = std::make_unique<bankcheck_emu_module>(
        emulate::Module::FromImage(std::string_view(static_cast<const char*>(image), size)));
    *module = read.release();
  });
}

int bankcheck_emu_module_load_file(const char* path, bankcheck_emu_module** module) {
  return Guarded([&] {
    Require(module != nullptr, "no place for the module (a null pointer)");
    *module = nullptr;
    Require(path != nullptr && *path != '\0', "no path: give the path of a cubin or fatbin");
    auto read = std::make_unique<bankcheck_emu_module>(emulate::Module::FromCubinFile(path));
    *module = read.release();
  });
}

void bankcheck_emu_module_free(bankcheck_emu_module* module) { delete module; }

size_t bankcheck_emu_kernel_count(const bankcheck_emu_module* module) {
  return module == nullptr ? 0 : module->names.size();
}

const char* bankcheck_emu_kernel_name(const bankcheck_emu_module* module, size_t index) {
  return module == nullptr || index >= module->names.size() ? nullptr : module->names[index].c_str();
}

int bankcheck_emu_kernel_params(const bankcheck_emu_module* module, const char* kernel, uint32_t* count,
                                uint32_t* param_bytes) {
  return Guarded([&] {
    Require(module != nullptr, "no module (a null pointer)");
    const emulate::KernelInfo& info = module->Kernel(kernel);
    if (count != nullptr) *count = static_cast<uint32_t>(info.params.size());
    if (param_bytes != nullptr) *param_bytes = static_cast<uint32_t>(info.ParamBytes());
  });
}

int bankcheck_emu_kernel_param(const bankcheck_emu_module* module, const char* kernel, uint32_t index,
                               uint32_t* offset, uint32_t* size) {
  return Guarded([&] {
    Require(module != nullptr, "no module (a null pointer)");
    const emulate::KernelInfo& info = module->Kernel(kernel);
    const auto slot = std::find_if(info.params.begin(), info.params.end(),
                                   [&](const emulate::ParamSlot& p) { return p.ordinal == index; });
    Require(slot != info.params.end(), "the kernel " + std::string(kernel) + " has no parameter " +
                                           std::to_string(index) + " (it has " +
                                           std::to_string(info.params.size()) + ")");
    if (offset != nullptr) *offset = slot->offset;
    if (size != nullptr) *size = slot->size;
  });
}

int bankcheck_emu_kernel_static_shared(const bankcheck_emu_module* module, const char* kernel,
                                       uint32_t* bytes) {
  return Guarded([&] {
    Require(module != nullptr, "no module (a null pointer)");
    const emulate::KernelInfo& info = module->Kernel(kernel);
    if (bytes != nullptr) *bytes = info.static_shared_bytes;
  });
}

int bankcheck_emu_launch_new(const bankcheck_emu_module* module, const char* kernel,
                             bankcheck_emu_launch** launch) {
  return Guarded([&] {
    Require(launch != nullptr, "no place for the launch (a null pointer)");
    *launch = nullptr;
    Require(module != nullptr, "no module (a null pointer)");
    auto made = std::make_unique<bankcheck_emu_launch>();
    made->module = module;
    made->kernel = &module->Kernel(kernel);
    made->launch.mangled = kernel;
    made->launch.grid = made->launch.block = made->launch.cluster = bankcheck::Dim3{1, 1, 1};
    *launch = made.release();
  });
}

void bankcheck_emu_launch_free(bankcheck_emu_launch* launch) { delete launch; }

int bankcheck_emu_launch_set_grid(bankcheck_emu_launch* launch, uint32_t x, uint32_t y, uint32_t z) {
  return Guarded([&] {
    Require(launch != nullptr, "no launch (a null pointer)");
    launch->launch.grid = bankcheck::Dim3{x, y, z};
  });
}

int bankcheck_emu_launch_set_block(bankcheck_emu_launch* launch, uint32_t x, uint32_t y, uint32_t z) {
  return Guarded([&] {
    Require(launch != nullptr, "no launch (a null pointer)");
    launch->launch.block = bankcheck::Dim3{x, y, z};
  });
}

int bankcheck_emu_launch_set_dynamic_shared(bankcheck_emu_launch* launch, uint32_t bytes) {
  return Guarded([&] {
    Require(launch != nullptr, "no launch (a null pointer)");
    launch->launch.dynamic_shared_bytes = bytes;
  });
}

int bankcheck_emu_launch_set_params(bankcheck_emu_launch* launch, const void* params, size_t size) {
  return Guarded([&] {
    Require(launch != nullptr, "no launch (a null pointer)");
    const uint64_t expected = launch->kernel->ParamBytes();
    Require(size == expected, std::to_string(size) + " bytes of parameters for " +
                                  bankcheck::internal::Demangle(launch->launch.mangled) +
                                  ", whose parameters are " + std::to_string(expected) +
                                  " bytes: give each parameter's bytes at its offset "
                                  "(bankcheck_emu_kernel_param)");
    Require(params != nullptr || size == 0, "no parameter bytes (a null pointer)");
    const auto* bytes = static_cast<const uint8_t*>(params);
    launch->launch.param_bytes.assign(bytes, bytes + size);
    launch->params_set = true;
  });
}

int bankcheck_emu_launch_map(bankcheck_emu_launch* launch, uint64_t device_address, void* host, size_t size,
                             uint32_t flags) {
  return Guarded([&] {
    Require(launch != nullptr, "no launch (a null pointer)");
    Require(host != nullptr && size > 0, "an empty buffer: map host memory of at least one byte");
    Require(flags == BANKCHECK_EMU_KNOWN || flags == BANKCHECK_EMU_UNKNOWN,
            "unknown buffer flags " + std::to_string(flags) +
                ": give BANKCHECK_EMU_KNOWN or BANKCHECK_EMU_UNKNOWN");
    const uint64_t device = device_address != 0 ? device_address : reinterpret_cast<uintptr_t>(host);
    Require(size - 1 <= UINT64_MAX - device,
            "a buffer whose device range passes the end of the address space");
    const uint64_t end = device + (size - 1);  // its last byte
    const auto next = launch->buffers.lower_bound(device);
    const bool overlaps_next = next != launch->buffers.end() && next->first <= end;
    const bool overlaps_previous = next != launch->buffers.begin() &&
                                   std::prev(next)->first + (std::prev(next)->second.size - 1) >= device;
    Require(!overlaps_next && !overlaps_previous,
            "the buffer at device address " + std::to_string(device) + " (" + std::to_string(size) +
                " bytes) overlaps one mapped before: map each address once");
    launch->buffers[device] = Buffer{device, static_cast<uint8_t*>(host), size, flags == BANKCHECK_EMU_KNOWN};
  });
}

int bankcheck_emu_launch_set_output_limit(bankcheck_emu_launch* launch, uint64_t warp_instructions) {
  return Guarded([&] {
    Require(launch != nullptr, "no launch (a null pointer)");
    launch->output_limit = warp_instructions;
  });
}

int bankcheck_emu_launch_set_source_root(bankcheck_emu_launch* launch, const char* root) {
  return Guarded([&] {
    Require(launch != nullptr, "no launch (a null pointer)");
    launch->source_root = root != nullptr ? root : "";
  });
}

int bankcheck_emu_launch_run(bankcheck_emu_launch* launch, bankcheck_emu_result** result) {
  return Guarded([&] {
    Require(result != nullptr, "no place for the result (a null pointer)");
    *result = nullptr;
    Require(launch != nullptr, "no launch (a null pointer)");
    auto made = std::make_unique<bankcheck_emu_result>();
    Run(*launch, *made);
    *result = made.release();
  });
}

void bankcheck_emu_result_free(bankcheck_emu_result* result) { delete result; }

int bankcheck_emu_result_decided(const bankcheck_emu_result* result) {
  return result != nullptr && !result->record_json.empty() ? 1 : 0;
}

const char* bankcheck_emu_result_record_json(const bankcheck_emu_result* result) {
  return result == nullptr ? "" : result->record_json.c_str();
}

const char* bankcheck_emu_result_undecided(const bankcheck_emu_result* result) {
  return result == nullptr ? "no result" : result->undecided.c_str();
}

int bankcheck_emu_result_computed(const bankcheck_emu_result* result) {
  return result != nullptr && result->computed ? 1 : 0;
}

const char* bankcheck_emu_result_not_computed(const bankcheck_emu_result* result) {
  return result == nullptr ? "no result" : result->not_computed.c_str();
}

}  // extern "C"
