"""A PyTorch script as they are commonly written: its first NVTX range opens before CUDA
initializes, its inputs are made with torch.randn inside that range, and a Triton kernel
(triton_kernels.py's transpose, where Triton is installed) runs inside the second. Under `bankcheck run`,
every launch must be named by the range it ran in (bankcheck's GPU test, framework/inject/
run_gpu_test.sh, checks that no case is outside "inputs" or "work"). Exit status 0, or 1 on a wrong
result."""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import triton_kernels  # Triton's transpose through a shared tile
except ImportError as error:
    triton_kernels = None
    print(f"nvtx_before_init.py: no Triton ({error}): its kernel is left out", file=sys.stderr)

with torch.cuda.nvtx.range("inputs"):  # the first NVTX call: CUDA is not initialized yet
    x = torch.randn(64, 64, device="cuda")
    y = torch.randn(64, 64, device="cuda")
with torch.cuda.nvtx.range("work"):
    z = x + y
    t = triton_kernels.transpose(x, 32) if triton_kernels else x.t()
if not torch.allclose(z.cpu(), x.cpu() + y.cpu()):
    print("nvtx_before_init.py: x + y is wrong", file=sys.stderr)
    sys.exit(1)
if not torch.equal(t.cpu(), x.cpu().t()):
    print("nvtx_before_init.py: the transpose is wrong", file=sys.stderr)
    sys.exit(1)
print("nvtx_before_init.py: ok")
