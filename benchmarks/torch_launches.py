#!/usr/bin/env python3
"""torch_launches.py [LAUNCHES]: a PyTorch loop of about LAUNCHES (default 1000) small kernel launches,
for launch_cost.sh to time plain, under `bankcheck run` and under `bankcheck run --measure-once`
(issue 35: a script of 1,000 launches within 2x of its plain time).

Each step is four ops on 256x256 float tensors made before the loop (a matmul, a ReLU, an add, a
transposed copy), LAUNCHES // 4 steps; PyTorch's caching allocator hands the same blocks to each
step's outputs, so every step after the first repeats the first one's launch configurations. Prints
the loop's own time, from before the first step to after a synchronization: "torch_launches: N
launches (4 ops x S steps) in T ms". Exit 2 on a bad argument, 1 without a CUDA device.
"""

import sys
import time


def main():
    try:
        launches = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
        if not 4 <= launches <= 1_000_000:
            raise ValueError
    except ValueError:
        print("usage: torch_launches.py [LAUNCHES (4 to 1000000)]", file=sys.stderr)
        return 2
    import torch

    if not torch.cuda.is_available():
        print("torch_launches.py: no CUDA device", file=sys.stderr)
        return 1
    x = torch.rand(256, 256, device="cuda")
    w = torch.rand(256, 256, device="cuda")
    torch.cuda.synchronize()
    steps = launches // 4
    start = time.perf_counter()
    for _ in range(steps):
        y = x @ w
        y = torch.relu(y)
        y = y + x
        y.t().contiguous()
    torch.cuda.synchronize()
    elapsed = (time.perf_counter() - start) * 1000
    print(f"torch_launches: {4 * steps} launches (4 ops x {steps} steps) in {elapsed:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
