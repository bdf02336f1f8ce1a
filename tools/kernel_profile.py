"""Per-kernel CUDA times of genesis against torch for some issue-15 rows (GPU machine only).

    python tools/kernel_profile.py [sort unique topk nonzero norm index_add scatter_add
                                    randint_gather]

Times each case's call on the host (median of 20, synchronised), then lists the CUDA kernels
both libraries launch per call, from torch.profiler: CUPTI sees every kernel of the process,
genesis's too. Used to find which pass of an op is slower than torch's.
"""

import sys
import time

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile

import genesis

AREAS = ["sort", "unique", "topk", "nonzero", "norm", "index_add", "scatter_add", "randint_gather"]


def _sync_genesis():
    genesis.cuda.synchronize()


def _sync_torch():
    torch.cuda.synchronize()


def wall_us(fn, sync, reps=20):
    """Median host time of fn() plus a synchronize, in microseconds."""
    for _ in range(3):
        fn()
    sync()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e6


def kernels_us(fn, sync, iters=5):
    """[(kernel name, microseconds per call, launches per call)] of fn()."""
    for _ in range(2):
        fn()
    sync()
    _sync_torch()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            fn()
        sync()
        _sync_torch()
    totals: dict[str, list[float]] = {}
    for event in prof.events():
        if event.device_type.name != "CUDA":
            continue
        row = totals.setdefault(event.name[:90], [0.0, 0])
        row[0] += event.device_time_total
        row[1] += 1
    return [(name, t / iters, int(c) // iters) for name, (t, c) in totals.items()]


def case(name, genesis_fn, torch_fn):
    g, t = wall_us(genesis_fn, _sync_genesis), wall_us(torch_fn, _sync_torch)
    print(f"\n=== {name}: genesis {g:.1f} us, torch {t:.1f} us, ratio {t / g:.3f}", flush=True)
    for lib, fn, sync in (("genesis", genesis_fn, _sync_genesis), ("torch", torch_fn, _sync_torch)):
        rows = kernels_us(fn, sync)
        print(f"  {lib}: kernel sum {sum(r[1] for r in rows):.1f} us")
        for kernel, us, count in sorted(rows, key=lambda r: -r[1])[:8]:
            print(f"    {us:9.1f} us x{count}  {kernel}")


def pair(shape, dtype, seed=0):
    """The same random normals as a genesis and a torch CUDA tensor."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    t = torch.randn(shape, generator=gen, device="cuda").to(dtype)
    return genesis.from_dlpack(t.clone()), t


def cases_at(n, areas):
    """(name, genesis fn, torch fn) of the chosen areas at n items."""
    out = []
    half, single = torch.float16, torch.float32
    if "sort" in areas:
        x, t = pair((n,), half)
        out.append((f"sort f16 {n}", x.sort, t.sort))
        out.append((f"argsort stable f16 {n}", x.argsort, lambda t=t: t.argsort(stable=True)))
    if "unique" in areas:
        for dt in (single, half):
            x, t = pair((n,), dt)
            out.append((f"unique {dt} {n}", x.unique, t.unique))
    if "topk" in areas and n == 1 << 24:
        x, t = pair((n,), half)
        out.append((f"topk16 f16 {n}", lambda x=x: x.topk(16), lambda t=t: t.topk(16)))
    if "nonzero" in areas:
        gen = torch.Generator(device="cuda").manual_seed(1)
        tb = torch.rand((n,), generator=gen, device="cuda") < 0.5
        out.append((f"nonzero {n}", genesis.from_dlpack(tb.clone()).nonzero, tb.nonzero))
    if "norm" in areas and n == 1 << 24:
        for dt in (single, half):
            x, t = pair((n,), dt)
            out.append((f"norm {dt} {n}", x.norm, t.norm))
            out.append((f"sum {dt} {n}", x.sum, t.sum))
    if "index_add" in areas and n == 1 << 24:
        rows = n // 1024
        (x, t), (s, ts) = pair((rows, 1024), single), pair((rows, 1024), single, 2)
        ti = torch.randint(0, rows, (rows,), device="cuda")
        gi = genesis.from_dlpack(ti.clone())
        out.append(
            (
                f"index_add f32 {rows}x1024",
                lambda x=x, gi=gi, s=s: x.index_add_(0, gi, s),
                lambda t=t, ti=ti, ts=ts: t.index_add_(0, ti, ts),
            )
        )
    if "scatter_add" in areas:
        (x, t), (v, tv) = pair((n,), half), pair((n,), half, 3)
        ti = torch.randint(0, n, (n,), device="cuda")
        gi = genesis.from_dlpack(ti.clone())
        out.append(
            (
                f"scatter_add f16 {n}",
                lambda x=x, gi=gi, v=v: x.scatter_add_(0, gi, v),
                lambda t=t, ti=ti, tv=tv: t.scatter_add_(0, ti, tv),
            )
        )
    if "randint_gather" in areas and n == 1 << 24:
        # the "randint + a[idx] gather" benchmark row, split into its two ops
        table = 1 << 28
        x, t = pair((table,), single)
        ti = torch.randint(0, table, (n,), device="cuda")
        gi = genesis.from_dlpack(ti.clone())
        out.append(
            (
                f"randint {n} of {table}",
                lambda: genesis.randint(0, table, (n,), device="cuda"),
                lambda: torch.randint(0, table, (n,), device="cuda"),
            )
        )
        out.append(
            (f"gather f32 {n} of {table}", lambda x=x, gi=gi: x[gi], lambda t=t, ti=ti: t[ti])
        )
    return out


def main():
    areas = sys.argv[1:] or AREAS
    for n in (1 << 24, 1 << 28):
        for name, genesis_fn, torch_fn in cases_at(n, areas):
            case(name, genesis_fn, torch_fn)
        torch.cuda.empty_cache()
        genesis.empty_cache()


if __name__ == "__main__":
    main()
