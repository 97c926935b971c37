#!/usr/bin/env python3
"""The layers check (docs/architecture.md, "Layers"): fails, naming each file, when

  - a source file under framework/ (tests included) is over 500 lines;
  - a file of the core (framework/core, and the public headers its CMakeLists.txt installs)
    includes anything of CUDA or CUPTI (<cuda*.h>, <cupti*.h>, <nvtx3/...>, <nvToolsExt*.h>), or a
    header of a layer built on it: another layer's internals ("cuda/...", "suite/...", ...) or
    another layer's public header ("bankcheck/gpu_probe.h", as the layers' CMakeLists.txt declare
    them with bankcheck_public_headers);
  - a file of the CLI (framework/cli) includes CUDA or CUPTI, or a header of a layer other than the
    core and itself: the CLI needs only the core;
  - a file that is not a test (*_test.*) includes gtest/gtest-spi.h, GoogleTest's API for testing
    itself, except framework/testing/held_results.cc, the one seam over it (held_results.h).

    ci/checks/layers.py [ROOT]   ROOT: the repository (default: the one this script is in)

Exit 0 when every rule holds, 1 naming each file that breaks one, 2 on a usage error.
"""

import os
import re
import sys

MAX_LINES = 500
SPI = "gtest/gtest-spi.h"
SPI_SEAM = os.path.join("framework", "testing", "held_results.cc")
SOURCE_EXTENSIONS = {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh", ".py", ".sh"}
# Data the tests read (generated fixtures, fuzzing corpora) is not source.
DATA_FOLDERS = {"testdata", "fuzz_corpus"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
PUBLIC_HEADERS = re.compile(r"bankcheck_public_headers\(\s*bankcheck_(\w+)([^)]*)\)", re.S)
# System headers of CUDA and CUPTI (and NVTX, which ships with them).
CUDA_HEADER = re.compile(r"^(cuda|cupti|nvtx3/|nvToolsExt|cudaProfiler|crt/)")


def sources(framework):
    for folder, folders, files in os.walk(framework):
        folders[:] = sorted(f for f in folders if f not in DATA_FOLDERS)
        for name in sorted(files):
            if os.path.splitext(name)[1] in SOURCE_EXTENSIONS:
                yield os.path.join(folder, name)


def public_headers(framework):
    """{header name under include/bankcheck/: its layer}, from the layers' CMakeLists.txt."""
    owners = {}
    for layer in sorted(os.listdir(framework)):
        path = os.path.join(framework, layer, "CMakeLists.txt")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"#[^\n]*", "", f.read())
        for match in PUBLIC_HEADERS.finditer(text):
            for header in match.group(2).split():
                owners[header] = layer
    return owners


def layer_of(path, framework, owners):
    """The layer a file belongs to: its folder under framework/, or for a public header its owner's."""
    parts = os.path.relpath(path, framework).split(os.sep)
    if parts[:2] == ["include", "bankcheck"] and len(parts) == 3:
        return owners.get(parts[2])
    return parts[0] if len(parts) > 1 else None


def include_problem(layer, bracket, name, owners, layers):
    """Why `layer` may not include `name`; None when it may."""
    if CUDA_HEADER.match(name) and (bracket == "<" or "/" not in name):
        return "knows nothing of CUDA or CUPTI"
    first = name.split("/")[0]
    if bracket == '"' and first in layers and first != layer and first != "core":
        return "may not use the internals of the %s layer, which builds on it" % first
    if name.startswith("bankcheck/"):
        owner = owners.get(name[len("bankcheck/"):])
        if owner is not None and owner not in (layer, "core"):
            return "may not use the %s layer's public header, which builds on it" % owner
    return None


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    root = argv[1] if len(argv) == 2 else os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    framework = os.path.join(root, "framework")
    if not os.path.isdir(framework):
        print("layers.py: no framework/ folder in %s" % root, file=sys.stderr)
        return 2
    owners = public_headers(framework)
    layers = {d for d in os.listdir(framework) if os.path.isdir(os.path.join(framework, d))} - {"include"}
    problems = []
    checked = 0
    for path in sources(framework):
        checked += 1
        shown = os.path.relpath(path, root)
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        if len(lines) > MAX_LINES:
            problems.append("%s: %d lines, over %d: split it by theme" % (shown, len(lines), MAX_LINES))
        layer = layer_of(path, framework, owners)
        is_test = os.path.splitext(os.path.basename(path))[0].endswith("_test")
        for number, line in enumerate(lines, 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            if match.group(2) == SPI and not is_test and shown != SPI_SEAM:
                problems.append("%s:%d: includes <%s>: only tests may, or %s (testing/internal/held_results.h)"
                                % (shown, number, SPI, SPI_SEAM))
                continue
            if layer not in ("core", "cli"):
                continue
            why = include_problem(layer, match.group(1), match.group(2), owners, layers)
            if why:
                problems.append("%s:%d: includes %s%s%s: framework/%s %s" % (
                    shown, number, match.group(1), match.group(2), ">" if match.group(1) == "<" else '"',
                    layer, why))
    for problem in problems:
        print(problem)
    if problems:
        print("layers: %d problem(s) in %d source files (docs/architecture.md, \"Layers\")" % (
            len(problems), checked))
        return 1
    print("layers: %d source files under framework/, none over %d lines; the core and the CLI include "
          "no layer above them; gtest-spi only in tests" % (checked, MAX_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
