"""NumPy-style indexing (the index planner): basic slices, integer-array gather and scatter,
the accumulating scatter_add_ and index_add_, boolean-mask get and fill.

Two host-time cases on a 1000x1000 float32 matrix (the planner's per-call overhead), then the
data-moving ones: 2^24 indices into 2^28 float32 elements on CUDA (1 GiB), 2^20 into 2^24 on the
CPU. Index tensors live on the same device as the indexed tensor. Inputs are random (indices
from ``ctx.rng``; on CUDA the scatter's unique indices come from ``torch.randperm`` on the GPU,
which is much faster than a host permutation of 2^28 elements).
"""

from __future__ import annotations

import numpy as np

import genesis
from benchmarks.common import Case, Context, Goal, Registry, size_str

register = Registry()
cases = register.cases

HOST_SHAPE = (1000, 1000)  # host-time cases: same size in every mode


def _p2(n: int) -> str:
    """'2^24' for a power of two, else the number."""
    p = n.bit_length() - 1
    return f"2^{p}" if n == 1 << p else str(n)


def _goal(ctx: Context, text: str, min_speedup: float, host: bool = False) -> Goal | None:
    """A goal versus torch, on CUDA only; throughput goals only at full size (not --quick),
    host-time goals (same size in every mode) also with --quick."""
    if not ctx.on_cuda or (ctx.quick and not host):
        return None
    return Goal(text, min_speedup=min_speedup)


def _unique_indices(ctx: Context, n: int, k: int) -> np.ndarray:
    """``k`` distinct random int64 indices below ``n``: a random permutation's prefix."""
    T = ctx.torch
    if ctx.on_cuda and T is not None:
        gen = T.Generator(device=ctx.device)
        gen.manual_seed(ctx.seed)
        perm = T.randperm(n, device=ctx.device, dtype=T.int64, generator=gen)
        out = perm[:k].cpu().numpy()
        del perm
        return out
    return ctx.rng.permutation(n)[:k].astype(np.int64)


@register(name="x[10:20, 50:100] host time")
def basic_slice(ctx: Context) -> Case:
    """A basic slice (a view, no data moved): the planner's Python-to-view overhead."""
    a = ctx.rng.random(HOST_SHAPE, dtype=np.float32)
    x = ctx.to_genesis(a)
    t = ctx.to_torch(a) if ctx.torch is not None else None
    return Case(
        "x[10:20, 50:100] host time",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=lambda: x[10:20, 50:100],
            numpy=lambda: a[10:20, 50:100],
            torch=lambda: t[10:20, 50:100],
        ),
        sync=False,
        goal=_goal(ctx, ">= 2x torch", 2.0, host=True),
    )


def _small_gather(ctx: Context, rewrite: bool) -> Case:
    """A 4-row gather with an int64 index tensor on x's device: host cost per call. genesis
    checks index bounds (on CUDA without waiting: Note [Deferred index errors]; under
    set_index_check("immediate") it waits, only the first time while the index is unchanged:
    Note [Validated index memo]), so each sample makes ``min_calls`` calls and synchronises once
    at its end (both libraries). With ``rewrite`` both libraries write the index
    (``idx.add_(0)``) before every call, which made the immediate check wait every time."""
    a = ctx.rng.random(HOST_SHAPE, dtype=np.float32)
    idx = ctx.rng.integers(0, HOST_SHAPE[0], 4, dtype=np.int64)
    x, gi = ctx.to_genesis(a), ctx.to_genesis(idx)
    if ctx.torch is not None:
        t, ti = ctx.to_torch(a), ctx.to_torch(idx)
    calls = ctx.pick(1000, 100)
    fns = ctx.fns(
        genesis=(lambda: x[gi.add_(0)]) if rewrite else (lambda: x[gi]),
        numpy=lambda: a[idx],
        torch=(lambda: t[ti.add_(0)]) if rewrite else (lambda: t[ti]),
    )
    per_sample = f"{calls} calls per sample, one synchronize at the end of each sample (CUDA)"
    return Case(
        "x[idx] host time, index rewritten" if rewrite else "x[idx] host time, 4 indices",
        size_str(a.shape, "float32"),
        fns,
        nbytes=None,  # 4 rows: the host cost is what is measured
        min_calls=calls,
        goal=None if rewrite else _goal(ctx, ">= 2x torch", 2.0, host=True),
        info=(
            f"idx.add_(0) then x[idx], {per_sample}: the cost when the index changes between calls"
            if rewrite
            else f"{per_sample}, time per call"
        ),
    )


