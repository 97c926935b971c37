#pragma once
// The registry of kernels under test. Adding a kernel is one file among a kernel suite's SOURCES
// (bankcheck_add_kernel_suite(); bankcheck's own: kernels/) that defines the kernel and registers
// one or more cases; the suite's programs run every registered case (a GoogleTest test each,
// "<TEST_PREFIX>/<topic>.<rest of the name>") with no other edit.
//
//   BANKCHECK_REGISTER_CASES([] {
//     bankcheck::KernelCase c;
//     c.name = "demo/stride2";                          // topic/variant[/size]: the baseline key
//     c.description = "256 threads write and read smem[tid*2]";
//     c.expect[bankcheck::MemoryKind::kSharedLoad].ways = 2;  // what the hardware does (measured)
//     c.expect[bankcheck::MemoryKind::kSharedStore].ways = 2;
//     c.expect[bankcheck::MemoryKind::kSharedLoad].instructions = 8;  // catches removed/widened accesses
//     c.run = [](bankcheck::CaseContext& ctx) {
//       ... allocate and fill inputs ...
//       ctx.Measure([&] { kernel<<<grid, block>>>(...); });
//       ... copy back and EXPECT_* against the host reference ...
//     };
//     bankcheck::RegisterKernelCase(std::move(c));
//   });

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/core/baseline.h"
#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/memory_kind.h"
#include "bankcheck/cuda/counter_session.h"

namespace bankcheck {

// What a case's annotation says about one kind of shared-memory instruction in every launch it
// measures. The defaults say "conflict-free": a kind a case does not annotate must stay so.
struct KindExpectation {
  double ways = 1.0;  // wavefronts / ideal wavefronts (checked where the ideal is exact)
  std::optional<uint64_t> instructions;
  std::optional<uint64_t> wavefronts;
  std::optional<uint64_t> conflicts;  // checked where the ideal is exact
};

// A case's annotation, per kind:  c.expect[MemoryKind::kSharedLdmatrix].ways = 8;
// Optional: a case that never writes c.expect states nothing per launch. Its launches are then
// checked against the line annotations of its kernel's sources (docs/annotations.md) when they
// have some, and against its baseline only when they have none.
class Expectation {
 public:
  KindExpectation& operator[](MemoryKind kind) {
    stated_ = true;
    named_[kind] = true;
    return kinds_[kind];
  }
  const KindExpectation& operator[](MemoryKind kind) const { return kinds_[kind]; }
  // Whether the case wrote any of it (then every shared-memory kind it did not write must stay
  // conflict-free).
  bool stated() const { return stated_; }
  // Whether the case wrote this kind's: a global or local kind is checked only then.
  bool named(MemoryKind kind) const { return named_[kind]; }

 private:
  PerKind<KindExpectation> kinds_;
  PerKind<bool> named_;
  bool stated_ = false;
};

// Handed to a case's run function.
class CaseContext {
 public:
  explicit CaseContext(SessionOptions options = {}) : options_(std::move(options)) {}
  virtual ~CaseContext() = default;
  // Runs `launches` under a CounterSession and keeps their records for the suite's checks.
  // May be called more than once; records accumulate in launch order.
  virtual void Measure(const std::function<void()>& launches);
  const std::vector<LaunchRecord>& records() const { return records_; }

 protected:
  SessionOptions options_;
  std::vector<LaunchRecord> records_;
};

struct KernelCase {
  std::string name;         // unique, "topic/variant[/size]"; the baseline key
  std::string description;  // one line: what the case shows
  Expectation expect;       // applies to every launch the case measures
  std::function<void(CaseContext&)> run;
  // Optional: the access pattern through the CPU bank model; when set, the suite checks that the
  // model's prediction equals the measurement.
  std::function<PredictedCounts()> predict;
  // How the case's launches are measured (e.g. hardware_ideal for the kinds whose ideal only
  // hardware counters give, at the cost of a replay pass).
  SessionOptions session;
  // Where the case was registered (RegisterKernelCase's caller): the suite's failures about the case
  // name this line of the kernel's own file, not bankcheck's.
  std::string source_file;
  int source_line = 0;

  // Its baseline file's and its CTest test's topic: the one rule of TopicOfCase (baseline.h).
  std::string topic() const { return TopicOfCase(name); }
};

// Adds a case, with the file and line of the call as its source (unless the case names its own).
// Throws Error(kBadInput) for an empty or duplicate name or a missing run function.
void RegisterKernelCase(KernelCase kernel_case, const char* file = __builtin_FILE(),
                        int line = __builtin_LINE());
// All registered cases, sorted by name.
std::vector<const KernelCase*> RegisteredKernelCases();
// Removes every case (tests of the registry itself).
void ClearKernelCasesForTesting();

}  // namespace bankcheck

#define BANKCHECK_INTERNAL_CAT2(a, b) a##b
#define BANKCHECK_INTERNAL_CAT(a, b) BANKCHECK_INTERNAL_CAT2(a, b)
// Runs the registrar (a callable) during static initialization. Variadic: a lambda whose body has a
// comma outside parentheses (`std::pair<int, int>`, `{a, b}`) reaches the macro as several arguments.
#define BANKCHECK_REGISTER_CASES(...)                                                          \
  [[maybe_unused]] static const bool BANKCHECK_INTERNAL_CAT(bankcheck_registered_, __LINE__) = \
      ((__VA_ARGS__)(), true)
