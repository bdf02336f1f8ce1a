"""The CPU's convolutions as products over shifted windows (Note [Convolution over shifted
windows] in csrc/cpu/convolution.cpp): which geometries take them, and their three passes
(forward, the input's and the weight's gradients, and create_graph through them) against torch
for paddings (cropping ones included), dilations, kernel shapes, 1-D, 'same', transposed
convolutions of stride 1, dtypes, layouts, non-contiguous and zero-size inputs."""

import numpy as np
import pytest
from test_autograd import check_grads, grads_both

import genesis
import genesis.nn.functional as F
from genesis import _C
from genesis.nn.functional import _conv_passes

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)


def _takes(x_sizes, w_sizes, dtype=genesis.float32, stride=None, groups=1):
    x = genesis.zeros(1, dtype=dtype)
    stride = (1,) * (len(x_sizes) - 2) if stride is None else stride
    return _conv_passes.cpu_usable(x, x_sizes, w_sizes, stride, groups)


def test_which_convolutions_take_the_shifted_windows():
    assert _takes((2, 32, 8, 8), (16, 32, 3, 3))
    assert _takes((2, 64, 9), (16, 64, 3))  # 1-D, lifted to a unit height
    assert _takes((2, 64, 8, 8), (32, 64, 3, 3), genesis.bfloat16)
    assert not _takes((2, 32, 8, 8), (16, 32, 3, 3), stride=(2, 2))
    assert not _takes((2, 32, 8, 8), (16, 16, 3, 3), groups=2)
    assert not _takes((2, 32, 8, 8, 8), (16, 32, 3, 3, 3), stride=(1, 1, 1))
    assert not _takes((2, 32, 8, 8), (16, 32, 1, 1))  # one tap: a plain product
    assert not _takes((2, 8, 8, 8), (16, 8, 3, 3))  # few channels
    assert not _takes((2, 32, 8, 8), (8, 32, 3, 3))
    assert not _takes((2, 20, 8, 8), (16, 20, 3, 3))  # B's segments not whole panels
    assert not _takes((2, 32, 8, 8), (16, 32, 3, 3), genesis.int64)


GEOMETRIES = [
    ((2, 32, 7, 6), (16, 32, 3, 3), dict(padding=1)),
    ((2, 32, 7, 6), (16, 32, 3, 3), dict()),
    ((1, 32, 9, 8), (17, 32, 3, 2), dict(padding=2, dilation=2)),
    ((2, 32, 6, 7), (16, 32, 4, 4), dict(padding="same")),  # odd total: one extra row after
    ((2, 32, 5, 6), (16, 32, 2, 2), dict(padding=2)),  # the input gradient crops
    ((3, 32, 4, 5), (20, 32, 5, 3), dict(padding=(2, 1), dilation=(1, 2))),
    ((2, 64, 3, 11), (16, 64, 1, 3), dict(padding=(0, 1))),
]


def _is_shifted(y):
    # the C++ passes' node; genesis.nn.functional's own path records a Python Function
    return "<ConvBackward" in repr(y.grad_fn)


@pytest.mark.parametrize("case", range(len(GEOMETRIES)))
def test_passes_match_torch_in_float64(case):
    x_sizes, w_sizes, kw = GEOMETRIES[case]
    x, w, b = RNG.normal(size=x_sizes), RNG.normal(size=w_sizes), RNG.normal(size=w_sizes[0])
    check_grads(
        lambda m, x, w, b: m.nn.functional.conv2d(x, w, b, **kw), [x, w, b], "cpu", 1e-9, 1e-9
    )
    y = F.conv2d(genesis.tensor(x).requires_grad_(), genesis.tensor(w), **kw)
    assert _is_shifted(y)


def test_one_dimensional_convolutions_match_torch():
    x, w = RNG.normal(size=(3, 32, 13)), RNG.normal(size=(24, 32, 5))
    for kw in (dict(padding=2), dict(padding="same", dilation=3), dict()):
        check_grads(
            lambda m, x, w, kw=kw: m.nn.functional.conv1d(x, w, **kw), [x, w], "cpu", 1e-9, 1e-9
        )
    assert _is_shifted(F.conv1d(genesis.tensor(x).requires_grad_(), genesis.tensor(w)))


