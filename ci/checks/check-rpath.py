#!/usr/bin/env python3
"""Fails on any ELF file whose RPATH or RUNPATH has an empty or a relative entry.

The dynamic loader reads an empty entry (a leading, doubled or trailing ':') as the current folder,
and a relative one ('lib', '.', '$LIB') from the current folder too: a library loaded by a program
started in a folder someone else can write then loads what they planted there (docs/security.md,
"Library search paths"). Allowed: absolute paths and $ORIGIN-relative ones ($ORIGIN, ${ORIGIN}:
the loaded file's own folder, not the current one).

  ci/checks/check-rpath.py [--exclude DIR]... [--skip-pip] PATH...

Each PATH is an ELF file or a folder searched for them (links are not followed; --exclude skips
a folder, as given or under a PATH; --skip-pip skips each folder pip made, a venv (pyvenv.cfg) or a
`pip install --target` (a *.dist-info folder in it): what is there came from PyPI, not a build,
as build/cuda-tools, build/cute-headers). The entries are read with readelf -d (binutils). Exit 0: every
entry allowed; 1: an entry is not (each printed as FILE: RUNPATH [...]: what); 2: usage, a PATH
missing, or no readelf.
"""
import argparse
import os
import re
import subprocess
import sys

ENTRY = re.compile(r"\((RPATH|RUNPATH)\)\s+Library (?:rpath|runpath): \[(.*)\]$")


def made_by_pip(folder, subfolders, files):
    return "pyvenv.cfg" in files or any(s.endswith(".dist-info") for s in subfolders)


def elf_files(path, excluded, skip_pip):
    if not os.path.isdir(path):
        yield path
        return
    for folder, subfolders, files in os.walk(path):
        if skip_pip and made_by_pip(folder, subfolders, files):
            subfolders[:] = []
            continue
        subfolders[:] = sorted(s for s in subfolders if os.path.realpath(os.path.join(folder, s)) not in excluded)
        for name in sorted(files):
            file = os.path.join(folder, name)
            if os.path.islink(file) or not os.path.isfile(file):
                continue
            try:
                with open(file, "rb") as f:
                    if f.read(4) != b"\x7fELF":
                        continue
            except OSError:
                continue
            yield file


def problem(entry):
    """Why the entry is not allowed, or None."""
    if entry == "":
        return "an empty entry (the current folder)"
    if entry.startswith("/") or re.match(r"(\$ORIGIN|\$\{ORIGIN\})(/|$)", entry):
        return None
    return f"'{entry}' is relative (to the current folder)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exclude", action="append", default=[], metavar="DIR")
    parser.add_argument("--skip-pip", action="store_true")
    parser.add_argument("paths", nargs="+", metavar="PATH")
    args = parser.parse_args()
    excluded = set()
    for exclude in args.exclude:
        candidates = [exclude] + [os.path.join(p, exclude) for p in args.paths if not os.path.isabs(exclude)]
        excluded.update(os.path.realpath(c) for c in candidates)
    bad = checked = with_paths = 0
    for path in args.paths:
        if not os.path.exists(path):
            print(f"check_rpath: error: no such file or folder: {path}", file=sys.stderr)
            return 2
        for file in elf_files(path, excluded, args.skip_pip):
            try:
                output = subprocess.run(["readelf", "-d", "-W", file], capture_output=True, text=True,
                                        errors="replace", env=dict(os.environ, LC_ALL="C")).stdout
            except FileNotFoundError:
                print("check_rpath: error: readelf not found (binutils)", file=sys.stderr)
                return 2
            checked += 1
            found = False
            for line in output.splitlines():
                match = ENTRY.search(line.strip())
                if not match:
                    continue
                found = True
                kind, value = match.groups()
                for entry in value.split(":"):
                    why = problem(entry)
                    if why:
                        print(f"{file}: {kind} [{value}]: {why}: the loader would search the folder the program "
                              "runs in; give absolute or $ORIGIN-relative folders only", file=sys.stderr)
                        bad += 1
            with_paths += found
    if bad:
        print(f"check_rpath: {bad} empty or relative RPATH/RUNPATH entries (above)", file=sys.stderr)
        return 1
    print(f"check_rpath: {checked} ELF files in {' '.join(args.paths)}, {with_paths} with an RPATH or RUNPATH: "
          "no empty or relative entry")
    return 0


if __name__ == "__main__":
    sys.exit(main())
