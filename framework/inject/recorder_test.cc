// The injection's recorder on the CPU: the test plays the launch callbacks (launches, context
// teardowns) and the GPU (a fake Measurer whose measurement counts the launches made while it
// runs, as the counter session does), and reads the process's files as `bankcheck run` does.
// NVTX is NVTX's own header-only implementation, injected statically as NVTX_INJECTION64_PATH's
// library is dynamically, and called before the recorder exists, as a PyTorch script opens its
// first range before CUDA initializes.
#include <cstdint>

// NVTX's static injection (nvtxInit.h): declared before NVTX's header, which then leaves out its weak
// definition, and defined below.
extern "C" int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(uint32_t));
#define NVTX_STATIC_INJECTION_IMPL

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"
#include "cuda/internal/nvtx_ranges.h"
#include "inject/internal/recorder.h"

int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(uint32_t)) = &bankcheck::internal::FollowNvtxRangesFrom;

namespace bankcheck::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_support::ReadFile;

// What the fake GPU did, for the test to see.
struct FakeGpu {
  int started = 0;
  int shut_down = 0;
  bool measuring = false;
  std::vector<LaunchRecord> counted;  // by the measurement running
  std::string fault;                  // what Finish reports, with the launches counted before it
  std::string refusal;                // why Start throws
};

class FakeMeasurement : public Measurement {
 public:
  explicit FakeMeasurement(FakeGpu& gpu) : gpu_(gpu) {}
  Measured Finish() override {
    gpu_.measuring = false;
    Measured measured{std::move(gpu_.counted), gpu_.fault};
    gpu_.counted.clear();
    return measured;
  }

 private:
  FakeGpu& gpu_;
};

class FakeMeasurer : public Measurer {
 public:
  explicit FakeMeasurer(FakeGpu& gpu) : gpu_(gpu) {}
  std::unique_ptr<Measurement> Start(bool) override {
    if (!gpu_.refusal.empty()) throw Error(ErrorKind::kCupti, gpu_.refusal);
    ++gpu_.started;
    gpu_.measuring = true;
    return std::make_unique<FakeMeasurement>(gpu_);
  }
  RunMetadata Describe() override { return testing_support::MakeMetadata(); }
  void Shutdown() override { ++gpu_.shut_down; }

 private:
  FakeGpu& gpu_;
};

const auto kContextA = reinterpret_cast<CUcontext>(0x1000);
const auto kContextB = reinterpret_cast<CUcontext>(0x2000);

class RecorderTest : public testing_support::TempDirTest {
 protected:
  Recorder& Make(uint64_t max_launches = 0, const std::string& kernel = "", const std::string& range = "",
                 bool measure_once = false) {
    RunSettings settings;
    settings.output_dir = dir_.string();
    settings.max_launches = max_launches;
    settings.measure_once = measure_once;
    settings.kernel_pattern = kernel;
    settings.range_pattern = range;
    recorder_ = std::make_unique<Recorder>(settings, std::make_unique<FakeMeasurer>(gpu_));
    return *recorder_;
  }

  // A launch as the launch callbacks report it, in the calling thread's NVTX range; counted when a
  // measurement runs once the recorder has seen it.
  // `configuration`: what the launch callbacks would give for --measure-once ("" for unknown).
  void Launch(CUcontext context, const std::string& kernel, const std::string& configuration = "") {
    ObservedLaunch launch;
    launch.context = context;
    launch.mangled = kernel.c_str();
    launch.nvtx_range = CurrentNvtxRange();
    launch.process_launch = next_launch_++;
    launch.configuration = configuration;
    recorder_->OnLaunch(launch);
    if (!gpu_.measuring) return;
    LaunchRecord record = testing_support::MakeRecord(64, 64, kernel);
    record.nvtx_range = launch.nvtx_range;
    record.process_launch = launch.process_launch;
    gpu_.counted.push_back(record);
  }

