#include "cuda/internal/stream_capture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

namespace bankcheck::internal {
namespace {

using ::testing::HasSubstr;

// A stand-in for cuStreamIsCapturing: the capture status of each stream, as the test sets it.
std::map<CUstream, CUstreamCaptureStatus> g_status;
CUresult g_query_result = CUDA_SUCCESS;

CUresult FakeIsCapturing(CUstream stream, CUstreamCaptureStatus* status) {
  if (g_query_result != CUDA_SUCCESS) return g_query_result;
  const auto found = g_status.find(stream);
  *status = found == g_status.end() ? CU_STREAM_CAPTURE_STATUS_NONE : found->second;
  return CUDA_SUCCESS;
}

StreamIsCapturingFn FindFake() { return &FakeIsCapturing; }
StreamIsCapturingFn FindNothing() { return nullptr; }
int g_finds = 0;
StreamIsCapturingFn CountFinds() {
  ++g_finds;
  return &FakeIsCapturing;
}

CUstream Stream(uintptr_t n) { return reinterpret_cast<CUstream>(n); }

class StreamCaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_status.clear();
    g_query_result = CUDA_SUCCESS;
  }

  // A capture of `stream` as the callbacks see it: the begin call's entry and successful exit.
  static void Begin(StreamCaptures& captures, CUstream stream) {
    captures.BeginEntered();
    g_status[stream] = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    captures.BeginExited(CUDA_SUCCESS);
  }
  // Its end call: the capture ends (also when it was invalidated: the end call fails then).
  static void End(StreamCaptures& captures, CUstream stream, CUresult result = CUDA_SUCCESS) {
    const bool was = captures.EndEntered(stream);
    g_status.erase(stream);
    captures.EndExited(stream, was, result);
  }
};

TEST(JudgeLaunchTest, OnlyALaunchWhileNoCaptureIsInProgressMayCallCuda) {
  EXPECT_EQ(JudgeLaunch(false, 0), CaptureVerdict::kFree);
  EXPECT_EQ(JudgeLaunch(true, 1), CaptureVerdict::kCaptured);
  EXPECT_EQ(JudgeLaunch(false, 1), CaptureVerdict::kCaptureElsewhere);
  EXPECT_EQ(JudgeLaunch(false, 3), CaptureVerdict::kCaptureElsewhere);
  // A captured launch does not run, whatever else is in progress.
  EXPECT_EQ(JudgeLaunch(true, 0), CaptureVerdict::kCaptured);
}

TEST(JudgeLaunchTest, TheReasonSaysWhyAndWhatToDo) {
  const std::string reason = CaptureInProgressReason();
  EXPECT_THAT(reason, HasSubstr("stream capture was in progress"));
  EXPECT_THAT(reason, HasSubstr("invalidate the program's capture"));
  EXPECT_THAT(reason, HasSubstr("Launch it when no capture is in progress"));
}

TEST_F(StreamCaptureTest, TheQueryIsFoundOnceAtTheFirstBeginBeforeItsCaptureCounts) {
  g_finds = 0;
  StreamCaptures captures(&CountFinds);
  // Before any capture: no query is needed (nothing can be captured), and none is made.
  EXPECT_EQ(captures.Judge(Stream(1)), CaptureVerdict::kFree);
  EXPECT_EQ(g_finds, 0);
  captures.BeginEntered();
  EXPECT_EQ(g_finds, 1);
  g_status[Stream(1)] = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  captures.BeginExited(CUDA_SUCCESS);
  EXPECT_EQ(captures.Judge(Stream(1)), CaptureVerdict::kCaptured);
  Begin(captures, Stream(2));
  captures.FindQuery();
  EXPECT_EQ(g_finds, 1);
}

