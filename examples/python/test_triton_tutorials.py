"""Triton's tutorial kernels (tutorial_kernels.py) as pytest tests, for bankcheck's pytest plugin in
either mode (docs/python.md):

    pytest examples/python/test_triton_tutorials.py --bankcheck-baselines examples/python/baselines

On a GPU each launch is measured; without one (or with --bankcheck-cpu) the plugin's CPU mode
compiles each kernel for sm_90 and runs it in bankcheck's emulator, the arrays numpy arrays on the
CPU. Each launch is a case, `test_triton_tutorials.py/<test>/<kernel>`, checked against
baselines/sm_90/test_triton_tutorials.py.json. The inputs are made and the results checked with
numpy, so that only the tutorial kernels are launched. Outside the plugin, without a GPU, the tests
skip. With BANKCHECK_OUTPUTS_DIR set, each test saves its outputs before checking them (conftest.py),
for benchmarks/triton_device_check.sh to compare GPU mode's with CPU mode's.
"""

import os

import numpy as np
import pytest

pytest.importorskip("triton", reason="triton is not installed")

import triton  # noqa: E402  (after the skip)
import tutorial_kernels as kernels  # noqa: E402

# bankcheck's CPU mode: `bankcheck run --emulated` set it for this session (the plugin's child).
EMULATED = os.environ.get("BANKCHECK_RUN_EMULATED") == "1"


class Arrays:
    """The test's arrays where its kernels run: numpy arrays themselves in CPU mode, torch tensors
    on the GPU otherwise."""

    def __init__(self):
        if EMULATED:
            self.torch = None
            return
        self.torch = pytest.importorskip("torch", reason="torch is not installed (and not in bankcheck's CPU mode)")
        if not self.torch.cuda.is_available():
            pytest.skip("no CUDA GPU available to torch, and not in bankcheck's CPU mode")

    def to_device(self, array):
        return array if self.torch is None else self.torch.from_numpy(array).to("cuda")

    def to_host(self, array):
        return array if self.torch is None else array.cpu().numpy()


@pytest.fixture
def arrays():
    return Arrays()


def rng():
    return np.random.default_rng(20261208)


def test_vector_add(arrays, save_outputs):
    n = 98432
    x, y = rng().random(n, dtype=np.float32), rng().random(n, dtype=np.float32)
    out = arrays.to_device(np.zeros(n, np.float32))
    kernels.add_kernel[(triton.cdiv(n, 1024),)](arrays.to_device(x), arrays.to_device(y), out, n, BLOCK_SIZE=1024)
    result = arrays.to_host(out)
    save_outputs(out=result)
    assert np.array_equal(result, x + y)


def test_fused_softmax(arrays, save_outputs):
    x = rng().standard_normal((64, 781), dtype=np.float32)
    out = arrays.to_device(np.zeros_like(x))
    kernels.softmax_kernel[(x.shape[0],)](out, arrays.to_device(x), x.shape[1], x.shape[1], x.shape[1],
                                          BLOCK_SIZE=triton.next_power_of_2(x.shape[1]), num_warps=4)
    expected = np.exp(x - x.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    result = arrays.to_host(out)
    save_outputs(out=result)
    assert np.allclose(result, expected, rtol=1e-5, atol=1e-6)


def test_layer_norm(arrays, save_outputs):
    m, n = 32, 1151
    x = rng().standard_normal((m, n), dtype=np.float32)
    w, b = rng().random(n, dtype=np.float32), rng().random(n, dtype=np.float32)
    y, mean, rstd = (arrays.to_device(np.zeros(shape, np.float32)) for shape in ((m, n), m, m))
    kernels.layer_norm_fwd_kernel[(m,)](arrays.to_device(x), y, arrays.to_device(w), arrays.to_device(b), mean, rstd,
                                        n, n, 1e-5, BLOCK_SIZE=1024, num_warps=8)
    expected = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5) * w + b
    result = arrays.to_host(y)
    save_outputs(y=result, mean=arrays.to_host(mean), rstd=arrays.to_host(rstd))
    assert np.allclose(result, expected, rtol=1e-4, atol=1e-4)