  // A launch that runs while a stream capture is in progress elsewhere in the process, as the launch
  // callbacks report it: unmeasurable, and never counted.
  void LaunchDuringCapture(CUcontext context, const std::string& kernel) {
    ObservedLaunch launch;
    launch.context = context;
    launch.mangled = kernel.c_str();
    launch.process_launch = next_launch_++;
    launch.unmeasurable = "a stream capture was in progress";
    recorder_->OnLaunch(launch);
  }

  // The repeats of each case's launch, by case name.
  std::map<std::string, uint64_t> Repeats() const {
    std::map<std::string, uint64_t> repeats;
    for (const auto& [name, result] : ReadResults(File(".json")).cases)
      repeats[name] = RepeatsOf(result.launches.at(0));
    return repeats;
  }

  std::filesystem::path File(const std::string& extension) const {
    return dir_ / ("process-" + std::to_string(::getpid()) + extension);
  }

  std::vector<std::string> Cases() const {
    std::vector<std::string> names;
    for (const auto& [name, result] : ReadResults(File(".json")).cases) names.push_back(name);
    return names;
  }

  FakeGpu gpu_;
  std::unique_ptr<Recorder> recorder_;
  uint64_t next_launch_ = 0;
};

TEST_F(RecorderTest, FollowsAnNvtxRangeOpenedBeforeCudaInitialized) {
  // The program's first NVTX call initializes NVTX and the injection's range following; CUDA, and
  // with it the recorder, comes later (torch.randn inside the first range).
  nvtxRangePushA("inputs");
  Recorder& recorder = Make();
  Launch(kContextA, "randn");
  Launch(kContextA, "randn");
  nvtxRangePop();
  Launch(kContextA, "randn");
  recorder.AtExit();
  EXPECT_THAT(Cases(), ElementsAre("inputs/randn", "inputs/randn#2", "randn"));
}

TEST_F(RecorderTest, StopsMeasuringAfterMaxLaunchesMatchingOnes) {
  Recorder& recorder = Make(2, "^mul");
  Launch(kContextA, "transpose");  // measured, but neither reported nor counted towards the limit
  Launch(kContextA, "mul");
  Launch(kContextA, "mul");
  Launch(kContextA, "mul");  // the limit was reached: the measurement is finished, this runs unpatched
  Launch(kContextA, "mul");
  EXPECT_EQ(gpu_.started, 1);
  EXPECT_FALSE(gpu_.measuring);
  EXPECT_THAT(Cases(), ElementsAre("mul", "mul#2")) << "written when the limit is reached";
  recorder.AtExit();
  EXPECT_THAT(Cases(), ElementsAre("mul", "mul#2"));
  EXPECT_EQ(gpu_.shut_down, 1);
}

TEST_F(RecorderTest, WritesAtItsContextsTeardownAndMeasuresTheNextContextAfresh) {
  Recorder& recorder = Make();
  Launch(kContextA, "transpose");
  recorder.OnContextDestroy(kContextB);  // not the measured context
  EXPECT_TRUE(gpu_.measuring);
  Launch(kContextA, "transpose");
  recorder.OnContextDestroy(kContextA);
  EXPECT_FALSE(gpu_.measuring);
  EXPECT_THAT(Cases(), ElementsAre("transpose", "transpose#2")) << "written before the context goes";
  Launch(kContextB, "transpose");
  EXPECT_EQ(gpu_.started, 2);
  recorder.AtExit();
  EXPECT_THAT(Cases(), ElementsAre("transpose", "transpose#2", "transpose#3"));
  EXPECT_FALSE(std::filesystem::exists(File(".error")));
}

