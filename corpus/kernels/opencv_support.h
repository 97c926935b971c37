#pragma once
// What the OpenCV corpus files share (corpus/kernels/opencv_*.cu): OpenCV's CUDA device headers
// (opencv2/core/cuda/*.hpp, OpenCV 4.6.0 as Debian's libopencv-core-dev 4.6.0+dfsg-12 installs
// them; Apache-2.0), found by cmake/BankcheckOpenCV.cmake and compiled as SYSTEM includes. Only
// their device templates are used: no OpenCV library is linked. Without them each case registers
// and skips with kOpenCvMissing.
//
// OpenCV 4.6's common.hpp, which nearly every one of these headers includes, declares a texture
// helper whose parameter is a `const textureReference*`: CUDA 12 removed texture references, so the
// type is declared here (incomplete, never defined) for the declaration to parse. No case calls it.
// common.hpp is included here for the namespace of OpenCV's device code, cvd below.

#if __has_include(<opencv2/core/cuda/common.hpp>)
struct textureReference;
#include <opencv2/core/cuda/common.hpp>
#define BANKCHECK_CORPUS_HAS_OPENCV 1
#else
#define BANKCHECK_CORPUS_HAS_OPENCV 0
#endif

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>

#include "corpus_support.h"

namespace bankcheck::corpus {

#if BANKCHECK_CORPUS_HAS_OPENCV
namespace cvd = cv::cuda::device;
#endif

#if !BANKCHECK_CORPUS_HAS_OPENCV
inline const char* const kOpenCvMissing =
    "OpenCV's CUDA device headers (opencv2/core/cuda/*.hpp) were not found when this suite was built "
    "(apt-get install libopencv-core-dev, or -DBANKCHECK_OPENCV_INCLUDE_DIR=...; "
    "see ci/jobs/install-deps.sh): "
    "the OpenCV corpus cases are not built";
#endif

// A case's run function, defined only where the headers were found (the kernels it launches are):
// the same cases register either way, and without the headers each skips with the reason.
#if BANKCHECK_CORPUS_HAS_OPENCV
#define BANKCHECK_OPENCV_RUN(...) __VA_ARGS__
#else
#define BANKCHECK_OPENCV_RUN(...) nullptr
#endif

// Registers OpenCV case `name`: `run` (BANKCHECK_OPENCV_RUN(...)) where the headers were found, else
// a skip with the reason.
inline void AddOpenCvCase(std::string name, std::string description, std::function<void(CaseContext&)> run) {
#if BANKCHECK_CORPUS_HAS_OPENCV
  AddCase(std::move(name), std::move(description), std::move(run));
#else
  (void)run;
  AddCase(std::move(name), std::move(description), [](CaseContext&) { GTEST_SKIP() << kOpenCvMissing; });
#endif
}

}  // namespace bankcheck::corpus
