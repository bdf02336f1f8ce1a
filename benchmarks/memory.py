"""The caching memory pools: allocation cost, pinned host <-> GPU transfers, device copies.

Everything but the C++ pool timing is CUDA-only (pinned memory needs a CUDA device); on the CPU
this area has one informational row, the host pool's allocate+free pair.
"""

from __future__ import annotations

import gc
import time

import numpy as np

import genesis
from benchmarks.common import Case, Context, Goal, Registry, size_str

register = Registry()
cases = register.cases

POOL_PAIR_BYTES = 4096


def _mib(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


@register(name="cached alloc+free pair (C++)")
def pool_pairs(ctx: Context) -> Case:
    """Cached allocate+free pairs timed in C++ (no Python overhead): genesis only."""
    testing = genesis._C._testing
    nbytes, pairs = POOL_PAIR_BYTES, ctx.pick(1_000_000, 100_000)
    if ctx.on_cuda:

        def timer() -> float:
            return testing.time_device_pool_pairs(-1, nbytes, pairs) * 1e-9

        return Case(
            "cached alloc+free pair (C++)",
            f"{nbytes} B device",
            {},
            timer=timer,
            timer_calls=pairs,
            goal=Goal("< 500 ns", max_seconds=500e-9),
            info=(
                f"genesis._C._testing.time_device_pool_pairs: mean of {pairs:,} pairs per "
                "sample, measured in C++. torch has no C++-level figure here: its Python-level "
                "empty+del pair is the torch column of 'empty(1024) host time'"
            ),
        )

    def host_timer() -> float:
        return testing.time_host_pool_pairs(nbytes, pairs) * 1e-9

    return Case(
        "cached alloc+free pair (C++)",
        f"{nbytes} B host pool",
        {},
        timer=host_timer,
        timer_calls=pairs,
        info=(
            f"informational: genesis._C._testing.time_host_pool_pairs, mean of {pairs:,} pairs "
            "per sample, measured in C++ on a fresh host-backend pool"
        ),
    )


@register(name="empty(1024) host time")
def empty_host_time(ctx: Context) -> Case | None:
    """Host cost of a small CUDA allocation (+ its free when the result is dropped)."""
    if not ctx.on_cuda:
        return None  # creation/empty(1024) covers the CPU
    dev, T, n = ctx.device, ctx.torch, 1024
    return Case(
        "empty(1024) host time",
        size_str(n, "float32"),
        ctx.fns(
            genesis=lambda: genesis.empty(n, dtype=genesis.float32, device=dev),
            numpy=lambda: np.empty(n, dtype=np.float32),  # reference: shape and dtype
            torch=lambda: T.empty(n, dtype=T.float32, device=dev),
        ),
        values=False,
        sync=False,
        goal=Goal(">= 2x torch", min_speedup=2.0),
    )


def _profiled_empty(ctx: Context, stacks: str | None, label: str) -> Case:
    """Host time of empty(1024) on ctx's device with the memory profiler in one mode."""
    mp = genesis.memory_profiler
    dev, n, calls = ctx.device, 1024, ctx.pick(20_000, 2_000)

    def loop() -> float:
        enabled = gc.isenabled()
        gc.disable()  # as timing.measure does
        try:
            start = time.perf_counter()
            for _ in range(calls):
                genesis.empty(n, device=dev)
            return (time.perf_counter() - start) / calls
        finally:
            if enabled:
                gc.enable()

    def timer() -> float:
        if label == "off":
            return loop()
        with mp.record(stacks=stacks, max_events=1 << 16):  # wraps: the steady state
            return loop()

    return Case(
        f"empty(1024) host time, profiling {label}",
        size_str(n, "float32"),
        {},
        timer=timer,
        timer_calls=calls,
        info=None
        if label != "off"
        else (
            "issue 18's cost rows (this and the next two): one alloc and one free event per "
            "call, ring of 2^16 events; compare the rows of one run. Goals: off within noise "
            "of before, no stacks <= +0.6 us per call, Python stacks <= +10 us per call "
            "(0.3 us and 5 us per event)"
        ),
    )


@register(name="empty(1024) host time, profiling off")
def empty_profiling_off(ctx: Context) -> Case:
    return _profiled_empty(ctx, None, "off")


@register(name="empty(1024) host time, profiling on")
def empty_profiling_on(ctx: Context) -> Case:
    return _profiled_empty(ctx, None, "on")


@register(name="empty(1024) host time, profiling python stacks")
def empty_profiling_stacks(ctx: Context) -> Case:
    return _profiled_empty(ctx, "python", "python stacks")


@register(name="H2D pinned .to(cuda, non_blocking)")
def h2d_pinned(ctx: Context) -> Case | None:
    """Pinned host tensor -> GPU, non_blocking, synchronised after each call."""
    if not ctx.on_cuda:
        return None
    dev, T, n = ctx.device, ctx.torch, ctx.pick(256 << 20, 1 << 20)
    a = ctx.rng.integers(0, 256, n, dtype=np.uint8)
    h = genesis.empty(n, dtype=genesis.uint8, pin_memory=True)
    h.copy_(genesis.from_numpy(a))
    if ctx.device == "cuda" and not h.is_pinned():
        raise RuntimeError("genesis.empty(..., pin_memory=True) is not pinned")
    fns = {"genesis": lambda: h.to(dev, non_blocking=True)}
    if T is not None:
        th = T.empty(n, dtype=T.uint8, pin_memory=True)
        th.copy_(T.from_numpy(a))
        if ctx.device == "cuda" and not th.is_pinned():
            raise RuntimeError("torch.empty(..., pin_memory=True) is not pinned")
        fns["torch"] = lambda: th.to(dev, non_blocking=True)
    return Case(
        "H2D pinned .to(cuda, non_blocking)",
        f"{_mib(n)} u8",
        fns,
        nbytes=n,  # bytes across the link
        reference=lambda: a,
    )


@register(name="D2H .to(cpu, non_blocking) -> pinned")
def d2h_pinned(ctx: Context) -> Case | None:
    """GPU -> host with non_blocking=True: both libraries land the result in pinned memory."""
    if not ctx.on_cuda:
        return None
    T, n = ctx.torch, ctx.pick(256 << 20, 1 << 20)
    a = ctx.rng.integers(0, 256, n, dtype=np.uint8)
    d = ctx.to_genesis(a)
    fns = {"genesis": lambda: d.to("cpu", non_blocking=True)}
    unpinned = []
    if ctx.device == "cuda":
        r = d.to("cpu", non_blocking=True)
        ctx.synchronize()
        if not r.is_pinned():
            unpinned.append("genesis")
        del r
    if T is not None:
        td = ctx.to_torch(a)
        fns["torch"] = lambda: td.to("cpu", non_blocking=True)
        if ctx.device == "cuda":
            r = td.to("cpu", non_blocking=True)
            ctx.synchronize()
            if not r.is_pinned():
                unpinned.append("torch")
            del r
    info = None
    if unpinned:
        info = (
            f"the non_blocking result of {' and '.join(unpinned)} is NOT in pinned memory "
            "(a synchronous copy through pageable memory)"
        )
    return Case(
        "D2H .to(cpu, non_blocking) -> pinned",
        f"{_mib(n)} u8",
        fns,
        nbytes=n,  # bytes across the link
        reference=lambda: a,
        info=info,
    )


@register(name="D2D clone")
def d2d_clone(ctx: Context) -> Case | None:
    """Device-to-device copy of 1 GiB: clone (bytes read + written)."""
    if not ctx.on_cuda:
        return None  # copies/clone covers the CPU
    n = ctx.pick(1 << 28, 1 << 16)
    a = ctx.rng.random(n, dtype=np.float32)
    x = ctx.to_genesis(a)
    fns = {"genesis": lambda: x.clone()}
    if ctx.torch is not None:
        t = ctx.to_torch(a)
        fns["torch"] = lambda: t.clone()
    return Case(
        "D2D clone",
        size_str(n, "float32"),
        fns,
        nbytes=2 * a.nbytes,
        reference=lambda: a,
    )