TEST_F(RecorderTest, AFaultAfterCountedLaunchesKeepsThemAndEndsMeasuring) {
  Recorder& recorder = Make();
  Launch(kContextA, "fine");
  Launch(kContextA, "faulty");
  gpu_.fault = "kernel 'faulty' (launch 2 of the session) faulted: an illegal memory access";
  testing::internal::CaptureStderr();
  recorder.OnContextDestroy(kContextA);
  EXPECT_THAT(testing::internal::GetCapturedStderr(), HasSubstr("bankcheck: error: kernel 'faulty'"));
  EXPECT_THAT(Cases(), ElementsAre("faulty", "fine"));
  EXPECT_THAT(ReadFile(File(".error")), HasSubstr("kernel 'faulty' (launch 2"));
  Launch(kContextB, "after");
  EXPECT_EQ(gpu_.started, 1) << "nothing is measured after a fault";
  recorder.AtExit();
  EXPECT_THAT(Cases(), ElementsAre("faulty", "fine"));
}

TEST_F(RecorderTest, AMeasurementThatCannotStartIsWrittenAsTheReason) {
  Recorder& recorder = Make();
  gpu_.refusal = "the counters need CAP_PERFMON";
  testing::internal::CaptureStderr();
  Launch(kContextA, "transpose");
  testing::internal::GetCapturedStderr();
  Launch(kContextA, "transpose");
  recorder.AtExit();
  EXPECT_THAT(Cases(), ElementsAre());
  EXPECT_THAT(ReadFile(File(".error")), HasSubstr("CAP_PERFMON"));
}

TEST_F(RecorderTest, AProcessThatLaunchedNothingWritesAnEmptyFile) {
  Make().AtExit();
  EXPECT_THAT(Cases(), ElementsAre());
  EXPECT_EQ(gpu_.shut_down, 1);
}

using ::testing::Pair;

TEST_F(RecorderTest, MeasureOnceRunsARepeatedConfigurationUnmeasuredAndCountsItOnTheFirst) {
  Recorder& recorder = Make(0, "", "", /*measure_once=*/true);
  EXPECT_TRUE(recorder.WantsConfigurations());
  Launch(kContextA, "gemm", "gemm 512");
  Launch(kContextA, "gemm", "gemm 512");  // a repeat: the measurement ends, this one runs unpatched
  EXPECT_FALSE(gpu_.measuring);
  Launch(kContextA, "gemm", "gemm 512");
  Launch(kContextA, "gemm", "gemm 1024");  // new: measured again
  EXPECT_TRUE(gpu_.measuring);
  Launch(kContextA, "scale", "scale 1");
  Launch(kContextA, "gemm", "gemm 512");
  Launch(kContextA, "gemm", "gemm 1024");
  Launch(kContextA, "scale", "");  // arguments unknown: never a repeat
  Launch(kContextA, "scale", "");
  recorder.AtExit();
  EXPECT_EQ(gpu_.started, 3);
  EXPECT_THAT(Repeats(), ElementsAre(Pair("gemm", 3u), Pair("gemm#2", 1u), Pair("scale", 0u),
                                     Pair("scale#2", 0u), Pair("scale#3", 0u)));
  EXPECT_THAT(ReadResults(File(".json")).cases.at("gemm").description,
              HasSubstr("measured once for it and 3 later launch(es) of the same configuration"));
}

TEST_F(RecorderTest, WithoutMeasureOnceConfigurationsAreIgnored) {
  Recorder& recorder = Make();
  EXPECT_FALSE(recorder.WantsConfigurations());
  Launch(kContextA, "gemm", "gemm 512");
  Launch(kContextA, "gemm", "gemm 512");
  recorder.AtExit();
  EXPECT_THAT(Repeats(), ElementsAre(Pair("gemm", 0u), Pair("gemm#2", 0u)));
  EXPECT_EQ(gpu_.started, 1);
}

