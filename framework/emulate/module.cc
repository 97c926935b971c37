// Module: the sm_90 SASS of a fatbin or cubin, through the toolkit's cuobjdump and nvdisasm.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/emulate/emulator.h"
#include "core/nvdisasm/nvdisasm.h"
#include "core/nvdisasm/tool_cache.h"
#include "core/platform/file_io.h"
#include "core/platform/subprocess.h"
#include "emulate/internal/diagnostics.h"
#include "emulate/internal/sass.h"

namespace bankcheck::emulate {
namespace {

using bankcheck::internal::FindCudaTool;
using bankcheck::internal::ProgramRun;
using bankcheck::internal::RunProgram;

constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr uint16_t kElfMachineCuda = 190;  // EM_CUDA
constexpr std::string_view kModuleCacheMagic = "bankcheck emulate module cache 1\n";

// A temporary folder, removed with everything in it.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "bankcheck-emulate-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw Error(ErrorKind::kBadInput, "cannot create a temporary folder in " +
                                            std::filesystem::temp_directory_path().string() +
                                            ": set TMPDIR to a writable folder");
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(ErrorKind::kBadInput, "cannot read " + path + ": check that it exists and is readable");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out)
    throw Error(ErrorKind::kBadInput, "cannot write " + path + ": check the temporary folder (TMPDIR)");
}

[[noreturn]] void ToolFailed(const std::string& tool, const std::string& variable,
                             const bankcheck::internal::CudaTool& found, const ProgramRun& run,
                             const std::string& input) {
  // Not found or not started: the tool is missing (the case skips); started and failed: bad input.
  const bool missing = found.path.empty() || !run.started;
  throw Error(missing ? ErrorKind::kToolMissing : ErrorKind::kBadInput,
              (found.path.empty() ? "cannot run " + tool + ": " + found.Describe(tool)
               : run.started      ? found.Describe(tool) + " failed (exit status " +
                                   std::to_string(run.exit_status) + ") on " + input
                             : "cannot run " + found.Describe(tool)) +
                  ": the emulator reads SASS with the CUDA toolkit's " + tool +
                  "; install the toolkit, or `pip install nvidia-cuda-" + tool +
                  "` and put its bin folder on PATH, or set " + variable + " to the executable");
}

std::string RunTool(const std::string& tool, const char* variable, const std::vector<std::string>& arguments,
                    const std::string& input, const std::string& working_directory = "") {
  const bankcheck::internal::CudaTool found = FindCudaTool(tool, variable);
  if (found.path.empty()) ToolFailed(tool, variable, found, ProgramRun{}, input);
  const ProgramRun run = RunProgram(found.path, arguments, working_directory);
  if (!run.started || run.exit_status != 0) ToolFailed(tool, variable, found, run, input);
  return run.output;
}

bool IsCudaElf(std::string_view bytes) {
  if (bytes.size() < 20 || std::memcmp(bytes.data(),
                                       "\x7f"
                                       "ELF",
                                       4) != 0)
    return false;
  uint16_t machine = 0;
  std::memcpy(&machine, bytes.data() + 18, sizeof machine);
  return machine == kElfMachineCuda;
}

// Why a CUDA ELF's bytes cannot be the whole cubin: its section headers, or a section's contents, end
// past them (a cubin cut short); nullopt when every one lies within. Read before the tools, whose
// failure on such bytes would not say it.
std::optional<std::string> TruncatedElf(std::string_view bytes) {
  constexpr size_t kHeaderBytes = 64, kSectionHeaderBytes = 64;
  constexpr uint32_t kNoBits = 8;  // SHT_NOBITS: a section with no bytes in the file
  const auto read = [&](uint64_t at, auto value) {
    std::memcpy(&value, bytes.data() + at, sizeof value);
    return value;
  };
  if (bytes.size() < kHeaderBytes) return "its ELF header ends";
  if (bytes[4] != 2) return std::nullopt;  // not ELF64, as no cubin is: the tools say what it is
  const uint64_t table = read(0x28, uint64_t{});
  const uint16_t entry = read(0x3a, uint16_t{}), count = read(0x3c, uint16_t{});
  if (entry != kSectionHeaderBytes || table > bytes.size() || uint64_t{count} * entry > bytes.size() - table)
    return "its section headers end";
  for (uint16_t i = 0; i < count; ++i) {
    const uint64_t header = table + uint64_t{i} * entry;
    const uint64_t offset = read(header + 0x18, uint64_t{}), size = read(header + 0x20, uint64_t{});
    if (read(header + 0x4, uint32_t{}) != kNoBits && (offset > bytes.size() || size > bytes.size() - offset))
      return "section " + std::to_string(i) + "'s contents end";
  }
  return std::nullopt;
}

