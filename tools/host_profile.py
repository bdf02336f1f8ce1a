"""Where the host's time of a compiled GPT-2 step goes (GPU machine only).

    python tools/host_profile.py [--eager] [--steps N] [--top N]

Builds benchmarks/training.py's GPT-2 (B 8, S 1024) with genesis alone, times how long the host
takes to queue a step (the GPU idle at its start) and a synchronised step, then runs cProfile over
N steps and lists the functions by their own time and by cumulative time. When the host's time
is close to the step's, the GPU waits for Python: this says which Python.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np

import genesis
from benchmarks.training import gpt


def build(compiled: bool, b: int = 8, s: int = 1024):
    vocab, layers, width, heads = 50304, 12, 768, 12
    idx = np.random.default_rng(0).integers(0, vocab, (b, s + 1))
    genesis.manual_seed(0)
    model = gpt(genesis, vocab, s, layers, width, heads).to("cuda")
    x = genesis.tensor(idx[:, :-1], device="cuda")
    y = genesis.tensor(idx[:, 1:], device="cuda")
    opt = genesis.optim.AdamW(model.parameters(), lr=6e-4, weight_decay=0.1)
    forward = genesis.compile(model) if compiled else model

    def step():
        opt.zero_grad(set_to_none=True)
        with genesis.autocast("cuda", dtype=genesis.bfloat16):
            loss = forward(x, y)
        loss.backward()
        opt.step()
        return loss

    return step


def median_ms(step, synchronised: bool, reps: int = 15) -> float:
    times = []
    for _ in range(reps):
        genesis.cuda.synchronize()
        start = time.perf_counter()
        step()
        if synchronised:
            genesis.cuda.synchronize()
        times.append(time.perf_counter() - start)
    genesis.cuda.synchronize()
    return float(np.median(times)) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--eager", action="store_true")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    step = build(compiled=not args.eager)
    for _ in range(5):
        step()
    genesis.cuda.synchronize()
    host, wall = median_ms(step, False), median_ms(step, True)
    kind = "eager" if args.eager else "compiled"
    print(f"genesis {kind}: host queues a step in {host:.2f} ms, synchronised step {wall:.2f} ms")
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(args.steps):
        step()
    genesis.cuda.synchronize()
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
