#pragma once
// Internal: results and baseline files from an already parsed document, for a reader that looks at
// the document first (compare: which kind of file is it?) and must not parse the text twice.

#include <cstddef>
#include <filesystem>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/results.h"
#include "core/platform/json_io.h"

namespace bankcheck::internal {

// The launches of every case in a results or baseline file's "cases", counted before any is read:
// the sizes of the cases' "launches" arrays (anything else counts 0; reading it fails later).
inline size_t LaunchesInCases(const nlohmann::json& cases) {
  size_t launches = 0;
  for (const auto& item : cases.items()) {
    if (!item.value().is_object()) continue;
    const auto found = item.value().find("launches");
    if (found != item.value().end() && found->is_array()) launches += found->size();
  }
  return launches;
}

// As ParseResults (results.h), from the document parsed out of `path`.
RunResults ResultsFromJson(const nlohmann::json& document, const std::filesystem::path& path);
// As ParseBaselineFile (baseline.h), from the document parsed out of `path`.
BaselineFile BaselineFileFromJson(const nlohmann::json& document, const std::filesystem::path& path,
                                  const RecordAdvice& record = {});

}  // namespace bankcheck::internal
