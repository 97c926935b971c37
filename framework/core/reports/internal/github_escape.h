#pragma once
// GitHub Actions workflow commands (`::error file=F,line=N,title=T::message`), written so that
// nothing from a results file or a source path can end a command early or start one of its own.
//
// The runner reads a command from the start of a log line: `::NAME PROPERTIES::DATA`, where
// PROPERTIES are `key=value` pairs separated by ',' and the first "::" after the name ends them. It
// decodes, in values, %25 as '%', %0D as '\r', %0A as '\n', %3A as ':' and %2C as ','; in the data
// the first three. So the data is escaped for '%', '\r' and '\n' (no line break is left: the
// command stays one line, and whatever follows it in the data, "::error" included, is text of
// this command), and a value also for ':' and ',' (no ',' or "::" in a value can end it or start
// another property). "::" inside the data needs nothing more: only the start of a line is read as
// a command. These are the escapes of GitHub's own toolkit (@actions/core, command.ts). Internal.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bankcheck::github {

// The data of a command (its message): '%' -> %25, '\r' -> %0D, '\n' -> %0A.
std::string EscapeData(std::string_view text);

// A property's value: EscapeData, and ':' -> %3A, ',' -> %2C.
std::string EscapeProperty(std::string_view text);

// One workflow command and its line break: "::<name> <key>=<value>,...::<data>\n", the properties
// in the order given, those with an empty value left out (and the space too when none is left).
// `name` and the keys are the caller's own words (error, warning, notice; file, line, title): a
// name or key that is not [a-z]+ is a programming error and throws std::invalid_argument.
std::string WorkflowCommand(std::string_view name,
                            const std::vector<std::pair<std::string, std::string>>& properties,
                            std::string_view data);

}  // namespace bankcheck::github
