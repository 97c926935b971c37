#!/usr/bin/env bash
# Checks the lock rules that framework/cuda/internal/thread_annotations.h writes into the declarations
# (BANKCHECK_GUARDED_BY, BANKCHECK_REQUIRES, ...): compiles the host sources of bankcheck::cuda (the
# counter session, its process state and launch log, SASS metrics) with clang's -Wthread-safety as
# errors, syntax only. Include paths and definitions come from the build's compile_commands.json
# (the top-level CMakeLists.txt exports it): run after configuring (ci/test.sh does). Without
# clang++ it prints a note and passes; BANKCHECK_CLANG names the compiler to use.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"  # BUILD_DIR

bankcheck_find_clang
if [[ -z "$clang" ]]; then
  echo "bankcheck: note: no clang++ found, so the thread-safety annotations were not checked" \
    "(install clang to check them: ci/jobs/thread-safety.sh)"
  exit 0
fi

database="$BUILD_DIR/compile_commands.json"
[[ -f "$database" ]] || { echo "bankcheck: $database not found: configure the build first (ci/test.sh)" >&2; exit 1; }

# Each bankcheck_cuda source with its compile command, one "file<TAB>command" line each.
reader="$(mktemp)"
trap 'rm -f "$reader"' EXIT
cat >"$reader" <<'CMAKE'
file(READ "${DATABASE}" json)
string(JSON count LENGTH "${json}")
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON command GET "${json}" ${i} command)
  string(JSON file GET "${json}" ${i} file)
  if(command MATCHES "bankcheck_cuda\\.dir" AND file MATCHES "\\.cc$")
    message(NOTICE "${file}\t${command}")
  endif()
endforeach()
CMAKE
listing="$(cmake -DDATABASE="$database" -P "$reader" 2>&1)" || { echo "$listing" >&2; exit 1; }
mapfile -t entries <<<"$listing"
[[ -n "$listing" ]] || { echo "bankcheck: no bankcheck_cuda sources in $database" >&2; exit 1; }

status=0
for entry in "${entries[@]}"; do
  file="${entry%%$'\t'*}"
  # CMake writes the command shell-quoted: split it as the shell would, keep what finds headers.
  eval "words=(${entry#*$'\t'})"
  flags=()
  for ((i = 0; i < ${#words[@]}; i++)); do
    case "${words[i]}" in
      -isystem | -I | -D | -include) flags+=("${words[i]}" "${words[i + 1]}"); ((++i)) ;;
      -I* | -D* | -std=*) flags+=("${words[i]}") ;;
    esac
  done
  "$clang" -fsyntax-only -Wthread-safety -Werror "${flags[@]}" "$file" || status=1
done
if ((status == 0)); then
  echo "bankcheck: thread-safety annotations hold in ${#entries[@]} bankcheck_cuda sources ($clang)"
else
  echo "bankcheck: the thread-safety check failed (above): a guarded member used without its lock" >&2
fi
exit "$status"
