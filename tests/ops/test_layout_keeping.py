"""Results keep a channels-last operand's layout (Note [Layouts that results keep] in
csrc/ops/layout.cpp): unary and binary ops, where, casts, copies, cat, constant padding and
the *_like creators give
channels_last / channels_last_3d results as PyTorch's do, with the same values and strides;
other layouts come back row-major, and contiguous() is always row-major."""

import numpy as np
import pytest

import genesis

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
FORMATS = [((2, 3, 4, 5), "channels_last"), ((2, 3, 2, 4, 5), "channels_last_3d")]


def _pair(shape, fmt, device, dtype=np.float32):
    a = RNG.normal(size=shape).astype(dtype)
    g = genesis.tensor(a, device=device).contiguous(memory_format=getattr(genesis, fmt))
    t = torch.tensor(a).contiguous(memory_format=getattr(torch, fmt))
    return g, t


def _same(g, t):
    assert tuple(g.shape) == tuple(t.shape)
    assert g.stride() == t.stride(), (g.stride(), t.stride())
    np.testing.assert_allclose(
        g.detach().cpu().float().numpy(), t.detach().float().numpy(), rtol=1e-6, atol=1e-6
    )


def _channel_bias(lib, x):
    bias = lib.arange(x.shape[1]).to(x.device)
    return bias.reshape(1, -1, *([1] * (x.dim() - 2)))


CASES = {
    "relu": lambda lib, x, c: lib.nn.functional.relu(x),
    "exp": lambda lib, x, c: x.exp(),
    "neg": lambda lib, x, c: -x,
    "add_self": lambda lib, x, c: x + x,
    "mul_number": lambda lib, x, c: x * 2.5,
    "number_sub": lambda lib, x, c: 1.0 - x,
    "add_channel_bias": lambda lib, x, c: x + _channel_bias(lib, x),
    "cl_plus_contiguous": lambda lib, x, c: x + c,
    "contiguous_plus_cl": lambda lib, x, c: c + x,
    "compare": lambda lib, x, c: x > 0,
    "expanded_times_cl": lambda lib, x, c: (
        x.sum(tuple(range(2, x.dim())), True).expand(x.shape) * x
    ),
    "where": lambda lib, x, c: lib.where(x > 0, x, 0.0),
    "to_float64": lambda lib, x, c: x.to(lib.float64),
    "to_bfloat16": lambda lib, x, c: x.to(lib.bfloat16),
    "clone": lambda lib, x, c: x.clone(),
    "cat_channels": lambda lib, x, c: lib.cat([x, x * 2], 1),
    "cat_batch": lambda lib, x, c: lib.cat([x, x], 0),
    "cat_mixed": lambda lib, x, c: lib.cat([x, c], 1),
    "constant_pad": lambda lib, x, c: lib.nn.functional.pad(x, (1, 2, 0, 1), value=0.5),
    "zeros_like": lambda lib, x, c: lib.zeros_like(x),
    "ones_like": lambda lib, x, c: lib.ones_like(x, dtype=lib.float64),
    "full_like": lambda lib, x, c: lib.full_like(x, 7.0),
}


@pytest.mark.parametrize("shape,fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_results_keep_channels_last_as_torch(device, shape, fmt, case):
    g, t = _pair(shape, fmt, device)
    gc, tc = g.contiguous(), t.contiguous()
    out_g, out_t = CASES[case](genesis, g, gc), CASES[case](torch, t, tc)
    _same(out_g, out_t)


def test_empty_like_keeps_the_layout(device):
    g, t = _pair((2, 3, 4, 5), "channels_last", device)
    assert genesis.empty_like(g).stride() == torch.empty_like(t).stride()


def test_contiguous_and_row_major_clone_stay_row_major(device):
    g, _ = _pair((2, 3, 4, 5), "channels_last", device)
    c = g.contiguous()
    assert c.is_contiguous() and c.stride() == (60, 20, 5, 1)
    np.testing.assert_array_equal(c.cpu().numpy(), g.cpu().numpy())
    r = g.clone(memory_format=genesis.contiguous_format)
    assert r.is_contiguous() and r.data_ptr() != g.data_ptr()


def test_other_layouts_come_back_row_major(device):
    # genesis keeps only the named channels-last formats (PyTorch keeps any dense permutation)
    x = genesis.randn(3, 4, device=device).t()
    assert (x + 1).is_contiguous() and x.clone().is_contiguous()
    y = genesis.randn(2, 3, 4, 5, device=device).permute(0, 1, 3, 2)
    assert y.exp().is_contiguous()


def test_ones_and_single_pixels_read_as_contiguous(device):
    # a tensor both contiguous and channels-last (one channel) stays contiguous, as in PyTorch
    g, t = _pair((2, 1, 4, 5), "channels_last", device)
    _same(g * 2, t * 2)
    g, t = _pair((2, 3, 1, 1), "channels_last", device)
    _same(g + 1, t + 1)


def test_zero_size_and_in_place(device):
    g, t = _pair((0, 3, 4, 5), "channels_last", device)
    assert (g + 1).shape == (0, 3, 4, 5)
    g, t = _pair((2, 3, 4, 5), "channels_last", device)
    before = g.stride()
    g.mul_(2)
    t.mul_(2)
    assert g.stride() == before
    _same(g, t)


def test_gradients_through_channels_last_ops(device):
    a = RNG.normal(size=(2, 3, 4, 5)).astype(np.float32)
    g = genesis.tensor(a, device=device).contiguous(memory_format=genesis.channels_last)
    g.requires_grad_()
    t = torch.tensor(a).contiguous(memory_format=torch.channels_last).requires_grad_()
    for lib, x in ((genesis, g), (torch, t)):
        y = lib.nn.functional.relu(x * 3.0 + 1.0).exp()
        (y * y).sum().backward()
    np.testing.assert_allclose(g.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-5)


def test_mixed_dtypes_and_broadcast_results(device):
    g, t = _pair((2, 3, 4, 5), "channels_last", device)
    gi = genesis.ones(2, 3, 4, 5, dtype=genesis.int32, device=device).contiguous(
        memory_format=genesis.channels_last
    )
    ti = torch.ones(2, 3, 4, 5, dtype=torch.int32).contiguous(memory_format=torch.channels_last)
    _same(gi + g, ti + t)
    _same(gi * 2, ti * 2)
    # a result larger than every operand has nothing to follow: row-major
    small = genesis.randn(1, 3, 4, 5, device=device).contiguous(memory_format=genesis.channels_last)
    assert (small + genesis.zeros(2, 1, 1, 1, device=device)).is_contiguous()
