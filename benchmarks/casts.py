"""dtype conversions: t.to(dtype) against a.astype(dtype) and torch's t.to(dtype).

2^24 elements on the CPU, 2^28 on CUDA.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

import genesis
from benchmarks.common import Case, Context, Registry, size_str

register = Registry()
cases = register.cases


def _cast_case(
    ctx: Context, a: np.ndarray, dst: str, reference: Callable[[], np.ndarray] | None = None
) -> Case:
    """Case converting ``a`` to dtype ``dst`` (a name genesis and torch share)."""
    g_dtype = getattr(genesis, dst)
    x = ctx.to_genesis(a)
    fns = {"genesis": lambda: x.to(g_dtype)}
    if reference is None:  # numpy has the dtype
        np_dtype = np.dtype(dst)
        fns["numpy"] = lambda: a.astype(np_dtype)
    if ctx.torch is not None:
        t, t_dtype = ctx.to_torch(a), getattr(ctx.torch, dst)
        fns["torch"] = lambda: t.to(t_dtype)
    out_itemsize = genesis.empty(1, dtype=g_dtype).element_size()
    return Case(
        f"{a.dtype.name} -> {dst}",
        size_str(a.size, a.dtype.name),
        fns,
        nbytes=a.nbytes + a.size * out_itemsize,
        reference=reference,
        dtype=dst if reference is not None else None,
    )


def _n(ctx: Context) -> int:
    return ctx.pick(1 << 24, 1 << 16, cuda=1 << 28)


def _floats(ctx: Context) -> np.ndarray:
    # Normal values times 1e3: plenty of rounding, some beyond float16's range (-> inf).
    return (ctx.rng.standard_normal(_n(ctx), dtype=np.float32) * 1e3).astype(np.float32)


def bfloat16_reference(a: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 with round-to-nearest-even, returned as float32 (finite input)."""
    bits = a.view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


@register(name="float32 -> float16")
def f32_to_f16(ctx: Context) -> Case:
    return _cast_case(ctx, _floats(ctx), "float16")


@register(name="float32 -> int32")
def f32_to_i32(ctx: Context) -> Case:
    return _cast_case(ctx, _floats(ctx), "int32")


@register(name="int64 -> float64")
def i64_to_f64(ctx: Context) -> Case:
    # Magnitudes up to 2^62: many values need rounding to 53 bits.
    return _cast_case(ctx, ctx.rng.integers(-(2**62), 2**62, _n(ctx), dtype=np.int64), "float64")


@register(name="float32 -> bfloat16")
def f32_to_bf16(ctx: Context) -> Case:
    a = _floats(ctx)
    return _cast_case(ctx, a, "bfloat16", reference=lambda: bfloat16_reference(a))


@register(name="uint8 -> float32")
def u8_to_f32(ctx: Context) -> Case:
    return _cast_case(ctx, ctx.rng.integers(0, 256, _n(ctx), dtype=np.uint8), "float32")
