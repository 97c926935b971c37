// The emulator's C interface (bankcheck/emulate/emulate_c.h) on a cubin nvcc compiled here for sm_90
// (c_api_test_kernels.cu, BANKCHECK_TEST_CUBIN): its record equals what an emulated program's launch
// of the same kernel gives through the stand-in runtime, its outputs equal a host reference, and bad
// inputs get clear errors, outputs outside the mapped buffers "not computed".

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/emulate/emulate_c.h"
#include "core/records/record_json.h"
#include "emulated_runtime/c_api_test_kernels.h"
#include "emulated_runtime/internal/launch_capture.h"
#include "emulated_runtime/sass_tools_test_support.h"

namespace bankcheck::emulate::runtime {
namespace {

using ::testing::HasSubstr;

constexpr int kN = 64;  // a 64 x 64 matrix: 2 x 2 blocks of 32 x 8 threads
// Where the buffers are mapped: aligned as cudaMalloc aligns, so that global sectors count as on the GPU
// (a host vector's 16-byte alignment would split each row's 128 bytes over 5 sectors).
constexpr uint64_t kIn = 0x10000000, kOut = 0x20000000;

struct ModuleDeleter {
  void operator()(bankcheck_emu_module* module) const { bankcheck_emu_module_free(module); }
};
struct LaunchDeleter {
  void operator()(bankcheck_emu_launch* launch) const { bankcheck_emu_launch_free(launch); }
};
struct ResultDeleter {
  void operator()(bankcheck_emu_result* result) const { bankcheck_emu_result_free(result); }
};
using ModulePtr = std::unique_ptr<bankcheck_emu_module, ModuleDeleter>;
using LaunchPtr = std::unique_ptr<bankcheck_emu_launch, LaunchDeleter>;
using ResultPtr = std::unique_ptr<bankcheck_emu_result, ResultDeleter>;

std::vector<int> Matrix() {
  std::vector<int> values(kN * kN);
  for (int i = 0; i < kN * kN; ++i) values[i] = 7 * i + 3;
  return values;
}

std::vector<int> Transposed(const std::vector<int>& in) {
  std::vector<int> out(in.size());
  for (int row = 0; row < kN; ++row)
    for (int column = 0; column < kN; ++column) out[column * kN + row] = in[row * kN + column];
  return out;
}

class EmulateCTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!emutest::UseConfiguredSassTools()) GTEST_SKIP() << emutest::kNoSassTools;
    bankcheck_emu_module* module = nullptr;
    ASSERT_EQ(bankcheck_emu_module_load_file(BANKCHECK_TEST_CUBIN, &module), BANKCHECK_EMU_OK)
        << bankcheck_emu_last_error();
    module_.reset(module);
  }

  LaunchPtr NewLaunch() const {
    bankcheck_emu_launch* launch = nullptr;
    EXPECT_EQ(bankcheck_emu_launch_new(module_.get(), emucapi::kTransposeTile, &launch), BANKCHECK_EMU_OK)
        << bankcheck_emu_last_error();
    return LaunchPtr(launch);
  }

  // TransposeTile(in, out, kN)'s parameter buffer, laid out as the cubin says.
  std::vector<uint8_t> Params(uint64_t in, uint64_t out) const {
    uint32_t count = 0, bytes = 0;
    EXPECT_EQ(bankcheck_emu_kernel_params(module_.get(), emucapi::kTransposeTile, &count, &bytes),
              BANKCHECK_EMU_OK);
    EXPECT_EQ(count, 3u);
    std::vector<uint8_t> params(bytes);
    const int n = kN;
    const std::pair<const void*, size_t> values[] = {{&in, 8}, {&out, 8}, {&n, 4}};
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t offset = 0, size = 0;
      EXPECT_EQ(bankcheck_emu_kernel_param(module_.get(), emucapi::kTransposeTile, i, &offset, &size),
                BANKCHECK_EMU_OK);
      EXPECT_EQ(size, values[i].second);
      std::memcpy(params.data() + offset, values[i].first, size);
    }
    return params;
  }

  // A launch of 2 x 2 blocks of 32 x 8 threads with `in` and `out` mapped at kIn and kOut (each unless
  // null).
  ResultPtr Run(const std::vector<uint8_t>& params, std::vector<int>* in, std::vector<int>* out) const {
    LaunchPtr launch = NewLaunch();
    EXPECT_EQ(bankcheck_emu_launch_set_grid(launch.get(), 2, 2, 1), BANKCHECK_EMU_OK);
    EXPECT_EQ(bankcheck_emu_launch_set_block(launch.get(), 32, 8, 1), BANKCHECK_EMU_OK);
    EXPECT_EQ(bankcheck_emu_launch_set_params(launch.get(), params.data(), params.size()), BANKCHECK_EMU_OK)
        << bankcheck_emu_last_error();
    if (in != nullptr) {
      EXPECT_EQ(bankcheck_emu_launch_map(launch.get(), kIn, in->data(), in->size() * sizeof(int),
                                         BANKCHECK_EMU_KNOWN),
                BANKCHECK_EMU_OK);
    }
    if (out != nullptr) {
      EXPECT_EQ(bankcheck_emu_launch_map(launch.get(), kOut, out->data(), out->size() * sizeof(int),
                                         BANKCHECK_EMU_UNKNOWN),
                BANKCHECK_EMU_OK);
    }
    bankcheck_emu_result* result = nullptr;
    EXPECT_EQ(bankcheck_emu_launch_run(launch.get(), &result), BANKCHECK_EMU_OK)
        << bankcheck_emu_last_error();
    return ResultPtr(result);
  }

  ModulePtr module_;
};

