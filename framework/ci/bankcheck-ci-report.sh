# Sourced by bankcheck-ci (bankcheck-ci.sh): what it reports: the tests ctest skipped under their
# reasons, and each kernel suite's results, reports and shard plan (steps 3 and 4 of its job). Its
# functions read and set bankcheck-ci's variables.
# shellcheck shell=bash disable=SC2154,SC2034  # the variables are bankcheck-ci.sh's, read and set there

# print_skipped <ctest's output> <its LastTest.log>: each test ctest reports skipped, under its
# reason, which ctest does not print (only with -V): the first line that gives one in the test's
# output (a GoogleTest skip's message, "bankcheck: every case was skipped: ...", "bankcheck:
# skipped: ...", "skipped: ..."). ci/test.sh prints the same (--print-skipped). With "" for ctest's
# output (--ctest-post-test: ctest's own console is not at hand while it runs, and its log says
# "Test Passed." of a skipped test), the skipped tests are those whose output shows one of those
# skip lines (or GoogleTest's "[  SKIPPED ]") and no GoogleTest test that passed.
print_skipped() {
  awk -v console="$1" '
    BEGIN {
      infer = (console == "")
      while (!infer && (getline line < console) > 0) {
        if (line !~ /Test +#[0-9]+: .* \.+\*\*\*Skipped/) continue
        name = line
        sub(/^.*Test +#[0-9]+: /, "", name)
        sub(/ \.+\*\*\*Skipped.*$/, "", name)
        if (!(name in skipped)) { skipped[name] = 1; order[++count] = name }
      }
    }
    # The line after a GoogleTest skip is its message, unless the skip gave none.
    pending != "" {
      if ($0 != "" && $0 != "<end of output>" && $0 !~ /^\[  SKIPPED \] /) reason[pending] = $0
      pending = ""
    }
    /^[0-9]+\/[0-9]+ Test: / { test = $0; sub(/^[0-9]+\/[0-9]+ Test: /, "", test); next }
    /^<end of output>$/ {
      if (infer && test != "" && (test in marked) && !(test in passed) && !(test in skipped)) {
        skipped[test] = 1; order[++count] = test
      }
      test = ""; next
    }
    test == "" || !(infer || test in skipped) { next }
    infer && /^\[       OK \] / { passed[test] = 1; next }
    /^\[  SKIPPED \] / { marked[test] = 1; next }
    test in reason { next }
    /: Skipped$/ { marked[test] = 1; pending = test; next }
    /^bankcheck: every case was skipped: / { sub(/^bankcheck: every case was skipped: /, ""); reason[test] = $0; marked[test] = 1; next }
    /^bankcheck: skipped: / { sub(/^bankcheck: skipped: /, ""); reason[test] = $0; marked[test] = 1; next }
    /^skipped: / { sub(/^skipped: /, ""); reason[test] = $0; marked[test] = 1; next }
    END {
      for (i = 1; i <= count; i++) {
        name = order[i]
        why = (name in reason) ? reason[name] : "no reason printed (ctest -V -R '\''^" name "$'\'' shows its output)"
        if (!(why in listed)) { reasons[++kinds] = why; listed[why] = "" }
        listed[why] = listed[why] "\n    " name
        tests[why]++
      }
      for (i = 1; i <= kinds; i++) printf "\nSkipped %d test(s): %s%s\n", tests[reasons[i]], reasons[i], listed[reasons[i]]
    }' "$2" 2>/dev/null || true
}

# A shard's plan, for bankcheck-merge (docs/ci.md, "Sharding"): plan/<results name>.txt, the cases
# each kernel suite test that ctest selected was to run in this shard (the program says:
# --bankcheck_list_shard_cases), plan/baselines, the baselines folders (as baselines.patch names them:
# from the repository's root, "." where the folder is outside it), and plan/shard, "I/N", written
# last: a shard whose plan/shard is missing did not get this far.
write_shard_plan() {
  local plan="$artifacts/plan" exe topic results name i
  mkdir -p "$plan"
  declare -A name_of=()
  ctest --test-dir "$build_dir" --show-only=json-v1 "${ctest_args[@]}" >"$work/tests.json" ||
    { warn "ctest --show-only=json-v1 failed: no shard plan"; return 1; }
  while IFS=$'\t' read -r exe topic; do
    if [[ -z "${name_of[$exe]+set}" ]]; then
      results="$("$exe" --bankcheck_results_dir)" || { warn "$exe --bankcheck_results_dir failed"; return 1; }
      name_of[$exe]=""
      for i in "${!suites[@]}"; do
        [[ "${suite_results[i]}" != "$results" ]] || { name_of[$exe]="${suites[i]}"; break; }
        [[ "${suite_results[i]}-emulated" != "$results" ]] || { name_of[$exe]="${suites[i]}-emulated"; break; }
      done
    fi
    name="${name_of[$exe]}"
    [[ -n "$name" ]] || { warn "$exe writes its results to no kernel suite's folder: not in the shard plan"; continue; }
    "$exe" --bankcheck_topic="$topic" --bankcheck_list_shard_cases >>"$plan/$name.txt" ||
      { warn "$exe --bankcheck_topic=$topic --bankcheck_list_shard_cases failed: no shard plan"; return 1; }
  done < <(python3 - "$work/tests.json" <<'PY'
import json, sys

# Each kernel suite topic test ctest selected: its program and topic ("<prefix>/<topic>" runs
# "<program> --bankcheck_topic=<topic> ...", BankcheckDiscoverTopics.cmake).
for test in json.load(open(sys.argv[1], encoding="utf-8")).get("tests", []):
    command = test.get("command") or []
    topics = [arg.split("=", 1)[1] for arg in command[1:] if arg.startswith("--bankcheck_topic=")]
    if topics and "\t" not in command[0] + topics[0] and "\n" not in command[0] + topics[0]:
        print(f"{command[0]}\t{topics[0]}")
PY
  )
  for dir in "${suite_baselines[@]}"; do
    case "$dir" in
      "$top"/*) echo "${dir#"$top"/}" ;;
      *) echo . ;;
    esac
  done | sort -u >"$plan/baselines"
  echo "$((${GTEST_SHARD_INDEX:-0} + 1))/$GTEST_TOTAL_SHARDS" >"$plan/shard"
}

# report_program <suite index> <measured|emulated> <results folder> <line findings: 1|0>: merges
# the program's results, reports them (text, Markdown, and where <line findings> is 1 the GitHub
# annotations and SARIF), adds its cases to the totals and notes whether recording would change
# a baseline. Sets program_ran to the cases that ran (passed or failed: not skipped).
report_program() {
  local i="$1" program="$2" results="$3" findings="$4" suite="${suites[$1]}" name merged totals
  local report_status=0 record_status=0 total passed failed skipped
  name="$suite"
  [[ "$program" == measured ]] || name="$suite-emulated"
  merged="$artifacts/results/$name.json"
  "$cli" merge-results "$results" -o "$merged" >/dev/null || { warn "merge-results $results failed (above)"; return 1; }
  cp "$merged" "$results/results.json"
  echo
  if [[ "$program" == emulated ]]; then
    say "suite $suite, its emulated program (counts derived from the kernels' sm_90 SASS on the CPU; docs/emulate.md):"
    printf '\n*%s, the emulated program: counts derived from the kernels'"'"' sm_90 SASS on the CPU.*\n\n' \
      "$suite" >>"$artifacts/report.md"
  fi
  # The verdicts are bankcheck's (README.md, "When a case fails"), not recomputed here: report exits
  # 1 when a case fails, and update-baselines --dry-run exits 1 when recording would change a baseline.
  "$cli" report "$merged" --format text >"$work/report.txt" || report_status=$?
  cat "$work/report.txt"
  cat "$work/report.txt" >>"$artifacts/report.txt"
  "$cli" report "$merged" --format markdown --max-bytes "$max_bytes" >>"$artifacts/report.md" || true
  # "N cases: P passed, F failed, S skipped" (report's totals line; "**F failed**" in Markdown).
  totals="$(grep -m1 -oE '[0-9]+ cases?: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$work/report.txt" || true)"
  read -r total passed failed skipped < <(sed -E 's/([0-9]+) cases?: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped/\1 \2 \3 \4/' <<<"${totals:-0 cases: 0 passed, 0 failed, 0 skipped}")
  cases_total[$program]=$((cases_total[$program] + total))
  cases_passed[$program]=$((cases_passed[$program] + passed))
  cases_failed[$program]=$((cases_failed[$program] + failed))
  cases_skipped[$program]=$((cases_skipped[$program] + skipped))
  if ((findings)); then
    # Under GitHub Actions the failures as workflow commands in the log: each an annotation on its
    # line of the pull request's diff ("annotated conflict-free, measured 2-way").
    if [[ "${GITHUB_ACTIONS:-}" == true ]]; then
      "$cli" report "$merged" --format github --source-root "$top" || true
    fi
    if [[ -n "$sarif_dir" ]]; then
      "$cli" report "$merged" --format sarif --source-root "$top" --category "bankcheck/$name" \
        -o "$sarif_dir/$name.sarif" || (($? <= 1)) || warn "bankcheck report --format sarif $merged failed (above)"
    fi
  fi
  case "$report_status" in
    0) ;;
    1) gate_failed+=("$name") ;;
    *) warn "bankcheck report $merged failed (above)"; report_failed=1 ;;
  esac
  # Whether recording would change a baseline: by WhyNotRecordable (baseline.h), the one rule, which
  # update-baselines applies. It leaves emulated counts alone unless first baselines from the
  # emulator were asked for (--emulated-baselines: update-baselines --emulated), and then only
  # where the GPU program measured nothing (<line findings> is 1): measured counts come first.
  if [[ "$program" == measured ]]; then
    "$cli" update-baselines "$merged" --baselines "${suite_baselines[i]}" --dry-run >/dev/null 2>&1 || record_status=$?
    ((record_status != 1)) || counts_changed=1
  elif ((emulated_baselines && findings)); then
    "$cli" update-baselines "$merged" --baselines "${suite_baselines[i]}" --dry-run --emulated >/dev/null 2>&1 ||
      record_status=$?
    ((record_status != 1)) || emulated_record+=("$i $merged")
  fi
  program_ran=$((passed + failed))
}
