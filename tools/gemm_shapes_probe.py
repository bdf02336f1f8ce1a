"""GPT-2's matrix products one by one, genesis against torch (GPU machine only).

    python tools/gemm_shapes_probe.py

For each linear layer shape of the issue-47 GPT-2 step (8 x 1024 tokens, width 768, bf16 under
autocast), the CUDA kernels of one forward and backward of `F.linear` with bias (the forward
product, the input's and the weight's gradient products, the bias's sum), from torch.profiler
(CUPTI sees genesis's kernels too), listed per library with their times. Used to tell whether
the step's product time differs from torch's in the products themselves or in what is around
them.
"""

from __future__ import annotations

import numpy as np
import torch

import genesis
from tools.step_profile import kernel_table

SHAPES = [  # (name, rows, in_features, out_features)
    ("qkv", 8192, 768, 2304),
    ("attention out", 8192, 768, 768),
    ("mlp up", 8192, 768, 3072),
    ("mlp down", 8192, 3072, 768),
]


def case(lib, rows: int, k: int, n: int):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((rows, k), dtype=np.float32), device="cuda")
    w = lib.tensor(rng.standard_normal((n, k), dtype=np.float32) * 0.02, device="cuda")
    b = lib.tensor(np.zeros(n, np.float32), device="cuda")
    dy = lib.tensor(rng.standard_normal((rows, n), dtype=np.float32), device="cuda")
    for t in (x, w, b):
        t.requires_grad_(True)
    with lib.autocast("cuda", dtype=lib.bfloat16):
        dy16 = dy.to(lib.bfloat16)

    def step() -> None:
        x.grad = w.grad = b.grad = None
        with lib.autocast("cuda", dtype=lib.bfloat16):
            y = lib.nn.functional.linear(x.to(lib.bfloat16), w, b)
        y.backward(dy16)

    return step


def main() -> None:
    for name, rows, k, n in SHAPES:
        flops = 3 * 2 * rows * k * n
        print(f"\n== {name}: [{rows} x {k}] @ [{k} x {n}]^T, fwd+bwd {flops / 1e9:.1f} GFLOP")
        for label, lib, sync in (
            ("genesis", genesis, genesis.cuda.synchronize),
            ("torch", torch, torch.cuda.synchronize),
        ):
            kernel_table(label, case(lib, rows, k, n), sync, flops, "TFLOP/s")


if __name__ == "__main__":
    main()