@register(name="x[idx] host time, 4 indices")
def small_gather(ctx: Context) -> Case:
    return _small_gather(ctx, rewrite=False)


@register(name="x[idx] host time, index rewritten")
def small_gather_rewritten(ctx: Context) -> Case:
    return _small_gather(ctx, rewrite=True)


@register(name="a[idx] gather")
def gather(ctx: Context) -> Case:
    n = ctx.pick(1 << 24, 1 << 16, cuda=1 << 28)
    k = ctx.pick(1 << 20, 1 << 12, cuda=1 << 24)
    a = ctx.rng.random(n, dtype=np.float32)
    idx = ctx.rng.integers(0, n, k, dtype=np.int64)
    x, gi = ctx.to_genesis(a), ctx.to_genesis(idx)
    if ctx.torch is not None:
        t, ti = ctx.to_torch(a), ctx.to_torch(idx)
    return Case(
        "a[idx] gather",
        f"{_p2(k)} of {size_str(n, 'float32')}",
        ctx.fns(
            genesis=lambda: x[gi],
            numpy=lambda: a[idx],
            torch=lambda: t[ti],
        ),
        nbytes=k * (8 + 4 + 4),  # index read, element read, element written
        goal=_goal(ctx, ">= 1x torch", 1.0),
    )


@register(name="m[rows] row gather")
def row_gather(ctx: Context) -> Case:
    rows, cols = ctx.pick(1 << 16, 1 << 10, cuda=1 << 22), 64
    k = ctx.pick(1 << 14, 1 << 8, cuda=1 << 18)
    a = ctx.rng.random((rows, cols), dtype=np.float32)
    idx = ctx.rng.integers(0, rows, k, dtype=np.int64)
    x, gi = ctx.to_genesis(a), ctx.to_genesis(idx)
    if ctx.torch is not None:
        t, ti = ctx.to_torch(a), ctx.to_torch(idx)
    return Case(
        "m[rows] row gather",
        f"{_p2(k)} rows of {_p2(rows)}x{cols} f32",
        ctx.fns(
            genesis=lambda: x[gi],
            numpy=lambda: a[idx],
            torch=lambda: t[ti],
        ),
        nbytes=k * 8 + 2 * k * cols * 4,  # indices read, rows read + written
        goal=_goal(ctx, ">= 1x torch", 1.0),
    )


@register(name="a[idx] = v scatter")
def scatter(ctx: Context) -> Case:
    """Unique indices (no write races), so every call writes the same values: repeatable."""
    n = ctx.pick(1 << 24, 1 << 16, cuda=1 << 28)
    k = ctx.pick(1 << 20, 1 << 12, cuda=1 << 24)
    a = ctx.rng.random(n, dtype=np.float32)
    v = ctx.rng.random(k, dtype=np.float32)
    idx = _unique_indices(ctx, n, k)
    x, gi, gv = ctx.to_genesis(a), ctx.to_genesis(idx), ctx.to_genesis(v)
    dst = a.copy()  # NumPy's own destination (the reference on CUDA)

    def genesis_set():
        x[gi] = gv
        return x

    def numpy_set():
        dst[idx] = v
        return dst

    torch_set = None
    if ctx.torch is not None:
        t, ti, tv = ctx.to_torch(a), ctx.to_torch(idx), ctx.to_torch(v)

        def torch_set():
            t[ti] = tv
            return t

    return Case(
        "a[idx] = v scatter",
        f"{_p2(k)} into {size_str(n, 'float32')}",
        ctx.fns(genesis=genesis_set, numpy=numpy_set, torch=torch_set),
        nbytes=k * (8 + 4 + 4),  # index read, value read, element written
        goal=_goal(ctx, ">= 1x torch", 1.0),
        info="unique indices (a random permutation's prefix); the whole destination is checked",
    )


