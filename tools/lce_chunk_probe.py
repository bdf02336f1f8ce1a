"""The GPT-2 head's linear_cross_entropy forward + backward (8192 tokens, 768 -> 50304, bfloat16)
at several chunk sizes (the most logits a chunk holds, _CHUNK_ITEMS in
genesis/nn/functional/_linear_cross_entropy.py), with each setting's peak memory, beside torch's
F.linear + F.cross_entropy on float32 logits (GPU machine only):

    python tools/lce_chunk_probe.py

Settings and torch take turns for 5 rounds; each prints the median of its round medians.
"""

import statistics
import time

import torch

import genesis
import genesis.nn.functional as F
from genesis.nn.functional import _linear_cross_entropy as lce

rows, width, classes = 8192, 768, 50304
SETTINGS = [1 << 24, 1 << 25, 1 << 26, 1 << 27, 1 << 28, 1 << 30]


def median_ms(fn, sync, calls=10):
    times = []
    for _ in range(calls):
        sync()
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    g = torch.Generator().manual_seed(0)
    x0 = torch.randn(rows, width, generator=g)
    w0 = torch.randn(classes, width, generator=g) * 0.02
    t0 = torch.randint(0, classes, (rows,), generator=g)
    gx = genesis.from_dlpack(x0.cuda()).to(genesis.bfloat16).requires_grad_()
    gw = genesis.from_dlpack(w0.cuda()).to(genesis.bfloat16).requires_grad_()
    gt = genesis.from_dlpack(t0.cuda())
    tx = x0.cuda().bfloat16().requires_grad_()
    tw = w0.cuda().bfloat16().requires_grad_()
    tt = t0.cuda()

    def g_step():
        gx.grad = gw.grad = None
        F.linear_cross_entropy(gx, gw, gt).backward()

    def t_step():
        tx.grad = tw.grad = None
        torch.nn.functional.cross_entropy(torch.nn.functional.linear(tx, tw).float(), tt).backward()

    gs, ts = genesis.cuda.synchronize, torch.cuda.synchronize
    results: dict[str, list[float]] = {}
    peaks: dict[str, float] = {}
    for _ in range(5):
        for items in SETTINGS:
            lce._CHUNK_ITEMS = items
            chunk = lce._chunk_rows(None, rows, width, classes)
            name = f"chunks of <= {items >> 20}M logits ({chunk} rows)"
            g_step()
            genesis.cuda.reset_peak_memory_stats()
            results.setdefault(name, []).append(median_ms(g_step, gs))
            peaks[name] = genesis.cuda.max_memory_allocated() / 2**20
        t_step()
        torch.cuda.reset_peak_memory_stats()
        results.setdefault("torch linear + cross_entropy (float32 logits)", []).append(
            median_ms(t_step, ts)
        )
        peaks["torch linear + cross_entropy (float32 logits)"] = (
            torch.cuda.max_memory_allocated() / 2**20
        )
    for name, ms in results.items():
        print(f"  {name:58s} {statistics.median(ms):7.3f} ms  peak {peaks[name]:7.0f} MiB")


if __name__ == "__main__":
    main()
