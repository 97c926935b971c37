"""bankcheck's pytest plugin (docs/python.md), registered by the wheel (entry point pytest11):

    pytest --bankcheck-baselines DIR                    # each test's launches checked against DIR
    pytest --bankcheck-baselines DIR --bankcheck-update # recorded into DIR

Every kernel launch of a test becomes a case named `<test range>/<NVTX ranges>/<kernel>`, the test
range being the test's node id with its module's path as the topic (test_range() below), and the
session's exit status says whether every case matches its baseline, as `bankcheck run` decides it
(the suite's one verdict: nothing of it is done here).

How: the pytest that is given --bankcheck-baselines (the parent) runs the same pytest command again
as `bankcheck run --baselines DIR -- python -P -m pytest ARGS` (the child) and exits with its status.
Re-running the session is what works whatever the tests import: the CUDA driver reads
CUDA_INJECTION64_PATH once, when it initializes, and a conftest.py that imports torch may already
have initialized it (torch.cuda.is_available() does) before any hook of this plugin runs in that
process; and the processes' measurements are complete, and compared with the baselines, only once
the measured process has ended, which a process cannot wait for itself. The child, which runs
under the injection (BANKCHECK_PYTEST_CHILD=1), pushes an NVTX range named after each test around
its setup, call and teardown, through libbankcheck_nvtx.so (NVTX's C API, ctypes; no torch needed).

The child imports what the user's pytest imports: `python -m pytest` would put the folder pytest
started in first on sys.path (plain `pytest` does not), so that a `pytest.py` or any module planted
there would run in the measured session; Python's -P (3.11) leaves it out, and on older Pythons the
child is started with -c and code that removes the entry -c puts there (child_command()).

Without a usable GPU, or without the CUDA libraries (CUPTI, the runtime: the `cuda` extra),
`bankcheck run` exits 77 without running the child (with BANKCHECK_REQUIRE_GPU=1, set on GPU runners,
it fails instead, and so does the session). The parent then runs the child in CPU mode where it can
(bankcheck.triton_cpu: Triton installed, the emulator's library present), under `bankcheck run
--emulated`, which checks and records the emulated launches as it does measured ones: the child's
Triton launches are compiled for sm_90 and run in the emulator, each written to BANKCHECK_RUN_DIR
when the session ends. Where it cannot, the parent runs the session itself with every test skipped,
bankcheck's reason given. --bankcheck-cpu asks for CPU mode where a GPU is usable too.

Where a case fails, `bankcheck run` prints how to record its new values: the command the user
typed with --bankcheck-update (record_command()), passed to it as --record-command.
"""

from __future__ import annotations

import collections
import ctypes
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Generator, Sequence, TypedDict

import pytest

from . import command as bankcheck_command
from . import emulator, triton_cpu

# Set by `bankcheck run --emulated` for the program it runs: launches are emulated (CPU mode).
EMULATED_VARIABLE = "BANKCHECK_RUN_EMULATED"

# The oldest pytest the plugin runs on (pyproject.toml's `pytest` extra, ci/jobs/wheel.sh tests it): the
# stash (pytest.StashKey) came in 7.0. A clear error rather than an AttributeError in the middle of
# the plugin's import.
MINIMUM_PYTEST = "7.0"
if not hasattr(pytest, "StashKey"):
    raise ImportError(f"bankcheck's pytest plugin needs pytest {MINIMUM_PYTEST} or newer, and this is pytest "
                      f"{pytest.__version__}: pip install 'bankcheck[pytest]' (or 'pytest>={MINIMUM_PYTEST}')")

# Set by the parent for the pytest it runs under `bankcheck run`.
CHILD_VARIABLE = "BANKCHECK_PYTEST_CHILD"
# `bankcheck run`'s exit status when no usable GPU is found (the program is not run).
EXIT_SKIPPED = 77
# libbankcheck_nvtx.so, beside the injection library that `bankcheck run` names in NVTX_INJECTION64_PATH.
NVTX_LIBRARY = "libbankcheck_nvtx.so"


