"""nn.utils.parametrize and weight/spectral normalization (parametrizations and the older hook
forms) against torch: state_dict keys, reprs, outputs and gradients after loading torch's state,
power iteration in train and eval mode, removal; plus conv/linear + BatchNorm fusion and
skip_init."""

import warnings

import numpy as np
import pytest

import genesis
import genesis.nn as nn
from genesis.nn.utils import parametrizations as P
from genesis.nn.utils import parametrize

torch = pytest.importorskip("torch")
TP = torch.nn.utils.parametrizations

RNG = np.random.default_rng(13)


def _np(t):
    return t if isinstance(t, np.ndarray) else t.detach().cpu().numpy()


def _close(a, b, tol=1e-10):
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _layers(kind):
    if kind == "linear":
        return nn.Linear(3, 4, dtype=genesis.float64), torch.nn.Linear(3, 4, dtype=torch.float64)
    if kind == "conv":
        return (
            nn.Conv2d(3, 4, 3, dtype=genesis.float64),
            torch.nn.Conv2d(3, 4, 3, dtype=torch.float64),
        )
    return (
        nn.ConvTranspose2d(3, 4, 3, dtype=genesis.float64),
        torch.nn.ConvTranspose2d(3, 4, 3, dtype=torch.float64),
    )


def _input(kind):
    return RNG.normal(size=(2, 3)) if kind == "linear" else RNG.normal(size=(1, 3, 5, 5))


@pytest.mark.parametrize("kind", ["linear", "conv"])
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_parametrization_matches_torch(kind, dim, device):
    g, t = _layers(kind)
    g, t = P.weight_norm(g, dim=dim), TP.weight_norm(t, dim=dim)
    assert repr(g) == repr(t) and list(g.state_dict()) == list(t.state_dict())
    g.load_state_dict(t.state_dict())
    g.to(device)
    x = _input(kind)
    out_g = g(genesis.tensor(x, device=device))
    out_t = t(torch.tensor(x))
    _close(out_g, out_t)
    out_g.pow(2).sum().backward()
    out_t.pow(2).sum().backward()
    for name in ("original0", "original1"):
        _close(
            getattr(g.parametrizations.weight, name).grad,
            getattr(t.parametrizations.weight, name).grad,
            1e-9,
        )
    g.weight = genesis.ones(*g.weight.shape, dtype=genesis.float64, device=device)  # inverse
    _close(g.weight, np.ones(tuple(g.weight.shape)))
    parametrize.remove_parametrizations(g, "weight")
    torch.nn.utils.parametrize.remove_parametrizations(t, "weight")
    assert type(g) is type(_layers(kind)[0]) and list(g.state_dict()) == list(t.state_dict())


@pytest.mark.parametrize("kind", ["linear", "conv", "transposed"])
def test_spectral_norm_parametrization_matches_torch(kind, device):
    g, t = _layers(kind)
    g, t = P.spectral_norm(g, n_power_iterations=2), TP.spectral_norm(t, n_power_iterations=2)
    assert repr(g) == repr(t) and list(g.state_dict()) == list(t.state_dict())
    g.load_state_dict(t.state_dict())
    g.to(device)
    x = _input(kind)
    for mode in ("train", "train", "eval"):
        getattr(g, mode)()
        getattr(t, mode)()
        out_g = g(genesis.tensor(x, device=device))
        out_t = t(torch.tensor(x))
        _close(out_g, out_t, 1e-9)
    _close(g.parametrizations.weight[0]._u, t.parametrizations.weight[0]._u, 1e-9)


