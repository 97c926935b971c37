// main() of a kernel suite's CPU program (<target>_annotations): registers its checks once the
// suite's settings are set (their names begin with its TEST_PREFIX, set while static objects are
// initialized), then runs them. Touches no GPU.
#include <gmock/gmock.h>

#include <iostream>

#include "bankcheck/core/error.h"
#include "bankcheck/suite/suite.h"
#include "suite/internal/annotation_checks.h"
#include "suite/internal/case_runner.h"
#include "suite/internal/suite_runner.h"

int main(int argc, char** argv) {
  using namespace bankcheck::suites;
  try {
    ::testing::InitGoogleMock(&argc, argv);
    RegisterAnnotationChecks(CasesWithAccessPattern(), GetSuiteSettings().test_prefix,
                             CasePatternsFromEnvironment());
    return RUN_ALL_TESTS();
  } catch (const bankcheck::Error& e) {  // e.g. a refused BANKCHECK_CASES, or two cases of one name
    std::cerr << "bankcheck: error: " << e.what() << "\n";
    return 1;
  }
}
