"""dropout, dropout1d/2d/3d, alpha_dropout and feature_alpha_dropout (functional and modules).

genesis's generator is not PyTorch's, so the masks are checked by their properties, with fixed
seeds: the kept fraction is about 1 - p, the kept values are PyTorch's exactly (the set of
values of a constant input equals torch's), whole channels go together, the gradient is the
mask times the scale, and a seed draws the same mask on the CPU and on CUDA. Then eval mode,
p = 0 and 1, in-place, dtypes, non-contiguous and empty inputs, PyTorch's warnings and errors,
and the modules' repr.
"""

import warnings

import numpy as np
import pytest
from conftest import HAS_CUDA, check_message, to_numpy

import genesis
import genesis.nn as nn
import genesis.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

ALPHA_FUNCS = ["alpha_dropout", "feature_alpha_dropout"]
ALL_FUNCS = ["dropout", "dropout1d", "dropout2d", "dropout3d", *ALPHA_FUNCS]
FEATURE_FUNCS = {"dropout1d": 3, "dropout2d": 4, "dropout3d": 5, "feature_alpha_dropout": 3}
MODULES = {
    "Dropout": "dropout",
    "Dropout1d": "dropout1d",
    "Dropout2d": "dropout2d",
    "Dropout3d": "dropout3d",
    "AlphaDropout": "alpha_dropout",
    "FeatureAlphaDropout": "feature_alpha_dropout",
}
# A batched input shape per function (channels in dim 1).
SHAPES = {
    "dropout": (6, 5, 4),
    "dropout1d": (6, 5, 4),
    "dropout2d": (3, 5, 2, 2),
    "dropout3d": (3, 5, 2, 2, 1),
    "alpha_dropout": (6, 5, 4),
    "feature_alpha_dropout": (6, 5, 4),
}


def _np(t):
    return to_numpy(t.detach())


def _call(name, x, p, **kw):
    kw.setdefault("training", True)
    return getattr(F, name)(x, p, **kw)


def _kept(name, y, x, p):
    """The mask (bool array) of the elements kept by dropout ``name`` of input ``x``."""
    y, x = _np(y), _np(x)
    if name in ALPHA_FUNCS:
        alpha = 1.7580993408473766
        a = 1.0 / np.sqrt((alpha * alpha * p + 1) * (1 - p))
        return ~np.isclose(y, alpha * a * (p - 1), rtol=1e-6, atol=1e-6)
    return y != 0


# ----------------------------------------------------------------------------------------------
# Values: PyTorch's kept values, the kept fraction, channels
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FUNCS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_values_are_torchs(name, dtype, device):
    # A constant input: the set of output values is a property of p and the dtype only.
    gdt, tdt = getattr(genesis, dtype), getattr(torch, dtype)
    base = 0.0 if name in ALPHA_FUNCS else 1.0
    shape = {"dropout2d": (40, 50, 1, 2), "dropout3d": (40, 50, 1, 1, 2)}.get(name, (40, 50, 2))
    genesis.manual_seed(0)
    got = _call(name, genesis.full(shape, base, dtype=gdt, device=device), 0.3)
    want = getattr(TF, name)(torch.full(shape, base, dtype=tdt), 0.3, training=True)
    assert got.dtype is gdt and tuple(got.shape) == shape
    want = want.float() if tdt is torch.bfloat16 else want
    assert sorted(set(_np(got).ravel().tolist())) == sorted(set(want.numpy().ravel().tolist()))


@pytest.mark.parametrize("name", ALL_FUNCS)
@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_kept_fraction_is_one_minus_p(name, p, device):
    shape = (40, 500, 3) if name in FEATURE_FUNCS else (60000,)
    if name == "dropout2d":
        shape = (40, 500, 1, 1)
    elif name == "dropout3d":
        shape = (40, 500, 1, 1, 1)
    x = genesis.randn(*shape, device=device) + 3.0  # no zeros
    genesis.manual_seed(123)
    y = _call(name, x, p)
    kept = _kept(name, y, x, p)
    n = 20000 if name in FEATURE_FUNCS else 60000
    assert abs(kept.mean() - (1 - p)) < 4 * np.sqrt(p * (1 - p) / n) + 1e-3
    if name not in ALPHA_FUNCS:
        scale = np.float32(1) / np.float32(1 - p)
        np.testing.assert_array_equal(_np(y)[kept], (_np(x) * scale)[kept])


