#!/usr/bin/env python3
"""Reads kernel suite results folders (RESULTS_DIR/cases/*.json, as the suite programs write them)
or results files (bankcheck merge-results) for the GPU-less gate (docs/emulate.md).

  emulate_results.py summary EMULATED_DIR|RESULTS_FILE
      The emulated program's run against the committed baselines (ci/jobs/emulate.sh):
      "decided N of M cases, equal to the baselines E, differ D; undecided K by reason: ..." (with
      "decided without a baseline B" before "undecided" where cases skipped for want of one), then
      "output checks: ran emulated and passed N of M cases, failed F; not computed K by reason: ...;
      no output checks Z" (each case's "output", docs/emulate.md). Exit 1 when a decided case
      differs from its baseline or any case failed.
  emulate_results.py crosscheck MEASURED_DIR EMULATED_DIR
      The same cases measured on a GPU (with per-instruction rows: BANKCHECK_ATTRIBUTE=1) and
      emulated (benchmarks/emulate_crosscheck.sh): every decided launch instruction by instruction
      (pc: executions, wavefronts, ideal) and kind by kind, global and local memory included where
      both sides counted them. Prints each difference, then
      "decided N, equal E, differ D; undecided K by reason: ...". Exit 1 when anything differs.

A case is decided when its emulated launches were counted (status passed or failed with records);
undecided when it skipped, grouped by its reason with pcs, hex values and source lines left out.
Exit 2 on a usage error or a folder without results.
"""
import collections
import json
import pathlib
import re
import sys

# Derived from the others: not compared on their own.
KINDS_SKIPPED = {"conflicts"}


def without_anonymous_namespaces(mangled):
    """A mangled name with each anonymous namespace (<length>_GLOBAL__N_..., whose name nvcc makes
    anew at each compilation of its file) written as "<anonymous>": the measured and the emulated
    results may come from two builds of the same sources."""
    if mangled is None:
        return None
    out, at = [], 0
    for match in re.finditer(r"(\d+)_GLOBAL__N_", mangled):
        if match.start() < at:
            continue
        out.append(mangled[at:match.start()] + "<anonymous>")
        at = match.start(1) + len(match.group(1)) + int(match.group(1))
    return "".join(out) + mangled[at:]


def fail(message):
    print(f"emulate_results.py: {message}", file=sys.stderr)
    sys.exit(2)


def load(folder):
    """The cases of a results file, or of a folder's fragments as they are (every one: a folder that
    may hold an earlier run's is given merged, `bankcheck merge-results`, whose rule leaves those out)."""
    cases = {}
    files = [pathlib.Path(folder)] if pathlib.Path(folder).is_file() else sorted(pathlib.Path(folder).glob("cases/*.json"))
    if not files:
        fail(f"no results in {folder}/cases: run the suite first")
    for path in files:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        if document.get("format") != "bankcheck-results":
            fail(f"{path} is not a bankcheck results file")
        cases.update(document.get("cases", {}))
    return cases


def reason_of(case):
    messages = [m for m in case.get("messages", []) if m.strip()]
    text = messages[-1].strip().splitlines()[0] if messages else "no reason given"
    text = re.sub(r"\s*\[[^\]]*\]$", "", text)  # "[STS at pc 0x1a0 of Kernel(...)]"
    text = re.sub(r"\s*\([^()]*:\d+\)", "", text)  # "(kernels/x.cu:42)"
    text = re.sub(r",\s*[^\s,()]+:\d+", "", text)  # ", /src/kernels/x.cu:42"
    return re.sub(r"0x[0-9a-fA-F]+", "0x…", text)


def decided(case):
    launches = case.get("launches", [])
    return case.get("status") in ("passed", "failed") and launches and all(
        launch.get("counters") == "emulated" for launch in launches)


def decided_without_baseline(case):
    """Decided, but skipped for want of a baseline to compare with (a suite not yet recorded on a GPU)."""
    launches = case.get("launches", [])
    return case.get("status") == "skipped" and case.get("baseline") == "missing" and launches and all(
        launch.get("counters") == "emulated" for launch in launches)


def by_reason(cases):
    reasons = collections.Counter(reason_of(case) for case in cases)
    return "; ".join(f"{count} {reason}" for reason, count in reasons.most_common()) or "none"


def output_line(cases):
    """The output checks of the cases: how many ran on computed outputs and passed or failed, and why
    the others' outputs were not computed (a case's "output": "passed", "failed", "not computed:
    <why>", "no output checks: <why>"; absent from results of older programs: not computed)."""
    outputs = [case.get("output") or "not computed: not recorded" for case in cases.values()]
    passed = sum(1 for output in outputs if output == "passed")
    failed = sum(1 for output in outputs if output == "failed")
    none = sum(1 for output in outputs if output.startswith("no output checks"))
    # Grouped by reason: the kernel a reason names ("... [k()]"), source lines (", kernels/x.cu:42") and
    # hex values left out.
    def grouped(reason):
        reason = re.sub(r"\s*\[.*\]$", "", reason)
        reason = re.sub(r",\s*[^\s,()]+:\d+", "", reason)
        return re.sub(r"0x[0-9a-fA-F]+", "0x…", reason)
    reasons = collections.Counter(
        grouped(output[len("not computed: "):]) for output in outputs if output.startswith("not computed"))
    by = "; ".join(f"{count} {reason}" for reason, count in reasons.most_common()) or "none"
    return (f"output checks: ran emulated and passed {passed} of {len(cases)} cases, failed {failed}; "
            f"not computed {sum(reasons.values())} by reason: {by}; no output checks {none}")


