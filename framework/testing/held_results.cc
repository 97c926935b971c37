#include "testing/internal/held_results.h"

#include <gtest/gtest-spi.h>

#include <optional>

namespace bankcheck::gtest {

struct HeldResults::Holder {
  ::testing::TestPartResultArray results;
  std::optional<::testing::ScopedFakeTestPartResultReporter> reporter;
};

HeldResults::HeldResults(Threads threads) : holder_(std::make_unique<Holder>()) {
  holder_->reporter.emplace(threads == Threads::kAll
                                ? ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ALL_THREADS
                                : ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
                            &holder_->results);
}

HeldResults::~HeldResults() = default;

size_t HeldResults::size() const { return static_cast<size_t>(holder_->results.size()); }

std::vector<::testing::TestPartResult> HeldResults::Release() {
  holder_->reporter.reset();
  std::vector<::testing::TestPartResult> released;
  for (int i = 0; i < holder_->results.size(); ++i) released.push_back(holder_->results.GetTestPartResult(i));
  return released;
}

void ReportAgain(const ::testing::TestPartResult& result) {
  ::testing::internal::AssertHelper(result.type(), result.file_name(), result.line_number(),
                                    result.message()) = ::testing::Message();
}

}  // namespace bankcheck::gtest
