// `report` as SARIF 2.1.0 for GitHub code scanning: one rule per kind of failure, one result at
// each failure's source line.
#include <cstdio>
#include <string>

#include "core/platform/json_io.h"
#include "core/reports/internal/report_data.h"
#include "core/reports/internal/report_findings.h"

namespace bankcheck::internal {
namespace {

constexpr char kSarifSchema[] =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

// A repository path as a relative URI reference: every byte but the unreserved characters of RFC
// 3986 and '/' percent-encoded ("my kernels/t#1.cu" -> "my%20kernels/t%231.cu").
std::string RelativeUri(const std::string& path) {
  std::string uri;
  for (const char c : path) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if ((byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9') ||
        c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      uri += c;
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof(escaped), "%%%02X", byte);
      uri += escaped;
    }
  }
  return uri;
}

nlohmann::json Rule(FindingKind kind) {
  const FindingRule& rule = RuleOf(kind);
  return {{"id", rule.id},
          {"name", rule.name},
          {"shortDescription", {{"text", rule.description}}},
          {"fullDescription", {{"text", rule.description}}},
          {"help", {{"text", rule.help}}},
          {"defaultConfiguration", {{"level", "error"}}},
          {"properties", {{"tags", {"bankcheck", "shared-memory", "performance"}}}}};
}

}  // namespace

// Every value is a JSON string written by nlohmann-json (DumpJson: invalid UTF-8 replaced), never
// put together by hand. GitHub displays a result only at a place in the repository, so a failure
// with none (a case without per-instruction counts, a line outside the repository) is an error
// notification of the run's invocation instead, which code scanning lists with the analysis.
std::string RenderSarif(const ReportData& data, const ReportOptions& options) {
  nlohmann::json rules = nlohmann::json::array();
  for (const FindingKind kind : kFindingKinds) rules.push_back(Rule(kind));
  nlohmann::json results = nlohmann::json::array();
  nlohmann::json notifications = nlohmann::json::array();
  for (const Finding& finding : FindFailures(data, options)) {
    const FindingRule& rule = RuleOf(finding.kind);
    const nlohmann::json message = {{"text", finding.message}};
    nlohmann::json cases = finding.cases;
    if (finding.file.empty()) {
      notifications.push_back({{"level", "error"},
                               {"message", message},
                               {"descriptor", {{"id", rule.id}}},
                               {"properties", {{"cases", cases}, {"case_count", finding.case_count}}}});
      continue;
    }
    nlohmann::json location = {
        {"physicalLocation",
         {{"artifactLocation", {{"uri", RelativeUri(finding.file)}, {"uriBaseId", "%SRCROOT%"}}},
          {"region", {{"startLine", finding.line}}}}}};
    results.push_back({{"ruleId", rule.id},
                       {"ruleIndex", static_cast<size_t>(finding.kind)},
                       {"level", "error"},
                       {"kind", "fail"},
                       {"message", message},
                       {"locations", nlohmann::json::array({location})},
                       {"properties", {{"cases", cases}, {"case_count", finding.case_count}}}});
  }
  nlohmann::json run = {
      {"tool", {{"driver", {{"name", "bankcheck"}, {"rules", rules}}}}},
      {"automationDetails", {{"id", options.category + "/"}}},
      {"invocations", nlohmann::json::array(
                          {{{"executionSuccessful", true}, {"toolExecutionNotifications", notifications}}})},
      {"results", results},
      {"properties", {{"headline", Headline(data, "")}}}};
  return DumpJson({{"$schema", kSarifSchema}, {"version", "2.1.0"}, {"runs", nlohmann::json::array({run})}});
}

}  // namespace bankcheck::internal
