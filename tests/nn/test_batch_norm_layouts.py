"""The fused batch norm as a network trained under autocast meets it (Note [Fused batch norm] in
csrc/ops/batch_norm.cpp): a float16/bfloat16 input beside float32 weight, bias and running
statistics (kept and updated in float32, their gradients float32), and channels-last inputs,
normalized where they lie on CUDA and kept channels-last in the result and the input's gradient,
as PyTorch's. Against torch in float64 from the same rounded values, CPU and CUDA, train and
eval; plus the (N, C) rows, non-dense channels-last views, 5-D channels_last_3d, and the second
derivative through the mixed form.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import to_numpy

import genesis
import genesis.nn as nn
import genesis.nn.functional as F

torch = pytest.importorskip("torch")

TOL = {"float32": (1e-4, 1e-4), "float16": (5e-3, 1e-2), "bfloat16": (4e-2, 8e-2)}


def _np(t):
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach().to(genesis.float64))
    return t.detach().double().numpy()


def _layout(t, fmt):
    return t if fmt is None else t.contiguous(memory_format=fmt)


def _compare(device, dtype, shape, training=True, layout=None, param_dtype="float32", seed=0):
    """batch_norm of a `dtype` input laid out as `layout` ('cl' channels-last, 'slice' a
    non-dense channels-last view, None contiguous) with `param_dtype` parameters and running
    statistics, against torch in float64; returns genesis's result."""
    rng = np.random.default_rng(seed + sum(shape))
    c = shape[1]
    a = rng.standard_normal(shape) * 1.5 + 0.5
    dy = rng.standard_normal(shape)
    params = [rng.standard_normal(c) * 0.5 + 1, rng.standard_normal(c) * 0.5]
    stats = [rng.standard_normal(c) * 0.1, rng.random(c) + 0.5]
    out = {}
    for lib in (genesis, torch):
        kw = {"device": device} if lib is genesis else {}
        fmt = None
        if layout in ("cl", "slice"):
            fmt = lib.channels_last if len(shape) == 4 else lib.channels_last_3d

        def make(v, dt, grad=False, lib=lib, kw=kw):
            t = lib.tensor(v, **kw).to(getattr(lib, dt))
            if lib is torch:  # the reference in float64 from the same rounded values
                t = t.double()
            return t.requires_grad_() if grad else t

        if layout == "slice":  # every other sample of a channels-last batch: not dense
            big = np.concatenate([a, a], axis=0)
            x = _layout(make(big, dtype), fmt)[::2].detach().requires_grad_()
        else:
            x = _layout(make(a, dtype), fmt).detach().requires_grad_()
        w, b = make(params[0], param_dtype, True), make(params[1], param_dtype, True)
        rm, rv = make(stats[0], param_dtype), make(stats[1], param_dtype)
        y = lib.nn.functional.batch_norm(x, rm, rv, w, b, training, 0.1, 1e-5)
        y.backward(_layout(make(dy, dtype), fmt))
        out[lib.__name__] = (y, x.grad, w.grad, b.grad, rm, rv, x)
    g, t = out["genesis"], out["torch"]
    rtol, atol = TOL[dtype]
    for name, gv, tv in zip(["out", "input", "weight", "bias", "rm", "rv"], g, t):
        want_dtype = dtype if name in ("out", "input") else param_dtype
        assert gv.dtype == getattr(genesis, want_dtype), name
        scale = np.sqrt(np.prod(shape) / c) if name in ("weight", "bias") else 1
        np.testing.assert_allclose(_np(gv), _np(tv), rtol=rtol, atol=atol * scale, err_msg=name)
    return g


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("shape", [(8, 3), (4, 5, 7), (3, 6, 5, 4), (2, 3, 2, 4, 5)], ids=str)
def test_16_bit_input_with_float32_parameters(device, shape, dtype, training):
    _compare(device, dtype, shape, training)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("shape", [(4, 6, 5, 3), (2, 40, 3, 3), (3, 300, 2, 2), (2, 5, 2, 3, 4)])
