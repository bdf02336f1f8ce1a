"""genesis.compile against torch.compile (issue 48), the same function written once with plain
ops for both libraries; each library compiles it (its first calls, which compile, run before
timing and their time is in the footnote). The footnote also has genesis's eager median, since
on the CPU the goal is to be at least as fast as eager. Goals (CUDA): the 7-op tanh-GELU chain
at 2^26 float32, softmax and layer_norm + residual written with plain ops, and a transformer
block's training step written with plain ops (B 8, S 1024, width 768, 12 heads, bf16) at
>= 1.0x torch.compile.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

import numpy as np

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


def layer_norm_var_ops(lib: Any) -> Callable[..., Any]:
    def f(x: Any) -> Any:
        mu = x.mean(dim=-1, keepdim=True)
        return (x - mu) / lib.sqrt(x.var(dim=-1, keepdim=True, unbiased=False) + 1e-5)

    return f


def gelu_backward_bias_ops(lib: Any) -> Callable[..., Any]:
    """The backward of tanh-GELU(x) and of a bias added before it: the input's gradient and
    the bias's, its sum over the rows (a reduction of the leading dim: Note [Column groups])."""

    def f(g: Any, x: Any) -> Any:
        t = lib.tanh(0.79788456 * (x + 0.044715 * x * x * x))
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * 0.79788456 * (1 + 3 * 0.044715 * x * x)
        grad = g * d
        return grad, grad.sum(0)

    return f


def _first_call(ctx: Context, label: str, fn: Callable, args: Any, notes: list[str]) -> None:
    """Runs fn(*args) once (it compiles), noting how long it took."""
    start = time.perf_counter()
    fn(*args)
    ctx.synchronize()
    notes.append(f"{label} {time.perf_counter() - start:.3f} s")
    if label.startswith("genesis"):  # its new programs build in the background meanwhile
        genesis._C._fusion.wait_for_builds()
        notes.append(f"all built after {time.perf_counter() - start:.3f} s")


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
    _first_call(ctx, "genesis.compile's first call", g_compiled, xg, notes)
    g_eager = make(genesis)
    notes.append(f"genesis eager {_median_seconds(ctx, lambda: g_eager(*xg)) * 1e3:.3f} ms")
    fns: dict[str, Callable[[], Any]] = {"genesis": lambda: g_compiled(*xg)}
    if ctx.torch is not None:
        xt = [ctx.to_torch(a) for a in arrays]
        try:
            t_compiled = ctx.torch.compile(make(ctx.torch))
            _first_call(ctx, "torch.compile's first call", t_compiled, xt, notes)
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


@register(name="GELU + bias backward of plain ops, compiled")
def gelu_bias_backward(ctx: Context) -> Case:
    rows, cols = ctx.pick(4096, 64, cuda=8192), ctx.pick(3072, 128, cuda=3072)
    return _compiled_case(
        ctx,
        "GELU + bias backward of plain ops, compiled",
        f"{rows}x{cols} f32",
        gelu_backward_bias_ops,
        [(rows, cols), (rows, cols)],
        12 * rows * cols,
    )


@register(name="layer_norm by var of plain ops, compiled")
def layer_norm_var(ctx: Context) -> Case:
    rows, cols = ctx.pick(8192, 64, cuda=65536), ctx.pick(1024, 128, cuda=768)
    return _compiled_case(
        ctx,
        "layer_norm by var of plain ops, compiled",
        f"{rows}x{cols} f32",
        layer_norm_var_ops,
        [(rows, cols)],
        8 * rows * cols,
    )


