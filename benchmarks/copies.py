"""Copies: materialising strided views, clone, broadcasting copy_.

Matrices are 4096x4096 on the CPU and 16384x16384 on CUDA (1 GiB in float32), so GPU kernels
run long enough to show their bandwidth.
"""

from __future__ import annotations

import numpy as np

import genesis
from benchmarks.casts import bfloat16_reference
from benchmarks.common import Case, Context, Goal, Registry, size_str

register = Registry()
cases = register.cases


def _matrix(ctx: Context, dtype: type = np.float32) -> np.ndarray:
    n = ctx.pick(4096, 256, cuda=16384)
    if np.issubdtype(dtype, np.integer):  # the whole range, not rounded uniforms (all zeros)
        info = np.iinfo(dtype)
        return ctx.rng.integers(info.min, info.max, (n, n), dtype=dtype, endpoint=True)
    a = ctx.rng.random((n, n), dtype=np.float32)
    return a if dtype == np.float32 else a.astype(dtype)


# Issue 19: the tiled transpose at >= 2.7 TB/s on an H100 (HBM3 ~3.35 TB/s, a copy ~2.95),
# whatever the dtype's size (Note [Tiled transposes]).
_TRANSPOSE_BYTES_PER_S = 2.7e12
# A bandwidth is what back-to-back transposes sustain: a sample of one call (the default for
# calls over 100 us) also times the launch and the wait for the device, about 13 us on an H100,
# 6% of a 193 us 8-bit transpose (standalone probe: kernel 2785 GB/s, the row 2609 GB/s). With
# this many calls a sample, for both libraries, that cost is spread over them.
_TRANSPOSE_CALLS_PER_SAMPLE = 8


def _transpose(ctx: Context, dtype: str, speedup: float | None = None) -> Case:
    """t().contiguous() of a square matrix of dtype (a name); bfloat16: float32 data converted
    on the device before timing (NumPy has no bfloat16)."""
    bf16 = dtype == "bfloat16"
    a = _matrix(ctx, np.float32 if bf16 else np.dtype(dtype).type)
    x = ctx.to_genesis(a)
    t = ctx.to_torch(a) if ctx.torch is not None else None
    itemsize = 2 if bf16 else a.itemsize
    if bf16:
        x = x.to(genesis.bfloat16)
        t = t.to(ctx.torch.bfloat16) if t is not None else None
    nbytes = 2 * a.size * itemsize
    goal = None
    if ctx.on_cuda and not ctx.quick:
        text = f">= {_TRANSPOSE_BYTES_PER_S / 1e12:g} TB/s"
        if speedup is not None:
            text += f", >= {speedup:g}x torch"
        goal = Goal(text, max_seconds=nbytes / _TRANSPOSE_BYTES_PER_S, min_speedup=speedup)
    fns = ctx.fns(
        genesis=lambda: x.t().contiguous(),
        numpy=lambda: np.ascontiguousarray(a.T),
        torch=lambda: t.t().contiguous(),
    )
    if bf16:
        fns.pop("numpy", None)  # NumPy has no bfloat16; the reference is rounded float32
    return Case(
        "t().contiguous()",
        size_str(a.shape, "bfloat16" if bf16 else a.dtype.name),
        fns,
        nbytes=nbytes,
        goal=goal,
        reference=(lambda: bfloat16_reference(a).T) if bf16 else None,
        dtype="bfloat16" if bf16 else None,
        min_calls=_TRANSPOSE_CALLS_PER_SAMPLE if ctx.on_cuda else 1,
    )


@register(name="t().contiguous()")
def transpose(ctx: Context) -> Case:
    return _transpose(ctx, "float32", speedup=2.0)


@register(name="t().contiguous()")
def transpose_f16(ctx: Context) -> Case:
    return _transpose(ctx, "float16")


@register(name="t().contiguous()")
def transpose_bf16(ctx: Context) -> Case:
    return _transpose(ctx, "bfloat16")


@register(name="t().contiguous()")
def transpose_i8(ctx: Context) -> Case:
    return _transpose(ctx, "int8")


@register(name="t().contiguous()")
def transpose_u8(ctx: Context) -> Case:
    return _transpose(ctx, "uint8")


@register(name="[::2, ::3].contiguous()")
def strided_slice(ctx: Context) -> Case:
    goal = Goal(">= 1.5x torch", min_speedup=1.5) if ctx.on_cuda and not ctx.quick else None
    a = _matrix(ctx)
    x = ctx.to_genesis(a)
    t = ctx.to_torch(a) if ctx.torch is not None else None
    out_bytes = a[::2, ::3].nbytes
    return Case(
        "[::2, ::3].contiguous()",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=lambda: x[::2, ::3].contiguous(),
            numpy=lambda: np.ascontiguousarray(a[::2, ::3]),
            torch=lambda: t[::2, ::3].contiguous(),
        ),
        nbytes=2 * out_bytes,  # elements read + written (strided reads touch more lines)
        goal=goal,
    )


