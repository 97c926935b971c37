#pragma once
// The inputs of the tensor-core forms (Inputs::kMma*, forms.h), drawn by the recorder: the launch's
// kThreads * kInputs words as forms.cu's MmaTiles reads them.

#include <cstdint>

#include "emulate/conformance/forms.h"

namespace bankcheck::conformance {

// Fills words[0, kThreads * kInputs) for `kind` (IsMma) from `state`.
void DrawMmaTiles(Inputs kind, uint64_t& state, uint32_t* words);

}  // namespace bankcheck::conformance
