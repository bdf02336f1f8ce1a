"""CUDA graphs (issue 19): the host cost of replaying a captured chain of small ops, and of a
training step through make_graphed_callables.

A chain of 100 elementwise ops on 1024 float32 elements (``* 1.01``, ``+ 0.5``, ``relu()``,
``- 0.25`` in turn) is warmed up on a side stream and captured once, by
``genesis.cuda.graph`` and by ``torch.cuda.graph``; the case times ``replay()`` in bursts
of a few back-to-back calls, the device synchronised between bursts outside the timed region,
so the time is the host's. Goal on CUDA (also with --quick): genesis <= 0.5x torch's host
time. Runs only with ``--device cuda``. The result (the chain's output after a replay) is
checked against the chain in NumPy.

The second case captures the same chain with a random op every 25 ops (``+ rand_like(y)``), so
each replay first refreshes the generator's state on the device (Note [Random ops in graphs]):
same goal, the result checked for shape, dtype and range only (the numbers are new each time).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import genesis
from benchmarks.common import Case, Context, Goal, Registry

register = Registry()
cases = register.cases

OPS = 100  # ops in the captured chain
N = 1024  # elements: small ops, so the launches, not the kernels, are the cost
BURST = 10  # replays per burst: far fewer than the launch queue holds
GOAL = 0.5  # replay host time: at most this fraction of torch's
# The floor: on an H200 host, CuPy's graph.launch() of the same chain (a thin Cython call of
# cudaGraphLaunch on a non-blocking stream) took 1.89 us against torch's replay 3.41 us and
# genesis's 3.25 us (benchmarks/results/2026-11-27-h200-sorted-scatter-probe.txt), so a bare
# launch is already 0.55x torch's time there: the 0.5x goal is below what one cudaGraphLaunch
# costs, and the row reports how close genesis gets. Since genesis replays through the driver's
# cuGraphLaunch with no Python frame of its own (Note [Driver graph launches]), an H100 host
# timed its replay at 2.0 and 2.6 us (torch 3.2 and 4.2 us, 1.57x and 1.63x) where a bare
# launch of a 100-kernel chain from C++ took 2.56-2.69 us (.diag probe, same host, same call;
# benchmarks/results/2026-11-27-h100-session8.txt): genesis adds nothing measurable to it.
# Session 9 (benchmarks/results/2026-11-28-session9-h200-h100-sweeps.txt): genesis's and torch's
# captures of the chain are the same 100 kernel nodes and cost the same to launch through the
# runtime; a device-launchable graph, or a one-kernel launcher graph that tail-launches the
# chain, costs 2.3-2.5 us more host time than the chain's own launch, so device graph launch is
# no way under it either.
# Session 10 (benchmarks/results/2026-11-28-session10-replay-floor.txt): the driver's
# cuGraphLaunch had never been found (Note [Driver graph launches]: asked for at too old a
# version), so the session 8 numbers above were runtime launches. With it found and `replay` a
# plain CPython method (Note [The replay's own call]), an interleaved H100 probe timed genesis's
# replay at a bare C call of cuGraphLaunch (1.93 vs 1.98 us, 2.65 vs 2.77 us) and at 0.44x
# torch's; this row then gave 2.08x and 1.86x in two processes: at the floor, the ratio is the
# driver's launch against torch's replay on the host of the moment.


def _chain(y: Any) -> Any:
    for i in range(OPS):
        k = i % 4
        if k == 0:
            y = y * 1.01
        elif k == 1:
            y = y + 0.5
        elif k == 2:
            y = y.relu() if not isinstance(y, np.ndarray) else np.maximum(y, 0)
        else:
            y = y - 0.25
    return y


RANDOM_EVERY = 25  # the random chain's ops: + rand_like(y) at every 25th


def _random_chain(lib: Any, y: Any) -> Any:
    for i in range(OPS):
        y = y + lib.rand_like(y) if i % RANDOM_EVERY == 0 else _chain_step(y, i)
    return y


def _chain_step(y: Any, i: int) -> Any:
    k = i % 4
    return y * 1.01 if k == 0 else y + 0.5 if k == 1 else y.relu() if k == 2 else y - 0.25


def _captured(lib: Any, x: Any, fn: Any = None) -> tuple[Any, Any]:
    """(graph, output) of fn (the chain) on x, warmed up on a side stream and captured."""
    fn = fn or _chain
    c = lib.cuda
    side = c.Stream()
    side.wait_stream(c.current_stream())
    with c.stream(side):
        fn(x)
    c.current_stream().wait_stream(side)
    g = c.CUDAGraph()
    with c.graph(g):
        y = fn(x)
    c.synchronize()
    return g, y


LAYERS = 4  # training step: layers of the MLP
WIDTH = 64  # units per layer: small, so the host cost dominates
BATCH = 32


def _mlp_loss(x: Any, *weights: Any) -> Any:
    h = x
    for w in weights:
        h = (h @ w).relu()
    return h.sum()


def _numpy_first_grad(x: np.ndarray, weights: list[np.ndarray]) -> np.ndarray:
    """The first weight's gradient of sum(MLP(x)), in float64."""
    hs, pre = [x.astype(np.float64)], []
    ws = [w.astype(np.float64) for w in weights]
    for w in ws:
        pre.append(hs[-1] @ w)
        hs.append(np.maximum(pre[-1], 0.0))
    g = np.ones_like(hs[-1])
    for i in reversed(range(len(ws))):
        g = g * (pre[i] > 0)
        if i == 0:
            return (hs[0].T @ g).astype(np.float32)
        g = g @ ws[i].T
    raise AssertionError("no layers")