// Error(kBadInput) for a cubin cut short (`name`: the file, or "the image").
void CheckWholeCubin(const std::string& name, std::string_view bytes) {
  if (!IsCudaElf(bytes)) return;
  if (const std::optional<std::string> cut = TruncatedElf(bytes))
    throw Error(ErrorKind::kBadInput, name + " is a cubin cut short: " + *cut + " past its " +
                                          std::to_string(bytes.size()) + " bytes; give the whole cubin");
}

// What the tools print of one sm_90 cubin: its instructions (nvdisasm -gi -c) and its ELF sections
// (cuobjdump -elf), which the kernels are read from.
struct CubinListings {
  std::string sass;
  std::string elf;
};

CubinListings ListCubin(const std::string& path) {
  return {RunTool("nvdisasm", "BANKCHECK_NVDISASM", {"-gi", "-c", path}, path),
          RunTool("cuobjdump", "BANKCHECK_CUOBJDUMP", {"-elf", path}, path)};
}

bool IsSm90Cubin(const std::string& name) {
  const auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".sm_90.cubin") || ends_with(".sm_90a.cubin");
}

// The listings of every sm_90 cubin of the cubin, fatbin, object or program at `path`, whose bytes
// are `bytes` (the caller has them: read from the file, or the image written to it).
std::vector<CubinListings> ListModuleFile(const std::string& path, std::string_view bytes) {
  if (IsCudaElf(bytes)) return {ListCubin(path)};
  // A fatbin, an object or a program: cuobjdump extracts its cubins; the sm_90 ones are read.
  TemporaryFolder folder;
  const std::string absolute = std::filesystem::absolute(path).string();
  RunTool("cuobjdump", "BANKCHECK_CUOBJDUMP", {"-xelf", "all", absolute}, path, folder.path());
  std::vector<CubinListings> listings;
  for (const auto& entry : std::filesystem::directory_iterator(folder.path())) {
    if (IsSm90Cubin(entry.path().filename().string())) listings.push_back(ListCubin(entry.path().string()));
  }
  if (listings.empty())
    throw Error(ErrorKind::kBadInput, path +
                                          " holds no sm_90 SASS (cuobjdump -lelf lists its cubins): build it "
                                          "with 90 in CUDA_ARCHITECTURES (-arch=sm_90)");
  return listings;
}

// A module image's listings as a cache entry keeps them: per cubin "<sass bytes> <elf bytes>\n"
// and the two listings.
std::string Serialize(const std::vector<CubinListings>& listings) {
  std::string out;
  for (const CubinListings& cubin : listings)
    out += std::to_string(cubin.sass.size()) + " " + std::to_string(cubin.elf.size()) + "\n" + cubin.sass +
           cubin.elf;
  return out;
}

// Serialize's text read back; nullopt when it is not (then the image is listed again).
std::optional<std::vector<CubinListings>> Deserialize(std::string_view text) {
  std::vector<CubinListings> listings;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    if (end == std::string_view::npos || end > 41) return std::nullopt;
    size_t sass = 0, elf = 0;
    char extra = 0;
    if (std::sscanf(std::string(text.substr(0, end)).c_str(), "%zu %zu%c", &sass, &elf, &extra) != 2)
      return std::nullopt;
    text.remove_prefix(end + 1);
    if (sass > text.size() || elf > text.size() - sass) return std::nullopt;
    listings.push_back({std::string(text.substr(0, sass)), std::string(text.substr(sass, elf))});
    text.remove_prefix(sass + elf);
  }
  if (listings.empty()) return std::nullopt;
  return listings;
}

