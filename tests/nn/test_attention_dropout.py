"""Dropout inside the fused attention kernels (Note [Dropout in fused attention] in
csrc/vocab/attention_dropout.h): the keep rule against genesis's own dropout draws (CPU), and on
CUDA the kernels' output, log-sum-exp and gradients against a float64 reference built with the
mask the rule gives for the (seed, offset) the forward reports; the public path's use of it, the
generator's advance, grouped key heads, and draws inside a captured CUDA graph."""

import math

import numpy as np
import pytest
from conftest import HAS_CUDA

import genesis
import genesis.nn.functional as F
from genesis import _C
from genesis.backends import cuda as backends_cuda

RNG = np.random.default_rng(11)
OP = "scaled_dot_product_attention"
HAS_FUSED = HAS_CUDA and _C._nn._fused_attention_supported(genesis.zeros(1, device="cuda"))
requires_fused = pytest.mark.skipif(not HAS_FUSED, reason="no CUDA device of sm_80 or later")


def _rule_mask(bh, L, S, p, seed):
    """The keep mask by the note's rule from genesis's fused dropout draws (counter j's word e
    is element 4 j + e's draw), from a generator seeded with `seed` (offset 0)."""
    blocks = bh * ((L + 1) // 2) * ((S + 1) // 2)
    genesis.manual_seed(seed)
    _, drawn = _C._nn._fused_dropout(genesis.ones(4 * blocks), p)
    b, i, j = np.meshgrid(np.arange(bh), np.arange(L), np.arange(S), indexing="ij")
    block = (b * ((L + 1) // 2) + i // 2) * ((S + 1) // 2) + j // 2
    return drawn.numpy()[4 * block + 2 * (i % 2) + j % 2]


@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 5, 7), (2, 64, 33), (1, 2, 130)])
def test_mask_follows_the_rule(shape):
    bh, L, S = shape
    mask = _C._nn._attention_dropout_mask(bh, L, S, 0.3, 1234, 0).numpy()
    assert mask.shape == shape and mask.dtype == np.bool_
    np.testing.assert_array_equal(mask, _rule_mask(bh, L, S, 0.3, 1234))


def test_mask_offsets_and_rate():
    bh, L, S = 3, 33, 17
    whole = _C._nn._attention_dropout_mask(bh, L, S, 0.25, 7, 100).numpy()
    # the second (bh) slice starts where the first one's counters end
    per_head = ((L + 1) // 2) * ((S + 1) // 2)
    shifted = _C._nn._attention_dropout_mask(1, L, S, 0.25, 7, 100 + per_head).numpy()
    np.testing.assert_array_equal(whole[1], shifted[0])
    assert not np.array_equal(whole, _C._nn._attention_dropout_mask(bh, L, S, 0.25, 8, 100))
    big = _C._nn._attention_dropout_mask(8, 128, 128, 0.25, 3, 0).numpy()
    assert abs(big.mean() - 0.75) < 0.01
    assert _C._nn._attention_dropout_mask(0, 4, 4, 0.5, 1, 0).shape == (0, 4, 4)
    with pytest.raises(ValueError, match=r"\[attention_dropout_mask\]"):
        _C._nn._attention_dropout_mask(1, 4, 4, 1.0, 1, 0)


def _bits(x):
    return x & (2**64 - 1)


def _cuda(a, dtype):
    return genesis.tensor(a, device="cuda").to(dtype)


def _values(t):
    return t.float().cpu().numpy().astype(np.float64)


def _reference(q, k, v, keep, p, scale, causal, dout):
    """(out, lse, dq, dk, dv) in float64 with q (B, H, L, E), k and v (B, Hk, S, E), keep
    (B*H, L, S); kept weights scaled by float32(1 / (1 - p)) as the kernels do."""
    B, H, L, E = q.shape
    group = H // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = q @ k.transpose(0, 1, 3, 2) * scale
    if causal:
        s = np.where(np.tril(np.ones((L, k.shape[2]), bool)), s, -np.inf)
    lse = np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1)) + s.max(-1)
    P = np.exp(s - lse[..., None])
    M = keep.reshape(B, H, L, -1) * float(np.float32(1 / (1 - p)))
    W = P * M
    out = W @ v
    dv = W.transpose(0, 1, 3, 2) @ dout
    dP = (dout @ v.transpose(0, 1, 3, 2)) * M
    dS = P * (dP - (dP * P).sum(-1, keepdims=True))
    dq = dS @ k * scale
    dk = dS.transpose(0, 1, 3, 2) @ q * scale
    if group > 1:
        dk = dk.reshape(B, -1, group, *dk.shape[2:]).sum(2)
        dv = dv.reshape(B, -1, group, *dv.shape[2:]).sum(2)
    return out, lse, dq, dk, dv


def _relative_error(got, want):
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-6))


CASES = [
    # (B, H, Hk, L, S, E, causal)
    (1, 2, 2, 37, 45, 16, False),
    (2, 2, 2, 64, 64, 64, True),
    (1, 4, 2, 70, 129, 128, False),
    (1, 1, 1, 33, 33, 256, True),
    (1, 2, 1, 1, 17, 32, False),
]


