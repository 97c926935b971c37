#include "core/records/demangle.h"

#include <gtest/gtest.h>

namespace bankcheck::internal {
namespace {

TEST(DemangleTest, AMangledNameReadsAsItsDeclaration) {
  EXPECT_EQ(Demangle("_Z9transposePfS_"), "transpose(float*, float*)");
  EXPECT_EQ(Demangle("_Z6kernelILi32EEvPi"), "void kernel<32>(int*)");
}

TEST(DemangleTest, ANameThatIsNotMangledIsKeptAsItIs) {
  EXPECT_EQ(Demangle("extern_c_kernel"), "extern_c_kernel");
  EXPECT_EQ(Demangle("_Z"), "_Z");  // not a whole mangled name
  EXPECT_EQ(Demangle(""), "");
}

}  // namespace
}  // namespace bankcheck::internal
