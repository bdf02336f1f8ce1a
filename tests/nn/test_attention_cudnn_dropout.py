"""Dropout inside cuDNN's fused attention (Note [Dropout through cuDNN] in
csrc/cuda/cudnn_attention.cpp). cuDNN draws its masks by its own rule, so the tests read the
mask back from the output: with value = the identity (S = E), out = the dropped, scaled weights
themselves, from which the kept share, the scaling and, with the same mask, every gradient
follow. Also: the (seed, offset) the forward reports, reproducible draws after manual_seed, the
generator's advance, the public path under the switch, and draws inside a captured CUDA graph.
CUDA with cuDNN's attention only; a machine whose cuDNN refuses dropout graphs skips, saying so."""

import math

import numpy as np
import pytest
from conftest import HAS_CUDA

import genesis
import genesis.nn.functional as F
from genesis import _C
from genesis.nn.functional import _attention_fused

RNG = np.random.default_rng(31)
OP = "scaled_dot_product_attention"
HAS_CUDNN_ATTENTION = (
    HAS_CUDA
    and _C._nn._fused_attention_supported(genesis.zeros(1, device="cuda"))
    and _C._nn._cudnn_attention_built()
    and genesis.backends.cudnn.is_available()
)
pytestmark = pytest.mark.skipif(not HAS_CUDNN_ATTENTION, reason="no cuDNN attention")


@pytest.fixture(autouse=True)
def cudnn_dropout(monkeypatch):
    """The public path may take cuDNN's dropout (_attention_fused._cudnn_dropout)."""
    monkeypatch.setattr(_attention_fused, "_cudnn_dropout", True)


def _cuda(a, dtype=genesis.bfloat16):
    return genesis.tensor(np.ascontiguousarray(a), device="cuda").to(dtype)


def _values(t):
    return t.float().cpu().numpy().astype(np.float64)