def test_channels_last_keeps_its_layout(device, shape, dtype, training):
    x = _compare(device, dtype, shape, training, layout="cl")[6]
    fmt = genesis.channels_last if len(shape) == 4 else genesis.channels_last_3d
    w = genesis.ones(shape[1], device=device, requires_grad=True)
    y = F.batch_norm(x, None, None, w, None, True)
    assert y.is_contiguous(memory_format=fmt)
    # The op's gradient, as autograd.grad returns it (accumulating into .grad may copy it).
    (dx,) = genesis.autograd.grad(y, x, genesis.ones_like(y))
    assert dx.is_contiguous(memory_format=fmt)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_channels_last_with_parameters_of_the_input_dtype(device, dtype):
    _compare(device, dtype, (4, 12, 3, 5), True, layout="cl", param_dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_non_dense_channels_last_view(device, dtype):
    _compare(device, dtype, (3, 8, 4, 5), True, layout="slice")


# (Two rows would normalize every channel to -1, 1: an input gradient of rounding noise.)
@pytest.mark.parametrize("rows", [1, 3, 1000])
@pytest.mark.parametrize("channels", [1, 33, 257, 1024])
def test_rows_of_channels(device, rows, channels):
    # (N, C): rows of channels on CUDA, any number of channel tiles and row blocks.
    if rows > 1:  # training needs more than one value a channel
        _compare(device, "float32", (rows, channels), True)
    _compare(device, "float32", (rows, channels), False)


def test_many_rows_channels_last(device):
    # Enough rows for many row blocks and reduction parts, a large common offset cancelling.
    _compare(device, "bfloat16", (64, 64, 16, 16), True, layout="cl")


def test_gradient_of_channels_last_gradient_in_another_layout(device):
    # The result's gradient arrives contiguous (N, C, H, W) while the input is channels-last.
    x = genesis.randn(4, 6, 3, 5, device=device).contiguous(memory_format=genesis.channels_last)
    x.requires_grad_()
    w = genesis.ones(6, device=device, requires_grad=True)
    y = F.batch_norm(x, None, None, w, None, True)
    g = genesis.randn(4, 6, 3, 5, device=device)
    y.backward(g)
    tx = torch.tensor(to_numpy(x.detach()), requires_grad=True)
    tw = torch.ones(6, requires_grad=True)
    torch.nn.functional.batch_norm(tx, None, None, tw, None, True).backward(
        torch.tensor(to_numpy(g))
    )
    np.testing.assert_allclose(to_numpy(x.grad), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(to_numpy(w.grad), tw.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_second_derivative_of_the_mixed_form(device):
    rng = np.random.default_rng(9)
    a = rng.standard_normal((5, 3, 4))
    x = genesis.tensor(a, device=device).to(genesis.bfloat16).requires_grad_()
    w = genesis.tensor(rng.random(3) + 0.5, device=device).float().requires_grad_()
    y = F.batch_norm(x, None, None, w, None, True)
    (gx, gw) = genesis.autograd.grad((y.float() ** 2).sum(), (x, w), create_graph=True)
    assert gx.dtype == genesis.bfloat16 and gw.dtype == genesis.float32
    (ggw,) = genesis.autograd.grad(gw.sum(), w)
    tx = torch.tensor(_np(x)).requires_grad_()
    tw = torch.tensor(_np(w)).requires_grad_()
    ty = torch.nn.functional.batch_norm(tx, None, None, tw, None, True)
    (tgx, tgw) = torch.autograd.grad((ty**2).sum(), (tx, tw), create_graph=True)
    (tggw,) = torch.autograd.grad(tgw.sum(), tw)
    np.testing.assert_allclose(_np(gw), _np(tgw), rtol=5e-2, atol=5e-2)
    np.testing.assert_allclose(_np(ggw), _np(tggw), rtol=5e-2, atol=5e-2)


def test_module_under_autocast_takes_the_fused_op(device):
    # BatchNorm2d keeps float32 parameters; under autocast a conv gives it a bfloat16 input.
    genesis.manual_seed(0)
    conv = nn.Conv2d(3, 8, 3, padding=1, bias=False).to(device)
    bn = nn.BatchNorm2d(8).to(device)
    conv = conv.to(memory_format=genesis.channels_last)
    x = genesis.randn(4, 3, 8, 8, device=device).contiguous(memory_format=genesis.channels_last)
    with genesis.autocast(device, dtype=genesis.bfloat16):
        h = conv(x)
        y = bn(h)
    assert h.dtype == y.dtype == genesis.bfloat16
    assert y.grad_fn.name() == "NativeBatchNormBackward0"  # the fused node, not a composition
    assert bn.running_mean.dtype == genesis.float32
    y.float().sum().backward()
    assert bn.weight.grad.dtype == genesis.float32 and bn.bias.grad.dtype == genesis.float32
    assert y.stride() == h.stride()  # the layout the convolution gave


def test_mismatched_parameter_dtypes_raise(device):
    x = genesis.randn(4, 3, device=device).to(genesis.bfloat16)
    w = genesis.ones(3, device=device)  # float32
    b = genesis.zeros(3, device=device, dtype=genesis.float64)
    with pytest.raises((TypeError, RuntimeError), match="batch_norm"):
        genesis._C._nn._batch_norm(x, None, None, w, b, True, 0.1, 1e-5)
    x32 = genesis.randn(4, 3, device=device)
    with pytest.raises(TypeError, match="batch_norm"):
        genesis._C._nn._batch_norm(x32, None, None, w.double(), None, True, 0.1, 1e-5)
