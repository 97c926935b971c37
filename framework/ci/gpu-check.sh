#!/usr/bin/env bash
# The consumer CI job (bankcheck-ci) on a GPU, with a copy of examples/ as the user's project:
#
#   framework/ci/gpu-check.sh prepare [--work DIR] [--bankcheck-build DIR] [--cuda-architectures A]
#       On a machine with the compiler and packages (no GPU needed): installs bankcheck from a build
#       (default: BANKCHECK_BUILD_DIR, else build/; ci/test.sh's, or any with bin/bankcheck) into
#       DIR/prefix, copies examples/ to DIR/src and has the installed bankcheck-ci build it in
#       DIR/build (CUDA architectures: default 90, the H100) and run it there (CPU checks pass, GPU
#       tests skip); then strips the programs and drops what a run does not need (about 8 MB).
#       DIR defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/bankcheck-gpu-check: the GPU machine must
#       have it at the same absolute path (CTest's files and the suite's settings hold absolute paths).
#   framework/ci/gpu-check.sh run [--work DIR] [--from COPY] [--out DIR]
#       On the GPU machine, no compiler used: with --from, first copies COPY (a copy of a prepared
#       DIR, e.g. carried in the repository) to DIR (default: the path COPY was prepared at). Then,
#       each time through the installed
#       bankcheck-ci with --prebuilt --require-gpu:
#         1. the example has no baselines: the run fails (exit 1), its cases MISSING, and writes
#            baselines.patch
#         2. baselines.patch applied to DIR/src (git apply, else patch -p1): the recorded baselines
#         3. the run passes (exit 0)
#         4. one count of a recorded baseline doctored (a launch's shared-memory conflicts taken away)
#         5. the run fails (exit 1), and the Markdown report in its summary file names the regression
#       --out DIR gets each run's summary, the first run's baselines.patch and the doctored file.
#
# DIR holds the programs this script runs, often as root, so it must be private (docs/security.md):
# a real folder (no link) of this user's with mode 0700, created so when missing, under folders that
# belong to root or to this user and that nobody else may write to (or sticky, as /tmp). A DIR,
# COPY or --out folder that fails this is refused, never used, copied into or removed.
# Exits 0 when every step went as expected, else 1 naming the step (its log is printed).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

mode="${1:-}"
[[ "$mode" == prepare || "$mode" == run ]] ||
  { echo "usage: $0 prepare|run [options] (see the comment at the top of $0)" >&2; exit 2; }
shift
work=""
bankcheck_build="${BANKCHECK_BUILD_DIR:-$root/build}"
architectures=90
from=""
out=""
while (($#)); do
  (($# >= 2)) || { echo "gpu-check: $1 needs a value" >&2; exit 2; }
  case "$1" in
    --work) work="$2"; [[ -n "$work" ]] || { echo "gpu-check: --work needs a folder" >&2; exit 2; } ;;
    --bankcheck-build) bankcheck_build="$2" ;;
    --cuda-architectures) architectures="$2" ;;
    --from) from="$2" ;;
    --out) out="$2" ;;
    *) echo "gpu-check: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
marker=.bankcheck-gpu-check