TEST_F(RecorderTest, RepeatsDoNotCountTowardsMaxLaunches) {
  Recorder& recorder = Make(2, "", "", /*measure_once=*/true);
  Launch(kContextA, "gemm", "gemm 512");
  Launch(kContextA, "gemm", "gemm 512");
  Launch(kContextA, "gemm", "gemm 512");
  Launch(kContextA, "scale", "scale 1");
  Launch(kContextA, "late", "late 1");  // the limit of 2 measured launches is reached
  recorder.AtExit();
  EXPECT_THAT(Repeats(), ElementsAre(Pair("gemm", 2u), Pair("scale", 0u)));
}

TEST_F(RecorderTest, RepeatsAfterTheLastWriteAreWrittenAtExit) {
  Recorder& recorder = Make(0, "", "", /*measure_once=*/true);
  Launch(kContextA, "gemm", "gemm 512");
  recorder.OnContextDestroy(kContextA);  // finished and written
  EXPECT_THAT(Repeats(), ElementsAre(Pair("gemm", 0u)));
  Launch(kContextA, "gemm", "gemm 512");
  recorder.OnContextDestroy(kContextA);  // nothing measuring: what the repeat changed is written
  EXPECT_THAT(Repeats(), ElementsAre(Pair("gemm", 1u)));
  Launch(kContextA, "gemm", "gemm 512");
  recorder.AtExit();
  EXPECT_THAT(Repeats(), ElementsAre(Pair("gemm", 2u)));
  EXPECT_EQ(gpu_.started, 1);
}

TEST_F(RecorderTest, ALaunchDuringACaptureStartsNothingAndEndsMeasuringWithItsReason) {
  Recorder& recorder = Make();
  testing::internal::CaptureStderr();
  LaunchDuringCapture(kContextA, "transpose");
  EXPECT_THAT(testing::internal::GetCapturedStderr(),
              HasSubstr("bankcheck: error: launch 0 of the process ('transpose') ran unmeasured: a stream "
                        "capture was in progress"));
  EXPECT_EQ(gpu_.started, 0) << "starting a measurement calls CUDA";
  Launch(kContextA, "transpose");
  EXPECT_EQ(gpu_.started, 0) << "measuring ended with the refusal";
  recorder.AtExit();
  EXPECT_THAT(Cases(), ElementsAre());
  EXPECT_THAT(ReadFile(File(".error")), HasSubstr("ran unmeasured: a stream capture was in progress"));
}

TEST_F(RecorderTest, ALaunchDuringACaptureLeavesTheMeasurementRunningUntilItMayBeFinished) {
  Recorder& recorder = Make();
  Launch(kContextA, "fill");
  testing::internal::CaptureStderr();
  LaunchDuringCapture(kContextA, "transpose");
  testing::internal::GetCapturedStderr();
  EXPECT_TRUE(gpu_.measuring) << "finishing a measurement synchronizes, which a capture forbids";
  EXPECT_THAT(ReadFile(File(".error")), HasSubstr("('transpose') ran unmeasured"));
  // The session refuses the launch when it finishes, here at exit (the counter session keeps no record
  // of a refused measurement).
  gpu_.counted.clear();
  gpu_.fault = "launch 2 of the session cannot be counted exactly: a stream capture was in progress";
  testing::internal::CaptureStderr();
  recorder.AtExit();
  testing::internal::GetCapturedStderr();
  EXPECT_FALSE(gpu_.measuring);
  EXPECT_THAT(Cases(), ElementsAre());
  EXPECT_THAT(ReadFile(File(".error")), HasSubstr("cannot be counted exactly: a stream capture"));
}

TEST_F(RecorderTest, ALaunchDuringACaptureThatIsNotSelectedChangesNothing) {
  Recorder& recorder = Make(0, "^mul");
  LaunchDuringCapture(kContextA, "transpose");
  Launch(kContextA, "mul");
  recorder.AtExit();
  EXPECT_EQ(gpu_.started, 1);
  EXPECT_THAT(Cases(), ElementsAre("mul"));
  EXPECT_FALSE(std::filesystem::exists(File(".error")));
}

}  // namespace
}  // namespace bankcheck::internal