def test_alpha_dropout_keeps_zero_mean_and_unit_variance(device):
    genesis.manual_seed(5)
    x = genesis.randn(200000, device=device, dtype=genesis.float64)
    for p in (0.2, 0.5):
        y = _np(F.alpha_dropout(x, p, training=True))
        assert abs(y.mean()) < 0.02 and abs(y.var() - 1) < 0.03


@pytest.mark.parametrize("name", sorted(FEATURE_FUNCS))
def test_feature_dropout_drops_whole_channels(name, device):
    shape = (4, 30) + (3,) * (FEATURE_FUNCS[name] - 2)
    x = genesis.randn(*shape, device=device) + 5.0
    genesis.manual_seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the batched ranks do not warn
        y = _call(name, x, 0.5)
    kept = _kept(name, y, x, 0.5)
    per_channel = kept.reshape(4, 30, -1)
    assert (per_channel == per_channel[:, :, :1]).all()  # a channel is kept or dropped whole
    assert 0 < per_channel[:, :, 0].mean() < 1


@pytest.mark.parametrize("name, shape", [("dropout1d", (30, 4)), ("dropout3d", (30, 2, 2, 2))])
def test_unbatched_inputs_are_one_sample(name, shape, device):
    x = genesis.ones(*shape, device=device)
    genesis.manual_seed(2)
    y = _np(_call(name, x, 0.5))
    flat = y.reshape(shape[0], -1)
    assert (flat == flat[:, :1]).all() and 0 < (flat[:, 0] != 0).mean() < 1
    # The same draws as the batched form of one sample.
    genesis.manual_seed(2)
    y1 = _np(_call(name, x.unsqueeze(0), 0.5))
    np.testing.assert_array_equal(y, y1[0])


# ----------------------------------------------------------------------------------------------
# Seeds and devices
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_a_seed_gives_the_same_mask_on_every_device(name, device):
    shape = SHAPES[name]
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32) + 3
    genesis.manual_seed(1234)
    ref = _np(_call(name, genesis.tensor(x), 0.4))  # the CPU
    genesis.manual_seed(1234)
    got = _np(_call(name, genesis.tensor(x, device=device), 0.4))
    np.testing.assert_array_equal(got, ref)
    genesis.manual_seed(4321)
    other = _np(_call(name, genesis.tensor(x, device=device), 0.4))
    assert not np.array_equal(other, ref)


@pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device available")
def test_cpu_and_cuda_masks_are_equal_for_a_large_input():
    genesis.manual_seed(99)
    a = _np(F.dropout(genesis.ones(1000, 257), 0.5))
    genesis.manual_seed(99)
    b = _np(F.dropout(genesis.ones(1000, 257, device="cuda"), 0.5))
    np.testing.assert_array_equal(a, b)


def test_the_fused_pass_writes_a_bool_mask_and_the_scaled_kept_values(device):
    """Note [Fused dropout]: out = x / (1 - p) where the bool mask is set, x * 0 elsewhere (so a
    dropped NaN stays NaN, as in PyTorch); the backward pass is the gradient through the mask.
    x[1:] of an odd size starts off the 16-byte packs: the kernel's element-wise tail path."""
    x = np.random.default_rng(5).normal(size=1001)
    x[::7] = np.nan
    t = genesis.tensor(x, device=device)[1:]
    genesis.manual_seed(21)
    out, mask = genesis._C._nn._fused_dropout(t, 0.25)
    assert mask.dtype is genesis.bool and out.dtype is genesis.float64
    m = _np(mask)
    assert 0.7 < m.mean() < 0.8
    want = np.where(m, x[1:] * (1 / 0.75), x[1:] * 0.0)
    np.testing.assert_array_equal(_np(out), want)
    g = np.random.default_rng(6).normal(size=1000)
    back = genesis._C._nn._dropout_masked_scale(genesis.tensor(g, device=device), mask, 1 / 0.75)
    np.testing.assert_array_equal(_np(back), np.where(m, g * (1 / 0.75), 0.0))
    genesis.manual_seed(21)
    cpu_mask = _np(genesis._C._nn._fused_dropout(genesis.tensor(x)[1:], 0.25)[1])
    np.testing.assert_array_equal(m, cpu_mask)  # the same draws on every device


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_in_place_and_out_of_place_agree_bit_for_bit(dtype, device):
    """The in-place form applies the same draw through a product: the same values, with the
    scale rounded to the dtype in both (PyTorch's CPU dropout)."""
    x = genesis.tensor(np.random.default_rng(7).normal(size=(33, 17)), device=device)
    x = x.to(getattr(genesis, dtype))
    genesis.manual_seed(8)
    a = F.dropout(x, 0.3)
    genesis.manual_seed(8)
    b = F.dropout(x.clone(), 0.3, inplace=True)
    np.testing.assert_array_equal(_np(a.float()), _np(b.float()))
    kept = _np(a.float()) != 0
    scale = genesis.tensor(1 / 0.7).to(x.dtype).float().item()
    want = (x.float() * scale).to(x.dtype).float()
    np.testing.assert_array_equal(_np(a.float())[kept], _np(want)[kept])


