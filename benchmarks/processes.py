"""A tensor handed to a worker process (issue 17): a 1 GiB float32 CPU tensor (1 MiB with
--quick) put on a ``multiprocessing`` Queue of a spawned worker, which adds 1 to its first item
and answers; one call is that round trip. genesis (genesis.multiprocessing) and torch
(torch.multiprocessing) send shared memory; NumPy's array goes through Python's own Queue, as
its pickled bytes (a copy each way in). Each library has its own worker, started when the case
is built; the first send (outside the timing) moves the tensor into shared memory.

The growth of the worker's memory from before it received the tensor to after it read all of
it is in the footnote:
``private`` is RssAnon (memory of its own: a copy shows up here), ``shared`` is RssShmem (pages
it maps from the sender). Goal: no copy, time >= 1x torch.
"""

from __future__ import annotations

import multiprocessing
from typing import Any, Callable

import numpy as np

import genesis
from benchmarks.common import Case, Context, Goal, Registry, size_str

register = Registry()
cases = register.cases

TIMEOUT = 600


def _rss() -> dict[str, int]:
    """RssAnon and RssShmem of this process, in bytes (Linux)."""
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("RssAnon", "RssShmem"):
                fields[name] = int(value.split()[0]) * 1024
    return fields


def _worker(lib: str, inbox: Any, outbox: Any) -> None:
    """Serves ("touch", x): x[0] += 1; ("rss", x): reads all of x, reports the RSS growth."""
    if lib == "genesis":
        import genesis  # noqa: F401  (registers the storages with the pickler)
    elif lib == "torch":
        import torch.multiprocessing  # noqa: F401
    while True:
        before = _rss()  # a copy made while unpickling counts too
        item = inbox.get(timeout=TIMEOUT)
        if item is None:
            return
        kind, x = item
        if kind == "touch":
            x[0] += 1
            outbox.put(1)
        else:
            float(x.sum())  # every page read
            after = _rss()
            outbox.put({k: after[k] - before.get(k, 0) for k in after})
        del x, item


class _Worker:
    """A spawned worker for one library, stopped when the case's inputs are released."""

    def __init__(self, lib: str, ctx: Any) -> None:
        self.inbox, self.outbox = ctx.Queue(), ctx.Queue()
        self.process = ctx.Process(target=_worker, args=(lib, self.inbox, self.outbox))
        self.process.daemon = True
        self.process.start()

    def round_trip(self, x: Any) -> np.ndarray:
        self.inbox.put(("touch", x))
        self.outbox.get(timeout=TIMEOUT)
        return np.ones(1)

    def rss(self, x: Any) -> dict[str, int]:
        self.inbox.put(("rss", x))
        return self.outbox.get(timeout=TIMEOUT)

    def __del__(self) -> None:
        try:
            self.inbox.put(None)
            self.process.join(10)
            if self.process.is_alive():
                self.process.kill()
        except Exception:
            pass


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB"


@register(name="Queue to a worker")
def queue_to_worker(ctx: Context) -> Case | None:
    if ctx.on_cuda:
        return None  # CPU tensors (CUDA IPC is not built yet)
    n = ctx.pick(1 << 28, 1 << 18)
    a = np.zeros(n, dtype=np.float32)
    libs: dict[str, tuple[Any, Any]] = {}
    import genesis.multiprocessing as gmp

    libs["genesis"] = (_Worker("genesis", gmp.get_context("spawn")), genesis.zeros(n))
    libs["numpy"] = (_Worker("numpy", multiprocessing.get_context("spawn")), a)
    if ctx.torch is not None:
        import torch.multiprocessing as tmp

        libs["torch"] = (_Worker("torch", tmp.get_context("spawn")), ctx.torch.zeros(n))
    rows = []
    for lib, (worker, x) in libs.items():
        worker.round_trip(x)  # the first send moves genesis's and torch's tensors
        grown = worker.rss(x)
        rows.append(f"{lib} private {_mib(grown['RssAnon'])}, shared {_mib(grown['RssShmem'])}")

    def fn(lib: str) -> Callable[[], np.ndarray]:
        worker, x = libs[lib]
        return lambda: worker.round_trip(x)

    fns = {lib: fn(lib) for lib in libs}
    return Case(
        "Queue to a worker",
        size_str(n, "float32") + " round trip",
        fns,
        values=False,
        goal=None if ctx.quick else Goal(">= 1x torch", min_speedup=1.0, versus="torch"),
        info="worker's RSS growth after reading all of it: " + "; ".join(rows),
    )
