#!/usr/bin/env bash
# gpu-check.sh runs programs from its work folder, often as root: it must never run them from a
# folder, link or copy that someone else made (docs/security.md). Each hostile layout below gets a
# planted bankcheck-ci that would leave a file behind if run; the script must refuse and leave none.
# The cases that give a folder to another user (uid 65534) need root and are skipped without it.
# CPU only: `run` refuses or starts bankcheck-ci before anything needs a GPU.
set -euo pipefail
script="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/gpu-check.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tmp="$(cd "$tmp" && pwd -P)"
ran="$tmp/ran"
failures=0

# prepared DIR [BUILT_IN]: a folder that looks as 'gpu-check.sh prepare' leaves it (built for
# BUILT_IN, default DIR), whose bankcheck-ci records that it ran.
prepared() {
  local dir="$1" built_in="${2:-$1}"
  mkdir -p "$dir/build" "$dir/src" "$dir/prefix/bin"
  chmod 0700 "$dir"
  touch "$dir/.bankcheck-gpu-check" "$dir/build/CTestTestfile.cmake"
  echo "CMAKE_CACHEFILE_DIR:INTERNAL=$built_in/build" >"$dir/build/CMakeCache.txt"
  printf '#!/bin/sh\necho "$0" >>"%s"\nexit 3\n' "$ran" >"$dir/prefix/bin/bankcheck-ci"
  chmod +x "$dir/prefix/bin/bankcheck-ci"
}

# expect ran|refused WHAT MESSAGE-PART -- ARGS...: runs gpu-check.sh with ARGS; "refused": it must
# fail naming MESSAGE-PART and run no bankcheck-ci.
expect() {
  local want="$1" what="$2" part="$3" status=0
  shift 4
  rm -f "$ran"
  "$script" "$@" >"$tmp/log" 2>&1 || status=$?
  if [[ "$want" == ran ]]; then
    if [[ -s "$ran" ]]; then echo "ok: $what"; return; fi
  elif [[ ! -e "$ran" ]] && ((status == 1)) && grep -qF -- "$part" "$tmp/log"; then
    echo "ok: $what (refused: $(grep -m1 FAILED "$tmp/log"))"
    return
  fi
  echo "FAILED: $what: expected '$want', exit status $status, bankcheck-ci ran: $(cat "$ran" 2>/dev/null || echo no)"
  cat "$tmp/log"
  failures=$((failures + 1))
}

# The script must run a folder of one's own (else the cases below prove nothing).
prepared "$tmp/good"
expect ran "a private prepared folder is run" "" -- run --work "$tmp/good"
prepared "$tmp/copy" "$tmp/dest"
expect ran "--from copies to the folder it was prepared for, created private" "" -- run --from "$tmp/copy"
[[ "$(stat -c %a "$tmp/dest")" == 700 ]] || { echo "FAILED: $tmp/dest is not 0700"; failures=$((failures + 1)); }

ln -s "$tmp/good" "$tmp/link"
expect refused "the work folder is a link" "is a symbolic link" -- run --work "$tmp/link"
mkdir -p "$tmp/inside"
ln -s "$tmp/inside" "$tmp/up"
prepared "$tmp/inside/work"
expect refused "a link in the middle of the path" "$tmp/up is a symbolic link" -- run --work "$tmp/up/work"
prepared "$tmp/open"
chmod 0755 "$tmp/open"
expect refused "a work folder others may read" "mode 0700" -- run --work "$tmp/open"
mkdir -m 0777 "$tmp/shared"
chmod 0777 "$tmp/shared"
prepared "$tmp/shared/work"
expect refused "a folder above that others may write to" "others may write to $tmp/shared" -- run --work "$tmp/shared/work"
mkdir -p "$tmp/cache"
ln -s "$tmp/good" "$tmp/cache/bankcheck-gpu-check"
XDG_CACHE_HOME="$tmp/cache" expect refused "the default work folder is a link" "is a symbolic link" -- run
ln -s "$tmp/good" "$tmp/dest-link"
expect refused "--from onto a link" "is a symbolic link" -- run --from "$tmp/copy" --work "$tmp/dest-link"
[[ -e "$tmp/good/.bankcheck-gpu-check" ]] || { echo "FAILED: the link's target was removed"; failures=$((failures + 1)); }

if (($(id -u) == 0)); then
  # Another user made the folder first (the attack: /tmp/bankcheck-gpu-check planted before a root job).
  prepared "$tmp/foreign"
  chown -R 65534 "$tmp/foreign"
  expect refused "a work folder another user made" "belongs to uid 65534" -- run --work "$tmp/foreign"
  expect refused "--from onto a folder another user made" "belongs to uid 65534" -- \
    run --from "$tmp/copy" --work "$tmp/foreign"
  [[ -e "$tmp/foreign/.bankcheck-gpu-check" ]] || { echo "FAILED: the foreign folder was removed"; failures=$((failures + 1)); }
  prepared "$tmp/their-copy" "$tmp/dest2"
  chown -R 65534 "$tmp/their-copy"
  expect refused "--from another user's copy" "belongs to uid 65534" -- run --from "$tmp/their-copy"
  [[ ! -e "$tmp/dest2" ]] || { echo "FAILED: another user's copy was copied"; failures=$((failures + 1)); }
  mkdir "$tmp/theirs"
  chown 65534 "$tmp/theirs"
  prepared "$tmp/theirs/work"
  expect refused "a folder above that another user owns" "$tmp/theirs belongs to uid 65534" -- \
    run --work "$tmp/theirs/work"
else
  echo "skipped: the cases with another user's folders (they need root to chown)"
fi

if ((failures)); then
  echo "gpu-check_test: $failures case(s) failed"
  exit 1
fi
echo "gpu-check_test: passed"