def block_step(lib: Any, heads: int, lr: float) -> Callable[..., Any]:
    """A transformer block's training step written with plain ops: layer norms, naive masked
    softmax attention, tanh-GELU MLP, residuals; a squared-mean loss and manual SGD. The forward
    is what each library compiles; backward and the update run as its eager code."""

    def layer_norm(x: Any, w: Any, b: Any) -> Any:
        centred = x - x.mean(dim=-1, keepdim=True)
        var = (centred * centred).mean(dim=-1, keepdim=True)
        return centred * lib.rsqrt(var + 1e-5) * w + b

    def forward(x: Any, mask: Any, p: dict) -> Any:
        batch, seq, width = x.shape
        qkv = layer_norm(x, p["ln1w"], p["ln1b"]) @ p["wqkv"] + p["bqkv"]
        q, k, v = (
            t.reshape(batch, seq, heads, width // heads).transpose(1, 2)
            for t in qkv.split(width, dim=-1)
        )
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(width // heads))
        att = att.masked_fill(mask, float("-inf"))
        att = lib.exp(att - att.amax(dim=-1, keepdim=True))
        att = att / att.sum(dim=-1, keepdim=True)
        y = (att @ v).transpose(1, 2).reshape(batch, seq, width)
        x = x + y @ p["wo"] + p["bo"]
        h = layer_norm(x, p["ln2w"], p["ln2b"]) @ p["w1"] + p["b1"]
        h = h * 0.5 * (1.0 + lib.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
        return x + h @ p["w2"] + p["b2"]

    compiled = lib.compile(forward)

    def step(x: Any, mask: Any, p: dict) -> Any:
        loss = compiled(x, mask, p).float().square().mean()
        loss.backward()
        with lib.no_grad():
            for w in p.values():
                w -= lr * w.grad
                w.grad = None
        return loss

    return step


@register(name="transformer block step of plain ops, compiled")
def transformer_block(ctx: Context) -> Case:
    batch, seq, width = (
        ctx.pick(2, 1, cuda=8),
        ctx.pick(128, 16, cuda=1024),
        ctx.pick(128, 32, cuda=768),
    )
    heads = ctx.pick(4, 2, cuda=12)
    dtype = "bfloat16" if ctx.on_cuda else "float32"
    shapes = {
        "ln1w": (width,),
        "ln1b": (width,),
        "wqkv": (width, 3 * width),
        "bqkv": (3 * width,),
        "wo": (width, width),
        "bo": (width,),
        "ln2w": (width,),
        "ln2b": (width,),
        "w1": (width, 4 * width),
        "b1": (4 * width,),
        "w2": (4 * width, width),
        "b2": (width,),
    }
    arrays = {
        k: (
            np.ones(v)
            if k.startswith("ln") and k.endswith("w")
            else ctx.rng.standard_normal(v) * 0.02
        ).astype("float32")
        for k, v in shapes.items()
    }
    x_np = ctx.rng.standard_normal((batch, seq, width)).astype("float32")
    mask_np = np.triu(np.ones((seq, seq), dtype=bool), k=1)

    def setup(lib: Any, to: Callable[[np.ndarray], Any]) -> tuple:
        params = {k: to(a).to(getattr(lib, dtype)).requires_grad_() for k, a in arrays.items()}
        return to(x_np).to(getattr(lib, dtype)), to(mask_np), params

    notes = []
    fns: dict[str, Callable[[], Any]] = {}
    g_args = setup(genesis, ctx.to_genesis)
    g_step = block_step(genesis, heads, 1e-3)
    _first_call(ctx, "genesis's first step", g_step, g_args, notes)
    fns["genesis"] = lambda: g_step(*g_args)
    if ctx.torch is not None:
        t_args = setup(ctx.torch, ctx.to_torch)
        try:
            t_step = block_step(ctx.torch, heads, 1e-3)
            _first_call(ctx, "torch.compile's first step", t_step, t_args, notes)
            fns["torch"] = lambda: t_step(*t_args)
        except Exception as exc:  # no C++ compiler for inductor, say: genesis's row only
            notes.append(f"torch.compile unusable here ({type(exc).__name__})")
    return Case(
        "transformer block step of plain ops, compiled",
        f"B {batch}, S {seq}, width {width}, {heads} heads, {dtype}",
        fns,
        reference=fns.get("torch"),
        values=False,  # each step moves the weights
        goal=Goal(">= 1.0x torch.compile", min_speedup=1.0) if ctx.on_cuda else None,
        info="; ".join(notes),
        rounds=3,
    )
