#!/usr/bin/env python3
"""ncu_compare.py [--match order|launch-index] [--ideal] KINDS_TSV RESULTS_JSON NCU_CSV

Every count a bankcheck results file holds, per launch and kind, next to Nsight Compute's own
metric on the same launch (ncu is the oracle); used by ncu_crosscheck.sh and run_crosscheck.sh.

  KINDS_TSV     the kind table, `bankcheck_speed_probe --print-kinds`: key, label, then the metrics
                (instructions, wavefronts or sectors: ncu's launch metric of the traffic, instrumented
                conflicts, hardware wavefronts, hardware conflicts; "-" for none), and the kind whose
                ideal the hardware pair also counts ("-" for none)
  RESULTS_JSON  a bankcheck-results file
  NCU_CSV       `ncu --metrics <the table's metrics> --csv --page raw --print-units base` output; the
                profiled program's own output may be mixed in (only the rows of ncu's table are read)

--match order (ncu_crosscheck.sh): the records in the results file's order (cases sorted by name,
  each case's launches in order) against ncu's rows in order; the record of a graph launch whose
  nodes run one kernel takes as many rows as it names nodes, added up. The counts must agree.
--match launch-index (run_crosscheck.sh, `bankcheck run` results): each case holds one launch and
  its description starts with "launch <N>", N counting every kernel launch of the process, as
  ncu's ID does: the record is compared with ncu's row ID N. A row of ncu that no record matches
  is a difference too.
--ideal: also compares the ideal wavefronts (ncu's: its wavefronts less its conflicts).

ncu's conflicts are its instrumented conflict metric where the kind has one; for LDS/STS, whose
conflicts bankcheck derives from the hardware pair (docs/counters.md), the same derivation on
ncu's readings. Hardware-sourced values are compared too, and marked "(hw)".
Exit status: 0 everything agrees, 1 something differs, 2 unreadable input.
"""

import argparse
import csv
import json
import re
import sys

EMPTY_BLOCK = {"instructions": 0, "wavefronts": 0, "ideal": 0, "conflicts": 0}


class InputError(Exception):
    pass


def read_kinds(path):
    kinds = []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 8:
                raise InputError(f"{path}: expected 8 tab-separated fields, got {len(fields)}: {line!r}")
            kinds.append(fields)
    if not kinds:
        raise InputError(f"{path}: no kinds")
    return kinds


def read_ncu(path):
    """ncu's table: (column index by name, rows of launches). The header is the first row whose
    first cell is "ID"; its rows are those after it with as many cells and a number for an ID (the
    units row has none)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(line for line in f if line.startswith('"')))
    header_at = next((i for i, row in enumerate(rows) if row and row[0] == "ID"), None)
    if header_at is None:
        raise InputError(f"{path}: no ncu table (no row starting with \"ID\")")
    header = rows[header_at]
    launches = [r for r in rows[header_at + 1:] if len(r) == len(header) and r[0].isdigit()]
    return {name: i for i, name in enumerate(header)}, launches


class Comparison:
    def __init__(self, kinds, col, with_ideal):
        self.kinds = kinds
        self.col = col
        self.with_ideal = with_ideal
        self.differs = 0

    def metric(self, launch, name):
        if name == "-" or name not in self.col:
            return None
        text = launch[self.col[name]].replace(",", "")
        try:
            return round(float(text))
        except ValueError:
            return None

    def summed(self, rows):
        """ncu's rows of several kernel nodes as one row: each metric added up."""
        total = list(rows[0])
        for name, i in self.col.items():
            values = [self.metric(row, name) for row in rows]
            if all(v is not None for v in values):
                total[i] = str(sum(values))
        return total

    def line(self, case, index, label, field, ours, theirs):
        ok = ours == theirs
        self.differs += not ok
        print(f"{case[:44]:44} {index:>3} {label:6} {field:12} {str(ours):>12} {str(theirs):>12}  "
              f"{'ok' if ok else 'DIFFERS'}")

    def compare(self, case, index, record, launch):
        """Prints a line per kind and field of one record against ncu's row of its launch."""
        derived = {}  # kind key -> ncu's ideal (wavefronts less conflicts, instrumented or hardware)
        for key, label, instr, wf, conf, hw_wf, hw_conf, also in self.kinds:
            pair = (wf, conf) if conf != "-" else (hw_wf, hw_conf) if hw_wf != "-" else None
            ideal = None
            if pair:
                w, c = self.metric(launch, pair[0]), self.metric(launch, pair[1])
                ideal = None if w is None or c is None else w - c
            derived[key] = ideal
        for key, label, instr, wf, conf, hw_wf, hw_conf, also in self.kinds:
            if key in record.get("not_counted", []):
                continue  # the record did not count the kind (TMA's kinds in a SASS-metrics record)
            block = record.get(key)
            ncu_instr = self.metric(launch, instr)
            if block is None and not ncu_instr:
                continue  # neither side saw this kind
            block = block or EMPTY_BLOCK
            ncu_ideal = derived[key]
            if also != "-" and ncu_ideal is not None and derived.get(also) is not None:
                ncu_ideal -= derived[also]
            ncu_wf = self.metric(launch, wf)
            fields = [("instructions", block.get("instructions"), ncu_instr)]
            if wf != "-":
                fields.append(("wavefronts", block.get("wavefronts"), ncu_wf))
            # Counted through SASS metrics, the cp.async ideal is the per-instruction SASS ideal,
            # which no launch metric of ncu gives (its conflict counter follows the other
            # definition: docs/counters.md); benchmarks/ncu_source_crosscheck.sh compares it with
            # ncu's Source page.
            sass_cp_async = key == "shared_ldgsts" and record.get("counters") == "sass metrics"
            # The global ideal (per instruction, SASS metrics only) has no launch metric either:
            # ncu_source_crosscheck.sh SPACE=global compares it with ncu's Source page.
            if "conflicts" in block and not sass_cp_async and (conf != "-" or hw_wf != "-"):
                hw = " (hw)" if block.get("ideal_source") == "hardware" else ""
                if self.with_ideal:
                    fields.append(("ideal" + hw, block.get("ideal"), ncu_ideal))
                ncu_conf = None if ncu_ideal is None or ncu_wf is None else ncu_wf - ncu_ideal
                fields.append(("conflicts" + hw, block["conflicts"], ncu_conf))
            for field, ours, theirs in fields:
                self.line(case, index, label, field, ours, theirs)