@requires_fused
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c)))
def test_kernels_against_reference(dtype, case):
    B, H, Hk, L, S, E, causal = case
    gdt = getattr(genesis, dtype)
    p, scale = 0.3, 1 / math.sqrt(E)
    q = _cuda(RNG.standard_normal((B, H, L, E)), gdt)
    k = _cuda(RNG.standard_normal((B, Hk, S, E)), gdt)
    v = _cuda(RNG.standard_normal((B, Hk, S, E)), gdt)
    dout = _cuda(RNG.standard_normal((B, H, L, E)), gdt)
    out, lse, rng, path = _C._nn._fused_attention(q, k, v, None, scale, causal, p, False, True, OP)
    assert path == 1 and rng.dtype == genesis.int64 and rng.shape == (2,)
    seed, offset = (_bits(x) for x in rng.cpu().tolist())
    keep = _C._nn._attention_dropout_mask(B * H, L, S, p, seed, offset).numpy()
    dq, dk, dv = _C._nn._fused_attention_backward(
        dout, q, k, v, out, lse, None, scale, causal, p, rng, False, OP
    )
    want = _reference(_values(q), _values(k), _values(v), keep, p, scale, causal, _values(dout))
    tol = 3e-2 if dtype == "bfloat16" else 5e-3
    for got, expect, name in zip((out, lse, dq, dk, dv), want, ("out", "lse", "dq", "dk", "dv")):
        assert tuple(got.shape) == expect.shape, name
        assert _relative_error(_values(got), expect) < (tol if name != "lse" else 1e-3), name


@pytest.fixture
def kernel_dropout(monkeypatch):
    """The public path with the kernels' dropout switched on (genesis/nn/functional/
    _attention_fused.py's _kernel_dropout)."""
    from genesis.nn.functional import _attention_fused

    monkeypatch.setattr(_attention_fused, "_kernel_dropout", True)


@requires_fused
@pytest.mark.usefixtures("kernel_dropout")
def test_public_path_draws_like_the_kernels_and_advances():
    q = _cuda(RNG.standard_normal((2, 3, 50, 64)), genesis.bfloat16).requires_grad_()
    genesis.manual_seed(5)
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.2, is_causal=True)
    assert "FusedAttention" in out.grad_fn.name()
    genesis.manual_seed(5)
    low, _, _, _ = _C._nn._fused_attention(
        q.detach(), q.detach(), q.detach(), None, 1 / 8, True, 0.2, False, True, OP
    )
    assert np.array_equal(out.detach().float().cpu().numpy(), low.float().cpu().numpy())
    again = F.scaled_dot_product_attention(q, q, q, dropout_p=0.2, is_causal=True)
    assert not np.array_equal(again.detach().float().cpu().numpy(), low.float().cpu().numpy())
    out.sum().backward()
    assert q.grad is not None and bool(genesis.isfinite(q.grad.float()).all())
    # p = 1 and genesis's kernels switched off take the composed path
    assert bool((F.scaled_dot_product_attention(q, q, q, dropout_p=1.0) == 0).all())
    backends_cuda.enable_flash_sdp(False)
    try:
        composed = F.scaled_dot_product_attention(q, q, q, dropout_p=0.2)
        assert "FusedAttention" not in composed.grad_fn.name()
    finally:
        backends_cuda.enable_flash_sdp(True)


@requires_fused
@pytest.mark.usefixtures("kernel_dropout")
def test_kept_fraction():
    # v = ones: each output item is the row's kept share of the softmax, scaled: mean 1
    q = genesis.zeros(4, 8, 256, 64, device="cuda", dtype=genesis.bfloat16)
    v = genesis.ones(4, 8, 256, 64, device="cuda", dtype=genesis.bfloat16)
    out = F.scaled_dot_product_attention(q, q, v, dropout_p=0.4)
    assert abs(out.float().mean().item() - 1.0) < 0.01


@requires_fused
def test_draws_in_a_captured_graph():
    B, H, L, S, E, p = 1, 2, 40, 40, 32, 0.5
    q = _cuda(RNG.standard_normal((B, H, L, E)), genesis.bfloat16)
    v = _cuda(RNG.standard_normal((B, H, S, E)), genesis.bfloat16)
    stream = genesis.cuda.Stream()
    stream.wait_stream(genesis.cuda.current_stream())
    with genesis.cuda.stream(stream):  # warm up off the default stream
        _C._nn._fused_attention(q, q, v, None, 0.25, False, p, False, True, OP)
    genesis.cuda.current_stream().wait_stream(stream)
    graph = genesis.cuda.CUDAGraph()
    with genesis.cuda.graph(graph):
        out, lse, rng, _ = _C._nn._fused_attention(q, q, v, None, 0.25, False, p, False, True, OP)
    outs = []
    for _ in range(2):
        graph.replay()
        genesis.cuda.synchronize()
        seed, offset = (_bits(x) for x in rng.cpu().tolist())
        keep = _C._nn._attention_dropout_mask(B * H, L, S, p, seed, offset).numpy()
        want = _reference(
            _values(q), _values(q), _values(v), keep, p, 0.25, False, np.zeros((B, H, L, E))
        )[0]
        assert _relative_error(_values(out), want) < 3e-2
        outs.append(_values(out))
    assert not np.array_equal(outs[0], outs[1])
