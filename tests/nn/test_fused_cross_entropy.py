"""The fused cross-entropy (Note [Fused cross-entropy] in csrc/ops/cross_entropy.cpp) against
torch: class counts that take the packed and the scalar kernels, every floating dtype, class
weights, ignore_index (outside and inside the class range), label smoothing, every reduction,
(C,), (N, C) and (N, C, d...) logits, the logits' gradient and its second derivative, large
logits, out-of-range targets, and the node's name.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import to_numpy

import genesis
import genesis.nn.functional as F

torch = pytest.importorskip("torch")

TOL = {
    "float64": (1e-10, 1e-12),
    "float32": (2e-5, 2e-6),
    "float16": (5e-3, 2e-3),
    "bfloat16": (3e-2, 1e-2),
}


def _np(t):
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach().to(genesis.float64))
    return t.detach().double().numpy()


def _compare(device, dtype, shape, *, weight=False, ignore=-100, smoothing=0.0, reduction="mean"):
    rng = np.random.default_rng(sum(shape) + int(smoothing * 10) + len(reduction))
    classes = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0], *shape[2:])
    logits = rng.standard_normal(shape) * 3
    target = rng.integers(0, classes, tshape)
    if ignore >= -1 and target.size:  # some targets ignored
        target.reshape(-1)[::3] = ignore
    wa = rng.random(classes) + 0.5 if weight else None
    gx = genesis.tensor(logits, device=device).to(getattr(genesis, dtype)).requires_grad_()
    tx = torch.tensor(logits).to(getattr(torch, dtype)).double().requires_grad_()
    gt = genesis.tensor(target, device=device)
    tt = torch.tensor(target)
    gw = genesis.tensor(wa, device=device).to(getattr(genesis, dtype)) if weight else None
    tw = torch.tensor(wa).to(getattr(torch, dtype)).double() if weight else None
    kw = {"ignore_index": ignore, "label_smoothing": smoothing, "reduction": reduction}
    gl = F.cross_entropy(gx, gt, gw, **kw)
    tl = torch.nn.functional.cross_entropy(tx, tt, tw, **kw)
    rtol, atol = TOL[dtype]
    assert gl.dtype == getattr(genesis, dtype)
    assert tuple(gl.shape) == tuple(tl.shape)
    np.testing.assert_allclose(_np(gl), _np(tl), rtol=rtol, atol=atol, err_msg="loss")
    rng2 = np.random.default_rng(1)
    up = rng2.standard_normal(tuple(tl.shape))
    gl.backward(genesis.tensor(up, device=device).to(gl.dtype))
    tl.backward(torch.tensor(up))
    np.testing.assert_allclose(_np(gx.grad), _np(tx.grad), rtol=rtol, atol=atol, err_msg="grad")


@pytest.mark.parametrize("classes", [1, 7, 100, 4099, 50304])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_classes_and_dtypes(device, dtype, classes):
    rows = 3 if classes > 1000 else 16
    _compare(device, dtype, (rows, classes))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weight", [False, True], ids=["plain", "weighted"])
@pytest.mark.parametrize("ignore", [-100, 2], ids=["ignore_outside", "ignore_inside"])
def test_options(device, ignore, weight, smoothing, reduction):
    _compare(
        device,
        "float32",
        (24, 12),
        weight=weight,
        ignore=ignore,
        smoothing=smoothing,
        reduction=reduction,
    )
    _compare(
        device,
        "float64",
        (24, 8),
        weight=weight,
        ignore=ignore,
        smoothing=smoothing,
        reduction=reduction,
    )


@pytest.mark.parametrize("shape", [(9,), (4, 5, 3), (2, 6, 3, 2), (0, 5), (0, 5, 2)])
def test_shapes(device, shape):
    for smoothing in (0.0, 0.1):
        for reduction in ("none", "sum", "mean"):
            if len(shape) == 1 and reduction == "none":
                continue
            if shape[0] == 0 and reduction == "mean":
                continue  # 0/0: checked below
            _compare(device, "float64", shape, smoothing=smoothing, reduction=reduction)


def test_all_ignored_mean_is_nan(device):
    x = genesis.randn(3, 4, device=device, requires_grad=True)
    t = genesis.full((3,), -100, dtype=genesis.int64, device=device)
    loss = F.cross_entropy(x, t)
    assert np.isnan(loss.item())
    F.cross_entropy(x, t, reduction="sum").backward()
    assert to_numpy(x.grad).tolist() == [[0.0] * 4] * 3


def test_large_logits_stay_finite(device):
    a = np.array([[1e4, -1e4, 3e3], [-5e3, -5e3, -5e3]])
    g = genesis.tensor(a, device=device, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    target = [0, 2]
    gl = F.cross_entropy(g, genesis.tensor(target, device=device), label_smoothing=0.1)
    tl = torch.nn.functional.cross_entropy(t, torch.tensor(target), label_smoothing=0.1)
    np.testing.assert_allclose(gl.item(), tl.item(), rtol=1e-12)
    gl.backward()
    tl.backward()
    np.testing.assert_allclose(_np(g.grad), _np(t.grad), rtol=1e-12, atol=1e-15)


def test_double_backward(device):
    rng = np.random.default_rng(7)
    a, target = rng.standard_normal((5, 6)), rng.integers(0, 6, 5)
    target[1] = -100
    wa = rng.random(6) + 0.5
    out = []
    for lib in (genesis, torch):
        kw = {"device": device} if lib is genesis else {}
        x = lib.tensor(a, **kw).requires_grad_()
        w = lib.tensor(wa, **kw)
        loss = lib.nn.functional.cross_entropy(x, lib.tensor(target, **kw), w, label_smoothing=0.3)
        (gx,) = lib.autograd.grad(loss, x, create_graph=True)
        (gg,) = lib.autograd.grad((gx * gx.detach().cos()).sum(), x)
        out.append(_np(gg))
    np.testing.assert_allclose(out[0], out[1], rtol=1e-9, atol=1e-12)


def test_node_name_and_the_composed_path(device):
    x = genesis.randn(4, 5, device=device, requires_grad=True)
    t = genesis.tensor([0, 1, 2, 3], device=device)
    assert F.cross_entropy(x, t, reduction="none").grad_fn.name() == "CrossEntropyLossBackward0"
    # a weight that requires grad takes the composed path, which differentiates it
    w = genesis.ones(5, device=device, requires_grad=True)
    got = F.cross_entropy(x, t, w, reduction="none")
    assert got.grad_fn.name() != "CrossEntropyLossBackward0"


def test_out_of_range_target_cpu():
    x = genesis.randn(3, 4)
    with pytest.raises(IndexError, match=r"^\[cross_entropy\] target 4 is out of bounds for 4"):
        F.cross_entropy(x, genesis.tensor([0, 4, 1]))
    with pytest.raises(IndexError, match=r"^\[cross_entropy\] target -1 is out of bounds"):
        F.cross_entropy(x, genesis.tensor([0, -1, 1]))


@pytest.mark.skipif(not genesis.cuda.is_available(), reason="needs a GPU")
def test_out_of_range_target_cuda_is_deferred():
    x = genesis.randn(3, 4, device="cuda")
    loss = F.cross_entropy(x, genesis.tensor([0, 9, 1], device="cuda"), reduction="none")
    with pytest.raises(IndexError, match=r"\[cross_entropy\] index 9 is out of bounds"):
        genesis.cuda.synchronize()
    assert np.isnan(to_numpy(loss)[1])


def test_bad_input_from_the_compiled_op():
    x = genesis.randn(2, 4)
    t = genesis.tensor([0, 1])
    with pytest.raises(TypeError, match=r"^\[cross_entropy\] expected floating point logits"):
        genesis._C._nn._cross_entropy(genesis.ones(2, 4, dtype=genesis.int64), t, None, -100, 0.0)
    with pytest.raises(RuntimeError, match=r"^\[cross_entropy\] expected an int64 target"):
        genesis._C._nn._cross_entropy(x, t.int(), None, -100, 0.0)
    with pytest.raises(RuntimeError, match=r"^\[cross_entropy\] expected a weight of 4 items"):
        genesis._C._nn._cross_entropy(x, t, genesis.ones(3), -100, 0.0)
    with pytest.raises(ValueError, match=r"^\[cross_entropy\] label_smoothing must be"):
        genesis._C._nn._cross_entropy(x, t, None, -100, 1.5)
