"""Sorting and selection: sort, argsort, topk along rows, unique, searchsorted, bincount.

Sizes: 2^24 elements on the CPU, 2^26 on CUDA (2^16 with --quick), float32 (sort also float16).
Results are checked once against NumPy (exact: a stable argsort, sorted values, np.unique,
np.searchsorted, np.bincount; topk against a sorted slice). Goals (full size only): >= 1x
torch on CUDA, >= 1x NumPy on the CPU (>= 1x torch for topk, which NumPy lacks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.common import Case, Context, Goal, Registry, size_str

register = Registry()
cases = register.cases


def _goal(ctx: Context, versus: str = "numpy") -> Goal | None:
    if ctx.quick:
        return None
    if ctx.on_cuda:
        return Goal(">= 1x torch", min_speedup=1.0, versus="torch")
    return Goal(f">= 1x {versus}", min_speedup=1.0, versus=versus)


def _n(ctx: Context) -> int:
    return ctx.pick(1 << 24, 1 << 16, cuda=1 << 26)


def _data(ctx: Context, n: int | tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return ctx.rng.standard_normal(n, dtype=np.float32).astype(dtype)


def _torch(ctx: Context, a: np.ndarray) -> Any:
    return ctx.to_torch(a) if ctx.torch is not None else None


def _sort(ctx: Context, dtype: Any) -> Case:
    a = _data(ctx, _n(ctx), dtype)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "sort",
        size_str(a.size, a.dtype.name),
        ctx.fns(
            genesis=lambda: x.sort().values,
            numpy=lambda: np.sort(a),
            torch=lambda: t.sort().values,
        ),
        nbytes=2 * a.nbytes,
        goal=_goal(ctx),
    )


@register(name="sort")
def sort_f32(ctx: Context) -> Case:
    return _sort(ctx, np.float32)


@register(name="sort")
def sort_f16(ctx: Context) -> Case:
    return _sort(ctx, np.float16)


@register(name="argsort")
def argsort_f32(ctx: Context) -> Case:
    a = _data(ctx, _n(ctx))
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "argsort",
        size_str(a.size, a.dtype.name),
        ctx.fns(
            genesis=lambda: x.argsort(),
            numpy=lambda: np.argsort(a, kind="stable"),
            torch=lambda: t.argsort(stable=True),
        ),
        nbytes=a.nbytes + 2 * a.size * 8,
        goal=_goal(ctx),
    )


@register(name="topk(16) of rows")
def topk_rows(ctx: Context) -> Case:
    cols = 1024
    a = _data(ctx, _n(ctx)).reshape(-1, cols)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "topk(16) of rows",
        size_str(a.size, a.dtype.name) + f" rows of {cols}",
        ctx.fns(
            genesis=lambda: x.topk(16).values,
            numpy=lambda: -np.sort(-a, axis=1)[:, :16],
            torch=lambda: t.topk(16).values,
        ),
        nbytes=a.nbytes,
        goal=_goal(ctx, versus="torch"),
    )


@register(name="unique")
def unique_i64(ctx: Context) -> Case:
    a = ctx.rng.integers(0, 1 << 16, _n(ctx), dtype=np.int64)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "unique",
        size_str(a.size, a.dtype.name),
        ctx.fns(genesis=lambda: x.unique(), numpy=lambda: np.unique(a), torch=lambda: t.unique()),
        nbytes=a.nbytes,
        goal=_goal(ctx),
    )


@register(name="searchsorted")
def searchsorted_f32(ctx: Context) -> Case:
    import genesis

    seq = np.sort(_data(ctx, 1 << 20))
    a = _data(ctx, _n(ctx))
    s, x = ctx.to_genesis(seq), ctx.to_genesis(a)
    ts, t = _torch(ctx, seq), _torch(ctx, a)
    return Case(
        "searchsorted",
        size_str(a.size, a.dtype.name) + " in 2^20",
        ctx.fns(
            genesis=lambda: genesis.searchsorted(s, x),
            numpy=lambda: np.searchsorted(seq, a),
            torch=lambda: ctx.torch.searchsorted(ts, t),
        ),
        nbytes=a.nbytes + a.size * 8,
        goal=_goal(ctx),
    )


def _bincount_case(ctx: Context, name: str, high: int) -> Case:
    a = ctx.rng.integers(0, high, _n(ctx), dtype=np.int64)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        name,
        size_str(a.size, a.dtype.name),
        ctx.fns(
            genesis=lambda: x.bincount(), numpy=lambda: np.bincount(a), torch=lambda: t.bincount()
        ),
        nbytes=a.nbytes,
        goal=_goal(ctx),
    )


@register(name="bincount")
def bincount_i64(ctx: Context) -> Case:
    """Counts of 2^24 (CUDA 2^26) int64 values in [0, 2^16): one wait for the values' range,
    then the counts straight from the items (CUDA: one pass for the range, global atomics for
    this many bins, Note [Counting in shared memory] in kernels/count.cu)."""
    return _bincount_case(ctx, "bincount", 1 << 16)


@register(name="bincount, 10 classes")
def bincount_classes(ctx: Context) -> Case:
    """Class counts: 2^24 (CUDA 2^26) int64 labels in [0, 10), every bin hit by millions of
    items (CUDA: per-block counts in shared memory, Note [Counting in shared memory])."""
    return _bincount_case(ctx, "bincount, 10 classes", 10)
