"""Fused attention in float32 (Note [Fused attention in float32] in
kernels/flash_attention_float.cu): the kernels' output, log-sum-exp and gradients against a
float64 reference (head dims 1 to 256, lengths off the 32-row tiles, causal, boolean and float
masks with fully masked rows, grouped key heads, strided operands, zero sizes, dropout by the
rule of Note [Dropout in fused attention]), the public path's use of them, and the memory they
save over the composed path. CUDA only: every test skips without an sm_80 or later device."""

import math

import numpy as np
import pytest
from conftest import HAS_CUDA

import genesis
import genesis.nn.functional as F
from genesis import _C
from genesis.nn.functional import _attention_fused

RNG = np.random.default_rng(23)
OP = "scaled_dot_product_attention"
HAS_FUSED = HAS_CUDA and _C._nn._fused_attention_supported(genesis.zeros(1, device="cuda"))
pytestmark = pytest.mark.skipif(not HAS_FUSED, reason="no CUDA device of sm_80 or later")


@pytest.fixture(autouse=True)
def kernel_float32(monkeypatch):
    """Switches the public path's float32 kernels on (_attention_fused._kernel_float32)."""
    monkeypatch.setattr(_attention_fused, "_kernel_float32", True)


def _cuda(a):
    return genesis.tensor(np.ascontiguousarray(a), dtype=genesis.float32, device="cuda")


def _values(t):
    return t.cpu().numpy().astype(np.float64)


def _reference(q, k, v, bias, scale, causal, dout, keep=None, p=0.0):
    """(out, lse, dq, dk, dv) in float64; bias (B or 1, H or 1, L, S) added to the scores
    (-inf masks), keep (B*H, L, S) the dropout mask."""
    B, H, L, E = q.shape
    S = k.shape[2]
    group = H // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = q @ k.transpose(0, 1, 3, 2) * scale + bias
    if causal:
        s = np.where(np.tril(np.ones((L, S), bool)), s, -np.inf)
    top = s.max(-1, keepdims=True) if S else np.zeros((B, H, L, 1))
    top = np.where(np.isfinite(top), top, 0.0)
    total = np.exp(s - top).sum(-1)
    with np.errstate(divide="ignore"):
        lse = np.log(total) + top[..., 0]
    P = np.where(total[..., None] > 0, np.exp(s - top) / np.maximum(total[..., None], 1e-300), 0)
    M = np.ones_like(P) if keep is None else keep.reshape(B, H, L, S) / np.float32(1 - p)
    W = P * M
    out = W @ v
    dv = W.transpose(0, 1, 3, 2) @ dout
    dP = (dout @ v.transpose(0, 1, 3, 2)) * M
    dS = P * (dP - (dout * out).sum(-1, keepdims=True))
    dq = dS @ k * scale
    dk = dS.transpose(0, 1, 3, 2) @ q * scale
    if group > 1:
        dk = dk.reshape(B, -1, group, S, E).sum(2)
        dv = dv.reshape(B, -1, group, S, E).sum(2)
    return out, lse, dq, dk, dv


def _close(got, want, tol, name):
    assert got.shape == want.shape, name
    finite = np.isfinite(want)
    assert np.array_equal(np.isfinite(got), finite), name
    if finite.any():
        err = np.abs(got[finite] - want[finite]).max() / max(np.abs(want[finite]).max(), 1e-6)
        assert err < tol, (name, err)


CASES = [
    # (B, H, Hk, L, S, E, causal)
    (1, 1, 1, 1, 1, 1, False),
    (2, 3, 3, 37, 45, 7, False),
    (1, 2, 2, 64, 64, 32, True),
    (2, 2, 1, 70, 129, 64, True),
    (1, 4, 2, 33, 100, 100, False),
    (1, 2, 2, 96, 31, 128, True),
    (1, 1, 1, 40, 50, 200, False),
    (1, 2, 2, 65, 65, 256, True),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c)))
def test_kernels_against_float64(case):
    B, H, Hk, L, S, E, causal = case
    scale = 1 / math.sqrt(E)
    arrays = [RNG.standard_normal(s) for s in ((B, H, L, E), (B, Hk, S, E), (B, Hk, S, E))]
    q, k, v = (_cuda(a) for a in arrays)
    dout_np = RNG.standard_normal((B, H, L, E))
    out, lse, rng, path = _C._nn._fused_attention(q, k, v, None, scale, causal, 0.0, True, True, OP)
    assert path == 1 and rng is None and out.dtype == genesis.float32
    dq, dk, dv = _C._nn._fused_attention_backward(
        _cuda(dout_np), q, k, v, out, lse, None, scale, causal, 0.0, None, True, OP
    )
    qs, ks, vs = (a.astype(np.float32).astype(np.float64) for a in arrays)
    want = _reference(qs, ks, vs, 0.0, scale, causal, dout_np.astype(np.float32), None)
    for got, expect, name in zip((out, lse, dq, dk, dv), want, ("out", "lse", "dq", "dk", "dv")):
        _close(_values(got), expect, 1e-4, name)


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_masks_broadcast_and_fully_masked_rows(kind):
    B, H, L, S, E = 2, 3, 40, 36, 24
    scale = 0.3
    arrays = [RNG.standard_normal(s) for s in ((B, H, L, E), (B, H, S, E), (B, H, S, E))]
    keep = RNG.random((B, 1, L, S)) < 0.6
    keep[0, 0, 5] = False  # a row with every key masked: output 0, lse -inf, gradients 0
    if kind == "bool":
        mask, bias = _cuda(keep).to(genesis.bool), np.where(keep, 0.0, -np.inf)
    else:
        bias = np.where(keep, RNG.standard_normal(keep.shape), -np.inf).astype(np.float32)
        mask = _cuda(bias)
    q, k, v = (_cuda(a) for a in arrays)
    dout_np = RNG.standard_normal((B, H, L, E)).astype(np.float32)
    out, lse, _, _ = _C._nn._fused_attention(q, k, v, mask, scale, False, 0.0, True, True, OP)
    grads = _C._nn._fused_attention_backward(
        _cuda(dout_np), q, k, v, out, lse, mask, scale, False, 0.0, None, True, OP
    )
    qs, ks, vs = (a.astype(np.float32).astype(np.float64) for a in arrays)
    want = _reference(qs, ks, vs, bias.astype(np.float64), scale, False, dout_np)
    for got, expect, name in zip((out, lse, *grads), want, ("out", "lse", "dq", "dk", "dv")):
        _close(_values(got), expect, 1e-4, name)
    assert _values(out)[0, :, 5].max() == 0 and np.isneginf(_values(lse)[0, :, 5]).all()


