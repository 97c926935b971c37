#!/usr/bin/env bash
# bankcheck-merge: the last job of a sharded run (docs/ci.md, "Sharding"). Each shard ran
# `bankcheck-ci --shard I/N` on its own runner and kept its artifacts folder; this merges them into
# one: each kernel suite's results (`bankcheck merge-results`, which refuses shards of different
# runs and a case in two shards), one report of the merged results (report.md, also appended to
# the job summary, and report.txt), the shards' SARIF files combined into one per suite and
# category (one code-scanning upload), their JUnit XML and ctest.log under junit/<shard>/ and
# ctest-<shard>.log, and each shard's baselines.patch as baselines-<shard>.patch (each records that
# shard's cases). Runs no project code: only the `bankcheck` command, python3 and `git apply
# --numstat --summary` (reads a patch, applies nothing).
#
# The shards ran a pull request's code, so what they left is checked, not trusted:
#   - each shard's plan (bankcheck-ci --shard writes plan/shard "I/N" and plan/<suite>.txt, the cases
#     its tests were to run): every planned case must be in the merged results, else the merge fails
#     naming the shard and the cases it did not report (a shard that crashed, timed out, or whose
#     artifact is empty). With --shards N every shard 1..N must be there, each once, with its plan;
#   - each baselines.patch is forwarded only when it touches nothing but baseline files: regular
#     (mode 100644) <folder>/sm_<N>/<topic>.json files, created, changed or deleted, in a baselines
#     folder the shards name alike (plan/baselines); no rename, copy, mode change, link, binary
#     patch, `..` or dot-folder, and no line outside a git diff's grammar. A refused patch fails the
#     merge and is not kept.
#
# Usage: bankcheck-merge.sh [options] SHARD_ARTIFACTS...
#       --shards N         the run had N shards: each of 1..N must be given once, with its plan
#       --bankcheck FILE   the bankcheck command (default: beside this script, then PATH)
#       --artifacts DIR    where to write the merged artifacts (default: ./bankcheck-merged)
#       --summary FILE     append the Markdown report to FILE (default: $GITHUB_STEP_SUMMARY; '' none)
#       --sarif-from DIR   the shards' SARIF files (*.sarif anywhere below DIR)
#       --sarif DIR        write the combined SARIF files there, DIR/<suite>.sarif
#   -h, --help             this text
# Exit status: 0 every suite's merged verdict passes; 1 a case fails (`bankcheck report`, README.md
# "When a case fails"), results would not merge, a shard is missing or did not report a planned
# case, or a baselines patch is refused; 2 usage.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
say() { echo "bankcheck-merge: $*"; }
die() { echo "bankcheck-merge: error: $1" >&2; exit "${2:-1}"; }

cli="" out="bankcheck-merged" summary="${GITHUB_STEP_SUMMARY:-}" sarif_from="" sarif_dir="" shards=() total=""
while (($#)); do
  case "$1" in
    -h | --help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
    --shards) total="${2:?--shards needs a value}"; shift 2
      [[ "$total" =~ ^[1-9][0-9]{0,3}$ ]] || die "--shards takes a whole number from 1 to 9999, not '$total'" 2 ;;
    --bankcheck) cli="${2:?--bankcheck needs a value}"; shift 2 ;;
    --artifacts) out="${2:?--artifacts needs a value}"; shift 2 ;;
    --summary) summary="${2?--summary needs a value}"; shift 2 ;;
    --sarif-from) sarif_from="${2:?--sarif-from needs a value}"; shift 2 ;;
    --sarif) sarif_dir="${2:?--sarif needs a value}"; shift 2 ;;
    -*) die "unknown option '$1' (see --help)" 2 ;;
    *) shards+=("$1"); shift ;;
  esac
