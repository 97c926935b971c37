// The driver functions the stand-in runtime hands out (driver_api.cc): contexts, modules loaded
// from an image, their launches, memory.

#include <cuda.h>
#include <cudaTypedefs.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/memory_sectors.h"
#include "emulate/internal/tensor_map.h"
#include "emulated_runtime/internal/launch_capture.h"
#include "emulated_runtime/runtime_test_kernels.h"

namespace bankcheck::emulate::runtime {
namespace {

using ::testing::HasSubstr;

template <typename Fn>
Fn Driver(const char* name, unsigned int version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult query{};
  EXPECT_EQ(cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &query), cudaSuccess)
      << name;
  EXPECT_EQ(query, cudaDriverEntryPointSuccess) << name;
  return reinterpret_cast<Fn>(fn);
}

// Records the images it is given; knows kernel "kern" of any of them, with one 8-byte parameter.
class ImageFatbinEmulator final : public FatbinEmulator {
 public:
  ImageFatbinEmulator() { kern_.params = {{0, 0, 8}}; }
  const KernelInfo* Describe(const void* fatbin, const std::string& mangled) override {
    return images.count(fatbin) != 0 && mangled == "kern" ? &kern_ : nullptr;
  }
  Emulation Emulate(const void* /*fatbin*/, const LaunchToEmulate& /*launch*/) override {
    Emulation emulation;
    emulation.record = LaunchRecord{};
    return emulation;
  }
  void AddImage(const void* key, std::string image) override { images[key] = std::move(image); }
  std::map<const void*, std::string> images;

 private:
  KernelInfo kern_;
};

// A 64-bit ELF of CUDA's machine: a header, two section headers, and a string table naming
// .text.kern.
std::string TinyCubin() {
  std::string image(0xe0, '\0');
  std::memcpy(image.data(),
              "\x7f"
              "ELF\x02\x01\x01",
              7);
  const uint16_t machine = 190, section_entry = 0x40, sections = 2;
  const uint64_t section_headers = 0x40, names_offset = 0xc0, names_size = 0x20;
  std::memcpy(&image[18], &machine, 2);
  std::memcpy(&image[0x28], &section_headers, 8);
  std::memcpy(&image[0x3a], &section_entry, 2);
  std::memcpy(&image[0x3c], &sections, 2);
  const uint32_t strtab = 3;
  std::memcpy(&image[0x80 + 4], &strtab, 4);
  std::memcpy(&image[0x80 + 0x18], &names_offset, 8);
  std::memcpy(&image[0x80 + 0x20], &names_size, 8);
  std::memcpy(&image[0xc0], "\0.text.kern\0", 12);
  return image;
}

class DriverApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto evaluator = std::make_unique<ImageFatbinEmulator>();
    evaluator_ = evaluator.get();
    TheCapture().SetEmulator(std::move(evaluator));
    TheCapture().Abandon();
    TheCapture().TakeNotEmulated();
  }
  void TearDown() override { TheCapture().Abandon(); }
  ImageFatbinEmulator* evaluator_ = nullptr;
};

