#!/usr/bin/env python3
"""The comparison of benchmarks/triton_device_check.sh (docs/python.md, "The device check"): the same
Triton tests run by bankcheck's pytest plugin in GPU mode (measured through CUPTI) and in CPU mode
(emulated), their launches compared launch by launch and kind by kind, their outputs bit by bit.

  triton_device_compare.py GPU_RESULTS CPU_RESULTS [--cpu-junit FILE]
                           [--outputs GPU_OUTPUTS CPU_OUTPUTS] [--committed COMMITTED GPU_BASELINES]

GPU_RESULTS, CPU_RESULTS: the two sessions' results files (--bankcheck-output), the CPU session run
against the baselines the GPU session recorded. Each launch of a case the GPU measured is:
  - decided when CPU mode emulated the case (its launches in CPU_RESULTS); it is equal when its
    kernel, grid, block, dynamic shared memory and every kind both counted are equal (instructions,
    wavefronts, and the ideal where both know it: a kind's block absent on one side is no traffic, as
    bankcheck compares baselines), and `bankcheck run --emulated` found the case to match the GPU's
    baseline (its own verdicts: "baseline", the counts, and "baseline_lines", the source lines, where
    the baseline has lines; how many had is printed); a kind
    either side did not count (an emulated launch whose outputs were not computed leaves global
    memory uncounted) is printed as not compared, with the side;
  - undecided when CPU mode has no launch of the case: its test skipped, with the reason given in
    the CPU session's JUnit file (--cpu-junit; an undecided launch skips its test saying why).
A case CPU mode emulated that the GPU did not measure differs.

--outputs: the folders the tests saved their output arrays in (BANKCHECK_OUTPUTS_DIR,
examples/python/conftest.py: <folder>/<test range>/<name>.npy), each array compared bit for bit
(dtype, shape and bytes) where CPU mode computed it: a test whose emulated launch did not compute its
outputs ("output": "not computed: <why>" in CPU_RESULTS), or that CPU mode did not run, is listed as
not compared, with the reason.

--committed: the baselines committed (examples/python/baselines, CPU mode's first baselines for the
tutorials) against those the GPU session recorded, case by case with the same comparison. Printed,
not part of the exit status: the committed ones were recorded with the Triton of their commit, and a
Triton that compiles a kernel otherwise changes its counts on both sides.

Prints one line per launch and kind (`equal`, `DIFFERS`, `not compared`), then
  decided N, equal E, differ D; undecided K
for the launches (and, before it, the undecided ones' reasons and the outputs' line). Exit status: 0
when every decided launch and every compared output is equal, 1 when one differs, 2 on a usage
error or a file that is not what it should be.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

# A launch record's memory kinds ("shared_ld", "global_st", "local_ld", "global_tma_ld", ...).
KIND_PREFIXES = ("shared_", "global_", "local_")
# What describes a launch besides its counts: equal on both sides, or the launch differs.
CONFIGURATION = ("kernel", "grid", "block", "dynamic_shared_bytes")
# How CPU mode begins the skip of a test whose launch the emulator cannot decide (triton_cpu.SKIP_PREFIX).
UNDECIDED_PREFIX = "bankcheck: emulated: "


class InputError(Exception):
    """A file that is not what it should be: exit status 2."""


def load_json(path: str | Path, what: str) -> dict[str, Any]:
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read {what} {path}: {error}") from error
    if not isinstance(document, dict) or not isinstance(document.get("cases"), dict):
        raise InputError(f"{path} is not a bankcheck {what} (no \"cases\")")
    return document


def kinds(launch: dict[str, Any]) -> set[str]:
    return {key for key, value in launch.items() if key.startswith(KIND_PREFIXES) and isinstance(value, dict)}


def kind_difference(gpu: dict[str, Any] | None, cpu: dict[str, Any] | None) -> str:
    """'' when a kind's counts are equal, else what differs ("wavefronts 64 (GPU) 2048 (CPU)"). An
    absent block is no traffic; the ideal compares where both sides know it (a block without
    "ideal"), and one side knowing it and the other not is a difference, as in bankcheck's compare."""
    gpu, cpu = gpu or {"instructions": 0, "wavefronts": 0, "ideal": 0}, cpu or {
        "instructions": 0, "wavefronts": 0, "ideal": 0}
    parts = [f"{field} {gpu.get(field, 0)} (GPU) {cpu.get(field, 0)} (CPU)" for field in ("instructions", "wavefronts")
             if gpu.get(field, 0) != cpu.get(field, 0)]
    if ("ideal" in gpu) != ("ideal" in cpu):
        parts.append(f"ideal {gpu.get('ideal', 'unknown')} (GPU) {cpu.get('ideal', 'unknown')} (CPU)")
    elif gpu.get("ideal") != cpu.get("ideal"):
        parts.append(f"ideal {gpu['ideal']} (GPU) {cpu['ideal']} (CPU)")
    return ", ".join(parts)


