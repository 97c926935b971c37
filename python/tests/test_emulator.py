"""bankcheck.emulator, the emulator's Python binding (docs/python.md, "The emulator"), over its C library.

Plain unittest, so that both pytest (ci/jobs/wheel.sh, on the wheel's library) and `python3 -m unittest`
(the ctest python/emulator, on the build's library and a cubin nvcc compiled there,
BANKCHECK_EMULATE_TEST_CUBIN) run it. Without that cubin, the launches are not checked (the wheel's
test venv has no nvcc); what needs no SASS tools is checked everywhere the library is.
"""

import os
import struct
import unittest

from bankcheck import emulator

CUBIN = os.environ.get("BANKCHECK_EMULATE_TEST_CUBIN")
KERNEL = "_ZN7emucapi13TransposeTileEPKiPii"  # framework/emulated_runtime/c_api_test_kernels.cu
N = 64


def matrix_bytes():
    return bytearray(struct.pack(f"<{N * N}i", *[7 * i + 3 for i in range(N * N)]))


def transposed(data):
    values = struct.unpack(f"<{N * N}i", bytes(data))
    return [values[column * N + row] for row in range(N) for column in range(N)]


def truncated_cubin():
    """The 64-byte ELF header of a CUDA ELF (machine 190) whose section headers lie past its end."""
    header = bytearray(64)
    header[0:4], header[4], header[5] = b"\x7fELF", 2, 1
    struct.pack_into("<H", header, 18, 190)
    struct.pack_into("<Q", header, 0x28, 4096)  # section headers at byte 4096
    struct.pack_into("<HH", header, 0x3A, 64, 5)
    return bytes(header)


@unittest.skipIf(emulator.library_path() is None,
                 "no emulator library: set BANKCHECK_EMULATE_LIBRARY to a build's build/lib/libbankcheck_emulate_c.so, "
                 "or install the wheel")
class EmulatorTest(unittest.TestCase):
    def test_a_cubin_cut_short_is_refused_saying_so(self):
        with self.assertRaisesRegex(emulator.EmulatorError,
                                    "the image is a cubin cut short: its section headers end past its 64 bytes"):
            emulator.Module(truncated_cubin())

    def test_a_read_only_buffer_is_refused(self):
        with self.assertRaisesRegex(emulator.EmulatorError, "read-only buffer"):
            emulator.Buffer(b"1234")


@unittest.skipIf(emulator.library_path() is None or not CUBIN,
                 "no emulator library or no test cubin (BANKCHECK_EMULATE_TEST_CUBIN, which ctest's python/emulator "
                 "sets): the launches are checked there")
class LaunchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = emulator.Module(CUBIN)  # read once: the SASS tools take a second or two
        cls.kernel = cls.module.kernel(KERNEL)

    def test_the_kernel_is_described_as_its_cubin_lays_it_out(self):
        self.assertEqual(self.module.kernels, [KERNEL])
        self.assertEqual(self.kernel.params, [(0, 8), (8, 8), (16, 4)])
        self.assertEqual(self.kernel.param_bytes, 20)
        with open(CUBIN, "rb") as cubin:
            self.assertEqual(emulator.Module(cubin.read()).kernels, [KERNEL])

    def test_a_launch_counts_the_conflicts_and_computes_the_transpose(self):
        matrix, out = matrix_bytes(), bytearray(N * N * 4)
        result = self.kernel.launch(grid=(2, 2), block=(32, 8), args=[matrix, emulator.Buffer(out, known=False), N])
        self.assertTrue(result.decided, result.undecided)
        self.assertTrue(result.computed, result.not_computed)
        self.assertEqual(list(struct.unpack(f"<{N * N}i", bytes(out))), transposed(matrix))
        record = result.record
        self.assertEqual(record["counters"], "emulated")
        # 2 x 2 blocks x 8 warps x 4 column reads of 32 ways each.
        self.assertEqual(record["shared_ld"], {"instructions": 128, "wavefronts": 4096, "ideal": 128,
                                               "conflicts": 3968})
        # Each warp's 128-byte row is 4 sectors: the buffers are mapped aligned as cudaMalloc aligns.
        self.assertEqual(record["global_st"]["wavefronts"], 4 * record["global_st"]["instructions"])
        self.assertTrue(any(line["kind"] == "shared_ld" and "tile[threadIdx.x][y]" in line["code"]
                            for line in record["lines"]), record["lines"])

    def test_numpy_arrays_are_buffers(self):
        try:
            import numpy
        except ImportError:
            self.skipTest("numpy is not installed: bytearrays stand for buffers in the other tests")
        matrix = numpy.arange(N * N, dtype=numpy.int32).reshape(N, N)
        out = numpy.zeros_like(matrix)
        result = self.kernel.launch(grid=(2, 2), block=(32, 8), args=[matrix, out, numpy.int32(N)])
        self.assertTrue(result.computed, result.not_computed)
        self.assertTrue((out == matrix.T).all())

    def test_stores_outside_the_buffers_are_not_computed(self):
        matrix, elsewhere = matrix_bytes(), bytearray(N * N * 4)
        params = self.kernel.pack([None, None, N], {})
        params = struct.pack("<QQ", emulator.FIRST_ADDRESS, 0x900000000) + params[16:]
        result = self.kernel.launch(grid=(2, 2), block=(32, 8), params=params,
                                    buffers=[emulator.Buffer(matrix, address=emulator.FIRST_ADDRESS)])
        self.assertTrue(result.decided, result.undecided)
        self.assertFalse(result.computed)
        self.assertIn("stores outside the device allocations", result.not_computed)
        self.assertEqual(elsewhere, bytearray(N * N * 4))

    def test_bad_launches_are_refused_with_the_reason(self):
        with self.assertRaisesRegex(emulator.EmulatorError, "the module has no kernel 'TransposeTile'"):
            self.module.kernel("TransposeTile")
        with self.assertRaisesRegex(emulator.EmulatorError, "2 arguments for .*, which has 3 parameters"):
            self.kernel.launch(args=[None, None])
        with self.assertRaisesRegex(emulator.EmulatorError, "16 bytes of parameters for emucapi::TransposeTile"):
            self.kernel.launch(params=bytes(16))
        with self.assertRaisesRegex(emulator.EmulatorError, "the GPU refuses such a launch"):
            self.kernel.launch(block=(2048,), args=[None, None, N])


if __name__ == "__main__":
    unittest.main()