done
((${#shards[@]})) || die "give the shards' artifact folders (see --help)" 2
for shard in "${shards[@]}"; do [[ -d "$shard" ]] || die "no folder '$shard'" 2; done
if [[ -z "$cli" ]]; then
  for candidate in "$here/bankcheck" "$(command -v bankcheck || true)"; do
    [[ -z "$candidate" || ! -x "$candidate" ]] || { cli="$candidate"; break; }
  done
fi
[[ -n "$cli" && -x "$cli" ]] || die "no bankcheck command: give --bankcheck FILE" 2
mkdir -p "$out/results"
: >"$out/report.md"
: >"$out/report.txt"

status=0
# Each suite's results (results/<suite>.json and results/<suite>-emulated.json), from every shard
# that has them.
mapfile -t names < <(for shard in "${shards[@]}"; do
  for file in "$shard"/results/*.json; do [[ ! -f "$file" ]] || basename "$file" .json; done
done | sort -u)
((${#names[@]})) || { say "no shard holds results (results/*.json): nothing to merge"; status=1; }
for name in "${names[@]}"; do
  sources=()
  for shard in "${shards[@]}"; do [[ ! -f "$shard/results/$name.json" ]] || sources+=("$shard/results/$name.json"); done
  merged="$out/results/$name.json"
  if ! "$cli" merge-results "${sources[@]}" -o "$merged"; then
    say "the results of $name in ${#sources[@]} shard(s) do not merge (above)"
    status=1
    continue
  fi
  echo
  say "suite $name, ${#sources[@]} shard(s) merged:"
  report_status=0
  "$cli" report "$merged" --format text >"$out/report-$name.txt" || report_status=$?
  tee -a "$out/report.txt" <"$out/report-$name.txt"
  rm -f "$out/report-$name.txt"
  "$cli" report "$merged" --format markdown --max-bytes $((900000 / ${#names[@]})) >>"$out/report.md" || true
  case "$report_status" in
    0) ;;
    1) say "bankcheck report fails some case of $name (above)"; status=1 ;;
    *) say "bankcheck report $merged failed (above)"; status=1 ;;
  esac
done

# The shards' plans (above): each shard once (all N with --shards N), every case it planned in the
# merged results. Names in messages are shown without control characters (one log line each).
python3 - "$out/results" "$total" "${shards[@]}" <<'PY' || status=1
import glob, json, os, re, sys

results_dir, total, shards = sys.argv[1], sys.argv[2], sys.argv[3:]
MAX_BYTES = 64 << 20  # as every file bankcheck reads (limits.h kMaxInputFileBytes)
problems = []


def plain(text):
    return re.sub(r"[\x00-\x1f\x7f-\x9f]", "?", text)


def lines_of(path):
    if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
        raise ValueError(f"{plain(path)} is not a regular file of at most 64 MiB")
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


seen = {}
for shard in shards:
    try:
        text = " ".join(lines_of(os.path.join(shard, "plan", "shard")))
    except (OSError, ValueError):
        if total:
            problems.append(f"{plain(shard)} holds no plan/shard: that shard's bankcheck-ci did not finish (its "
                            "artifact is empty or cut short); rerun the shard")
        continue
    match = re.fullmatch(r"([1-9][0-9]{0,3})/([1-9][0-9]{0,3})", text)
    if not match or int(match[1]) > int(match[2]):
        problems.append(f"{plain(shard)}/plan/shard holds '{plain(text[:40])}', not I/N")
        continue
    index, count = int(match[1]), int(match[2])
    if total and count != int(total):
        problems.append(f"{plain(shard)} is shard {index} of {count}, but the run has {total} shards (--shards)")
    if index in seen:
        problems.append(f"{plain(shard)} and {plain(seen[index])} are both shard {index}")
    seen[index] = shard
    for plan in sorted(glob.glob(os.path.join(glob.escape(shard), "plan", "*.txt"))):
        name = os.path.basename(plan)[:-len(".txt")]
        try:
            planned = lines_of(plan)
        except (OSError, ValueError) as error:
            problems.append(f"shard {index}: {error}")
            continue
        reported = set()
        merged = os.path.join(results_dir, name + ".json")
        if os.path.isfile(merged):  # written by bankcheck merge-results, checked and bounded
            with open(merged, encoding="utf-8") as f:
                reported = set(json.load(f).get("cases") or {})
        missing = [case for case in planned if case not in reported]
        if missing:
            shown = ", ".join(plain(case) for case in missing[:5]) + (
                f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            problems.append(f"shard {index} ({plain(shard)}) reported {len(planned) - len(missing)} of the "
                            f"{len(planned)} cases of {plain(name)} it planned; missing: {shown}")
if total:
    problems += [f"shard {i} of {total}: no artifact folder holds it (its job failed or was cancelled before "
                 "it uploaded its artifact)" for i in range(1, int(total) + 1) if i not in seen]
for problem in problems:
    print(f"bankcheck-merge: {problem}")
sys.exit(1 if problems else 0)
PY

# check_patch <patch> <baselines folders, one a line>: whether the patch touches only baseline files
# (above); says why not. Parsed by its grammar here, then read by git apply --numstat and --summary
# (what git would touch, renames and modes included), which must agree.
check_patch() {
  python3 - "$1" "$2" <<'PY'
import os, re, subprocess, sys, tempfile

patch, folders = sys.argv[1], [f for f in sys.argv[2].split("\n") if f]
NAME = r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]*"  # a folder or file name: no leading dot, so no '..'
BASELINE = re.compile(rf"(?:((?:{NAME}/)*{NAME})/)?(sm_[0-9]+[a-z]?)/({NAME}\.json)")


def refuse(why):
    print(re.sub(r"[\x00-\x1f\x7f-\x9f]", "?", why)[:500])
    sys.exit(1)


def baseline(path):
    match = BASELINE.fullmatch(path)
    if not match:
        refuse(f"it touches {path}, which is no baseline file (<folder>/sm_<N>/<topic>.json, no dot-folder)")
    folder = match[1] or "."
    if folders and folder not in folders:
        refuse(f"it touches {path}, outside the baselines folder(s) {', '.join(folders)}")
    return path


if os.path.islink(patch) or not os.path.isfile(patch) or os.path.getsize(patch) > 64 << 20:
    refuse("it is not a regular file of at most 64 MiB")
with open(patch, "rb") as f:
    data = f.read()
try:
    lines = data.decode("utf-8").split("\n")
except UnicodeDecodeError:
    refuse("it is not UTF-8 text")
if lines and lines[-1] == "":
    lines.pop()
touched, i = set(), 0
while i < len(lines):
    # bankcheck-ci diffs folders a/ and b/ (git diff --no-index, no prefixes): a/P b/P for a change,
    # a/P a/P for a deletion, b/P b/P for a new file.
    header = re.fullmatch(r"diff --git ([ab])/(\S+) ([ab])/(\S+)", lines[i])
    if not header:
        refuse(f"line {i + 1} is outside a git diff's grammar: {lines[i][:80]!r}")
    if header[2] != header[4]:
        refuse(f"line {i + 1} renames or copies {header[2]} to {header[4]}")
    sides, at = header[1] + header[3], i + 1
    path, kind, i = baseline(header[2]), "change", i + 1
    while i < len(lines) and not lines[i].startswith(("--- ", "diff --git ")):
        if lines[i] in ("new file mode 100644", "deleted file mode 100644"):
            kind = lines[i].split()[0]
        elif not re.fullmatch(r"index [0-9a-f]{7,64}\.\.[0-9a-f]{7,64}( 100644)?", lines[i]):
            refuse(f"line {i + 1} is no change of a regular file's text (a mode, link, binary, rename or copy): "
                   f"{lines[i][:80]!r}")
        i += 1
    if sides != {"change": "ab", "new": "bb", "deleted": "aa"}[kind]:
        refuse(f"line {at}: its names ({sides[0]}/, {sides[1]}/) do not fit a {kind} file")
    if i < len(lines) and lines[i].startswith("--- "):
        old_name = "/dev/null" if kind == "new" else f"a/{path}"
        new_name = "/dev/null" if kind == "deleted" else f"b/{path}"
        if lines[i] != f"--- {old_name}" or i + 1 >= len(lines) or lines[i + 1] != f"+++ {new_name}":
            refuse(f"lines {i + 1}-{i + 2} name other files than their header ({path})")
        i += 2
        while i < len(lines) and lines[i].startswith("@@ "):
            hunk = re.fullmatch(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@.*", lines[i])
            if not hunk:
                refuse(f"line {i + 1} is no hunk header: {lines[i][:80]!r}")
            old, new, i = int(hunk[1] or 1), int(hunk[2] or 1), i + 1
            while old > 0 or new > 0:
                line = lines[i] if i < len(lines) else None
                if line is None or line[:1] not in (" ", "-", "+", "\\"):
                    refuse(f"line {i + 1}: the hunk of {path} is cut short")
                old -= line[:1] in (" ", "-")
                new -= line[:1] in (" ", "+")
                if old < 0 or new < 0:
                    refuse(f"line {i + 1}: the hunk of {path} holds more lines than its header says")
                i += 1
            while i < len(lines) and lines[i] == "\\ No newline at end of file":
                i += 1
    elif kind == "change":
        refuse(f"the diff of {path} changes no text (a mode or a binary change)")
    touched.add(path)

# What git makes of it: every path it would touch (renames as two), binary patches, modes.
with tempfile.TemporaryDirectory() as empty:  # outside any repository: git only reads the patch
    environment = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(empty))
    environment.pop("GIT_DIR", None)
    try:
        numstat = subprocess.run(["git", "apply", "--numstat", "-z", os.path.abspath(patch)], cwd=empty,
                                 env=environment, capture_output=True, check=True).stdout.decode()
        summary = subprocess.run(["git", "apply", "--summary", os.path.abspath(patch)], cwd=empty,
                                 env=environment, capture_output=True, check=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError) as error:
        refuse(f"git apply --numstat cannot read it ({error})")
fields = numstat.split("\0")
git_paths = set()
for record in fields:
    if not record:
        continue
    parts = record.split("\t")
    if len(parts) != 3 or parts[2] == "":
        refuse(f"git reads a rename or copy in it: {record!r}")
    if parts[0] == "-":
        refuse(f"git reads a binary patch of {parts[2]} in it")
    git_paths.add(baseline(parts[2]))
for line in summary.splitlines():
    if not re.fullmatch(r" (create|delete) mode 100644 \S+", line):
        refuse(f"git reads more than a change of a regular file's text in it: {line.strip()!r}")
if git_paths != touched:
    refuse(f"git reads other files in it ({', '.join(sorted(git_paths ^ touched))}) than its headers name")
PY
}

# The baselines folders the shards name (plan/baselines): all alike, else no patch is kept.
baselines_folders="" folders_from=""
for shard in "${shards[@]}"; do
  [[ -f "$shard/plan/baselines" && ! -L "$shard/plan/baselines" ]] || continue
  folders="$(head -c 65536 "$shard/plan/baselines")"
  if [[ -z "$folders_from" ]]; then
    baselines_folders="$folders" folders_from="$shard"
  elif [[ "$folders" != "$baselines_folders" ]]; then
    baselines_folders=$'\n'"different in $folders_from and $shard"  # no path matches: every patch refused
  fi
done

# What each shard kept of its own: JUnit XML, its ctest log, its baselines.patch (checked, above).
for shard in "${shards[@]}"; do
  label="$(basename "$shard")"
  [[ ! -d "$shard/junit" ]] || { mkdir -p "$out/junit/$label"; cp -R "$shard/junit/." "$out/junit/$label/"; }
  [[ ! -f "$shard/ctest.log" ]] || cp "$shard/ctest.log" "$out/ctest-$label.log"
  if [[ -e "$shard/baselines.patch" || -L "$shard/baselines.patch" ]]; then
    if why="$(check_patch "$shard/baselines.patch" "$baselines_folders")"; then
      cp "$shard/baselines.patch" "$out/baselines-$label.patch"
    else
      say "the baselines.patch of $label is refused, not kept: $why"
      status=1
    fi
  fi
done

# One SARIF file per suite and category: the shards' runs of one category, their results together
# (each once) and their rules' union. Code scanning takes one upload per category.
if [[ -n "$sarif_dir" && -n "$sarif_from" ]]; then
  mkdir -p "$sarif_dir"
  python3 - "$sarif_from" "$sarif_dir" <<'PY'
import glob, json, os, sys

source, target = sys.argv[1:3]
combined = {}
for path in sorted(glob.glob(os.path.join(source, "**", "*.sarif"), recursive=True)):
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    if name not in combined:
        combined[name] = document
        continue
    into = combined[name]["runs"][0]
    for run in document["runs"]:
        seen = {json.dumps(r, sort_keys=True) for r in into.setdefault("results", [])}
        into["results"] += [r for r in run.get("results", []) if json.dumps(r, sort_keys=True) not in seen]
        rules = into["tool"]["driver"].setdefault("rules", [])
        ids = {rule.get("id") for rule in rules}
        rules += [rule for rule in run["tool"]["driver"].get("rules", []) if rule.get("id") not in ids]
for name, document in combined.items():
    with open(os.path.join(target, name), "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2)
    print(f"bankcheck-merge: {name}: {len(document['runs'][0].get('results', []))} finding(s)")
PY
fi

{
  echo
  if ((status)); then
    echo "**bankcheck-merge: failed.** ${#shards[@]} shard(s) merged: a case fails, or the results would not merge (the job's log says which)."
  else
    echo "**bankcheck-merge: passed.** ${#shards[@]} shard(s) merged."
  fi
} >>"$out/report.md"
[[ -z "$summary" ]] || cat "$out/report.md" >>"$summary" || say "could not append the report to $summary"
say "merged artifacts in $out"
exit "$status"
