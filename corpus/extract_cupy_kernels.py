#!/usr/bin/env python3
"""Writes CuPy's CUDA kernel sources, as the installed wheel holds them, into the build folder.

CuPy (the cupy-cuda13x wheel, MIT) keeps many of its kernels as CUDA source strings in its Python
modules, compiled at run time by NVRTC. The corpus compiles them with nvcc instead: this script,
run by cmake/BankcheckCupy.cmake at configure time, reads each named module with `ast` (CuPy is
never imported: it needs a GPU and its own dependencies), evaluates the module-level assignments of
string literals, names of earlier such strings and `+` of those, and writes each requested string,
unchanged, to <out>/<module's dotted path>/<NAME>.cuh. Nothing of CuPy's is stored in the repository.

Usage: extract_cupy_kernels.py <site folder holding cupyx/> <out folder> <module:NAME> ...
Exits 1, saying which, when a module or a string is missing or is not such an expression.
"""

import ast
import pathlib
import sys


def module_strings(path):
    """The module-level names bound to string expressions, in order, with their values."""
    strings = {}

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and node.id in strings:
            return strings[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = value(node.left), value(node.right)
            if left is not None and right is not None:
                return left + right
        return None

    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            text = value(statement.value)
            if isinstance(target, ast.Name) and text is not None:
                strings[target.id] = text
    return strings


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    site, out = pathlib.Path(argv[1]), pathlib.Path(argv[2])
    parsed = {}
    for request in argv[3:]:
        module, _, name = request.partition(":")
        source = site.joinpath(*module.split(".")).with_suffix(".py")
        if not source.is_file():
            print(f"extract_cupy_kernels: {source} not found (is this the cupy-cuda13x wheel CuPy's "
                  "kernels were chosen from? ci/jobs/install-deps.sh names the version)", file=sys.stderr)
            return 1
        if module not in parsed:
            parsed[module] = module_strings(source)
        if name not in parsed[module]:
            print(f"extract_cupy_kernels: {module} has no module-level string {name}", file=sys.stderr)
            return 1
        target = out / module / f"{name}.cuh"
        target.parent.mkdir(parents=True, exist_ok=True)
        text = f"// {module}.{name}, extracted from {source} by corpus/extract_cupy_kernels.py\n"
        text += parsed[module][name]
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")  # unchanged: no rebuild
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