// The same launch in an emulated program (the stand-in runtime, as a kernel suite's emulated program
// runs it): its record and its outputs.
LaunchRecord EmulatedProgramRecord(const std::vector<int>& in, std::vector<int>* out) {
  std::unique_ptr<FatbinEmulator> previous = TheCapture().SetEmulator(MakeSassFatbinEmulator());
  const size_t bytes = in.size() * sizeof(int);
  int* device_in = nullptr;
  int* device_out = nullptr;
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&device_in), bytes), cudaSuccess);
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&device_out), bytes), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(device_in, in.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  TheCapture().Start();
  EXPECT_EQ(emucapi::LaunchTransposeTile(dim3(2, 2), dim3(32, 8), device_in, device_out, kN), cudaSuccess);
  std::vector<LaunchRecord> records = TheCapture().Finish();
  EXPECT_EQ(cudaMemcpy(out->data(), device_out, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(device_in);
  cudaFree(device_out);
  TheCapture().SetEmulator(std::move(previous));
  EXPECT_EQ(records.size(), 1u);
  return records.empty() ? LaunchRecord{} : records.front();
}

TEST_F(EmulateCTest, TheRecordIsTheEmulatedProgramsAndTheOutputsTheReference) {
  std::vector<int> in = Matrix();
  std::vector<int> out(in.size(), -1);
  const ResultPtr result = Run(Params(kIn, kOut), &in, &out);
  ASSERT_TRUE(result);
  ASSERT_EQ(bankcheck_emu_result_decided(result.get()), 1) << bankcheck_emu_result_undecided(result.get());
  EXPECT_STREQ(bankcheck_emu_result_undecided(result.get()), "");
  ASSERT_EQ(bankcheck_emu_result_computed(result.get()), 1)
      << bankcheck_emu_result_not_computed(result.get());
  EXPECT_EQ(out, Transposed(in));
  EXPECT_EQ(in, Matrix());  // an input is only read

  LaunchRecord record = LaunchRecordFromJson(
      nlohmann::json::parse(bankcheck_emu_result_record_json(result.get())), "the C interface's record");
  EXPECT_EQ(record.counted_by, CountedBy::kEmulated);
  // 32-way conflicts on the column reads: 2 x 2 blocks x 8 warps x 4 loads, 32 wavefronts each.
  EXPECT_EQ(record.loads().instructions, 128u);
  EXPECT_EQ(record.loads().wavefronts, 128u * 32);
  EXPECT_EQ(record.stores().wavefronts, record.stores().instructions);
  // Its lines are those of the kernel's source, the column read's among them.
  ASSERT_TRUE(record.lines.has_value());
  bool column_read = false;
  for (const LineRecord& line : *record.lines)
    column_read |=
        line.kind == MemoryKind::kSharedLoad && line.code.find("tile[threadIdx.x][y]") != std::string::npos;
  EXPECT_TRUE(column_read) << bankcheck_emu_result_record_json(result.get());

  std::vector<int> program_out(in.size(), -1);
  const LaunchRecord program = EmulatedProgramRecord(in, &program_out);
  EXPECT_EQ(program_out, Transposed(in));
  record.lines.reset();  // the stand-in runtime leaves lines to the suite (AttachCaseLines)
  EXPECT_EQ(LaunchRecordToJson(record, RecordDetail::kFull).dump(2),
            LaunchRecordToJson(program, RecordDetail::kFull).dump(2));
}

TEST_F(EmulateCTest, AnImageInMemoryIsTheFilesModule) {
  std::ifstream file(BANKCHECK_TEST_CUBIN, std::ios::binary);
  const std::string image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  bankcheck_emu_module* module = nullptr;
  ASSERT_EQ(bankcheck_emu_module_load(image.data(), image.size(), &module), BANKCHECK_EMU_OK)
      << bankcheck_emu_last_error();
  const ModulePtr loaded(module);
  ASSERT_EQ(bankcheck_emu_kernel_count(loaded.get()), 1u);
  EXPECT_STREQ(bankcheck_emu_kernel_name(loaded.get(), 0), emucapi::kTransposeTile);
  EXPECT_EQ(bankcheck_emu_kernel_name(loaded.get(), 1), nullptr);
  uint32_t shared = 0;
  ASSERT_EQ(bankcheck_emu_kernel_static_shared(loaded.get(), emucapi::kTransposeTile, &shared),
            BANKCHECK_EMU_OK);
  EXPECT_EQ(shared,
            Module::FromCubinFile(BANKCHECK_TEST_CUBIN).Find(emucapi::kTransposeTile)->static_shared_bytes);
  EXPECT_GE(shared, 32u * 32 * sizeof(int));
  EXPECT_EQ(bankcheck_emu_api_version(), BANKCHECK_EMU_API_VERSION);
}

TEST_F(EmulateCTest, AnUnknownKernelNameIsRefusedNamingTheModulesKernels) {
  bankcheck_emu_launch* launch = nullptr;
  EXPECT_EQ(bankcheck_emu_launch_new(module_.get(), "TransposeTile", &launch), BANKCHECK_EMU_BAD_INPUT);
  EXPECT_EQ(launch, nullptr);
  EXPECT_THAT(bankcheck_emu_last_error(), HasSubstr("the module has no kernel 'TransposeTile'"));
  EXPECT_THAT(bankcheck_emu_last_error(), HasSubstr(emucapi::kTransposeTile));
  uint32_t count = 0;
  EXPECT_EQ(bankcheck_emu_kernel_params(module_.get(), "TransposeTile", &count, nullptr),
            BANKCHECK_EMU_BAD_INPUT);
  EXPECT_EQ(bankcheck_emu_kernel_param(module_.get(), emucapi::kTransposeTile, 3, nullptr, nullptr),
            BANKCHECK_EMU_BAD_INPUT);
  EXPECT_THAT(bankcheck_emu_last_error(), HasSubstr("has no parameter 3 (it has 3)"));
}

TEST_F(EmulateCTest, ATruncatedCubinIsRefused) {
  std::ifstream file(BANKCHECK_TEST_CUBIN, std::ios::binary);
  const std::string image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  bankcheck_emu_module* module = nullptr;
  EXPECT_EQ(bankcheck_emu_module_load(image.data(), image.size() / 2, &module), BANKCHECK_EMU_BAD_INPUT);
  EXPECT_EQ(module, nullptr);
  EXPECT_THAT(bankcheck_emu_last_error(),
              HasSubstr("the image is a cubin cut short: its section headers end past its"));
  EXPECT_EQ(bankcheck_emu_module_load(nullptr, 0, &module), BANKCHECK_EMU_BAD_INPUT);
  EXPECT_THAT(bankcheck_emu_last_error(), HasSubstr("no image"));
  // A later call that succeeds clears the error.
  EXPECT_EQ(bankcheck_emu_kernel_params(module_.get(), emucapi::kTransposeTile, nullptr, nullptr),
            BANKCHECK_EMU_OK);
  EXPECT_STREQ(bankcheck_emu_last_error(), "");
}

TEST_F(EmulateCTest, AParameterBufferOfAnotherSizeIsRefused) {
  const LaunchPtr launch = NewLaunch();
  const uint64_t pointers[2] = {};
  EXPECT_EQ(bankcheck_emu_launch_set_params(launch.get(), pointers, sizeof pointers),
            BANKCHECK_EMU_BAD_INPUT);
  EXPECT_THAT(bankcheck_emu_last_error(),
              HasSubstr("16 bytes of parameters for emucapi::TransposeTile(int const*, int*, int), whose "
                        "parameters are 20 bytes"));
  bankcheck_emu_result* result = nullptr;
  EXPECT_EQ(bankcheck_emu_launch_run(launch.get(), &result), BANKCHECK_EMU_BAD_INPUT);
  EXPECT_EQ(result, nullptr);
  EXPECT_THAT(bankcheck_emu_last_error(), HasSubstr("the launch's parameters were not set"));
}

TEST_F(EmulateCTest, StoresOutsideTheMappedBuffersAreNotComputedAndTouchNothing) {
  std::vector<int> in = Matrix();
  std::vector<int> unmapped(in.size(), -1);
  const ResultPtr result = Run(Params(kIn, reinterpret_cast<uintptr_t>(unmapped.data())), &in, nullptr);
  ASSERT_TRUE(result);
  // The counts do not depend on the memory: decided. The stores land outside every buffer.
  EXPECT_EQ(bankcheck_emu_result_decided(result.get()), 1) << bankcheck_emu_result_undecided(result.get());
  EXPECT_EQ(bankcheck_emu_result_computed(result.get()), 0);
  EXPECT_THAT(bankcheck_emu_result_not_computed(result.get()),
              HasSubstr("stores outside the device allocations the program made"));
  EXPECT_THAT(bankcheck_emu_result_not_computed(result.get()), HasSubstr("of emucapi::TransposeTile"));
  EXPECT_EQ(unmapped, std::vector<int>(in.size(), -1));
}

TEST_F(EmulateCTest, LoadsOutsideTheMappedBuffersAreUnknown) {
  std::vector<int> unmapped = Matrix();
  std::vector<int> out(unmapped.size(), -1);
  const ResultPtr result = Run(Params(reinterpret_cast<uintptr_t>(unmapped.data()), kOut), nullptr, &out);
  ASSERT_TRUE(result);
  EXPECT_EQ(bankcheck_emu_result_decided(result.get()), 1) << bankcheck_emu_result_undecided(result.get());
  EXPECT_EQ(bankcheck_emu_result_computed(result.get()), 0);
  // The unknown values go through the shared tile to the stores.
  EXPECT_THAT(bankcheck_emu_result_not_computed(result.get()), HasSubstr("feeds the value stored of STG"));
  EXPECT_EQ(out, std::vector<int>(unmapped.size(), -1));
}

TEST_F(EmulateCTest, OverlappingBuffersAndBadShapesAreRefused) {
  const LaunchPtr launch = NewLaunch();
  std::vector<int> buffer(64);
  ASSERT_EQ(bankcheck_emu_launch_map(launch.get(), 0x10000, buffer.data(), 256, BANKCHECK_EMU_KNOWN),
            BANKCHECK_EMU_OK);
  EXPECT_EQ(bankcheck_emu_launch_map(launch.get(), 0x10000 + 255, buffer.data(), 1, BANKCHECK_EMU_KNOWN),
            BANKCHECK_EMU_BAD_INPUT);
  EXPECT_THAT(bankcheck_emu_last_error(), HasSubstr("overlaps one mapped before"));
  EXPECT_EQ(bankcheck_emu_launch_map(launch.get(), 0x10000 - 1, buffer.data(), 2, BANKCHECK_EMU_KNOWN),
            BANKCHECK_EMU_BAD_INPUT);
  EXPECT_EQ(bankcheck_emu_launch_map(launch.get(), 0x10000 + 256, buffer.data(), 4, 7),
            BANKCHECK_EMU_BAD_INPUT);
  EXPECT_THAT(bankcheck_emu_last_error(), HasSubstr("unknown buffer flags 7"));
  EXPECT_EQ(bankcheck_emu_launch_map(launch.get(), UINT64_MAX - 2, buffer.data(), 4, 0),
            BANKCHECK_EMU_BAD_INPUT);

  const std::vector<uint8_t> params = Params(0x10000, 0x10000);
  ASSERT_EQ(bankcheck_emu_launch_set_params(launch.get(), params.data(), params.size()), BANKCHECK_EMU_OK);
  ASSERT_EQ(bankcheck_emu_launch_set_block(launch.get(), 64, 32, 1), BANKCHECK_EMU_OK);
  bankcheck_emu_result* result = nullptr;
  EXPECT_EQ(bankcheck_emu_launch_run(launch.get(), &result), BANKCHECK_EMU_BAD_INPUT);
  EXPECT_THAT(bankcheck_emu_last_error(), HasSubstr("the GPU refuses such a launch"));
  ASSERT_EQ(bankcheck_emu_launch_set_block(launch.get(), 32, 8, 1), BANKCHECK_EMU_OK);
  ASSERT_EQ(bankcheck_emu_launch_set_dynamic_shared(launch.get(), 227 * 1024), BANKCHECK_EMU_OK);
  EXPECT_EQ(bankcheck_emu_launch_run(launch.get(), &result), BANKCHECK_EMU_BAD_INPUT);
  EXPECT_THAT(bankcheck_emu_last_error(), HasSubstr("more than a block may have on sm_90"));
}

}  // namespace
}  // namespace bankcheck::emulate::runtime
