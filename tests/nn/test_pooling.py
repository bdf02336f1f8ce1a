"""Pooling, padding, pixel shuffles and interpolation against torch: max/avg/lp/adaptive pools in
1-3 dims with every option (values, indices and gradients in float64), max_unpool, F.pad in
every mode (negative pads included), interpolate in every mode, and the layers' reprs."""

import numpy as np
import pytest
from test_autograd import check_grads

import genesis
import genesis.nn as nn

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)
SPATIAL = {1: (9,), 2: (9, 8), 3: (7, 6, 5)}
POOLS = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, dilation=2),
    dict(kernel_size=2, stride=3, padding=1, ceil_mode=True),
]


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kw", POOLS)
def test_max_pool_matches_torch(nd, kw, device):
    x = RNG.normal(size=(2, 3, *SPATIAL[nd]))
    name = f"max_pool{nd}d"
    check_grads(lambda m, x: getattr(m.nn.functional, name)(x, **kw), [x], device)
    g_vals, g_idx = getattr(nn.functional, name)(
        genesis.tensor(x, device=device), **kw, return_indices=True
    )
    t_vals, t_idx = getattr(torch.nn.functional, name)(torch.tensor(x), **kw, return_indices=True)
    np.testing.assert_array_equal(_np(g_idx), _np(t_idx))
    assert g_idx.dtype == genesis.int64
    if kw != dict(kernel_size=2):
        return  # torch's max_unpool accepts the sizes of plain pools only
    out_size = tuple(x.shape)
    unpooled = getattr(nn.functional, f"max_unpool{nd}d")(
        g_vals, g_idx, kw["kernel_size"], kw.get("stride"), kw.get("padding", 0), out_size
    )
    expected = getattr(torch.nn.functional, f"max_unpool{nd}d")(
        t_vals, t_idx, kw["kernel_size"], kw.get("stride"), kw.get("padding", 0), out_size
    )
    np.testing.assert_array_equal(_np(unpooled), _np(expected))


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kw", [k for k in POOLS if "dilation" not in k])
@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool_matches_torch(nd, kw, count_include_pad, device):
    x = RNG.normal(size=(2, 3, *SPATIAL[nd]))
    name = f"avg_pool{nd}d"
    check_grads(
        lambda m, x: getattr(m.nn.functional, name)(x, **kw, count_include_pad=count_include_pad),
        [x],
        device,
    )
    if nd > 1:
        check_grads(
            lambda m, x: getattr(m.nn.functional, name)(x, **kw, divisor_override=3), [x], device
        )


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("out", [1, 3, 4, (5, 2, 4)])
def test_adaptive_pools_match_torch(nd, out, device):
    x = RNG.normal(size=(2, 3, *SPATIAL[nd]))
    size = out if isinstance(out, int) else out[:nd]
    check_grads(
        lambda m, x: getattr(m.nn.functional, f"adaptive_avg_pool{nd}d")(x, size), [x], device
    )
    check_grads(
        lambda m, x: getattr(m.nn.functional, f"adaptive_max_pool{nd}d")(x, size), [x], device
    )
    _, g_idx = getattr(nn.functional, f"adaptive_max_pool{nd}d")(
        genesis.tensor(x, device=device), size, return_indices=True
    )
    _, t_idx = getattr(torch.nn.functional, f"adaptive_max_pool{nd}d")(
        torch.tensor(x), size, return_indices=True
    )
    np.testing.assert_array_equal(_np(g_idx), _np(t_idx))


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_lp_pool_matches_torch(nd, device):
    x = np.abs(RNG.normal(size=(2, 3, *SPATIAL[nd]))) + 0.1
    for p in (1.0, 2.0, 3.5):
        check_grads(
            lambda m, x, p=p: getattr(m.nn.functional, f"lp_pool{nd}d")(x, p, 2, stride=1),
            [x],
            device,
        )


def test_pools_unbatched_and_errors():
    x = genesis.arange(16.0).view(1, 4, 4)
    assert nn.functional.max_pool2d(x, 2).shape == (1, 2, 2)
    with pytest.raises(RuntimeError, match=r"\[max_pool2d\] pad should be at most half"):
        nn.functional.max_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match=r"\[max_pool2d\] Expected 3D or 4D input"):
        nn.functional.max_pool2d(genesis.zeros(4), 2)
    with pytest.raises(RuntimeError, match=r"Output size is too small"):
        nn.functional.max_pool1d(genesis.zeros(1, 1, 1), 3)
    with pytest.raises(RuntimeError, match=r"\[avg_pool2d\] divisor must be not zero"):
        nn.functional.avg_pool2d(x, 2, divisor_override=0)