def test_double_backward_is_the_mask_again(device):
    x = genesis.tensor(np.ones((4, 25)) * 2.0, device=device, requires_grad=True)
    v = genesis.tensor(np.random.default_rng(9).normal(size=(4, 25)), device=device)
    v.requires_grad_()
    genesis.manual_seed(10)
    y = F.dropout(x, 0.4)
    (gx,) = genesis.autograd.grad(y, x, v, create_graph=True)
    w = np.random.default_rng(11).normal(size=(4, 25))
    (gv,) = genesis.autograd.grad(gx, v, genesis.tensor(w, device=device))
    kept = _np(y) != 0
    np.testing.assert_allclose(_np(gx), np.where(kept, _np(v) / 0.6, 0.0), rtol=1e-15)
    np.testing.assert_allclose(_np(gv), np.where(kept, w / 0.6, 0.0), rtol=1e-15)


def test_fused_bindings_check_their_arguments():
    x = genesis.ones(4)
    for p in (0.0, 1.0, -0.5):
        with pytest.raises(ValueError, match=r"^\[dropout\] the fused dropout takes 0 < p < 1"):
            genesis._C._nn._fused_dropout(x, p)
    with pytest.raises(TypeError, match=r"^\[dropout\] expected a floating point input"):
        genesis._C._nn._fused_dropout(genesis.ones(4, dtype=genesis.int64), 0.5)
    mask = genesis.ones(4, dtype=genesis.bool)
    with pytest.raises(TypeError, match=r"^\[dropout_backward\] expected a bool mask"):
        genesis._C._nn._dropout_masked_scale(x, genesis.ones(4), 2.0)
    with pytest.raises(RuntimeError, match=r"^\[dropout_backward\] the mask \(\(3,\)"):
        genesis._C._nn._dropout_masked_scale(x, mask[:3], 2.0)
    with pytest.raises(TypeError, match=r"^\[dropout_backward\] expected a floating point"):
        genesis._C._nn._dropout_masked_scale(genesis.ones(4, dtype=genesis.int32), mask, 2.0)


# ----------------------------------------------------------------------------------------------
# Gradients
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FUNCS)
@pytest.mark.parametrize("p", [0.3, 0.75])
def test_gradient_is_mask_times_scale(name, p, device):
    shape = SHAPES[name]
    rng = np.random.default_rng(3)
    x = genesis.tensor(rng.normal(size=shape) + 4, device=device, requires_grad=True)
    g = rng.normal(size=shape)
    genesis.manual_seed(7)
    y = _call(name, x, p)
    y.backward(genesis.tensor(g, device=device))
    kept = _kept(name, y, x, p)
    if name in ALPHA_FUNCS:
        alpha = 1.7580993408473766
        scale = 1.0 / np.sqrt((alpha * alpha * p + 1) * (1 - p))
    else:
        scale = 1.0 / (1 - p)
    np.testing.assert_allclose(_np(x.grad), g * kept * scale, rtol=1e-12, atol=0)
    assert x.grad.dtype is genesis.float64


