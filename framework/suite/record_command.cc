#include "suite/internal/record_command.h"

#include <cctype>

#include "bankcheck/core/case_selection.h"

namespace bankcheck::suites {

namespace {
// `text` with every character but A-Z a-z 0-9 _ / replaced by '_'.
std::string GtestSafe(std::string text) {
  for (char& c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '/') c = '_';
  }
  return text;
}

// `text` in single quotes, as one shell word whatever it holds.
std::string ShellQuote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// `text` as a regular expression (CTest's) that matches exactly it.
std::string RegexEscape(const std::string& text) {
  std::string regex;
  for (const char c : text) {
    if (std::string(".[]()*+?^$|\\{}").find(c) != std::string::npos) regex += '\\';
    regex += c;
  }
  return regex;
}

// The environment of every command: `variable`=`value`, and the folder when it is not the suite's own.
std::string CommandEnvironment(const RecordCommand& record, const std::string& variable,
                               const std::string& value) {
  return variable + "=" + value + " " +
         (record.baselines_dir.empty() ? ""
                                       : "BANKCHECK_BASELINES_DIR=" + ShellQuote(record.baselines_dir) + " ");
}
}  // namespace

CaseTestName GtestNameForCase(const std::string& test_prefix, const std::string& case_name) {
  const std::string topic = TopicOfCase(case_name);
  const size_t slash = case_name.find('/');
  const std::string rest = slash != std::string::npos ? case_name.substr(slash + 1) : "";
  return {GtestSafe(test_prefix.empty() ? topic : test_prefix + "/" + topic),
          GtestSafe(rest.empty() ? case_name : rest)};
}

std::string ModelCheckPrefix(const std::string& test_prefix) {
  return test_prefix.empty() ? "model" : test_prefix + "/model";
}

CaseTestName GtestNameForBaselineFilesCheck(const std::string& test_prefix) {
  return {test_prefix.empty() ? "bankcheck" : GtestSafe(test_prefix), "baseline_files"};
}

std::string RecordCommand::CtestNameForCase(const std::string& case_name) const {
  return topic_test_prefix.empty() ? "" : topic_test_prefix + "/" + TopicOfCase(case_name);
}

std::string RecordCommand::CtestRegexForCase(const std::string& case_name) const {
  const std::string topic = RegexEscape(TopicOfCase(case_name));
  return topic_test_prefix.empty() ? "/" + topic + "$"
                                   : "^" + RegexEscape(topic_test_prefix) + "/" + topic + "$";
}

std::string RecordCommand::ForCase(const std::string& case_name) const {
  return CommandEnvironment(*this, "BANKCHECK_UPDATE_BASELINES", update_value) +
         "BANKCHECK_CASES=" + ShellQuote(CasePatternFor(case_name)) + " " + test_command + " -R " +
         ShellQuote(CtestRegexForCase(case_name));
}

std::string RecordCommand::ForAll() const {
  return RunTestsWith("BANKCHECK_UPDATE_BASELINES", topic_test_prefix.empty() ? "" : topic_test_prefix + "/",
                      update_value);
}

std::string RecordCommand::RunTestsWith(const std::string& variable, const std::string& test_name_prefix,
                                        const std::string& value) const {
  const std::string command = CommandEnvironment(*this, variable, value) + test_command;
  return test_name_prefix.empty() ? command
                                  : command + " -R " + ShellQuote("^" + RegexEscape(test_name_prefix));
}

RecordAdvice RecordCommand::Advice() const {
  RecordAdvice advice;
  advice.all = ForAll();
  advice.one = [command = *this](const std::string& case_name) { return command.ForCase(case_name); };
  advice.test_of = [command = *this](const std::string& case_name) {
    return command.CtestNameForCase(case_name);
  };
  return advice;
}

}  // namespace bankcheck::suites
