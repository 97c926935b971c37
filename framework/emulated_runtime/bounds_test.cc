// The bounds of the stand-in's device memory and of the images it loads (docs/security.md): every
// copy and set is checked against the ends of the allocations it touches, every module load
// against the memory its image's headers name; refused with the GPU's error codes.

#include <cuda.h>
#include <cudaTypedefs.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "emulated_runtime/crafted_images.h"
#include "emulated_runtime/internal/launch_capture.h"
#include "emulated_runtime/measured_answers.h"

namespace bankcheck::emulate::runtime {
namespace {

// Two 4096-byte allocations, the second's bytes 0x5A: what a copy past the first's end would
// overwrite.
class BoundsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TheCapture().TakeNotEmulated();
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&first_), 4096), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&second_), 4096), cudaSuccess);
    ASSERT_EQ(cudaMemset(second_, 0x5A, 4096), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    EXPECT_TRUE(SecondUntouched());
    EXPECT_EQ(TheCapture().TakeNotEmulated(), "");
    cudaFree(first_);
    cudaFree(second_);
    cudaStreamDestroy(stream_);
  }
  bool SecondUntouched() {
    std::vector<unsigned char> bytes(4096);
    EXPECT_EQ(cudaMemcpy(bytes.data(), second_, 4096, cudaMemcpyDeviceToHost), cudaSuccess);
    return bytes == std::vector<unsigned char>(4096, 0x5A);
  }
  // `error` is what the GPU answered the probe's same call `measured` (runtime/data/sm_90_answers.inc),
  // and so is the thread's last error after it.
  static void Refused(cudaError_t error, const std::string& measured) {
    EXPECT_EQ(error, emutest::MeasuredError(measured)) << measured;
    EXPECT_EQ(cudaGetLastError(), emutest::MeasuredError(measured + ".last_error")) << measured;
  }
  // A call the probe does not make: `error` is cudaErrorInvalidValue, and the thread's last error.
  static void RefusedAsInvalid(cudaError_t error, const char* what) {
    EXPECT_EQ(error, cudaErrorInvalidValue) << what;
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue) << what;
  }
  char* first_ = nullptr;
  char* second_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::vector<unsigned char> host_ = std::vector<unsigned char>(1 << 16, 0xEE);
};

TEST_F(BoundsTest, CopiesPastAnAllocationsEndAreRefused) {
  unsigned char* host = host_.data();
  Refused(cudaMemcpy(first_, host, 8192, cudaMemcpyHostToDevice), "memcpy.htod.8192");
  Refused(cudaMemcpy(first_, host, 4097, cudaMemcpyHostToDevice), "memcpy.htod.4097");
  Refused(cudaMemcpy(first_ + 4095, host, 2, cudaMemcpyHostToDevice), "memcpy.htod.offset_4095_2");
  Refused(cudaMemcpy(first_, host, 8192, cudaMemcpyDefault), "memcpy.default.htod_8192");
  Refused(cudaMemcpy(host, first_, 8192, cudaMemcpyDeviceToHost), "memcpy.dtoh.8192");
  Refused(cudaMemcpy(host, first_, 8192, cudaMemcpyDefault), "memcpy.default.dtoh_8192");
  Refused(cudaMemcpy(first_ + 4088, second_, 16, cudaMemcpyDeviceToDevice), "memcpy.dtod.dst_8192");
  Refused(cudaMemcpy(second_, first_ + 4088, 16, cudaMemcpyDeviceToDevice), "memcpy.dtod.src_8192");
  Refused(cudaMemcpyAsync(first_, host, 8192, cudaMemcpyHostToDevice, stream_), "memcpyasync.htod.8192");
  Refused(cudaMemcpyAsync(host, first_, 8192, cudaMemcpyDeviceToHost, stream_), "memcpyasync.dtoh.8192");
  RefusedAsInvalid(cudaMemcpyAsync(first_, host, 8192, cudaMemcpyHostToDevice, nullptr),
                   "async, legacy stream");
  // The host end of a copy is where the kind says the device's is: refused as the GPU refuses it.
  Refused(cudaMemcpy(host, host + 8192, 16, cudaMemcpyHostToDevice), "memcpy.htod.host_destination");
  Refused(cudaMemcpy(host, host + 8192, 16, cudaMemcpyDeviceToHost), "memcpy.dtoh.host_source");
  Refused(cudaMemcpy(first_, host, 16, static_cast<cudaMemcpyKind>(7)), "memcpy.kind_7");
  // What fits is copied.
  EXPECT_EQ(cudaMemcpy(first_, host, 4096, cudaMemcpyHostToDevice),
            emutest::MeasuredError("memcpy.htod.4096"));
  EXPECT_EQ(cudaMemcpy(first_ + 4095, host, 1, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(host, host + 8192, 16, cudaMemcpyHostToHost), emutest::MeasuredError("memcpy.htoh"));
  EXPECT_EQ(cudaMemcpy(first_, host, 0, cudaMemcpyHostToDevice), cudaSuccess);
}

TEST_F(BoundsTest, SetsPastAnAllocationsEndAreRefused) {
  Refused(cudaMemset(first_, 1, 8192), "memset.8192");
  Refused(cudaMemset(first_, 1, 4097), "memset.4097");
  RefusedAsInvalid(cudaMemset(first_ + 4095, 1, 2), "2 bytes at its last byte");
  Refused(cudaMemsetAsync(first_, 1, 8192, stream_), "memsetasync.8192");
  RefusedAsInvalid(cudaMemsetAsync(first_, 1, 8192, nullptr), "async, legacy stream");
  Refused(cudaMemset(host_.data(), 1, 16), "memset.host");
  EXPECT_EQ(host_[0], 0xEE);
  EXPECT_EQ(cudaMemset(first_, 1, 4096), emutest::MeasuredError("memset.4096"));
}

TEST_F(BoundsTest, FreedMemoryIsNoDeviceMemory) {
  char* freed = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&freed), 4096), cudaSuccess);
  ASSERT_EQ(cudaFree(freed), cudaSuccess);
  Refused(cudaMemcpy(freed, host_.data(), 16, cudaMemcpyHostToDevice), "memcpy.freed");
  RefusedAsInvalid(cudaMemset(freed, 1, 16), "a set of freed memory");
}

