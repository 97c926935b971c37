#pragma once
// Turns a failed CUPTI call into a bankcheck::Error whose message says what to do. Kept apart
// from the session so the mapping can be tested on a machine without a GPU.

#include <cupti_result.h>

#include <string>

#include "bankcheck/core/error.h"

namespace bankcheck::internal {

ErrorKind CuptiErrorKind(CUptiResult code);
Error CuptiFailure(CUptiResult code, const std::string& call);

}  // namespace bankcheck::internal

// Declares `var` as a zeroed CUPTI parameter struct of `type` with its structSize set, as every
// CUPTI call requires.
#define BANKCHECK_CUPTI_PARAMS(type, var) \
  type var{};                             \
  var.structSize = type##_STRUCT_SIZE

// Throws the mapped Error when `call` does not return CUPTI_SUCCESS.
#define BANKCHECK_CUPTI_CHECK(call)                                              \
  do {                                                                           \
    const CUptiResult bankcheck_cupti_status_ = (call);                          \
    if (bankcheck_cupti_status_ != CUPTI_SUCCESS)                                \
      throw ::bankcheck::internal::CuptiFailure(bankcheck_cupti_status_, #call); \
  } while (0)
