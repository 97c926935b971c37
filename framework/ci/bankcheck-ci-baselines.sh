# Sourced by bankcheck-ci (bankcheck-ci.sh): the baselines patch, step 5 of its job. Its functions
# read and set bankcheck-ci's variables.
# shellcheck shell=bash disable=SC2154,SC2034  # the variables are bankcheck-ci.sh's, read and set there

# patch_baselines_folder <suite index> <baselines folder>: the suites that keep their baselines in
# that folder recorded into a copy of it (their output into record.log), and the copy's diff, of
# the baselines alone, appended to baselines.patch. Sets record_failed=1 when a case was not
# recorded or the copy was replaced, and where (how to apply the patch) for a folder outside the
# repository.
patch_baselines_folder() {
  local i="$1" dir="$2" regex="" baseline_regex="" j rel patch_dir copy entry side
  # The suites that keep their baselines in this folder, and the patch's paths: from the
  # repository's root (else the source folder's) when the folder is inside it, else from itself.
  for j in "${!suites[@]}"; do
    [[ "${suite_baselines[j]}" == "$dir" ]] || continue
    regex+="${regex:+|}$(regex_escape "${suite_prefixes[j]}")/"
    baseline_regex+="${baseline_regex:+|}$(regex_escape "${suite_baseline_tests[j]}")\$"
  done
  case "$dir/" in
    "$top"/*) rel="${dir#"$top"/}" ;;
    *) rel=""; where="in the baselines folder $dir" ;;
  esac
  patch_dir="$work/patch-$i"
  mkdir -p "$patch_dir/a/$rel" "$patch_dir/b/$rel"
  if [[ -d "$dir" ]]; then
    cp -R "$dir/." "$patch_dir/a/$rel/"
    cp -R "$dir/." "$patch_dir/b/$rel/"
  fi
  copy="$patch_dir/b/$rel"
  {
    if ((counts_changed)); then
      # The GPU tests alone: '^<prefix>/' selects the suite's CPU model checks too, which record nothing.
      echo "== BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_BASELINES_DIR=$copy ctest -L gpu -R '^($regex)'"
      BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_BASELINES_DIR="$copy" BANKCHECK_RESULTS_DIR="$work/record-results" \
        ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" --resource-spec-file "$spec" -L gpu -R "^($regex)"
    fi
    # First baselines from the emulator, asked for (--emulated-baselines), from the merged results of
    # the suites whose GPU program measured nothing; update-baselines applies WhyNotRecordable.
    for entry in "${emulated_record[@]}"; do
      [[ "${suite_baselines[${entry%% *}]}" == "$dir" ]] || continue
      echo "== bankcheck update-baselines ${entry#* } --emulated --baselines $copy"
      "$cli" update-baselines "${entry#* }" --emulated --baselines "$copy"
    done
    if ((${#stale[@]} > 0)); then
      echo "== BANKCHECK_PRUNE_BASELINES=1 BANKCHECK_BASELINES_DIR=$copy ctest -R '^($baseline_regex)'"
      BANKCHECK_PRUNE_BASELINES=1 BANKCHECK_BASELINES_DIR="$copy" \
        ctest --test-dir "$build_dir" --output-on-failure -R "^($baseline_regex)"
    fi
  } >>"$artifacts/record.log" 2>&1 || record_failed=1
  # The patch holds the baselines alone: regular *.json files of one link inside the baselines
  # folder. The suites run the project's (a pull request's) code, which may write anything into
  # the copy or beside it (a workflow, a link to /etc/passwd): none of that is offered as a baseline.
  # The copy itself, not a link the suites put in its place or above it.
  if [[ "$(cd "$copy" 2>/dev/null && pwd -P)" != "$(cd "$patch_dir" && pwd -P)/b${rel:+/$rel}" ]]; then
    warn "recording replaced the copy of $dir with something else: it is not in the patch"
    record_failed=1
    return 0
  fi
  for side in a b; do
    mkdir -p "$patch_dir/diff/$side/$rel"
    (cd "$patch_dir/$side/$rel" && find . -type f -links 1 -name '*.json' -print0) |
      while IFS= read -r -d '' file; do
        mkdir -p "$patch_dir/diff/$side/$rel/$(dirname "$file")"
        cp -P -- "$patch_dir/$side/$rel/$file" "$patch_dir/diff/$side/$rel/$file"
      done
  done
  if command -v git >/dev/null 2>&1; then
    (cd "$patch_dir/diff" && git -c core.quotepath=off diff --no-index --no-color --no-ext-diff --no-renames \
      --binary --src-prefix= --dst-prefix= a b) >>"$artifacts/baselines.patch" || true
  else
    (cd "$patch_dir/diff" && diff -ruN a b) >>"$artifacts/baselines.patch" || true
  fi
}

# 5. New baselines, when a case's counts differ from its baseline or an entry is stale:
# write_baselines_patch records the suites into a copy of each baselines folder and writes
# <artifacts>/baselines.patch, the diff of the baselines alone, and record.log; sets patch_note
# (how to apply it; empty when there is no patch). It reads the run's state: status, failed_tests,
# counts_changed, emulated_record and the suites' folders.
write_baselines_patch() {
  stale=()
  for test in "${failed_tests[@]}"; do
    for baseline_test in "${suite_baseline_tests[@]}"; do
      [[ "$test" != "$baseline_test" ]] || stale+=("$test")
    done
  done
  patch_note=""
  if ((status != 0 && baseline_patch && (counts_changed || ${#stale[@]} > 0 || ${#emulated_record[@]} > 0))); then
    echo
    say "the baselines differ from this run: recording the suites into a copy of their baselines folder"
    : >"$artifacts/baselines.patch"
    : >"$artifacts/record.log"
    record_failed=0
    where="from the repository's root"
    done_dirs=()
    for i in "${!suites[@]}"; do
      dir="${suite_baselines[i]}"
      [[ " ${done_dirs[*]} " != *" $dir "* ]] || continue
      done_dirs+=("$dir")
      patch_baselines_folder "$i" "$dir"
    done
    # What the first baselines from the emulator took, and each case they left out with its reason
    # (an undecided case: the emulator could not count it).
    if ((${#emulated_record[@]} > 0)); then
      say "first baselines from the emulator (record.log):"
      grep -E '^(Recording |Would record |  left alone: )' "$artifacts/record.log" || true
    fi
    if ((record_failed)); then
      warn "some cases were not recorded (record.log): a case is recorded only when it passes its own checks" \
        "(correct output, its annotations); fix those first"
    fi
    if [[ -s "$artifacts/baselines.patch" ]]; then
      apply="git apply baselines.patch"
      command -v git >/dev/null 2>&1 || apply="patch -p1 < baselines.patch"
      patch_note="If the change was meant, apply it $where with \`$apply\` and commit it."
      say "new baselines: $artifacts/baselines.patch ($(grep -c '^diff ' "$artifacts/baselines.patch") file(s))." \
        "${patch_note//\`/}"
    else
      rm -f "$artifacts/baselines.patch"
      say "recording changed no baseline (record.log): the failing cases fail more than their baselines"
    fi
  fi
}