def test_public_path_fused_with_gradients_and_strided_operands():
    B, L, H, E = 2, 50, 4, 16
    x = genesis.tensor(RNG.standard_normal((B, L, 3 * H * E)), dtype=genesis.float32)
    x = x.cuda().requires_grad_()
    # heads made by view + transpose: operands strided (B, L, H, E) in memory
    q, k, v = (t.view(B, L, H, E).transpose(1, 2) for t in x.chunk(3, dim=-1))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    names, node = [], out.grad_fn
    while node is not None and len(names) < 4:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    assert any("FusedAttention" in n for n in names), names
    grad = RNG.standard_normal(out.shape).astype(np.float32)
    out.backward(_cuda(grad))
    xs = x.detach().cpu().numpy().astype(np.float64)
    qs, ks, vs = (a.reshape(B, L, H, E).transpose(0, 2, 1, 3) for a in np.split(xs, 3, axis=-1))
    want = _reference(qs, ks, vs, 0.0, 1 / math.sqrt(E), True, grad.astype(np.float64))
    _close(_values(out.detach()), want[0], 1e-4, "out")
    dx = np.concatenate([g.transpose(0, 2, 1, 3).reshape(B, L, H * E) for g in want[2:]], -1)
    _close(_values(x.grad), dx, 1e-4, "dx")


def test_zero_sizes():
    for shape_q, shape_k in (((0, 2, 5, 8), (0, 2, 5, 8)), ((1, 2, 0, 8), (1, 2, 5, 8))):
        q = genesis.zeros(*shape_q, device="cuda", requires_grad=True)
        k = genesis.zeros(*shape_k, device="cuda", requires_grad=True)
        out = F.scaled_dot_product_attention(q, k, k)
        assert tuple(out.shape) == shape_q
        out.sum().backward()
        assert tuple(k.grad.shape) == shape_k


@pytest.mark.parametrize("causal", [False, True])
def test_dropout_against_the_rule(causal):
    B, H, Hk, L, S, E = 1, 4, 2, 45, 70, 40
    p, scale = 0.3, 1 / math.sqrt(E)
    arrays = [RNG.standard_normal(s) for s in ((B, H, L, E), (B, Hk, S, E), (B, Hk, S, E))]
    q, k, v = (_cuda(a) for a in arrays)
    dout_np = RNG.standard_normal((B, H, L, E)).astype(np.float32)
    out, lse, rng, path = _C._nn._fused_attention(q, k, v, None, scale, causal, p, True, True, OP)
    assert path == 1 and rng.shape == (2,)
    seed, offset = (x & (2**64 - 1) for x in rng.cpu().tolist())
    keep = _C._nn._attention_dropout_mask(B * H, L, S, p, seed, offset).numpy()
    grads = _C._nn._fused_attention_backward(
        _cuda(dout_np), q, k, v, out, lse, None, scale, causal, p, rng, True, OP
    )
    qs, ks, vs = (a.astype(np.float32).astype(np.float64) for a in arrays)
    want = _reference(qs, ks, vs, 0.0, scale, causal, dout_np, keep, p)
    for got, expect, name in zip((out, lse, *grads), want, ("out", "lse", "dq", "dk", "dv")):
        _close(_values(got), expect, 1e-4, name)


def test_memory_stays_linear_in_the_sequence():
    """At L = S = 8192 the composed path's scores alone are 256 MiB (float32); the fused path
    needs the operands, output and lse only."""
    q = genesis.randn(1, 1, 8192, 64, device="cuda")
    genesis.cuda.synchronize()
    genesis.cuda.reset_peak_memory_stats()
    before = genesis.cuda.memory_allocated()
    out = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    genesis.cuda.synchronize()
    assert genesis.cuda.max_memory_allocated() - before < 16 * 2**20
    assert bool(out.isfinite().all())


def test_switched_off_keeps_the_composed_path(monkeypatch):
    monkeypatch.setattr(_attention_fused, "_kernel_float32", False)
    q = genesis.randn(1, 2, 9, 16, device="cuda", requires_grad=True)
    out = F.scaled_dot_product_attention(q, q, q)
    assert "FusedAttention" not in (out.grad_fn.name() if out.grad_fn else "")