TEST_F(BoundsTest, GraphNodesAreCheckedWhenAddedCapturedAndRun) {
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaGraphCreate(&graph, 0), cudaSuccess);
  cudaMemsetParams set{};
  set.dst = first_;
  set.elementSize = 4;
  set.width = 256;
  set.height = 5;
  set.pitch = 1024;  // the fifth row ends 1024 bytes past the end
  set.value = 7;
  cudaGraphNode_t node = nullptr;
  RefusedAsInvalid(cudaGraphAddMemsetNode(&node, graph, nullptr, 0, &set), "a 2D memset node past the end");
  set.height = 4;
  ASSERT_EQ(cudaGraphAddMemsetNode(&node, graph, nullptr, 0, &set), cudaSuccess);
  // Captured copies are refused when captured, as the GPU refuses them.
  ASSERT_EQ(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal), cudaSuccess);
  RefusedAsInvalid(cudaMemcpyAsync(first_, host_.data(), 8192, cudaMemcpyHostToDevice, stream_), "captured");
  RefusedAsInvalid(cudaMemsetAsync(first_, 1, 8192, stream_), "captured set");
  cudaGraph_t captured = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream_, &captured), cudaSuccess);
  cudaGraphDestroy(captured);
  // A node whose memory is freed before the graph runs.
  char* freed = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&freed), 4096), cudaSuccess);
  set.dst = freed;
  ASSERT_EQ(cudaGraphAddMemsetNode(&node, graph, &node, 1, &set), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaFree(freed), cudaSuccess);
  RefusedAsInvalid(cudaGraphLaunch(exec, stream_), "a memset node of freed memory");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

TEST_F(BoundsTest, TheDriversCopiesFollowTheSameRule) {
  void* fn = nullptr;
  ASSERT_EQ(cudaGetDriverEntryPointByVersion("cuMemcpyHtoD", &fn, 3020, cudaEnableDefault, nullptr),
            cudaSuccess);
  const auto to_device = reinterpret_cast<PFN_cuMemcpyHtoD_v3020>(fn);
  EXPECT_EQ(to_device(reinterpret_cast<CUdeviceptr>(first_), host_.data(), 8192), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cudaGetDriverEntryPointByVersion("cuMemcpyDtoH", &fn, 3020, cudaEnableDefault, nullptr),
            cudaSuccess);
  const auto to_host = reinterpret_cast<PFN_cuMemcpyDtoH_v3020>(fn);
  EXPECT_EQ(to_host(host_.data(), reinterpret_cast<CUdeviceptr>(first_), 8192), CUDA_ERROR_INVALID_VALUE);
  cudaGetLastError();
}

// cuModuleLoadData takes no size: an image's headers say where its bytes are. Headers that put
// them where the image is not are an invalid image; before, the stand-in read there (a section
// header table at 0xf0000000 faulted; at 0x10, in the 64-byte header, it read past the image).
TEST(ModuleBoundsTest, ImagesWhoseHeadersLieOutsideThemAreInvalid) {
  void* fn = nullptr;
  ASSERT_EQ(cudaGetDriverEntryPointByVersion("cuModuleLoadData", &fn, 2000, cudaEnableDefault, nullptr),
            cudaSuccess);
  const auto load = reinterpret_cast<PFN_cuModuleLoadData_v2000>(fn);
  for (const auto& [section_headers, sections] :
       std::vector<std::pair<uint64_t, uint16_t>>{{0xf0000000u, 1}, {0x10, 3}, {0x40, 3}, {0x40, 1}}) {
    const void* image = emutest::BeforeAGuardPage(emutest::ElfHeaderOnly(section_headers, sections));
    ASSERT_NE(image, nullptr);
    CUmodule module = nullptr;
    EXPECT_EQ(load(&module, image), CUDA_ERROR_INVALID_IMAGE)
        << sections << " section headers at " << section_headers;
    EXPECT_EQ(module, nullptr);
  }
  // No section headers: the 64 bytes are the whole image.
  CUmodule module = nullptr;
  EXPECT_EQ(load(&module, emutest::BeforeAGuardPage(emutest::ElfHeaderOnly(0, 0))), CUDA_SUCCESS);
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "");
}

}  // namespace
}  // namespace bankcheck::emulate::runtime
