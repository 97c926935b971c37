#pragma once
// The registry of kernels under test. Adding a kernel is one file in kernels/ that defines the
// kernel and registers one or more cases; the suites in suites/ run every registered case
// (value-parameterized over this registry) with no other edit.
//
//   BANKCHECK_REGISTER_CASES([] {
//     bankcheck::KernelCase c;
//     c.name = "demo/stride2";                          // topic/variant[/size]: the baseline key
//     c.description = "256 threads write and read smem[tid*2]";
//     c.expect.load_ways = 2;                           // what the hardware does (measured)
//     c.expect.store_ways = 2;
//     c.expect.load_instructions = 8;                   // optional: catches removed/widened accesses
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

#include "bankcheck/counter_session.h"
#include "bankcheck/launch_record.h"

namespace bankcheck {

// What a case's annotation says about every launch it measures.
struct Expectation {
  double load_ways = 1.0;   // shared load wavefronts / ideal wavefronts
  double store_ways = 1.0;  // shared store wavefronts / ideal wavefronts
  std::optional<uint64_t> load_instructions;
  std::optional<uint64_t> store_instructions;
  std::optional<uint64_t> load_conflicts;
  std::optional<uint64_t> store_conflicts;
};

// What the CPU bank model predicts for a case's launch (see bank_model.h), with the bank map a
// failure message can show.
struct PredictedCounts {
  SharedCounts loads;
  SharedCounts stores;
  std::string bank_map;  // human-readable explanation of the worst access; may be empty
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

  std::string topic() const { return name.substr(0, name.find('/')); }
};

// Adds a case. Throws Error(kBadInput) for an empty or duplicate name or a missing run function.
void RegisterKernelCase(KernelCase kernel_case);
// All registered cases, sorted by name.
std::vector<const KernelCase*> RegisteredKernelCases();
// Removes every case (tests of the registry itself).
void ClearKernelCasesForTesting();

}  // namespace bankcheck

#define BANKCHECK_INTERNAL_CAT2(a, b) a##b
#define BANKCHECK_INTERNAL_CAT(a, b) BANKCHECK_INTERNAL_CAT2(a, b)
// Runs `registrar` (a callable) during static initialization.
#define BANKCHECK_REGISTER_CASES(registrar)                                                    \
  [[maybe_unused]] static const bool BANKCHECK_INTERNAL_CAT(bankcheck_registered_, __LINE__) = \
      ((registrar)(), true)