def counts_text(block: dict[str, Any] | None) -> str:
    block = block or {}
    fields = [f"{field} {block[field]}" for field in ("instructions", "wavefronts", "ideal") if field in block]
    return ", ".join(fields) or "no traffic"


def compare_launch(gpu: dict[str, Any], cpu: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(verdict, what, detail) for one launch: its configuration, then each kind: verdict "equal",
    "DIFFERS" or "not compared"."""
    rows = []
    configuration = [f"{key} {gpu.get(key)} (GPU) {cpu.get(key)} (CPU)" for key in CONFIGURATION
                     if gpu.get(key) != cpu.get(key)]
    rows.append(("DIFFERS" if configuration else "equal", "launch",
                 "; ".join(configuration) or f"{gpu.get('kernel')} grid {gpu.get('grid')} block {gpu.get('block')}"))
    gpu_not_counted, cpu_not_counted = set(gpu.get("not_counted", [])), set(cpu.get("not_counted", []))
    # A kind either side did not count is listed even where neither has a block of it: what was not
    # compared is said.
    for kind in sorted(kinds(gpu) | kinds(cpu) | gpu_not_counted | cpu_not_counted):
        sides = [side for side, not_counted in (("the GPU", gpu_not_counted), ("the emulator", cpu_not_counted))
                 if kind in not_counted]
        if sides:
            rows.append(("not compared", kind, f"not counted by {' and '.join(sides)}"))
            continue
        difference = kind_difference(gpu.get(kind), cpu.get(kind))
        rows.append(("DIFFERS", kind, difference) if difference else ("equal", kind, counts_text(gpu.get(kind))))
    return rows


def junit_skips(path: str | Path | None) -> dict[str, str]:
    """The skip message of each skipped test of a JUnit file, by "<classname>::<name>"."""
    if path is None or not Path(path).is_file():
        return {}
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as error:
        raise InputError(f"cannot read the JUnit file {path}: {error}") from error
    skips = {}
    for case in root.iter("testcase"):
        skipped = case.find("skipped")
        if skipped is not None:
            skips[f"{case.get('classname')}::{case.get('name')}"] = skipped.get("message", "") or (skipped.text or "")
    return skips


def test_range(case_name: str) -> str:
    """The plugin's range of the test that launched a case: the name less its kernel ("mod.py/test[1]")."""
    return case_name.rsplit("/", 1)[0]


def junit_key(range_name: str) -> str:
    """The JUnit "<classname>::<name>" of a test range: "a.test_k.py/TestA::test_b[1]" ->
    "a.test_k.TestA::test_b[1]" (pytest's classname: the module's path with dots, less ".py", and the
    classes)."""
    module, _, rest = range_name.partition("/")
    parts = rest.split("::")
    return ".".join([module.removesuffix(".py"), *parts[:-1]]) + "::" + parts[-1]


def undecided_reason(case_name: str, skips: dict[str, str]) -> str:
    reason = skips.get(junit_key(test_range(case_name)))
    if reason is None:
        return "CPU mode has no launch of it, and its test did not skip (see the CPU session's log)"
    return reason.removeprefix("Skipped: ")


def compare_launches(gpu_results: dict[str, Any], cpu_results: dict[str, Any], skips: dict[str, str]) -> bool:
    """Prints every launch's comparison and the summary line; True when nothing differs."""
    gpu_cases, cpu_cases = gpu_results["cases"], cpu_results["cases"]
    decided = equal = differ = lines_compared = 0
    undecided: list[tuple[str, str]] = []
    for name in sorted(gpu_cases):
        gpu_launches = gpu_cases[name].get("launches", [])
        cpu_case = cpu_cases.get(name)
        if cpu_case is None or not cpu_case.get("launches"):
            reason = undecided_reason(name, skips)
            for index in range(len(gpu_launches)):
                undecided.append((f"{name} launch {index + 1}", reason))
                print(f"undecided     {name} launch {index + 1}: {reason}")
            continue
        cpu_launches = cpu_case["launches"]
        # bankcheck's own verdicts against the GPU's baseline: the counts', and the lines' where the
        # baseline has lines (a results file holds "baseline_lines" only then).
        verdicts = {"counts": cpu_case.get("baseline", "not compared")}
        if "baseline_lines" in cpu_case:
            verdicts["lines"] = cpu_case["baseline_lines"]
            lines_compared += 1
        for index in range(max(len(gpu_launches), len(cpu_launches))):
            decided += 1
            label = f"{name} launch {index + 1}"
            if index >= len(gpu_launches) or index >= len(cpu_launches):
                differ += 1
                print(f"DIFFERS       {label}: {len(gpu_launches)} launches measured, {len(cpu_launches)} emulated")
                continue
            rows = compare_launch(gpu_launches[index], cpu_launches[index])
            for row_verdict, what, detail in rows:
                print(f"{row_verdict:13} {label} {what}: {detail}")
            differs = any(row_verdict == "DIFFERS" for row_verdict, _, _ in rows)
            if any(verdict != "match" for verdict in verdicts.values()):
                differs = True
                told = ", ".join(f"{what} {verdict}" for what, verdict in verdicts.items())
                print(f"DIFFERS       {label}: bankcheck run --emulated against the GPU's baseline: {told}")
            differ += differs
            equal += not differs
    for name in sorted(set(cpu_cases) - set(gpu_cases)):
        for index in range(len(cpu_cases[name].get("launches", []))):
            decided += 1
            differ += 1
            print(f"DIFFERS       {name} launch {index + 1}: emulated, but the GPU session measured no such case")
    print(f"lines: bankcheck run --emulated compared the source lines of {lines_compared} of the emulated cases "
          "(only where the GPU's baseline has lines)")
    reasons = collections.Counter(reason for _, reason in undecided)
    for reason, count in reasons.most_common():
        print(f"undecided {count}: {reason}")
    print(f"decided {decided}, equal {equal}, differ {differ}; undecided {len(undecided)}")
    return differ == 0


def saved_outputs(folder: str | Path) -> dict[str, Path]:
    """The .npy files under a BANKCHECK_OUTPUTS_DIR, by "<test range>/<name>"."""
    root = Path(folder)
    return {path.relative_to(root).with_suffix("").as_posix(): path for path in sorted(root.rglob("*.npy"))}


def output_difference(gpu_path: Path, cpu_path: Path) -> str:
    """'' when two saved arrays are equal bit for bit (dtype, shape, bytes), else how they differ."""
    import numpy as np  # only here: the launches' comparison needs no numpy

    gpu, cpu = np.load(gpu_path, allow_pickle=False), np.load(cpu_path, allow_pickle=False)
    if gpu.dtype != cpu.dtype or gpu.shape != cpu.shape:
        return f"{gpu.dtype}{list(gpu.shape)} (GPU), {cpu.dtype}{list(cpu.shape)} (CPU)"
    gpu_bytes = np.ascontiguousarray(gpu).view(np.uint8).reshape(gpu.size, -1) if gpu.size else gpu
    cpu_bytes = np.ascontiguousarray(cpu).view(np.uint8).reshape(cpu.size, -1) if cpu.size else cpu
    if gpu.size == 0 or np.array_equal(gpu_bytes, cpu_bytes):
        return ""
    different = np.flatnonzero((gpu_bytes != cpu_bytes).any(axis=1))
    first = np.unravel_index(int(different[0]), gpu.shape)
    index = tuple(int(i) for i in first)
    return (f"{different.size} of {gpu.size} elements differ, the first at {list(index)}: "
            f"{gpu[index]!r} (GPU), {cpu[index]!r} (CPU)")


def not_computed_by_range(cpu_results: dict[str, Any]) -> dict[str, str]:
    """Why CPU mode did not compute a test's outputs, by test range: its first launch whose outputs
    were not computed."""
    reasons: dict[str, str] = {}
    for name, case in sorted(cpu_results["cases"].items()):
        output = case.get("output", "")
        if output.startswith("not computed"):
            reasons.setdefault(test_range(name), f"{name.rsplit('/', 1)[-1]}: {output}")
    return reasons


def compare_outputs(gpu_folder: str | Path, cpu_folder: str | Path, cpu_results: dict[str, Any],
                    skips: dict[str, str]) -> bool:
    """Prints each saved output's comparison and a summary line; True when none differs."""
    gpu, cpu = saved_outputs(gpu_folder), saved_outputs(cpu_folder)
    not_computed = not_computed_by_range(cpu_results)
    compared = equal = differ = 0
    not_compared = 0
    for key in sorted(set(gpu) | set(cpu)):
        range_name = key.rsplit("/", 1)[0]
        if range_name in not_computed:
            not_compared += 1
            print(f"not compared  output {key}: the emulator did not compute it ({not_computed[range_name]})")
        elif key not in cpu:
            not_compared += 1
            skipped = skips.get(junit_key(range_name))
            why = f"its test skipped: {skipped.removeprefix('Skipped: ')}" if skipped else "no such output saved"
            print(f"not compared  output {key}: CPU mode did not save it ({why})")
        elif key not in gpu:
            not_compared += 1
            print(f"not compared  output {key}: GPU mode did not save it (its test did not run to its check there)")
        else:
            compared += 1
            difference = output_difference(gpu[key], cpu[key])
            if difference:
                differ += 1
                print(f"DIFFERS       output {key}: {difference}")
            else:
                equal += 1
                print(f"equal         output {key}")
    print(f"outputs: compared {compared}, equal {equal}, differ {differ}; not compared {not_compared}")
    return differ == 0


def baseline_files(folder: Path) -> dict[str, Path]:
    """A baselines folder's files, by "<arch>/<topic>.json"."""
    return {path.relative_to(folder).as_posix(): path for path in sorted(folder.glob("*/*.json"))}


def compare_committed(committed_folder: str | Path, gpu_folder: str | Path) -> None:
    """Prints the committed baselines' comparison with the GPU's, for the topics the GPU recorded."""
    committed, recorded = baseline_files(Path(committed_folder)), baseline_files(Path(gpu_folder))
    compared = equal = differ = unrecorded = 0
    for topic, path in recorded.items():
        gpu_cases = load_json(path, "baselines file")["cases"]
        committed_cases = load_json(committed[topic], "baselines file")["cases"] if topic in committed else {}
        for name in sorted(set(gpu_cases) | set(committed_cases)):
            if name not in committed_cases or name not in gpu_cases:
                unrecorded += 1
                side = "committed" if name not in committed_cases else "recorded on the GPU"
                print(f"not compared  committed {name}: not {side}")
                continue
            compared += 1
            gpu_launches, kept_launches = gpu_cases[name]["launches"], committed_cases[name]["launches"]
            rows = []
            if len(gpu_launches) != len(kept_launches):
                rows.append(("DIFFERS", "launches", f"{len(gpu_launches)} (GPU), {len(kept_launches)} (committed)"))
            for index, (gpu, kept) in enumerate(zip(gpu_launches, kept_launches)):
                rows += [(verdict, f"launch {index + 1} {what}", detail.replace("(CPU)", "(committed)").replace(
                    "the emulator", "the committed baseline"))
                         for verdict, what, detail in compare_launch(gpu, kept) if verdict != "equal"]
            for verdict, what, detail in rows:
                print(f"{verdict:13} committed {name} {what}: {detail}")
            if any(verdict == "DIFFERS" for verdict, _, _ in rows):
                differ += 1
            else:
                equal += 1
    print(f"committed baselines against the GPU's: compared {compared}, equal {equal}, differ {differ}; "
          f"not in both {unrecorded}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gpu_results")
    parser.add_argument("cpu_results")
    parser.add_argument("--cpu-junit", help="the CPU session's JUnit file: why its undecided tests skipped")
    parser.add_argument("--outputs", nargs=2, metavar=("GPU_OUTPUTS", "CPU_OUTPUTS"))
    parser.add_argument("--committed", nargs=2, metavar=("COMMITTED", "GPU_BASELINES"))
    arguments = parser.parse_args(argv)
    try:
        gpu_results = load_json(arguments.gpu_results, "results file")
        cpu_results = load_json(arguments.cpu_results, "results file")
        skips = junit_skips(arguments.cpu_junit)
        if arguments.committed:
            print("== the committed baselines against the GPU's (printed, not part of the exit status)")
            compare_committed(*arguments.committed)
        same = True
        if arguments.outputs:
            print("== outputs, bit for bit")
            same = compare_outputs(*arguments.outputs, cpu_results, skips)
        print("== launches: GPU mode (measured) against CPU mode (emulated)")
        same = compare_launches(gpu_results, cpu_results, skips) and same
    except InputError as error:
        print(f"triton_device_compare.py: error: {error}", file=sys.stderr)
        return 2
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
