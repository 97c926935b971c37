#pragma once
// What the CuPy cases share (corpus/CMakeLists.txt, cmake/BankcheckCupy.cmake): CuPy's kernels are
// CUDA source strings in its Python modules, written into the build folder at configure time by
// corpus/extract_cupy_kernels.py and compiled here with nvcc; its headers (cupy/_core/include) come
// from the same wheel. Without the wheel the same cases register and skip with kCupyMissing.

#include <cstddef>
#include <vector>

#include "corpus_support.h"

namespace bankcheck::corpus {

inline const char* const kCupyMissing =
    "CuPy's kernel sources were not found when this suite was built (ci/jobs/install-deps.sh installs the "
    "pinned cupy-cuda13x wheel's sources into <build>/cupy-sources, or -DBANKCHECK_CUPY_DIR=...; see "
    "docs/emulate.md, \"The corpus\"): the CuPy corpus cases are not built";

// Complex outputs are compared as their interleaved (real, imaginary) floats: every value of these
// cases is an integer well inside float's exact range, so == holds whatever the order of the sums.
struct ComplexFloats {
  std::vector<float> values;  // 2 per element
  explicit ComplexFloats(size_t n) : values(2 * n, 0.0f) {}
  float& re(size_t i) { return values[2 * i]; }
  float& im(size_t i) { return values[2 * i + 1]; }
};

}  // namespace bankcheck::corpus