def _graphed_step(lib: Any, x: Any, weights: list[Any]) -> Any:
    """A no-argument training step through lib's make_graphed_callables."""
    graphed = lib.cuda.make_graphed_callables(_mlp_loss, (x, *weights))
    lib.cuda.synchronize()

    def step() -> Any:
        for w in weights:
            w.grad = None
        graphed(x, *weights).backward()
        return weights[0].grad

    return step


@register(name="graphed MLP training step host time")
def graphed_training_step(ctx: Context) -> Case | None:
    """An MLP of LAYERS layers ``(h @ w).relu()`` of WIDTH units on BATCH rows, loss ``sum()``,
    captured forward and backward by genesis's and torch's make_graphed_callables; each call
    clears the weights' grads, replays the forward graph and calls ``loss.backward()`` (the
    backward graph, then autograd's accumulation into ``.grad``), in bursts. The result (the
    first weight's grad) is checked against NumPy in float64. Informational: no goal."""
    if not ctx.on_cuda:
        return None
    x = ctx.rng.standard_normal((BATCH, WIDTH), dtype=np.float32)
    ws = [
        ctx.rng.standard_normal((WIDTH, WIDTH), dtype=np.float32) / np.float32(np.sqrt(WIDTH))
        for _ in range(LAYERS)
    ]
    g_step = _graphed_step(
        genesis, ctx.to_genesis(x), [ctx.to_genesis(w).requires_grad_() for w in ws]
    )
    fns: dict[str, Any] = {"genesis": g_step, "numpy": lambda: _numpy_first_grad(x, ws)}
    if ctx.torch is not None:
        t_weights = [ctx.to_torch(w).requires_grad_() for w in ws]
        fns["torch"] = _graphed_step(ctx.torch, ctx.to_torch(x), t_weights)
    return Case(
        "graphed MLP training step host time",
        f"{LAYERS}x{WIDTH} f32, batch {BATCH}",
        fns,
        rtol=1e-4,
        atol=1e-4,
        burst=BURST,
        info=(
            f"make_graphed_callables of a {LAYERS}-layer ReLU MLP (genesis / torch): grads "
            f"cleared, forward replay, loss.backward() (backward replay and .grad), timed in "
            f"bursts of {BURST} on the host; median per call; informational"
        ),
    )


@register(name=f"{OPS}-op chain graph replay host time")
def chain_replay(ctx: Context) -> Case | None:
    if not ctx.on_cuda:
        return None
    a = ctx.rng.standard_normal(N, dtype=np.float32)
    g, y = _captured(genesis, ctx.to_genesis(a))
    # The bound methods are timed as they are: a wrapper's Python frame would add the same
    # ~0.2 us to both libraries' calls. Genesis's result is read after its untimed call.
    fns: dict[str, Any] = {"genesis": g.replay, "numpy": lambda: _chain(a)}
    if ctx.torch is not None:
        tg, _ = _captured(ctx.torch, ctx.to_torch(a))
        fns["torch"] = tg.replay
    return Case(
        f"{OPS}-op chain graph replay host time",
        f"{N} f32",
        fns,
        output=lambda: y,
        rtol=1e-5,
        atol=1e-5,
        burst=BURST,
        goal=Goal(f">= {1 / GOAL:.2f}x torch", min_speedup=1 / GOAL),
        info=(
            f"{OPS} elementwise ops captured once (genesis.cuda.graph / torch.cuda.graph), "
            f"the bound g.replay timed in bursts of {BURST} on the host (no wrapper), the device "
            f"synchronised "
            f"between bursts outside the timed region; median per call (goal: genesis <= "
            f"{GOAL}x torch's time)"
        ),
    )


@register(name=f"{OPS}-op chain with random ops graph replay host time")
def random_chain_replay(ctx: Context) -> Case | None:
    if not ctx.on_cuda:
        return None
    a = ctx.rng.standard_normal(N, dtype=np.float32)
    g, y = _captured(genesis, ctx.to_genesis(a), lambda x: _random_chain(genesis, x))
    fns: dict[str, Any] = {"genesis": g.replay}  # as the plain chain's
    if ctx.torch is not None:
        torch = ctx.torch
        tg, ty = _captured(torch, ctx.to_torch(a), lambda x: _random_chain(torch, x))
        fns["torch"] = tg.replay

    def finite(out: np.ndarray) -> str | None:
        return None if np.isfinite(out).all() else "non-finite values"

    return Case(
        f"{OPS}-op chain with random ops graph replay host time",
        f"{N} f32",
        fns,
        output=lambda: y,
        # Shape and dtype against torch's output (its replay returns nothing either).
        reference=(lambda: ty) if ctx.torch is not None else (lambda: np.empty(N, np.float32)),
        values=False,
        validate=finite,
        burst=BURST,
        goal=Goal(f">= {1 / GOAL:.2f}x torch", min_speedup=1 / GOAL),
        info=(
            f"the {OPS}-op chain with y + rand_like(y) at every {RANDOM_EVERY}th op, captured "
            f"once; each replay first writes the default generator's seed and offset to the "
            f"device (Note [Random ops in graphs]); timed as the plain chain (goal: genesis <= "
            f"{GOAL}x torch's time)"
        ),
    )
