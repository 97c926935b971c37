// `report` as JSON for a program (the object report.h documents).
#include <string>
#include <vector>

#include "bankcheck/core/instruction_counts.h"
#include "bankcheck/core/report.h"
#include "core/platform/json_io.h"
#include "core/reports/internal/report_data.h"
#include "core/reports/text_table.h"

namespace bankcheck::internal {
namespace {

// A case as the JSON output lists it.
nlohmann::json CaseJson(const CaseView& view) {
  const CaseResult& result = *view.result;
  nlohmann::json object = {
      {"name", result.name},
      {"topic", TopicOfCase(result.name)},
      {"status", CaseStatusName(result.status)},
      {"verdict", view.verdict ? nlohmann::json(BaselineVerdictName(*view.verdict)) : nlohmann::json()},
      {"differences", view.differences},
      {"table", view.verdict != BaselineVerdict::kMatch ? view.table : std::string()},
      {"launches", result.launches.size()},
  };
  nlohmann::json conflicts = nlohmann::json::object();
  for (const MemoryKind kind : ShownKinds(result.launches)) {
    const KindCounts total = SumCounts(result.launches, kind);
    conflicts[InfoOf(kind).label] =
        total.ideal_known() ? nlohmann::json(total.conflicts()) : nlohmann::json();
  }
  object["conflicts"] = std::move(conflicts);
  object["messages"] = result.status == CaseStatus::kPassed ? std::vector<std::string>() : result.messages;
  object["case_verdict"] = CaseVerdictName(view.decision.verdict);
  object["fails"] = view.decision.fails;
  object["reason"] = view.decision.reason;
  return object;
}

}  // namespace

std::string RenderJson(const ReportData& data) {
  const RunMetadata& meta = data.results->metadata;
  nlohmann::json out = {{"format", "bankcheck-report"}, {"version", 1}};
  out["run"] = {{"arch", meta.arch},
                {"device", meta.device},
                {"driver", meta.driver},
                {"cuda_runtime", meta.cuda_runtime},
                {"cuda_driver", meta.cuda_driver},
                {"date", meta.date},
                {"git_commit", meta.git_commit}};
  static const char* const kSources[] = {"run", "none", "folder", "none"};
  out["baselines"] = {{"compared", kSources[static_cast<int>(data.baselines)]},
                      {"folder", data.baselines_folder},
                      {"reason", data.baselines == ReportData::Baselines::kNoArch
                                     ? std::string("the results name no GPU architecture")
                                     : data.baselines_reason}};
  out["totals"] = {{"regressions", data.total(Rank::kRegression)},
                   {"improvements", data.total(Rank::kImprovement)},
                   {"changed", data.total(Rank::kChanged)},
                   {"missing", data.total(Rank::kMissing)},
                   {"unchanged", data.total(Rank::kUnchanged)},
                   {"not_compared", data.total(Rank::kNotCompared)},
                   {"cases", data.results->cases.size()},
                   {"passed", data.status(CaseStatus::kPassed)},
                   {"failed", data.status(CaseStatus::kFailed)},
                   {"skipped", data.status(CaseStatus::kSkipped)},
                   {"output_not_evaluated", data.output_not_evaluated}};
  out["gate"] = {{"fails", data.verdicts.fails()},
                 {"failing", data.verdicts.failing},
                 {"summary", data.verdicts.Line()},
                 {"allow_missing", data.policy.allow_missing}};
  out["skip_reasons"] = data.skip_reasons;
  out["not_evaluated_reasons"] = data.not_evaluated_reasons;
  for (const char* key : {"regressions", "improvements", "changed", "missing", "failed", "cases"})
    out[key] = nlohmann::json::array();
  for (const auto& [first_rank, topic] : data.topic_order) {
    for (const CaseView& view : data.by_topic.at(topic)) {
      nlohmann::json object = CaseJson(view);
      switch (view.rank) {
        case Rank::kRegression:
          out["regressions"].push_back(object);
          break;
        case Rank::kImprovement:
          out["improvements"].push_back(object);
          break;
        case Rank::kChanged:
          out["changed"].push_back(object);
          break;
        case Rank::kMissing:
          out["missing"].push_back(object);
          break;
        default:
          break;
      }
      if (view.result->status == CaseStatus::kFailed) out["failed"].push_back(object);
      out["cases"].push_back(std::move(object));
    }
  }
  return DumpJson(out);
}

}  // namespace bankcheck::internal
