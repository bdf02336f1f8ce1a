"""Note [A gradient summed where it is made] (csrc/autograd/engine.cpp): when a tensor feeds a
fused layer norm or RMS norm and something else, the norm's backward adds the gradient already
waiting for the tensor into its own, in the kernel that writes it (CUDA), or by an addition after
it. The sum must be the engine's (bit for bit: the partial plus the norm's gradient), reach
hooks, retain_grad and grad(inputs=) whole, and leave double backward, unused norms and
gradients of other shapes as they were; the values match torch.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DEVICES, to_numpy

import genesis
import genesis.nn.functional as F
from genesis.autograd import Function

torch = pytest.importorskip("torch")

DTYPES = ["float32", "bfloat16", "float16", "float64"]
TOL = {"float64": 1e-10, "float32": 2e-5, "float16": 4e-3, "bfloat16": 3e-2}


def _tensor(rng, shape, device, dtype):
    return genesis.tensor(rng.standard_normal(shape).astype(np.float32), device=device).to(
        getattr(genesis, dtype)
    )


def _norm(x, w, b, rms):
    if rms:
        return F.rms_norm(x, [x.shape[-1]], w, 1e-5)
    return F.layer_norm(x, [x.shape[-1]], w, b, 1e-5)


def _torch_norm(x, w, b, rms):
    if rms:
        return torch.nn.functional.rms_norm(x, [x.shape[-1]], w, 1e-5)
    return torch.nn.functional.layer_norm(x, [x.shape[-1]], w, b, 1e-5)


def _t(t):
    return torch.from_dlpack(t.detach().cpu())


def _close(got, want, dtype):
    """Within the dtype's rounding of the largest value (16-bit column sums round coarsely)."""
    want = want.detach().double().numpy()
    scale = 1.0 + float(np.abs(want).max(initial=0.0))
    np.testing.assert_allclose(
        to_numpy(got.detach().to(genesis.float64)), want, rtol=TOL[dtype], atol=TOL[dtype] * scale
    )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rms", [False, True])
