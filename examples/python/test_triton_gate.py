"""The CI gate of triton_kernels.py: `bankcheck run --baselines` over it passes, and fails when the
conflicts get worse (README.md here). Run by CTest as python/triton_gate (run_triton_gate.sh), or:

    BANKCHECK=build/bin/bankcheck python3 -m pytest examples/python/test_triton_gate.py

bankcheck is BANKCHECK, else `bankcheck` on PATH. Skipped, with the reason, without torch and
Triton or without a usable GPU (`bankcheck run` exits 77); failed, saying how to record them, while
baselines/<arch>/ holds no baselines of these cases.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="torch is not installed")
pytest.importorskip("triton", reason="triton is not installed")

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "triton_kernels.py"
BASELINES = HERE / "baselines"
# What triton_kernels.py launches, in order, named as `bankcheck run` names them.
EXPECTED_CASES = [
    "transpose/32/transpose_kernel",
    "transpose/64/transpose_kernel",
    "matmul/64x64x32/matmul_kernel",
    "matmul/64x64x32/matmul_kernel#2",
]
RECORD_COMMAND = ("bankcheck run --baselines examples/python/baselines --update-baselines -- "
                  "python3 examples/python/triton_kernels.py")


def bankcheck():
    path = os.environ.get("BANKCHECK") or shutil.which("bankcheck")
    if not path:
        pytest.fail("bankcheck not found: set BANKCHECK=<build folder>/bin/bankcheck or put it on PATH")
    return path


def bankcheck_run(options, results):
    """Runs `bankcheck run OPTIONS -o RESULTS -- python triton_kernels.py`; (exit status, output,
    results as parsed or None). Skips the test when bankcheck finds no usable GPU."""
    command = [bankcheck(), "run", *options, "-o", str(results), "--", sys.executable, str(SCRIPT)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=900)
    output = proc.stdout + proc.stderr
    if proc.returncode == 77:
        last_lines = " ".join(output.strip().splitlines()[-3:])
        pytest.skip(f"no usable GPU (bankcheck run exited with 77): {last_lines}")
    parsed = json.loads(results.read_text()) if results.exists() else None
    return proc.returncode, output, parsed


def missing_baselines(baselines, arch):
    """The expected cases without an entry in baselines/<arch>/<topic>.json."""
    missing = []
    for case in EXPECTED_CASES:
        path = baselines / arch / (case.split("/")[0] + ".json")
        if not path.exists() or case not in json.loads(path.read_text()).get("cases", {}):
            missing.append(case)
    return missing


def require_baselines(arch, output):
    missing = missing_baselines(BASELINES, arch)
    if missing:
        pytest.fail(f"baselines missing in {BASELINES / arch} for {', '.join(missing)}: record them on a "
                    f"GPU of this architecture, from the repository's root, with\n    {RECORD_COMMAND}\n"
                    f"and commit what it writes. bankcheck run printed:\n{output}")


def require_baselines_folder(tmp_path):
    """Without the baselines folder there is nothing to compare with: fails saying how to record
    them, after a run without baselines has shown that there is a GPU to record them on."""
    if not BASELINES.is_dir():
        _, output, results = bankcheck_run([], tmp_path / "without_baselines.json")
        require_baselines(results["metadata"]["arch"] if results else "<arch>", output)


def worsen(block):
    """One wavefront fewer in a recorded block, so that the measurement has one more (a regression);
    conflicts stay wavefronts - ideal."""
    block["wavefronts"] -= 1
    if "ideal" in block:
        if block["conflicts"] > 0:
            block["conflicts"] -= 1
        else:
            block["ideal"] -= 1


def worsen_first_case(folder):
    """Worsens, in one architecture's copied baselines, the first expected case that moves shared
    memory at all; returns its name, or None when the folder has none."""
    for case in EXPECTED_CASES:
        path = folder / (case.split("/")[0] + ".json")
        if not path.exists():
            continue
        recorded = json.loads(path.read_text())
        blocks = [block for launch in recorded.get("cases", {}).get(case, {}).get("launches", [])
                  for key, block in launch.items()
                  if key.startswith("shared_") and isinstance(block, dict) and block.get("wavefronts", 0) > 0]
        if blocks:
            worsen(blocks[0])
            path.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")
            return case
    return None


def test_measured_launches_match_their_baselines(tmp_path):
    require_baselines_folder(tmp_path)
    status, output, results = bankcheck_run(["--baselines", str(BASELINES)], tmp_path / "run.json")
    assert results is not None, f"bankcheck run (exit status {status}) wrote no results:\n{output}"
    require_baselines(results["metadata"]["arch"], output)
    assert status == 0, f"bankcheck run exited with {status}:\n{output}"
    assert sorted(results["cases"]) == sorted(EXPECTED_CASES), output
    for name, case in results["cases"].items():
        assert len(case["launches"]) == 1, name
        assert case["baseline"] == "match", f"{name}: {case['baseline']}\n{output}"


def test_more_wavefronts_than_the_baseline_fail_the_gate(tmp_path):
    require_baselines_folder(tmp_path)
    baselines = tmp_path / "baselines"
    shutil.copytree(BASELINES, baselines)
    # The GPU's architecture is known after the run: worsen a case of every architecture recorded.
    worse = {folder.name: worsen_first_case(folder) for folder in baselines.iterdir() if folder.is_dir()}

    status, output, results = bankcheck_run(["--baselines", str(baselines)], tmp_path / "run.json")
    assert results is not None, f"bankcheck run (exit status {status}) wrote no results:\n{output}"
    arch = results["metadata"]["arch"]
    require_baselines(arch, output)
    case = worse[arch]
    assert case, f"no case of {EXPECTED_CASES} has shared-memory wavefronts in its baselines: none to worsen"
    assert status == 1, f"bankcheck run exited with {status}, not 1 (the regression of {case}):\n{output}"
    assert case in output and "regression" in output.lower(), output
    verdicts = {name: result["baseline"] for name, result in results["cases"].items()}
    assert verdicts == {name: "regression" if name == case else "match" for name in EXPECTED_CASES}, output
