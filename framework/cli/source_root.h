#pragma once
// The project's source folder as `annotate` and `report` find it, and the files under it: only
// those are read or written (a results file from a pull request may name any path).

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "bankcheck/core/report.h"

namespace bankcheck::cli {

// --source-root when given (`given`), else BANKCHECK_SOURCE_ROOT, else the current directory, with
// links resolved; Error(kBadInput) naming where it came from when it is not a folder.
std::filesystem::path SourceRoot(const std::string& option, bool given);

// `file` (as line info names it) relative to `root` (a SourceRoot) when inside it, links resolved
// first (a link out of the root is outside it); nullopt when outside. `resolved` is the file with links
// resolved.
std::optional<std::filesystem::path> RelativeToRootResolved(const std::string& file,
                                                            const std::filesystem::path& root,
                                                            std::filesystem::path& resolved);

// The files under `root` as `report` is given them (ReportOptions::source_file): the path relative
// to the root, and the line annotations of a regular file there, each file read once (an unreadable
// or too large one, or one outside the root, is not read: its lines are not checked, as the suite
// does for a library's header).
std::function<SourceFile(const std::string& file)> SourceFilesUnder(const std::filesystem::path& root);

}  // namespace bankcheck::cli
