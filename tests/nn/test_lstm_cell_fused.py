"""The fused LSTM cell (Note [Fused LSTM cell] in csrc/ops/lstm_cell.cpp) against the same step
written as ops: outputs and every gradient in each floating dtype, on CPU and CUDA; gradients
through h alone and c alone; float64 gradcheck and gradgradcheck (the create_graph backward);
the ops path for mixed dtypes; bad input. The layers' tests (test_rnn.py) compare the whole
recurrence with torch."""

import numpy as np
import pytest

import genesis
from genesis._C import _nn
from genesis.autograd import gradcheck, gradgradcheck
from genesis.nn.modules import rnn

RNG = np.random.default_rng(21)
TOL = {
    genesis.float64: 1e-12,
    genesis.float32: 2e-6,
    genesis.bfloat16: 2e-2,
    genesis.float16: 2e-3,
}


def _inputs(device, dtype, batch=5, hidden=7):
    def make(*shape):
        a = RNG.normal(size=shape) * 2
        return genesis.tensor(a, device=device).to(dtype).requires_grad_()

    return make(batch, 4 * hidden), make(batch, 4 * hidden), make(batch, hidden)


def _grads(step, inputs, dh, dc):
    h, c = step(*inputs)
    for t in inputs:
        t.grad = None
    (h * dh).sum().add((c * dc).sum()).backward()
    return [h, c] + [t.grad for t in inputs]


@pytest.mark.parametrize("dtype", list(TOL), ids=str)
def test_fused_cell_matches_the_ops(device, dtype):
    inputs = _inputs(device, dtype)
    dh = genesis.tensor(RNG.normal(size=(5, 7)), device=device).to(dtype)
    dc = genesis.tensor(RNG.normal(size=(5, 7)), device=device).to(dtype)
    fused = _grads(genesis._C._nn._lstm_cell, inputs, dh, dc)
    ops = _grads(rnn._lstm_ops, inputs, dh, dc)
    for a, b in zip(fused, ops):
        assert a.dtype == dtype
        np.testing.assert_allclose(
            a.double().cpu().numpy(), b.double().cpu().numpy(), rtol=TOL[dtype], atol=TOL[dtype]
        )


@pytest.mark.parametrize("used", ["h", "c"])
def test_gradient_through_one_output(device, used):
    # the other output's gradient never comes: the fused backward takes it as zero
    inputs = _inputs(device, genesis.float64)
    grads = []
    for step in (genesis._C._nn._lstm_cell, rnn._lstm_ops):
        for t in inputs:
            t.grad = None
        h, c = step(*inputs)
        (h if used == "h" else c).sum().backward()
        grads.append([t.grad.cpu().numpy() for t in inputs])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-14)


def test_gradcheck_and_gradgradcheck(device):
    inputs = _inputs(device, genesis.float64, batch=2, hidden=3)
    assert gradcheck(genesis._C._nn._lstm_cell, inputs)
    assert gradgradcheck(genesis._C._nn._lstm_cell, inputs)


def test_mixed_dtypes_take_the_ops(device):
    gi, gh, _ = _inputs(device, genesis.bfloat16)
    c = genesis.tensor(RNG.normal(size=(5, 7)), device=device, dtype=genesis.float32)
    h, c_new = rnn._lstm_cell(gi, gh, c)
    ref_h, ref_c = rnn._lstm_ops(gi, gh, c)
    assert h.dtype == c_new.dtype == genesis.float32
    assert genesis.equal(h, ref_h) and genesis.equal(c_new, ref_c)


def test_zero_batch(device):
    gi, gh, c = (genesis.zeros(0, n, device=device) for n in (8, 8, 2))
    h, c_new = genesis._C._nn._lstm_cell(gi, gh, c)
    assert h.shape == c_new.shape == (0, 2)