def test_create_graph_runs_the_passes_again():
    x, w = RNG.normal(size=(2, 32, 6, 5)), RNG.normal(size=(16, 32, 3, 3))
    grads_both(
        lambda m, x, w: m.nn.functional.conv2d(x, w, padding=1, dilation=(2, 1)), [x, w], "cpu"
    )


def test_transposed_convolutions_of_stride_one_match_torch():
    x, w = RNG.normal(size=(2, 16, 6, 5)), RNG.normal(size=(16, 32, 3, 2))
    for kw in (dict(), dict(padding=1, dilation=2)):
        check_grads(
            lambda m, x, w, kw=kw: m.nn.functional.conv_transpose2d(x, w, **kw),
            [x, w],
            "cpu",
            1e-9,
            1e-9,
        )


@pytest.mark.parametrize("dtype, tol", [("float32", 1e-4), ("bfloat16", 3e-2), ("float16", 3e-3)])
def test_narrow_dtypes_match_torch(dtype, tol):
    # more rows, channels and taps than one slice of k or one thread's tile
    x = RNG.normal(size=(3, 64, 12, 10)).astype(np.float32)
    w = (RNG.normal(size=(48, 64, 3, 3)) / 24).astype(np.float32)
    g = RNG.normal(size=(3, 48, 12, 10)).astype(np.float32)
    results = []
    for lib in (genesis, torch):
        dt = getattr(lib, dtype)
        xt = lib.tensor(x).to(dt).requires_grad_()
        wt = lib.tensor(w).to(dt).requires_grad_()
        y = lib.nn.functional.conv2d(xt, wt, padding=1)
        y.backward(lib.tensor(g).to(dt))
        assert y.dtype == dt and xt.grad.dtype == dt and wt.grad.dtype == dt
        results.append([t.detach().float().numpy() for t in (y, xt.grad, wt.grad)])
        if lib is genesis:
            assert _is_shifted(y)
    for got, want in zip(*results):
        scale = np.abs(want).max()
        np.testing.assert_allclose(got / scale, want / scale, rtol=0, atol=tol)


def test_layouts_non_contiguous_and_empty_inputs():
    x = RNG.normal(size=(2, 32, 7, 6)).astype(np.float32)
    w = RNG.normal(size=(16, 32, 3, 3)).astype(np.float32)
    want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=1).numpy()
    channels_last = genesis.tensor(x).to(memory_format=genesis.channels_last)
    y = F.conv2d(channels_last, genesis.tensor(w), padding=1)
    assert y.is_contiguous(memory_format=genesis.channels_last)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-4)
    # a view with strides of its own: every other column of a wider input
    wide = np.repeat(x, 2, axis=3)
    view = genesis.tensor(wide)[..., ::2]
    assert not view.is_contiguous()
    np.testing.assert_allclose(
        F.conv2d(view, genesis.tensor(w), padding=1).numpy(), want, rtol=1e-4, atol=1e-4
    )
    empty = genesis.zeros(0, 32, 7, 6, requires_grad=True)
    wt = genesis.tensor(w).requires_grad_()
    y = F.conv2d(empty, wt, padding=1)
    assert tuple(y.shape) == (0, 16, 7, 6)
    y.sum().backward()
    assert tuple(empty.grad.shape) == (0, 32, 7, 6)
    np.testing.assert_array_equal(wt.grad.numpy(), np.zeros_like(w))


def test_the_binding_refuses_geometries_it_does_not_take():
    x, w = genesis.randn(1, 32, 6, 6), genesis.randn(16, 32, 3, 3)
    args = ([1, 1], [2, 2], [1, 1], 1, False, False, False, "conv2d")
    with pytest.raises(RuntimeError, match=r"\[conv2d\] the CPU convolution takes 1-D and 2-D"):
        _C._nn._conv(x, w, *args)
    with pytest.raises(RuntimeError, match=r"\[conv2d\] input is float64 on cpu"):
        _C._nn._conv(x.double(), w, [1, 1], [1, 1], *args[2:])


def test_channels_past_one_slice_of_k_match_torch():
    # 320 channels: each tap's segment is cut into slices of the GEMM's depth (256 and 64)
    x = RNG.normal(size=(2, 320, 5, 4)).astype(np.float32)
    w = (RNG.normal(size=(64, 320, 3, 3)) / 40).astype(np.float32)
    check_grads(lambda m, x, w: m.nn.functional.conv2d(x, w, padding=1), [x, w], "cpu", 1e-4, 1e-4)
