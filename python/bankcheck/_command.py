"""The `bankcheck` console script of the wheel: runs the command the wheel carries (bin/bankcheck)
in place of this process, with the same arguments. Exec'd rather than wrapped, so that the
command's own path (/proc/self/exe), from which `bankcheck run` finds its injection library, is
the package's, and its exit status and signals are the caller's."""

import os
import sys

from . import PACKAGED_COMMAND


def main() -> int:
    if not PACKAGED_COMMAND.is_file():
        sys.stderr.write(f"bankcheck: error: this bankcheck package has no command ({PACKAGED_COMMAND}): "
                         "install the wheel (pip install bankcheck), or run a build's build/bin/bankcheck\n")
        return 2
    os.execv(str(PACKAGED_COMMAND), ["bankcheck", *sys.argv[1:]])
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
