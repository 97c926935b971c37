#!/usr/bin/env bash
# Which files a build read from outside the CUDA toolkit it was given (the CPU gate's check: the
# toolkit is NVIDIA's wheels, nothing of another CUDA install may reach the build). Reads
#   - the linker's trace (ld --trace, given as -Wl,--trace / -Xlinker=--trace): every log named,
#     each line that is a file the linker opened (`/path`, `-lname (/path)`, `(/path)member`, or an
#     object or library by a path relative to the link's folder, --relative-to, default the current);
#   - the compilers' depfiles (make's *.d) under each --depfiles folder: every file a compiler read;
# and prints each file (links resolved) that is outside the toolkit (--toolkit) and the --allow
# folders (the build, the sources, an installed bankcheck), unless it is in the distribution's own
# folders (/usr/include, /usr/lib, /lib, /usr/libexec) and not named after CUDA (cuda, cupti, nvidia,
# nvtx, nvvm, libnv*: a distribution's CUDA packages). A machine's /usr/local/lib64, which ld
# searches by default, is outside: a toolkit library found there is printed.
#
# Usage: ci/checks/toolkit-reads.sh --toolkit DIR [--allow DIR]... [--depfiles DIR]... [--relative-to DIR] [LOG]...
# Exit status: 0 when nothing was read from outside, 1 when something was (printed), 2 for a usage error.
set -euo pipefail

die() {
  echo "ci/checks/toolkit-reads.sh: error: $1" >&2
  exit 2
}
toolkit="" allowed=() depdirs=() logs=() relative_to=.
while (($#)); do
  case "$1" in
    --toolkit) toolkit="${2:?--toolkit needs a value}"; shift 2 ;;
    --allow) allowed+=("${2:?--allow needs a value}"); shift 2 ;;
    --depfiles) depdirs+=("${2:?--depfiles needs a value}"); shift 2 ;;
    --relative-to) relative_to="${2:?--relative-to needs a value}"; shift 2 ;;
    -h | --help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
    -*) die "unknown option '$1'" ;;
    *) logs+=("$1"); shift ;;
  esac
done
[[ -d "$toolkit" ]] || die "--toolkit: no folder '$toolkit'"
for log in "${logs[@]}"; do [[ -f "$log" ]] || die "no log '$log'"; done
for dir in "${depdirs[@]}"; do [[ -d "$dir" ]] || die "--depfiles: no folder '$dir'"; done
roots=("$(realpath "$toolkit")")
for dir in "${allowed[@]}"; do roots+=("$(realpath -m "$dir")"); done

# The files read: the trace's lines, then the depfiles' absolute paths.
read_files() {
  local log
  for log in "${logs[@]}"; do
    sed -nE 's/^[[:blank:]]*//; s/^-l[^ ]+ \((\/[^)]+)\)$/\1/p; s/^\((\/[^)]+)\)[^ ]*$/\1/p; /^\/[^ ]+$/p
      /^[^ /(-][^ ]*\.(o|a|so[.0-9]*)$/p' "$log"
  done
  local dir
  for dir in "${depdirs[@]}"; do
    find "$dir" -name '*.d' -type f -exec cat {} + | tr -s '[:blank:]\\' '\n' | grep '^/' || true
  done
}

[[ -d "$relative_to" ]] || die "--relative-to: no folder '$relative_to'"
for i in "${!logs[@]}"; do logs[i]="$(realpath "${logs[i]}")"; done
for i in "${!depdirs[@]}"; do depdirs[i]="$(realpath "${depdirs[i]}")"; done
mapfile -t files < <(read_files | sort -u | (cd "$relative_to" && xargs -r realpath -q --) | sort -u)
outside=0
for file in "${files[@]}"; do
  [[ -f "$file" ]] || continue # a folder named alone on a line of a log (CMake's include directories)
  for root in "${roots[@]}"; do
    [[ "$file" == "$root"/* ]] && continue 2
  done
  if [[ "$file" =~ ^/(usr/include|usr/lib|lib|usr/libexec)/ ]] &&
    ! [[ "${file,,}" =~ cuda|cupti|nvidia|nvtx|nvvm|/libnv[^/]*$ ]]; then
    continue
  fi
  echo "$file"
  outside=1
done
exit "$outside"
