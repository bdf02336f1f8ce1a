"""A measurement tool: where an optimizer step's time goes on CUDA (host work before the launch,
kernel time) for genesis and torch's fused step, over benchmarks/optim.py's shapes. Run on the
GPU machine: python3 tools/optim_step_probe.py"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile

import genesis


def shapes() -> list[tuple[int, ...]]:
    d = 768
    per_layer = [(d,), (d,), (d, 3 * d), (3 * d,), (d, d), (d,)]
    per_layer += [(d,), (d,), (d, 4 * d), (4 * d,), (4 * d, d), (d,)]
    s = [(50257, d), (1024, d)] + per_layer * 12 + [(d,), (d,)]
    return s + [(d,)] * (210 - len(s))


def median_ms(fn, n: int, sync: bool) -> float:
    times = []
    for _ in range(n):
        torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        if sync:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    torch.cuda.synchronize()
    return statistics.median(times) * 1e3


def main() -> None:
    cls = sys.argv[1] if len(sys.argv) > 1 else "AdamW"
    options = {"lr": 1e-3, "weight_decay": 0.1} if cls == "AdamW" else {"lr": 1e-2, "momentum": 0.9}
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(s, dtype=np.float32) for s in shapes()]
    g_params = [genesis.nn.Parameter(genesis.tensor(v, device="cuda")) for v in values]
    t_params = [torch.nn.Parameter(torch.tensor(v, device="cuda")) for v in values]
    for gp, tp, v in zip(g_params, t_params, values):
        gp.grad = genesis.tensor(v, device="cuda")
        tp.grad = torch.tensor(v, device="cuda")
    g_opt = getattr(genesis.optim, cls)(g_params, **options)
    t_opt = getattr(torch.optim, cls)(t_params, **options, fused=True)
    for _ in range(3):
        g_opt.step()
        t_opt.step()
    for name, fn in (("genesis", g_opt.step), ("torch", t_opt.step)) * 2:
        print(
            f"{cls} {name}: wall synced {median_ms(fn, 40, True):.3f} ms, "
            f"host before return {median_ms(fn, 40, False):.3f} ms"
        )
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            g_opt.step()
            t_opt.step()
        torch.cuda.synchronize()
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12))


main()
