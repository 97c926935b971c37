#!/usr/bin/env python3
"""cp_async_gemm.py: two GEMMs that read global memory only through cp.async (LDGSTS), for
run_crosscheck.sh to compare the global sectors `bankcheck run` records of them with ncu's:

  bash benchmarks/run_crosscheck.sh BUILD_DIR -- python3 benchmarks/cp_async_gemm.py

A Triton matmul (256x256x256 fp32, 64x64x32 tiles, 3 stages: Triton pipelines the tiles' loads
with cp.async on sm_80 and later) and cuBLAS's fp32 GEMM with TF32 allowed (on an H100 an
`sm80_xmma_gemm_*` kernel that loads through cp.async). Prints the Triton result's largest error
against cuBLAS's. Needs PyTorch with CUDA and Triton; exit 1 without a CUDA device.
"""

import sys

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, K, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rows[:, None] * K + (k + ks)[None, :])
        b = tl.load(b_ptr + (k + ks)[:, None] * N + cols[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc)


def main():
    if not torch.cuda.is_available():
        print("cp_async_gemm.py: no CUDA device", file=sys.stderr)
        return 1
    torch.manual_seed(0)
    size = 256
    a = torch.randn(size, size, device="cuda")
    b = torch.randn(size, size, device="cuda")
    c = torch.empty(size, size, device="cuda")
    matmul_kernel[(size // 64, size // 64)](a, b, c, size, size, BM=64, BN=64, BK=32, num_stages=3, num_warps=4)
    torch.backends.cuda.matmul.allow_tf32 = True
    reference = a @ b
    torch.cuda.synchronize()
    print(f"cp_async_gemm: Triton against cuBLAS, largest difference {(c - reference).abs().max().item():.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