// The listings of an image in memory: from the disassembly cache (tool_cache.h; the suites' is
// <build folder>/bankcheck-cache/emulate, SetProjectSources's build root) when it holds them for
// these bytes and these tools, else made by the tools from a file of the bytes in a folder of this
// process's own, and kept there. Every process of an emulated suite reads the same modules; the
// tools' start-up, not the reading, is what costs.
std::vector<CubinListings> ListImage(std::string_view image) {
  CheckWholeCubin("the image", image);
  std::string project_root, build_root;
  internal::ProjectRoots(&project_root, &build_root);
  const std::string cache = bankcheck::internal::DisassemblyCacheFolder(
      build_root.empty() ? "" : build_root + "/bankcheck-cache/emulate");
  const std::string nvdisasm =
      bankcheck::internal::ToolIdentity(FindCudaTool("nvdisasm", "BANKCHECK_NVDISASM").path);
  const std::string cuobjdump =
      bankcheck::internal::ToolIdentity(FindCudaTool("cuobjdump", "BANKCHECK_CUOBJDUMP").path);
  const bool cached = !cache.empty() && !nvdisasm.empty() && !cuobjdump.empty();
  const std::string header =
      bankcheck::internal::ToolCacheHeader(kModuleCacheMagic, nvdisasm + "\n" + cuobjdump, image.size());
  char name[64];
  std::snprintf(name, sizeof name, "%016zx-%zu.module", std::hash<std::string_view>{}(image), image.size());
  const std::filesystem::path entry = std::filesystem::path(cache) / name;
  if (cached) {
    if (const std::optional<std::string> text = bankcheck::internal::ReadToolCache(entry, header, image)) {
      if (std::optional<std::vector<CubinListings>> listings = Deserialize(*text))
        return *std::move(listings);
    }
  }
  TemporaryFolder folder;
  const std::string path = folder.path() + "/module.image";
  WriteFile(path, image);
  std::vector<CubinListings> listings = ListModuleFile(path, image);
  if (cached)
    bankcheck::internal::WriteToolCache(entry, header, image, Serialize(listings));  // else slower next time
  return listings;
}

Module::Data ReadListings(const std::vector<CubinListings>& listings) {
  Module::Data data;
  for (const CubinListings& cubin : listings) {
    for (auto& [kernel_name, kernel] : internal::ReadKernels(cubin.sass, cubin.elf))
      data.kernels.emplace(kernel_name, std::move(kernel));
  }
  return data;
}

}  // namespace

Module::Module(std::unique_ptr<Data> data) : data_(std::move(data)) {}
Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&&) noexcept = default;
Module::~Module() = default;

Module Module::FromListings(const std::string& nvdisasm_listing, const std::string& elf_listing) {
  auto data = std::make_unique<Data>();
  data->kernels = internal::ReadKernels(nvdisasm_listing, elf_listing);
  return Module(std::move(data));
}

Module Module::FromCubinFile(const std::string& path) {
  const std::string bytes = ReadFile(path);
  CheckWholeCubin(path, bytes);
  return Module(std::make_unique<Data>(ReadListings(ListModuleFile(path, bytes))));
}

Module Module::FromFatbin(const void* fatbin) {
  if (fatbin == nullptr) throw Error(ErrorKind::kBadInput, "no fatbin (a null pointer) to emulate");
  const auto* bytes = static_cast<const unsigned char*>(fatbin);
  uint32_t magic = 0;
  uint16_t header_size = 0;
  uint64_t fat_size = 0;
  std::memcpy(&magic, bytes, sizeof magic);
  if (magic != kFatbinMagic)
    throw Error(ErrorKind::kBadInput,
                "the registered device code is not a fatbin (magic 0xba55ed50 expected): "
                "the emulator reads nvcc's fatbins of sm_90 SASS");
  std::memcpy(&header_size, bytes + 6, sizeof header_size);
  std::memcpy(&fat_size, bytes + 8, sizeof fat_size);
  constexpr uint64_t kLargest = uint64_t{1} << 32;
  if (header_size < 16 || fat_size > kLargest)
    throw Error(ErrorKind::kBadInput, "the registered fatbin's header is malformed (header " +
                                          std::to_string(header_size) + " bytes, " +
                                          std::to_string(fat_size) + " bytes of contents)");
  return FromImage(std::string_view(reinterpret_cast<const char*>(bytes), header_size + fat_size));
}

Module Module::FromImage(std::string_view image) {
  return Module(std::make_unique<Data>(ReadListings(ListImage(image))));
}

const KernelInfo* Module::Find(std::string_view mangled) const {
  const auto found = data_->kernels.find(mangled);
  return found == data_->kernels.end() ? nullptr : &found->second.info;
}

std::vector<std::string> Module::Kernels() const {
  std::vector<std::string> names;
  for (const auto& [name, kernel] : data_->kernels) names.push_back(name);
  return names;
}

}  // namespace bankcheck::emulate
