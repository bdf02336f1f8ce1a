"""Recurrent layers through cuDNN (Note [Recurrences through cuDNN] in csrc/cuda/cudnn_rnn.cpp):
which stacks take it, and that it gives what genesis's own steps give (outputs, final states
and every gradient) for every mode, layers, directions, bias, batch_first and initial states,
in float64 tightly and in float32/float16 within their rounding; inference without a reserve.
test_rnn.py runs every layer against torch on CUDA too (through cuDNN there)."""

import numpy as np
import pytest
from conftest import HAS_CUDA

import genesis
import genesis.nn as nn
from genesis import _C
from genesis.backends import cudnn
from genesis.nn.modules import _rnn_cudnn

HAS_CUDNN_RNN = (
    HAS_CUDA
    and cudnn.is_available()
    and _C._nn._cudnn_rnn_usable(genesis.float32, 2, 3, 4, 1, False, True, False, 0)
)
requires_cudnn_rnn = pytest.mark.skipif(not HAS_CUDNN_RNN, reason="no cuDNN recurrences here")
RNG = np.random.default_rng(17)

CASES = [
    ("LSTM", dict()),
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict(batch_first=True, bias=False)),
    ("GRU", dict(num_layers=2)),
    ("GRU", dict(bidirectional=True, bias=False)),
    ("RNN", dict()),
    ("RNN", dict(nonlinearity="relu", num_layers=2, bidirectional=True)),
]


def _np(t):
    return t.detach().float().cpu().numpy().astype(np.float64)


def _run(layer, x, hx, monkeypatch, cudnn_path):
    """(output, final states, input grad, parameter grads) with the path checked."""
    calls = []
    real = _rnn_cudnn.run

    def spy(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(_rnn_cudnn, "run", spy)
    layer.zero_grad()
    x = x.detach().requires_grad_()
    with cudnn.flags(enabled=cudnn_path):
        out, hn = layer(x, hx)
    states = list(hn) if isinstance(hn, tuple) else [hn]
    (out.float().pow(2).sum() + sum(s.float().sum() for s in states)).backward()
    assert bool(calls) == cudnn_path
    return [out, *states, x.grad] + [p.grad for p in layer.parameters()]


@requires_cudnn_rnn
@pytest.mark.parametrize("dtype, tol", [(genesis.float64, 1e-10), (genesis.float32, 1e-4)])
@pytest.mark.parametrize("name, kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_cudnn_recurrences_match_the_steps(name, kw, dtype, tol, monkeypatch):
    genesis.manual_seed(0)
    layer = getattr(nn, name)(6, 5, **kw).to("cuda", dtype)
    batch_first = kw.get("batch_first", False)
    shape = (3, 7, 6) if batch_first else (7, 3, 6)
    x = genesis.tensor(RNG.normal(size=shape), device="cuda").to(dtype)
    d = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
    h0 = genesis.tensor(RNG.normal(size=(d, 3, 5)), device="cuda").to(dtype)
    hx = (h0, h0 * 0.5) if name == "LSTM" else h0
    fast = _run(layer, x, hx, monkeypatch, True)
    slow = _run(layer, x, hx, monkeypatch, False)
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


@requires_cudnn_rnn
def test_half_precision_against_float32(monkeypatch):
    genesis.manual_seed(1)
    layer = nn.LSTM(16, 32, num_layers=2).to("cuda")
    x = genesis.tensor(RNG.normal(size=(9, 4, 16)), device="cuda").float()
    ref = _run(layer, x, None, monkeypatch, False)
    half = _run(layer.to(genesis.float16), x.half(), None, monkeypatch, True)
    for a, b in zip(half, ref):
        np.testing.assert_allclose(_np(a), _np(b), rtol=0, atol=2e-2 * (np.abs(_np(b)).max() + 1))


@requires_cudnn_rnn
def test_inference_and_eval_without_a_reserve():
    layer = nn.GRU(4, 6, num_layers=2, dropout=0.5).to("cuda")
    x = genesis.randn(5, 2, 4, device="cuda")
    layer.eval()  # eval: the dropout is off, so cuDNN takes the stack
    assert _rnn_cudnn.usable(layer, x)
    with genesis.no_grad():
        out, h = layer(x)
    with cudnn.flags(enabled=False), genesis.no_grad():
        ref, ref_h = layer(x)
    np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(h), _np(ref_h), rtol=1e-4, atol=1e-5)
    layer.train()  # inter-layer dropout in training keeps genesis's steps
    assert not _rnn_cudnn.usable(layer, x)


@pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device available")
def test_what_keeps_the_steps():
    x = genesis.randn(5, 2, 4, device="cuda")
    assert not _rnn_cudnn.usable(nn.LSTM(4, 6, proj_size=3).to("cuda"), x)  # a projection
    assert not _rnn_cudnn.usable(nn.LSTM(4, 6), x.cpu())  # the CPU
    with genesis.autocast("cuda"):
        assert not _rnn_cudnn.usable(nn.LSTM(4, 6).to("cuda"), x)


def test_cpu_builds_and_machines_answer_unusable():
    if not HAS_CUDA:
        assert not _rnn_cudnn.usable(nn.LSTM(4, 6), genesis.randn(5, 2, 4))
