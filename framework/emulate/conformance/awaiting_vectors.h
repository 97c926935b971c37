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

inline const std::set<std::string> kAwaitingVectors = {"form_fsetp_gtu_ftz",
                                                       "form_fsetp_neu_ftz",
                                                       "form_hmma_16816_f32",
                                                       "form_hmma_16816_f32_zero",
                                                       "form_hmma_16816_f32_bf16",
                                                       "form_hmma_1688_f32_tf32",
                                                       "form_hmma_16816_f16",
                                                       "form_sgxt_u32",
                                                       "form_sgxt_u32_immediate",
                                                       "form_sgxt_s32",
                                                       "form_sgxt_wrap_s32",
                                                       "form_sgxt_wrap_u32",
                                                       "form_mufu_rcp",
                                                       "form_mufu_sqrt",
                                                       "form_mufu_lg2"};

}  // namespace bankcheck::conformance
