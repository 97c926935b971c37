#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bankcheck/core/report.h"
#include "core/platform/test_support.h"
#include "core/reports/internal/report_test_support.h"

// What a hostile name, device or message in a results file can do to a report: nothing (control
// sequences out of text, Markdown and HTML escaped, code blocks unclosable; docs/security.md).
namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_support::MakeCase;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::MakeResults;

TEST(ReportTest, TextCannotSendTheTerminalControlSequences) {
  RunResults results;
  CaseResult evil = MakeCase("t/\x1b[2Jx", 2048, BaselineVerdict::kRegression, CaseStatus::kFailed);
  evil.messages = {"boom \x1b]0;title\x07"};
  results.cases[evil.name] = evil;
  results.metadata.device = "GPU\x1b[31m";
  ReportOptions options;
  options.format = OutputFormat::kText;
  const std::string text = RenderReport(results, options).output;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  EXPECT_THAT(text, HasSubstr("t/?[2Jx"));
}

TEST(ReportTest, DeviceWithNewlinesCannotPutAFakeHeadlineFirst) {
  RunResults results = MakeResults();
  results.metadata.device = "H100\n\n## bankcheck: all cases passed, 0 regressions\n\n<details><summary>more";
  results.metadata.driver = "580\n# fake";
  const std::string report = RenderMarkdownReport(results);
  // The real headline is the first line, with the device on it, escaped.
  EXPECT_EQ(report.substr(0, report.find('\n')),
            "## bankcheck: sm_90 · H100  &#35;&#35; bankcheck: all cases passed, 0 regressions  "
            "&lt;details&gt;&lt;summary&gt;more");
  EXPECT_THAT(report, AllOf(Not(HasSubstr("\n## bankcheck: all cases passed")),
                            Not(HasSubstr("<details><summary>more")), Not(HasSubstr("\n# fake")),
                            HasSubstr("driver 580 &#35; fake")));
  // The count of regressions comes before any collapsed section.
  ASSERT_NE(report.find("**1 regression**"), std::string::npos);
  EXPECT_LT(report.find("**1 regression**"), report.find("<details>"));
}

TEST(ReportTest, MessageCannotCloseItsCodeBlock) {
  RunResults results = MakeResults();
  results.cases["transpose/zz_regressed"].messages = {"boom\n```\n[click me](https://evil.example)\n```\n"};
  const std::string report = RenderMarkdownReport(results);
  // The fence is longer than the message's, so the message's lines stay inside the block.
  EXPECT_THAT(report, HasSubstr("</summary>\n\n````\nlaunch  kernel ... 64 -> 2048\n\nboom\n```\n"
                                "[click me](https://evil.example)\n```\n\n````\n</details>"));
}

TEST(ReportTest, CaseNameCannotBreakOutOfTheTableOrTheDetails) {
  RunResults results;
  results.metadata = MakeMetadata();
  const std::string name = "transpose/x`</summary></details><img src=x>|*";
  CaseResult evil = MakeCase(name, 2048, BaselineVerdict::kRegression, CaseStatus::kFailed);
  evil.baseline_table = "before -> after\n";
  evil.launches = {MakeRecord(2048, 64, "k</summary>`")};
  results.cases[name] = evil;
  // Its topic, the heading, is made safe to name a file (TopicOfCase); its name is escaped in the row.
  const std::string topic_name = "evil|<h3>topic/a";
  results.cases[topic_name] = MakeCase(topic_name, 2048, BaselineVerdict::kRegression);
  const std::string report = RenderMarkdownReport(results);
  const std::string code =
      "<code>transpose/x&#96;&lt;/summary&gt;&lt;/details&gt;&lt;img src=x&gt;&#124;&#42;</code>";
  EXPECT_THAT(report, AllOf(HasSubstr("| " + code + " | ld 32 · st 1 |"),
                            HasSubstr("<details><summary>" + code + ": regression</summary>"),
                            HasSubstr("### evil&#95;&#95;h3_topic\n"),
                            HasSubstr("<code>evil&#124;&lt;h3&gt;topic/a</code>"),
                            Not(HasSubstr("</summary></details>")), Not(HasSubstr("<img")),
                            Not(HasSubstr("<h3>")), Not(HasSubstr("x`"))));
  // Every <details> is closed once, by the report itself.
  size_t opened = 0, closed = 0;
  for (size_t at = report.find("<details>"); at != std::string::npos; at = report.find("<details>", at + 1))
    ++opened;
  for (size_t at = report.find("</details>"); at != std::string::npos; at = report.find("</details>", at + 1))
    ++closed;
  EXPECT_EQ(opened, 1u);
  EXPECT_EQ(closed, 1u);
}

}  // namespace
}  // namespace bankcheck
