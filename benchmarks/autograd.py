"""Autograd (issue 16): the host cost of recording the graph, and a training step.

Host time: ``x * w`` on 1-element tensors that require grad (one node recorded per call), and
a chain of 8 such ops then ``backward()``, both timed in bursts with the device synchronised
between bursts outside the timed region (the cost is the host's, not the GPU's). Goal on CUDA
(also with --quick): the op with grad <= 0.6x torch's host time.

A 4-layer MLP step: ``h = relu(h @ W_i)`` for four square weights, ``loss = h.sum()``,
``loss.backward()``, the gradients reset before each step; batch and width 4096 on CUDA in
float32 and bfloat16 (torch with ``allow_tf32 = False``), 256 on the CPU (float32). Goal on
CUDA at full size: >= 1.0x torch. Reported in TFLOP/s (3 products of 2*B*W^2 per layer: one
forward, two backward). W_0's gradient is checked within a tolerance: against a float64 NumPy
forward and backward of the same MLP on the CPU, against torch's on CUDA (Note [The MLP's
reference]).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import genesis
from benchmarks.casts import bfloat16_reference
from benchmarks.common import Case, Context, Goal, Registry

register = Registry()
cases = register.cases

BURST = 50  # calls per burst: far fewer than the launch queue holds
HOST_GOAL = 0.6  # host time of an op with grad: at most this fraction of torch's
CHAIN = 8  # ops per chain in the forward-and-backward host-time case
LAYERS = 4


def _leaf(ctx: Context, a: np.ndarray, lib: str, dtype: str = "float32") -> Any:
    if lib == "genesis":
        x = ctx.to_genesis(a)
        if dtype != "float32":
            x = x.to(getattr(genesis, dtype))
        return x.requires_grad_()
    T = ctx.torch
    t = ctx.to_torch(a)
    if dtype != "float32":
        t = t.to(getattr(T, dtype))
    return t.requires_grad_()


def _host_goal(ctx: Context) -> Goal | None:
    if not ctx.on_cuda:
        return None
    return Goal(f">= {1 / HOST_GOAL:.2f}x torch", min_speedup=1 / HOST_GOAL)


@register(name="x * w with grad host time, 1 element")
def mul_with_grad(ctx: Context) -> Case:
    """One recorded node per call: the op, its node, the edges to two leaves."""
    a, b = np.array([1.5], np.float32), np.array([0.75], np.float32)
    x, w = _leaf(ctx, a, "genesis"), _leaf(ctx, b, "genesis")
    if ctx.torch is not None:
        t, u = _leaf(ctx, a, "torch"), _leaf(ctx, b, "torch")
    return Case(
        "x * w with grad host time, 1 element",
        "1 f32",
        ctx.fns(genesis=lambda: x * w, numpy=lambda: a * b, torch=lambda: t * u),
        burst=BURST,
        goal=_host_goal(ctx),
        info=(
            f"x and w require grad; bursts of {BURST} back-to-back calls timed on the host, "
            "the device synchronised between bursts outside the timed region; median per call"
            + (f" (goal: genesis <= {HOST_GOAL}x torch's time)" if ctx.on_cuda else "")
        ),
    )


def _chain(lib: Any, x: Any, w: Any) -> Any:
    y = x
    for _ in range(CHAIN):
        y = y * w
    y.backward()
    g = x.grad
    x.grad = None
    w.grad = None
    return g


@register(name=f"{CHAIN} ops + backward host time, 1 element")
def chain_backward(ctx: Context) -> Case:
    """A chain of CHAIN recorded multiplications, then backward (the engine, one
    AccumulateGrad per leaf): the host cost of a small training step's graph."""
    a, b = np.array([1.5], np.float32), np.array([0.75], np.float32)
    x, w = _leaf(ctx, a, "genesis"), _leaf(ctx, b, "genesis")
    if ctx.torch is not None:
        t, u = _leaf(ctx, a, "torch"), _leaf(ctx, b, "torch")
    return Case(
        f"{CHAIN} ops + backward host time, 1 element",
        "1 f32",
        ctx.fns(
            genesis=lambda: _chain(genesis, x, w),
            numpy=lambda: (b**CHAIN).astype(np.float32),
            torch=lambda: _chain(ctx.torch, t, u),
        ),
        rtol=1e-6,
        atol=0.0,
        burst=10,
        info=f"y = x * w {CHAIN} times, y.backward(); x's gradient; bursts of 10; informational",
    )