def test_hook_forms_match_torch(device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        g = nn.utils.weight_norm(nn.Linear(3, 4, dtype=genesis.float64))
        t = torch.nn.utils.weight_norm(torch.nn.Linear(3, 4, dtype=torch.float64))
    assert list(g.state_dict()) == list(t.state_dict())
    g.load_state_dict(t.state_dict())
    g.to(device)
    x = RNG.normal(size=(2, 3))
    _close(g(genesis.tensor(x, device=device)), t(torch.tensor(x)))
    nn.utils.remove_weight_norm(g)
    assert list(g.state_dict()) == ["bias", "weight"]
    g = nn.utils.spectral_norm(nn.Linear(3, 4, dtype=genesis.float64))
    t = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 4, dtype=torch.float64))
    assert sorted(g.state_dict()) == sorted(t.state_dict())
    g.load_state_dict(t.state_dict())
    g.to(device)
    for mode in ("train", "eval"):
        getattr(g, mode)()
        getattr(t, mode)()
        _close(g(genesis.tensor(x, device=device)), t(torch.tensor(x)), 1e-9)
    nn.utils.remove_spectral_norm(g)
    assert sorted(g.state_dict()) == ["bias", "weight"]
    with pytest.warns(FutureWarning, match="deprecated"):
        nn.utils.weight_norm(nn.Linear(2, 2))


def test_register_parametrization_rules():
    class Symmetric(nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)

    class Double(nn.Module):
        def forward(self, x):
            return x * 2

        def right_inverse(self, x):
            return x / 2

    layer = nn.Linear(3, 3)
    weight = layer.weight
    parametrize.register_parametrization(layer, "weight", Symmetric())
    assert parametrize.is_parametrized(layer) and parametrize.is_parametrized(layer, "weight")
    assert not parametrize.is_parametrized(layer, "bias")
    assert type(layer).__name__ == "ParametrizedLinear"
    assert parametrize.type_before_parametrizations(layer) is nn.Linear
    assert layer.parametrizations.weight.original is weight  # the optimizer's tensor stays
    w = _np(layer.weight)
    np.testing.assert_array_equal(w, w.T)
    parametrize.register_parametrization(layer, "weight", Double())
    np.testing.assert_allclose(_np(layer.weight), 2 * w)
    with parametrize.cached():
        assert layer.weight is layer.weight
    with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
        parametrize.register_parametrization(layer, "nothing", Double())

    class Shrink(nn.Module):
        def forward(self, x):
            return x[:1]

    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(nn.Linear(2, 2), "weight", Shrink())
    parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
    assert type(layer) is nn.Linear and layer.weight is weight


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_matches_unfused(transpose, device):
    conv = (nn.ConvTranspose2d(3, 4, 2) if transpose else nn.Conv2d(3, 4, 2)).to(device)
    bn = nn.BatchNorm2d(4).to(device)
    bn(conv(genesis.randn(8, 3, 5, 5, device=device)))  # gather running statistics
    conv.eval()
    bn.eval()
    fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    x = genesis.randn(2, 3, 5, 5, device=device)
    np.testing.assert_allclose(_np(fused(x)), _np(bn(conv(x))), rtol=1e-5, atol=1e-5)
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        nn.utils.fuse_conv_bn_eval(conv.train(), bn)


def test_fuse_linear_bn_and_weights_match_torch():
    t_lin, t_bn = torch.nn.Linear(3, 4).eval(), torch.nn.BatchNorm1d(4).eval()
    t_bn.running_mean.normal_()
    t_bn.running_var.uniform_(0.5, 2)
    g_lin, g_bn = nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval()
    g_lin.load_state_dict(t_lin.state_dict())
    g_bn.load_state_dict(t_bn.state_dict())
    fused_t = torch.nn.utils.fuse_linear_bn_eval(t_lin, t_bn)
    fused_g = nn.utils.fuse_linear_bn_eval(g_lin, g_bn)
    _close(fused_g.weight, fused_t.weight, 1e-6)
    _close(fused_g.bias, fused_t.bias, 1e-6)


def test_skip_init_leaves_values_alone():
    layer = nn.utils.skip_init(nn.Linear, 3, 2, bias=False)
    assert type(layer) is nn.Linear and layer.weight.shape == (2, 3) and layer.bias is None
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int, 3)
