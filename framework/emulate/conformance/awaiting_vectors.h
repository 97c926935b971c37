#pragma once
// Kernels of forms.cu added since vectors.txt was recorded, awaiting the next recording on the GPU:
// without vectors they are reported, not failed (any other form without vectors fails), and their
// SASS must hold the form each claims (replay_test.cc); a form of the kernel suite whose kernel is
// here is reported by the coverage too, not failed (coverage_test.cc). None of their forms may be
// in checked_forms.def until their vectors replay with 0 differ (the table check fails a form none
// of whose vectors is computed). Emptied when the vectors are recorded.

#include <set>
#include <string>

namespace bankcheck::conformance {

inline const std::set<std::string> kAwaitingVectors = {};

}  // namespace bankcheck::conformance
