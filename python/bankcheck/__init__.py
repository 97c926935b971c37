"""bankcheck for Python (docs/python.md): the `bankcheck` command and its injection library, from
the wheel, a pytest plugin (bankcheck.pytest_plugin) that measures each test's kernel launches
and checks them against baselines, and the GPU-less emulator over a cubin (bankcheck.emulator)."""

from __future__ import annotations

import os
import shutil
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("bankcheck")
except PackageNotFoundError:  # imported from the source tree (PYTHONPATH=python), not installed
    __version__ = "unknown"

# The wheel's command: CMake installs it into the package's folder (pyproject.toml), with the
# libraries it loads in lib/ beside bin/, where the command itself looks for them.
PACKAGED_COMMAND = Path(__file__).resolve().parent / "bin" / "bankcheck"


def command() -> str | None:
    """The bankcheck command to run: $BANKCHECK when set (a build's `build/bin/bankcheck`), else the
    wheel's own, else `bankcheck` on PATH; None when there is none."""
    chosen = os.environ.get("BANKCHECK")
    if chosen:
        return chosen
    if PACKAGED_COMMAND.is_file():
        return str(PACKAGED_COMMAND)
    return shutil.which("bankcheck")