@pytest.mark.parametrize("cols", [768, 7])  # the register kernel, the loop kernel
def test_residual_stream_sum_is_the_engines(device, dtype, rms, cols):
    rng = np.random.default_rng(cols + rms)
    x0 = _tensor(rng, (3, 5, cols), device, dtype)
    w, b = _tensor(rng, (cols,), device, dtype), _tensor(rng, (cols,), device, dtype)
    g = _tensor(rng, (3, 5, cols), device, dtype)
    x = x0.clone().requires_grad_()
    w.requires_grad_()
    # x feeds the residual addition (made later, so its gradient waits) and the norm
    (x + _norm(x, w, b, rms) * 2.0).backward(g)
    # the engine's own sum: the residual's gradient plus the norm's, each made apart
    xa = x0.clone().requires_grad_()
    (norm_grad,) = genesis.autograd.grad(_norm(xa, w, b, rms) * 2.0, xa, g)
    assert bool((x.grad == g + norm_grad).all())
    tx, tw, tb = (_t(t).requires_grad_() for t in (x0, w, b))
    (tx + _torch_norm(tx, tw, tb, rms) * 2.0).backward(_t(g))
    _close(x.grad, tx.grad, dtype)
    _close(w.grad, tw.grad, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_two_norms_and_a_residual_on_one_tensor(device):
    # three gradients meet at x: the residual's waits; the first norm to run takes it, the
    # second's is added by the engine
    rng = np.random.default_rng(1)
    x0 = _tensor(rng, (4, 64), device, "float32")
    x = x0.clone().requires_grad_()
    ln1, ln2 = genesis.nn.LayerNorm(64).to(device), genesis.nn.RMSNorm(64).to(device)
    (x + ln1(x) * ln2(x)).sum().backward()
    tx = _t(x0).requires_grad_()
    t1, t2 = torch.nn.LayerNorm(64), torch.nn.RMSNorm(64)
    (tx + t1(tx) * t2(tx)).sum().backward()
    _close(x.grad, tx.grad, "float32")


@pytest.mark.parametrize("device", DEVICES)
def test_hooks_retain_grad_and_grad_inputs_see_the_whole_sum(device):
    rng = np.random.default_rng(2)
    a = _tensor(rng, (8, 32), device, "float32").requires_grad_()
    g = _tensor(rng, (8, 32), device, "float32")
    ln = genesis.nn.LayerNorm(32).to(device)
    seen = []
    x = a * 1.5  # a non-leaf: its gradient goes on to a
    x.retain_grad()
    x.register_hook(lambda grad: seen.append(grad.clone()))
    (x + ln(x)).backward(g)
    xb = (a * 1.5).detach().requires_grad_()
    (norm_grad,) = genesis.autograd.grad(ln(xb), xb, g)
    want = g + norm_grad
    assert bool((x.grad == want).all()) and bool((seen[0] == want).all())
    assert bool((a.grad == want * 1.5).all())
    # grad(inputs=) of the non-leaf
    x = a * 1.5
    (got,) = genesis.autograd.grad(x + ln(x), x, g)
    assert bool((got == want).all())


@pytest.mark.parametrize("device", DEVICES)
def test_double_backward_and_other_shapes_keep_the_engines_addition(device):
    rng = np.random.default_rng(3)
    x0 = _tensor(rng, (4, 16), device, "float64")
    w = _tensor(rng, (16,), device, "float64")
    x = x0.clone().requires_grad_()
    (gx,) = genesis.autograd.grad((x * x + F.layer_norm(x, [16], w)).sum(), x, create_graph=True)
    (gg,) = genesis.autograd.grad((gx * gx).sum(), x)
    tx = _t(x0).requires_grad_()
    (tgx,) = torch.autograd.grad(
        (tx * tx + torch.nn.functional.layer_norm(tx, [16], _t(w))).sum(), tx, create_graph=True
    )
    (tgg,) = torch.autograd.grad((tgx * tgx).sum(), tx)
    _close(gx, tgx, "float64")
    _close(gg, tgg, "float64")
    # a residual that broadcasts: its gradient reaches x's buffer summed to x's shape by then
    x = x0.clone().requires_grad_()
    row = x[:1]
    (row + F.layer_norm(x, [16], w)).sum().backward()
    tx = _t(x0).requires_grad_()
    (tx[:1] + torch.nn.functional.layer_norm(tx, [16], _t(w))).sum().backward()
    _close(x.grad, tx.grad, "float64")


class _Blocks(Function):
    """Passes its input on and gives it no gradient."""

    @staticmethod
    def forward(ctx, t):
        return t.clone()

    @staticmethod
    def backward(ctx, grad):
        return None


@pytest.mark.parametrize("device", DEVICES)
def test_a_norm_no_gradient_reaches_gives_the_partial_back(device):
    rng = np.random.default_rng(4)
    x0 = _tensor(rng, (4, 16), device, "float32")
    g = _tensor(rng, (4, 16), device, "float32")
    x = x0.clone().requires_grad_()
    (x * 3.0 + _Blocks.apply(F.layer_norm(x, [16]))).backward(g)
    assert bool((x.grad == g * 3.0).all())


@pytest.mark.parametrize("device", DEVICES)
def test_only_the_weight_needs_a_gradient(device):
    rng = np.random.default_rng(5)
    x = _tensor(rng, (4, 16), device, "float32")
    w = _tensor(rng, (16,), device, "float32").requires_grad_()
    (F.layer_norm(x, [16], w) + w).sum().backward()
    tw = _t(w).requires_grad_()
    (torch.nn.functional.layer_norm(_t(x), [16], tw) + tw).sum().backward()
    _close(w.grad, tw.grad, "float32")


@pytest.mark.parametrize("device", DEVICES)
def test_in_a_compiled_region(device):
    # the partial may be a deferred (pending) value of a fused group there
    rng = np.random.default_rng(6)
    a0 = _tensor(rng, (64, 96), device, "float32")
    w = _tensor(rng, (96,), device, "float32").requires_grad_()

    def block(a):
        x = a * 1.5 + 0.25
        return (x + F.layer_norm(x, [96], w) * 2.0).tanh()

    grads = []
    for fn in (block, genesis.compile(block)):
        a = a0.clone().requires_grad_()
        w.grad = None
        fn(a).sum().backward()
        grads.append((a.grad, w.grad))
    for eager, compiled in zip(*grads):
        np.testing.assert_allclose(to_numpy(compiled), to_numpy(eager), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_threads_sharing_the_graph(device):
    # the partial goes to each call's own apply, not onto the shared node
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(7)
    x = _tensor(rng, (32, 64), device, "float32").requires_grad_()
    out = (x + F.layer_norm(x, [64])).square().sum()
    (want,) = genesis.autograd.grad(out, x, retain_graph=True)
    with ThreadPoolExecutor(4) as pool:  # an error in a call is raised here
        got = list(
            pool.map(lambda _: genesis.autograd.grad(out, x, retain_graph=True)[0], range(80))
        )
    assert all(bool((g == want).all()) for g in got)
