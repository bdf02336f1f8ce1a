"""Convolutions against torch: conv1d/2d/3d and conv_transpose1d/2d/3d (functional and modules)
for strides, paddings ('same', 'valid', ints, tuples), dilations, groups, output_padding and
every padding_mode, values and gradients in float64; unfold/fold; the layers' default
initialization, reprs, state_dict keys, dtypes, zero-size batches and bad input."""

import numpy as np
import pytest
from test_autograd import check_grads

import genesis
import genesis.nn as nn

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)
SPATIAL = {1: (7,), 2: (7, 6), 3: (5, 6, 4)}
KERNEL = {1: (3,), 2: (3, 2), 3: (3, 2, 2)}

CASES = [
    dict(),
    dict(stride=2, padding=1),
    dict(padding="same", dilation=2),
    dict(padding="valid", stride=3, groups=2),
    dict(stride=2, padding=2, dilation=2, groups=2),
]


def _grads_of(fn, arrays, device):
    check_grads(fn, arrays, device, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv_matches_torch(nd, case, device):
    kw = CASES[case]
    x = RNG.normal(size=(2, 4, *SPATIAL[nd]))
    w = RNG.normal(size=(6, 4 // kw.get("groups", 1), *KERNEL[nd]))
    b = RNG.normal(size=(6,))
    name = f"conv{nd}d"
    _grads_of(lambda m, x, w, b: getattr(m.nn.functional, name)(x, w, b, **kw), [x, w, b], device)
    _grads_of(lambda m, x, w: getattr(m.nn.functional, name)(x[0], w, **kw), [x, w], device)


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(stride=2, padding=1, output_padding=1),
        dict(stride=(2, 1, 3)[:1], groups=2, dilation=2),
        dict(stride=3, padding=2, output_padding=2, groups=2),
    ],
)
def test_conv_transpose_matches_torch(nd, kw, device):
    x = RNG.normal(size=(2, 4, *SPATIAL[nd]))
    w = RNG.normal(size=(4, 6 // kw.get("groups", 1), *KERNEL[nd]))
    b = RNG.normal(size=(6,))
    name = f"conv_transpose{nd}d"
    _grads_of(lambda m, x, w, b: getattr(m.nn.functional, name)(x, w, b, **kw), [x, w, b], device)


@pytest.mark.parametrize(
    "kw",
    [dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))],
)
def test_unfold_and_fold_match_torch(kw, device):
    x = RNG.normal(size=(2, 3, 6, 7))
    check_grads(lambda m, x: m.nn.functional.unfold(x, **kw), [x], device)
    cols = torch.nn.functional.unfold(torch.tensor(x), **kw).numpy()
    check_grads(lambda m, c: m.nn.functional.fold(c, (6, 7), **kw), [cols], device)


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv_layers_match_torch(nd, mode, device):
    t = getattr(torch.nn, f"Conv{nd}d")(
        4, 6, 3, padding=1, padding_mode=mode, groups=2, dtype=torch.float64
    )
    g = getattr(nn, f"Conv{nd}d")(
        4, 6, 3, padding=1, padding_mode=mode, groups=2, dtype=genesis.float64
    )
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    g.load_state_dict(t.state_dict())
    g.to(device)
    x = RNG.normal(size=(2, 4, *SPATIAL[nd]))
    gx = genesis.tensor(x, device=device, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    out_g, out_t = g(gx), t(tx)
    np.testing.assert_allclose(
        out_g.detach().cpu().numpy(), out_t.detach().numpy(), rtol=1e-10, atol=1e-10
    )
    out_g.sum().backward()
    out_t.sum().backward()
    np.testing.assert_allclose(g.weight.grad.cpu().numpy(), t.weight.grad.numpy(), rtol=1e-9)
    np.testing.assert_allclose(gx.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_conv_transpose_layer_output_size_and_reprs(device):
    t = torch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, dtype=torch.float64)
    g = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, dtype=genesis.float64)
    assert repr(g) == repr(t)
    g.load_state_dict(t.state_dict())
    g.to(device)
    x = RNG.normal(size=(1, 4, 5, 5))
    for size in (None, (10, 10), (1, 2, 9, 10)):
        out_t = t(torch.tensor(x), output_size=size)
        out_g = g(genesis.tensor(x, device=device), output_size=size)
        np.testing.assert_allclose(out_g.cpu().numpy(), out_t.detach().numpy(), rtol=1e-10)
    with pytest.raises(ValueError, match=r"\[ConvTranspose2d\] requested an output size"):
        g(genesis.tensor(x, device=device), output_size=(20, 20))
    for args, kwargs in [
        ((3, 4, 2), {}),
        ((3, 4, (2, 1)), dict(stride=2, padding=1, dilation=2)),
        ((2, 4, 3), dict(padding="same", bias=False)),
        ((2, 4, 3), dict(padding="valid", groups=2)),
    ]:
        assert repr(nn.Conv2d(*args, **kwargs)) == repr(torch.nn.Conv2d(*args, **kwargs))
    assert repr(nn.ConvTranspose1d(2, 4, 3, output_padding=1, stride=2)) == repr(
        torch.nn.ConvTranspose1d(2, 4, 3, output_padding=1, stride=2)
    )


def test_conv_default_init_bounds():
    g = nn.Conv2d(16, 8, 3)
    bound = 1 / np.sqrt(16 * 9)
    w, b = g.weight.detach().numpy(), g.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound
    assert nn.ConvTranspose2d(8, 16, 3).weight.shape == (8, 16, 3, 3)


def test_conv_dtypes_zero_batch_and_non_contiguous(device):
    for dtype, tol in [(genesis.float32, 1e-5), (genesis.float16, 3e-3), (genesis.bfloat16, 3e-2)]:
        g = nn.Conv2d(3, 4, 3, padding=1).to(device, dtype)
        t = torch.nn.Conv2d(3, 4, 3, padding=1)
        t.load_state_dict(
            {k: torch.from_dlpack(v.float().cpu()) for k, v in g.state_dict().items()}
        )
        x = RNG.normal(size=(2, 3, 6, 5)).astype(np.float32)
        gx = genesis.tensor(x, device=device).to(dtype).transpose(2, 3)  # not contiguous
        tx = torch.tensor(x).transpose(2, 3)
        out = g(gx)
        assert out.dtype == dtype and not gx.is_contiguous()
        expected = t(tx).detach().numpy()
        np.testing.assert_allclose(out.float().cpu().numpy(), expected, rtol=tol, atol=tol * 4)
    empty = nn.Conv2d(3, 4, 3).to(device)(genesis.zeros(0, 3, 5, 5, device=device))
    assert empty.shape == (0, 4, 3, 3)


def test_conv_bad_input_names_the_op():
    g = nn.Conv2d(3, 4, 3)
    with pytest.raises(
        RuntimeError,
        match=r"\[conv2d\] Given groups=1, weight of size \[4, 3, 3, "
        r"3\], expected input\[1, 5, 8, 8\] to have 3 channels",
    ):
        g(genesis.zeros(1, 5, 8, 8))
    with pytest.raises(RuntimeError, match=r"\[conv2d\] Expected 3D \(unbatched\) or 4D"):
        g(genesis.zeros(8, 8))
    with pytest.raises(RuntimeError, match=r"Kernel size can't be greater than actual input"):
        g(genesis.zeros(1, 3, 2, 2))
    with pytest.raises(RuntimeError, match=r"\[conv2d\] input is genesis.float64"):
        g(genesis.zeros(1, 3, 5, 5, dtype=genesis.float64))
    with pytest.raises(ValueError, match=r"padding='same' is not supported for strided"):
        nn.Conv2d(3, 4, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match=r"in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match=r"padding_mode must be one of"):
        nn.Conv1d(3, 4, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match=r'Only "zeros" padding mode'):
        nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect")


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, dilation=2, groups=2)])
def test_conv_double_backward_matches_torch(kw, device):
    # The convolution's gradients are products themselves (the _WindowProduct Function in
    # genesis/nn/functional/_conv.py): create_graph differentiates them again.
    x = RNG.normal(size=(2, 4, 7, 6))
    w = RNG.normal(size=(6, 4 // kw.get("groups", 1), 3, 2))
    out = []
    for lib in (genesis, torch):
        opts = {"device": device} if lib is genesis else {}
        gx = lib.tensor(x, **opts).requires_grad_()
        gw = lib.tensor(w, **opts).requires_grad_()
        y = lib.nn.functional.conv2d(gx, gw, **kw)
        dx, dw = lib.autograd.grad((y * y.detach().sin()).sum(), (gx, gw), create_graph=True)
        second = lib.autograd.grad((dx * dx).sum() + (dw * dw.detach().cos()).sum(), (gx, gw))
        out.append([np.asarray(t.detach().cpu().numpy()) for t in second])
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