def _mlp_step(lib: Any, x: Any, weights: list[Any]) -> Any:
    for w in weights:
        w.grad = None
    h = x
    for w in weights:
        h = (h @ w).relu()
    h.sum().backward()
    return weights[0].grad


def _numpy_mlp_grad(x: np.ndarray, weights: list[np.ndarray], bf16: bool) -> np.ndarray:
    """W_0's gradient of sum(MLP(x)) in float64 (bf16: inputs rounded to bfloat16 first)."""
    rnd = bfloat16_reference if bf16 else (lambda a: a)
    hs, pre = [rnd(x).astype(np.float64)], []
    ws = [rnd(w).astype(np.float64) for w in weights]
    for w in ws:
        pre.append(hs[-1] @ w)
        hs.append(np.maximum(pre[-1], 0.0))
    g = np.ones_like(hs[-1])
    grad0 = None
    for i in reversed(range(len(ws))):
        g = g * (pre[i] > 0)
        if i == 0:
            grad0 = hs[0].T @ g
        g = g @ ws[i].T
    return grad0.astype(np.float32)


def _mlp(ctx: Context, dtype: str) -> Case:
    n = ctx.pick(256, 64, cuda=4096)
    a = ctx.rng.standard_normal((n, n), dtype=np.float32)
    # Weights scaled by 1/sqrt(n): activations stay of order 1 through the layers.
    ws = [
        (ctx.rng.standard_normal((n, n), dtype=np.float32) / np.sqrt(n)).astype(np.float32)
        for _ in range(LAYERS)
    ]
    x = ctx.to_genesis(a)
    if dtype != "float32":
        x = x.to(getattr(genesis, dtype))
    gws = [_leaf(ctx, w, "genesis", dtype) for w in ws]
    T = ctx.torch
    if T is not None:
        if ctx.on_cuda:
            T.backends.cuda.matmul.allow_tf32 = False
        t = ctx.to_torch(a)
        if dtype != "float32":
            t = t.to(getattr(T, dtype))
        tws = [_leaf(ctx, w, "torch", dtype) for w in ws]
    bf16 = dtype == "bfloat16"
    # Note [The MLP's reference]: a float64 NumPy backward is the reference on the CPU (width
    # 256). At width 4096 any float32 computation (NumPy's own included: max difference ~2 for
    # gradients up to ~300) differs from it beyond the tolerance, because pre-activations within
    # rounding of zero flip ReLU's mask; there the reference is torch's gradient of the same
    # float32/bfloat16 step on the same GPU (cuBLAS without TF32, as genesis).
    against_torch = ctx.on_cuda and T is not None
    if against_torch:
        reference = lambda: _mlp_step(T, t, tws)  # noqa: E731
    else:
        reference = lambda: _numpy_mlp_grad(a, ws, bf16)  # noqa: E731
    goal = None
    if ctx.on_cuda and not ctx.quick:
        goal = Goal(">= 1.0x torch", min_speedup=1.0)
    return Case(
        f"MLP {LAYERS}x{n} forward + backward",
        f"batch {n}, {dtype}",
        ctx.fns(
            genesis=lambda: _mlp_step(genesis, x, gws),
            numpy=lambda: _numpy_mlp_grad(a, ws, bf16),
            torch=lambda: _mlp_step(T, t, tws),
        ),
        reference=reference,
        dtype=dtype,
        flops=LAYERS * 3 * 2 * n**3,
        rtol=5e-2 if bf16 else 1e-3,
        atol=(5e-2 if bf16 else 1e-3) * np.sqrt(n),
        goal=goal,
        info=(
            "h = relu(h @ W) per layer, h.sum().backward(); W_0's gradient checked against "
            + (
                "torch's (Note [The MLP's reference])"
                if against_torch
                else "a float64 NumPy backward"
            )
            + "; TFLOP/s = 6 * layers * n^3 / median"
            + ("; torch with allow_tf32 = False" if ctx.on_cuda else "")
        ),
    )


@register(name="MLP forward + backward")
def mlp_f32(ctx: Context) -> Case:
    return _mlp(ctx, "float32")


@register(name="MLP forward + backward")
def mlp_bf16(ctx: Context) -> Case | None:
    if not ctx.on_cuda:
        return None  # bfloat16 matmul on the CPU is not what this measures
    return _mlp(ctx, "bfloat16")
