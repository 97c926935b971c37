#pragma once
// Stand-in for NPP's nppdefs.h, which OpenCV 4.6's opencv2/core/cuda/filters.hpp includes for two
// constants only (LinearFilter's bounds on a sample's integer coordinates). NPP is not part of the
// CUDA toolkit installed here (nor a Debian package of this system), and those two are the int32
// limits, as NPP defines them: nothing else of NPP is declared. Only the OpenCV corpus cases see
// this folder (corpus/CMakeLists.txt).
#define NPP_MIN_32S (-2147483647 - 1)
#define NPP_MAX_32S 2147483647
