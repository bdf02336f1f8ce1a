"""Memory formats (genesis/_memory_format.py, Note [Memory formats]): the four values, strides
and answers of contiguous / is_contiguous / to / clone with memory_format= against torch on the
same layouts, Module.to(memory_format=), layers on channels-last inputs, and bad formats."""

import pickle

import numpy as np
import pytest
from conftest import HAS_CUDA

import genesis

torch = pytest.importorskip("torch")

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]
RNG = np.random.default_rng(3)


def _pair(shape, permute=None, step=None):
    """The same values and layout in genesis and torch."""
    a = RNG.normal(size=shape).astype(np.float32)
    g, t = genesis.tensor(a), torch.tensor(a)
    if permute is not None:
        g, t = g.permute(permute), t.permute(permute)
    if step is not None:
        g, t = g[..., ::step], t[..., ::step]
    return g, t


LAYOUTS = [
    ((2, 3, 4, 5), None, None),
    ((2, 4, 5, 3), (0, 3, 1, 2), None),  # channels last
    ((2, 3, 4, 5), (0, 1, 3, 2), None),
    ((2, 1, 4, 5), None, None),  # one channel: both formats
    ((2, 3, 1, 1), None, None),
    ((0, 3, 4, 5), None, None),
    ((2, 3, 4, 10), None, 2),
    ((2, 3, 4, 5, 6), None, None),
    ((2, 4, 5, 6, 3), (0, 4, 1, 2, 3), None),  # channels last 3d
    ((3, 4), None, None),
]


def test_values_repr_pickle_and_type():
    for name in FORMATS:
        fmt = getattr(genesis, name)
        assert isinstance(fmt, genesis.memory_format)
        assert repr(fmt) == "genesis." + name
        assert pickle.loads(pickle.dumps(fmt)) is fmt
    assert genesis.channels_last is not genesis.channels_last_3d


@pytest.mark.parametrize("shape,permute,step", LAYOUTS)
@pytest.mark.parametrize("name", FORMATS)
def test_is_contiguous_and_contiguous_match_torch(shape, permute, step, name):
    g, t = _pair(shape, permute, step)
    gf, tf = getattr(genesis, name), getattr(torch, name)
    if g.numel():  # torch.tensor of an empty array has zero strides, genesis's row-major ones
        assert g.is_contiguous(memory_format=gf) == t.is_contiguous(memory_format=tf)
    try:
        expect = t.contiguous(memory_format=tf)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=r"\[contiguous\] " + str(e)):
            g.contiguous(memory_format=gf)
        return
    out = g.contiguous(memory_format=gf)
    assert out.shape == expect.shape
    if g.numel():  # torch.tensor of an empty array has zero strides
        assert out.stride() == expect.stride()
    np.testing.assert_array_equal(out.numpy(), expect.numpy())
    assert (out is g) == (expect is t)


@pytest.mark.parametrize("shape,permute,step", LAYOUTS)
@pytest.mark.parametrize("name", FORMATS)
def test_to_and_clone_match_torch(shape, permute, step, name):
    g, t = _pair(shape, permute, step)
    gf, tf = getattr(genesis, name), getattr(torch, name)
    for g_call, t_call in [
        (lambda: g.to(memory_format=gf), lambda: t.to(memory_format=tf)),
        (
            lambda: g.to(genesis.float64, memory_format=gf),
            lambda: t.to(torch.float64, memory_format=tf),
        ),
        (lambda: g.clone(memory_format=gf), lambda: t.clone(memory_format=tf)),
    ]:
        try:
            expect = t_call()
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match="required rank"):
                g_call()
            assert "required rank" in str(e)
            continue
        out = g_call()
        np.testing.assert_array_equal(out.numpy(), expect.numpy())
        if g.numel() and (name != "preserve_format" or g.is_contiguous(memory_format=gf)):
            # genesis's copies are row-major where PyTorch keeps other dense layouts
            assert out.is_contiguous(memory_format=gf) == expect.is_contiguous(memory_format=tf)


def test_clone_always_copies():
    g = genesis.zeros(2, 3, 4, 5).contiguous(memory_format=genesis.channels_last)
    c = g.clone(memory_format=genesis.channels_last)
    assert c.stride() == g.stride() and c.data_ptr() != g.data_ptr()
    p = g.clone(memory_format=genesis.preserve_format)
    assert p.stride() == g.stride() and p.data_ptr() != g.data_ptr()
    assert g.clone().stride() == g.stride()  # preserve_format, as PyTorch's default
    assert g.clone(memory_format=genesis.contiguous_format).stride() == (60, 20, 5, 1)


def test_gradients_flow_through_the_layout():
    x = genesis.randn(2, 3, 4, 5, requires_grad=True)
    y = x.contiguous(memory_format=genesis.channels_last)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-6)


def test_module_to_relays_4d_and_5d_parameters():
    net = genesis.nn.Sequential(genesis.nn.Conv2d(3, 4, 3), genesis.nn.Linear(4, 2))
    net.to(memory_format=genesis.channels_last)
    assert net[0].weight.is_contiguous(memory_format=genesis.channels_last)
    assert not net[0].weight.is_contiguous()
    assert net[1].weight.is_contiguous() and isinstance(net[0].weight, genesis.nn.Parameter)
    x = genesis.randn(2, 3, 8, 8)
    y = net[0](x.contiguous(memory_format=genesis.channels_last))
    np.testing.assert_allclose(y.numpy(), net[0](x).numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match=r"\[to\] required rank 4"):
        genesis.nn.Conv3d(1, 1, 1).to(memory_format=genesis.channels_last)


@pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device available")
def test_cuda_layers_take_channels_last_input():
    conv = genesis.nn.Conv2d(3, 4, 3, padding=1).to("cuda")
    x = genesis.randn(2, 3, 8, 8, device="cuda")
    xl = x.contiguous(memory_format=genesis.channels_last)
    np.testing.assert_allclose(conv(xl).cpu().numpy(), conv(x).cpu().numpy(), rtol=1e-5, atol=1e-5)


def test_bad_formats():
    x = genesis.zeros(2, 3, 4, 5)
    with pytest.raises(TypeError, match=r"\[contiguous\] memory_format must be a genesis"):
        x.contiguous(memory_format=3)
    with pytest.raises(TypeError, match=r"\[is_contiguous\] memory_format must be"):
        x.is_contiguous(memory_format="channels_last")
    with pytest.raises(TypeError, match=r"\[to\] memory_format must be"):
        x.to(memory_format=torch.channels_last)
    with pytest.raises(RuntimeError, match=r"\[contiguous\] required rank 5 tensor"):
        x.contiguous(memory_format=genesis.channels_last_3d)
