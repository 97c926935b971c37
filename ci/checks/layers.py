#!/usr/bin/env python3
"""The layers check (docs/architecture.md, "Layers"): fails, naming each file and line, when

  - a source file under framework/ (tests included) is over 500 lines;
  - a file of a layer includes a header of a layer it does not build on (NEEDS below): a public
    header ("bankcheck/cuda/gpu_probe.h") or a source-tree one ("suite/internal/case_runner.h");
  - a file includes another layer's non-public header (its internal/ folder, or any header in its
    folder), except where INTERNALS below lets it, saying why;
  - a file outside the core includes a core internal/ header ("core/reports/internal/markdown.h"):
    the rest of bankcheck uses the headers at the top of the core's rooms ("core/platform/file_io.h")
    and the core's public headers;
  - a public header (framework/include/bankcheck/, installed) includes a header that is not
    installed: only "bankcheck/..." headers;
  - a file of the core, the CLI or the emulator (and their public headers) includes anything of
    CUDA or CUPTI (<cuda*.h>, <cupti*.h>, <nvtx3/...>, <nvToolsExt*.h>): they build without the
    toolkit;
  - a file of a layer that is installed compiled (or of the CLI) that is not a test includes
    GoogleTest or gMock: GoogleTest keeps no ABI between versions (only testing/ and suite/ are
    built from source in a consumer's build);
  - a file that is not a test (*_test.*) includes gtest/gtest-spi.h, GoogleTest's API for testing
    itself, except framework/testing/held_results.cc, the one seam over it (held_results.h).

A layer is a folder under framework/ (framework/emulate/conformance, the emulator's conformance
programs, is one of its own); a public header framework/include/bankcheck/<layer>/ belongs to
<layer>, bankcheck/bankcheck.h to testing. A test is a file named *_test.*, *test_support*,
*_fixture.*, one of TEST_HELPERS, or any file of a layer in TEST_LAYERS.

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
INCLUDE_EXTENSIONS = {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh"}
# Data the tests read (generated fixtures, fuzzing corpora) is not source.
DATA_FOLDERS = {"testdata", "fuzz_corpus"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# System headers of CUDA and CUPTI (and NVTX, which ships with them).
CUDA_HEADER = re.compile(r"^(cuda|cupti|nvtx3/|nvToolsExt|cudaProfiler|crt/)")
GTEST_HEADER = re.compile(r"^(gtest|gmock)/")

# Each layer and the layers it builds on (what it may include of them: their public headers, and
# the core's rooms' top-level headers); from the bottom up, as docs/architecture.md draws them.
NEEDS = {
    "core": [],
    "emulate": ["core"],
    "cli": ["core"],
    "cuda": ["core"],
    "emulated_runtime": ["emulate", "core"],
    "testing": ["cuda", "core"],
    "suite": ["testing", "cuda", "core"],
    "inject": ["cuda", "core"],
    "emulate/conformance": ["emulated_runtime", "emulate", "core"],
}
# What a layer's tests may include besides: the GPU tests of the counter session and of the emulated
# runtime measure through the testing layer, as a user's tests do.
TEST_NEEDS = {
    "cuda": ["testing"],
    "emulated_runtime": ["testing", "cuda"],
}
# The layers whose non-public headers a layer may include, and why; nothing else reaches into
# another layer's folder.
INTERNALS = {
    # The stand-in runtime hands each launch to the evaluator's parts (its memory, cluster shape,
    # tensor maps, limits): it is the emulator's other half, a target of its own since it takes
    # cudart's place.
    "emulated_runtime": ["emulate"],
    # The conformance programs check the evaluator's forms one by one and replay captured launches.
    "emulate/conformance": ["emulate", "emulated_runtime"],
    # A case's records are made as the counter session makes them (launch_records.h), its results
    # held back through the testing layer's one seam over GoogleTest (held_results.h).
    "suite": ["testing", "cuda"],
    # The injection library is the counter session's launch observer in the measured process.
    "inject": ["cuda"],
}
NO_CUDA = {"core", "cli", "emulate"}
# Layers installed compiled (and the CLI): no GoogleTest outside their tests.
NO_GTEST = {"core", "cuda", "emulate", "emulated_runtime", "inject", "cli"}
TEST_LAYERS = {"emulate/conformance"}
TEST_HELPERS = {os.path.join("framework", "emulated_runtime", "measured_answers.h")}


def sources(framework):
    for folder, folders, files in os.walk(framework):
        folders[:] = sorted(f for f in folders if f not in DATA_FOLDERS)
        for name in sorted(files):
            if os.path.splitext(name)[1] in SOURCE_EXTENSIONS:
                yield os.path.join(folder, name)


def layer_of(path, framework):
    """The layer a file belongs to (a key of NEEDS), or None (framework/ci, unknown folders)."""
    parts = os.path.relpath(path, framework).split(os.sep)
    if parts[:2] == ["include", "bankcheck"]:
        return parts[2] if len(parts) == 4 and parts[2] in NEEDS else ("testing" if len(parts) == 3 else None)
    if len(parts) > 2 and "/".join(parts[:2]) in NEEDS:
        return "/".join(parts[:2])
    return parts[0] if len(parts) > 1 and parts[0] in NEEDS else None


def is_test(shown, layer):
    name = os.path.basename(shown)
    stem = os.path.splitext(name)[0]
    return (stem.endswith("_test") or "test_support" in stem or stem.endswith("_fixture")
            or shown in TEST_HELPERS or layer in TEST_LAYERS)


def target_layer(name):
    """The layer a quoted include names: "bankcheck/<layer>/..." or "<layer folder>/..."."""
    parts = name.split("/")
    if parts[0] == "bankcheck":
        if len(parts) == 2:
            return "testing" if parts[1] == "bankcheck.h" else None
        return parts[1] if parts[1] in NEEDS else None
    if len(parts) > 2 and "/".join(parts[:2]) in NEEDS:
        return "/".join(parts[:2])
    return parts[0] if parts[0] in NEEDS else None


def include_problem(layer, public, test, bracket, name):
    """Why a file of `layer` may not include `name`; None when it may."""
    if CUDA_HEADER.match(name) and (bracket == "<" or "/" not in name):
        return "knows nothing of CUDA or CUPTI" if layer in NO_CUDA else None
    if bracket == "<" or "/" not in name:
        if GTEST_HEADER.match(name) and layer in NO_GTEST and not test:
            return "is installed compiled (or is the CLI): only its tests include GoogleTest"
        return None
    target = target_layer(name)
    if public and not name.startswith("bankcheck/"):
        return "is a public header: it may include only installed headers (\"bankcheck/...\")"
    if target is None or target == layer:
        return None
    needs = NEEDS[layer] + (TEST_NEEDS.get(layer, []) if test else [])
    if target not in needs:
        return "may not use the %s layer: it builds on %s" % (target, ", ".join(NEEDS[layer]) or "nothing")
    if name.startswith("bankcheck/") or target == "core" and "/internal/" not in name:
        return None
    if target == "core":
        return "may not use the core's internal/ headers: the top of a core room's folder holds what other layers use"
    if target in INTERNALS.get(layer, []):
        return None
    return "may not use the %s layer's non-public headers: only bankcheck/%s/..." % (target, target)


def check_file(path, framework, root, problems):
    shown = os.path.relpath(path, root)
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    if len(lines) > MAX_LINES:
        problems.append("%s: %d lines, over %d: split it by theme" % (shown, len(lines), MAX_LINES))
    if os.path.splitext(path)[1] not in INCLUDE_EXTENSIONS:
        return
    layer = layer_of(path, framework)
    public = os.path.relpath(path, framework).startswith(os.path.join("include", ""))
    test = is_test(shown, layer)
    for number, line in enumerate(lines, 1):
        match = INCLUDE.match(line)
        if not match:
            continue
        bracket, name = match.group(1), match.group(2)
        if name == SPI and not os.path.splitext(os.path.basename(path))[0].endswith("_test") and shown != SPI_SEAM:
            problems.append("%s:%d: includes <%s>: only tests may, or %s (testing/internal/held_results.h)"
                            % (shown, number, SPI, SPI_SEAM))
            continue
        why = include_problem(layer, public, test, bracket, name) if layer else None
        if why:
            problems.append("%s:%d: includes %s%s%s: framework/%s %s" % (
                shown, number, bracket, name, ">" if bracket == "<" else '"', layer, why))


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    root = argv[1] if len(argv) == 2 else os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    framework = os.path.join(root, "framework")
    if not os.path.isdir(framework):
        print("layers.py: no framework/ folder in %s" % root, file=sys.stderr)
        return 2
    problems = []
    checked = 0
    for path in sources(framework):
        checked += 1
        check_file(path, framework, root, problems)
    for problem in problems:
        print(problem)
    if problems:
        print("layers: %d problem(s) in %d source files (docs/architecture.md, \"Layers\")" % (
            len(problems), checked))
        return 1
    print("layers: %d source files under framework/, none over %d lines; every layer includes only the "
          "layers it builds on; gtest-spi only in tests" % (checked, MAX_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
