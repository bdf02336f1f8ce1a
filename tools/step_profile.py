"""Where the time of a whole training step goes, genesis against torch (GPU machine only).

    python tools/step_profile.py [lce gpt2 gpt2c resnet block] [--top N]

Builds the issue-47 GPT-2 and ResNet-style steps of benchmarks/training.py for both libraries
(same weights), then for each: the median host time of a synchronised step, the sum of the CUDA
kernel times of one step (torch.profiler: CUPTI sees every kernel of the process, genesis's too),
the gap between the two (time the GPU waits for the host), how long the host takes to queue a
step, and the kernels grouped by family and listed by time. Used to choose which fusion or
overhead to attack next.
"""

from __future__ import annotations

import re
import sys
import time
from typing import Any, Callable

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile

import genesis
from benchmarks.training import gpt, resnet

# Kernel families by name: the first pattern that matches names the family.
FAMILIES = [
    ("gemm", r"gemm|cutlass|sm90_xmma|nvjet|cublas|Kernel2"),
    ("attention", r"flash|fmha|attention|sdpa|cudnn_generated"),
    ("conv", r"conv|implicit|wgrad|dgrad|fprop|xmma"),
    ("norm", r"norm|welford|batch_norm"),
    ("cross entropy", r"cross|softmax|nll|lce"),
    ("optimizer", r"adam|sgd|multi_tensor|foreach|optim"),
    ("reduce", r"reduce|sum|mean"),
    ("copy/cast", r"copy|cast|contiguous|transpose|permute|convert"),
    ("elementwise", r"elementwise|unary|binary|vectorized|gelu|relu|add|mul|fill"),
]


def family(name: str) -> str:
    lower = name.lower()
    for fam, pattern in FAMILIES:
        if re.search(pattern, lower):
            return fam
    return "other"


def wall_ms(step: Callable[[], Any], sync: Callable[[], None], reps: int = 15) -> float:
    for _ in range(3):
        step()
    sync()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def host_ms(step: Callable[[], Any], sync: Callable[[], None], reps: int = 15) -> float:
    """Median time until step() returns, the GPU idle at the start: when it is close to the
    synchronised step's, the host is what the step waits for."""
    times = []
    for _ in range(reps):
        sync()
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    sync()
    return float(np.median(times)) * 1e3


def kernels(step: Callable[[], Any], sync: Callable[[], None], iters: int = 3) -> dict:
    """{kernel name: [microseconds per step, launches per step]}."""
    step()
    sync()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            step()
        sync()
        torch.cuda.synchronize()
    totals: dict[str, list[float]] = {}
    for event in prof.events():
        if event.device_type.name != "CUDA":
            continue
        row = totals.setdefault(event.name[:110], [0.0, 0])
        row[0] += event.device_time_total / iters
        row[1] += 1 / iters
    return totals


def kernel_table(
    label: str,
    step: Callable[[], Any],
    sync: Callable[[], None],
    work: float,
    unit: str,
    iters: int = 10,
) -> None:
    """One library's kernels for `step` (the probes' per-case listing): their total time, the
    rate over `work` (per microsecond, scaled by 1e6: TFLOP/s for FLOPs, TB/s for bytes), and
    each kernel with its time and launches."""
    rows = kernels(step, sync, iters=iters)
    total = sum(us for us, _ in rows.values())
    print(f"  {label}: {total:8.1f} us, {work / total / 1e6:6.2f} {unit}")
    for kname, (us, count) in sorted(rows.items(), key=lambda kv: -kv[1][0]):
        print(f"     {us:8.1f} us x{count:<3.0f} {kname[:100]}")


def gaps(step: Callable[[], Any], sync: Callable[[], None], show: int = 6) -> None:
    """Where the GPU waits within one step: the span from its first device activity (kernel,
    copy or fill) to its last, the idle time between them, and the longest idle stretches with
    what ran before and after each."""
    step()
    sync()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        sync()
        torch.cuda.synchronize()
    spans = sorted(
        (e.time_range.start, e.time_range.end, e.name[:60])
        for e in prof.events()
        if e.device_type.name == "CUDA"
    )
    if not spans:
        return
    idle, holes, end, before = 0.0, [], spans[0][1], spans[0][2]
    for start, stop, name in spans[1:]:
        if start > end:
            idle += start - end
            holes.append((start - end, before, name))
        if stop >= end:
            end, before = stop, name
    print(f"   device span {(end - spans[0][0]) / 1e3:.2f} ms, idle within it {idle / 1e3:.2f} ms")
    for hole, after, name in sorted(holes, reverse=True)[:show]:
        print(f"     idle {hole:8.1f} us after {after} before {name}")


