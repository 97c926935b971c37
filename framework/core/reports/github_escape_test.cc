#include "core/reports/internal/github_escape.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

namespace bankcheck::github {
namespace {

// A workflow command as the Actions runner reads a log line (ActionCommand.TryParseV2): "::", the
// command's name up to a space, properties split at ',' and each at its first '=', up to the first
// "::" after the start; the rest is the data. Values and data are unescaped as the runner does.
struct Parsed {
  bool is_command = false;
  std::string name;
  std::map<std::string, std::string> properties;
  std::string data;
};

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string UnescapeData(std::string text) {
  text = ReplaceAll(text, "%0D", "\r");
  text = ReplaceAll(text, "%0A", "\n");
  return ReplaceAll(text, "%25", "%");
}

std::string UnescapeProperty(std::string text) {
  text = ReplaceAll(text, "%0D", "\r");
  text = ReplaceAll(text, "%0A", "\n");
  text = ReplaceAll(text, "%3A", ":");
  text = ReplaceAll(text, "%2C", ",");
  return ReplaceAll(text, "%25", "%");
}

Parsed ParseLine(const std::string& line) {
  Parsed parsed;
  if (line.rfind("::", 0) != 0) return parsed;
  const size_t end = line.find("::", 2);
  if (end == std::string::npos) return parsed;
  parsed.is_command = true;
  const std::string info = line.substr(2, end - 2);
  parsed.data = UnescapeData(line.substr(end + 2));
  const size_t space = info.find(' ');
  parsed.name = info.substr(0, space);
  if (space == std::string::npos) return parsed;
  std::string rest = info.substr(space + 1);
  size_t start = 0;
  while (start <= rest.size()) {
    const size_t comma = rest.find(',', start);
    const std::string pair =
        rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t equals = pair.find('=');
    if (!pair.empty() && equals != std::string::npos)
      parsed.properties[pair.substr(0, equals)] = UnescapeProperty(pair.substr(equals + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parsed;
}

TEST(GithubEscapeTest, DataEscapesPercentAndLineBreaksOnly) {
  EXPECT_EQ(EscapeData("50% of a\r\nb"), "50%25 of a%0D%0Ab");
  EXPECT_EQ(EscapeData("a:b,c::d"), "a:b,c::d");
  EXPECT_EQ(EscapeData("%0A"), "%250A");  // an escape in the text stays text
  EXPECT_EQ(EscapeData(""), "");
}

TEST(GithubEscapeTest, PropertyEscapesColonAndCommaToo) {
  EXPECT_EQ(EscapeProperty("a:b,c%d\ne\rf"), "a%3Ab%2Cc%25d%0Ae%0Df");
  EXPECT_EQ(EscapeProperty("kernels/transpose.cu"), "kernels/transpose.cu");
}

TEST(GithubEscapeTest, WorkflowCommandIsOneLineWithThePropertiesGiven) {
  EXPECT_EQ(WorkflowCommand("error", {{"file", "k.cu"}, {"line", "31"}, {"title", "t: x"}}, "message"),
            "::error file=k.cu,line=31,title=t%3A x::message\n");
  EXPECT_EQ(WorkflowCommand("error", {{"file", ""}, {"title", "t"}}, "m"), "::error title=t::m\n");
  EXPECT_EQ(WorkflowCommand("notice", {}, "m"), "::notice::m\n");
  EXPECT_EQ(WorkflowCommand("error", {{"file", ""}}, "m"), "::error::m\n");
}

TEST(GithubEscapeTest, CallersOwnWordsOnlyAsNameAndKeys) {
  EXPECT_THROW(WorkflowCommand("error::x", {}, "m"), std::invalid_argument);
  EXPECT_THROW(WorkflowCommand("", {}, "m"), std::invalid_argument);
  EXPECT_THROW(WorkflowCommand("error", {{"ti,tle", "t"}}, "m"), std::invalid_argument);
}

// Whatever a name holds, the runner reads back exactly one command, of our name and properties,
// with the text given: no line of its own, no property or command it could add.
TEST(GithubEscapeTest, HostileTextRoundTripsThroughTheRunnersParser) {
  const std::string hostile[] = {
      "case\n::error title=x::owned",
      "a,b:c::d=e%0A%25%",
      "\r\n::add-mask::secret\n::stop-commands::token",
      "title=x,file=/etc/passwd,line=1",
      "::",
      ":",
      "%",
      "x\n",
  };
  for (const std::string& text : hostile) {
    const std::string line = WorkflowCommand("error", {{"file", text}, {"line", "7"}, {"title", text}}, text);
    ASSERT_EQ(line.find('\n'), line.size() - 1) << line;
    ASSERT_EQ(line.find('\r'), std::string::npos) << line;
    const Parsed parsed = ParseLine(line.substr(0, line.size() - 1));
    ASSERT_TRUE(parsed.is_command) << line;
    EXPECT_EQ(parsed.name, "error") << line;
    EXPECT_EQ(parsed.properties,
              (std::map<std::string, std::string>{{"file", text}, {"line", "7"}, {"title", text}}))
        << line;
    EXPECT_EQ(parsed.data, text) << line;
  }
}

}  // namespace
}  // namespace bankcheck::github
