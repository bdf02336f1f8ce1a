"""Issue 15's everyday operations not covered by the other areas: topk over a whole tensor at
k = 1, 16 and 1024, gather and scatter_ along a dim, index_select, masked_fill, nonzero, norm,
logsumexp, and the float16 forms of topk, cumsum and norm.

Sizes: 2^24 elements on the CPU, 2^26 on CUDA (2^16 with --quick); matrices are rows of 1024.
Inputs are random normals (indices uniform, masks half true). Results are checked once against
NumPy (topk against a sorted slice, the floating-point reductions to a tolerance). Goals (full
size only): >= 1x torch on CUDA, >= 1x NumPy on the CPU (torch where NumPy lacks the op).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.common import Case, Context, Registry, size_str
from benchmarks.sorting import _data, _goal, _n, _torch  # the same sizes, data and goals

register = Registry()
cases = register.cases

COLS = 1024


def _topk(ctx: Context, k: int, dtype: Any) -> Case:
    a = _data(ctx, _n(ctx), dtype)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        f"topk({k})",
        size_str(a.size, a.dtype.name),
        ctx.fns(
            genesis=lambda: x.topk(k).values,
            numpy=lambda: np.sort(np.partition(a, a.size - k)[a.size - k :])[::-1],
            torch=lambda: t.topk(k).values,
        ),
        nbytes=a.nbytes,
        goal=_goal(ctx, versus="torch"),
        info="NumPy: partition, then sort the k largest",
    )


@register(name="topk(1)")
def topk_1(ctx: Context) -> Case:
    return _topk(ctx, 1, np.float32)


@register(name="topk(16)")
def topk_16(ctx: Context) -> Case:
    return _topk(ctx, 16, np.float32)


@register(name="topk(1024)")
def topk_1024(ctx: Context) -> Case:
    return _topk(ctx, 1024, np.float32)


@register(name="topk(16)")
def topk_16_f16(ctx: Context) -> Case:
    return _topk(ctx, 16, np.float16)


@register(name="gather(1, idx)")
def gather_dim(ctx: Context) -> Case:
    a = _data(ctx, (_n(ctx) // COLS, COLS))
    idx = ctx.rng.integers(0, COLS, a.shape, dtype=np.int64)
    x, gi = ctx.to_genesis(a), ctx.to_genesis(idx)
    t, ti = _torch(ctx, a), _torch(ctx, idx)
    return Case(
        "gather(1, idx)",
        size_str(a.size, a.dtype.name) + f" rows of {COLS}",
        ctx.fns(
            genesis=lambda: x.gather(1, gi),
            numpy=lambda: np.take_along_axis(a, idx, axis=1),
            torch=lambda: t.gather(1, ti),
        ),
        nbytes=2 * a.nbytes + idx.nbytes,
        goal=_goal(ctx),
    )


@register(name="scatter_(1, idx, src)")
def scatter_dim(ctx: Context) -> Case:
    """Each row's indices are a permutation (PyTorch leaves duplicate writes unspecified)."""
    a = _data(ctx, (_n(ctx) // COLS, COLS))
    src = _data(ctx, a.shape)
    idx = np.argsort(ctx.rng.random(a.shape, dtype=np.float32), axis=1)
    x, gi, gs = ctx.to_genesis(a), ctx.to_genesis(idx), ctx.to_genesis(src)
    t, ti, ts = _torch(ctx, a), _torch(ctx, idx), _torch(ctx, src)
    dst = a.copy()

    def numpy_scatter():
        np.put_along_axis(dst, idx, src, axis=1)
        return dst

    return Case(
        "scatter_(1, idx, src)",
        size_str(a.size, a.dtype.name) + f" rows of {COLS}",
        ctx.fns(
            genesis=lambda: x.scatter_(1, gi, gs),
            numpy=numpy_scatter,
            torch=lambda: t.scatter_(1, ti, ts),
        ),
        nbytes=2 * a.nbytes + idx.nbytes,
        goal=_goal(ctx),
        info="each row's indices a permutation",
    )


@register(name="index_select(0, rows)")
def index_select_rows(ctx: Context) -> Case:
    a = _data(ctx, (_n(ctx) // COLS, COLS))
    rows = ctx.rng.integers(0, a.shape[0], a.shape[0], dtype=np.int64)
    x, gr = ctx.to_genesis(a), ctx.to_genesis(rows)
    t, tr = _torch(ctx, a), _torch(ctx, rows)
    return Case(
        "index_select(0, rows)",
        size_str(a.size, a.dtype.name) + f" rows of {COLS}",
        ctx.fns(
            genesis=lambda: x.index_select(0, gr),
            numpy=lambda: np.take(a, rows, axis=0),
            torch=lambda: t.index_select(0, tr),
        ),
        nbytes=2 * a.nbytes,
        goal=_goal(ctx),
    )


@register(name="masked_fill(mask, 0.0)")
def masked_fill(ctx: Context) -> Case:
    a = _data(ctx, _n(ctx))
    mask = ctx.rng.random(a.size) < 0.5
    x, gm = ctx.to_genesis(a), ctx.to_genesis(mask)
    t, tm = _torch(ctx, a), _torch(ctx, mask)
    return Case(
        "masked_fill(mask, 0.0)",
        size_str(a.size, a.dtype.name),
        ctx.fns(
            genesis=lambda: x.masked_fill(gm, 0.0),
            numpy=lambda: np.where(mask, np.float32(0), a),
            torch=lambda: t.masked_fill(tm, 0.0),
        ),
        nbytes=2 * a.nbytes + mask.nbytes,
        goal=_goal(ctx),
    )


@register(name="nonzero()")
def nonzero(ctx: Context) -> Case:
    a = ctx.rng.random(_n(ctx), dtype=np.float32) < 0.5
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "nonzero()",
        size_str(a.size, "bool") + ", half true",
        ctx.fns(
            genesis=lambda: x.nonzero(),
            numpy=lambda: np.argwhere(a),
            torch=lambda: t.nonzero(),
        ),
        nbytes=a.nbytes + int(a.sum()) * 8,
        goal=_goal(ctx),
    )


def _norm(ctx: Context, dtype: Any) -> Case:
    a = _data(ctx, _n(ctx), dtype)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "norm()",
        size_str(a.size, a.dtype.name),
        ctx.fns(
            genesis=lambda: x.norm(),
            numpy=lambda: np.linalg.norm(a),
            torch=lambda: t.norm(),
        ),
        reference=lambda: np.linalg.norm(a.astype(np.float64)).astype(dtype),
        nbytes=a.nbytes,
        rtol=1e-2 if dtype == np.float16 else 1e-4,
        goal=_goal(ctx),
    )


@register(name="norm()")
def norm_f32(ctx: Context) -> Case:
    return _norm(ctx, np.float32)


@register(name="norm()")
def norm_f16(ctx: Context) -> Case:
    return _norm(ctx, np.float16)


@register(name="logsumexp(dim=1)")
def logsumexp_rows(ctx: Context) -> Case:
    a = _data(ctx, (_n(ctx) // COLS, COLS))
    x, t = ctx.to_genesis(a), _torch(ctx, a)

    def numpy_lse():
        m = a.max(axis=1, keepdims=True)
        return (np.log(np.exp(a - m).sum(axis=1)) + m[:, 0]).astype(np.float32)

    return Case(
        "logsumexp(dim=1)",
        size_str(a.size, a.dtype.name) + f" rows of {COLS}",
        ctx.fns(
            genesis=lambda: x.logsumexp(1),
            numpy=numpy_lse,
            torch=lambda: t.logsumexp(1),
        ),
        nbytes=a.nbytes,
        rtol=1e-5,
        atol=1e-5,
        goal=_goal(ctx),
        info="NumPy: max, exp, sum, log",
    )


@register(name="cumsum(dim=1)")
def cumsum_f16(ctx: Context) -> Case:
    a = _data(ctx, (_n(ctx) // COLS, COLS), np.float16)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "cumsum(dim=1)",
        size_str(a.size, a.dtype.name) + f" rows of {COLS}",
        ctx.fns(
            genesis=lambda: x.cumsum(1),
            numpy=lambda: np.cumsum(a, axis=1, dtype=np.float32).astype(np.float16),
            torch=lambda: t.cumsum(1),
        ),
        nbytes=2 * a.nbytes,
        rtol=1e-2,
        atol=5e-2,
        goal=_goal(ctx),
        info="NumPy accumulates in float32 here",
    )
