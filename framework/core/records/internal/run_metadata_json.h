#pragma once
// Internal: RunMetadata in baseline and results files, both ways.

#include "bankcheck/core/run_metadata.h"
#include "core/platform/json_io.h"

namespace bankcheck::internal {

// The baseline files' "recorded_with": device, driver, cuda_runtime, cuda_driver, date, and
// cuda_compiler when known.
nlohmann::json RecordedWithToJson(const RunMetadata& metadata);
// The results files' "metadata": those, arch, git_commit, and cuda_architectures and
// bankcheck_version when known.
nlohmann::json RunMetadataToJson(const RunMetadata& metadata);

// A baseline's "recorded_with" (five string fields, cuda_compiler optional; arch, git_commit and
// cuda_architectures are left empty).
RunMetadata RecordedWithFromJson(const FieldReader& field);
// A results file's "metadata" (seven string fields; cuda_compiler, cuda_architectures and
// bankcheck_version optional).
RunMetadata RunMetadataFromJson(const FieldReader& field);

}  // namespace bankcheck::internal