@register(name="a.scatter_add_(0, idx, v)")
def scatter_add(ctx: Context) -> Case:
    """Random indices with duplicates: every value is added (atomics on CUDA). The check
    compares the first call's result to NumPy's np.add.at, to a tolerance (the order of float
    additions differs)."""
    n = ctx.pick(1 << 24, 1 << 16, cuda=1 << 28)
    k = ctx.pick(1 << 20, 1 << 12, cuda=1 << 24)
    a = ctx.rng.random(n, dtype=np.float32)
    v = ctx.rng.random(k, dtype=np.float32)
    idx = ctx.rng.integers(0, n, k, dtype=np.int64)
    x, gi, gv = ctx.to_genesis(a), ctx.to_genesis(idx), ctx.to_genesis(v)
    dst = a.copy()

    def numpy_add():
        np.add.at(dst, idx, v)
        return dst

    torch_add = None
    if ctx.torch is not None:
        t, ti, tv = ctx.to_torch(a), ctx.to_torch(idx), ctx.to_torch(v)

        def torch_add():
            return t.scatter_add_(0, ti, tv)

    def reference():
        out = a.copy()
        np.add.at(out, idx, v)
        return out

    return Case(
        "a.scatter_add_(0, idx, v)",
        f"{_p2(k)} into {size_str(n, 'float32')}",
        ctx.fns(genesis=lambda: x.scatter_add_(0, gi, gv), numpy=numpy_add, torch=torch_add),
        nbytes=k * (8 + 4 + 8),  # index read, value read, element read + written
        reference=reference,
        rtol=1e-5,
        atol=1e-5,
        goal=_goal(ctx, ">= 1x torch", 1.0),
        info="random indices (duplicates); checked against np.add.at to a tolerance",
    )


@register(name="m.index_add_(0, rows, src)")
def index_add(ctx: Context) -> Case:
    rows, cols = ctx.pick(1 << 16, 1 << 10, cuda=1 << 22), 64
    k = ctx.pick(1 << 14, 1 << 8, cuda=1 << 18)
    a = ctx.rng.random((rows, cols), dtype=np.float32)
    src = ctx.rng.random((k, cols), dtype=np.float32)
    idx = ctx.rng.integers(0, rows, k, dtype=np.int64)
    x, gi, gs = ctx.to_genesis(a), ctx.to_genesis(idx), ctx.to_genesis(src)
    dst = a.copy()

    def numpy_add():
        np.add.at(dst, idx, src)
        return dst

    torch_add = None
    if ctx.torch is not None:
        t, ti, ts = ctx.to_torch(a), ctx.to_torch(idx), ctx.to_torch(src)

        def torch_add():
            return t.index_add_(0, ti, ts)

    def reference():
        out = a.copy()
        np.add.at(out, idx, src)
        return out

    return Case(
        "m.index_add_(0, rows, src)",
        f"{_p2(k)} rows into {_p2(rows)}x{cols} f32",
        ctx.fns(genesis=lambda: x.index_add_(0, gi, gs), numpy=numpy_add, torch=torch_add),
        nbytes=k * 8 + 3 * k * cols * 4,  # indices read, rows read, elements read + written
        reference=reference,
        rtol=1e-5,
        atol=1e-5,
        goal=_goal(ctx, ">= 1x torch", 1.0),
        info="random rows (duplicates); checked against np.add.at to a tolerance",
    )


