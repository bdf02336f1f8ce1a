"""Tensor factories: empty, zeros, full, arange, ones."""

from __future__ import annotations

import numpy as np

import genesis
from benchmarks.common import Case, Context, Registry, size_str

register = Registry()
cases = register.cases


@register(name="empty(1024)")
def empty_small(ctx: Context) -> Case:
    """Allocation overhead of a tiny tensor: host time only (no device synchronisation)."""
    dev, T, n = ctx.device, ctx.torch, 1024
    return Case(
        "empty(1024)",
        size_str(n, "float32"),
        ctx.fns(
            genesis=lambda: genesis.empty(n, dtype=genesis.float32, device=dev),
            numpy=lambda: np.empty(n, dtype=np.float32),
            torch=lambda: T.empty(n, dtype=T.float32, device=dev),
        ),
        values=False,
        sync=False,
    )


@register(name="zeros")
def zeros(ctx: Context) -> Case:
    dev, T, n = ctx.device, ctx.torch, ctx.pick(1 << 24, 1 << 16)
    return Case(
        "zeros",
        size_str(n, "float32"),
        ctx.fns(
            genesis=lambda: genesis.zeros(n, dtype=genesis.float32, device=dev),
            numpy=lambda: np.zeros(n, dtype=np.float32),
            torch=lambda: T.zeros(n, dtype=T.float32, device=dev),
        ),
        nbytes=4 * n,
    )


@register(name="full(1.5)")
def full(ctx: Context) -> Case:
    dev, T, shape = ctx.device, ctx.torch, ctx.pick((4096, 4096), (256, 256))
    return Case(
        "full(1.5)",
        size_str(shape, "float32"),
        ctx.fns(
            genesis=lambda: genesis.full(shape, 1.5, dtype=genesis.float32, device=dev),
            numpy=lambda: np.full(shape, 1.5, dtype=np.float32),
            torch=lambda: T.full(shape, 1.5, dtype=T.float32, device=dev),
        ),
        nbytes=4 * shape[0] * shape[1],
    )


@register(name="arange")
def arange(ctx: Context) -> Case:
    dev, T, n = ctx.device, ctx.torch, ctx.pick(1 << 24, 1 << 16)
    return Case(
        "arange",
        size_str(n, "int64"),
        ctx.fns(
            genesis=lambda: genesis.arange(n, device=dev),
            numpy=lambda: np.arange(n, dtype=np.int64),
            torch=lambda: T.arange(n, device=dev),
        ),
        nbytes=8 * n,
    )


@register(name="ones")
def ones(ctx: Context) -> Case:
    dev, T, n = ctx.device, ctx.torch, ctx.pick(1 << 22, 1 << 16)
    return Case(
        "ones",
        size_str(n, "float64"),
        ctx.fns(
            genesis=lambda: genesis.ones(n, dtype=genesis.float64, device=dev),
            numpy=lambda: np.ones(n, dtype=np.float64),
            torch=lambda: T.ones(n, dtype=T.float64, device=dev),
        ),
        nbytes=8 * n,
    )


@register(name="empty")
def empty_large(ctx: Context) -> Case:
    dev, T, shape = ctx.device, ctx.torch, ctx.pick((4096, 4096), (256, 256))
    return Case(
        "empty",
        size_str(shape, "float32"),
        ctx.fns(
            genesis=lambda: genesis.empty(shape, dtype=genesis.float32, device=dev),
            numpy=lambda: np.empty(shape, dtype=np.float32),
            torch=lambda: T.empty(shape, dtype=T.float32, device=dev),
        ),
        values=False,
    )
