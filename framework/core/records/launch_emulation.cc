#include "core/records/launch_emulation.h"

#include <atomic>

namespace bankcheck::internal {
namespace {
// Constant-initialized, so that an installation from another file's static initializer is kept.
std::atomic<LaunchEmulation*> g_emulation{nullptr};
}  // namespace

LaunchEmulation::~LaunchEmulation() = default;

LaunchEmulation* InstalledLaunchEmulation() { return g_emulation.load(); }
bool EmulatedProgram() { return InstalledLaunchEmulation() != nullptr; }

void InstallLaunchEmulation(LaunchEmulation* emulation) { g_emulation.store(emulation); }

}  // namespace bankcheck::internal
