#include "cuda/internal/counting_backend.h"

namespace bankcheck::internal {

CountingBackend::~CountingBackend() = default;

std::unique_ptr<CountingBackend> MakeCountingBackend(const SessionOptions& options, StepTrace& trace) {
  if (CountersFor(options) == SessionOptions::Counters::kSassMetrics)
    return MakeSassBackend(trace, options.attribute_instructions);
  return MakeRangeProfilerBackend(options, trace);
}

}  // namespace bankcheck::internal