def _cudnn_forward(q, k, v, p, causal=False, scale=None):
    """(out, lse, rng) through cuDNN alone (genesis's kernels switched off), or a skip when this
    machine's cuDNN refuses a dropout graph."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    out, lse, rng, path = _C._nn._fused_attention(q, k, v, None, scale, causal, p, True, False, OP)
    if path == 0:
        pytest.skip("this machine's cuDNN builds no attention graph with dropout")
    assert path == 2 and rng.dtype == genesis.int64 and rng.shape == (2,)
    return out, lse, rng


@pytest.mark.parametrize("causal", [False, True])
def test_mask_read_back_and_gradients(causal):
    B, H, L, S, p = 2, 4, 96, 64, 0.25
    E = S  # value = identity: out[i, j] = weight (i, j) after dropout
    scale = 1 / math.sqrt(E)
    q_np, k_np = RNG.standard_normal((B, H, L, E)), RNG.standard_normal((B, H, S, E))
    q, k = _cuda(q_np), _cuda(k_np)
    v = _cuda(np.broadcast_to(np.eye(S, E), (B, H, S, E)))
    out, lse, rng = _cudnn_forward(q, k, v, p, causal)
    W = _values(out)
    qs, ks = _values(q), _values(k)
    s = qs @ ks.transpose(0, 1, 3, 2) * scale
    allowed = np.tril(np.ones((L, S), bool)) if causal else np.ones((L, S), bool)
    s = np.where(allowed, s, -np.inf)
    P = np.exp(s - s.max(-1, keepdims=True))
    P /= P.sum(-1, keepdims=True)
    kept = W != 0
    assert not kept[..., ~allowed].any()  # nothing leaks across the causal diagonal
    share = kept[..., allowed].mean()
    assert abs(share - (1 - p)) < 0.02, share
    # kept weights are P / (1 - p), rounded to bfloat16
    np.testing.assert_allclose(W[kept], (P / (1 - p))[kept], rtol=2e-2, atol=1e-3)
    # the lse is the undropped softmax's
    want_lse = np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1)) + s.max(-1)
    np.testing.assert_allclose(_values(lse), want_lse, rtol=1e-3, atol=1e-3)
    # the backward drops the same weights
    dout_np = RNG.standard_normal((B, H, L, E))
    dout = _cuda(dout_np)
    dq, dk, dv = _C._nn._fused_attention_backward(
        dout, q, k, v, out, lse, None, scale, causal, p, rng, True, OP
    )
    g = _values(dout)
    M = kept / (1 - p)
    vs = _values(v)
    dP = (g @ vs.transpose(0, 1, 3, 2)) * M
    dS = P * (dP - (g * W).sum(-1, keepdims=True))
    want = {
        "dq": dS @ ks * scale,
        "dk": dS.transpose(0, 1, 3, 2) @ qs * scale,
        "dv": (P * M).transpose(0, 1, 3, 2) @ g,
    }
    for name, got in zip(("dq", "dk", "dv"), (dq, dk, dv)):
        exp = want[name]
        err = np.abs(_values(got) - exp).max() / np.abs(exp).max()
        assert err < 5e-2, (name, err)


def test_reports_its_draw_reproduces_and_advances():
    q = _cuda(RNG.standard_normal((1, 2, 64, 64)))
    genesis.manual_seed(77)
    a, _, rng = _cudnn_forward(q, q, q, 0.3)
    seed, offset = rng.cpu().tolist()
    assert seed == 77 and offset == 0
    genesis.manual_seed(77)
    b, _, _ = _cudnn_forward(q, q, q, 0.3)
    c, _, rng2 = _cudnn_forward(q, q, q, 0.3)
    assert np.array_equal(_values(a), _values(b))
    assert not np.array_equal(_values(a), _values(c))
    assert rng2.cpu().tolist()[1] > 0


def test_public_path_takes_cudnn_and_keeps_the_rate():
    # q = 0: uniform weights; v = ones: each output item is its row's kept share, scaled
    q = genesis.zeros(4, 8, 256, 64, device="cuda", dtype=genesis.bfloat16, requires_grad=True)
    v = genesis.ones(4, 8, 256, 64, device="cuda", dtype=genesis.bfloat16)
    _cudnn_forward(q.detach(), q.detach(), v, 0.4)  # skips where cuDNN refuses
    genesis.manual_seed(3)
    out = F.scaled_dot_product_attention(q, q, v, dropout_p=0.4)
    assert "FusedAttention" in out.grad_fn.name()
    genesis.manual_seed(3)
    low, _, _ = _cudnn_forward(q.detach(), q.detach(), v, 0.4, scale=1 / 8)
    assert np.array_equal(_values(out.detach()), _values(low))  # the public path ran cuDNN
    assert abs(out.float().mean().item() - 1.0) < 0.01
    out.sum().backward()
    assert bool(genesis.isfinite(q.grad.float()).all())


def test_switched_off_takes_genesis_kernels(monkeypatch):
    monkeypatch.setattr(_attention_fused, "_cudnn_dropout", False)
    q = _cuda(RNG.standard_normal((1, 2, 64, 64)))
    genesis.manual_seed(9)
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.3)
    genesis.manual_seed(9)
    own, _, _, path = _C._nn._fused_attention(q, q, q, None, 1 / 8, False, 0.3, False, True, OP)
    assert path == 1 and np.array_equal(_values(out), _values(own))


def test_draws_in_a_captured_graph():
    q = _cuda(RNG.standard_normal((1, 2, 64, 64)))
    _cudnn_forward(q, q, q, 0.5)  # builds the graph (and skips where cuDNN refuses)
    stream = genesis.cuda.Stream()
    stream.wait_stream(genesis.cuda.current_stream())
    with genesis.cuda.stream(stream):  # warm up off the default stream
        _C._nn._fused_attention(q, q, q, None, 0.125, False, 0.5, True, False, OP)
    genesis.cuda.current_stream().wait_stream(stream)
    graph = genesis.cuda.CUDAGraph()
    with genesis.cuda.graph(graph):
        out, _, rng, _ = _C._nn._fused_attention(q, q, q, None, 0.125, False, 0.5, True, False, OP)
    outs, draws = [], []
    for _ in range(2):
        graph.replay()
        genesis.cuda.synchronize()
        outs.append(_values(out))
        draws.append(tuple(rng.cpu().tolist()))
    assert draws[0] != draws[1] and not np.array_equal(outs[0], outs[1])
    # a replay draws what an eager call from the same generator state draws
    state = genesis.get_rng_state()
    graph.replay()
    genesis.cuda.synchronize()
    replayed = _values(out)
    genesis.set_rng_state(state)
    eager, _, _ = _cudnn_forward(q, q, q, 0.5, scale=0.125)
    assert np.array_equal(replayed, _values(eager))