def report(name: str, steps: dict[str, tuple[Callable[[], Any], Callable[[], None]]], top: int):
    print(f"\n==== {name}", flush=True)
    walls = {lib: wall_ms(fn, sync) for lib, (fn, sync) in steps.items()}
    hosts = {lib: host_ms(fn, sync) for lib, (fn, sync) in steps.items()}
    for lib, (fn, sync) in steps.items():
        rows = kernels(fn, sync)
        busy = sum(r[0] for r in rows.values()) / 1e3
        launches = sum(r[1] for r in rows.values())
        print(
            f"\n-- {lib}: step {walls[lib]:.2f} ms (host returns after {hosts[lib]:.2f} ms), "
            f"kernels {busy:.2f} ms ({launches:.0f} launches), GPU idle {walls[lib] - busy:.2f} ms"
        )
        fams: dict[str, list[float]] = {}
        for kname, (us, count) in rows.items():
            f = fams.setdefault(family(kname), [0.0, 0])
            f[0] += us
            f[1] += count
        for fam, (us, count) in sorted(fams.items(), key=lambda kv: -kv[1][0]):
            print(f"   {fam:14s} {us / 1e3:8.3f} ms  x{count:.0f}")
        for kname, (us, count) in sorted(rows.items(), key=lambda kv: -kv[1][0])[:top]:
            print(f"     {us:9.1f} us x{count:<4.0f} {kname}")
        gaps(fn, sync)
        sys.stdout.flush()


def gpt2_steps(b: int = 8, s: int = 1024, compiled: bool = False) -> dict:
    """The GPT-2 step of both libraries; with `compiled`, genesis.compile's step, genesis's eager
    one and torch.compile's (the same weights)."""
    vocab, layers, width, heads = 50304, 12, 768, 12
    idx = np.random.default_rng(0).integers(0, vocab, (b, s + 1))
    out = {}
    weights: dict = {}  # genesis's, given to torch
    runs = [("genesis", genesis, False), ("torch", torch, False)]
    if compiled:
        runs = [("genesis compiled", genesis, True), ("genesis eager", genesis, False)]
        runs.append(("torch.compile", torch, True))
    for label, lib, compile_it in runs:
        lib.manual_seed(0)
        model = gpt(lib, vocab, s, layers, width, heads).to("cuda")
        if lib is torch:
            model.load_state_dict({k: torch.from_dlpack(v) for k, v in weights.items()})
        else:
            weights = {k: v.contiguous() for k, v in model.state_dict().items()}
        x = lib.tensor(idx[:, :-1], device="cuda")
        y = lib.tensor(idx[:, 1:], device="cuda")
        extra = {"fused": True} if lib is torch else {}
        opt = lib.optim.AdamW(model.parameters(), lr=6e-4, weight_decay=0.1, **extra)
        forward = lib.compile(model) if compile_it else model

        def step(lib=lib, forward=forward, x=x, y=y, opt=opt) -> Any:
            opt.zero_grad(set_to_none=True)
            with lib.autocast("cuda", dtype=lib.bfloat16):
                loss = forward(x, y)
            loss.backward()
            opt.step()
            return loss

        out[label] = (step, lib.cuda.synchronize)
    return out


def resnet_steps(n: int = 256, hw: int = 32, width: int = 64) -> dict:
    rng = np.random.default_rng(0)
    images = rng.standard_normal((n, 3, hw, hw), dtype=np.float32)
    labels = rng.integers(0, 10, (n,))
    out = {}
    for lib in (genesis, torch):
        lib.manual_seed(0)
        model = resnet(lib, width, 10).to("cuda").to(memory_format=lib.channels_last)
        x = lib.tensor(images, device="cuda").contiguous(memory_format=lib.channels_last)
        y = lib.tensor(labels, device="cuda")
        opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        F = lib.nn.functional

        def step(lib=lib, model=model, x=x, y=y, opt=opt, F=F) -> Any:
            opt.zero_grad(set_to_none=True)
            with lib.autocast("cuda", dtype=lib.bfloat16):
                loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss

        out[lib.__name__] = (step, lib.cuda.synchronize)
    return out


