#pragma once
// Internal: what the baseline format shares with the store that reads and updates its files
// (baseline_format.cc, baseline_store.cc).

#include <filesystem>
#include <string>

#include "bankcheck/core/baseline.h"
#include "core/platform/json_io.h"

namespace bankcheck::internal {

// How to mend a malformed file: by hand, from git, or recorded again (`record.ForAll()`).
std::string BaselineFileAdvice(const std::filesystem::path& path, const RecordAdvice& record);
// Error(kBadInput) unless `arch` can name a folder ("sm_90").
void ValidateBaselineArch(const std::string& arch);
// A case's entry, and a file with no cases, as baseline files hold them.
nlohmann::json BaselineEntryToJson(const BaselineUpdate& update);
nlohmann::json NewBaselineDocument(const std::string& arch);

}  // namespace bankcheck::internal