TEST_F(DriverApiTest, ContextsAreAStackPerThreadOverThePrimaryOne) {
  const auto get_current = Driver<PFN_cuCtxGetCurrent_v4000>("cuCtxGetCurrent", 4000);
  const auto create = Driver<PFN_cuCtxCreate_v3020>("cuCtxCreate", 3020);
  const auto push = Driver<PFN_cuCtxPushCurrent_v4000>("cuCtxPushCurrent", 4000);
  const auto pop = Driver<PFN_cuCtxPopCurrent_v4000>("cuCtxPopCurrent", 4000);
  const auto destroy = Driver<PFN_cuCtxDestroy_v4000>("cuCtxDestroy", 4000);
  const auto device = Driver<PFN_cuCtxGetDevice_v2000>("cuCtxGetDevice", 2000);
  CUcontext primary = nullptr, own = nullptr, current = nullptr, popped = nullptr;
  ASSERT_EQ(get_current(&primary), CUDA_SUCCESS);
  ASSERT_NE(primary, nullptr);
  EXPECT_EQ(pop(&popped), CUDA_ERROR_INVALID_CONTEXT) << "nothing was pushed";
  ASSERT_EQ(create(&own, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(get_current(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, own) << "made current";
  ASSERT_EQ(pop(&popped), CUDA_SUCCESS);
  EXPECT_EQ(popped, own);
  ASSERT_EQ(get_current(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, primary);
  ASSERT_EQ(push(own), CUDA_SUCCESS);
  CUdevice which = -1;
  EXPECT_EQ(device(&which), CUDA_SUCCESS);
  EXPECT_EQ(which, 0);
  EXPECT_EQ(destroy(own), CUDA_SUCCESS);
  ASSERT_EQ(get_current(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, primary) << "a destroyed context is current nowhere";
}

TEST_F(DriverApiTest, AModuleLoadedFromACubinLaunchesItsKernels) {
  const auto load = Driver<PFN_cuModuleLoadData_v2000>("cuModuleLoadData", 2000);
  const auto get_function = Driver<PFN_cuModuleGetFunction_v2000>("cuModuleGetFunction", 2000);
  const auto launch = Driver<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 4000);
  const auto alloc = Driver<PFN_cuMemAlloc_v3020>("cuMemAlloc", 3020);
  const auto to_device = Driver<PFN_cuMemcpyHtoD_v3020>("cuMemcpyHtoD", 3020);
  const auto to_host = Driver<PFN_cuMemcpyDtoH_v3020>("cuMemcpyDtoH", 3020);
  const auto free = Driver<PFN_cuMemFree_v3020>("cuMemFree", 3020);
  std::string image = TinyCubin();
  image += "bytes past the ELF's end, which the module leaves out";
  CUmodule module = nullptr;
  ASSERT_EQ(load(&module, image.data()), CUDA_SUCCESS);
  ASSERT_EQ(evaluator_->images.size(), 1u);
  EXPECT_EQ(evaluator_->images.begin()->second, TinyCubin());
  CUfunction function = nullptr;
  EXPECT_EQ(get_function(&function, module, "other"), CUDA_ERROR_NOT_FOUND);
  ASSERT_EQ(get_function(&function, module, "kern"), CUDA_SUCCESS);
  CUdeviceptr memory = 0;
  ASSERT_EQ(alloc(&memory, 16), CUDA_SUCCESS);
  const uint32_t values[4] = {1, 2, 3, 4};
  ASSERT_EQ(to_device(memory, values, 16), CUDA_SUCCESS);
  EXPECT_TRUE(TheCapture().Memory().Known(memory, 16));
  TheCapture().Start();
  void* args[] = {&memory};
  ASSERT_EQ(launch(function, 3, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(launch(function, 1, 1, 1, 2048, 1, 1, 0, nullptr, args, nullptr), CUDA_ERROR_INVALID_VALUE);
  const std::vector<LaunchToEmulate> recorded = TheCapture().Recorded();
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].mangled, "kern");
  EXPECT_EQ(recorded[0].grid, (Dim3{3, 1, 1}));
  ASSERT_EQ(recorded[0].param_bytes.size(), 8u);
  EXPECT_EQ(std::memcmp(recorded[0].param_bytes.data(), &memory, 8), 0);
  ASSERT_EQ(TheCapture().Finish().size(), 1u);
  uint32_t back[4] = {};
  ASSERT_EQ(to_host(back, memory, 16), CUDA_SUCCESS);
  EXPECT_EQ(back[3], 4u);
  EXPECT_EQ(free(memory), CUDA_SUCCESS);
}

TEST_F(DriverApiTest, PtxIsNotEmulated) {
  const auto load = Driver<PFN_cuModuleLoadData_v2000>("cuModuleLoadData", 2000);
  CUmodule module = nullptr;
  EXPECT_EQ(load(&module, ".version 8.0\n.target sm_90\n"), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_THAT(TheCapture().TakeNotEmulated(), HasSubstr("neither a cubin nor a fatbin"));
}

// A fatbin header whose contents' size is 2^64 - 8: its header's 16 bytes plus that wrapped to 8, a
// plausible size, and the load succeeded with 8 bytes of a module.
TEST_F(DriverApiTest, AFatbinWhoseSizeWrapsIsRefused) {
  const auto load = Driver<PFN_cuModuleLoadData_v2000>("cuModuleLoadData", 2000);
  alignas(8) unsigned char header[16] = {};
  const uint32_t magic = 0xBA55ED50u;
  const uint16_t header_size = 16;
  const uint64_t contents = UINT64_MAX - 7;
  std::memcpy(header, &magic, 4);
  std::memcpy(header + 6, &header_size, 2);
  std::memcpy(header + 8, &contents, 8);
  CUmodule module = nullptr;
  EXPECT_EQ(load(&module, header), CUDA_ERROR_INVALID_IMAGE);
  EXPECT_EQ(module, nullptr);
}

// The wgmma_layouts TMA cases' map: a 64x64 f16 tile, K-major, 32 halves a box row, 64-byte swizzle.
struct TiledMap {
  alignas(64) CUtensorMap map{};
  alignas(16) uint16_t tile[64 * 64] = {};
  cuuint64_t dims[2] = {64, 64}, strides[1] = {128};
  cuuint32_t box[2] = {32, 64}, element_strides[2] = {1, 1};
  CUresult Encode(CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_64B, void* address = nullptr) {
    const auto encode = Driver<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled", 12000);
    return encode(&map, type, 2, address != nullptr ? address : tile, dims, strides, box, element_strides,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  }
};

TEST_F(DriverApiTest, ATiledTensorMapKeepsItsParametersInTheLayoutTheEmulatorReads) {
  TiledMap tiled;
  ASSERT_EQ(tiled.Encode(), CUDA_SUCCESS);
  uint64_t address = 0;
  std::memcpy(&address, reinterpret_cast<const char*>(&tiled.map) + 8, sizeof address);
  EXPECT_EQ(std::memcmp(&tiled.map, "banktmap", 8), 0);
  EXPECT_EQ(address, reinterpret_cast<uintptr_t>(tiled.tile));
  // Read back as an emulated UTMALDG reads it (emulate/internal/tensor_map.h).
  const std::optional<internal::StandInTensorMap> map =
      internal::ReadStandInTensorMap(reinterpret_cast<const uint8_t*>(&tiled.map));
  ASSERT_TRUE(map);
  EXPECT_EQ(map->address, reinterpret_cast<uintptr_t>(tiled.tile));
  EXPECT_EQ(map->rank, 2u);
  EXPECT_EQ(internal::TensorMapElementBytes(map->type), 2u);
  EXPECT_EQ(map->swizzle, internal::tensor_map::kSwizzle64B);
  EXPECT_EQ(map->dims_minus_one[0], 63u);
  EXPECT_EQ(map->dims_minus_one[1], 63u);
  EXPECT_EQ(map->strides[0], 128u);
  EXPECT_EQ(map->box[0], 32u);
  EXPECT_EQ(map->box[1], 64u);
  EXPECT_EQ(internal::UncostedTensorMap(*map), std::nullopt) << "CuTe's maps are a measured form";
  // load_f16_32x64_sw64 of benchmarks/tma_probe.cu at (32, 0): 128 sectors on the H100.
  const TmaSectors cost = TensorBoxSectors(internal::BoxOf(*map, {32, 0}), /*store=*/false);
  EXPECT_EQ(cost.sectors, 128u);
  // A tensor of 2^32 elements in a dimension, its rows 2^39 bytes apart: kept whole.
  tiled.dims[1] = uint64_t{1} << 32;
  tiled.strides[0] = uint64_t{1} << 39;
  ASSERT_EQ(tiled.Encode(), CUDA_SUCCESS);
  const std::optional<internal::StandInTensorMap> wide =
      internal::ReadStandInTensorMap(reinterpret_cast<const uint8_t*>(&tiled.map));
  ASSERT_TRUE(wide);
  EXPECT_EQ(uint64_t{wide->dims_minus_one[1]} + 1, uint64_t{1} << 32);
  EXPECT_EQ(wide->strides[0], uint64_t{1} << 39);
}

TEST_F(DriverApiTest, ATiledTensorMapIsValidatedAsTheDriverDocumentsIt) {
  TiledMap tiled;
  tiled.box[0] = 64;  // 128 bytes a row: wider than the 64-byte swizzle
  EXPECT_EQ(tiled.Encode(), CUDA_ERROR_INVALID_VALUE);
  tiled.box[0] = 32;
  tiled.strides[0] = 120;  // not a multiple of 16
  EXPECT_EQ(tiled.Encode(), CUDA_ERROR_INVALID_VALUE);
  tiled.strides[0] = 128;
  EXPECT_EQ(tiled.Encode(CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_SWIZZLE_64B, tiled.tile + 1),
            CUDA_ERROR_INVALID_VALUE);  // 2 bytes off 16-byte alignment
  tiled.box[1] = 257;
  EXPECT_EQ(tiled.Encode(), CUDA_ERROR_INVALID_VALUE);
  tiled.box[1] = 64;
  EXPECT_EQ(tiled.Encode(), CUDA_SUCCESS);
  EXPECT_EQ(tiled.Encode(CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_THAT(TheCapture().TakeNotEmulated(), HasSubstr("packed 4- or 6-bit data type"));
}

}  // namespace
}  // namespace bankcheck::emulate::runtime
