"""DLPack exchanges: the host cost of handing a 1024-element float32 tensor between genesis and
PyTorch (and CuPy on CUDA, when it imports), no data moved.

Two full exchanges, each against torch exchanging with itself (``torch.from_dlpack`` of a torch
tensor): genesis as the consumer of a torch tensor, genesis as the producer for torch. Then
genesis's side alone, timed in a Python loop (``Case.timer``): ``Tensor.__dlpack__`` (producer:
the capsule, and on CUDA the stream handshake a consumer on the default stream asks for) and
``genesis.from_dlpack`` of a ready-made torch capsule (consumer: validation, the tensor, and
the producer's deleter when it is dropped). Results are dropped right away, so every timed call
also releases what it made. The goal, on CUDA: genesis's side <= 5 us per exchange.
"""

from __future__ import annotations

import gc
import time
from typing import Any, Callable

import numpy as np

import genesis
from benchmarks.common import Case, Context, Goal, Registry, size_str

register = Registry()
cases = register.cases

N = 1024  # elements: host cost only, in every mode
GOAL_SECONDS = 5e-6


def _goal(ctx: Context) -> Goal | None:
    """genesis's side of an exchange <= 5 us, judged on CUDA (host time: also with --quick)."""
    return Goal("<= 5 us", max_seconds=GOAL_SECONDS) if ctx.on_cuda else None


def _stream(ctx: Context) -> int | None:
    """What a consumer on the default stream passes: 1 (the legacy default stream) on CUDA, None
    on the CPU (the only value the array API allows there)."""
    return 1 if ctx.on_cuda else None


def _cupy(ctx: Context) -> Any:
    """The cupy module when it imports and sees a GPU (CUDA only), else None."""
    if not ctx.on_cuda:
        return None
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() == 0:
            return None
    except Exception:
        return None
    return cupy


def _loop_timer(ctx: Context, op: Callable[[Any], object], make: Callable[[], Any]):
    """(timer, calls): ``timer()`` makes ``calls`` inputs with ``make()`` (untimed), applies
    ``op`` to each (its result dropped at once) and returns seconds per call, with the garbage
    collector off as in timing.measure."""
    calls = ctx.pick(2000, 200)

    def timer() -> float:
        inputs = [make() for _ in range(calls)]
        enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter()
            for x in inputs:
                op(x)
            elapsed = time.perf_counter() - start
        finally:
            if enabled:
                gc.enable()
        return elapsed / calls

    return timer, calls


@register(name="genesis.from_dlpack(torch) host time")
def consume_torch(ctx: Context) -> Case | None:
    """genesis imports a torch tensor: torch's __dlpack__, genesis's import, torch's deleter."""
    T = ctx.torch
    if T is None:
        return None
    a = ctx.rng.random(N, dtype=np.float32)
    t = ctx.to_torch(a)
    fns = {
        "genesis": lambda: genesis.from_dlpack(t),
        "torch": lambda: T.from_dlpack(t),
    }
    if not ctx.on_cuda:
        fns["numpy"] = lambda: np.from_dlpack(t)
    return Case(
        "genesis.from_dlpack(torch) host time",
        size_str(N, "float32"),
        fns,
        reference=lambda: a,
        sync=False,
        info=(
            "a torch tensor consumed by genesis.from_dlpack (genesis column), by "
            "torch.from_dlpack (torch), by np.from_dlpack (numpy, CPU); shared, result dropped"
        ),
    )


@register(name="torch.from_dlpack(genesis) host time")
def produce_for_torch(ctx: Context) -> Case | None:
    """torch imports a genesis tensor: genesis's __dlpack__ (and stream handshake on CUDA)."""
    T = ctx.torch
    if T is None:
        return None
    a = ctx.rng.random(N, dtype=np.float32)
    g, t = ctx.to_genesis(a), ctx.to_torch(a)
    fns = {
        "genesis": lambda: T.from_dlpack(g),
        "torch": lambda: T.from_dlpack(t),
    }
    if not ctx.on_cuda:
        fns["numpy"] = lambda: T.from_dlpack(a)
    return Case(
        "torch.from_dlpack(genesis) host time",
        size_str(N, "float32"),
        fns,
        reference=lambda: a,
        sync=False,
        info=(
            "torch.from_dlpack of a genesis tensor (genesis column), of a torch tensor (torch), "
            "of a NumPy array (numpy, CPU): the producer differs, torch consumes; shared"
        ),
    )