PADS = [
    ((1, 2), "constant"),
    ((2, 1, 0, 3), "reflect"),
    ((1, 1, 2, 2), "replicate"),
    ((2, 1, 1, 2), "circular"),
    ((-1, 2, 1, -2), "circular"),
    ((-1, 2, 1, -2), "replicate"),
    ((1, 2, -1, 0, 2, 1), "constant"),
    ((1, 1, 1, 1, 1, 1), "reflect"),
]


@pytest.mark.parametrize("amounts, mode", PADS)
def test_pad_matches_torch(amounts, mode, device):
    x = RNG.normal(size=(2, 3, 4, 5, 6) if len(amounts) == 6 else (2, 3, 5, 6))
    check_grads(lambda m, x: m.nn.functional.pad(x, amounts, mode=mode), [x], device)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "transposed", "empty"])
def test_constant_pad_of_layouts_and_dtypes(dtype, layout, device):
    """Note [Constant padding in one copy]: the value around the input for every dtype and
    layout; a channels-last input gives a channels-last result."""
    shape = (0, 3, 4, 5) if layout == "empty" else (2, 3, 4, 5)
    a = RNG.normal(size=shape) * 5
    a = a > 0 if dtype == "bool" else a.astype(dtype)
    x = genesis.tensor(a, device=device)
    t = torch.tensor(a)
    if layout == "channels_last":
        x = x.contiguous(memory_format=genesis.channels_last)
    if layout == "transposed":
        x, t = x.transpose(2, 3), t.transpose(2, 3)
    value = True if dtype == "bool" else 3
    out = nn.functional.pad(x, (1, 2, -1, 3), value=value)
    expect = torch.nn.functional.pad(t, (1, 2, -1, 3), value=value)
    np.testing.assert_array_equal(_np(out), expect.numpy())
    assert out.dtype == x.dtype
    if layout == "channels_last":
        assert out.is_contiguous(memory_format=genesis.channels_last)


def test_constant_pad_gradients_of_gradients():
    x = genesis.tensor(RNG.normal(size=(2, 3, 4)), dtype=genesis.float64).requires_grad_()

    def padded(t):
        return nn.functional.pad(t, (2, 1, 0, 1), value=1.5)

    assert genesis.autograd.gradcheck(padded, (x,))
    assert genesis.autograd.gradgradcheck(padded, (x,))


def test_pad_value_and_errors():
    x = genesis.zeros(1, 2, 3)
    np.testing.assert_array_equal(
        _np(nn.functional.pad(x, (1, 1), value=2.5))[0, 0], [2.5, 0, 0, 0, 2.5]
    )
    with pytest.raises(ValueError, match=r"\[pad\] Padding length must be divisible by 2"):
        nn.functional.pad(x, (1,))
    with pytest.raises(ValueError, match=r"\[pad\] reflect padding"):
        nn.functional.pad(x, (3, 0), mode="reflect")
    with pytest.raises(NotImplementedError, match=r"\[pad\] mode must be"):
        nn.functional.pad(x, (1, 1), mode="mirror")


@pytest.mark.parametrize(
    "nd, mode",
    [
        (1, "nearest"),
        (1, "linear"),
        (1, "area"),
        (2, "nearest-exact"),
        (2, "bilinear"),
        (2, "bicubic"),
        (2, "area"),
        (3, "trilinear"),
        (3, "nearest"),
    ],
)
@pytest.mark.parametrize(
    "kw",
    [
        dict(size=(11, 4, 9)),
        dict(scale_factor=2),
        dict(scale_factor=0.6),
        dict(scale_factor=1.7, recompute_scale_factor=True),
    ],
)
def test_interpolate_matches_torch(nd, mode, kw, device):
    kw = dict(kw)
    if "size" in kw:
        kw["size"] = kw["size"][:nd]
    x = RNG.normal(size=(2, 3, *SPATIAL[nd]))
    corners = [None] if mode in ("nearest", "nearest-exact", "area") else [False, True]
    for align in corners:
        check_grads(
            lambda m, x, align=align: m.nn.functional.interpolate(
                x, mode=mode, align_corners=align, **kw
            ),
            [x],
            device,
        )


