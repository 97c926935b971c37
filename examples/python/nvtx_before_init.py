"""A PyTorch script as they are commonly written: its first NVTX range opens before CUDA
initializes, and its inputs are made with torch.randn inside that range. Under `bankcheck run`,
every launch must be named by the range it ran in (bankcheck's GPU test, framework/inject/
run_gpu_test.sh, checks that no case is outside "inputs" or "work"). Exit status 0, or 1 on a wrong
result."""

import sys

import torch

with torch.cuda.nvtx.range("inputs"):  # the first NVTX call: CUDA is not initialized yet
    x = torch.randn(64, 64, device="cuda")
    y = torch.randn(64, 64, device="cuda")
with torch.cuda.nvtx.range("work"):
    z = x + y
if not torch.allclose(z.cpu(), x.cpu() + y.cpu()):
    print("nvtx_before_init.py: x + y is wrong", file=sys.stderr)
    sys.exit(1)
print("nvtx_before_init.py: ok")
