// main() for every bankcheck test binary. Deliberately prints nothing of its own: CTest's test
// discovery parses this binary's --gtest_list_tests output.
#include <gmock/gmock.h>

#include "bankcheck/testing/testing.h"

int main(int argc, char** argv) {
  // Before anything touches CUDA: run on the GPU CTest allocated to this test, if any.
  if (!bankcheck::gtest::SelectGpuFromCtestAllocation()) return 1;
  ::testing::InitGoogleMock(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new bankcheck::gtest::CounterSessionEnvironment);
  return bankcheck::gtest::ExitCodeOf(RUN_ALL_TESTS());
}
