// main() for every bankcheck test binary. Deliberately prints nothing of its own: CTest's test
// discovery parses this binary's --gtest_list_tests output.
#include <gmock/gmock.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleMock(&argc, argv);
  return RUN_ALL_TESTS();
}
