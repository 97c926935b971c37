// TEMPORARY, until the emucore branch's bankcheck_emulate (cubin ingest and SASS evaluator) is
// merged; then this file and its target in CMakeLists.txt go. It implements bankcheck/emulator.h
// so that the emulated program links and runs: every kernel is found with no parameters, and every
// launch is undecided, saying why, so every case skips.
#include <map>
#include <memory>
#include <string>

#include "bankcheck/emulator.h"

namespace bankcheck::emulate {

struct Module::Data {
  mutable std::map<std::string, KernelInfo, std::less<>> kernels;
};

Module::Module(std::unique_ptr<Data> data) : data_(std::move(data)) {}
Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&&) noexcept = default;
Module::~Module() = default;

Module Module::FromFatbin(const void* /*fatbin*/) { return Module(std::make_unique<Data>()); }
Module Module::FromCubinFile(const std::string& /*path*/) { return Module(std::make_unique<Data>()); }
Module Module::FromListings(const std::string& /*nvdisasm_listing*/, const std::string& /*elf_listing*/) {
  return Module(std::make_unique<Data>());
}

const KernelInfo* Module::Find(std::string_view mangled) const {
  auto found = data_->kernels.find(mangled);
  if (found == data_->kernels.end()) {
    KernelInfo info;
    info.mangled = std::string(mangled);
    found = data_->kernels.emplace(info.mangled, info).first;
  }
  return &found->second;
}

std::vector<std::string> Module::Kernels() const { return {}; }

std::string Undecided::Describe() const {
  return file.empty() ? reason : reason + " (" + file + ":" + std::to_string(line) + ")";
}

Emulation Emulate(const Module& /*module*/, const LaunchToEmulate& /*launch*/,
                  const EmulationLimits& /*limits*/) {
  Emulation emulation;
  emulation.undecided =
      Undecided{"the SASS evaluator is not built into this program yet (branch emucore)", 0, "", "", 0};
  return emulation;
}

void SetProjectSources(const std::string& /*project_root*/, const std::string& /*build_root*/) {}

}  // namespace bankcheck::emulate
