#include "core/nvdisasm/tool_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "bankcheck/core/error.h"
#include "core/platform/file_io.h"

namespace bankcheck::internal {
namespace {

namespace fs = std::filesystem;

class ToolCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "bankcheck-tool-cache-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    ::unsetenv("BANKCHECK_DISASSEMBLY_CACHE");
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(ToolCacheTest, TheFolderComesFromTheEnvironmentThenTheDefault) {
  EXPECT_EQ(DisassemblyCacheFolder("/build/c"), "/build/c");
  ::setenv("BANKCHECK_DISASSEMBLY_CACHE", "off", 1);
  EXPECT_EQ(DisassemblyCacheFolder("/build/c"), "");
  ::setenv("BANKCHECK_DISASSEMBLY_CACHE", "/elsewhere", 1);
  EXPECT_EQ(DisassemblyCacheFolder("/build/c"), "/elsewhere");
  ::setenv("BANKCHECK_DISASSEMBLY_CACHE", "relative/c", 1);
  EXPECT_THROW(DisassemblyCacheFolder("/build/c"), Error);
}

TEST_F(ToolCacheTest, AToolIsKnownByItsAbsolutePathSizeAndTime) {
  const fs::path tool = dir_ / "tool";
  std::ofstream(tool) << "#!/bin/sh\n";
  const std::string identity = ToolIdentity(tool.string());
  EXPECT_EQ(identity.rfind(tool.string() + " 10 ", 0), 0u) << identity;
  std::ofstream(tool, std::ios::app) << "# another version\n";
  EXPECT_NE(ToolIdentity(tool.string()), identity);
  EXPECT_EQ(ToolIdentity("tool"), "") << "a relative name may be anything";
  EXPECT_EQ(ToolIdentity((dir_ / "none").string()), "");
  EXPECT_EQ(ToolIdentity(dir_.string()), "") << "a folder";
}

TEST_F(ToolCacheTest, AnEntryIsReadBackOnlyForTheSameInputAndTools) {
  const fs::path file = dir_ / "cache" / "sub" / "entry";
  const std::string header = ToolCacheHeader("test cache 1\n", "tools A", 5);
  EXPECT_EQ(header, "test cache 1\ntools A\n5\n");
  EXPECT_FALSE(ReadToolCache(file, header, "bytes").has_value()) << "no entry yet";
  ASSERT_EQ(WriteToolCache(file, header, "bytes", std::string("out\0put", 7)), "");
  EXPECT_EQ(ReadToolCache(file, header, "bytes"), std::string("out\0put", 7));
  EXPECT_FALSE(ReadToolCache(file, header, "bytez").has_value()) << "other input of the same size";
  EXPECT_FALSE(ReadToolCache(file, ToolCacheHeader("test cache 1\n", "tools B", 5), "bytes").has_value());
  EXPECT_FALSE(ReadToolCache(file, ToolCacheHeader("test cache 2\n", "tools A", 5), "bytes").has_value());
  WriteFileAtomically(file, header + "byt");  // cut short
  EXPECT_FALSE(ReadToolCache(file, header, "bytes").has_value());
  EXPECT_FALSE(ReadToolCache(dir_, header, "bytes").has_value()) << "a folder";
}

TEST_F(ToolCacheTest, AnEntryThatCannotBeWrittenSaysWhy) {
  const fs::path blocker = dir_ / "file";
  std::ofstream(blocker) << "x";
  const std::string why = WriteToolCache(blocker / "entry", "h\n", "in", "out");
  EXPECT_NE(why, "");
}

}  // namespace
}  // namespace bankcheck::internal
