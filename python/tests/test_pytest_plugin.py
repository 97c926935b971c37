"""Tests of bankcheck's pytest plugin (python/bankcheck/pytest_plugin.py), run by ci/jobs/wheel.sh
against the installed wheel. The CPU tests drive the re-run through a stand-in `bankcheck` (BANKCHECK
names it) that records its command line and plays `bankcheck run`'s exit statuses; the GPU test runs
the wheel's real command, and skips with its reason where no usable GPU is found (fails with
BANKCHECK_REQUIRE_GPU=1)."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import bankcheck
from bankcheck.pytest_plugin import (CHILD_VARIABLE, child_command, cpu_mode_unavailable, record_command, run_command,
                                     test_range)

LIBRARY_DIR = Path(bankcheck.__file__).resolve().parent / "lib"

# A stand-in for `bankcheck run`: logs its arguments (JSON) to $STAND_IN_LOG, then, by $STAND_IN_MODE:
# "skip" exits 77 as `bankcheck run` does without a GPU, "emulate" too but runs the program in CPU mode
# (BANKCHECK_RUN_EMULATED=1) when given --emulated, "require" fails as it does with
# BANKCHECK_REQUIRE_GPU=1, "run" runs the program after -- as `bankcheck run` does (the injection
# named in NVTX_INJECTION64_PATH) and exits with its status, "regression" also but exits 1 after a
# program that passed (a case differs from its baseline).
STAND_IN = """\
#!{python}
import json, os, subprocess, sys
args = sys.argv[1:]
with open(os.environ["STAND_IN_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
mode = os.environ["STAND_IN_MODE"]
if mode == "skip":
    sys.stderr.write("bankcheck: skipped: run: no GPU in the stand-in; the program was not run (exit status 77: skipped)\\n")
    sys.exit(77)
if mode == "require":
    sys.stderr.write("bankcheck: error: run: no GPU in the stand-in; the program was not run (BANKCHECK_REQUIRE_GPU=1)\\n")
    sys.exit(1)
program = args[args.index("--") + 1:]
environment = dict(os.environ, NVTX_INJECTION64_PATH=os.environ["STAND_IN_INJECTION"])
if mode == "emulate":
    # No GPU; --emulated runs the program as `bankcheck run --emulated` does (CPU mode).
    if "--emulated" not in args:
        sys.stderr.write("bankcheck: skipped: run: no GPU in the stand-in; the program was not run (exit status 77: skipped)\\n")
        sys.exit(77)
    environment = dict(os.environ, BANKCHECK_RUN_EMULATED="1", BANKCHECK_RUN_DIR=os.environ["STAND_IN_RUN_DIR"])
status = subprocess.run(program, env=environment).returncode
sys.exit(status if status != 0 or mode != "regression" else 1)
"""

TESTS = """\
import os

def test_first(bankcheck_test_range):
    assert os.environ.get("{child}") == "1", "not run by the stand-in"
    assert bankcheck_test_range == "test_session.py/test_first"

def test_second():
    assert os.environ.get("{child}") == "1"
"""


@pytest.fixture
def stand_in(pytester, monkeypatch, tmp_path):
    """A stand-in bankcheck in BANKCHECK; returns a function that reads the command lines it got."""
    script = tmp_path / "bankcheck-stand-in"
    script.write_text(STAND_IN.format(python=sys.executable))
    script.chmod(0o755)
    log = tmp_path / "stand-in.log"
    monkeypatch.setenv("BANKCHECK", str(script))
    monkeypatch.setenv("STAND_IN_LOG", str(log))
    monkeypatch.setenv("STAND_IN_INJECTION", str(LIBRARY_DIR / "libbankcheck_inject.so"))
    monkeypatch.delenv(CHILD_VARIABLE, raising=False)
    monkeypatch.delenv("NVTX_INJECTION64_PATH", raising=False)
    # No CPU mode (it has tests of its own): without a GPU the stand-in's sessions skip, with or without Triton here.
    monkeypatch.setenv("BANKCHECK_EMULATE_LIBRARY", str(tmp_path / "no-emulator-library.so"))
    pytester.makepyfile(test_session=TESTS.format(child=CHILD_VARIABLE))
    return lambda: [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_the_plugin_is_registered_by_the_wheel(pytester):
    result = pytester.runpytest_subprocess("--help")
    result.stdout.fnmatch_lines(["*bankcheck*", "*--bankcheck-baselines=DIR*", "*--bankcheck-update*"])


@pytest.mark.parametrize("nodeid, expected", [
    ("test_k.py::test_b", "test_k.py/test_b"),
    ("tests/gpu/test_k.py::TestA::test_b[64]", "tests.gpu.test_k.py/TestA::test_b[64]"),
    ("tests/test_k.py::test_b[a/b-1]", "tests.test_k.py/test_b[a/b-1]"),
    ("tests/doc.txt", "tests.doc.txt"),
])
def test_a_test_range_is_its_node_id_with_the_module_as_topic(nodeid, expected):
    assert test_range(nodeid) == expected


def test_the_run_command_takes_paths_from_where_pytest_started(tmp_path):
    options = {"baselines": "baselines", "update": True, "allow_missing": False, "output": "out/run.json"}
    command = run_command("/x/bankcheck", options, "/venv/bin/python", ["-k", "gemm", "tests"], tmp_path,
                          "pytest -k gemm tests --bankcheck-update", (3, 12))
    assert command == ["/x/bankcheck", "run", "-o", str(tmp_path / "out/run.json"), "--baselines",
                       str(tmp_path / "baselines"), "--update-baselines", "--record-command",
                       "pytest -k gemm tests --bankcheck-update", "--", "/venv/bin/python", "-P", "-m",
                       "pytest", "-k", "gemm", "tests"]
    options.update(update=False, allow_missing=True, baselines=str(tmp_path / "elsewhere"))
    command = run_command("/x/bankcheck", options, "/venv/bin/python", [], "/somewhere")
    assert command[:7] == ["/x/bankcheck", "run", "-o", "/somewhere/out/run.json", "--baselines",
                           str(tmp_path / "elsewhere"), "--allow-missing"]


def test_cpu_mode_runs_the_session_under_bankcheck_run_emulated(tmp_path):
    options = {"baselines": "baselines", "update": True, "allow_missing": False, "output": "run.json", "cpu": True}
    command = run_command("/x/bankcheck", options, "/venv/bin/python", ["tests"], tmp_path, None, (3, 12),
                          emulated=True)
    assert command[:7] == ["/x/bankcheck", "run", "-o", str(tmp_path / "run.json"), "--baselines",
                           str(tmp_path / "baselines"), "--emulated"]
    assert "--update-baselines" in command and command[-2:] == ["pytest", "tests"]


def test_cpu_mode_needs_the_emulator_library(monkeypatch, tmp_path):
    monkeypatch.setenv("BANKCHECK_EMULATE_LIBRARY", str(tmp_path / "absent.so"))
    assert "no emulator library" in cpu_mode_unavailable()


def test_the_record_command_is_the_users_pytest_command_with_update(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    pytest_script = tmp_path / "pytest"
    pytest_script.write_text("#!/bin/sh\n")
    pytest_script.chmod(0o755)
    # `pytest ARGS`: the script's name where PATH finds it, the arguments quoted for the shell.
    assert record_command(str(pytest_script), "/venv/bin/python", ["tests", "-k", "a and b"]) == \
        "pytest tests -k 'a and b' --bankcheck-update"
    assert record_command("/elsewhere/bin/pytest", "/venv/bin/python", ["--bankcheck-update"]) == \
        "/elsewhere/bin/pytest --bankcheck-update"
    # `python -m pytest ARGS` (sys.argv[0] is pytest's __main__.py).
    assert record_command("/venv/lib/site-packages/pytest/__main__.py", "/venv/bin/python",
                          ["--bankcheck-baselines=bl"]) == \
        "/venv/bin/python -m pytest --bankcheck-baselines=bl --bankcheck-update"


def test_update_without_baselines_is_a_usage_error(pytester, stand_in):
    result = pytester.runpytest_subprocess("--bankcheck-update")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--bankcheck-update needs --bankcheck-baselines DIR*"])
    assert stand_in() == []


def test_without_the_option_nothing_is_rerun(pytester, stand_in):
    result = pytester.runpytest_subprocess("test_session.py")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # run here, not by the stand-in
    assert stand_in() == []


def test_the_session_is_rerun_under_bankcheck_run(pytester, stand_in, monkeypatch):
    monkeypatch.setenv("STAND_IN_MODE", "run")
    result = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines", "--bankcheck-update",
                                           "test_session.py", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*2 passed*"])
    assert result.ret == 0
    (command,) = stand_in()
    assert command[:6] == ["run", "-o", str(pytester.path / "bankcheck-run.json"), "--baselines",
                           str(pytester.path / "baselines"), "--update-baselines"]
    separator = command.index("--")
    assert command[separator + 1:separator + 1 + len(child_command(sys.executable))] == child_command(sys.executable)
    arguments = command[separator + 1 + len(child_command(sys.executable)):]
    # The same arguments (pytester adds --basetemp first).
    assert arguments[0].startswith("--basetemp=")
    assert arguments[1:] == ["--bankcheck-baselines", "baselines", "--bankcheck-update", "test_session.py",
                             "-p", "no:cacheprovider"]
    # What a failing case's message prints to record: the command pytester typed, `python -m pytest`.
    assert command[6] == "--record-command"
    assert shlex.split(command[7]) == [shlex.split(record_command("__main__.py", sys.executable, []))[0], "-m",
                                       "pytest", *arguments]


def test_the_session_fails_when_bankcheck_run_does(pytester, stand_in, monkeypatch):
    monkeypatch.setenv("STAND_IN_MODE", "regression")
    result = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines", "test_session.py")
    result.stdout.fnmatch_lines(["*2 passed*"])
    assert result.ret == 1


def test_a_failing_test_fails_the_session(pytester, stand_in, monkeypatch):
    monkeypatch.setenv("STAND_IN_MODE", "run")
    pytester.makepyfile(test_failing="def test_wrong():\n    assert False\n")
    result = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines", "test_failing.py")
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_without_a_gpu_every_test_skips_with_the_reason(pytester, stand_in, monkeypatch):
    monkeypatch.setenv("STAND_IN_MODE", "skip")
    result = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines", "-rs", "test_session.py")
    assert result.ret == 0
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["*SKIPPED*bankcheck cannot measure here*no GPU in the stand-in*"])
    assert len(stand_in()) == 1


def test_without_a_gpu_the_session_runs_in_cpu_mode_where_triton_and_the_emulator_are(pytester, stand_in,
                                                                                       monkeypatch, tmp_path):
    pytest.importorskip("triton", reason="CPU mode needs Triton (examples/python/test_triton_cpu_gate.py runs it)")
    library = tmp_path / "libbankcheck_emulate_c.so"  # found, not loaded: the session launches nothing
    library.write_bytes(b"")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    monkeypatch.setenv("BANKCHECK_EMULATE_LIBRARY", str(library))
    monkeypatch.setenv("STAND_IN_RUN_DIR", str(run_dir))
    monkeypatch.setenv("STAND_IN_MODE", "emulate")
    result = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines", "test_session.py")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*2 passed*"])
    result.stderr.fnmatch_lines(["bankcheck: no usable GPU: CPU mode*"])
    first, second = stand_in()
    assert "--emulated" not in first and second[:7] == ["run", "-o", str(pytester.path / "bankcheck-run.json"),
                                                          "--baselines", str(pytester.path / "baselines"),
                                                          "--emulated", "--record-command"]
    (written,) = run_dir.glob("process-*.launches.json")
    assert json.loads(written.read_text()) == {"launches": []}
    # --bankcheck-cpu: CPU mode at once, where a GPU may be usable.
    result = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines", "--bankcheck-cpu", "test_session.py")
    assert result.ret == 0 and "--emulated" in stand_in()[2] and len(stand_in()) == 3


def test_without_a_gpu_the_session_fails_when_one_is_required(pytester, stand_in, monkeypatch):
    monkeypatch.setenv("STAND_IN_MODE", "require")
    result = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines", "test_session.py")
    assert result.ret == 1
    result.stderr.fnmatch_lines(["*BANKCHECK_REQUIRE_GPU=1*"])
    result.stdout.no_fnmatch_line("*passed*")


def test_a_child_outside_bankcheck_run_is_refused(pytester, stand_in, monkeypatch):
    monkeypatch.setenv(CHILD_VARIABLE, "1")
    result = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines", "test_session.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*NVTX_INJECTION64_PATH is not set*"])
    assert stand_in() == []


# A module of the folder pytest starts in, which the re-run must not import: it leaves a mark and ends
# the process.
PLANTED = """\
import pathlib
pathlib.Path({mark!r}).write_text("the planted {name}.py ran")
raise SystemExit(3)
"""


def plant(folder, mark):
    for name in ("pytest", "bankcheck"):
        (folder / f"{name}.py").write_text(PLANTED.format(mark=str(mark), name=name))


def test_the_rerun_imports_no_module_of_the_folder_pytest_starts_in(pytester, stand_in, monkeypatch, tmp_path):
    monkeypatch.setenv("STAND_IN_MODE", "run")
    mark = tmp_path / "planted-ran"
    plant(pytester.path, mark)
    # Started as the user's `pytest` (its folder, not the current one, on sys.path), from that folder
    # (not through pytester, which puts that folder on PYTHONPATH).
    user_pytest = Path(sys.executable).with_name("pytest")
    if not user_pytest.is_file():
        user_pytest = Path(shutil.which("pytest"))
    result = subprocess.run([str(user_pytest), "--bankcheck-baselines", "baselines", "test_session.py",
                             "-p", "no:cacheprovider"], cwd=pytester.path, capture_output=True, text=True)
    assert not mark.exists(), mark.read_text()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
    (command,) = stand_in()
    # The same interpreter, named through either of the venv's links (python, python3).
    child = command[command.index("--") + 1:][:4]
    expected = child_command(sys.executable)
    assert [os.path.realpath(child[0])] + child[1:] == [os.path.realpath(expected[0])] + expected[1:]


@pytest.mark.parametrize("version_info", [(3, 10), sys.version_info[:2]], ids=["python<3.11", "this-python"])
def test_the_child_command_leaves_the_current_folder_off_sys_path(pytester, tmp_path, version_info):
    mark = tmp_path / "planted-ran"
    plant(pytester.path, mark)
    environment = dict(os.environ, **{CHILD_VARIABLE: "1"})
    arguments = ["test_session.py", "-p", "no:cacheprovider"]
    pytester.makepyfile(test_session=TESTS.format(child=CHILD_VARIABLE))
    # What the plant does where the folder is on sys.path: `python -m pytest` runs it.
    plain = subprocess.run([sys.executable, "-m", "pytest", *arguments], cwd=pytester.path, env=environment)
    assert plain.returncode == 3 and mark.exists()
    mark.unlink()
    child = subprocess.run([*child_command(sys.executable, version_info), *arguments], cwd=pytester.path,
                           env=environment, capture_output=True, text=True)
    assert not mark.exists(), mark.read_text()
    assert child.returncode == 0, child.stdout + child.stderr
    assert "2 passed" in child.stdout


def test_without_the_cuda_libraries_the_session_skips_naming_the_cuda_extra(pytester, monkeypatch, tmp_path):
    # The wheel's injection library with its CUPTI dependency renamed to one that no machine has, as
    # where neither the `cuda` extra nor the toolkit is installed; run by the wheel's own command.
    library = tmp_path / "libbankcheck_inject.so"
    library.write_bytes(re.sub(rb"libcupti\.so\.(\d+)\0", lambda m: b"libcupti.so." + b"X" * len(m.group(1)) + b"\0",
                               (LIBRARY_DIR / "libbankcheck_inject.so").read_bytes()))
    assert b"libcupti.so.X" in library.read_bytes()
    monkeypatch.setenv("BANKCHECK_INJECTION_LIBRARY", str(library))
    for name in ("BANKCHECK", CHILD_VARIABLE, "BANKCHECK_REQUIRE_GPU"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_session=TESTS.format(child=CHILD_VARIABLE))
    result = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines", "-rs", "test_session.py")
    assert result.ret == 0, "\n".join(result.outlines + result.errlines)
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["*SKIPPED*bankcheck cannot measure here*the CUDA libraries cannot be loaded*"
                                 "libcupti.so.X*pip install 'bankcheck[[]cuda]'*"])
    monkeypatch.setenv("BANKCHECK_REQUIRE_GPU", "1")
    result = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines", "test_session.py")
    assert result.ret == 1
    result.stderr.fnmatch_lines(["*bankcheck: error: run: the CUDA libraries cannot be loaded*bankcheck[[]cuda]*"])
    result.stdout.no_fnmatch_line("*passed*")


# GPU: the wheel's own command measures a test that launches a torch kernel; each case is named by
# its test's range. Skipped with the reason without a usable GPU (the session's tests skipped), or
# without torch.
GPU_TESTS = """\
import pytest

def test_scale():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    x = torch.arange(1024, dtype=torch.float32, device="cuda")
    assert (x * 2).sum().item() == 1023 * 1024
"""


def test_each_launch_of_a_test_is_a_case_named_by_its_test(pytester, monkeypatch):
    monkeypatch.delenv("BANKCHECK", raising=False)
    monkeypatch.delenv(CHILD_VARIABLE, raising=False)
    pytester.makepyfile(test_gpu=GPU_TESTS)
    result = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines", "--bankcheck-update", "-rs")
    output = "\n".join(result.outlines + result.errlines)
    assert result.ret == 0, output
    if result.parseoutcomes().get("skipped") == 1:
        reason = next(line for line in result.outlines if "SKIPPED" in line)
        pytest.skip(reason.split(": ", 1)[-1].strip())
    results = json.loads((pytester.path / "bankcheck-run.json").read_text())
    cases = results["cases"]
    assert cases and all(name.startswith("test_gpu.py/test_scale/") for name in cases), sorted(cases)
    assert (pytester.path / "baselines" / results["metadata"]["arch"] / "test_gpu.py.json").is_file()
    again = pytester.runpytest_subprocess("--bankcheck-baselines", "baselines")
    assert again.ret == 0, "\n".join(again.outlines + again.errlines)
    assert json.loads((pytester.path / "bankcheck-run.json").read_text())["cases"].keys() == cases.keys()


def test_a_pytest_older_than_the_minimum_gets_a_clear_error(tmp_path):
    # A pytest without the stash (before 7.0), first on the path: the plugin's import says which
    # pytest it needs and how to get it, rather than failing on a missing attribute.
    (tmp_path / "pytest.py").write_text("__version__ = '6.2.5'\n")
    result = subprocess.run([sys.executable, "-c", "import bankcheck.pytest_plugin"], cwd=tmp_path,
                            env=dict(os.environ, PYTHONPATH=str(tmp_path)), capture_output=True, text=True)
    assert result.returncode != 0
    assert "needs pytest 7.0 or newer, and this is pytest 6.2.5" in result.stderr
    assert "pip install 'bankcheck[pytest]'" in result.stderr