@register(name="permute(0, 2, 1).contiguous()")
def permute(ctx: Context) -> Case:
    shape = ctx.pick((16, 1024, 1024), (4, 64, 64), cuda=(64, 1024, 1024))
    a = ctx.rng.random(shape, dtype=np.float32)
    x = ctx.to_genesis(a)
    t = ctx.to_torch(a) if ctx.torch is not None else None
    return Case(
        "permute(0, 2, 1).contiguous()",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=lambda: x.permute(0, 2, 1).contiguous(),
            numpy=lambda: np.ascontiguousarray(a.transpose(0, 2, 1)),
            torch=lambda: t.permute(0, 2, 1).contiguous(),
        ),
        nbytes=2 * a.nbytes,
    )


def _narrow_case(ctx: Context, name: str, shape: tuple, dtype: type, view, np_view) -> Case:
    """A transpose with a narrow side (Note [Narrow transposes]); goal >= 1x torch on CUDA."""
    if np.issubdtype(dtype, np.integer):
        a = ctx.rng.integers(0, 256, shape, dtype=dtype)
    else:
        a = ctx.rng.random(shape, dtype=np.float32).astype(dtype)
    x = ctx.to_genesis(a)
    t = ctx.to_torch(a) if ctx.torch is not None else None
    goal = Goal(">= 1x torch", min_speedup=1.0) if ctx.on_cuda and not ctx.quick else None
    return Case(
        name,
        size_str(a.shape, a.dtype.name),
        ctx.fns(
            genesis=lambda: view(x).contiguous(),
            numpy=lambda: np.ascontiguousarray(np_view(a)),
            torch=lambda: view(t).contiguous(),
        ),
        nbytes=2 * a.nbytes,
        goal=goal,
    )


def _image_side(ctx: Context) -> int:
    return ctx.pick(1024, 64, cuda=2048)


@register(name="HWC -> CHW permute(2, 0, 1)")
def hwc_to_chw_u8(ctx: Context) -> Case:
    n = _image_side(ctx)
    return _narrow_case(
        ctx,
        "HWC -> CHW permute(2, 0, 1)",
        (n, n, 3),
        np.uint8,
        lambda x: x.permute(2, 0, 1),
        lambda a: a.transpose(2, 0, 1),
    )


@register(name="HWC -> CHW permute(2, 0, 1)")
def hwc_to_chw_f32(ctx: Context) -> Case:
    n = _image_side(ctx)
    return _narrow_case(
        ctx,
        "HWC -> CHW permute(2, 0, 1)",
        (n, n, 3),
        np.float32,
        lambda x: x.permute(2, 0, 1),
        lambda a: a.transpose(2, 0, 1),
    )


@register(name="CHW -> HWC permute(1, 2, 0)")
def chw_to_hwc_u8(ctx: Context) -> Case:
    n = _image_side(ctx)
    return _narrow_case(
        ctx,
        "CHW -> HWC permute(1, 2, 0)",
        (3, n, n),
        np.uint8,
        lambda x: x.permute(1, 2, 0),
        lambda a: a.transpose(1, 2, 0),
    )


@register(name="mT.contiguous() of small matrices")
def small_matrices_mt(ctx: Context) -> Case:
    b = ctx.pick(4096, 64, cuda=16384)
    return _narrow_case(
        ctx,
        "mT.contiguous() of small matrices",
        (b, 8, 8),
        np.float32,
        lambda x: x.mT,
        lambda a: np.swapaxes(a, -1, -2),
    )


@register(name="clone")
def clone(ctx: Context) -> Case:
    a = ctx.rng.random(ctx.pick(1 << 24, 1 << 16), dtype=np.float32)
    x = ctx.to_genesis(a)
    t = ctx.to_torch(a) if ctx.torch is not None else None
    return Case(
        "clone",
        size_str(a.size, "float32"),
        ctx.fns(
            genesis=lambda: x.clone(),
            numpy=lambda: a.copy(),
            torch=lambda: t.clone(),
        ),
        nbytes=2 * a.nbytes,
    )


@register(name="copy_(row) broadcast")
def broadcast_copy(ctx: Context) -> Case:
    n = ctx.pick(4096, 256)
    row = ctx.rng.random(n, dtype=np.float32)
    g_row, g_dst = ctx.to_genesis(row), ctx.to_genesis(np.empty((n, n), np.float32))
    np_dst = np.empty((n, n), np.float32)
    if ctx.torch is not None:
        t_row, t_dst = ctx.to_torch(row), ctx.to_torch(np.empty((n, n), np.float32))

    def numpy_copy():
        np.copyto(np_dst, row)
        return np_dst

    return Case(
        "copy_(row) broadcast",
        size_str((n, n), "float32"),
        ctx.fns(
            genesis=lambda: g_dst.copy_(g_row),
            numpy=numpy_copy,
            torch=lambda: t_dst.copy_(t_row),
        ),
        nbytes=np_dst.nbytes + row.nbytes,
    )
