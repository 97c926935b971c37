#pragma once
// Internal: reading RunMetadata back from baseline and results files.

#include "bankcheck/run_metadata.h"
#include "json_io.h"

namespace bankcheck::internal {

// A baseline's "recorded_with" (five string fields; arch and git_commit are left empty).
RunMetadata RecordedWithFromJson(const FieldReader& field);
// A results file's "metadata" (all seven string fields).
RunMetadata RunMetadataFromJson(const FieldReader& field);

}  // namespace bankcheck::internal
