// CuPy's signal-processing kernels (the cupy-cuda13x 14.2.0 wheel, MIT License, Copyright Preferred
// Networks, Inc. and Preferred Infrastructure, Inc.; optional: cmake/BankcheckCupy.cmake), in one
// translation unit: CuPy writes its headers for NVRTC, which compiles one kernel string at a time,
// and some of them (cupy/carray.cuh, cupy/float16.cuh) define functions that are not inline, so
// the kernels are compiled here once and the cases, one topic a header, included after them:
//   cupy_channelizer  cupy_channelizer.cuh (cupyx/signal/_filtering/_filtering.py)
//   cupy_upfirdn      cupy_upfirdn.cuh (cupyx/scipy/signal/_upfirdn.py)
//   cupy_iir          cupy_iir.cuh (cupyx/scipy/signal/_iir_utils.py, lfilter's kernels)
//   cupy_iir_sos      cupy_iir.cuh (the same module, sosfilt's kernels)
// The kernel strings are written into the build folder unchanged, at configure time, by
// corpus/extract_cupy_kernels.py; nothing of CuPy's is in this repository. Without CuPy the same
// cases register and skip with the reason (kCupyMissing).

#include <cassert>  // cupy/carray.cuh uses assert, which NVRTC has built in
#include <type_traits>

#if __has_include(<cupyx.signal._filtering._filtering/_CHANNELIZER_8X8_KERNEL.cuh>)
// The channelizer's preamble defines std::is_same_v for NVRTC, which nvcc's <type_traits> already
// has: each preamble's definition and its uses are renamed, per kernel, and the headers the
// preamble includes are included first, so that the rename reaches nothing else.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cupy/cuda_workaround.h>

#include <cupy/complex.cuh>
#include <cupy/float16.cuh>
#define is_same_v corpus_is_same_v_8x8
#include <cupyx.signal._filtering._filtering/_CHANNELIZER_8X8_KERNEL.cuh>
#undef is_same_v
#define is_same_v corpus_is_same_v_16x16
#include <cupyx.signal._filtering._filtering/_CHANNELIZER_16X16_KERNEL.cuh>
#undef is_same_v
#define is_same_v corpus_is_same_v_32x32
#include <cupyx.signal._filtering._filtering/_CHANNELIZER_32X32_KERNEL.cuh>
#undef is_same_v
#include <cupyx.scipy.signal._iir_utils/IIR_KERNEL.cuh>
#include <cupyx.scipy.signal._iir_utils/IIR_SOS_KERNEL.cuh>
#include <cupyx.scipy.signal._upfirdn/UPFIRDN_KERNEL.cuh>
#define BANKCHECK_CORPUS_HAS_CUPY 1
#else
#define BANKCHECK_CORPUS_HAS_CUPY 0
#endif

#include "corpus_support.h"
#include "cupy_channelizer.cuh"
#include "cupy_iir.cuh"
#include "cupy_upfirdn.cuh"

namespace bankcheck::corpus {
namespace {

void RegisterCupyCases() {
  RegisterChannelizerCases();
  RegisterUpFirDnCases();
  RegisterIirCases();
}

BANKCHECK_REGISTER_CASES(RegisterCupyCases);

}  // namespace
}  // namespace bankcheck::corpus
