// The CUDA driver API in the stand-in runtime (docs/emulate.md): the driver functions a program
// reaches through cudaGetDriverEntryPointByVersion (the emulated program links no libcuda), each
// stood in for on purpose: contexts (a stack per thread over the one primary context), modules
// loaded from a cubin or fatbin image (NVRTC's output, as Triton and CuPy load theirs; read by
// the emulator as nvcc's fatbins are), their kernels' launches (recorded as any launch), device
// memory (the runtime's), tiled tensor maps (their parameters validated and kept). Any other
// symbol, or a version whose signature differs from the one stood in for, is not emulated: the case
// skips naming it.

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "emulate/internal/tensor_map.h"
#include "emulated_runtime/internal/launch_capture.h"

namespace bankcheck::emulate::runtime {
namespace {

CUresult ToDriver(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return CUDA_SUCCESS;
    case cudaErrorInvalidValue:
      return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorMemoryAllocation:
      return CUDA_ERROR_OUT_OF_MEMORY;
    case cudaErrorInvalidDeviceFunction:
      return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorNotSupported:
      return CUDA_ERROR_NOT_SUPPORTED;
    default:
      return CUDA_ERROR_UNKNOWN;
  }
}

// ---- contexts: the primary one, and those the program made, current per thread as a stack ----
struct Context {};
Context g_primary;
thread_local std::vector<CUcontext> t_contexts;  // pushed; empty: the primary one is current

CUcontext Primary() { return reinterpret_cast<CUcontext>(&g_primary); }

CUresult CtxGetCurrent(CUcontext* context) {
  if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *context = t_contexts.empty() ? Primary() : t_contexts.back();
  return CUDA_SUCCESS;
}
CUresult CtxGetDevice(CUdevice* device) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult CtxCreate(CUcontext* context, unsigned int /*flags*/, CUdevice device) {
  if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  *context = reinterpret_cast<CUcontext>(new Context);
  t_contexts.push_back(*context);  // made current on this thread
  return CUDA_SUCCESS;
}
CUresult CtxDestroy(CUcontext context) {
  if (context == nullptr || context == Primary()) return CUDA_ERROR_INVALID_CONTEXT;
  for (auto at = t_contexts.begin(); at != t_contexts.end();)
    at = *at == context ? t_contexts.erase(at) : at + 1;
  delete reinterpret_cast<Context*>(context);
  return CUDA_SUCCESS;
}
CUresult CtxPushCurrent(CUcontext context) {
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  t_contexts.push_back(context);
  return CUDA_SUCCESS;
}
CUresult CtxPopCurrent(CUcontext* context) {
  if (t_contexts.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (context != nullptr) *context = t_contexts.back();
  t_contexts.pop_back();
  return CUDA_SUCCESS;
}
CUresult CtxSynchronize() { return CUDA_SUCCESS; }  // nothing runs asynchronously

// ---- modules ----
// Never freed: the evaluator knows a module's kernels by its address, which must not come back as
// another module's.
struct DriverModule {
  const void* key = this;
  bool elf = false;
  std::string image;
};
struct DriverFunction {
  std::string name;
};

// The bytes of an image cuModuleLoadData was given (the call takes no size: its headers say where
// they are). Every byte the stand-in reads of it is read here, through the kernel, so that memory
// the process cannot read there is an invalid image, never a fault (docs/security.md).
class ImageReader {
 public:
  explicit ImageReader(const void* image) : image_(reinterpret_cast<uintptr_t>(image)) {}
  bool Read(uint64_t offset, uint64_t bytes, void* out) const {
    if (bytes == 0) return true;
    if (offset > UINTPTR_MAX - image_ || bytes > UINTPTR_MAX - image_ - offset) return false;
    iovec local{out, bytes}, remote{reinterpret_cast<void*>(image_ + offset), bytes};
    return ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(bytes);
  }
  template <typename T>
  bool At(uint64_t offset, T* value) const {
    return Read(offset, sizeof *value, value);
  }

 private:
  uintptr_t image_;
};

// What an image's headers say of it: a cubin (ELF) or a fatbin of `size` bytes, neither (PTX, say),
// or headers no image has (tables that overlap the ELF header or lie past 4 GiB, entries too small,
// memory that cannot be read).
struct ImageSize {
  enum class Kind { kElf, kFatbin, kNeither, kInvalid } kind = Kind::kNeither;
  uint64_t size = 0;
};
constexpr uint64_t kLargestImage = uint64_t{1} << 32;
constexpr ImageSize kInvalidImage{ImageSize::Kind::kInvalid, 0};

// A 64-bit ELF image: up to the end of its headers and sections, whichever is last. Its header
// tables and sections lie after its 64-byte header, as every ELF's do.
ImageSize ElfSize(const ImageReader& image) {
  unsigned char header[0x40];
  if (!image.Read(0, sizeof header, header)) return kInvalidImage;
  uint64_t program_headers = 0, section_headers = 0;
  uint16_t program_entry = 0, programs = 0, section_entry = 0, sections = 0;
  std::memcpy(&program_headers, header + 0x20, 8);
  std::memcpy(&section_headers, header + 0x28, 8);
  std::memcpy(&program_entry, header + 0x36, 2);
  std::memcpy(&programs, header + 0x38, 2);
  std::memcpy(&section_entry, header + 0x3a, 2);
  std::memcpy(&sections, header + 0x3c, 2);
  const auto table_valid = [](uint64_t offset, uint16_t count, uint16_t entry, uint16_t smallest) {
    return count == 0 || (offset >= 0x40 && offset <= kLargestImage && entry >= smallest);
  };
  if (!table_valid(section_headers, sections, section_entry, 0x40) ||
      !table_valid(program_headers, programs, program_entry, 0x38))
    return kInvalidImage;
  uint64_t end = std::max<uint64_t>({0x40, section_headers + uint64_t{sections} * section_entry,
                                     program_headers + uint64_t{programs} * program_entry});
  for (uint16_t i = 0; i < sections; ++i) {
    const uint64_t at = section_headers + uint64_t{i} * section_entry;
    uint32_t type = 0;
    uint64_t offset = 0, size = 0;
    if (!image.At(at + 4, &type) || !image.At(at + 0x18, &offset) || !image.At(at + 0x20, &size))
      return kInvalidImage;
    if (type == 8 || size == 0) continue;  // SHT_NOBITS occupies no bytes
    if (offset < 0x40 || offset > kLargestImage || size > kLargestImage) return kInvalidImage;
    end = std::max(end, offset + size);
  }
  return {ImageSize::Kind::kElf, end};
}

ImageSize SizeOf(const ImageReader& image) {
  unsigned char magic[4];
  if (!image.Read(0, sizeof magic, magic)) return kInvalidImage;
  if (std::memcmp(magic,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    unsigned char elf_class = 0;
    if (!image.At(4, &elf_class)) return kInvalidImage;
    return elf_class == 2 ? ElfSize(image) : ImageSize{};
  }
  // A fatbin: its header and contents (as Module::FromFatbin reads them).
  uint32_t fatbin_magic = 0;
  std::memcpy(&fatbin_magic, magic, sizeof fatbin_magic);
  if (fatbin_magic != 0xBA55ED50u) return {};
  uint16_t header_size = 0;
  uint64_t contents = 0;
  if (!image.At(6, &header_size) || !image.At(8, &contents) || contents > kLargestImage) return kInvalidImage;
  return {ImageSize::Kind::kFatbin, header_size + contents};
}

CUresult ModuleLoadData(CUmodule* module, const void* image) {
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const ImageReader reader(image);
  const ImageSize size = SizeOf(reader);
  if (size.kind == ImageSize::Kind::kNeither) {
    NotEmulated(
        "cuModuleLoadData of an image that is neither a cubin nor a fatbin (PTX, compiled at load time)");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  // Its last byte first: headers that claim gigabytes past a small image cost no allocation.
  unsigned char last = 0;
  if (size.kind == ImageSize::Kind::kInvalid || !reader.At(size.size - 1, &last))
    return CUDA_ERROR_INVALID_IMAGE;
  std::string bytes(size.size, '\0');
  if (!reader.Read(0, size.size, bytes.data())) return CUDA_ERROR_INVALID_IMAGE;
  auto* loaded = new DriverModule;
  loaded->elf = size.kind == ImageSize::Kind::kElf;
  loaded->image = std::move(bytes);
  TheCapture().AddImage(loaded->key, loaded->image);
  *module = reinterpret_cast<CUmodule>(loaded);
  return CUDA_SUCCESS;
}

CUresult ModuleUnload(CUmodule module) {
  if (module == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  reinterpret_cast<DriverModule*>(module)->image.clear();
  return CUDA_SUCCESS;
}

CUresult ModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  if (function == nullptr || module == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  auto* loaded = reinterpret_cast<DriverModule*>(module);
  // A cubin names each kernel's code section .text.<name>; a fatbin's cubins may be compressed.
  if (loaded->elf && loaded->image.find(std::string("\0.text.", 7) + name + '\0') == std::string::npos)
    return CUDA_ERROR_NOT_FOUND;
  auto* made = new DriverFunction{name};
  TheCapture().RegisterFunction(const_cast<void**>(&loaded->key), made, name);
  *function = reinterpret_cast<CUfunction>(made);
  return CUDA_SUCCESS;
}

CUresult LaunchKernel(CUfunction function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                      unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared,
                      CUstream stream, void** params, void** extra) {
  if (extra != nullptr) {
    NotEmulated("cuLaunchKernel with `extra` (a packed argument buffer)");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  LaunchRequest request;
  request.function = function;
  request.grid = {grid_x, grid_y, grid_z};
  request.block = {block_x, block_y, block_z};
  request.dynamic_shared_bytes = shared;
  request.args = params;
  request.stream = stream;
  return ToDriver(TheCapture().Launch(request, "cuLaunchKernel"));
}

// ---- memory: the runtime's ----
CUresult MemAlloc(CUdeviceptr* pointer, size_t bytes) {
  if (pointer == nullptr) return CUDA_ERROR_INVALID_VALUE;
  void* memory = nullptr;
  const CUresult result = ToDriver(cudaMalloc(&memory, bytes));
  if (result == CUDA_SUCCESS) *pointer = reinterpret_cast<CUdeviceptr>(memory);
  return result;
}
CUresult MemFree(CUdeviceptr pointer) { return ToDriver(cudaFree(reinterpret_cast<void*>(pointer))); }
CUresult MemcpyHtoD(CUdeviceptr destination, const void* source, size_t bytes) {
  return ToDriver(cudaMemcpy(reinterpret_cast<void*>(destination), source, bytes, cudaMemcpyHostToDevice));
}
CUresult MemcpyDtoH(void* destination, CUdeviceptr source, size_t bytes) {
  return ToDriver(
      cudaMemcpy(destination, reinterpret_cast<const void*>(source), bytes, cudaMemcpyDeviceToHost));
}

// ---- tensor maps: the parameters, validated as the driver documents (cuda.h), kept in the map ----
// In the stand-in layout (emulate/internal/tensor_map.h), which the emulator reads back where an
// emulated UTMALDG names the map. sm_90's types, interleaves and swizzles; the packed 4- and 6-bit
// types and the 128-byte swizzles with 32- and 64-byte atoms (later GPUs) are not emulated.
using internal::StandInTensorMap;
namespace tensor_map = internal::tensor_map;
static_assert(sizeof(CUtensorMap) == internal::kTensorMapBytes,
              "cuda.h's CUtensorMap is the map the stand-in layout fits in");
template <typename CudaEnum, typename StandInEnum>
constexpr bool Same(CudaEnum cuda, StandInEnum stand_in) {
  return static_cast<int>(cuda) == static_cast<int>(stand_in);
}
static_assert(Same(CU_TENSOR_MAP_DATA_TYPE_UINT8, tensor_map::kUint8) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_UINT16, tensor_map::kUint16) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_UINT32, tensor_map::kUint32) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_INT32, tensor_map::kInt32) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_UINT64, tensor_map::kUint64) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_INT64, tensor_map::kInt64) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_FLOAT16, tensor_map::kFloat16) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, tensor_map::kFloat32) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_FLOAT64, tensor_map::kFloat64) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, tensor_map::kBfloat16) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, tensor_map::kFloat32Ftz) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, tensor_map::kTfloat32) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ, tensor_map::kTfloat32Ftz) &&
                  Same(CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B, tensor_map::kFirstPackedType),
              "the stand-in layout's types are cuda.h's");
