"""genesis.optim (issue 46): one optimizer step over a model's parameters against torch's
``fused=True`` step, the fastest torch has, in the same run.

The parameters are GPT-2 small's 148 tensors plus 62 vectors of 768 (124M float32 parameters in
210 tensors, the issue's shape) on CUDA, and a 4M-parameter slice of them on the CPU. Gradients
are set once; each call is one ``step()``, which moves the parameters (so values are checked
for shape and dtype only: tests/optim compares the steps with torch's). Goal (CUDA): AdamW and
SGD with momentum at >= 1.3x torch's fused step. GB/s counts the bytes a step must move: AdamW
reads p, g, m, v and writes p, m, v (28 bytes a float32 parameter), SGD with momentum reads p,
g, buf and writes p, buf (20 bytes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import genesis
from benchmarks.common import Case, Context, Goal, Registry

register = Registry()
cases = register.cases


def _shapes(ctx: Context) -> list[tuple[int, ...]]:
    d, vocab, layers = 768, ctx.pick(50257, 1000, cuda=50257), ctx.pick(1, 1, cuda=12)
    if not ctx.on_cuda:
        vocab = ctx.pick(4000, 500)
    per_layer = [(d,), (d,), (d, 3 * d), (3 * d,), (d, d), (d,)]
    per_layer += [(d,), (d,), (d, 4 * d), (4 * d,), (4 * d, d), (d,)]
    shapes = [(vocab, d), (1024, d)] + per_layer * layers + [(d,), (d,)]
    return shapes + [(d,)] * (210 - len(shapes)) if ctx.on_cuda else shapes


def _case(ctx: Context, name: str, options: dict[str, Any], bytes_per_param: int) -> Case:
    shapes = _shapes(ctx)
    values = [ctx.rng.standard_normal(s, dtype=np.float32) for s in shapes]
    grads = [ctx.rng.standard_normal(s, dtype=np.float32) for s in shapes]
    n = sum(v.size for v in values)
    cls = name.split()[0]
    g_params = [genesis.nn.Parameter(ctx.to_genesis(v)) for v in values]
    for p, g in zip(g_params, grads):
        p.grad = ctx.to_genesis(g)
    g_opt = getattr(genesis.optim, cls)(g_params, **options)

    def g_step() -> Any:
        g_opt.step()
        return g_params[-1]

    fns = {"genesis": g_step}
    T = ctx.torch
    if T is not None:
        t_params = [T.nn.Parameter(ctx.to_torch(v)) for v in values]
        for p, g in zip(t_params, grads):
            p.grad = ctx.to_torch(g)
        t_opt = getattr(T.optim, cls)(t_params, **options, fused=True)

        def t_step() -> Any:
            t_opt.step()
            return t_params[-1]

        fns["torch"] = t_step
    return Case(
        name,
        f"{n / 1e6:.1f}M f32 in {len(shapes)} tensors",
        fns,
        reference=fns.get("torch"),
        values=False,
        nbytes=bytes_per_param * n,
        goal=Goal(">= 1.3x torch", min_speedup=1.3) if ctx.on_cuda and not ctx.quick else None,
        info="one step; torch with fused=True",
    )


@register(name="AdamW step")
def adamw(ctx: Context) -> Case:
    return _case(ctx, "AdamW step", {"lr": 1e-3, "weight_decay": 0.1}, 28)


@register(name="SGD momentum step")
def sgd(ctx: Context) -> Case:
    return _case(ctx, "SGD momentum step", {"lr": 1e-2, "momentum": 0.9}, 20)