say() { echo "gpu-check: $*"; }
fail() {
  echo "gpu-check: FAILED: $*" >&2
  exit 1
}
me="$(id -u)"
# safe_folder DIR private|mine|above: refuses (fails) unless every folder from / down to DIR is a
# real folder (no link) that belongs to root or to this user and that nobody else may write to, or
# that is sticky (/tmp: nobody else may rename or remove what is in it); and DIR itself, when
# "private", is this user's with no access for anyone else (0700), when "mine", belongs to root or to
# this user and nobody else may write to it. Missing folders are created (0700). Afterwards only root
# and this user can change what DIR holds or where its path leads, so the path checked here is the
# folder used later; a folder another user made first at DIR is refused, never used.
safe_folder() {
  local path="$1" kind="$2" dir="" part uid mode what
  [[ "$path" == /* ]] || path="$(pwd -P)/$path"
  [[ "/$path/" != */../* && "/$path/" != */./* ]] || fail "$1: give a path without . or .. in it"
  local dirs=(/) parts
  IFS=/ read -ra parts <<<"$path"
  for part in "${parts[@]}"; do
    [[ -n "$part" ]] || continue
    dir+="/$part"
    dirs+=("$dir")
  done
  for dir in "${dirs[@]}"; do
    what=above
    [[ "$dir" != "${dirs[${#dirs[@]} - 1]}" ]] || what="$kind"
    if [[ ! -e "$dir" && ! -L "$dir" ]]; then
      mkdir -m 0700 -- "$dir" || fail "cannot create the folder $dir"
    fi
    [[ ! -L "$dir" ]] || fail "refusing $1: $dir is a symbolic link (someone may have planted it); give a path without links"
    [[ -d "$dir" ]] || fail "refusing $1: $dir is not a folder"
    read -r uid mode < <(stat -c '%u %a' -- "$dir") || fail "cannot examine $dir"
    mode=$((8#$mode))
    case "$what" in
      private)
        ((uid == me && (mode & 8#077) == 0)) ||
          fail "refusing $1: it must be a folder of your own that nobody else may use (mode 0700), but it" \
            "belongs to uid $uid with mode $(printf '%o' "$mode") (someone may have made it first); remove it or give --work"
        ;;
      *)
        ((uid == me || uid == 0)) ||
          fail "refusing $1: $dir belongs to uid $uid, not to you or root, who could swap what is in it; use a folder of your own"
        # Sticky is enough above DIR (nobody else may move DIR), not for DIR itself (others' files in it).
        [[ "$what" == above ]] || mode=$((mode & ~8#1000))
        (( (mode & 8#022) == 0 || (mode & 8#1000) != 0 )) ||
          fail "refusing $1: others may write to $dir (mode $(printf '%o' "$mode")) and swap what is in it; use a folder of your own"
        ;;
    esac
  done
}
# Removes DIR only when it is a private folder this script made (or does not exist).
clear_work() {
  [[ ! -e "$1" && ! -L "$1" ]] && return 0
  safe_folder "$1" private
  [[ -f "$1/$marker" ]] || fail "$1 exists and was not made by gpu-check.sh; remove it or give --work"
  rm -rf -- "$1"
}

if [[ "$mode" == prepare ]]; then
  [[ -x "$bankcheck_build/bin/bankcheck" ]] ||
    fail "no bankcheck build in $bankcheck_build (ci/test.sh, or --bankcheck-build DIR)"
  [[ -n "$work" ]] || work="${XDG_CACHE_HOME:-$HOME/.cache}/bankcheck-gpu-check"
  clear_work "$work"
  safe_folder "$work" private
  touch "$work/$marker"
  say "installing bankcheck from $bankcheck_build into $work/prefix"
  cmake --install "$bankcheck_build" --prefix "$work/prefix" >"$work/install.log"
  [[ -x "$work/prefix/bin/bankcheck-ci" ]] ||
    fail "the install holds no bin/bankcheck-ci: $bankcheck_build was configured before bankcheck-ci existed" \
      "(configure it again: cmake -S $root -B $bankcheck_build, or ci/test.sh)"
  cp -R "$root/examples" "$work/src"
  # A new project: the example's recorded baselines (examples/baselines/sm_90) are left behind.
  rm -rf "$work/src/build" "$work/src/baselines/"*/
  say "building the example with the installed bankcheck-ci (CUDA architectures $architectures)"
  "$work/prefix/bin/bankcheck-ci" --source "$work/src" --build "$work/build" --artifacts "$work/prepare" \
    --summary '' -DCMAKE_CUDA_ARCHITECTURES="$architectures" >"$work/prepare.log" 2>&1 ||
    { cat "$work/prepare.log"; fail "bankcheck-ci failed on this machine (above)"; }
  tail -3 "$work/prepare.log"
  # What a run needs: the programs (debug information stripped: the kernels' line information is in
  # their device code), CTest's files, the bankcheck command and bankcheck-ci.
  find "$work/build" -name '*.o' -type f -delete
  rm -rf "$work/prefix/include" "$work/prefix/lib" "$work/prepare"
  while IFS= read -r -d '' program; do
    [[ "$(head -c 4 "$program" | tr -d '\0')" == $'\x7fELF' ]] && strip --strip-debug "$program"
  done < <(find "$work/build" "$work/prefix/bin" -type f -perm -u+x -print0)
  say "prepared $work ($(du -sh "$work" | cut -f1)); on the GPU machine, at the same path:"
  say "  $0 run --work $work"
  exit 0
fi

# run
if [[ -n "$from" ]]; then
  # Its programs are run: it must be this user's (or root's) as much as the work folder.
  safe_folder "$from" mine
  [[ -f "$from/$marker" ]] || fail "$from is not a folder that 'gpu-check.sh prepare' made"
  if [[ -z "$work" ]]; then
    work="$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$from/build/CMakeCache.txt" 2>/dev/null || true)"
    work="${work%/build}"
    [[ "$work" == /* ]] || fail "$from/build/CMakeCache.txt names no build folder: give --work"
  fi
  if [[ "$(cd "$from" && pwd -P)" != "$work" ]]; then
    clear_work "$work"
    safe_folder "$work" private
    cp -R -- "$from/." "$work/"
  fi
fi
[[ -n "$work" ]] || work="${XDG_CACHE_HOME:-$HOME/.cache}/bankcheck-gpu-check"
safe_folder "$work" private
[[ -f "$work/$marker" && -f "$work/build/CTestTestfile.cmake" ]] ||
  fail "no prepared example in $work ('gpu-check.sh prepare --work $work' first)"
built_in="$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$work/build/CMakeCache.txt")"
[[ "$built_in" == "$work/build" ]] ||
  fail "$work/build was built as $built_in: give --work $(dirname "$built_in") (CTest files hold absolute paths)"
ci="$work/prefix/bin/bankcheck-ci"
src="$work/src"
if compgen -G "$src/baselines/*/*.json" >/dev/null; then
  fail "$src/baselines holds recorded baselines already: prepare afresh"
fi
[[ -z "$out" ]] || safe_folder "$out" mine

# step <n>: runs bankcheck-ci on the GPU; its status in $step_status, its files in $work/run<n>.
step() {
  local n="$1"
  rm -rf "$work/run$n"
  mkdir -p "$work/run$n"
  step_status=0
  "$ci" --prebuilt --require-gpu --source "$src" --build "$work/build" --artifacts "$work/run$n" \
    --summary "$work/run$n/summary.md" >"$work/run$n.log" 2>&1 || step_status=$?
  [[ -z "$out" ]] || cp "$work/run$n/summary.md" "$out/summary-$n.md" 2>/dev/null || true
  say "run $n: bankcheck-ci exited $step_status ($work/run$n.log)"
}
show() {
  cat "$work/run$1.log"
  echo "--- summary file:"
  cat "$work/run$1/summary.md" 2>/dev/null || true
}

echo
say "1. no baselines yet: expect MISSING, exit 1, baselines.patch"
step 1
if reason="$(grep -m1 -oE 'there is no usable GPU: .*' "$work/run1.log")"; then
  reason="${reason#*: }"
  fail "no usable GPU on this machine (${reason%%. A GPU runner*}): run this on the GPU machine"
fi
((step_status == 1)) || { show 1; fail "run 1: expected exit 1, got $step_status"; }
grep -q 'MISSING: case "my_scale/stride2"' "$work/run1/ctest.log" || { show 1; fail "run 1: my_scale/stride2 not MISSING"; }
[[ -s "$work/run1/baselines.patch" ]] || { show 1; fail "run 1: no baselines.patch"; }
grep -q '^+++ b/baselines/sm_[0-9a-z]*/my_scale.json' "$work/run1/baselines.patch" ||
  { show 1; fail "run 1: baselines.patch records no baselines/<arch>/my_scale.json"; }
[[ -z "$out" ]] || cp "$work/run1/baselines.patch" "$out/baselines-1.patch"
grep 'bankcheck-ci: new baselines' "$work/run1.log"

echo
say "2. record: apply run 1's baselines.patch to $src"
top="$(git -C "$src" rev-parse --show-toplevel 2>/dev/null || echo "$src")"
if command -v git >/dev/null 2>&1; then
  git -C "$top" apply "$work/run1/baselines.patch"
else
  patch -d "$top" -p1 <"$work/run1/baselines.patch"
fi
recorded="$(compgen -G "$src/baselines/*/my_scale.json" | head -1)"
[[ -n "$recorded" ]] || fail "the patch wrote no baselines/<arch>/my_scale.json"
say "recorded: $(cd "$src" && compgen -G 'baselines/*/*.json' | tr '\n' ' ')"

echo
say "3. with the recorded baselines: expect exit 0"
step 3
((step_status == 0)) || { show 3; fail "run 3: expected exit 0 with the recorded baselines, got $step_status"; }
grep -q '0 regressions' "$work/run3/summary.md" || { show 3; fail "run 3: the summary does not say 0 regressions"; }
[[ ! -e "$work/run3/baselines.patch" ]] || fail "run 3 wrote a baselines.patch"

echo
say "4. doctor $recorded: a launch's conflicts taken away (the kernel now looks worse than its baseline)"
doctor="$(mktemp)"
trap 'rm -f "$doctor"' EXIT
cat >"$doctor" <<'CMAKE'
# The first kind of the first launch with conflicts: wavefronts = ideal, conflicts = 0.
file(READ "${FILE}" json)
string(JSON cases LENGTH "${json}" cases)
math(EXPR last_case "${cases} - 1")
foreach(c RANGE ${last_case})
  string(JSON name MEMBER "${json}" cases ${c})
  string(JSON launches LENGTH "${json}" cases "${name}" launches)
  math(EXPR last_launch "${launches} - 1")
  foreach(l RANGE ${last_launch})
    string(JSON keys LENGTH "${json}" cases "${name}" launches ${l})
    math(EXPR last_key "${keys} - 1")
    foreach(k RANGE ${last_key})
      string(JSON kind MEMBER "${json}" cases "${name}" launches ${l} ${k})
      if(NOT kind MATCHES "^shared_")
        continue()
      endif()
      string(JSON conflicts GET "${json}" cases "${name}" launches ${l} ${kind} conflicts)
      if(conflicts GREATER 0)
        string(JSON ideal GET "${json}" cases "${name}" launches ${l} ${kind} ideal)
        string(JSON wavefronts GET "${json}" cases "${name}" launches ${l} ${kind} wavefronts)
        string(JSON json SET "${json}" cases "${name}" launches ${l} ${kind} wavefronts ${ideal})
        string(JSON json SET "${json}" cases "${name}" launches ${l} ${kind} conflicts 0)
        file(WRITE "${FILE}" "${json}\n")
        message(NOTICE "${name}, launch ${l}, ${kind}: wavefronts ${wavefronts} -> ${ideal}, conflicts ${conflicts} -> 0")
        return()
      endif()
    endforeach()
  endforeach()
endforeach()
message(FATAL_ERROR "no launch in ${FILE} has conflicts to take away")
CMAKE
cmake -D "FILE=$recorded" -P "$doctor" || fail "could not doctor $recorded"
[[ -z "$out" ]] || cp "$recorded" "$out/doctored-my_scale.json"

echo
say "5. with the doctored baseline: expect exit 1 and the regression in the summary's report"
step 5
((step_status == 1)) || { show 5; fail "run 5: expected exit 1 with a doctored baseline, got $step_status"; }
grep -q '1 regression' "$work/run5/summary.md" || { show 5; fail "run 5: the summary's report names no regression"; }
grep -q '<code>my_scale/stride2</code>' "$work/run5/summary.md" || { show 5; fail "run 5: the summary does not name my_scale/stride2"; }
grep -q 'bankcheck-ci: failed' "$work/run5/summary.md" || { show 5; fail "run 5: the summary does not say the job failed"; }
[[ -s "$work/run5/baselines.patch" ]] || { show 5; fail "run 5: no baselines.patch to undo the doctored count"; }
grep -E -m3 'regression' "$work/run5/summary.md"

echo
say "passed: MISSING (exit 1, baselines.patch) -> recorded -> exit 0 -> a doctored baseline fails (exit 1) with the" \
  "regression in the summary's report"
