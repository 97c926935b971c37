#include "cuda/internal/gpu_lock.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "bankcheck/core/error.h"
#include "core/platform/file_io.h"

namespace bankcheck::internal {

namespace {
constexpr const char* kDefaultLockFolder = "/tmp/bankcheck-locks";
constexpr mode_t kLockFolderMode = 01777;  // every user's processes add their files; none removes another's
constexpr mode_t kLockFileMode = 0644;     // flock needs read access only

std::string LockFolder() {
  const char* set = std::getenv("BANKCHECK_LOCK_DIR");
  return set != nullptr && *set != '\0' ? set : kDefaultLockFolder;
}

std::string LockName(const std::string& pci_bus_id) {
  std::string name = pci_bus_id;
  for (char& c : name)
    if (c == ':' || c == '.') c = '-';
  return "bankcheck-gpu-" + name + ".lock";
}

// What to do about a lock folder that cannot be used.
std::string LockFolderAdvice(const std::string& folder) {
  return "Remove it, or set BANKCHECK_LOCK_DIR to a folder owned by root or by you that nobody else may "
         "change (mode 1777 to share the GPUs with other users, e.g. `install -d -m 1777 " +
         folder + "` as root).";
}

// Error(kBadInput) about the lock folder: what is wrong, and what to do.
Error FolderError(const std::string& folder, const std::string& why) {
  return Error(ErrorKind::kBadInput,
               "refusing the GPU lock folder " + folder + ": " + why + ". " + LockFolderAdvice(folder));
}

// Why the folder `status` describes may not hold the lock files ("" when it may): it must be owned
// by root or by us, and others must not be able to remove or rename what is in it.
std::string LockFolderProblem(const struct stat& status) {
  if (!S_ISDIR(status.st_mode)) return "it is not a folder";
  const std::string why = OthersMayChange(status);
  if (why.empty()) return "";
  return why +
         "; the lock folder must be root's or yours, and sticky (mode 1777) where others may write "
         "to it, whatever BANKCHECK_SAFE_DIRECTORIES says";
}

// `folder` reached as every folder bankcheck writes into is (OutputFolder: folders of root or the
// caller, links only where nobody else can have planted them), its errors with the lock's advice.
OutputFolder ReachLockFolder(const std::filesystem::path& folder, const std::string& shown) {
  try {
    return OutputFolder::Open(folder);
  } catch (const Error& e) {
    throw Error(ErrorKind::kBadInput,
                std::string(e.what()) + " (the GPU lock folder " + shown + "). " + LockFolderAdvice(shown));
  }
}

// Opens the lock folder (creating it 01777 when absent) as a descriptor for the *at calls.
int OpenLockFolder() {
  const std::string folder = LockFolder();
  std::filesystem::path path = std::filesystem::path(folder).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();  // "/tmp/locks/"
  const std::string name = path.filename().string();
  if (name.empty() || name == "." || name == "..") throw FolderError(folder, "it names no folder of its own");
  bool created = false;
  {
    const OutputFolder parent = ReachLockFolder(path.parent_path(), folder);
    created = ::mkdirat(parent.fd(), name.c_str(), kLockFolderMode) == 0;
    if (!created && errno != EEXIST) {
      throw Error(ErrorKind::kBadInput, "cannot create the GPU lock folder " + folder + " (" +
                                            std::strerror(errno) +
                                            "). Set BANKCHECK_LOCK_DIR to a writable folder.");
    }
  }
  OutputFolder opened = ReachLockFolder(path, folder);
  struct stat status {};
  // mkdir's mode lost what the umask took: the folder we created gets its full mode.
  if (::fstat(opened.fd(), &status) == 0 && created && status.st_uid == ::geteuid() &&
      (status.st_mode & 07777) != kLockFolderMode) {
    if (::fchmod(opened.fd(), kLockFolderMode) == 0) ::fstat(opened.fd(), &status);
  }
  const std::string problem = LockFolderProblem(status);
  if (!problem.empty()) throw FolderError(folder, problem);
  return opened.Release();
}

// The pid in a holder file's name "<lock name>.holder.<pid>": digits only, at most a pid's range;
// nothing for any other name. The file's content is never read (anyone may have written it).
std::optional<pid_t> HolderPid(const std::string& file_name, const std::string& prefix) {
  if (file_name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const std::string digits = file_name.substr(prefix.size());
  if (digits.empty() || digits.size() > 10 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const long long pid = std::stoll(digits);
  if (pid <= 0 || pid > INT_MAX) return std::nullopt;
  return static_cast<pid_t>(pid);
}

bool Alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// The pids of this process's parent, the parent's parent and so on (from /proc; the parent alone
// where /proc cannot be read).
std::set<pid_t> AncestorPids() {
  std::set<pid_t> pids;
  for (pid_t pid = ::getppid(); pid > 1 && pids.size() < 64;) {
    pids.insert(pid);
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
}  // namespace

std::chrono::milliseconds GpuLockTimeout() {
  const char* value = std::getenv("BANKCHECK_GPU_LOCK_TIMEOUT");
  if (value == nullptr || *value == '\0') return std::chrono::seconds(600);
  char* end = nullptr;
  const double seconds = std::strtod(value, &end);
  if (end == value || *end != '\0' || !std::isfinite(seconds) || seconds < 0 ||
      seconds > kMaxGpuLockTimeoutSeconds) {
    throw Error(ErrorKind::kBadInput,
                std::string("BANKCHECK_GPU_LOCK_TIMEOUT must be a number of seconds from 0 to ") +
                    std::to_string(static_cast<int>(kMaxGpuLockTimeoutSeconds)) + ", not '" + value +
                    "'; set it so, or unset it for 600 s");
  }
  return std::chrono::milliseconds(std::llround(seconds * 1000));
}

GpuCounterLock::GpuCounterLock(const std::string& pci_bus_id, std::chrono::milliseconds timeout, Mode mode)
    : path_(LockFolder() + "/" + LockName(pci_bus_id)),
      name_(LockName(pci_bus_id)),
      pci_bus_id_(pci_bus_id),
      mode_(mode) {
  folder_fd_ = OpenLockFolder();
  try {
    fd_ = OpenLockFileAt(folder_fd_, name_, path_, kLockFileMode);
    Acquire(timeout);
  } catch (...) {
    ::close(folder_fd_);
    throw;
  }
}

void GpuCounterLock::MakeExclusive(std::chrono::milliseconds timeout) {
  if (mode_ == Mode::kExclusive || fd_ < 0) return;
  // Let go of the shared lock before queueing at the gate: two holders that each kept theirs while
  // waiting at the gate would wait for each other.
  WithdrawHolder();
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
    int fd = -1;
    ~Gate() {
      if (fd >= 0) ::close(fd);
    }
  } gate;
  try {
    gate.fd = OpenLockFileAt(folder_fd_, name_ + ".gate", path_ + ".gate", kLockFileMode);
    if (!Wait(gate.fd, operation, deadline, timeout) || !Wait(fd_, operation, deadline, timeout)) {
      CloseLock();  // an ancestor holds the lock: the GPU is ours to share
      return;
    }
    if (operation == LOCK_EX) RemoveStaleHolders();
    AnnounceHolder();
  } catch (...) {
    CloseLock();
    throw;
  }
}

bool GpuCounterLock::Wait(int fd, int operation, std::chrono::steady_clock::time_point deadline,
                          std::chrono::milliseconds timeout) {
  bool said_waiting = false;
  std::optional<std::set<pid_t>> ancestors;
  while (::flock(fd, operation | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      throw Error(ErrorKind::kBadInput, "cannot lock " + path_ + ": " + std::strerror(errno));
    }
    // An ancestor holds it and waits for us (a death test's child, a test running the suite, whose
    // supervisor runs the cases in a child).
    if (!ancestors) ancestors = AncestorPids();
    for (const pid_t ancestor : *ancestors)
      if (HolderFileOf(ancestor)) return false;
    if (std::chrono::steady_clock::now() >= deadline) {
      const std::string holders = Holders();
      throw Error(ErrorKind::kProfilerBusy,
                  "another process" + (holders.empty() ? std::string() : " (" + holders + ")") +
                      " has held the counters of GPU " + pci_bus_id_ + " for longer than the " +
                      std::to_string(timeout.count() / 1000) + " s wait (lock " + path_ +
                      "). One process at a time can read a GPU's hardware counters; raise "
                      "BANKCHECK_GPU_LOCK_TIMEOUT, or give each test its own GPU (ctest "
                      "--resource-spec-file, one \"gpus\" slot per GPU).");
    }
    if (!said_waiting) {
      const std::string holders = Holders();
      std::fprintf(stderr, "bankcheck: waiting for the counters of GPU %s, held by another process%s%s\n",
                   pci_bus_id_.c_str(), holders.empty() ? "" : " ", holders.c_str());
      said_waiting = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

void GpuCounterLock::AnnounceHolder() {
  const pid_t pid = ::getpid();
  const std::string name = HolderName(pid);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::openat(folder_fd_, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                            kLockFileMode);
    if (fd >= 0) {
      [[maybe_unused]] const bool written = WriteAll(fd, std::to_string(pid) + "\n");  // for people only
      ::close(fd);
      holder_file_pid_ = pid;
      return;
    }
    // Left by a process of our pid that was killed holding the lock (it is not alive: we are): remove
    // it (unlink removes a link itself, never what it points at) and try again.
    if (errno != EEXIST || ::unlinkat(folder_fd_, name.c_str(), 0) != 0) break;
  }
  throw Error(ErrorKind::kBadInput, "cannot create the GPU lock's holder file " + LockFolder() + "/" + name +
                                        " (" + std::strerror(errno) +
                                        "); remove it, or set BANKCHECK_LOCK_DIR to another folder");
}

std::string GpuCounterLock::HolderName(pid_t pid) const { return name_ + ".holder." + std::to_string(pid); }

void GpuCounterLock::WithdrawHolder() {
  if (holder_file_pid_ == 0 || holder_file_pid_ != ::getpid()) return;
  ::unlinkat(folder_fd_, HolderName(holder_file_pid_).c_str(), 0);
  holder_file_pid_ = 0;
}

bool GpuCounterLock::HolderFileOf(pid_t pid) const {
  struct stat file {};
  if (::fstatat(folder_fd_, HolderName(pid).c_str(), &file, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISREG(file.st_mode))
    return false;
  struct stat process {};
  const uid_t runner =
      ::stat(("/proc/" + std::to_string(pid)).c_str(), &process) == 0 ? process.st_uid : ::geteuid();
  return file.st_uid == runner;
}

namespace {
// The pids named by holder files of `lock_name` in the folder, live or not.
std::vector<pid_t> HolderFilePids(int folder_fd, const std::string& lock_name) {
  std::vector<pid_t> pids;
  const int fd = ::dup(folder_fd);
  DIR* folder = fd >= 0 ? ::fdopendir(fd) : nullptr;
  if (folder == nullptr) {
    if (fd >= 0) ::close(fd);
    return pids;
  }
  ::rewinddir(folder);  // the duplicate shares the original's position
  const std::string prefix = lock_name + ".holder.";
  while (const dirent* entry = ::readdir(folder)) {
    if (const std::optional<pid_t> pid = HolderPid(entry->d_name, prefix)) pids.push_back(*pid);
  }
  ::closedir(folder);
  return pids;
}
}  // namespace

std::string GpuCounterLock::Holders() const {
  std::vector<pid_t> live;
  for (const pid_t pid : HolderFilePids(folder_fd_, name_))
    if (Alive(pid) && HolderFileOf(pid)) live.push_back(pid);
  if (live.empty()) return "";
  std::string text = live.size() == 1 ? "pid " : "pids ";
  for (size_t i = 0; i < live.size() && i < 8; ++i) text += (i == 0 ? "" : ", ") + std::to_string(live[i]);
  return text;
}

void GpuCounterLock::RemoveStaleHolders() const {
  for (const pid_t pid : HolderFilePids(folder_fd_, name_))
    if (!Alive(pid)) ::unlinkat(folder_fd_, HolderName(pid).c_str(), 0);
}

void GpuCounterLock::CloseLock() {
  WithdrawHolder();
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
  fd_ = -1;
}

GpuCounterLock::~GpuCounterLock() {
  CloseLock();
  ::close(folder_fd_);
}

}  // namespace bankcheck::internal