static_assert(Same(CU_TENSOR_MAP_INTERLEAVE_16B, tensor_map::kInterleave16B) &&
                  Same(CU_TENSOR_MAP_INTERLEAVE_32B, tensor_map::kInterleave32B) &&
                  Same(CU_TENSOR_MAP_SWIZZLE_32B, tensor_map::kSwizzle32B) &&
                  Same(CU_TENSOR_MAP_SWIZZLE_64B, tensor_map::kSwizzle64B) &&
                  Same(CU_TENSOR_MAP_SWIZZLE_128B, tensor_map::kSwizzle128B) &&
                  Same(CU_TENSOR_MAP_L2_PROMOTION_L2_64B, tensor_map::kL2_64B) &&
                  Same(CU_TENSOR_MAP_L2_PROMOTION_L2_128B, tensor_map::kL2_128B) &&
                  Same(CU_TENSOR_MAP_L2_PROMOTION_L2_256B, tensor_map::kL2_256B) &&
                  Same(CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
                       tensor_map::kOobFillNanRequestZeroFma),
              "the stand-in layout's interleaves, swizzles, promotions and fills are cuda.h's");

CUresult TensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* address,
                              const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                              const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                              CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2_promotion,
                              CUtensorMapFloatOOBfill oob_fill) {
  const uint32_t bytes = internal::TensorMapElementBytes(type);
  if (bytes == 0 && type >= CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B &&
      type <= CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B) {
    NotEmulated("cuTensorMapEncodeTiled of a packed 4- or 6-bit data type");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (swizzle > CU_TENSOR_MAP_SWIZZLE_128B && swizzle <= CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B) {
    NotEmulated("cuTensorMapEncodeTiled with a 128-byte swizzle of 32- or 64-byte atoms");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  const auto address_bits = reinterpret_cast<uintptr_t>(address);
  const bool valid =
      map != nullptr && reinterpret_cast<uintptr_t>(map) % internal::kTensorMapAlignment == 0 && bytes != 0 &&
      rank >= 1 && rank <= internal::kTensorMapMaxRank &&
      (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE || rank >= 3) &&
      interleave <= CU_TENSOR_MAP_INTERLEAVE_32B && swizzle <= CU_TENSOR_MAP_SWIZZLE_128B &&
      l2_promotion <= CU_TENSOR_MAP_L2_PROMOTION_L2_256B &&
      oob_fill <= CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && address != nullptr &&
      address_bits % (interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16) == 0 && dims != nullptr &&
      box != nullptr && element_strides != nullptr && (rank == 1 || strides != nullptr) &&
      (interleave != CU_TENSOR_MAP_INTERLEAVE_32B || swizzle == CU_TENSOR_MAP_SWIZZLE_32B);
  if (!valid) return CUDA_ERROR_INVALID_VALUE;
  StandInTensorMap stand_in;
  for (uint32_t i = 0; i < rank; ++i) {
    const uint64_t stride = i + 1 < rank ? strides[i] : 0;
    if (dims[i] == 0 || dims[i] > (uint64_t{1} << 32) || box[i] == 0 || box[i] > 256 ||
        element_strides[i] == 0 || element_strides[i] > 8 ||
        (i + 1 < rank && (stride % (interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16) != 0 ||
                          stride >= (uint64_t{1} << 40))))
      return CUDA_ERROR_INVALID_VALUE;
    stand_in.box[i] = box[i];
    stand_in.element_strides[i] = element_strides[i];
    stand_in.dims_minus_one[i] = static_cast<uint32_t>(dims[i] - 1);
    if (i + 1 < rank) stand_in.strides[i] = stride;
  }
  const uint64_t inner = uint64_t{box[0]} * bytes;
  if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE &&
      (inner % 16 != 0 || (swizzle != CU_TENSOR_MAP_SWIZZLE_NONE && inner > (uint64_t{16} << swizzle))))
    return CUDA_ERROR_INVALID_VALUE;
  stand_in.address = address_bits;
  stand_in.type = static_cast<uint8_t>(type);
  stand_in.rank = static_cast<uint8_t>(rank);
  stand_in.interleave = static_cast<uint8_t>(interleave);
  stand_in.swizzle = static_cast<uint8_t>(swizzle);
  stand_in.l2_promotion = static_cast<uint8_t>(l2_promotion);
  stand_in.oob_fill = static_cast<uint8_t>(oob_fill);
  std::memset(map, 0, sizeof *map);
  std::memcpy(map, &stand_in, sizeof stand_in);
  return CUDA_SUCCESS;
}

// Each function stood in for, and the versions whose signature it has: from the version that
// introduced it to the one that changed it (cudaTypedefs.h's PFN_<name>_v<version>).
struct Stand {
  const char* name;
  unsigned int since, until;
  void* function;
};
constexpr unsigned int kStill = ~0u;
const Stand kStandIns[] = {
    {"cuCtxGetCurrent", 4000, kStill, reinterpret_cast<void*>(&CtxGetCurrent)},
    {"cuCtxGetDevice", 2000, 13000, reinterpret_cast<void*>(&CtxGetDevice)},
    {"cuCtxCreate", 3020, 11040, reinterpret_cast<void*>(&CtxCreate)},
    {"cuCtxDestroy", 4000, kStill, reinterpret_cast<void*>(&CtxDestroy)},
    {"cuCtxPushCurrent", 4000, kStill, reinterpret_cast<void*>(&CtxPushCurrent)},
    {"cuCtxPopCurrent", 4000, kStill, reinterpret_cast<void*>(&CtxPopCurrent)},
    {"cuCtxSynchronize", 2000, 13000, reinterpret_cast<void*>(&CtxSynchronize)},
    {"cuModuleLoadData", 2000, kStill, reinterpret_cast<void*>(&ModuleLoadData)},
    {"cuModuleUnload", 2000, kStill, reinterpret_cast<void*>(&ModuleUnload)},
    {"cuModuleGetFunction", 2000, kStill, reinterpret_cast<void*>(&ModuleGetFunction)},
    {"cuLaunchKernel", 4000, kStill, reinterpret_cast<void*>(&LaunchKernel)},
    {"cuMemAlloc", 3020, kStill, reinterpret_cast<void*>(&MemAlloc)},
    {"cuMemFree", 3020, kStill, reinterpret_cast<void*>(&MemFree)},
    {"cuMemcpyHtoD", 3020, kStill, reinterpret_cast<void*>(&MemcpyHtoD)},
    {"cuMemcpyDtoH", 3020, kStill, reinterpret_cast<void*>(&MemcpyDtoH)},
    {"cuTensorMapEncodeTiled", 12000, kStill, reinterpret_cast<void*>(&TensorMapEncodeTiled)},
};

void* DriverFunctionFor(const std::string& name, unsigned int version) {
  for (const Stand& stand : kStandIns)
    if (name == stand.name && version >= stand.since && version < stand.until) return stand.function;
  return nullptr;
}

}  // namespace
}  // namespace bankcheck::emulate::runtime

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** function, unsigned int version,
                                             unsigned long long flags,
                                             cudaDriverEntryPointQueryResult* status) {
  using bankcheck::emulate::runtime::DriverFunctionFor;
  using bankcheck::emulate::runtime::Fail;
  using bankcheck::emulate::runtime::NotEmulated;
  if (symbol == nullptr || function == nullptr) return Fail(cudaErrorInvalidValue);
  *function = nullptr;
  if (status != nullptr) *status = cudaDriverEntryPointSymbolNotFound;
  void* found = flags == cudaEnableDefault ? DriverFunctionFor(symbol, version) : nullptr;
  if (found == nullptr)
    return NotEmulated("the driver function " + std::string(symbol) + " (version " + std::to_string(version) +
                       (flags == cudaEnableDefault ? "" : ", with flags") +
                       ") through cudaGetDriverEntryPointByVersion");
  *function = found;
  if (status != nullptr) *status = cudaDriverEntryPointSuccess;
  return cudaSuccess;
}
