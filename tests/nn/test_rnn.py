"""RNN, LSTM, GRU and their cells against torch on the same parameters: outputs, final states
and every gradient in float64, for layers, directions, projections, batch_first, no bias,
initial states, unbatched input and packed sequences of unsorted lengths; nn.utils.rnn's
packing and padding; reprs, state_dict keys, default initialization and bad input."""

import numpy as np
import pytest

import genesis
import genesis.nn as nn

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(9)


def _np(t):
    return t.detach().cpu().numpy()


def _pair(name, device, **kw):
    t = getattr(torch.nn, name)(3, 4, dtype=torch.float64, **kw)
    g = getattr(nn, name)(3, 4, dtype=genesis.float64, **kw)
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    g.load_state_dict(t.state_dict())
    return g.to(device), t


def _close(a, b):
    np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)


OPTIONS = {
    "RNN": [
        dict(),
        dict(num_layers=2, bidirectional=True),
        dict(nonlinearity="relu"),
        dict(batch_first=True, bias=False),
    ],
    "LSTM": [
        dict(),
        dict(num_layers=2, bidirectional=True),
        dict(num_layers=2, proj_size=2),
        dict(batch_first=True, bias=False, bidirectional=True, proj_size=3),
    ],
    "GRU": [dict(), dict(num_layers=3, bidirectional=True), dict(batch_first=True, bias=False)],
}
CASES = [(name, kw) for name, options in OPTIONS.items() for kw in options]


def _states(name, kw, batch):
    d = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
    h0 = RNG.normal(size=(d, batch, kw.get("proj_size", 0) or 4))
    c0 = RNG.normal(size=(d, batch, 4))
    return h0, c0


def _hx(lib, name, h0, c0, device=None):
    make = (lambda a: genesis.tensor(a, device=device)) if lib is genesis else torch.tensor
    return (make(h0), make(c0)) if name == "LSTM" else make(h0)


