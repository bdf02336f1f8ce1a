"""Several GPUs in one process: copies between GPUs (peer copies).

Runs only with ``--device cuda`` on a machine with two or more GPUs; 1 GiB of float32 goes from
cuda:0 to cuda:1 (and back), as genesis's ``x.to("cuda:1")`` against torch's. The collectives
over NCCL need several processes: ``benchmarks/distributed.py`` times them.
"""

from __future__ import annotations

import numpy as np

import genesis
from benchmarks.common import Case, Context, Goal, Registry, size_str

register = Registry()
cases = register.cases


def _peer_copy(ctx: Context, src: int, dst: int) -> Case | None:
    if not ctx.on_cuda or genesis.cuda.device_count() < 2:
        return None
    n = ctx.pick(1 << 20, 1 << 16, cuda=1 << 28)  # 1 GiB of float32 on CUDA
    a = ctx.rng.random(n, dtype=np.float32)
    x = genesis.from_numpy(a).to(f"cuda:{src}")
    t = ctx.torch.from_numpy(a).to(f"cuda:{src}") if ctx.torch is not None else None
    goal = Goal(">= 0.95x torch", min_speedup=0.95) if not ctx.quick else None
    return Case(
        f"to('cuda:{dst}') from cuda:{src}",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=lambda: x.to(f"cuda:{dst}"),
            numpy=lambda: a,
            torch=lambda: t.to(f"cuda:{dst}"),
        ),
        nbytes=2 * a.nbytes,
        goal=goal,
    )


@register(name="to('cuda:1') from cuda:0")
def peer_copy_0_to_1(ctx: Context) -> Case | None:
    return _peer_copy(ctx, 0, 1)


@register(name="to('cuda:0') from cuda:1")
def peer_copy_1_to_0(ctx: Context) -> Case | None:
    return _peer_copy(ctx, 1, 0)
