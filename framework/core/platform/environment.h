#pragma once
// The environment variables bankcheck reads, checked: each either gives a value bankcheck can use
// or an Error(kBadInput) that names the variable, its value and what it accepts. CI jobs set them
// from configuration that pull requests may change (docs/security.md).

#include <sys/stat.h>

#include <string>
#include <vector>

namespace bankcheck {

// An on/off switch: false when unset or empty; "1", "true", "yes", "on" (any case) for true; "0",
// "false", "no", "off" for false.
bool FlagFromEnvironment(const char* variable);

// An absolute path ("/..."), "" when unset or empty; no control characters (a newline would split
// a line of output).
std::string AbsolutePathFromEnvironment(const char* variable);

// Absolute paths separated by ':' (as PATH), each checked as AbsolutePathFromEnvironment checks
// one; empty entries are skipped; none when unset or empty.
std::vector<std::string> AbsolutePathListFromEnvironment(const char* variable);

// An absolute path to an executable regular file, "" when unset or empty.
std::string ExecutableFromEnvironment(const char* variable);

// $PWD when it is an absolute path naming the folder `current` (stat(".") of the caller: the same
// device and inode), as a shell keeps it after `cd` into a link; "" otherwise. The one reading of
// $PWD: output folders walk a relative path from it, line info of run-time compiled code names it.
std::string PwdNaming(const struct stat& current);

// A label such as a commit id: 1 to 100 of the characters A-Z a-z 0-9 . _ + / -; "" when unset.
std::string LabelFromEnvironment(const char* variable);

}  // namespace bankcheck
