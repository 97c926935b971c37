"""bankcheck's gate of this example (docs/python.md): pytest with bankcheck's plugin over
test_triton_kernels.py passes against baselines/, and fails when the conflicts get worse. Run by
CTest as python/triton_gate (run_triton_gate.sh), or:

    BANKCHECK=build/bin/bankcheck python3 -m pytest examples/python/test_triton_gate.py

The plugin is the one in the sources (python/bankcheck), the command BANKCHECK, else `bankcheck` on
PATH. Skipped, with the reason, without torch and Triton or without a usable GPU; failed, saying
how to record them, while baselines/<arch>/ holds no baselines of these cases.
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
SOURCES = HERE.parent.parent
TESTS = HERE / "test_triton_kernels.py"
BASELINES = HERE / "baselines"
TOPIC = "test_triton_kernels.py"
# What test_triton_kernels.py launches, named as the plugin and `bankcheck run` name them.
EXPECTED_CASES = [
    f"{TOPIC}/test_transpose[32]/transpose_kernel",
    f"{TOPIC}/test_transpose[64]/transpose_kernel",
    f"{TOPIC}/test_matmul[256x256x256]/matmul_kernel",
    f"{TOPIC}/test_matmul[128x192x96]/matmul_kernel",
]
RECORD_COMMAND = ("pytest examples/python/test_triton_kernels.py --bankcheck-baselines "
                  "examples/python/baselines --bankcheck-update")


def plugin_session(baselines, results):
    """pytest over test_triton_kernels.py with the plugin of the sources and --bankcheck-baselines;
    (exit status, output, results as parsed or None). Skips the test when bankcheck finds no usable
    GPU (the session's tests then skip)."""
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(SOURCES / "python"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    # Only the plugin of the sources, not one a bankcheck wheel in this Python registers too.
    environment["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    environment.pop("BANKCHECK_PYTEST_CHILD", None)
    command = [sys.executable, "-m", "pytest", "-p", "bankcheck.pytest_plugin", "-p", "no:cacheprovider", "-rs",
               str(TESTS), "--bankcheck-baselines", str(baselines), "--bankcheck-output", str(results)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=900, env=environment, cwd=HERE)
    output = proc.stdout + proc.stderr
    if proc.returncode == 0 and "bankcheck cannot measure here" in output:
        reason = next(line for line in output.splitlines() if "bankcheck cannot measure here" in line)
        pytest.skip(reason.strip())
    parsed = json.loads(results.read_text()) if results.exists() else None
    return proc.returncode, output, parsed


def missing_baselines(baselines, arch):
    """The expected cases without an entry in baselines/<arch>/<topic>.json."""
    path = baselines / arch / f"{TOPIC}.json"
    recorded = json.loads(path.read_text()).get("cases", {}) if path.exists() else {}
    return [case for case in EXPECTED_CASES if case not in recorded]


def require_baselines(arch, output):
    missing = missing_baselines(BASELINES, arch)
    if missing:
        pytest.fail(f"baselines missing in {BASELINES / arch} for {', '.join(missing)}: record them on a "
                    f"GPU of this architecture, from the repository's root, with\n    {RECORD_COMMAND}\n"
                    f"and commit what it writes. The session printed:\n{output}")


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
    path = folder / f"{TOPIC}.json"
    if not path.exists():
        return None
    recorded = json.loads(path.read_text())
    for case in EXPECTED_CASES:
        blocks = [block for launch in recorded.get("cases", {}).get(case, {}).get("launches", [])
                  for key, block in launch.items()
                  if key.startswith("shared_") and isinstance(block, dict) and block.get("wavefronts", 0) > 0]
        if blocks:
            worsen(blocks[0])
            path.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")
            return case
    return None


def test_the_tests_launches_match_their_baselines(tmp_path):
    status, output, results = plugin_session(BASELINES, tmp_path / "run.json")
    assert results is not None, f"the session (exit status {status}) wrote no results:\n{output}"
    require_baselines(results["metadata"]["arch"], output)
    assert status == 0, f"the session exited with {status}:\n{output}"
    assert sorted(results["cases"]) == sorted(EXPECTED_CASES), output
    for name, case in results["cases"].items():
        assert len(case["launches"]) == 1, name
        assert case["baseline"] == "match", f"{name}: {case['baseline']}\n{output}"


def test_more_wavefronts_than_the_baseline_fail_the_session(tmp_path):
    baselines = tmp_path / "baselines"
    if BASELINES.is_dir():
        shutil.copytree(BASELINES, baselines)
    else:
        baselines.mkdir()
    # The GPU's architecture is known after the run: worsen a case of every architecture recorded.
    worse = {folder.name: worsen_first_case(folder) for folder in baselines.iterdir() if folder.is_dir()}

    status, output, results = plugin_session(baselines, tmp_path / "run.json")
    assert results is not None, f"the session (exit status {status}) wrote no results:\n{output}"
    arch = results["metadata"]["arch"]
    require_baselines(arch, output)
    case = worse[arch]
    assert case, f"no case of {EXPECTED_CASES} has shared-memory wavefronts in its baselines: none to worsen"
    assert status == 1, f"the session exited with {status}, not 1 (the regression of {case}):\n{output}"
    assert case in output and "regression" in output.lower(), output
    # How to record it: this session's own pytest command with --bankcheck-update, not the re-run.
    assert "record the new values with:\n" in output, output
    hint = output.split("record the new values with:\n", 1)[1].splitlines()[0].strip()
    assert " -m pytest " in hint and hint.endswith("--bankcheck-update") and "bankcheck run" not in hint, hint
    verdicts = {name: result["baseline"] for name, result in results["cases"].items()}
    assert verdicts == {name: "regression" if name == case else "match" for name in EXPECTED_CASES}, output
