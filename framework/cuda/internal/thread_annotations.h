#pragma once
// Clang's thread-safety annotations (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html), as
// abseil spells them: which mutex guards a member (BANKCHECK_GUARDED_BY) and which a function needs
// held (BANKCHECK_REQUIRES) are part of the declarations, and `clang++ -Wthread-safety` checks every
// access (ci/jobs/thread-safety.sh). No-ops for other compilers. Mutex and MutexLock wrap std::mutex so
// that the analysis knows what locking them does (libstdc++'s std::mutex carries no annotations).

#include <mutex>

#if defined(__clang__)
#define BANKCHECK_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define BANKCHECK_THREAD_ANNOTATION(x)
#endif

#define BANKCHECK_CAPABILITY(x) BANKCHECK_THREAD_ANNOTATION(capability(x))
#define BANKCHECK_SCOPED_CAPABILITY BANKCHECK_THREAD_ANNOTATION(scoped_lockable)
#define BANKCHECK_GUARDED_BY(x) BANKCHECK_THREAD_ANNOTATION(guarded_by(x))
#define BANKCHECK_REQUIRES(...) BANKCHECK_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define BANKCHECK_EXCLUDES(...) BANKCHECK_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define BANKCHECK_ACQUIRE(...) BANKCHECK_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define BANKCHECK_RELEASE(...) BANKCHECK_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
// For a function whose locking the analysis cannot follow; say why beside it.
#define BANKCHECK_NO_THREAD_SAFETY_ANALYSIS BANKCHECK_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace bankcheck::internal {

// A std::mutex the analysis knows as a capability.
class BANKCHECK_CAPABILITY("mutex") Mutex {
 public:
  void Lock() BANKCHECK_ACQUIRE() { mutex_.lock(); }
  void Unlock() BANKCHECK_RELEASE() { mutex_.unlock(); }

 private:
  std::mutex mutex_;
};

// Holds `mutex` for its scope.
class BANKCHECK_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mutex) BANKCHECK_ACQUIRE(mutex) : mutex_(mutex) { mutex_.Lock(); }
  ~MutexLock() BANKCHECK_RELEASE() { mutex_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mutex_;
};

}  // namespace bankcheck::internal
