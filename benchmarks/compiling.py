"""genesis.compile against torch.compile (issue 48), the same function written once with plain
ops for both libraries; each library compiles it (its first calls, which compile, run before
timing and their time is in the footnote). The footnote also has genesis's eager median, since
on the CPU the goal is to be at least as fast as eager. Goals (CUDA): the 7-op tanh-GELU chain
at 2^26 float32, softmax and layer_norm + residual written with plain ops at >= 1.0x
torch.compile.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import genesis
from benchmarks.common import Case, Context, Goal, Registry

register = Registry()
cases = register.cases


def gelu_chain(lib: Any) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        return x * 0.5 * (1.0 + lib.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))

    return f


def softmax_ops(lib: Any) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        e = lib.exp(x - x.amax(dim=-1, keepdim=True))
        return e / e.sum(dim=-1, keepdim=True)

    return f


def layer_norm_residual_ops(lib: Any) -> Callable[..., Any]:
    def f(x: Any, residual: Any, w: Any, b: Any) -> Any:
        h = x + residual
        mu = h.mean(dim=-1, keepdim=True)
        centred = h - mu
        var = (centred * centred).mean(dim=-1, keepdim=True)
        return centred * lib.rsqrt(var + 1e-5) * w + b

    return f


def _median_seconds(ctx: Context, fn: Callable[[], Any], calls: int = 10) -> float:
    times = []
    for _ in range(calls):
        ctx.synchronize()
        start = time.perf_counter()
        fn()
        ctx.synchronize()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def _compiled_case(
    ctx: Context,
    name: str,
    size: str,
    make: Callable[[Any], Callable],
    shapes: list[tuple],
    nbytes: int,
) -> Case:
    arrays = [ctx.rng.standard_normal(shape).astype("float32") for shape in shapes]
    xg = [ctx.to_genesis(a) for a in arrays]
    notes = []
    g_compiled = genesis.compile(make(genesis))
    start = time.perf_counter()
    g_compiled(*xg)
    ctx.synchronize()
    notes.append(f"genesis.compile's first call {time.perf_counter() - start:.3f} s")
    g_eager = make(genesis)
    notes.append(f"genesis eager {_median_seconds(ctx, lambda: g_eager(*xg)) * 1e3:.3f} ms")
    fns: dict[str, Callable[[], Any]] = {"genesis": lambda: g_compiled(*xg)}
    if ctx.torch is not None:
        xt = [ctx.to_torch(a) for a in arrays]
        try:
            t_compiled = ctx.torch.compile(make(ctx.torch))
            start = time.perf_counter()
            t_compiled(*xt)
            ctx.synchronize()
            notes.append(f"torch.compile's first call {time.perf_counter() - start:.1f} s")
            fns["torch"] = lambda: t_compiled(*xt)
        except Exception as exc:  # no C++ compiler for inductor, say: genesis's row only
            notes.append(f"torch.compile unusable here ({type(exc).__name__})")
    return Case(
        name,
        size,
        fns,
        nbytes=nbytes,
        reference=lambda: make(genesis)(*xg),
        rtol=1e-5,
        atol=1e-6,
        rounds=3,
        goal=Goal(">= 1.0x torch.compile", min_speedup=1.0) if ctx.on_cuda else None,
        info="; ".join(notes),
    )


@register(name="tanh-GELU chain, compiled")
def gelu(ctx: Context) -> Case:
    n = ctx.pick(1 << 22, 1 << 14, cuda=1 << 26)
    return _compiled_case(
        ctx, "tanh-GELU chain, compiled", f"2^{n.bit_length() - 1} f32", gelu_chain, [(n,)], 8 * n
    )


@register(name="softmax of plain ops, compiled")
def softmax(ctx: Context) -> Case:
    rows, cols = ctx.pick(4096, 64, cuda=65536), ctx.pick(1024, 128)
    return _compiled_case(
        ctx,
        "softmax of plain ops, compiled",
        f"{rows}x{cols} f32",
        softmax_ops,
        [(rows, cols)],
        8 * rows * cols,
    )


@register(name="layer_norm + residual of plain ops, compiled")
def layer_norm_residual(ctx: Context) -> Case:
    rows, cols = ctx.pick(4096, 64, cuda=65536), ctx.pick(1024, 128, cuda=768)
    return _compiled_case(
        ctx,
        "layer_norm + residual of plain ops, compiled",
        f"{rows}x{cols} f32",
        layer_norm_residual_ops,
        [(rows, cols), (rows, cols), (cols,), (cols,)],
        12 * rows * cols,
    )