@register(name="genesis side: x.__dlpack__() host time")
def producer_side(ctx: Context) -> Case:
    """The capsule alone, as a consumer on the default stream asks for it, dropped unconsumed
    (its destructor releases what the consumer's deleter would)."""
    a = ctx.rng.random(N, dtype=np.float32)
    g = ctx.to_genesis(a)
    s = _stream(ctx)
    timer, calls = _loop_timer(ctx, lambda x: x.__dlpack__(stream=s, max_version=(1, 1)), lambda: g)
    fns: dict[str, Callable[[], object]] = {}
    if ctx.torch is not None:
        t = ctx.to_torch(a)
        fns["torch"] = lambda: t.__dlpack__(stream=s, max_version=(1, 1))
    if not ctx.on_cuda:
        fns["numpy"] = lambda: a.__dlpack__(max_version=(1, 1))
    where = "stream=1 (the handshake: an event when genesis's stream is not the consumer's)"
    return Case(
        "genesis side: x.__dlpack__() host time",
        size_str(N, "float32"),
        fns,
        timer=timer,
        timer_calls=calls,
        sync=False,
        goal=_goal(ctx),
        info=(
            f"__dlpack__(max_version=(1, 1), {where if ctx.on_cuda else 'stream=None'}), the "
            f"capsule dropped unconsumed; genesis: a Python loop of {calls} calls per sample "
            "(not verified), the others timed as usual"
        ),
    )


@register(name="genesis side: from_dlpack(capsule) host time")
def consumer_side(ctx: Context) -> Case | None:
    """Import of a ready-made torch capsule, the tensor dropped (torch's deleter runs)."""
    T = ctx.torch
    if T is None:
        return None
    a = ctx.rng.random(N, dtype=np.float32)
    t = ctx.to_torch(a)
    s = _stream(ctx)
    timer, calls = _loop_timer(
        ctx, genesis.from_dlpack, lambda: t.__dlpack__(stream=s, max_version=(1, 1))
    )
    return Case(
        "genesis side: from_dlpack(capsule) host time",
        size_str(N, "float32"),
        {},
        timer=timer,
        timer_calls=calls,
        sync=False,
        goal=_goal(ctx),
        info=(
            f"genesis.from_dlpack of a versioned torch capsule made before timing, {calls} "
            "per sample in a Python loop (not verified); the result is dropped, so torch's "
            "deleter runs inside the timed call"
        ),
    )


@register(name="torch.from_dlpack(genesis vs cupy) host time")
def torch_consumes_cupy(ctx: Context) -> Case | None:
    """CUDA, CuPy installed: genesis against CuPy as the producer torch consumes."""
    T, cp = ctx.torch, _cupy(ctx)
    if T is None or cp is None:
        return None
    a = ctx.rng.random(N, dtype=np.float32)
    g, c = ctx.to_genesis(a), cp.asarray(a)
    return Case(
        "torch.from_dlpack(genesis vs cupy) host time",
        size_str(N, "float32"),
        {"genesis": lambda: T.from_dlpack(g), "torch": lambda: T.from_dlpack(c)},
        reference=lambda: a,
        sync=False,
        info="the torch column here is torch.from_dlpack(cupy_array): CuPy as the producer",
    )


@register(name="genesis.from_dlpack(cupy) host time")
def genesis_consumes_cupy(ctx: Context) -> Case | None:
    """CUDA, CuPy installed: genesis against torch as the consumer of a CuPy array."""
    T, cp = ctx.torch, _cupy(ctx)
    if cp is None:
        return None
    a = ctx.rng.random(N, dtype=np.float32)
    c = cp.asarray(a)
    fns = {"genesis": lambda: genesis.from_dlpack(c)}
    if T is not None:
        fns["torch"] = lambda: T.from_dlpack(c)
    return Case(
        "genesis.from_dlpack(cupy) host time",
        size_str(N, "float32"),
        fns,
        reference=lambda: a,
        sync=False,
        info="a CuPy array consumed by genesis.from_dlpack (genesis) and torch.from_dlpack (torch)",
    )
