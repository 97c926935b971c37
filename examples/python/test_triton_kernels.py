"""The Triton kernels of triton_kernels.py as pytest tests, for bankcheck's pytest plugin
(docs/python.md): each test's launches are cases named after the test,

    test_triton_kernels.py/test_transpose[32]/transpose_kernel
    test_triton_kernels.py/test_transpose[64]/transpose_kernel
    test_triton_kernels.py/test_matmul[256x256x256]/matmul_kernel
    test_triton_kernels.py/test_matmul[128x192x96]/matmul_kernel

and checked against baselines/<arch>/test_triton_kernels.py.json:

    pytest examples/python/test_triton_kernels.py --bankcheck-baselines examples/python/baselines

Only these four launch GPU kernels: the inputs are made on the CPU and copied over, the outputs
copied back and checked against torch on the CPU, so no torch kernel becomes a case (each would be
one more baseline, whose counts are torch's). pytest.ini here fixes the rootdir, so the names are
the same wherever pytest is started. Skipped without torch and Triton or without a CUDA GPU.

In the plugin's CPU mode (no GPU, or --bankcheck-cpu; docs/python.md) the same tests run with torch
CPU tensors, each launch compiled for sm_90 and run in bankcheck's emulator: the transposes decide
and compute their outputs; the matmuls are undecided (Triton 3.9 pipelines their loads through
cp.async, LDGSTS.E.BYPASS.128, a form the emulator does not understand) and skip saying so. With
BANKCHECK_OUTPUTS_DIR set, each test saves its output (conftest.py) for
benchmarks/triton_device_check.sh.
"""

import os

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")
pytest.importorskip("triton", reason="triton is not installed")

from triton_kernels import matmul, transpose  # noqa: E402  (after the skips: it imports triton)

# Small integers in the matmul: every product and sum is exact in fp16 and fp32, so the result
# must be equal.
MATMUL_SIZES = [(256, 256, 256), (128, 192, 96)]
# bankcheck's CPU mode (`bankcheck run --emulated` sets it for the plugin's session): CPU tensors.
DEVICE = "cpu" if os.environ.get("BANKCHECK_RUN_EMULATED") == "1" else "cuda"


@pytest.fixture(autouse=True)
def cuda_gpu():
    if DEVICE == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA GPU available to torch, and not in bankcheck's CPU mode")


def generator():
    return torch.Generator().manual_seed(20261125)


@pytest.mark.parametrize("block", [32, 64])
def test_transpose(block, save_outputs):
    x = torch.randn(300, 200, generator=generator())  # not a multiple of the tiles: the masks matter
    out = transpose(x.to(DEVICE), block).cpu()
    save_outputs(out=out.numpy())
    assert torch.equal(out, x.t())


@pytest.mark.parametrize("m, n, k", MATMUL_SIZES, ids=["x".join(map(str, size)) for size in MATMUL_SIZES])
def test_matmul(m, n, k, save_outputs):
    a = torch.randint(-2, 3, (m, k), generator=generator()).to(torch.float16)
    b = torch.randint(-2, 3, (k, n), generator=generator()).to(torch.float16)
    c = matmul(a.to(DEVICE), b.to(DEVICE)).cpu()
    save_outputs(c=c.numpy())
    assert torch.equal(c, a.float() @ b.float())