@pytest.mark.parametrize("name", ["dropout", "dropout2d", "alpha_dropout"])
def test_inplace_works_in_place_and_keeps_the_gradient(name, device):
    shape = SHAPES[name]
    rng = np.random.default_rng(4)
    leaf = genesis.tensor(rng.normal(size=shape) + 4, device=device, requires_grad=True)
    h = leaf * 1.0  # a non-leaf to work on in place
    genesis.manual_seed(11)
    y = _call(name, h, 0.5, inplace=True)
    assert y is h
    genesis.manual_seed(11)
    ref = _call(name, leaf.detach(), 0.5)
    np.testing.assert_array_equal(_np(y), _np(ref))
    y.sum().backward()
    kept = _kept(name, ref, leaf, 0.5)
    assert (_np(leaf.grad)[~kept] == 0).all() and (_np(leaf.grad)[kept] > 0).all()


def test_inplace_unbatched_dropout1d_writes_the_input(device):
    x = genesis.ones(8, 5, device=device)
    genesis.manual_seed(3)
    y = F.dropout1d(x, 0.5, inplace=True)
    assert y is x
    values = set(_np(x).ravel().tolist())
    assert values == {0.0, 2.0}


# ----------------------------------------------------------------------------------------------
# Eval, p = 0 / 1, empty and non-contiguous inputs
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_eval_and_p0_return_the_input(name, device):
    x = genesis.randn(*SHAPES[name], device=device)
    assert getattr(F, name)(x, 0.5, training=False) is x
    assert getattr(F, name)(x, 0.5, False, True) is x
    assert _call(name, x, 0.0) is x
    if name in ALPHA_FUNCS:
        assert getattr(F, name)(x) is x  # training defaults to False, as in PyTorch
    else:
        assert getattr(F, name)(x) is not x


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_p1_gives_zeros(name, device):
    x = genesis.randn(*SHAPES[name], device=device, requires_grad=True)
    y = _call(name, x, 1.0)
    want = TF.__dict__[name](torch.randn(*SHAPES[name]), 1.0, training=True)
    assert (_np(y) == 0).all() and (want == 0).all()
    y.sum().backward()
    assert (_np(x.grad) == 0).all()
    h = x.detach().clone()
    assert _call(name, h, 1.0, inplace=True) is h and (_np(h) == 0).all()


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_empty_input(name, device):
    x = genesis.zeros(0, *SHAPES[name][1:], device=device)
    assert _call(name, x, 0.5) is x


@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "dropout2d"])
def test_non_contiguous_input(name, device):
    base = genesis.randn(4, 5, 6, 2, device=device) + 4
    x = base.transpose(0, 1)[:, ::2]  # (5, 2, 6, 2), strided
    assert not x.is_contiguous()
    genesis.manual_seed(8)
    y = _call(name, x, 0.5)
    genesis.manual_seed(8)
    ref = _call(name, x.contiguous(), 0.5)
    assert tuple(y.shape) == tuple(x.shape)
    np.testing.assert_array_equal(_np(y), _np(ref))


# ----------------------------------------------------------------------------------------------
# PyTorch's warnings and errors
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FUNCS)
@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_p_outside_unit_interval_raises_value_error(name, p, device):
    x = genesis.randn(*SHAPES[name], device=device)
    with pytest.raises(ValueError, match="between 0 and 1") as info:
        _call(name, x, p, training=False)
    check_message(info, name)
    with pytest.raises(ValueError):
        getattr(TF, name)(torch.randn(*SHAPES[name]), p)


@pytest.mark.parametrize("shape", [(3,), (2, 3, 4, 5)])
def test_dropout1d_needs_2d_or_3d(shape):
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input") as info:
        F.dropout1d(genesis.zeros(*shape))
    check_message(info, "dropout1d")
    with pytest.raises(RuntimeError):
        TF.dropout1d(torch.zeros(*shape))


@pytest.mark.parametrize(
    "name, dims, warns",
    [
        ("dropout2d", 2, 1),
        ("dropout2d", 3, 1),
        ("dropout2d", 4, 0),
        ("dropout2d", 5, 1),
        ("dropout3d", 3, 1),
        ("dropout3d", 4, 0),
        ("dropout3d", 5, 0),
        ("dropout3d", 6, 1),
    ],
)
def test_dropout2d_and_3d_warn_as_torch(name, dims, warns):
    shape = (2, 3, 2, 2, 2, 2)[:dims]
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        y = getattr(F, name)(genesis.ones(*shape), 0.5)
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        getattr(TF, name)(torch.ones(*shape), 0.5)
    assert len(got) == len(want) == warns
    assert all(w.message.args[0].startswith(f"[{name}]") for w in got)
    assert tuple(y.shape) == shape