def small_integers(shape):
    """fp16 matrices of small integers: every product and sum is exact in fp16 and fp32."""
    return rng().integers(-2, 3, shape).astype(np.float16)


def test_matmul_grouped(arrays, save_outputs):
    """The tutorial's kernel as it is, b row-major: on sm_90 its tl.dot is a wgmma (HGMMA) reading b
    N-major, an operand layout the emulator has no GPU measurement of (CPU mode skips it, saying so)."""
    a, b = small_integers((256, 192)), small_integers((192, 256))
    (m, k), n = a.shape, b.shape[1]
    c = arrays.to_device(np.zeros((m, n), np.float16))
    grid = (triton.cdiv(m, 64) * triton.cdiv(n, 64),)
    kernels.matmul_kernel[grid](arrays.to_device(a), arrays.to_device(b), c, m, n, k, k, 1, n, 1, n, 1,
                                BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, num_warps=4,
                                num_stages=1)
    result = arrays.to_host(c)
    save_outputs(c=result)
    assert np.array_equal(result, (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16))


# A linear layer's product, y = x @ W^T with W stored (N, K) as torch.nn.Linear stores it: both
# operands K-major. 32 x 32 tiles on 2 warps (mma.sync: HMMA), 64 x 64 tiles on 4 (wgmma: HGMMA).
MATMUL_TILES = [(32, 32, 32, 2), (64, 64, 32, 4)]


@pytest.mark.parametrize("block_m, block_n, block_k, warps", MATMUL_TILES,
                         ids=[f"{m}x{n}x{k}" for m, n, k, _ in MATMUL_TILES])
def test_matmul_linear(arrays, save_outputs, block_m, block_n, block_k, warps):
    x, weight = small_integers((128, 96)), small_integers((128, 96))
    (m, k), n = x.shape, weight.shape[0]
    y = arrays.to_device(np.zeros((m, n), np.float16))
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    kernels.matmul_2d_kernel[grid](arrays.to_device(x), arrays.to_device(weight), y, m, n, k, k, 1, 1, k, n, 1,
                                   BLOCK_SIZE_M=block_m, BLOCK_SIZE_N=block_n, BLOCK_SIZE_K=block_k,
                                   num_warps=warps, num_stages=1)
    expected = (x.astype(np.float32) @ weight.astype(np.float32).T).astype(np.float16)
    result = arrays.to_host(y)
    save_outputs(y=result)
    assert np.array_equal(result, expected)


def test_transpose(arrays, save_outputs):
    x = rng().standard_normal((300, 200), dtype=np.float32)  # not a multiple of the tile: the masks matter
    out = arrays.to_device(np.zeros((200, 300), np.float32))
    kernels.transpose_kernel[(triton.cdiv(300, 32), triton.cdiv(200, 32))](arrays.to_device(x), out, 300, 200, 200,
                                                                            300, BLOCK=32, num_warps=4)
    result = arrays.to_host(out)
    save_outputs(out=result)
    assert np.array_equal(result, x.T)


@pytest.mark.parametrize("layout", list(kernels.GLUON_LAYOUTS))
def test_gluon_transpose(arrays, save_outputs, layout):
    x = rng().standard_normal((128, 64), dtype=np.float32)
    out = arrays.to_device(np.zeros((64, 128), np.float32))
    kernels.gluon_transpose_kernel[(128 // 32, 64 // 32)](arrays.to_device(x), out, 64, 128, BLOCK=32,
                                                          shared_layout=kernels.GLUON_LAYOUTS[layout], num_warps=4)
    result = arrays.to_host(out)
    save_outputs(out=result)
    assert np.array_equal(result, x.T)
