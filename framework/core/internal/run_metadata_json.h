#pragma once
// Internal: RunMetadata in baseline and results files, both ways.

#include "bankcheck/run_metadata.h"
#include "core/internal/json_io.h"

namespace bankcheck::internal {

// The baseline files' "recorded_with": device, driver, cuda_runtime, cuda_driver, date.
nlohmann::json RecordedWithToJson(const RunMetadata& metadata);
// The results files' "metadata": all seven fields.
nlohmann::json RunMetadataToJson(const RunMetadata& metadata);

// A baseline's "recorded_with" (five string fields; arch and git_commit are left empty).
RunMetadata RecordedWithFromJson(const FieldReader& field);
// A results file's "metadata" (all seven string fields).
RunMetadata RunMetadataFromJson(const FieldReader& field);

}  // namespace bankcheck::internal
