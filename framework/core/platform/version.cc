#include "bankcheck/core/version.h"

namespace bankcheck {

// BANKCHECK_VERSION is given to this file alone (framework/core/CMakeLists.txt), so that a new
// version recompiles one file.
const char* Version() { return BANKCHECK_VERSION; }

}  // namespace bankcheck
