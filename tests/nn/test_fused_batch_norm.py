"""The fused batch norm (Note [Fused batch norm] in csrc/ops/batch_norm.cpp) against torch:
(N, C), (N, C, L), (N, C, H, W) and (N, C, D, H, W) inputs, train and eval, with and without the
affine parameters and the running statistics (updated in place as torch's), every floating
dtype, the gradients of input, weight and bias, a large common offset, non-contiguous input, the
second derivative and the node's name.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import to_numpy

import genesis
import genesis.nn.functional as F

torch = pytest.importorskip("torch")

TOL = {
    "float64": (1e-10, 1e-10),
    "float32": (1e-4, 1e-4),
    "float16": (5e-3, 1e-2),
    "bfloat16": (4e-2, 8e-2),
}


def _np(t):
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach().to(genesis.float64))
    return t.detach().double().numpy()


def _compare(device, dtype, shape, training=True, affine=True, running=True, offset=0.0):
    rng = np.random.default_rng(sum(shape))
    c = shape[1]
    a = rng.standard_normal(shape) * 1.5 + offset
    dy = rng.standard_normal(shape)
    params = [rng.standard_normal(c) * 0.5 + 1, rng.standard_normal(c) * 0.5]
    stats = [rng.standard_normal(c) * 0.1, rng.random(c) + 0.5]
    results = []
    for lib in (genesis, torch):
        kw = {"device": device} if lib is genesis else {}
        cast = getattr(lib, dtype)

        def make(v, grad=False, kw=kw, cast=cast, lib=lib):
            t = lib.tensor(v, **kw).to(cast)
            if lib is torch:  # torch's reference in float64 from the same rounded values
                t = t.double()
            return t.requires_grad_() if grad else t

        x = make(a, True)
        w, b = (make(params[0], True), make(params[1], True)) if affine else (None, None)
        rm, rv = (make(stats[0]), make(stats[1])) if running else (None, None)
        y = lib.nn.functional.batch_norm(x, rm, rv, w, b, training, 0.1, 1e-5)
        y.backward(make(dy))
        results.append(
            [y, x.grad] + ([w.grad, b.grad] if affine else []) + ([rm, rv] if running else [])
        )
    rtol, atol = TOL[dtype]
    names = (
        ["out", "input"]
        + (["weight", "bias"] if affine else [])
        + (["rm", "rv"] if running else [])
    )
    for name, g, t in zip(names, *results):
        assert g.dtype == getattr(genesis, dtype), name
        scale = np.sqrt(np.prod(shape) / c) if name in ("weight", "bias") else 1
        np.testing.assert_allclose(_np(g), _np(t), rtol=rtol, atol=atol * scale, err_msg=name)


SHAPES = [(8, 3), (4, 5, 7), (3, 4, 6, 5), (2, 3, 2, 4, 5), (16, 8, 64)]


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
def test_shapes_train_and_eval(device, shape, training):
    _compare(device, "float32", shape, training)
    _compare(device, "float64", shape, training)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_dtypes(device, dtype):
    _compare(device, dtype, (4, 6, 8, 8))
    _compare(device, dtype, (4, 6, 8, 8), training=False)


def test_without_affine_or_running_statistics(device):
    _compare(device, "float64", (4, 3, 9), affine=False)
    _compare(device, "float64", (4, 3, 9), running=False)
    _compare(device, "float64", (4, 3, 9), affine=False, running=False)


def test_large_offset_keeps_the_variance(device):
    # the sums are of x - x0, so a mean of 1000 next to a deviation of 1.5 keeps its digits
    _compare(device, "float32", (64, 4, 16, 16), offset=1000.0)


def test_many_channels_and_big_planes(device):
    _compare(device, "float32", (2, 300, 5, 5))
    _compare(device, "float32", (32, 16, 40, 40))


def test_non_contiguous_input(device):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 5, 4, 3))
    g = genesis.tensor(a, device=device).permute(0, 3, 1, 2)  # (6, 3, 5, 4), strided
    t = torch.tensor(a).permute(0, 3, 1, 2)
    gy = F.batch_norm(g, None, None, training=True)
    ty = torch.nn.functional.batch_norm(t, None, None, training=True)
    np.testing.assert_allclose(_np(gy), _np(ty), rtol=1e-10, atol=1e-10)


def test_node_name_and_double_backward(device):
    rng = np.random.default_rng(4)
    a, wa = rng.standard_normal((4, 3, 5)), rng.standard_normal(3)
    for training in (True, False):
        out = []
        for lib in (genesis, torch):
            kw = {"device": device} if lib is genesis else {}
            x = lib.tensor(a, **kw).requires_grad_()
            w = lib.tensor(wa, **kw).requires_grad_()
            rm, rv = lib.zeros(3, dtype=x.dtype, **kw), lib.ones(3, dtype=x.dtype, **kw)
            y = lib.nn.functional.batch_norm(x, rm, rv, w, None, training)
            if lib is genesis:
                assert y.grad_fn.name() == "NativeBatchNormBackward0"
            (gx,) = lib.autograd.grad((y * y.detach().sin()).sum(), x, create_graph=True)
            (gw,) = lib.autograd.grad((gx * gx).sum(), w)
            out.append(_np(gw))
        np.testing.assert_allclose(out[0], out[1], rtol=1e-9, atol=1e-10)


def test_module_train_and_eval_steps(device):
    gm = genesis.nn.BatchNorm2d(4, device=device)
    tm = torch.nn.BatchNorm2d(4)
    rng = np.random.default_rng(2)
    for step in range(3):
        a = rng.standard_normal((5, 4, 3, 3)) * (step + 1)
        gy = gm(genesis.tensor(a, device=device, dtype=genesis.float32))
        ty = tm(torch.tensor(a, dtype=torch.float32))
        np.testing.assert_allclose(_np(gy), _np(ty), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(_np(gm.running_var), _np(tm.running_var), rtol=1e-5)
    gm.eval()
    tm.eval()
    a = rng.standard_normal((2, 4, 3, 3))
    gy = gm(genesis.tensor(a, device=device, dtype=genesis.float32))
    ty = tm(torch.tensor(a, dtype=torch.float32))
    np.testing.assert_allclose(_np(gy), _np(ty), rtol=1e-4, atol=1e-4)


def test_bad_input_from_the_compiled_op():
    x = genesis.randn(4, 3, 2)
    with pytest.raises(RuntimeError, match=r"^\[batch_norm\] expected weight of 3 items"):
        genesis._C._nn._batch_norm(x, None, None, genesis.ones(2), None, True, 0.1, 1e-5)
    with pytest.raises(RuntimeError, match=r"^\[batch_norm\] running_mean must be defined"):
        genesis._C._nn._batch_norm(x, None, None, None, None, False, 0.1, 1e-5)
    with pytest.raises(TypeError, match=r"^\[batch_norm\] expected a floating point input"):
        genesis._C._nn._batch_norm(x.long(), None, None, None, None, True, 0.1, 1e-5)