class Options(TypedDict):
    """The plugin's command-line options, as run_command() takes them."""
    baselines: str | None
    update: bool
    allow_missing: bool
    output: str
    cpu: bool


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("bankcheck", "bankcheck: bank conflicts of each test's kernel launches")
    group.addoption("--bankcheck-baselines", metavar="DIR", default=None,
                    help="run the session under `bankcheck run` and check each test's kernel launches "
                         "against DIR/<arch>/<topic>.json (the session fails when a case differs or has "
                         "no baseline); without a usable GPU every test skips")
    group.addoption("--bankcheck-update", action="store_true", default=False,
                    help="record the measured launches into --bankcheck-baselines DIR first")
    group.addoption("--bankcheck-allow-missing", action="store_true", default=False,
                    help="a case without a baseline passes (its verdict stays 'missing')")
    group.addoption("--bankcheck-output", metavar="FILE", default="bankcheck-run.json",
                    help="the results file `bankcheck run` writes (default bankcheck-run.json)")
    group.addoption("--bankcheck-cpu", action="store_true", default=False,
                    help="CPU mode even where a GPU is usable: Triton's launches compiled for sm_90 and run in "
                         "bankcheck's emulator (where no GPU is usable, CPU mode is the default)")


def test_range(nodeid: str) -> str:
    """The NVTX range pushed around a test: its node id, its module's path with '.' for '/', then
    '/' and the rest, so that the module is the cases' topic (one baseline file per test module):
    "tests/gpu/test_k.py::TestA::test_b[64]" -> "tests.gpu.test_k.py/TestA::test_b[64]"."""
    path, separator, rest = nodeid.partition("::")
    module = path.replace("/", ".")
    return f"{module}/{rest}" if separator else module


# pytest collects functions named test_*: this one is the plugin's, not a test.
test_range.__test__ = False  # type: ignore[attr-defined]


# The child's main on Pythons without -P: -c puts '' (the current folder) first on sys.path, removed
# before pytest is imported.
CHILD_MAIN = ("import sys\n"
              "if sys.path[:1] == ['']: del sys.path[0]\n"
              "import pytest\n"
              "sys.exit(getattr(pytest, 'console_main', pytest.main)())")


def child_command(python: str | os.PathLike[str],
                  version_info: tuple[int, ...] = tuple(sys.version_info[:2])) -> list[str]:
    """How the child starts pytest so that it imports what the user's pytest imports: never a module
    of the folder it starts in."""
    if tuple(version_info) >= (3, 11):
        return [str(python), "-P", "-m", "pytest"]
    return [str(python), "-c", CHILD_MAIN]


def _shortest(path: str) -> str:
    """PATH's last part where that finds the same file on PATH, else PATH itself."""
    name = os.path.basename(path)
    found = shutil.which(name)
    return name if found and os.path.abspath(found) == os.path.abspath(path) else str(path)


def record_command(argv0: str, python: str, pytest_args: Sequence[str]) -> str:
    """The pytest command the user typed (`pytest ARGS` or `python -m pytest ARGS`, ARGS as given)
    with --bankcheck-update, as a shell line: what the messages of a failing case print to record."""
    if os.path.basename(argv0) == "__main__.py":
        words = [_shortest(python), "-m", "pytest"]
    else:
        words = [_shortest(argv0)]
    words += pytest_args
    if "--bankcheck-update" not in pytest_args:
        words.append("--bankcheck-update")
    return shlex.join(words)


def run_command(executable: str, options: Options, python: str, pytest_args: Sequence[str],
                invocation_dir: str | os.PathLike[str], record: str | None = None,
                version_info: tuple[int, ...] = tuple(sys.version_info[:2]), emulated: bool = False) -> list[str]:
    """The `bankcheck run` command line that runs this pytest session again under the injection
    (`emulated`: in CPU mode, under `bankcheck run --emulated`). DIR and FILE are taken relative to
    the folder pytest was started in; `record` is the command the messages print to record
    baselines (record_command())."""
    if not options["baselines"]:
        raise ValueError("run_command: no baselines folder (--bankcheck-baselines) given")
    folder = Path(invocation_dir)
    command = [str(executable), "run", "-o", str(folder / options["output"]),
               "--baselines", str(folder / options["baselines"])]
    if emulated:
        command.append("--emulated")
    if options["update"]:
        command.append("--update-baselines")
    if options["allow_missing"]:
        command.append("--allow-missing")
    if record:
        command += ["--record-command", record]
    return command + ["--", *child_command(python, version_info), *pytest_args]


def _options(config: pytest.Config) -> Options:
    return {
        "baselines": config.getoption("bankcheck_baselines"),
        "update": config.getoption("bankcheck_update"),
        "allow_missing": config.getoption("bankcheck_allow_missing"),
        "output": config.getoption("bankcheck_output"),
        "cpu": config.getoption("bankcheck_cpu"),
    }


