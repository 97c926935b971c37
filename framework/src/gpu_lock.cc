#include "gpu_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include "bankcheck/error.h"

namespace bankcheck::internal {

namespace {
std::string LockPath(const std::string& pci_bus_id) {
  const char* dir = std::getenv("BANKCHECK_LOCK_DIR");
  std::string name = pci_bus_id;
  for (char& c : name)
    if (c == ':' || c == '.') c = '-';
  return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/bankcheck-gpu-" + name + ".lock";
}

// The pid the holder wrote into the file, for the message ("" if none).
std::string Holder(const std::string& path) {
  std::ifstream in(path);
  std::string pid;
  std::getline(in, pid);
  return pid;
}
}  // namespace

std::chrono::milliseconds GpuLockTimeout() {
  const char* value = std::getenv("BANKCHECK_GPU_LOCK_TIMEOUT");
  if (value == nullptr || *value == '\0') return std::chrono::seconds(600);
  char* end = nullptr;
  const double seconds = std::strtod(value, &end);
  if (end == value || *end != '\0' || seconds < 0) {
    throw Error(ErrorKind::kBadInput,
                std::string("BANKCHECK_GPU_LOCK_TIMEOUT must be a number of seconds, not '") + value + "'");
  }
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

GpuCounterLock::GpuCounterLock(const std::string& pci_bus_id, std::chrono::milliseconds timeout)
    : path_(LockPath(pci_bus_id)) {
  // Open (or create) world-writable so that processes of other users can take it too.
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    throw Error(ErrorKind::kBadInput, "cannot open the GPU lock file " + path_ + ": " + std::strerror(errno) +
                                          ". Set BANKCHECK_LOCK_DIR to a writable folder.");
  }
  [[maybe_unused]] const int mode_set = ::fchmod(fd_, 0666);  // best effort: the umask may narrow it
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool said_waiting = false;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const std::string error = std::strerror(errno);
      ::close(fd_);
      throw Error(ErrorKind::kBadInput, "cannot lock " + path_ + ": " + error);
    }
    if (Holder(path_) == std::to_string(::getppid())) {
      // Our parent holds it and waits for us (a death test's child, a test running the suite):
      // the GPU is ours to share.
      ::close(fd_);
      fd_ = -1;
      return;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      const std::string holder = Holder(path_);
      ::close(fd_);
      throw Error(ErrorKind::kProfilerBusy,
                  "another process" + (holder.empty() ? std::string() : " (pid " + holder + ")") +
                      " has held the counters of GPU " + pci_bus_id + " for longer than the " +
                      std::to_string(timeout.count() / 1000) + " s wait (lock " + path_ +
                      "). One process at a time can read a GPU's counters; raise "
                      "BANKCHECK_GPU_LOCK_TIMEOUT, or give each test its own GPU (ctest "
                      "--resource-spec-file, one \"gpus\" slot per GPU).");
    }
    if (!said_waiting) {
      const std::string holder = Holder(path_);
      std::fprintf(stderr, "bankcheck: waiting for the counters of GPU %s, held by another process%s%s\n",
                   pci_bus_id.c_str(), holder.empty() ? "" : " pid ", holder.c_str());
      said_waiting = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

GpuCounterLock::~GpuCounterLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace bankcheck::internal
