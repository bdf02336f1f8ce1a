"""Times genesis's fused attention with and without dropout, forward alone and forward +
backward, to show where dropout's cost lies (session 51). On a GPU:
    python3 tools/attention_dropout_probe.py"""

import time

import genesis
import genesis.nn.functional as F


def _median_ms(fn, args, reps=20):
    for _ in range(3):
        fn(*args)
    genesis.cuda.synchronize()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn(*args)
        genesis.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e3)
    return sorted(times)[reps // 2]


def _forward(q, k, v, g, p, causal):
    with genesis.no_grad():
        F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=causal)


def _step(q, k, v, g, p, causal):
    F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=causal).backward(g)


for B, H, S, E in ((8, 12, 1024, 64), (4, 16, 4096, 128)):
    q, k, v = (
        genesis.randn(B, H, S, E, device="cuda").to(genesis.bfloat16).requires_grad_()
        for _ in range(3)
    )
    g = genesis.randn(B, H, S, E, device="cuda").to(genesis.bfloat16)
    for causal in (True, False):
        for p in (0.0, 0.1):
            args = (q, k, v, g, p, causal)
            fwd, both = _median_ms(_forward, args), _median_ms(_step, args)
            name = f"B{B} H{H} S{S} d{E} causal={causal} p={p}"
            print(f"{name}: fwd {fwd:.3f} ms, fwd+bwd {both:.3f} ms")
