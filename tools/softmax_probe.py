"""The transformer block's masked softmax (benchmarks/compiling.py's block_step) compiled, forward
and backward, at its size (8 x 12 x 1024 x 1024 bfloat16), for a kernel profiler:
    GENESIS_COMPILE_SYNC=1 ncu --kernel-name regex:genesis_fused --launch-skip 6 --launch-count 2 \\
        --section SpeedOfLight --section Occupancy python3 tools/softmax_probe.py
Prints each step's time (CUDA events) when run alone. GENESIS_WARP_ROW_MIN_BLOCKS=3 (or 4) asks
ptxas for that many blocks a multiprocessor in the warp-row programs (fewer registers, perhaps
spills): run it with and without to see what occupancy buys. Programs build before their first
run (GENESIS_COMPILE_SYNC=1 unless set): built in the background, the first steps run eagerly,
and on a machine whose disk cache lacks them (a fresh one) every step of a short run did
(3.9-5.0 ms a step instead of 1.1-1.3, session 46)."""

import os
import sys

os.environ.setdefault("GENESIS_COMPILE_SYNC", "1")  # read when genesis loads

import numpy as np

import genesis

B, H, S = 8, 12, 1024
STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def masked_softmax(att, mask):
    att = (att * 0.125).masked_fill(mask, float("-inf"))
    att = genesis.exp(att - att.amax(dim=-1, keepdim=True))
    return att / att.sum(dim=-1, keepdim=True)


def main():
    dev = "cuda"
    scores = genesis.randn(B, H, S, S, device=dev).to(genesis.bfloat16).requires_grad_()
    mask = genesis.tensor(np.triu(np.ones((S, S), bool), 1), device=dev)
    grad = genesis.randn(B, H, S, S, device=dev).to(genesis.bfloat16)
    compiled = genesis.compile(masked_softmax)
    for step in range(STEPS):
        start, end = genesis.cuda.Event(enable_timing=True), genesis.cuda.Event(enable_timing=True)
        start.record()
        out = compiled(scores, mask)
        out.backward(grad)
        end.record()
        end.synchronize()
        print(f"step {step}: {start.elapsed_time(end) * 1e3:.1f} us")
        scores.grad = None


if __name__ == "__main__":
    main()
