// `report` as GitHub workflow commands: each failure an `::error` at its source line, which GitHub
// shows on that line of the pull request's diff.
#include <string>

#include "core/reports/internal/github_escape.h"
#include "core/reports/internal/report_data.h"
#include "core/reports/internal/report_findings.h"

namespace bankcheck::internal {

// A first line that is no command ("bankcheck: <headline>"), then one `::error` per failure. Every
// value goes through github::WorkflowCommand's escapes, so no name or message can end its command
// or start one of its own; it is plain text already (FindFailures), so no control character
// reaches the log either. Not bounded by max_bytes: the job's log holds every failure.
std::string RenderGithub(const ReportData& data, const ReportOptions& options) {
  std::string out = "bankcheck: " + Headline(data, "") + "\n";
  for (const Finding& finding : FindFailures(data, options)) {
    out += github::WorkflowCommand("error",
                                   {{"file", finding.file},
                                    {"line", finding.file.empty() ? "" : std::to_string(finding.line)},
                                    {"title", FindingTitle(finding)}},
                                   finding.message);
  }
  return out;
}

}  // namespace bankcheck::internal