def _mask_inputs(ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    n = ctx.pick(1 << 22, 1 << 16, cuda=1 << 28)
    a = ctx.rng.random(n, dtype=np.float32)
    mask = ctx.rng.integers(0, 2, n, dtype=np.uint8).astype(bool)  # density 0.5
    return a, mask


@register(name="a[mask] get")
def mask_get(ctx: Context) -> Case:
    a, mask = _mask_inputs(ctx)
    x, gm = ctx.to_genesis(a), ctx.to_genesis(mask)
    if ctx.torch is not None:
        t, tm = ctx.to_torch(a), ctx.to_torch(mask)
    count = int(np.count_nonzero(mask))
    return Case(
        "a[mask] get",
        f"{size_str(a.size, 'float32')}, mask 0.5",
        ctx.fns(
            genesis=lambda: x[gm],
            numpy=lambda: a[mask],
            torch=lambda: t[tm],
        ),
        nbytes=mask.nbytes + a.nbytes + 4 * count,  # mask and a read, selected written
        goal=_goal(ctx, ">= 1x torch", 1.0),
    )


@register(name="a[mask] = 1.0")
def mask_fill(ctx: Context) -> Case:
    a, mask = _mask_inputs(ctx)
    x, gm = ctx.to_genesis(a), ctx.to_genesis(mask)
    dst = a.copy()
    count = int(np.count_nonzero(mask))

    def genesis_fill():
        x[gm] = 1.0
        return x

    def numpy_fill():
        dst[mask] = 1.0
        return dst

    torch_fill = None
    if ctx.torch is not None:
        t, tm = ctx.to_torch(a), ctx.to_torch(mask)

        def torch_fill():
            t[tm] = 1.0
            return t

    return Case(
        "a[mask] = 1.0",
        f"{size_str(a.size, 'float32')}, mask 0.5",
        ctx.fns(genesis=genesis_fill, numpy=numpy_fill, torch=torch_fill),
        nbytes=mask.nbytes + 4 * count,  # mask read, selected elements written
        goal=_goal(ctx, ">= 1x torch", 1.0),
    )


# --- issue 19: no hidden synchronization (Note [Deferred index errors]) -------------------------


def _in_unit_interval(r: np.ndarray) -> str | None:
    """Gathered values of ``rng.random`` data all lie in [0, 1)."""
    return None if r.size == 0 or (r.min() >= 0 and r.max() < 1) else "values outside [0, 1)"


@register(name="randint + a[idx] gather")
def randint_gather(ctx: Context) -> Case:
    """Fresh random indices every call (a new tensor, so no memo of an earlier check applies):
    genesis's CUDA gather never waits for its bounds check (deferred index errors)."""
    n = ctx.pick(1 << 24, 1 << 16, cuda=1 << 28)
    k = ctx.pick(1 << 20, 1 << 12, cuda=1 << 24)
    a = ctx.rng.random(n, dtype=np.float32)
    x = ctx.to_genesis(a)
    rng = np.random.default_rng(ctx.seed)
    t, T = None, ctx.torch
    if T is not None:
        t = ctx.to_torch(a)
    return Case(
        "randint + a[idx] gather",
        f"{_p2(k)} of {size_str(n, 'float32')}",
        ctx.fns(
            genesis=lambda: x[genesis.randint(0, n, (k,), device=ctx.device)],
            numpy=lambda: a[rng.integers(0, n, k)],
            torch=lambda: t[T.randint(0, n, (k,), device=ctx.device)],
        ),
        reference=lambda: np.zeros(k, np.float32),
        values=False,
        validate=_in_unit_interval,
        nbytes=k * (8 + 8 + 4 + 4),  # indices written and read, element read and written
        goal=_goal(ctx, ">= 1x torch", 1.0),
        info="random values: dtype, shape and range checked",
    )


@register(name="randint(4) + x[idx] host time")
def randint_small_gather(ctx: Context) -> Case:
    """randint(4) then a 4-row gather: the host cost of a fresh small index each call, which the
    immediate check paid as one wait per call (Note [Deferred index errors])."""
    a = ctx.rng.random(HOST_SHAPE, dtype=np.float32)
    x = ctx.to_genesis(a)
    rng = np.random.default_rng(ctx.seed)
    rows = HOST_SHAPE[0]
    t, T = None, ctx.torch
    if T is not None:
        t = ctx.to_torch(a)
    calls = ctx.pick(1000, 100)
    return Case(
        "randint(4) + x[idx] host time",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=lambda: x[genesis.randint(0, rows, (4,), device=ctx.device)],
            numpy=lambda: a[rng.integers(0, rows, 4)],
            torch=lambda: t[T.randint(0, rows, (4,), device=ctx.device)],
        ),
        reference=lambda: np.zeros((4, HOST_SHAPE[1]), np.float32),
        values=False,
        validate=_in_unit_interval,
        min_calls=calls,
        goal=_goal(ctx, ">= 1x torch", 1.0, host=True),
        info=f"{calls} calls per sample, one synchronize at the end of each sample (CUDA)",
    )