TEST_F(StreamCaptureTest, ALaunchIntoTheCapturedStreamIsANodeAndOneElsewhereRunsUnmeasured) {
  StreamCaptures captures(&FindFake);
  captures.FindQuery();
  EXPECT_EQ(captures.Judge(Stream(1)), CaptureVerdict::kFree);
  Begin(captures, Stream(1));
  EXPECT_EQ(captures.in_progress(), 1u);
  EXPECT_EQ(captures.Judge(Stream(1)), CaptureVerdict::kCaptured);
  EXPECT_EQ(captures.Judge(Stream(2)), CaptureVerdict::kCaptureElsewhere);
  // Invalidated (an unsafe call during it): a launch into it still does not run.
  g_status[Stream(1)] = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
  EXPECT_EQ(captures.Judge(Stream(1)), CaptureVerdict::kCaptured);
  End(captures, Stream(1), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(captures.in_progress(), 0u);
  EXPECT_EQ(captures.Judge(Stream(1)), CaptureVerdict::kFree);
  EXPECT_EQ(captures.Judge(Stream(2)), CaptureVerdict::kFree);
}

TEST_F(StreamCaptureTest, EveryCaptureIsFollowedUntilItsOwnEnd) {
  StreamCaptures captures(&FindFake);
  Begin(captures, Stream(1));
  Begin(captures, Stream(2));
  End(captures, Stream(1));
  EXPECT_EQ(captures.in_progress(), 1u);
  EXPECT_EQ(captures.Judge(Stream(1)), CaptureVerdict::kCaptureElsewhere);
  End(captures, Stream(2));
  EXPECT_EQ(captures.Judge(Stream(1)), CaptureVerdict::kFree);
}

TEST_F(StreamCaptureTest, AFailedBeginAndAnEndThatEndsNothingCountNothing) {
  StreamCaptures captures(&FindFake);
  captures.BeginEntered();
  // From its entry a begin counts: nothing is called while it may be starting a capture.
  EXPECT_EQ(captures.Judge(Stream(2)), CaptureVerdict::kCaptureElsewhere);
  captures.BeginExited(CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(captures.in_progress(), 0u);
  // cuStreamEndCapture on a stream that is not being captured.
  End(captures, Stream(3), CUDA_ERROR_ILLEGAL_STATE);
  EXPECT_EQ(captures.in_progress(), 0u);
  // From a thread other than the capturing one (not relaxed): refused, and the capture goes on.
  Begin(captures, Stream(1));
  const bool was = captures.EndEntered(Stream(1));
  captures.EndExited(Stream(1), was, CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
  EXPECT_EQ(captures.in_progress(), 1u);
  End(captures, Stream(1));
  EXPECT_EQ(captures.in_progress(), 0u);
}

TEST_F(StreamCaptureTest, TheLegacyStreamJoiningABlockingStreamsCaptureDoesNotRun) {
  StreamCaptures captures(&FindFake);
  Begin(captures, Stream(1));
  g_query_result = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  EXPECT_EQ(captures.Judge(nullptr), CaptureVerdict::kCaptured);
}

TEST_F(StreamCaptureTest, WithoutTheQueryEveryLaunchDuringACaptureIsRefusedAndItsEndStillCounts) {
  StreamCaptures captures(&FindNothing);
  captures.BeginEntered();
  captures.BeginExited(CUDA_SUCCESS);
  // Not known to be captured: no CUDA call is made, and the launch is refused, not measured.
  EXPECT_EQ(captures.Judge(Stream(1)), CaptureVerdict::kCaptureElsewhere);
  const bool was = captures.EndEntered(Stream(1));
  captures.EndExited(Stream(1), was, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(captures.in_progress(), 0u);
  captures.BeginEntered();
  captures.BeginExited(CUDA_SUCCESS);
  captures.EndExited(Stream(1), captures.EndEntered(Stream(1)), CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
  EXPECT_EQ(captures.in_progress(), 1u);
}

TEST_F(StreamCaptureTest, ASpanIsOpenOnlyForALaunchThatMayCallCuda) {
  StreamCaptures captures(&FindFake);
  ASSERT_EQ(captures.EnterLaunchSpan(Stream(1)), CaptureVerdict::kFree);
  captures.LeaveSpan();
  ASSERT_TRUE(captures.EnterSpan());
  captures.LeaveSpan();
  Begin(captures, Stream(1));
  // Refused spans hold nothing: a second begin does not wait for them.
  EXPECT_EQ(captures.EnterLaunchSpan(Stream(1)), CaptureVerdict::kCaptured);
  EXPECT_EQ(captures.EnterLaunchSpan(Stream(2)), CaptureVerdict::kCaptureElsewhere);
  EXPECT_FALSE(captures.EnterSpan());
  Begin(captures, Stream(2));
  EXPECT_EQ(captures.in_progress(), 2u);
}

TEST_F(StreamCaptureTest, ACaptureBeginsOnlyAfterTheSpansOpenHaveEnded) {
  StreamCaptures captures(&FindFake);
  ASSERT_EQ(captures.EnterLaunchSpan(Stream(1)), CaptureVerdict::kFree);
  std::atomic<bool> begun{false};
  std::thread other([&] {
    captures.BeginEntered();
    begun = true;
  });
  // The launch's synchronization would run here: the capture must not have begun.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(begun.load());
  EXPECT_EQ(captures.in_progress(), 0u);
  captures.LeaveSpan();
  other.join();
  EXPECT_TRUE(begun.load());
  EXPECT_EQ(captures.in_progress(), 1u);
  EXPECT_FALSE(captures.EnterSpan());
}

}  // namespace
}  // namespace bankcheck::internal
