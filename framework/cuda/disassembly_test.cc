#include "cuda/internal/disassembly.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bankcheck/core/error.h"
#include "core/nvdisasm/nvdisasm.h"
#include "core/platform/file_io.h"

namespace bankcheck::internal {
namespace {

namespace fs = std::filesystem;

// A stand-in for nvdisasm (named by BANKCHECK_NVDISASM) that lists one LDS and counts its runs.
class DisassemblyCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "bankcheck-disasm-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    runs_ = dir_ / "runs";
    const fs::path fake = dir_ / "nvdisasm";
    {
      std::ofstream script(fake);
      script << "#!/bin/sh\necho run >> '" << runs_.string() << "'\n"
             << "printf '.text._Z1kPf:\\n\\t//## File \"/p/k.cu\", line 7\\n        /*0010*/  LDS R1, [R2] "
                ";\\n'\n";
    }
    ::chmod(fake.c_str(), 0755);
    ::setenv("BANKCHECK_NVDISASM", fake.c_str(), 1);
    cache_ = (dir_ / "cache").string();
  }
  void TearDown() override {
    ::unsetenv("BANKCHECK_NVDISASM");
    ::unsetenv("BANKCHECK_DISASSEMBLY_CACHE");
    fs::remove_all(dir_);
  }
  int Runs() const {
    std::ifstream in(runs_);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    return lines;
  }
  static std::vector<char> Cubin(char fill) { return std::vector<char>(100, fill); }

  fs::path dir_, runs_;
  std::string cache_;
};

TEST_F(DisassemblyCacheTest, RunsNvdisasmOncePerCubinAndThenReadsTheCache) {
  const std::string first = NvdisasmListing(Cubin('a'), 0x1234, cache_);
  EXPECT_EQ(Runs(), 1);
  const Disassembly parsed = ParseNvdisasm(first);
  ASSERT_EQ(parsed.count("_Z1kPf"), 1u);
  EXPECT_EQ(parsed.at("_Z1kPf").at(0x10).opcode, "LDS");
  EXPECT_EQ(parsed.at("_Z1kPf").at(0x10).inline_chain, (std::vector<SourceFrame>{{"/p/k.cu", 7}}));
  EXPECT_EQ(NvdisasmListing(Cubin('a'), 0x1234, cache_), first);
  EXPECT_EQ(Runs(), 1);  // from the cache
}

TEST_F(DisassemblyCacheTest, AnEntryServesOnlyTheSameBytes) {
  NvdisasmListing(Cubin('a'), 0x1234, cache_);
  // Same CRC and size (the entry's name), other bytes: not this entry's cubin.
  NvdisasmListing(Cubin('b'), 0x1234, cache_);
  EXPECT_EQ(Runs(), 2);
  // An entry whose cubin was altered is not used either (and is replaced).
  const fs::path entry = *fs::directory_iterator(cache_);
  std::string text = ReadTextFile(entry, "");
  text[text.find(std::string(100, 'b'))] = 'c';
  WriteFileAtomically(entry, text);
  NvdisasmListing(Cubin('b'), 0x1234, cache_);
  EXPECT_EQ(Runs(), 3);
  NvdisasmListing(Cubin('b'), 0x1234, cache_);
  EXPECT_EQ(Runs(), 3);
}

TEST_F(DisassemblyCacheTest, AnotherNvdisasmMakesEveryEntryStale) {
  NvdisasmListing(Cubin('a'), 0x1234, cache_);
  const fs::path fake = dir_ / "nvdisasm";
  std::ofstream(fake, std::ios::app) << "# another version\n";  // its size changes
  NvdisasmListing(Cubin('a'), 0x1234, cache_);
  EXPECT_EQ(Runs(), 2);
}

TEST_F(DisassemblyCacheTest, WithoutACacheEveryCallRunsNvdisasm) {
  NvdisasmListing(Cubin('a'), 0x1234, "");
  NvdisasmListing(Cubin('a'), 0x1234, "");
  EXPECT_EQ(Runs(), 2);
}

std::shared_ptr<const std::vector<char>> SharedCubin(char fill) {
  return std::make_shared<const std::vector<char>>(100, fill);
}

TEST_F(DisassemblyCacheTest, APrefetcherWithoutWorkersMakesAListingWhenItIsTaken) {
  ListingPrefetcher prefetcher(0);
  prefetcher.Start(SharedCubin('a'), 0xa, "");
  prefetcher.Start(SharedCubin('b'), 0xb, "");
  EXPECT_EQ(Runs(), 0);
  const std::optional<std::string> listing = prefetcher.Take(0xa);
  ASSERT_TRUE(listing.has_value());
  EXPECT_EQ(*listing, NvdisasmListing(Cubin('a'), 0xa, ""));
  EXPECT_EQ(Runs(), 2);                            // the one taken, and the comparison's
  EXPECT_FALSE(prefetcher.Take(0xa).has_value());  // taken once
  EXPECT_FALSE(prefetcher.Take(0xc).has_value());  // never queued
}

TEST_F(DisassemblyCacheTest, APrefetchersWorkersMakeEachQueuedListingOnceBeforeItIsTaken) {
  ListingPrefetcher prefetcher(2);
  for (const char fill : {'a', 'b', 'c'})
    prefetcher.Start(SharedCubin(fill), static_cast<uint32_t>(fill), "");
  prefetcher.Start(SharedCubin('a'), 'a', "");  // queued already: not again
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Runs() < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(Runs(), 3) << "the workers did not make the three listings in 60 s";
  for (const char fill : {'a', 'b', 'c'}) {
    const std::optional<std::string> listing = prefetcher.Take(static_cast<uint32_t>(fill));
    ASSERT_TRUE(listing.has_value());
    EXPECT_EQ(ParseNvdisasm(*listing).count("_Z1kPf"), 1u);
  }
  EXPECT_EQ(Runs(), 3);  // made by the workers, not again by Take
}

TEST_F(DisassemblyCacheTest, APrefetchedListingGoesThroughTheCache) {
  NvdisasmListing(Cubin('a'), 0xa, cache_);
  ListingPrefetcher prefetcher(1);
  prefetcher.Start(SharedCubin('a'), 0xa, cache_);
  ASSERT_TRUE(prefetcher.Take(0xa).has_value());
  EXPECT_EQ(Runs(), 1);
}

}  // namespace
}  // namespace bankcheck::internal
