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
#include <optional>
#include <set>
#include <sstream>
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

// Opens (or creates) a lock file world-writable, so that processes of other users can take it too.
int OpenLockFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    throw Error(ErrorKind::kBadInput, "cannot open the GPU lock file " + path + ": " + std::strerror(errno) +
                                          ". Set BANKCHECK_LOCK_DIR to a writable folder.");
  }
  [[maybe_unused]] const int mode_set = ::fchmod(fd, 0666);  // best effort: the umask may narrow it
  return fd;
}

// The pid the (first) holder wrote into the file, for the message ("" if none).
std::string Holder(const std::string& path) {
  std::ifstream in(path);
  std::string pid;
  std::getline(in, pid);
  return pid;
}

// The pids of this process's parent, the parent's parent and so on (from /proc; the parent alone
// where /proc cannot be read).
std::set<std::string> AncestorPids() {
  std::set<std::string> pids;
  for (pid_t pid = ::getppid(); pid > 1 && pids.size() < 64;) {
    pids.insert(std::to_string(pid));
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    // "pid (comm) state ppid ...": the name may hold spaces and parentheses, so read after the last ')'.
    const size_t name_end = line.rfind(')');
    if (name_end == std::string::npos) break;
    std::istringstream rest(line.substr(name_end + 1));
    char state = 0;
    pid_t parent = 0;
    if (!(rest >> state >> parent)) break;
    pid = parent;
  }
  return pids;
}

// Whether one of `pids` is among the pids the holders wrote.
bool HeldByOneOf(const std::string& path, const std::set<std::string>& pids) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (pids.count(line) != 0) return true;
  return false;
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

GpuCounterLock::GpuCounterLock(const std::string& pci_bus_id, std::chrono::milliseconds timeout, Mode mode)
    : path_(LockPath(pci_bus_id)), pci_bus_id_(pci_bus_id), mode_(mode) {
  fd_ = OpenLockFile(path_);
  Acquire(timeout);
}

void GpuCounterLock::MakeExclusive(std::chrono::milliseconds timeout) {
  if (mode_ == Mode::kExclusive || fd_ < 0) return;
  // Let go of the shared lock before queueing at the gate: two holders that each kept theirs while
  // waiting at the gate would wait for each other.
  ::flock(fd_, LOCK_UN);
  mode_ = Mode::kExclusive;
  Acquire(timeout);
}

void GpuCounterLock::Acquire(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const int operation = mode_ == Mode::kShared ? LOCK_SH : LOCK_EX;
  // First the gate, in the same mode: a process waiting for the lock exclusively holds the gate, so
  // processes asking for a shared lock queue behind it instead of keeping it waiting for as long as
  // new ones keep coming (ctest -j with many GPU tests). Held only until the lock is taken.
  struct Gate {
    int fd;
    ~Gate() { ::close(fd); }
  } gate{-1};
  try {
    gate.fd = OpenLockFile(path_ + ".gate");
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
  const bool locked = Wait(gate.fd, operation, deadline, timeout) && Wait(fd_, operation, deadline, timeout);
  if (!locked) {
    ::close(fd_);  // an ancestor holds the lock: the GPU is ours to share
    fd_ = -1;
    return;
  }
  // The holders' pids, for messages and for children: an exclusive holder's alone, shared holders'
  // one per line (exited ones linger until the next exclusive holder).
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (operation == LOCK_EX) {
    if (::ftruncate(fd_, 0) == 0) {
      [[maybe_unused]] const ssize_t written = ::pwrite(fd_, pid.data(), pid.size(), 0);
    }
  } else {
    const off_t end = ::lseek(fd_, 0, SEEK_END);
    if (end >= 0) {
      [[maybe_unused]] const ssize_t written = ::pwrite(fd_, pid.data(), pid.size(), end);
    }
  }
}

bool GpuCounterLock::Wait(int fd, int operation, std::chrono::steady_clock::time_point deadline,
                          std::chrono::milliseconds timeout) {
  bool said_waiting = false;
  std::optional<std::set<std::string>> ancestors;
  while (::flock(fd, operation | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const std::string error = std::strerror(errno);
      ::close(fd_);
      fd_ = -1;
      throw Error(ErrorKind::kBadInput, "cannot lock " + path_ + ": " + error);
    }
    // An ancestor holds it and waits for us (a death test's child, a test running the suite, whose
    // supervisor runs the cases in a child).
    if (!ancestors) ancestors = AncestorPids();
    if (HeldByOneOf(path_, *ancestors)) return false;
    if (std::chrono::steady_clock::now() >= deadline) {
      const std::string holder = Holder(path_);
      ::close(fd_);
      fd_ = -1;
      throw Error(ErrorKind::kProfilerBusy,
                  "another process" + (holder.empty() ? std::string() : " (pid " + holder + ")") +
                      " has held the counters of GPU " + pci_bus_id_ + " for longer than the " +
                      std::to_string(timeout.count() / 1000) + " s wait (lock " + path_ +
                      "). One process at a time can read a GPU's hardware counters; raise "
                      "BANKCHECK_GPU_LOCK_TIMEOUT, or give each test its own GPU (ctest "
                      "--resource-spec-file, one \"gpus\" slot per GPU).");
    }
    if (!said_waiting) {
      const std::string holder = Holder(path_);
      std::fprintf(stderr, "bankcheck: waiting for the counters of GPU %s, held by another process%s%s\n",
                   pci_bus_id_.c_str(), holder.empty() ? "" : " pid ", holder.c_str());
      said_waiting = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

GpuCounterLock::~GpuCounterLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace bankcheck::internal
