"""Wall time, host time and CUDA kernels of a norm benchmark row's step (zero_grad, forward,
backward), genesis's and torch's (GPU machine only):

    python tools/norm_step_profile.py [layernorm-bf16 | groupnorm | batchnorm]

layernorm-bf16 (the default): "LayerNorm bf16 fwd+bwd", 65536 x 768; groupnorm: "GroupNorm
fwd+bwd", 64 x 256 x 32 x 32 in 32 groups, float32; batchnorm: "BatchNorm2d fwd+bwd",
256 x 64 x 32 x 32, float32.

"4 in a row" is the step's time back to back (the host's time before the first kernel hidden);
the kernels come from torch.profiler, whose CUPTI sees genesis's kernels too.
"""

import statistics
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

import genesis

CASES = {
    "layernorm-bf16": (lambda lib: lib.nn.LayerNorm(768), (65536, 768), "bfloat16"),
    "groupnorm": (lambda lib: lib.nn.GroupNorm(32, 256), (64, 256, 32, 32), "float32"),
    "batchnorm": (lambda lib: lib.nn.BatchNorm2d(64), (256, 64, 32, 32), "float32"),
}
build, shape, dtype = CASES[sys.argv[1] if len(sys.argv) > 1 else "layernorm-bf16"]


def setup(lib, sync):
    dt = getattr(lib, dtype)
    layer = build(lib).to("cuda").to(dt)
    x = lib.randn(*shape, device="cuda").to(dt).requires_grad_()
    g = lib.randn(*shape, device="cuda").to(dt)

    def step():
        layer.zero_grad()
        x.grad = None
        layer(x).backward(g)

    return step


for name, lib, sync in (
    ("genesis", genesis, genesis.cuda.synchronize),
    ("torch", torch, torch.cuda.synchronize),
):
    step = setup(lib, sync)
    for _ in range(5):
        step()
    sync()
    wall, host, four = [], [], []
    for _ in range(50):
        sync()
        t0 = time.perf_counter()
        step()
        t1 = time.perf_counter()
        sync()
        t2 = time.perf_counter()
        host.append((t1 - t0) * 1e6)
        wall.append((t2 - t0) * 1e6)
    for _ in range(20):
        sync()
        t0 = time.perf_counter()
        step()
        step()
        step()
        step()
        sync()
        four.append((time.perf_counter() - t0) / 4 * 1e6)
    med = statistics.median
    print(
        f"{name}: wall {med(wall):.1f} us, host {med(host):.1f} us, "
        f"4 in a row {med(four):.1f} us/step"
    )
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            step()
        sync()
    evs = [e for e in prof.events() if e.device_type.name == "CUDA"]
    tot = {}
    for e in evs:
        k = e.name[:90]
        tot.setdefault(k, []).append(e.device_time)
    for k, v in sorted(tot.items(), key=lambda kv: -sum(kv[1])):
        print(f"   {sum(v) / 10:8.1f} us x{len(v) / 10:.0f}  {k}")