def test_dropout2d_of_a_2d_input_drops_elements():
    genesis.manual_seed(0)
    with pytest.warns(UserWarning, match="Received a 2-D input"):
        y = _np(F.dropout2d(genesis.ones(200, 50), 0.5))
    assert 0.4 < (y == 0).mean() < 0.6 and not (y == y[:, :1]).all()


def test_feature_dropout_of_too_few_dims_raises():
    with pytest.warns(UserWarning):
        with pytest.raises(RuntimeError, match="at least 2 dimensions") as info:
            F.dropout2d(genesis.ones(5), 0.5)
    check_message(info, "dropout2d")
    with pytest.raises(RuntimeError, match="at least 2 dimensions") as info:
        F.feature_alpha_dropout(genesis.ones(5), 0.5, True)
    check_message(info, "feature_alpha_dropout")
    with pytest.warns(UserWarning), pytest.raises(RuntimeError):
        F.dropout3d(genesis.tensor(1.0), 0.5)
    with pytest.warns(UserWarning), pytest.raises(RuntimeError):
        TF.dropout3d(torch.tensor(1.0), 0.5)
    # Not training: nothing to drop, no error (as in PyTorch).
    with pytest.warns(UserWarning):
        x = genesis.ones(5)
        assert F.dropout2d(x, 0.5, training=False) is x


def test_bad_inputs():
    with pytest.raises(TypeError) as info:
        F.dropout([1.0, 2.0])
    check_message(info, "dropout")
    with pytest.raises(RuntimeError, match="floating point") as info:
        F.dropout(genesis.tensor([1, 2, 3]), 0.5)
    check_message(info, "dropout")
    x = genesis.tensor([1, 2])
    assert F.dropout(x, 0.5, training=False) is x


# ----------------------------------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", sorted(MODULES))
def test_module_repr_state_and_modes(cls, device):
    for args in [(), (0.25,), (0.1, True)]:
        g, t = getattr(nn, cls)(*args), getattr(torch.nn, cls)(*args)
        assert repr(g) == repr(t).replace("torch.", "genesis.")
        assert list(g.state_dict()) == list(t.state_dict()) == []
    layer = getattr(nn, cls)(0.5)
    x = genesis.randn(*SHAPES[MODULES[cls]], device=device) + 4
    assert layer.training
    genesis.manual_seed(21)
    y = layer(x)
    genesis.manual_seed(21)
    ref = _call(MODULES[cls], x, 0.5)
    np.testing.assert_array_equal(_np(y), _np(ref))
    layer.eval()
    assert layer(x) is x


@pytest.mark.parametrize("cls", sorted(MODULES))
def test_module_rejects_bad_p(cls):
    for p in (-0.5, 1.01):
        with pytest.raises(ValueError, match="between 0 and 1") as info:
            getattr(nn, cls)(p)
        check_message(info, cls)
        with pytest.raises(ValueError):
            getattr(torch.nn, cls)(p)


def test_module_inplace_flag(device):
    x = genesis.ones(50, 4, device=device)
    layer = nn.Dropout(0.5, inplace=True)
    assert layer(x) is x
    assert set(_np(x).ravel().tolist()) <= {0.0, 2.0}
    # AlphaDropout takes inplace but, as in PyTorch, never works in place.
    y = genesis.zeros(50, 4, device=device)
    assert nn.AlphaDropout(0.5, inplace=True)(y) is not y and (_np(y) == 0).all()


def test_model_in_train_and_eval(device):
    model = nn.Sequential(nn.Linear(8, 16), nn.Dropout(0.5), nn.Linear(16, 2)).to(device)
    x = genesis.randn(32, 8, device=device)
    model.eval()
    a, b = model(x), model(x)
    np.testing.assert_array_equal(_np(a), _np(b))
    model.train()
    genesis.manual_seed(0)
    c = model(x)
    assert not np.array_equal(_np(c), _np(a))
    c.sum().backward()
    assert model[0].weight.grad is not None
