#!/usr/bin/env python3
"""Two Triton kernels launched inside NVTX ranges, for `bankcheck run` (README.md here).

    python3 triton_kernels.py                                   # just runs and checks them
    bankcheck run -o run.json -- python3 triton_kernels.py      # and measures every launch

A tiled transpose (tl.trans) at two tile sizes and a small matmul (tl.dot, fp16 in, fp32 out) on
two problem sizes. Under `bankcheck run` each launch is a case named after the NVTX ranges around
it and the kernel's function name, the second launch of a kernel in the same ranges with "#2":

    transpose/32/transpose_kernel
    transpose/64/transpose_kernel
    matmul/64x64x32/matmul_kernel          (256 x 256 x 256)
    matmul/64x64x32/matmul_kernel#2        (128 x 192 x 96)

Only these four launch GPU kernels: the inputs are made on the CPU and copied over, the outputs
are copied back and checked against torch on the CPU, so no torch kernel of its own appears among
the cases (each would be one more case, and one more baseline, whose counts are torch's). Exit
status 0 when every output is right, 1 otherwise (or without a CUDA GPU).
"""

import contextlib
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, stride_x, stride_out, BLOCK: tl.constexpr):
    """out = x^T, one BLOCK x BLOCK tile per program: the transposed tile is stored row by row, so
    Triton moves it between layouts through shared memory."""
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    tile = tl.load(x_ptr + rows[:, None] * stride_x + cols[None, :],
                   mask=(rows[:, None] < M) & (cols[None, :] < N))
    tl.store(out_ptr + cols[:, None] * stride_out + rows[None, :], tl.trans(tile),
             mask=(cols[:, None] < N) & (rows[None, :] < M))


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """c = a @ b for row-major a (M x K), b (K x N), c (M x N), the sizes multiples of the blocks;
    tl.dot reads its operands from shared memory."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc)


def transpose(x, block):
    rows, cols = x.shape
    out = torch.empty((cols, rows), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(rows, block), triton.cdiv(cols, block))
    transpose_kernel[grid](x, out, rows, cols, x.stride(0), out.stride(0), BLOCK=block, num_warps=4)
    return out


MATMUL_BLOCKS = (64, 64, 32)


def matmul(a, b):
    (m, k), (_, n) = a.shape, b.shape
    block_m, block_n, block_k = MATMUL_BLOCKS
    assert m % block_m == 0 and n % block_n == 0 and k % block_k == 0, "sizes must be multiples of the blocks"
    c = torch.empty((m, n), device=a.device, dtype=torch.float32)
    matmul_kernel[(m // block_m, n // block_n)](a, b, c, k, a.stride(0), b.stride(0), c.stride(0),
                                                BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                                                num_warps=4)
    return c


def nvtx_ranges(*names):
    """Nested NVTX ranges: bankcheck names a launch inside them "<name>/<name>/.../<kernel>"."""
    stack = contextlib.ExitStack()
    for name in names:
        stack.enter_context(torch.cuda.nvtx.range(name))
    return stack


def main():
    if not torch.cuda.is_available():
        print("triton_kernels.py: no CUDA GPU available to torch", file=sys.stderr)
        return 1
    generator = torch.Generator().manual_seed(20261125)
    failures = []

    x = torch.randn(300, 200, generator=generator)  # not a multiple of the tiles: the masks matter
    x_gpu = x.to("cuda")
    for block in (32, 64):
        with nvtx_ranges("transpose", str(block)):
            out = transpose(x_gpu, block)
        if not torch.equal(out.cpu(), x.t()):
            failures.append(f"transpose, {block}x{block} tiles")

    # Small integers: every product and sum is exact in fp16 and fp32, so the result must be equal.
    for m, n, k in ((256, 256, 256), (128, 192, 96)):
        a = torch.randint(-2, 3, (m, k), generator=generator).to(torch.float16)
        b = torch.randint(-2, 3, (k, n), generator=generator).to(torch.float16)
        a_gpu, b_gpu = a.to("cuda"), b.to("cuda")
        with nvtx_ranges("matmul", "x".join(map(str, MATMUL_BLOCKS))):
            c = matmul(a_gpu, b_gpu)
        if not torch.equal(c.cpu(), a.float() @ b.float()):
            failures.append(f"matmul {m}x{n}x{k}")

    for failure in failures:
        print(f"triton_kernels.py: wrong result: {failure}", file=sys.stderr)
    if failures:
        return 1
    print("triton_kernels.py: 4 launches, every result right")
    return 0


if __name__ == "__main__":
    sys.exit(main())
