"""Fused attention (issue 47): ``F.scaled_dot_product_attention`` against the fastest of
PyTorch's SDPA backends for each row.

Issue 47's goal is >= 1.0x the fastest backend PyTorch has for each shape, forward and
forward + backward, causal and not, at (B 8, H 12, S 1024, d 64), (B 4, H 16, S 4096, d 128)
and (B 1, H 16, S 16384, d 128), bfloat16. PyTorch's default choice is not always its fastest
(at the first shape, causal, it picks a kernel at less than half its cuDNN backend's rate), so
each row first times each of torch's backends (FlashAttention-2, memory-efficient, cuDNN; the
math backend only where no other runs, as on the CPU) for a few calls and races genesis against
the fastest; the footnote names it and the others' times. FLOPs: 4 B H S^2 d forward, halved
when causal, 3.5 times that forward + backward. A forward row returns the output, a forward +
backward row q's gradient (after a fixed gradient of the output), checked against torch's
within bfloat16's tolerance. Two informational rows time causal forward + backward with dropout
0.1 at the first two shapes (the libraries draw different masks, so only genesis's finiteness
is checked; genesis takes its kernels' dropout where _attention_fused._kernel_dropout allows,
else the composed path). Two informational float32 rows time causal attention at the first two
shapes (genesis's float32 kernels where _attention_fused._kernel_float32 allows, else the
composed path). Sizes: the issue's on CUDA, small on the CPU.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

import genesis
from benchmarks.common import Case, Context, Goal, Registry

register = Registry()
cases = register.cases

# (B, H, S, d) of issue 47's goal.
SHAPES = ((8, 12, 1024, 64), (4, 16, 4096, 128), (1, 16, 16384, 128))


def _backends(torch: Any) -> list[tuple[str, Any]]:
    """torch's SDPA backends by name: the fused ones, else (none usable) the math one."""
    from torch.nn.attention import SDPBackend

    names = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH")
    return [(n.lower(), getattr(SDPBackend, n)) for n in names if hasattr(SDPBackend, n)]


def _median_seconds(fn: Callable[[], Any], sync: Callable[[], None], calls: int = 5) -> float:
    fn()
    sync()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _fastest_torch(ctx: Context, inner: Callable[[], Any]) -> tuple[Callable[[], Any] | None, str]:
    """The row's torch call ``inner`` under the fastest of torch's backends: (that call, a
    footnote naming each backend's short-timing median)."""
    from torch.nn.attention import sdpa_kernel

    timed: list[tuple[float, str, Callable[[], Any]]] = []
    refused: list[str] = []
    for name, backend in _backends(ctx.torch):
        if name == "math" and timed:
            break  # the math backend only where no fused one runs

        def call(backend: Any = backend) -> Any:
            with sdpa_kernel(backend):
                return inner()

        try:
            seconds = _median_seconds(call, ctx.synchronize)
        except RuntimeError:  # this backend does not take the shape, dtype or device
            refused.append(name)
            continue
        timed.append((seconds, name, call))
    if not timed:
        return None, "torch: no SDPA backend ran"
    timed.sort(key=lambda t: t[0])
    note = ", ".join(f"{name} {seconds * 1e3:.3f} ms" for seconds, name, _ in timed)
    if refused:
        note += f"; refused: {', '.join(refused)}"
    return timed[0][2], f"torch's fastest backend: {timed[0][1]} (short timing: {note})"


def _name(
    b: int,
    h: int,
    s: int,
    d: int,
    causal: bool,
    backward: bool,
    dropout_p: float = 0.0,
    dtype: str = "bfloat16",
) -> str:
    """The row's name, from the issue's shape (the same on every device, for --filter)."""
    return (
        f"SDPA B {b} H {h} S {s} d {d} {'causal' if causal else 'full'}"
        f"{f' dropout {dropout_p}' if dropout_p else ''}{' f32' if dtype == 'float32' else ''}"
        f" {'fwd+bwd' if backward else 'fwd'}"
    )


def _finite(result: np.ndarray) -> str | None:
    return None if np.isfinite(result.astype(np.float32)).all() else "non-finite values"


def _case(
    ctx: Context,
    shape: tuple,
    causal: bool,
    backward: bool,
    dropout_p: float = 0.0,
    dtype: str = "bfloat16",
) -> Case:
    name = _name(*shape, causal, backward, dropout_p, dtype)
    b, h, s, d = shape
    b, h, s = ctx.pick(1, 1, cuda=b), ctx.pick(2, 1, cuda=h), ctx.pick(256, 16, cuda=s)
    arrays = [ctx.rng.standard_normal((b, h, s, d), dtype=np.float32) for _ in range(4)]

    def inputs(convert: Callable[[np.ndarray], Any], dtype: Any) -> tuple:
        q, k, v, g = (convert(a).to(dtype) for a in arrays)
        if backward:
            for t in (q, k, v):
                t.requires_grad_()
        return q, k, v, g

    def make(lib: Any, q: Any, k: Any, v: Any, g: Any) -> Callable[[], Any]:
        sdpa = lib.nn.functional.scaled_dot_product_attention
        if not backward:
            return lambda: sdpa(q, k, v, dropout_p=dropout_p, is_causal=causal)

        def step() -> Any:
            q.grad = k.grad = v.grad = None
            sdpa(q, k, v, dropout_p=dropout_p, is_causal=causal).backward(g)
            return q.grad

        return step

    fns: dict[str, Callable[[], Any]] = {
        "genesis": make(genesis, *inputs(ctx.to_genesis, getattr(genesis, dtype)))
    }
    info = None
    if ctx.torch is not None:
        t_call = make(ctx.torch, *inputs(ctx.to_torch, getattr(ctx.torch, dtype)))
        fastest, info = _fastest_torch(ctx, t_call)
        if fastest is not None:
            fns["torch"] = fastest
    flops = 4 * b * h * s * s * d // (2 if causal else 1)
    return Case(
        name=name,
        size=f"B {b}, H {h}, S {s}, d {d}{' causal' if causal else ''}"
        f" {'f32' if dtype == 'float32' else 'bf16'}",
        fns=fns,
        flops=int(flops * 3.5) if backward else flops,
        # dropout: the libraries draw different masks; genesis's result is checked finite
        rtol=None if dropout_p else (1e-3 if dtype == "float32" else 3e-2),
        atol=None if dropout_p else (1e-3 if dtype == "float32" else 3e-2),
        values=not dropout_p,
        validate=_finite if dropout_p else None,
        rounds=3,
        goal=Goal(">= 1.0x torch's fastest", min_speedup=1.0)
        if ctx.on_cuda and not ctx.quick and not dropout_p and dtype == "bfloat16"
        else None,
        info=info,
    )


def _register(
    shape: tuple, causal: bool, backward: bool, dropout_p: float = 0.0, dtype: str = "bfloat16"
) -> None:
    @register(name=_name(*shape, causal, backward, dropout_p, dtype))
    def build(ctx: Context) -> Case:
        return _case(ctx, shape, causal, backward, dropout_p, dtype)


for _shape in SHAPES:
    for _causal in (True, False):
        for _backward in (False, True):
            _register(_shape, _causal, _backward)
# Dropout (informational: the issue asks for it, not for its speed).
for _shape in SHAPES[:2]:
    _register(_shape, True, True, 0.1)
# float32 (informational: issue 45 asks for a fused float32 attention, not for its speed).
_register(SHAPES[0], True, True, dtype="float32")
_register(SHAPES[1], True, False, dtype="float32")