def match_in_order(results, launches, comparison):
    records = []
    for case, result in sorted(results["cases"].items()):
        for i, launch in enumerate(result["launches"]):
            records.append((case, i, launch))
    # A record of a graph launch whose nodes run one kernel holds them all (docs/counters.md): ncu
    # profiles each node, so such a record takes as many of ncu's rows as it names nodes.
    nodes = [max(1, len(record.get("graph_kernels", []))) for _, _, record in records]
    if sum(nodes) != len(launches):
        print(f"ncu profiled {len(launches)} launches, bankcheck recorded {len(records)} "
              f"({sum(nodes)} kernel launches and nodes): cannot match them")
        return None
    pairs, at = [], 0
    for (case, index, record), n in zip(records, nodes):
        pairs.append((case, index, record, comparison.summed(launches[at:at + n])))
        at += n
    return pairs


LAUNCH_INDEX = re.compile(r"launch (\d+)\b")


def match_by_launch_index(results, launches, comparison):
    by_id = {}
    for row in launches:
        by_id[int(row[0])] = row
    pairs, seen = [], set()
    for case, result in results["cases"].items():
        found = LAUNCH_INDEX.match(result.get("description", ""))
        if not found or len(result.get("launches", [])) != 1:
            raise InputError(f"case {case!r}: not a `bankcheck run` case (one launch, a description "
                             f"starting with \"launch <N>\")")
        index = int(found.group(1))
        if index in seen:
            raise InputError(f"case {case!r}: a second case of launch {index}")
        seen.add(index)
        pairs.append((index, case, result["launches"][0]))
    pairs.sort()
    matched = []
    for index, case, record in pairs:
        if index not in by_id:
            print(f"{case[:44]:44} {index:>3} ncu profiled no launch {index}  DIFFERS")
            comparison.differs += 1
            continue
        matched.append((case, index, record, by_id[index]))
    name_col = comparison.col.get("Kernel Name")
    for index in sorted(set(by_id) - seen):
        name = by_id[index][name_col] if name_col is not None else "?"
        print(f"{'(no bankcheck record)':44} {index:>3} ncu profiled {name[:60]}  DIFFERS")
        comparison.differs += 1
    return matched


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--match", choices=["order", "launch-index"], default="order")
    parser.add_argument("--ideal", action="store_true", help="also compare the ideal wavefronts")
    parser.add_argument("kinds")
    parser.add_argument("results")
    parser.add_argument("ncu_csv")
    args = parser.parse_args()
    try:
        kinds = read_kinds(args.kinds)
        with open(args.results) as f:
            results = json.load(f)
        if results.get("format") != "bankcheck-results" or not isinstance(results.get("cases"), dict):
            raise InputError(f"{args.results}: not a bankcheck results file")
        col, launches = read_ncu(args.ncu_csv)
        comparison = Comparison(kinds, col, args.ideal)
        header = f"{'case':44} {'#':>3} {'kind':6} {'field':12} {'bankcheck':>12} {'ncu':>12}  verdict"
        if args.match == "order":
            pairs = match_in_order(results, launches, comparison)
            if pairs is None:
                return 1
            print(header)
        else:
            print(header)
            pairs = match_by_launch_index(results, launches, comparison)
    except (InputError, OSError, ValueError, KeyError) as error:
        print(f"ncu_compare.py: {error}", file=sys.stderr)
        return 2
    for case, index, record, launch in pairs:
        comparison.compare(case, index, record, launch)
    print(f"\n{len(pairs)} launches compared; {comparison.differs} values differ")
    return 1 if comparison.differs else 0


if __name__ == "__main__":
    sys.exit(main())