def _training_loop(ctx: Context, immediate: bool) -> Case:
    """Issue 19's training-loop shape: each step gathers a batch of embedding rows with fresh
    random indices, multiplies by a weight and reduces a loss; the loss is read with item()
    every 100 steps (the only waits the loop asks for). With ``immediate`` genesis runs it under
    set_index_check("immediate"), which waits for every gather's bounds check."""
    vocab = ctx.pick(1 << 14, 1 << 10, cuda=1 << 16)
    width = ctx.pick(128, 32, cuda=256)
    batch = ctx.pick(1024, 64, cuda=4096)
    steps = ctx.pick(100, 20, cuda=1000)
    every = min(100, steps)
    e = ctx.rng.random((vocab, width), dtype=np.float32)
    w = (ctx.rng.random((width, width), dtype=np.float32) - 0.5) / width
    E, W = ctx.to_genesis(e), ctx.to_genesis(w)
    dev = ctx.device

    def genesis_loop():
        mode = genesis.cuda.get_index_check()
        genesis.cuda.set_index_check("immediate" if immediate else "deferred")
        try:
            total = 0.0
            for s in range(steps):
                h = E[genesis.randint(0, vocab, (batch,), device=dev)] @ W
                loss = (h * h).mean()
                if (s + 1) % every == 0:
                    total += loss.item()
            return loss
        finally:
            genesis.cuda.set_index_check(mode)

    fns = {"genesis": genesis_loop}
    T = ctx.torch
    if T is not None and not immediate:
        te, tw = ctx.to_torch(e), ctx.to_torch(w)

        def torch_loop():
            total = 0.0
            for s in range(steps):
                h = te[T.randint(0, vocab, (batch,), device=dev)] @ tw
                loss = (h * h).mean()
                if (s + 1) % every == 0:
                    total += loss.item()
            return loss

        fns["torch"] = torch_loop
    name = "training loop, immediate index check" if immediate else "training loop"
    return Case(
        name,
        f"{steps} steps: [{batch}] of [{vocab}, {width}] @ [{width}, {width}] f32",
        fns,
        reference=lambda: np.zeros((), np.float32),
        values=False,
        goal=None if immediate else _goal(ctx, ">= 1x torch", 1.0),
        info=f"time of the whole loop; loss.item() every {every} steps",
    )


@register(name="training loop")
def training_loop(ctx: Context) -> Case:
    return _training_loop(ctx, immediate=False)


@register(name="training loop, immediate index check")
def training_loop_immediate(ctx: Context) -> Case:
    return _training_loop(ctx, immediate=True)
