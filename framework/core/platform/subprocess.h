#pragma once
// Running another program (nvdisasm) without a shell: its arguments reach it as they are, so a path
// or an environment variable holding quotes, spaces or `;` cannot become a command
// (docs/security.md).

#include <string>
#include <vector>

namespace bankcheck::internal {

struct ProgramRun {
  // false when the program could not be run (not found, not executable; glibc reports a failed
  // exec so, a C library that cannot gives exit status 127)
  bool started = false;
  int exit_status = -1;  // its exit status, or 128 + the signal that ended it
  std::string output;    // what it wrote to its standard output
  int spawn_error = 0;   // RunProgramAttached: why it could not be started (an errno value)
};

// Runs `program` with `arguments` (argv[1...]; argv[0] is `program`) and waits for it: found on
// PATH unless it holds a '/', with this process's environment, stdin and stderr /dev/null, stdout
// captured; in `working_directory` when not empty (cuobjdump -xelf writes its files there). Never
// throws for the program's failure: the result says.
ProgramRun RunProgram(const std::string& program, const std::vector<std::string>& arguments,
                      const std::string& working_directory = "");

// Runs `command` (argv; its program found on PATH unless it holds a '/') with `environment` (its
// whole environment, NAME=value entries) and this process's stdin, stdout and stderr, and waits
// for it. Like system(), ignores SIGINT and SIGQUIT while it waits (the program gets their default
// dispositions), so that Ctrl-C stops the program and not the caller. `output` stays empty; when
// the program could not be started, `spawn_error` holds posix_spawn's error number.
ProgramRun RunProgramAttached(const std::vector<std::string>& command,
                              const std::vector<std::string>& environment);

}  // namespace bankcheck::internal
