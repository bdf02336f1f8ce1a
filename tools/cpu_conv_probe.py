"""Where the CPU's convolution time goes, genesis against torch (issue 45's CPU rows).

    PYTHONPATH=. python tools/cpu_conv_probe.py

genesis convolves on the CPU as windows and one product (Note [Convolution as windows and a
product] in genesis/nn/functional/_conv.py): the windows copied into a (rows, C * K) matrix
(im2col), then genesis's GEMM. For the benchmark rows' shapes this times the whole layer
forward + backward, the im2col copy alone, and the GEMM alone at the im2col's shape, in float32
and bfloat16, medians of a few calls, both libraries with their default threads.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np
import torch

import genesis


def median_ms(fn: Callable[[], Any], reps: int = 5) -> float:
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


CASES = [  # (name, N, C, H, W, out channels, dtype): benchmarks/layers.py's CPU shapes
    ("Conv2d 3x3", 8, 64, 32, 32, 64, "float32"),
    ("ResNet conv 3x3", 4, 64, 16, 16, 64, "bfloat16"),
]


def main() -> None:
    rng = np.random.default_rng(0)
    for name, n, c, h, w, o, dtype in CASES:
        x = rng.standard_normal((n, c, h, w), dtype=np.float32)
        rows, depth = n * h * w, c * 9
        flops = 2 * rows * depth * o
        print(f"\n== {name}: {n}x{c}x{h}x{w} -> {o}, {dtype}; im2col ({rows} x {depth})")
        for lib in (genesis, torch):
            dt = getattr(lib, dtype)
            lib.manual_seed(0)
            conv = lib.nn.Conv2d(c, o, 3, padding=1).to(dt)
            xt = lib.tensor(x).to(dt).requires_grad_()

            def layer(conv=conv, xt=xt) -> None:
                conv(xt).float().sum().backward()

            padded = lib.tensor(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))).to(dt)

            def im2col(p=padded, rows=rows, depth=depth) -> Any:
                windows = p.unfold(2, 3, 1).unfold(3, 3, 1)  # (n, c, h, w, 3, 3)
                return windows.permute(0, 2, 3, 1, 4, 5).reshape(rows, depth)

            a = lib.tensor(rng.standard_normal((rows, depth), dtype=np.float32)).to(dt)
            b = lib.tensor(rng.standard_normal((depth, o), dtype=np.float32)).to(dt)
            mm = median_ms(lambda a=a, b=b: a @ b)
            print(
                f"  {lib.__name__:8s} layer fwd+bwd {median_ms(layer):8.2f} ms   im2col "
                f"{median_ms(im2col):7.2f} ms   GEMM {mm:6.2f} ms ({flops / mm / 1e6:6.1f} GFLOP/s)"
            )


if __name__ == "__main__":
    main()