def summary(folder):
    cases = load(folder)
    decided_cases = {name: case for name, case in cases.items() if decided(case)}
    unrecorded = [case for case in cases.values() if decided_without_baseline(case)]
    undecided = [case for case in cases.values()
                 if case.get("status") == "skipped" and not decided_without_baseline(case)]
    equal = [name for name, case in decided_cases.items() if case.get("baseline") == "match"]
    differ = sorted(set(decided_cases) - set(equal))
    failed = sorted(name for name, case in cases.items() if case.get("status") == "failed")
    for name in differ:
        print(f"DIFFERS {name}: baseline {decided_cases[name].get('baseline', 'not compared')}")
    for name in failed:
        if name not in differ:
            print(f"FAILED {name}: " + " | ".join(cases[name].get("messages", []))[:400])
    print(f"decided {len(decided_cases)} of {len(cases)} cases, equal to the baselines {len(equal)}, "
          f"differ {len(differ)}; " +
          (f"decided without a baseline {len(unrecorded)} (not compared: record them on a GPU); "
           if unrecorded else "") +
          f"undecided {len(undecided)} by reason: {by_reason(undecided)}")
    print(output_line(cases))
    return 1 if differ or failed else 0


# A launch's kinds ("shared_ld", "global_ld", "local_st", ...): the blocks a record holds per kind.
KIND_PREFIXES = ("shared_", "global_", "local_")


def rows(launch, not_counted):
    """Per pc and kind (an LDGSTS has two rows: shared_ldgsts and global_ldgsts), of the kinds both
    sides counted (an emulated launch leaves global or local memory not counted where it cannot
    know an address: docs/emulate.md)."""
    return {(row["pc"], row.get("kind")): (row.get("executions"), row.get("wavefronts"), row.get("ideal"))
            for row in launch.get("instructions", []) if row.get("kind") not in not_counted}


def totals(launch, not_counted):
    return {key: {k: v for k, v in value.items() if k not in KINDS_SKIPPED}
            for key, value in launch.items()
            if key.startswith(KIND_PREFIXES) and isinstance(value, dict) and key not in not_counted}


def crosscheck(measured_folder, emulated_folder):
    measured, emulated = load(measured_folder), load(emulated_folder)
    decided_count = equal = differ = 0
    undecided = []
    for name, case in sorted(emulated.items()):
        if not decided(case) and not decided_without_baseline(case):
            if case.get("status") == "skipped":
                undecided.append(case)
            continue
        decided_count += 1
        gpu = measured.get(name)
        problems = []
        if gpu is None or gpu.get("status") == "skipped":
            problems.append("not measured on the GPU")
        elif len(gpu.get("launches", [])) != len(case["launches"]):
            problems.append(f"{len(gpu.get('launches', []))} measured launches, {len(case['launches'])} emulated")
        else:
            for index, (real, emul) in enumerate(zip(gpu["launches"], case["launches"])):
                if without_anonymous_namespaces(real.get("mangled")) != without_anonymous_namespaces(
                        emul.get("mangled")):
                    problems.append(f"launch {index}: kernel {real.get('mangled')} measured, {emul.get('mangled')} emulated")
                    continue
                if not real.get("instructions"):
                    problems.append(f"launch {index}: the measured run has no per-instruction rows "
                                    "(run it with BANKCHECK_ATTRIBUTE=1)")
                    continue
                not_counted = set(real.get("not_counted", [])) | set(emul.get("not_counted", []))
                real_rows, emul_rows = rows(real, not_counted), rows(emul, not_counted)
                for pc, kind in sorted(set(real_rows) | set(emul_rows), key=lambda k: (k[0], k[1] or "")):
                    real_row, emul_row = real_rows.get((pc, kind)), emul_rows.get((pc, kind))
                    if real_row != emul_row:
                        problems.append(f"launch {index} pc {pc:#x}: measured (executions, wavefronts, ideal) "
                                        f"{real_row}, emulated {emul_row}" + (f" [{kind}]" if kind else ""))
                if totals(real, not_counted) != totals(emul, not_counted):
                    problems.append(f"launch {index}: totals measured {totals(real, not_counted)}, "
                                    f"emulated {totals(emul, not_counted)}")
        if problems:
            differ += 1
            print(f"DIFFERS {name}:\n  " + "\n  ".join(problems[:20]))
        else:
            equal += 1
    print(f"decided {decided_count}, equal {equal}, differ {differ}; undecided {len(undecided)} by reason: "
          f"{by_reason(undecided)}")
    return 1 if differ else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "summary":
        return summary(argv[2])
    if len(argv) == 4 and argv[1] == "crosscheck":
        return crosscheck(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
