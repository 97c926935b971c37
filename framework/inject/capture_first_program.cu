// bankcheck_capture_first MODE: a plain CUDA program (no bankcheck library) whose first kernel launches
// are captured into a CUDA graph: what `bankcheck run`'s GPU test inject/capture_first
// (run_capture_test.sh) measures. The injection must make no CUDA call during a capture (the capture
// would be invalidated and the program fail), and measure the graph's nodes when it is launched.
//
//   global, thread-local, relaxed   allocates, makes a stream, captures Fill then Shift in that capture
//                                   mode (the first kernel launches of the process), instantiates and
//                                   launches the graph, then launches Fill plainly. Under `bankcheck
//                                   run`: cases Fill and Shift (the graph's nodes, launch 0 of the
//                                   process), Fill#2 (launch 1)
//   elsewhere                       a second thread captures Fill (global mode) while the main thread
//                                   launches Shift into another stream: a launch that runs while a
//                                   capture is in progress, which `bankcheck run` refuses with the
//                                   reason (it may call no CUDA then) while the program runs as without it
//
// Every output is checked on the host. Exit status: 0 ok, 1 a wrong result or a CUDA error, 2 usage.

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#define BANKCHECK_TEST_PROGRAM "bankcheck_capture_first"
#include "program_kernels.cuh"

namespace {

// Captures Fill then Shift on `stream` in `mode`, launches the graph, then Fill plainly.
bool CaptureFirst(cudaStreamCaptureMode mode, float* a, float* b, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  if (!Check(cudaStreamBeginCapture(stream, mode), "cudaStreamBeginCapture")) return false;
  Fill<<<kBlocks, kWarp, 0, stream>>>(a, 1.0f);
  Shift<<<kBlocks, kWarp, 0, stream>>>(a, b);
  bool ok = Check(cudaGetLastError(), "captured launch") &&
            Check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture") &&
            Check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate") &&
            Check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch") &&
            Check(cudaStreamSynchronize(stream), "graph") && Expect(b, 1.0f, true);
  if (ok) {
    Fill<<<kBlocks, kWarp, 0, stream>>>(a, 2.0f);
    ok = Check(cudaGetLastError(), "launch") && Check(cudaStreamSynchronize(stream), "Fill") &&
         Expect(a, 2.0f, false);
  }
  if (exec != nullptr) cudaGraphExecDestroy(exec);
  if (graph != nullptr) cudaGraphDestroy(graph);
  return ok;
}

// A second thread captures Fill in global mode; the main thread launches Shift into `other` while
// that capture is in progress. After it ends, the graph and Shift run again and are checked.
bool LaunchDuringCapture(float* a, float* b, cudaStream_t stream, cudaStream_t other) {
  std::mutex mutex;
  std::condition_variable changed;
  int step = 0;  // 1: the capture has begun; 2: the main thread's launch was made
  const auto wait_for = [&](int wanted) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return step >= wanted; });
  };
  const auto advance = [&](int to) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      step = to;
    }
    changed.notify_all();
  };
  cudaGraph_t graph = nullptr;
  cudaError_t begin = cudaSuccess, end = cudaSuccess;
  std::thread capturing([&] {
    begin = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    if (begin == cudaSuccess) Fill<<<kBlocks, kWarp, 0, stream>>>(a, 5.0f);
    advance(1);
    wait_for(2);
    if (begin == cudaSuccess) end = cudaStreamEndCapture(stream, &graph);
  });
  wait_for(1);
  Shift<<<kBlocks, kWarp, 0, other>>>(a, b);  // runs now, while the capture is in progress
  const cudaError_t launched = cudaGetLastError();
  advance(2);
  capturing.join();
  cudaGraphExec_t exec = nullptr;
  bool ok = Check(begin, "cudaStreamBeginCapture") && Check(launched, "launch during the capture") &&
            Check(end, "cudaStreamEndCapture") && Check(cudaStreamSynchronize(other), "Shift") &&
            Check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate") &&
            Check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch") &&
            Check(cudaStreamSynchronize(stream), "graph") && Expect(a, 5.0f, false);
  if (ok) {
    Shift<<<kBlocks, kWarp, 0, other>>>(a, b);
    ok = Check(cudaGetLastError(), "launch") && Check(cudaStreamSynchronize(other), "Shift") &&
         Expect(b, 5.0f, true);
  }
  if (exec != nullptr) cudaGraphExecDestroy(exec);
  if (graph != nullptr) cudaGraphDestroy(graph);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc == 2 ? argv[1] : "";
  const bool elsewhere = std::strcmp(mode, "elsewhere") == 0;
  cudaStreamCaptureMode capture_mode = cudaStreamCaptureModeGlobal;
  if (std::strcmp(mode, "thread-local") == 0) {
    capture_mode = cudaStreamCaptureModeThreadLocal;
  } else if (std::strcmp(mode, "relaxed") == 0) {
    capture_mode = cudaStreamCaptureModeRelaxed;
  } else if (std::strcmp(mode, "global") != 0 && !elsewhere) {
    std::fprintf(stderr, "usage: bankcheck_capture_first global|thread-local|relaxed|elsewhere\n");
    return 2;
  }
  float* a = nullptr;
  float* b = nullptr;
  cudaStream_t stream = nullptr;
  cudaStream_t other = nullptr;
  bool ok = Check(cudaMalloc(&a, sizeof(float) * kElements), "cudaMalloc") &&
            Check(cudaMalloc(&b, sizeof(float) * kElements), "cudaMalloc") &&
            Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate") &&
            Check(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), "cudaStreamCreate");
  if (ok)
    ok = elsewhere ? LaunchDuringCapture(a, b, stream, other) : CaptureFirst(capture_mode, a, b, stream);
  if (stream != nullptr) cudaStreamDestroy(stream);
  if (other != nullptr) cudaStreamDestroy(other);
  cudaFree(a);
  cudaFree(b);
  if (!ok) return 1;
  std::printf("bankcheck_capture_first: %s: every result correct\n", mode);
  return 0;
}
