"""Host time per call of small CUDA ops, genesis vs torch: where the time of `a + b` goes.

Bursts of 100 calls (shorter than the launch queue), device synchronised between bursts outside
the timed region; prints the median per call. Run on a GPU machine: python tools/host_time_probe.py
"""

import statistics
import time

import torch

import genesis


def per_call(fn, sync, bursts=200, calls=100):
    times = []
    for _ in range(bursts):
        sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls)
    sync()
    return statistics.median(times)


def main():
    a, b = genesis.ones(1, device="cuda"), genesis.ones(1, device="cuda")
    ta, tb = torch.ones(1, device="cuda"), torch.ones(1, device="cuda")
    gs, ts = genesis.cuda.synchronize, torch.cuda.synchronize
    x, tx = genesis.rand(1000, 1000, device="cuda"), torch.rand(1000, 1000, device="cuda")
    gi = genesis.tensor([3, 141, 592, 653], device="cuda")
    ti = torch.tensor([3, 141, 592, 653], device="cuda")
    cases = [
        ("a + b", lambda: a + b, lambda: ta + tb),
        ("a + 1.0", lambda: a + 1.0, lambda: ta + 1.0),
        ("a.exp()", lambda: a.exp(), lambda: ta.exp()),
        ("a.add_(b)", lambda: a.add_(b), lambda: ta.add_(tb)),
        (
            "empty(1)",
            lambda: genesis.empty(1, device="cuda"),
            lambda: torch.empty(1, device="cuda"),
        ),
        ("a.view(1)", lambda: a.view(1), lambda: ta.view(1)),
        ("a.sum()", lambda: a.sum(), lambda: ta.sum()),
        ("x[10:20, 50:100]", lambda: x[10:20, 50:100], lambda: tx[10:20, 50:100]),
        ("x[idx]", lambda: x[gi], lambda: tx[ti]),
        ("x[idx] rewritten", lambda: x[gi.add_(0)], lambda: tx[ti.add_(0)]),
    ]
    print(f"{'case':12s} {'genesis':>10s} {'torch':>10s} {'ratio':>7s}")
    for name, g, t in cases:
        tg, tt = per_call(g, gs), per_call(t, ts)
        print(f"{name:12s} {tg * 1e6:8.2f}us {tt * 1e6:8.2f}us {tt / tg:6.2f}x")

    # The same a + b with no Python in the loop (genesis._C._testing): how much of the host time
    # is the kernel launch path, the allocation, and the rest of ops::binary.
    testing = genesis._C._testing
    out = genesis.empty(1, device="cuda")
    in_cpp = [
        ("cuda::binary (launch path)", lambda: testing.time_launch_calls(out, a, b, 100)),
        ("ops::binary (+ promotion, alloc)", lambda: testing.time_binary_calls(a, b, 100)),
        ("Tensor::empty + free", lambda: testing.time_empty_calls(a, 100)),
        ("result object make + free", lambda: testing.time_wrap_calls(a, 100)),
    ]
    for name, timed in in_cpp:
        samples = []
        for _ in range(200):
            gs()
            samples.append(timed() / 100)
        print(f"C++ {name:34s} {statistics.median(samples) * 1e6:6.2f}us")


if __name__ == "__main__":
    main()
