#!/usr/bin/env python3
"""The CTest test benchmarks/triton_device_compare (label cpu, no GPU): triton_device_compare.py,
triton_device_check.sh's comparison, on hand-made results files, JUnit files, saved outputs and
baselines: equal launches, a kind that differs, a kind the emulator did not count, an absent block,
an ideal known on one side only, a configuration that differs, bankcheck's own verdict, an
undecided launch with its skip reason, a case only CPU mode emulated, outputs compared bit for bit
(and not compared where the emulator did not compute them or the test skipped), the committed
baselines printed outside the exit status, and files that are not results. Runs with the standard
library alone (unittest); the outputs' tests skip without numpy. Exit 0 when every check passes."""

import contextlib
import copy
import importlib.util
import io
import json
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("triton_device_compare", HERE / "triton_device_compare.py")
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)

try:
    import numpy as np
except ImportError:
    np = None

TOPIC = "test_k.py"
ADD, MATMUL, SOFTMAX = f"{TOPIC}/test_add/add_kernel", f"{TOPIC}/test_mm[64]/mm_kernel", f"{TOPIC}/test_softmax/softmax"


def launch(kernel, **kinds):
    record = {"kernel": kernel, "grid": [4, 1, 1], "block": [128, 1, 1], "dynamic_shared_bytes": 0}
    record.update(kinds)
    return record


def block(instructions, wavefronts, ideal=None):
    counts = {"instructions": instructions, "wavefronts": wavefronts, "conflicts": 0}
    if ideal is not None:
        counts.update(ideal=ideal, conflicts=wavefronts - ideal)
    return counts


def gpu_results():
    return {"format": "bankcheck-results", "metadata": {"device": "NVIDIA H100", "arch": "sm_90"}, "cases": {
        ADD: {"baseline": "match", "launches": [launch("add_kernel", shared_ld=block(0, 0, 0), shared_st=block(0, 0, 0),
                                                     global_ld=block(16, 64, 64), global_st=block(8, 32, 32))]},
        MATMUL: {"baseline": "match", "launches": [launch("mm_kernel", shared_ld=block(64, 256, 256),
                                                        shared_st=block(32, 128, 128), shared_ldsm=block(0, 0, 0))]},
        SOFTMAX: {"baseline": "match", "launches": [launch("softmax", shared_ld=block(8, 8, 8),
                                                         shared_st=block(8, 8, 8),
                                                         global_ld=block(64, 256, 256))]},
    }}


def cpu_results():
    """CPU mode's results equal to gpu_results(): the matmul undecided (no case), softmax's outputs
    not computed (global memory not counted), the empty ldsm block absent."""
    results = copy.deepcopy(gpu_results())
    results["metadata"]["device"] = "bankcheck emulated sm_90"
    del results["cases"][MATMUL]
    softmax = results["cases"][SOFTMAX]
    softmax["output"] = "not computed: MUFU.EX2 at softmax.py:9"
    del softmax["launches"][0]["global_ld"]
    softmax["launches"][0]["not_counted"] = ["global_ld", "global_st"]
    for case in results["cases"].values():
        for record in case["launches"]:
            record["counters"] = "emulated"
    return results


JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="3" skipped="1">
<testcase classname="test_k" name="test_add" time="0.1"/>
<testcase classname="test_k" name="test_mm[64]" time="0.1"><skipped type="pytest.skip"
 message="bankcheck: emulated: mm_kernel cannot be decided by the emulator: HGMMA reads B N-major"
 >skip</skipped></testcase>
