#pragma once
// GoogleTest results held back from the running test: what the suite runs a case's own code under
// when its failures are not (yet) the test's, attribution's second run of a case (case_runner.cc)
// and the emulated program's cases (emulated_case.cc). GoogleTest offers this only through
// gtest-spi.h (ScopedFakeTestPartResultReporter), its API for testing GoogleTest itself: this is
// the one production file that includes it (held_results.cc), so that the rest of the framework
// does not depend on that API.

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace bankcheck::gtest {

class HeldResults {
 public:
  // The results reported on the calling thread, or on every thread.
  enum class Threads { kThisThread, kAll };
  // Holds every result reported from now on (failures, skips, successes) until Release.
  explicit HeldResults(Threads threads);
  ~HeldResults();
  HeldResults(const HeldResults&) = delete;
  HeldResults& operator=(const HeldResults&) = delete;

  // How many results are held so far.
  size_t size() const;
  // Stops holding and returns what was held, in the order it was reported; results reported after
  // it go to the running test again. Called once.
  std::vector<::testing::TestPartResult> Release();

 private:
  struct Holder;
  std::unique_ptr<Holder> holder_;
};

// Reports `result` to the running test as it was reported (its type, file, line and message).
void ReportAgain(const ::testing::TestPartResult& result);

}  // namespace bankcheck::gtest