def cpu_mode_unavailable() -> str | None:
    """Why this Python cannot run CPU mode (bankcheck.triton_cpu); None when it can."""
    library = emulator.library_path()
    if library is None or not Path(library).is_file():
        return (f"no emulator library ({library or emulator.PACKAGED_LIBRARY}; BANKCHECK_EMULATE_LIBRARY names a "
                "build's)")
    if importlib.util.find_spec("triton") is None:
        return "Triton is not installed"
    return None


def _run_child(command: Sequence[str], invocation_dir: str | os.PathLike[str]) -> tuple[int, str]:
    """Runs `bankcheck run` with stderr passed through; (exit status, the reason it gave when it
    skipped)."""
    environment = dict(os.environ, **{CHILD_VARIABLE: "1"})
    process = subprocess.Popen(command, cwd=invocation_dir, env=environment, stderr=subprocess.PIPE,
                               text=True, errors="replace")
    last_lines: collections.deque[str] = collections.deque(maxlen=20)
    if process.stderr is None:  # not reached: stderr=PIPE
        raise RuntimeError("bankcheck run's stderr was not captured")
    try:
        for line in process.stderr:
            sys.stderr.write(line)
            sys.stderr.flush()
            last_lines.append(line.rstrip("\n"))
    finally:
        status = process.wait()
    reasons = [line for line in last_lines if line.startswith("bankcheck: skipped:")]
    reason = reasons[-1] if reasons else " ".join(list(last_lines)[-3:])
    return status, reason


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    options = _options(config)
    if options["update"] and not options["baselines"]:
        raise pytest.UsageError("--bankcheck-update needs --bankcheck-baselines DIR, the folder to record into")
    if options["allow_missing"] and not options["baselines"]:
        raise pytest.UsageError("--bankcheck-allow-missing needs --bankcheck-baselines DIR")
    if options["cpu"] and not options["baselines"]:
        raise pytest.UsageError("--bankcheck-cpu needs --bankcheck-baselines DIR")
    if (not options["baselines"] or os.environ.get(CHILD_VARIABLE) == "1"
            or getattr(config.option, "help", False) or getattr(config.option, "version", False)):
        return None
    executable = bankcheck_command()
    if not executable:
        raise pytest.UsageError("--bankcheck-baselines: no bankcheck command: install the wheel "
                                "(pip install bankcheck), put bankcheck on PATH or set BANKCHECK")
    invocation = config.invocation_params
    arguments = list(invocation.args)
    record = record_command(sys.argv[0], sys.executable, arguments)
    unavailable = cpu_mode_unavailable()
    if options["cpu"] and unavailable:
        raise pytest.UsageError(f"--bankcheck-cpu: CPU mode cannot run here: {unavailable}")
    if not options["cpu"]:
        command = run_command(executable, options, sys.executable, arguments, invocation.dir, record)
        status, reason = _run_child(command, invocation.dir)
        if status != EXIT_SKIPPED:
            return status
        if unavailable:
            # Nothing can be measured here (no usable GPU, or no CUDA libraries), nor emulated: this
            # process runs the session, every test skipped with bankcheck's reason.
            config.stash[_SKIP_REASON] = (f"bankcheck cannot measure here (bankcheck run exited with 77): {reason}; "
                                          f"nor emulate (CPU mode): {unavailable}")
            return None
        sys.stderr.write("bankcheck: no usable GPU: CPU mode: each Triton launch compiled for sm_90 and run in "
                         "bankcheck's emulator (docs/python.md)\n")
    command = run_command(executable, options, sys.executable, arguments, invocation.dir, record, emulated=True)
    status, reason = _run_child(command, invocation.dir)
    if status != EXIT_SKIPPED:
        return status
    config.stash[_SKIP_REASON] = f"bankcheck cannot emulate here (bankcheck run --emulated exited with 77): {reason}"
    return None


_SKIP_REASON = pytest.StashKey[str]()
_RANGES = pytest.StashKey["NvtxRanges | triton_cpu.EmulatedLaunches"]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = config.stash.get(_SKIP_REASON, None)
    if reason is not None:
        for item in items:
            item.add_marker(pytest.mark.skip(reason=reason))


