"""Shared timing helper: warm-up, repeated samples until a time budget, median.

Fast calls (shorter than ``Budget.sample_floor``) are batched so that one sample lasts at least
that long; a sample's time is divided by its number of calls. ``sync`` is called before a sample
starts and after its last call, so asynchronous (CUDA) work is included in the time.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from dataclasses import dataclass
from typing import Callable, Optional

SyncFn = Optional[Callable[[], object]]


@dataclass(frozen=True)
class Budget:
    """How hard to try for one (case, library) pair."""

    warmup: int = 2  # untimed calls first
    min_time: float = 0.2  # stop sampling once this many seconds have passed ...
    max_samples: int = 50  # ... or once this many samples were taken,
    min_samples: int = 5  # but never with fewer samples than this
    sample_floor: float = 100e-6  # batch calls so one sample lasts at least this long (s)
    max_batch: int = 10_000


FULL = Budget()
QUICK = Budget(warmup=1, min_time=0.02, max_samples=5, min_samples=3, sample_floor=20e-6)


@dataclass
class Timing:
    median: float  # seconds per call
    min: float  # seconds per call, fastest sample
    samples: int
    calls_per_sample: int

    @property
    def calls(self) -> int:
        return self.samples * self.calls_per_sample


def _sample(fn: Callable[[], object], sync: Callable[[], object], number: int) -> float:
    sync()
    start = time.perf_counter()
    for _ in range(number):
        fn()
    sync()
    return time.perf_counter() - start


def _burst(fn: Callable[[], object], sync: Callable[[], object], number: int) -> float:
    """Like _sample, but the synchronisations lie outside the timed region: host time."""
    sync()
    start = time.perf_counter()
    for _ in range(number):
        fn()
    elapsed = time.perf_counter() - start
    sync()
    return elapsed


def _no_sync() -> None:
    return None


def measure(
    fn: Callable[[], object],
    sync: SyncFn = None,
    budget: Budget = FULL,
    min_calls: int = 1,
    burst: int | None = None,
) -> Timing:
    """Times ``fn()`` (its result is dropped) and returns the median time per call.

    ``min_calls``: at least this many calls per sample (between two ``sync()`` calls), for
    host-time cases whose one synchronisation per sample must not weigh on the per-call time.
    ``burst``: each sample is exactly this many calls, timed without its ``sync()`` calls
    (made before and after it, untimed): the host cost of calls that queue device work, with
    the queue drained between bursts so it never fills.
    """
    sync = sync or _no_sync
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(budget.warmup):
            fn()
        sync()
        sampler = _sample
        if burst is not None:
            sampler, number = _burst, burst
        else:
            first = _sample(fn, sync, 1)
            number = 1
            if first < budget.sample_floor:
                number = min(budget.max_batch, math.ceil(budget.sample_floor / max(first, 1e-9)))
            number = max(number, min_calls)
        samples = []
        start = time.perf_counter()
        while len(samples) < budget.max_samples:
            samples.append(sampler(fn, sync, number) / number)
            enough = len(samples) >= budget.min_samples
            if enough and time.perf_counter() - start >= budget.min_time:
                break
    finally:
        if gc_was_enabled:
            gc.enable()
    return Timing(statistics.median(samples), min(samples), len(samples), number)


def measure_reported(timer: Callable[[], float], calls: int, budget: Budget = FULL) -> Timing:
    """Median of ``timer()``, which measures itself (e.g. in C++) and returns seconds per
    operation over ``calls`` operations: ``budget.warmup`` untimed runs, then
    ``budget.min_samples`` samples."""
    for _ in range(budget.warmup):
        timer()
    samples = [float(timer()) for _ in range(budget.min_samples)]
    return Timing(statistics.median(samples), min(samples), len(samples), calls)
