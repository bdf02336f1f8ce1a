"""Identity, Linear, Bilinear, Flatten and Unflatten (modules and functional forms) against
torch.nn on the same parameters: values and every gradient, leading dims, non-contiguous input,
zero-size batch, dtypes, default initialization, repr and the input checks."""

import math

import numpy as np
import pytest
from test_autograd import check_grads

import genesis
import genesis.nn as nn

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def _np(t):
    return t.detach().cpu().numpy()


def _pair(g_layer, t_layer, device):
    g_layer.load_state_dict(t_layer.state_dict())
    return g_layer.to(device)


@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4), (4,), (0, 4), (2, 0, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(shape, bias, device):
    t = torch.nn.Linear(4, 3, bias=bias)
    g = _pair(nn.Linear(4, 3, bias=bias), t, device)
    x = RNG.normal(size=shape).astype(np.float32)
    gx = genesis.tensor(x, device=device, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    out_g, out_t = g(gx), t(tx)
    assert tuple(out_g.shape) == tuple(out_t.shape)
    np.testing.assert_allclose(_np(out_g), _np(out_t), rtol=1e-5, atol=1e-6)
    out_g.sum().backward()
    out_t.sum().backward()
    np.testing.assert_allclose(_np(gx.grad), _np(tx.grad), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(g.weight.grad), _np(t.weight.grad), rtol=1e-5, atol=1e-5)
    if bias:
        np.testing.assert_allclose(_np(g.bias.grad), _np(t.bias.grad), rtol=1e-5, atol=1e-5)


def test_linear_functional_gradients_in_float64(device):
    x, w, b = RNG.normal(size=(3, 2, 5)), RNG.normal(size=(4, 5)), RNG.normal(size=(4,))
    check_grads(lambda m, x, w, b: m.nn.functional.linear(x, w, b), [x, w, b], device)
    check_grads(lambda m, x, w: m.nn.functional.linear(x, w), [x, w], device)
    check_grads(lambda m, x, w: m.nn.functional.linear(x.transpose(0, 1), w), [x, w], device)


def test_linear_non_contiguous_input_and_dtypes(device):
    t = torch.nn.Linear(4, 3)
    for dtype, tdtype, tol in [
        (genesis.float64, torch.float64, 1e-12),
        (genesis.float16, torch.float16, 2e-3),
        (genesis.bfloat16, torch.bfloat16, 2e-2),
    ]:
        g = _pair(nn.Linear(4, 3), t, device).to(dtype)
        tt = torch.nn.Linear(4, 3).to(tdtype)
        tt.load_state_dict(t.state_dict())
        x = RNG.normal(size=(4, 6)).astype(np.float32)
        gx = genesis.tensor(x, device=device).to(dtype).t()  # (6, 4), not contiguous
        tx = torch.tensor(x).to(tdtype).t()
        assert not gx.is_contiguous()
        out = g(gx)
        assert out.dtype == dtype
        np.testing.assert_allclose(_np(out.float()), _np(tt(tx).float()), rtol=tol, atol=tol)


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
def test_linear_default_init_matches_torchs_bounds():
    g = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = _np(g.weight), _np(g.bias)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert np.abs(b).max() <= bound and abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound
    assert g.weight.shape == (300, 400) and g.weight.requires_grad
    assert nn.Linear(0, 3).bias is not None  # fan_in 0: torch's bound 0, no error
    made = nn.Linear(2, 3, dtype=genesis.float64)
    assert made.weight.dtype == genesis.float64 and made.bias.dtype == genesis.float64


def test_linear_reprs_and_state_dict_keys_match_torch():
    for args in [(3, 4), (3, 4, False)]:
        assert repr(nn.Linear(*args)) == repr(torch.nn.Linear(*args))
        assert list(nn.Linear(*args).state_dict()) == list(torch.nn.Linear(*args).state_dict())
    assert repr(nn.Bilinear(2, 3, 4)) == repr(torch.nn.Bilinear(2, 3, 4))
    assert repr(nn.Identity(5, x=1)) == repr(torch.nn.Identity(5, x=1))
    assert repr(nn.Flatten(0, 2)) == repr(torch.nn.Flatten(0, 2))
    assert repr(nn.Unflatten(1, (2, 3))) == repr(torch.nn.Unflatten(1, (2, 3)))


def test_linear_rejects_wrong_features():
    g = nn.Linear(4, 2)
    with pytest.raises(RuntimeError, match=r"\[Linear\] expected input with 4 features .* got 5"):
        g(genesis.zeros(3, 5))
    with pytest.raises(RuntimeError, match=r"\[Linear\] .* got a 0-d tensor"):
        g(genesis.tensor(1.0))
    with pytest.raises(TypeError, match=r"\[Linear\] input must be a genesis.Tensor"):
        g([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(RuntimeError, match=r"\[linear\] weight must be 2-D"):
        nn.functional.linear(genesis.zeros(2, 2), genesis.zeros(2))
    with pytest.raises(
        RuntimeError,
        match=r"\[Linear\] input is genesis.float64 on cpu but the "
        r"weight is genesis.float32 on cpu",
    ):
        g(genesis.zeros(3, 4, dtype=genesis.float64))


@pytest.mark.parametrize("lead", [(5,), (2, 3), (0,)])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_matches_torch(lead, bias, device):
    t = torch.nn.Bilinear(3, 4, 2, bias=bias)
    g = _pair(nn.Bilinear(3, 4, 2, bias=bias), t, device)
    x1 = RNG.normal(size=(*lead, 3)).astype(np.float32)
    x2 = RNG.normal(size=(*lead, 4)).astype(np.float32)
    gx1, gx2 = (genesis.tensor(a, device=device, requires_grad=True) for a in (x1, x2))
    tx1, tx2 = (torch.tensor(a, requires_grad=True) for a in (x1, x2))
    out_g, out_t = g(gx1, gx2), t(tx1, tx2)
    np.testing.assert_allclose(_np(out_g), _np(out_t), rtol=1e-5, atol=1e-5)
    out_g.sum().backward()
    out_t.sum().backward()
    for a, b in [(gx1.grad, tx1.grad), (gx2.grad, tx2.grad), (g.weight.grad, t.weight.grad)]:
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-5, atol=1e-5)


def test_bilinear_functional_gradients_in_float64(device):
    a, b = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 2))
    w, bias = RNG.normal(size=(5, 3, 2)), RNG.normal(size=(5,))
    check_grads(lambda m, a, b, w, c: m.nn.functional.bilinear(a, b, w, c), [a, b, w, bias], device)


def test_bilinear_rejects_mismatched_inputs():
    g = nn.Bilinear(3, 4, 2)
    with pytest.raises(RuntimeError, match=r"\[Bilinear\] expected input2 with 4 features"):
        g(genesis.zeros(2, 3), genesis.zeros(2, 5))
    with pytest.raises(RuntimeError, match=r"\[bilinear\] input1 \(2, 3\) and input2 \(3, 4\)"):
        nn.functional.bilinear(genesis.zeros(2, 3), genesis.zeros(3, 4), g.weight)


def test_identity_flatten_unflatten_match_torch(device):
    x = RNG.normal(size=(2, 3, 4, 5)).astype(np.float32)
    gx, tx = genesis.tensor(x, device=device), torch.tensor(x)
    assert nn.Identity()(gx) is gx
    for args in [(), (0,), (1, 2), (2, -1), (0, -1)]:
        np.testing.assert_array_equal(_np(nn.Flatten(*args)(gx)), _np(torch.nn.Flatten(*args)(tx)))
    for dim, size in [(1, (3, 1)), (-1, (5, 1)), (2, (2, -1))]:
        np.testing.assert_array_equal(
            _np(nn.Unflatten(dim, size)(gx)), _np(torch.nn.Unflatten(dim, size)(tx))
        )
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints"):
        nn.Unflatten(1, 3)