@pytest.mark.parametrize("name, kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_recurrent_layers_match_torch(name, kw, device):
    g, t = _pair(name, device, **kw)
    x = RNG.normal(size=(5, 2, 3))
    h0, c0 = _states(name, kw, 2 if not kw.get("batch_first") else 5)
    gx = genesis.tensor(x, device=device, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    out_g, hn_g = g(gx, _hx(genesis, name, h0, c0, device))
    out_t, hn_t = t(tx, _hx(torch, name, h0, c0))
    _close(out_g, out_t)
    last_g = hn_g[0] if name == "LSTM" else hn_g
    last_t = hn_t[0] if name == "LSTM" else hn_t
    _close(last_g, last_t)
    if name == "LSTM":
        _close(hn_g[1], hn_t[1])
    (out_g.sum() + last_g.pow(2).sum()).backward()
    (out_t.sum() + last_t.pow(2).sum()).backward()
    _close(gx.grad, tx.grad)
    for (key, p), (_, q) in zip(g.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(_np(p.grad), _np(q.grad), rtol=1e-9, atol=1e-12, err_msg=key)


@pytest.mark.parametrize("name, kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_packed_sequences_match_torch(name, kw, device):
    g, t = _pair(name, device, **kw)
    lengths = [5, 2, 4]
    x = RNG.normal(size=(3, 5, 3) if kw.get("batch_first") else (5, 3, 3))
    bf = kw.get("batch_first", False)
    h0, c0 = _states(name, kw, 3)
    gx = genesis.tensor(x, device=device, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    gp = nn.utils.rnn.pack_padded_sequence(gx, lengths, batch_first=bf, enforce_sorted=False)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, batch_first=bf, enforce_sorted=False)
    out_g, hn_g = g(gp, _hx(genesis, name, h0, c0, device))
    out_t, hn_t = t(tp, _hx(torch, name, h0, c0))
    assert isinstance(out_g, nn.utils.rnn.PackedSequence)
    _close(out_g.data, out_t.data)
    assert out_g.batch_sizes.tolist() == out_t.batch_sizes.tolist()
    last_g = hn_g[0] if name == "LSTM" else hn_g
    last_t = hn_t[0] if name == "LSTM" else hn_t
    _close(last_g, last_t)
    padded_g, lens_g = nn.utils.rnn.pad_packed_sequence(out_g, batch_first=bf)
    padded_t, lens_t = torch.nn.utils.rnn.pad_packed_sequence(out_t, batch_first=bf)
    _close(padded_g, padded_t)
    assert lens_g.tolist() == lens_t.tolist()
    (padded_g.sum() + last_g.sum()).backward()
    (padded_t.sum() + last_t.sum()).backward()
    _close(gx.grad, tx.grad)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_unbatched_input_matches_torch(name, device):
    g, t = _pair(name, device, num_layers=2)
    x = RNG.normal(size=(4, 3))
    out_g, _ = g(genesis.tensor(x, device=device))
    out_t, _ = t(torch.tensor(x))
    assert out_g.shape == (4, 4)
    _close(out_g, out_t)


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(name, bias, device):
    t = getattr(torch.nn, name)(3, 4, bias=bias, dtype=torch.float64)
    g = getattr(nn, name)(3, 4, bias=bias, dtype=genesis.float64)
    assert repr(g) == repr(t)
    g.load_state_dict(t.state_dict())
    g.to(device)
    x, h = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 4))
    gx = genesis.tensor(x, device=device, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    if name == "LSTMCell":
        hg, cg = g(gx, (genesis.tensor(h, device=device), genesis.tensor(h, device=device)))
        ht, ct = t(tx, (torch.tensor(h), torch.tensor(h)))
        _close(cg, ct)
    else:
        hg, ht = g(gx, genesis.tensor(h, device=device)), t(tx, torch.tensor(h))
    _close(hg, ht)
    hg.sum().backward()
    ht.sum().backward()
    _close(gx.grad, tx.grad)
    unbatched = g(genesis.tensor(x[0], device=device))
    assert (unbatched[0] if name == "LSTMCell" else unbatched).shape == (4,)


def test_rnn_utils_match_torch(device):
    seqs = [RNG.normal(size=(n, 2)) for n in (3, 5, 1, 4)]
    gs = [genesis.tensor(s, device=device) for s in seqs]
    ts = [torch.tensor(s) for s in seqs]
    R, TR = nn.utils.rnn, torch.nn.utils.rnn
    for bf in (False, True):
        for side in ("right", "left"):
            _close(R.pad_sequence(gs, bf, -1.0, side), TR.pad_sequence(ts, bf, -1.0, side))
    gp, tp = R.pack_sequence(gs, enforce_sorted=False), TR.pack_sequence(ts, enforce_sorted=False)
    _close(gp.data, tp.data)
    assert gp.batch_sizes.tolist() == tp.batch_sizes.tolist()
    assert gp.sorted_indices.tolist() == tp.sorted_indices.tolist()
    assert gp.unsorted_indices.tolist() == tp.unsorted_indices.tolist()
    padded, lengths = R.pad_packed_sequence(gp, batch_first=True, total_length=6)
    expected, expected_lengths = TR.pad_packed_sequence(tp, batch_first=True, total_length=6)
    _close(padded, expected)
    assert lengths.tolist() == expected_lengths.tolist()
    for a, b in zip(R.unpack_sequence(gp), TR.unpack_sequence(tp)):
        _close(a, b)
    with pytest.raises(RuntimeError, match=r"must be sorted in decreasing order"):
        R.pack_sequence(gs)
    with pytest.raises(ValueError, match=r"Expected total_length to be at least"):
        R.pad_packed_sequence(gp, total_length=2)


def test_default_init_and_errors():
    lstm = nn.LSTM(3, 16)
    bound = 1 / 4
    assert all(float(p.abs().max()) <= bound for p in lstm.parameters())
    with pytest.raises(
        RuntimeError,
        match=r"\[LSTM\] input.size\(-1\) must be equal to "
        r"input_size. Expected 3, got 5",
    ):
        lstm(genesis.zeros(2, 2, 5))
    with pytest.raises(RuntimeError, match=r"\[GRU\] Expected hidden size \(1, 2, 4\)"):
        nn.GRU(3, 4)(genesis.zeros(5, 2, 3), genesis.zeros(2, 2, 4))
    with pytest.raises(ValueError, match=r"\[RNN\] Unknown nonlinearity"):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.raises(ValueError, match=r"proj_size argument is only supported for LSTM"):
        nn.RNNBase("GRU", 3, 4, proj_size=2)
    with pytest.warns(UserWarning, match=r"non-zero dropout expects num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.5)
    train = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = genesis.randn(6, 2, 3)
    a, _ = train.eval()(x)
    b, _ = train(x)
    _close(a, b)  # eval: no dropout
    c, _ = train.train()(x)
    assert float((c - a).abs().max()) > 0  # train: dropout between the layers
