// Module::FromImage's listings through the disassembly cache (tool_cache.h), with stand-ins for
// nvdisasm and cuobjdump that count their runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "bankcheck/emulate/emulator.h"

namespace bankcheck::emulate {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;

class ModuleCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "bankcheck-module-cache-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    runs_ = dir_ / "runs";
    Tool("nvdisasm", "printf '.text._Z1kPf:\\n        /*0000*/                   EXIT ;\\n'");
    Tool("cuobjdump", "true");
    ::setenv("BANKCHECK_DISASSEMBLY_CACHE", (dir_ / "cache").c_str(), 1);
  }
  void TearDown() override {
    for (const char* variable : {"BANKCHECK_NVDISASM", "BANKCHECK_CUOBJDUMP", "BANKCHECK_DISASSEMBLY_CACHE"})
      ::unsetenv(variable);
    fs::remove_all(dir_);
  }
  // A stand-in for `name` that notes its run, then runs `body`.
  void Tool(const std::string& name, const std::string& body) {
    const fs::path tool = dir_ / name;
    std::ofstream(tool) << "#!/bin/sh\necho " << name << " >> '" << runs_.string() << "'\n" << body << "\n";
    ::chmod(tool.c_str(), 0755);
    const std::string variable = "BANKCHECK_" + std::string(name == "nvdisasm" ? "NVDISASM" : "CUOBJDUMP");
    ::setenv(variable.c_str(), tool.c_str(), 1);
  }
  int Runs() const {
    std::ifstream in(runs_);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    return lines;
  }
  // A CUDA ELF's first bytes (magic, EM_CUDA), `fill` after them: read as one cubin.
  static std::string Cubin(char fill) {
    std::string image(64, fill);
    std::memcpy(image.data(),
                "\x7f"
                "ELF",
                4);
    const uint16_t machine = 190;
    std::memcpy(&image[18], &machine, sizeof machine);
    return image;
  }

  fs::path dir_, runs_;
};

TEST_F(ModuleCacheTest, AnImageIsListedOnceForTheSameBytesAndTools) {
  EXPECT_THAT(Module::FromImage(Cubin('a')).Kernels(), ElementsAre("_Z1kPf"));
  EXPECT_EQ(Runs(), 2) << "nvdisasm and cuobjdump";
  EXPECT_THAT(Module::FromImage(Cubin('a')).Kernels(), ElementsAre("_Z1kPf"));
  EXPECT_EQ(Runs(), 2) << "from the cache";
  Module::FromImage(Cubin('b'));
  EXPECT_EQ(Runs(), 4) << "other bytes";
  Tool("nvdisasm",
       "printf '.text._Z1gPf:\\n        /*0000*/                   EXIT ;\\n'");  // another nvdisasm
  EXPECT_THAT(Module::FromImage(Cubin('a')).Kernels(), ElementsAre("_Z1gPf"));
  EXPECT_EQ(Runs(), 6);
}

TEST_F(ModuleCacheTest, AnEntryThatIsNotOneIsListedAgain) {
  Module::FromImage(Cubin('a'));
  ASSERT_EQ(Runs(), 2);
  for (const auto& entry : fs::directory_iterator(dir_ / "cache")) {
    std::string text;
    {
      std::ifstream in(entry.path(), std::ios::binary);
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    // The first listing's size (the digits before " 0\n" and the listing) made to run past the end.
    const size_t end = text.find(" 0\n.text._Z1kPf");
    ASSERT_NE(end, std::string::npos);
    size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(text[begin - 1]))) --begin;
    ASSERT_LT(begin, end);
    text.replace(begin, end - begin, "999999");
    std::ofstream(entry.path(), std::ios::binary | std::ios::trunc) << text;
  }
  EXPECT_THAT(Module::FromImage(Cubin('a')).Kernels(), ElementsAre("_Z1kPf"));
  EXPECT_EQ(Runs(), 4);
}

TEST_F(ModuleCacheTest, WithoutACacheEveryImageIsListed) {
  ::setenv("BANKCHECK_DISASSEMBLY_CACHE", "off", 1);
  Module::FromImage(Cubin('a'));
  Module::FromImage(Cubin('a'));
  EXPECT_EQ(Runs(), 4);
  EXPECT_FALSE(fs::exists(dir_ / "cache"));
}

}  // namespace
}  // namespace bankcheck::emulate