class NvtxRanges:
    """NVTX push/pop through libbankcheck_nvtx.so, found beside the injection library."""

    def __init__(self, injection_library: str) -> None:
        library = Path(injection_library).with_name(NVTX_LIBRARY)
        try:
            self._library = ctypes.CDLL(str(library))
        except OSError as error:
            raise pytest.UsageError(f"bankcheck: cannot load {library} ({error}): it comes with the "
                                    f"injection library {injection_library}; reinstall bankcheck") from error
        self._library.bankcheck_range_push.argtypes = [ctypes.c_char_p]
        self._library.bankcheck_range_push.restype = ctypes.c_int
        self._library.bankcheck_range_pop.restype = ctypes.c_int

    def push(self, name: str) -> None:
        self._library.bankcheck_range_push(name.encode("utf-8", "replace"))

    def pop(self) -> None:
        self._library.bankcheck_range_pop()


def _measuring(config: pytest.Config) -> bool:
    return bool(config.getoption("bankcheck_baselines")) and os.environ.get(CHILD_VARIABLE) == "1"


def _emulating(config: pytest.Config) -> bool:
    return _measuring(config) and os.environ.get(EMULATED_VARIABLE) == "1"


def pytest_configure(config: pytest.Config) -> None:
    if not _measuring(config):
        return
    if _emulating(config):
        if not os.environ.get("BANKCHECK_RUN_DIR"):
            raise pytest.UsageError(f"bankcheck: {EMULATED_VARIABLE}=1 but BANKCHECK_RUN_DIR is not set: this session "
                                    "must run under `bankcheck run --emulated` (give --bankcheck-baselines)")
        launches = triton_cpu.EmulatedLaunches()
        # Source lines named relative to the rootdir, as the node ids (and so the case names) are.
        triton_cpu.install(launches, source_root=str(config.rootpath))
        config.stash[_RANGES] = launches
        return
    injection = os.environ.get("NVTX_INJECTION64_PATH")
    if not injection:
        raise pytest.UsageError(f"bankcheck: {CHILD_VARIABLE}=1 but NVTX_INJECTION64_PATH is not set: this "
                                "session must run under `bankcheck run` (give --bankcheck-baselines, "
                                f"without {CHILD_VARIABLE})")
    config.stash[_RANGES] = NvtxRanges(injection)


def pytest_unconfigure(config: pytest.Config) -> None:
    launches = config.stash.get(_RANGES, None)
    if isinstance(launches, triton_cpu.EmulatedLaunches):
        launches.write(os.environ["BANKCHECK_RUN_DIR"])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    ranges = item.config.stash.get(_RANGES, None)
    if ranges is None:
        yield
        return
    if isinstance(ranges, triton_cpu.EmulatedLaunches):
        ranges.not_computed = ""
    # Setup, call and teardown: a fixture's launches are the test's too.
    ranges.push(test_range(item.nodeid))
    try:
        yield
    finally:
        ranges.pop()


def _test_line(item: pytest.Item, call: pytest.CallInfo[None]) -> int:
    """The line (1-based) of the test's own file where its call stopped: the launch, the assert."""
    entries = [entry for entry in call.excinfo.traceback if Path(entry.path) == item.path] if call.excinfo else []
    return entries[-1].lineno + 1 if entries else (item.location[1] or 0) + 1


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """CPU mode: a test that fails after a launch whose outputs the emulator did not compute is
    reported as skipped, saying why, as the C++ emulated suites report such a check: the kernel did
    not run, so what the test checks of its outputs is not evaluated (its counts are still a case).
    A skip for an undecided launch names the test's line of the launch, not bankcheck's."""
    outcome = yield
    launches = item.config.stash.get(_RANGES, None)
    if not isinstance(launches, triton_cpu.EmulatedLaunches):
        return
    report = outcome.get_result()
    if report.when != "call":
        return
    if report.failed and launches.not_computed:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), _test_line(item, call),
                           f"Skipped: bankcheck: emulated: the kernel did not run, its output is not checked: "
                           f"{launches.not_computed}")
    elif report.skipped and isinstance(report.longrepr, tuple) and triton_cpu.SKIP_PREFIX in report.longrepr[2]:
        report.longrepr = (str(item.path), _test_line(item, call), report.longrepr[2])


@pytest.fixture
def bankcheck_test_range(request: pytest.FixtureRequest) -> str:
    """The NVTX range this test's launches are named under (test_range()): the start of its cases'
    names, e.g. for `bankcheck report --case`."""
    return test_range(request.node.nodeid)
