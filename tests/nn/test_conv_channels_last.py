"""Channels-last convolutions through cuDNN (Note [Convolution layouts] in
csrc/ops/convolution.cpp): a channels-last input or weight runs the pass channels-last, the
output and both gradients come back laid out as PyTorch's, with the same values as a
contiguous run and as torch's; the C++ nodes' double backward (Note [Convolution's three
passes]) in that layout; and a small ResNet block keeps channels-last from end to end."""

import numpy as np
import pytest
from conftest import HAS_CUDA

import genesis
import genesis.nn.functional as F
from genesis.backends import cudnn

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)
requires_cudnn = pytest.mark.skipif(
    not (HAS_CUDA and cudnn.is_available()), reason="no CUDA device with cuDNN"
)
pytestmark = requires_cudnn

DTYPES = {
    "float32": (genesis.float32, torch.float32, 1e-4),
    "float16": (genesis.float16, torch.float16, 2e-2),
    "bfloat16": (genesis.bfloat16, torch.bfloat16, 6e-2),
}


def _layout(lib, t, cl, nd):
    if not cl:
        return t.contiguous()
    return t.contiguous(memory_format=lib.channels_last if nd == 2 else lib.channels_last_3d)


def _is_cl(t, nd):
    fmt = genesis.channels_last if nd == 2 else genesis.channels_last_3d
    return t.is_contiguous(memory_format=fmt)


CASES = [
    # nd, x shape, w shape, kwargs
    (2, (2, 8, 9, 7), (16, 8, 3, 3), dict(padding=1)),
    (2, (3, 16, 10, 10), (8, 16, 1, 1), dict()),
    (2, (2, 8, 11, 9), (8, 8, 3, 3), dict(stride=2, padding=1)),
    (2, (2, 8, 9, 9), (8, 4, 3, 3), dict(padding=1, groups=2)),  # grouped: the legacy call
    (2, (2, 8, 8, 8), (8, 8, 2, 2), dict(padding="same")),  # odd 'same' pads one side first
    (3, (2, 8, 5, 6, 4), (8, 8, 3, 3, 3), dict(padding=1)),
]


