#pragma once
// Everything a test file of a kernel suite or of your own GoogleTest program uses, in one include:
// the GoogleTest integration (testing/testing.h: BANKCHECK_SKIP_WITHOUT_GPU, MeasureLaunch), the
// matchers over launch records (testing/matchers.h), the kernel registry (cuda/kernel_registry.h:
// RegisterKernelCase), CUDA error checks (cuda/cuda_check.h) and the CPU bank model's access
// patterns (core/bank_model.h). The public headers are in a folder per layer (core/, cuda/,
// emulate/, testing/, suite/); include one of them alone where that is all a file needs (a kernel
// file that registers cases needs only cuda/kernel_registry.h, and no GoogleTest).

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "bankcheck/testing/matchers.h"
#include "bankcheck/testing/testing.h"