def test_bad_input(device):
    cell = genesis._C._nn._lstm_cell
    x = genesis.randn(2, 8, device=device)
    with pytest.raises(RuntimeError, match=r"^\[lstm_cell\] expected gh of shape \(2, 8\)"):
        cell(x, genesis.randn(2, 7, device=device), genesis.randn(2, 2, device=device))
    with pytest.raises(TypeError, match=r"^\[lstm_cell\] expected gh of dtype float32"):
        cell(x, x.double(), genesis.randn(2, 2, device=device))
    with pytest.raises(TypeError, match=r"^\[lstm_cell\] expected a floating point"):
        cell(x.long(), x.long(), genesis.zeros(2, 2, device=device, dtype=genesis.int64))
    with pytest.raises(RuntimeError, match=r"^\[lstm_cell\] expected a \(batch, hidden\)"):
        cell(x, x, genesis.randn(2, 2, 1, device=device))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_recurrence_node_matches_the_steps(device, reverse, bias):
    # Note [LSTM recurrence as one node]: the layer's walk as one node (W_hh's gradient one
    # product over all steps) against the same walk as recorded steps, in both directions
    def make(*shape):
        return genesis.tensor(RNG.normal(size=shape), device=device).requires_grad_()

    steps, batch, hidden = 6, 3, 5
    args = [make(steps, batch, 4 * hidden), make(batch, hidden), make(batch, hidden)]
    args += [make(4 * hidden, hidden), make(4 * hidden) if bias else None]
    seeds = [make(steps, batch, hidden), make(batch, hidden), make(batch, hidden)]
    found = []
    for run in (rnn._LstmRecurrence.apply, rnn._lstm_steps):
        outs = run(*args, reverse)
        leaves = [a for a in args if a is not None]
        grads = genesis.autograd.grad(outs, leaves, [s.detach() for s in seeds])
        found.append([o.detach().cpu().numpy() for o in outs] + [g.cpu().numpy() for g in grads])
    for a, b in zip(*found):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_recurrence_node_second_derivatives(device):
    lstm = genesis.nn.LSTM(2, 3, bidirectional=True, dtype=genesis.float64).to(device)
    x = genesis.tensor(RNG.normal(size=(4, 2, 2)), device=device).requires_grad_()
    # each direction's walk is one node (its create_graph backward the recorded steps); on CUDA
    # cuDNN would take the whole layer, so it is switched off to reach the node
    with genesis.backends.cudnn.flags(enabled=False):
        node = lstm(x)[0].grad_fn
        assert [n.name() for n, _ in node.next_functions] == ["_LstmRecurrenceBackward"] * 2
        assert gradcheck(lambda x: lstm(x)[0], (x,))
        assert gradgradcheck(lambda x: lstm(x)[0], (x,))


def test_sequence_bindings_check_their_input(device):
    # Note [LSTM recurrence in C++]: the walk's own checks (the layer checks the user's input)
    gi, s, w = (genesis.zeros(*shape, device=device) for shape in ((3, 2, 8), (2, 2), (8, 2)))
    with pytest.raises(RuntimeError, match=r"^\[lstm\] expected w_hh of shape \(8, 2\), got"):
        _nn._lstm_sequence(gi, s, s, genesis.zeros(8, 3, device=device), None, False)
    with pytest.raises(TypeError, match=r"^\[lstm\] expected h0 of dtype float32, got float64"):
        _nn._lstm_sequence(gi, s.double(), s, w, None, False)
    with pytest.raises(RuntimeError, match=r"^\[lstm\] expected gi \(T, B, 4H\) and c0"):
        _nn._lstm_sequence(gi[0], s, s, w, None, False)
    out, cells, gates = _nn._lstm_sequence(gi, s, s, w, None, True)
    assert out.shape == cells.shape == (3, 2, 2) and gates.shape == (3, 2, 8)
    with pytest.raises(RuntimeError, match=r"^\[lstm\] expected the gradient of c_n of shape"):
        _nn._lstm_sequence_backward(out, s, s[:1], s, w, cells, gates, True)
    empty = _nn._lstm_sequence(gi[:0], s, s, w, None, False)
    assert empty[0].shape == (0, 2, 2)
    d_gates, d_h0, d_c0 = _nn._lstm_sequence_backward(empty[0], s, s, s, w, *empty[1:], False)
    assert d_gates.shape == (0, 2, 8) and d_h0.shape == d_c0.shape == (2, 2)