<testcase classname="test_k" name="test_softmax" time="0.1"/></testsuite></testsuites>"""


class Compare(unittest.TestCase):
    def setUp(self):
        self.folder = Path(tempfile.mkdtemp(prefix="triton_device_compare_test."))

    def write(self, name, document):
        path = self.folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(document if isinstance(document, str) else json.dumps(document))
        return str(path)

    def run_compare(self, gpu, cpu, *extra, junit=JUNIT):
        arguments = [self.write("gpu.json", gpu), self.write("cpu.json", cpu),
                     "--cpu-junit", self.write("j.xml", junit), *extra]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = compare.main(arguments)
        return status, out.getvalue()

    def test_equal_launches_pass_and_the_undecided_one_is_counted_with_its_reason(self):
        status, out = self.run_compare(gpu_results(), cpu_results())
        self.assertEqual(status, 0, out)
        self.assertEqual(out.strip().splitlines()[-1], "decided 2, equal 2, differ 0; undecided 1")
        self.assertIn(f"equal         {ADD} launch 1 global_ld: instructions 16, wavefronts 64, ideal 64", out)
        self.assertIn(f"not compared  {SOFTMAX} launch 1 global_ld: not counted by the emulator", out)
        self.assertIn(f"not compared  {SOFTMAX} launch 1 global_st: not counted by the emulator", out)
        self.assertIn("undecided 1: bankcheck: emulated: mm_kernel cannot be decided by the emulator: HGMMA reads "
                      "B N-major", out)

    def test_a_kind_that_differs_fails_naming_the_launch_kind_and_counts(self):
        cpu = cpu_results()
        cpu["cases"][ADD]["launches"][0]["global_st"] = block(8, 40, 32)
        status, out = self.run_compare(gpu_results(), cpu)
        self.assertEqual(status, 1, out)
        self.assertIn(f"DIFFERS       {ADD} launch 1 global_st: wavefronts 32 (GPU) 40 (CPU)", out)
        self.assertTrue(out.strip().endswith("decided 2, equal 1, differ 1; undecided 1"), out)

    def test_an_absent_block_is_no_traffic(self):
        gpu, cpu = gpu_results(), cpu_results()
        del cpu["cases"][ADD]["launches"][0]["shared_ld"]  # zeros on the GPU
        self.assertEqual(self.run_compare(gpu, cpu)[0], 0)
        cpu["cases"][ADD]["launches"][0]["shared_ldsm"] = block(4, 16, 16)  # absent on the GPU, not zero here
        status, out = self.run_compare(gpu, cpu)
        self.assertEqual(status, 1, out)
        self.assertIn("shared_ldsm: instructions 0 (GPU) 4 (CPU), wavefronts 0 (GPU) 16 (CPU)", out)

    def test_an_ideal_known_on_one_side_only_differs(self):
        cpu = cpu_results()
        cpu["cases"][ADD]["launches"][0]["global_ld"] = block(16, 64)
        status, out = self.run_compare(gpu_results(), cpu)
        self.assertEqual(status, 1, out)
        self.assertIn("global_ld: ideal 64 (GPU) unknown (CPU)", out)

    def test_a_configuration_that_differs_fails(self):
        cpu = cpu_results()
        cpu["cases"][ADD]["launches"][0]["dynamic_shared_bytes"] = 16
        status, out = self.run_compare(gpu_results(), cpu)
        self.assertEqual(status, 1, out)
        self.assertIn(f"DIFFERS       {ADD} launch 1 launch: dynamic_shared_bytes 0 (GPU) 16 (CPU)", out)

    def test_bankchecks_own_verdict_against_the_gpus_baseline_counts(self):
        cpu = cpu_results()
        cpu["cases"][ADD]["baseline"] = "changed"  # bankcheck's verdict alone differs
        status, out = self.run_compare(gpu_results(), cpu)
        self.assertEqual(status, 1, out)
        self.assertIn(f"{ADD} launch 1: bankcheck run --emulated against the GPU's baseline: counts changed", out)
        cpu = cpu_results()
        cpu["cases"][ADD]["baseline_lines"] = "regression"  # the counts match, a line's do not
        cpu["cases"][SOFTMAX]["baseline_lines"] = "match"
        status, out = self.run_compare(gpu_results(), cpu)
        self.assertEqual(status, 1, out)
        self.assertIn(f"{ADD} launch 1: bankcheck run --emulated against the GPU's baseline: counts match, lines "
                      "regression", out)
        self.assertIn("lines: bankcheck run --emulated compared the source lines of 2 of the emulated cases", out)

    def test_a_case_only_cpu_mode_emulated_or_with_another_number_of_launches_differs(self):
        cpu = cpu_results()
        cpu["cases"][f"{TOPIC}/test_add/other_kernel"] = cpu["cases"][ADD]
        status, out = self.run_compare(gpu_results(), cpu)
        self.assertEqual(status, 1, out)
        self.assertIn("other_kernel launch 1: emulated, but the GPU session measured no such case", out)
        cpu = cpu_results()
        cpu["cases"][ADD]["launches"].append(cpu["cases"][ADD]["launches"][0])
        status, out = self.run_compare(gpu_results(), cpu)
        self.assertEqual(status, 1, out)
        self.assertIn(f"DIFFERS       {ADD} launch 2: 1 launches measured, 2 emulated", out)

    def test_an_undecided_launch_without_a_skip_says_where_to_look(self):
        status, out = self.run_compare(gpu_results(), cpu_results(), junit="<testsuites/>")
        self.assertEqual(status, 0, out)
        self.assertIn("CPU mode has no launch of it, and its test did not skip", out)

    def test_the_junit_name_of_a_test_range(self):
        self.assertEqual(compare.junit_key("a.test_k.py/TestA::test_b[1]"), "a.test_k.TestA::test_b[1]")
        self.assertEqual(compare.junit_key("test_k.py/test_mm[64]"), "test_k::test_mm[64]")

    @unittest.skipIf(np is None, "numpy is not installed")
    def test_outputs_are_compared_bit_for_bit_where_cpu_mode_computed_them(self):
        gpu_out, cpu_out = self.folder / "outputs" / "gpu", self.folder / "outputs" / "cpu"
        for root in (gpu_out, cpu_out):
            for test in ("test_add", "test_softmax", "test_mm[64]", "test_zero"):
                (root / TOPIC / test).mkdir(parents=True)
        values = np.arange(6, dtype=np.float32)
        np.save(gpu_out / TOPIC / "test_add" / "out.npy", values)
        np.save(cpu_out / TOPIC / "test_add" / "out.npy", values)
        np.save(gpu_out / TOPIC / "test_softmax" / "out.npy", values)
        np.save(cpu_out / TOPIC / "test_softmax" / "out.npy", np.zeros(6, np.float32))  # not computed: not compared
        np.save(gpu_out / TOPIC / "test_mm[64]" / "c.npy", values)  # undecided: its test skipped in CPU mode
        np.save(gpu_out / TOPIC / "test_zero" / "z.npy", np.zeros(3, np.float32))
        np.save(cpu_out / TOPIC / "test_zero" / "z.npy", np.array([0.0, -0.0, 0.0], np.float32))  # equal, not bitwise
        extra = ["--outputs", str(gpu_out), str(cpu_out)]
        status, out = self.run_compare(gpu_results(), cpu_results(), *extra)
        self.assertEqual(status, 1, out)
        self.assertIn(f"equal         output {TOPIC}/test_add/out", out)
        self.assertIn(f"not compared  output {TOPIC}/test_softmax/out: the emulator did not compute it (softmax: "
                      "not computed: MUFU.EX2 at softmax.py:9)", out)
        self.assertIn(f"not compared  output {TOPIC}/test_mm[64]/c: CPU mode did not save it (its test skipped: "
                      "bankcheck: emulated: mm_kernel cannot be decided", out)
        self.assertIn(f"DIFFERS       output {TOPIC}/test_zero/z: 1 of 3 elements differ, the first at [1]", out)
        self.assertIn("outputs: compared 2, equal 1, differ 1; not compared 2", out)
        # The launches are still compared, and their line is last.
        self.assertEqual(out.strip().splitlines()[-1], "decided 2, equal 2, differ 0; undecided 1")
        np.save(cpu_out / TOPIC / "test_zero" / "z.npy", np.zeros((3, 1), np.float32))
        status, out = self.run_compare(gpu_results(), cpu_results(), *extra)
        self.assertIn("DIFFERS       output test_k.py/test_zero/z: float32[3] (GPU), float32[3, 1] (CPU)", out)
        np.save(cpu_out / TOPIC / "test_zero" / "z.npy", np.zeros(3, np.float32))
        self.assertEqual(self.run_compare(gpu_results(), cpu_results(), *extra)[0], 0)

    def test_committed_baselines_are_printed_not_part_of_the_exit_status(self):
        recorded = {"format": "bankcheck-baseline", "arch": "sm_90", "cases": {
            name: {"launches": case["launches"]} for name, case in gpu_results()["cases"].items()}}
        committed = copy.deepcopy(recorded)
        committed["cases"][SOFTMAX]["launches"][0]["not_counted"] = ["global_ld"]  # not compared: still equal
        committed["cases"][ADD]["launches"][0]["global_ld"]["wavefronts"] = 65
        del committed["cases"][MATMUL]
        self.write(f"gpu-baselines/sm_90/{TOPIC}.json", recorded)
        self.write(f"committed/sm_90/{TOPIC}.json", committed)
        status, out = self.run_compare(gpu_results(), cpu_results(), "--committed", str(self.folder / "committed"),
                                       str(self.folder / "gpu-baselines"))
        self.assertEqual(status, 0, out)
        self.assertIn(f"DIFFERS       committed {ADD} launch 1 global_ld: wavefronts 64 (GPU) 65 (committed)", out)
        self.assertIn(f"not compared  committed {MATMUL}: not committed", out)
        self.assertIn(f"not compared  committed {SOFTMAX} launch 1 global_ld: not counted by the committed baseline",
                      out)
        self.assertIn("committed baselines against the GPU's: compared 2, equal 1, differ 1; not in both 1", out)

    def test_a_file_that_is_not_results_is_an_error(self):
        status, out = self.run_compare({"format": "x"}, cpu_results())
        self.assertEqual(status, 2, out)
        self.assertIn("is not a bankcheck results file", out)
        status, out = self.run_compare(gpu_results(), "{")
        self.assertEqual(status, 2, out)
        self.assertIn("cannot read results file", out)


if __name__ == "__main__":
    unittest.main()
