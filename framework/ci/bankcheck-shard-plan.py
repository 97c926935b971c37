#!/usr/bin/env python3
"""Shards balanced by the cases' recorded times (docs/ci.md, "Balancing shards by time").

GoogleTest's sharding deals the cases round robin. This deals them by time instead: each case's
last time from GoogleTest's JUnit XML (the topic tests' <build>/test-results/junit, a bankcheck-ci
artifact's junit/: each <testcase> has time= and the property "case"), longest first, each to the
shard with the least total so far (ties: the lower shard). A case with no recorded time (a new
one) counts as the median of those recorded. Every runner computes the same plan from the same
inputs. Prints shard I's cases, one per line, each name escaped so that it selects that case alone:
a file for BANKCHECK_CASES_FILE (one selection per line, no size ceiling but the input files'; a
BANKCHECK_CASES value holds at most 4096 bytes, about 100 cases); run that runner with it and
without GTEST_TOTAL_SHARDS. The times come from the previous run's artifacts, which a pull request
controls: a time that is not a finite number of seconds from 0 to 1e6 is refused, naming the file
and the case (`nan` or `-1e308` would deal every case to one shard).

  bankcheck-shard-plan.py --cases FILE --junit DIR --shards N --shard I [-o FILE]
    --cases FILE   every case, one per line (`<suite program> --bankcheck_list_cases`)
    -o FILE        write the cases there instead of stdout
Exit status: 0 written (nothing: no case for this shard, which then has nothing to run); 2 usage or
a refused time.
"""
import argparse
import glob
import math
import os
import statistics
import sys
import xml.etree.ElementTree as ElementTree


MAX_SECONDS = 1e6  # longer than any CTest timeout; a sum of 100,000 of them stays finite


def recorded_times(junit_dir):
    times = {}
    for path in glob.glob(os.path.join(junit_dir, "**", "*.xml"), recursive=True):
        try:
            root = ElementTree.parse(path).getroot()
        except ElementTree.ParseError:
            continue  # a file cut short by a killed process: its cases count as new
        for case in root.iter("testcase"):
            names = [p.get("value") for p in case.iter("property") if p.get("name") == "case"]
            try:
                seconds = float(case.get("time", ""))
            except ValueError:
                continue
            if not names or not names[0]:
                continue
            if not math.isfinite(seconds) or not 0 <= seconds <= MAX_SECONDS:
                raise ValueError(f"{path}: the case {names[0]!r} has time={case.get('time')!r}: a time must be a "
                                 f"finite number of seconds from 0 to {MAX_SECONDS:g} (remove the file, or the "
                                 "previous run's artifact it came from)")
            times[names[0]] = max(seconds, times.get(names[0], 0.0))
    return times


def plan(cases, times, shards):
    default = statistics.median(times.values()) if times else 1.0
    totals = [0.0] * shards
    assigned = [[] for _ in range(shards)]
    for name in sorted(cases, key=lambda n: (-times.get(n, default), n)):
        shard = min(range(shards), key=lambda i: (totals[i], i))
        totals[shard] += times.get(name, default)
        assigned[shard].append(name)
    return assigned


def escape(name):
    return "".join("\\" + c if c in "*?[]\\," else c for c in name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", required=True)
    parser.add_argument("--junit", required=True)
    parser.add_argument("--shards", type=int, required=True)
    parser.add_argument("--shard", type=int, required=True)
    parser.add_argument("-o", "--out")
    args = parser.parse_args()
    if args.shards < 1 or not 1 <= args.shard <= args.shards:
        parser.error(f"--shard takes 1 to --shards ({args.shards}), not {args.shard}")
    with open(args.cases, encoding="utf-8") as f:
        cases = sorted({line.rstrip("\n") for line in f if line.strip()})
    try:
        times = recorded_times(args.junit)
    except ValueError as error:
        print(f"bankcheck-shard-plan: error: {error}", file=sys.stderr)
        return 2
    assigned = plan(cases, times, args.shards)
    text = "".join(escape(name) + "\n" for name in sorted(assigned[args.shard - 1]))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
