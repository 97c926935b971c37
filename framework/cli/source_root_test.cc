// The files under the source root as `report` reads them: each read and scanned once.

#include "source_root.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/platform/test_support.h"

namespace bankcheck::cli {
namespace {

class SourceFilesUnderTest : public testing_support::TempDirTest {};

// A results file can name one file in many ways (src/./k.cu, src//k.cu, ...): each must come to the
// same one scan, or a crafted file would have a large source read once per spelling.
TEST_F(SourceFilesUnderTest, AFileIsReadOnceWhateverItsNames) {
  const std::filesystem::path root = std::filesystem::canonical(dir_);
  std::filesystem::create_directories(root / "src");
  testing_support::WriteFile(root / "src" / "k.cu", "int x;  // bankcheck: 2-way\n");
  const auto files = SourceFilesUnder(root);
  const SourceFile plain = files((root / "src" / "k.cu").string());
  ASSERT_NE(plain.annotations, nullptr);
  EXPECT_EQ(plain.repository_path, "src/k.cu");
  for (const std::string& other : {(root / "src" / "." / "k.cu").string(), root.string() + "/src//k.cu",
                                   (root / "src" / ".." / "src" / "k.cu").string()}) {
    const SourceFile same = files(other);
    EXPECT_EQ(same.annotations, plain.annotations) << other;
    EXPECT_EQ(same.repository_path, "src/k.cu") << other;
  }
}

}  // namespace
}  // namespace bankcheck::cli
