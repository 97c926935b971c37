#!/usr/bin/env bash
# bankcheck-merge: the last job of a sharded run (docs/ci.md, "Sharding"). Each shard ran
# `bankcheck-ci --shard I/N` on its own runner and kept its artifacts folder; this merges them into
# one: each kernel suite's results (`bankcheck merge-results`, which refuses shards of different
# runs and a case in two shards), one report of the merged results (report.md, also appended to
# the job summary, and report.txt), the shards' SARIF files combined into one per suite and
# category (one code-scanning upload), their JUnit XML and ctest.log under junit/<shard>/ and
# ctest-<shard>.log, and each shard's baselines.patch as baselines-<shard>.patch (each records that
# shard's cases). Runs no project code: only the `bankcheck` command and python3.
#
# Usage: bankcheck-merge.sh [options] SHARD_ARTIFACTS...
#       --bankcheck FILE   the bankcheck command (default: beside this script, then PATH)
#       --artifacts DIR    where to write the merged artifacts (default: ./bankcheck-merged)
#       --summary FILE     append the Markdown report to FILE (default: $GITHUB_STEP_SUMMARY; '' none)
#       --sarif-from DIR   the shards' SARIF files (*.sarif anywhere below DIR)
#       --sarif DIR        write the combined SARIF files there, DIR/<suite>.sarif
#   -h, --help             this text
# Exit status: 0 every suite's merged verdict passes; 1 a case fails (`bankcheck report`, README.md
# "When a case fails"), or results would not merge; 2 usage.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
say() { echo "bankcheck-merge: $*"; }
die() { echo "bankcheck-merge: error: $1" >&2; exit "${2:-1}"; }

cli="" out="bankcheck-merged" summary="${GITHUB_STEP_SUMMARY:-}" sarif_from="" sarif_dir="" shards=()
while (($#)); do
  case "$1" in
    -h | --help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
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

# What each shard kept of its own: JUnit XML, its ctest log, its baselines.patch.
for shard in "${shards[@]}"; do
  label="$(basename "$shard")"
  [[ ! -d "$shard/junit" ]] || { mkdir -p "$out/junit/$label"; cp -R "$shard/junit/." "$out/junit/$label/"; }
  [[ ! -f "$shard/ctest.log" ]] || cp "$shard/ctest.log" "$out/ctest-$label.log"
  [[ ! -f "$shard/baselines.patch" ]] || cp "$shard/baselines.patch" "$out/baselines-$label.patch"
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