def test_pixel_and_channel_shuffles_match_torch(device):
    x = RNG.normal(size=(2, 8, 3, 4))
    check_grads(lambda m, x: m.nn.functional.pixel_shuffle(x, 2), [x], device)
    check_grads(lambda m, x: m.nn.functional.pixel_unshuffle(x[:, :, :2, :], 2), [x], device)
    check_grads(lambda m, x: m.nn.functional.channel_shuffle(x, 4), [x], device)


LAYERS = [
    ("MaxPool2d", (3,), dict(stride=2, padding=1)),
    ("MaxPool1d", (2,), {}),
    ("AvgPool1d", (3,), dict(stride=2)),
    ("AvgPool2d", (2,), {}),
    ("AvgPool3d", ((1, 2, 2),), {}),
    ("LPPool2d", (2, 2), {}),
    ("AdaptiveAvgPool2d", ((1, 1),), {}),
    ("AdaptiveMaxPool1d", (3,), {}),
    ("MaxUnpool2d", (2,), {}),
    ("ZeroPad2d", (1,), {}),
    ("ConstantPad1d", ((1, 2), 3.5), {}),
    ("ReflectionPad2d", (2,), {}),
    ("ReplicationPad3d", (1,), {}),
    ("CircularPad1d", ((1, 2),), {}),
    ("PixelShuffle", (2,), {}),
    ("PixelUnshuffle", (2,), {}),
    ("ChannelShuffle", (2,), {}),
    ("Upsample", (), dict(scale_factor=2, mode="bilinear")),
    ("Upsample", ((4, 4),), {}),
    ("UpsamplingNearest2d", (), dict(scale_factor=3)),
    ("UpsamplingBilinear2d", (5,), {}),
    ("Fold", ((3, 3), 2), {}),
    ("Unfold", (2,), dict(stride=2)),
]


@pytest.mark.parametrize("name, args, kwargs", LAYERS, ids=[item[0] for item in LAYERS])
def test_layer_reprs_match_torch(name, args, kwargs):
    assert repr(getattr(nn, name)(*args, **kwargs)) == repr(
        getattr(torch.nn, name)(*args, **kwargs)
    )


def test_layers_compute_like_torch(device):
    x = RNG.normal(size=(2, 4, 6, 6))
    for name, args, kwargs in LAYERS:
        if name in ("MaxUnpool2d", "Fold") or name.endswith(("1d", "3d")):
            continue  # these take other input shapes (tested above)
        g = getattr(nn, name)(*args, **kwargs)
        t = getattr(torch.nn, name)(*args, **kwargs)
        out_g = g(genesis.tensor(x, device=device))
        out_t = t(torch.tensor(x))
        np.testing.assert_allclose(_np(out_g), _np(out_t), rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("out", [1, 2, (4, 2), (8, 1)])
@pytest.mark.parametrize("channels_last", [False, True])
def test_adaptive_avg_pool_of_whole_windows_matches_torch(out, channels_last, device):
    # sizes that the output divides: the one-mean path, on either layout, values and gradients
    x = RNG.normal(size=(3, 5, 8, 6))
    size = out

    def fn(m, t):
        if channels_last:
            t = t.contiguous(memory_format=m.channels_last)
        return m.nn.functional.adaptive_avg_pool2d(t, size)

    check_grads(fn, [x], device)
    for lib in (genesis, torch):
        t = lib.tensor(x[0], dtype=lib.bfloat16)  # unbatched, bfloat16
        if lib is genesis:
            t = t.to(device)
        y = lib.nn.functional.adaptive_avg_pool2d(t, size)
        if lib is genesis:
            got = y.float().cpu().numpy()
        else:
            want = y.float().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("nd,fmt", [(2, "channels_last"), (3, "channels_last_3d")])
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1)])
def test_max_pool_keeps_channels_last_as_torch(nd, fmt, kw, device):
    # values, indices and the input's gradient laid out as the channels-last input, as PyTorch's
    x = RNG.normal(size=(2, 5, *SPATIAL[nd]))
    name = f"max_pool{nd}d"
    out = {}
    for lib in (genesis, torch):
        t = lib.tensor(x, dtype=lib.float32)
        if lib is genesis:
            t = t.to(device)
        t = t.contiguous(memory_format=getattr(lib, fmt)).requires_grad_()
        values, index = getattr(lib.nn.functional, name)(t, **kw, return_indices=True)
        (values * values).sum().backward()
        out[lib.__name__] = (values, index, t.grad)
    for g, t in zip(out["genesis"], out["torch"]):
        assert g.stride() == t.stride()
        np.testing.assert_allclose(_np(g), _np(t), rtol=1e-6, atol=1e-6)
