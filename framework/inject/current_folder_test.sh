#!/usr/bin/env bash
# The injection library takes none of its libraries from the folder the program that loads it runs
# in, which another user may be able to write (docs/security.md, "Library search paths"): with a
# copy of libstdc++.so.6 planted in the current folder, the one mapped after python3's ctypes loads
# the library (as `bankcheck run` has a program load it) is the system's. A library whose RUNPATH
# has an empty entry, as CMake's build-tree padding left, maps the planted copy and fails this.
#
#   framework/inject/current_folder_test.sh <libbankcheck_inject.so>
set -euo pipefail
library="$(realpath "$1")"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-current-folder.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
system="$(ldd "$library" | sed -n 's/^[[:space:]]*libstdc++\.so\.6 => \([^ ]*\) .*/\1/p')"
[[ -n "$system" ]] || { echo "FAILED: ldd $library names no libstdc++.so.6" >&2; exit 1; }
cp "$(realpath "$system")" "$dir/libstdc++.so.6"
cd "$dir"
python3 - "$library" "$dir" <<'PY'
import ctypes
import sys

library, planted = sys.argv[1], sys.argv[2]


def mapped():
    with open("/proc/self/maps") as maps:
        return sorted({line.split()[-1] for line in maps if "libstdc++" in line})


if mapped():
    sys.exit(f"FAILED: python3 has libstdc++ mapped before loading ({mapped()}): this test cannot tell where it comes from")
ctypes.CDLL(library)
after = mapped()
if not after:
    sys.exit(f"FAILED: no libstdc++ mapped after loading {library}")
if any(path.startswith(planted + "/") for path in after):
    sys.exit(f"FAILED: {library} mapped the libstdc++.so.6 planted in the current folder ({after}): an empty or "
             "relative RUNPATH entry (readelf -d)")
print(f"ok: {library} took {after[0]}, not the copy planted in the current folder")
PY
