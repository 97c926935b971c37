"""bankcheck's gate of the pytest plugin's CPU mode (docs/python.md): pytest with the plugin and
--bankcheck-cpu over test_triton_tutorials.py, each Triton launch compiled for sm_90 and run in
bankcheck's emulator, passes against baselines/ with every case decided (each test saving its outputs
where BANKCHECK_OUTPUTS_DIR says, as benchmarks/triton_device_check.sh reads them), and fails, naming
the case and the source line, when a baseline is doctored to one wavefront fewer. Run by ci/jobs/triton-cpu.sh
(.ci/run), or:

    BANKCHECK=build/bin/bankcheck BANKCHECK_EMULATE_LIBRARY=build/lib/libbankcheck_emulate_c.so \\
      python3 -m pytest examples/python/test_triton_cpu_gate.py

with a Python that has pytest, numpy and Triton (torch is not needed). The plugin is the one in the
sources (python/bankcheck). It records nothing.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if os.environ.get("BANKCHECK_PYTEST_CHILD"):
    pytest.skip("the gate runs sessions of the plugin itself, not inside one", allow_module_level=True)
pytest.importorskip("triton", reason="triton is not installed")
pytest.importorskip("numpy", reason="numpy is not installed")

HERE = Path(__file__).resolve().parent
SOURCES = HERE.parent.parent
TESTS = "test_triton_tutorials.py"
BASELINES = HERE / "baselines"
TOPIC = TESTS
# The launches CPU mode decides, as the plugin names them (test_triton_matmul_grouped's is not
# decided: its test skips with the reason).
DECIDED = [f"{TOPIC}/{case}" for case in (
    "test_vector_add/add_kernel", "test_fused_softmax/softmax_kernel", "test_layer_norm/layer_norm_fwd_kernel",
    "test_matmul_linear[32x32x32]/matmul_2d_kernel", "test_matmul_linear[64x64x32]/matmul_2d_kernel",
    "test_transpose/transpose_kernel", "test_gluon_transpose[plain]/gluon_transpose_kernel",
    "test_gluon_transpose[swizzled]/gluon_transpose_kernel", "test_gluon_transpose[padded]/gluon_transpose_kernel")]
DOCTORED = f"{TOPIC}/test_gluon_transpose[plain]/gluon_transpose_kernel"


def cpu_session(baselines, results, *selection, outputs=None):
    """pytest over test_triton_tutorials.py in CPU mode with the plugin of the sources; (exit status,
    output, results as parsed or None). `outputs`: the tests save their outputs there
    (BANKCHECK_OUTPUTS_DIR, conftest.py)."""
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(SOURCES / "python"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    environment.pop("BANKCHECK_OUTPUTS_DIR", None)
    if outputs is not None:
        environment["BANKCHECK_OUTPUTS_DIR"] = str(outputs)
    environment["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    environment.pop("BANKCHECK_PYTEST_CHILD", None)
    command = [sys.executable, "-m", "pytest", "-p", "bankcheck.pytest_plugin", "-p", "no:cacheprovider", "-rs",
               TESTS, *selection, "--bankcheck-cpu", "--bankcheck-baselines", str(baselines),
               "--bankcheck-output", str(results)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600, env=environment, cwd=HERE)
    output = proc.stdout + proc.stderr
    return proc.returncode, output, json.loads(results.read_text()) if results.exists() else None


def test_every_tutorial_kernel_is_decided_and_matches_its_baseline(tmp_path):
    status, output, results = cpu_session(BASELINES, tmp_path / "run.json", outputs=tmp_path / "outputs")
    assert status == 0, f"the session exited with {status}:\n{output}"
    assert results is not None and results["metadata"]["device"] == "bankcheck emulated sm_90", output
    assert sorted(results["cases"]) == sorted(DECIDED), output
    for name, case in results["cases"].items():
        assert case["baseline"] == "match", f"{name}: {case['baseline']}\n{output}"
    # The undecided kernel's test skips, saying why.
    assert "matmul_kernel cannot be decided by the emulator" in output, output
    # Each test that ran saved its outputs under its range, as benchmarks/triton_device_check.sh reads
    # them: the transpose's is the transpose.
    saved = sorted(path.relative_to(tmp_path / "outputs").as_posix() for path in (tmp_path / "outputs").rglob("*.npy"))
    assert f"{TOPIC}/test_vector_add/out.npy" in saved and f"{TOPIC}/test_matmul_grouped/c.npy" not in saved, saved
    numpy = pytest.importorskip("numpy")
    transposed = numpy.load(tmp_path / "outputs" / TOPIC / "test_gluon_transpose[swizzled]" / "out.npy")
    source = numpy.random.default_rng(20261208).standard_normal((128, 64), dtype=numpy.float32)
    assert numpy.array_equal(transposed, source.T)


def test_one_wavefront_fewer_in_a_baseline_fails_naming_the_kernel_and_its_line(tmp_path):
    baselines = tmp_path / "baselines"
    shutil.copytree(BASELINES, baselines)
    path = baselines / "sm_90" / f"{TOPIC}.json"
    recorded = json.loads(path.read_text())
    launch = recorded["cases"][DOCTORED]["launches"][0]
    launch["shared_ld"]["wavefronts"] -= 1
    launch["shared_ld"]["conflicts"] -= 1
    line = next(line for line in launch["lines"] if line["kind"] == "shared_ld")
    line["wavefronts"] -= 1
    path.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")

    status, output, results = cpu_session(baselines, tmp_path / "run.json", "-k", "test_gluon_transpose")
    assert status == 1, f"the session exited with {status}, not 1 (the regression of {DOCTORED}):\n{output}"
    assert f'REGRESSION: case "{DOCTORED}"' in output, output
    assert f"tutorial_kernels.py:{line['line']} {line['code']}" in output, output
    verdicts = {name: case["baseline"] for name, case in results["cases"].items()}
    assert verdicts[DOCTORED] == "regression" and list(verdicts.values()).count("match") == 2, verdicts