@pytest.mark.parametrize("nd,xs,ws,kw", CASES)
@pytest.mark.parametrize("x_cl,w_cl", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_channels_last_passes_match_torch(nd, xs, ws, kw, x_cl, w_cl, dtype):
    gdt, tdt, tol = DTYPES[dtype]
    x, w = RNG.normal(size=xs), RNG.normal(size=ws) * 0.2
    fn = getattr(F, f"conv{nd}d")
    tfn = getattr(torch.nn.functional, f"conv{nd}d")
    gx = _layout(genesis, genesis.tensor(x, device="cuda").to(gdt), x_cl, nd).requires_grad_()
    gw = _layout(genesis, genesis.tensor(w, device="cuda").to(gdt), w_cl, nd).requires_grad_()
    y = fn(gx, gw, **kw)
    one_sided = kw.get("padding") == "same" and ws[-1] % 2 == 0
    if not one_sided:  # an odd 'same' pads (a contiguous copy) before cuDNN
        assert _is_cl(y, nd) == (x_cl or (w_cl and ws[2:] != (1,) * nd))
    g = RNG.normal(size=tuple(y.shape))
    y.backward(genesis.tensor(g, device="cuda").to(gdt))
    # torch in float64 on the CPU, the same layouts
    tx = _layout(torch, torch.tensor(x), x_cl, nd).requires_grad_()
    tw = _layout(torch, torch.tensor(w), w_cl, nd).requires_grad_()
    ty = tfn(tx, tw, **kw)
    ty.backward(torch.tensor(g))
    for got, want in ((y, ty), (gx.grad, tx.grad), (gw.grad, tw.grad)):
        want = want.detach().numpy()
        scale = max(1.0, float(np.abs(want).max()))
        np.testing.assert_allclose(
            got.detach().float().cpu().numpy(), want, rtol=tol, atol=tol * scale
        )
    if not one_sided:
        assert _is_cl(gx.grad, nd) == _is_cl(y, nd)
        assert _is_cl(gw.grad, nd) == _is_cl(y, nd) or ws[2:] == (1,) * nd


def test_float64_stays_contiguous_as_in_torch():
    # cuDNN lacks channels-last float64 algorithms for some passes; PyTorch runs them NCHW too
    x = genesis.randn(2, 6, 7, 8, device="cuda", dtype=genesis.float64)
    w = genesis.randn(5, 6, 3, 3, device="cuda", dtype=genesis.float64)
    a = F.conv2d(x, w, padding=1)
    xl = x.contiguous(memory_format=genesis.channels_last).requires_grad_()
    wl = w.contiguous(memory_format=genesis.channels_last).requires_grad_()
    b = F.conv2d(xl, wl, padding=1)
    assert a.is_contiguous() and b.is_contiguous()
    np.testing.assert_allclose(b.detach().cpu().numpy(), a.cpu().numpy(), rtol=1e-12, atol=1e-12)
    assert genesis.autograd.gradcheck(lambda x, w: F.conv2d(x, w, stride=2, padding=1), (xl, wl))
    assert genesis.autograd.gradgradcheck(
        lambda x, w: F.conv2d(x, w, stride=2, padding=1), (xl, wl)
    )


def test_double_backward_in_channels_last():
    # a gradient penalty in float32 channels-last: the second pass runs through the C++ nodes
    a = RNG.normal(size=(2, 4, 6, 5))
    b = RNG.normal(size=(6, 4, 3, 3)) * 0.3
    x = genesis.tensor(a, device="cuda").float().contiguous(memory_format=genesis.channels_last)
    w = genesis.tensor(b, device="cuda").float().contiguous(memory_format=genesis.channels_last)
    x.requires_grad_()
    w.requires_grad_()
    y = F.conv2d(x, w, stride=2, padding=1)
    assert _is_cl(y, 2)
    (gx,) = genesis.autograd.grad(y.square().sum(), (x,), create_graph=True)
    assert gx.grad_fn is not None
    gx.square().sum().backward()
    tx, tw = torch.tensor(a).requires_grad_(), torch.tensor(b).requires_grad_()
    ty = torch.nn.functional.conv2d(tx, tw, stride=2, padding=1)
    (tgx,) = torch.autograd.grad(ty.square().sum(), (tx,), create_graph=True)
    tgx.square().sum().backward()
    for got, want in ((gx, tgx), (w.grad, tw.grad), (x.grad, tx.grad)):
        want = want.detach().numpy()
        np.testing.assert_allclose(
            got.detach().cpu().numpy(), want, rtol=1e-3, atol=1e-3 * np.abs(want).max()
        )


def test_transposed_convolution_takes_channels_last():
    x = genesis.randn(2, 8, 5, 5, device="cuda").contiguous(memory_format=genesis.channels_last)
    w = genesis.randn(8, 4, 3, 3, device="cuda")
    y = F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)
    ref = F.conv_transpose2d(x.contiguous(), w, stride=2, padding=1, output_padding=1)
    assert _is_cl(y, 2)
    np.testing.assert_allclose(y.cpu().numpy(), ref.cpu().numpy(), rtol=1e-4, atol=1e-4)


def test_a_channels_last_block_stays_channels_last():
    # conv -> batch norm -> relu -> conv, under bfloat16 autocast, forward and backward
    block = genesis.nn.Sequential(
        genesis.nn.Conv2d(3, 16, 3, padding=1, bias=False),
        genesis.nn.BatchNorm2d(16),
        genesis.nn.ReLU(),
        genesis.nn.Conv2d(16, 16, 3, padding=1, bias=False),
    ).to("cuda")
    block.to(memory_format=genesis.channels_last)
    x = genesis.randn(4, 3, 8, 8, device="cuda").contiguous(memory_format=genesis.channels_last)
    x.requires_grad_()
    seen = []
    for m in block:
        m.register_forward_hook(lambda mod, inp, out: seen.append(out))
    with genesis.autocast("cuda", dtype=genesis.bfloat16):
        y = block(x)
    assert all(_is_cl(t, 2) and not t.is_contiguous() for t in seen)
    y.float().sum().backward()
    assert _is_cl(x.grad, 2) and _is_cl(block[0].weight.grad, 2)
    assert _is_cl(block[3].weight.grad, 2)