def lce_steps(rows: int = 8192, width: int = 768, vocab: int = 50304) -> dict:
    """The GPT-2 head: genesis's chunked F.linear_cross_entropy against torch's F.linear then
    F.cross_entropy on float32 logits, bf16 input and weight, forward + backward."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((rows, width), dtype=np.float32)
    ws = rng.standard_normal((vocab, width), dtype=np.float32) * 0.02
    ts = rng.integers(0, vocab, (rows,))
    out = {}
    for lib in (genesis, torch):
        F = lib.nn.functional
        x = lib.tensor(xs, device="cuda").to(lib.bfloat16).requires_grad_()
        w = lib.tensor(ws, device="cuda").to(lib.bfloat16).requires_grad_()
        t = lib.tensor(ts, device="cuda")

        def step(lib=lib, F=F, x=x, w=w, t=t) -> Any:
            x.grad = w.grad = None
            if lib is genesis:
                loss = F.linear_cross_entropy(x, w, t)
            else:
                loss = F.cross_entropy(F.linear(x, w).float(), t)
            loss.backward()
            return loss

        out[lib.__name__] = (step, lib.cuda.synchronize)
    return out


def block_steps(b: int = 8, s: int = 1024, width: int = 768, heads: int = 12) -> dict:
    """benchmarks/compiling.py's transformer block of plain ops: genesis compiled, genesis eager
    (compile left out) and torch.compile, bf16, the same weights."""
    from benchmarks.compiling import block_step

    rng = np.random.default_rng(0)
    shapes = {"ln1w": (width,), "ln1b": (width,), "wqkv": (width, 3 * width),
              "bqkv": (3 * width,), "wo": (width, width), "bo": (width,), "ln2w": (width,),
              "ln2b": (width,), "w1": (width, 4 * width), "b1": (4 * width,),
              "w2": (4 * width, width), "b2": (width,)}  # fmt: skip
    arrays = {k: (rng.standard_normal(v) * 0.02).astype("float32") for k, v in shapes.items()}
    x_np = rng.standard_normal((b, s, width)).astype("float32")
    mask_np = np.triu(np.ones((s, s), dtype=bool), k=1)

    class Eager:  # genesis with compile as the identity
        def __getattr__(self, name: str) -> Any:
            return (lambda fn: fn) if name == "compile" else getattr(genesis, name)

    out = {}
    libs = [("genesis compiled", genesis, genesis), ("genesis eager", Eager(), genesis)]
    for label, lib, mod in libs + [("torch.compile", torch, torch)]:
        params = {k: mod.tensor(a, device="cuda").to(mod.bfloat16).requires_grad_()
                  for k, a in arrays.items()}  # fmt: skip
        x = mod.tensor(x_np, device="cuda").to(mod.bfloat16)
        mask = mod.tensor(mask_np, device="cuda")
        fn = block_step(lib, heads, 1e-3)
        out[label] = (
            (lambda fn=fn, x=x, mask=mask, p=params: fn(x, mask, p)),
            mod.cuda.synchronize,
        )
    return out


def main() -> None:
    args = sys.argv[1:]
    top = 25
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i : i + 2]
    areas = args or ["lce", "gpt2", "resnet"]
    if "lce" in areas:
        report("GPT-2 head linear_cross_entropy fwd+bwd, 8192x768 -> 50304", lce_steps(), top)
    if "gpt2" in areas:
        report("GPT-2 124M step, B 8, S 1024, bf16 autocast, AdamW", gpt2_steps(), top)
    if "gpt2c" in areas:  # genesis.compile's step against its eager one and torch.compile's
        title = "GPT-2 124M step compiled, B 8, S 1024, bf16 autocast, AdamW"
        report(title, gpt2_steps(compiled=True), top)
    if "block" in areas:
        report(
            "transformer block step of plain ops, B 8, S 1024, width 768, bf16", block_steps(), top
        )
    if "resnet" in areas:
        report("ResNet-style step, B 256, 32x32, width 64, bf16 autocast, SGD", resnet_steps(), top)


if __name__ == "__main__":
    main()
