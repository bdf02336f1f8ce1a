"""Tensor metadata and view ops (view, reshape, transpose, permute, expand, ...) against NumPy."""

import numpy as np
import pytest
from conftest import assert_equal, assert_same_storage, check_message, make_tensor

import genesis


def base(device, shape=(3, 4, 5), dtype=genesis.float32, seed=0):
    return make_tensor(shape, dtype, device, seed)


def assert_view_of(view, x, expected, a):
    """view has expected's values, shares x's storage, and writes through to x like NumPy."""
    assert_equal(view, expected, x.dtype)
    assert_same_storage(view, x)
    if view.numel():
        view.fill_(-123)
        expected[...] = -123  # expected is a NumPy view of a
        assert_equal(x, a, x.dtype)


# --- metadata ---


def test_metadata_contiguous(device, dtype):
    x, _ = make_tensor((3, 4, 5), dtype, device)
    assert x.shape == (3, 4, 5)
    assert x.size() == (3, 4, 5)
    assert (x.size(0), x.size(1), x.size(-1)) == (3, 4, 5)
    assert x.strides == (20, 5, 1)
    assert x.stride() == (20, 5, 1)
    assert (x.stride(0), x.stride(-2), x.stride(2)) == (20, 5, 1)
    assert x.ndim == x.dim() == 3
    assert x.numel() == 60
    assert x.itemsize == x.element_size() == dtype.itemsize
    assert x.nbytes == 60 * dtype.itemsize
    assert x.is_contiguous()
    assert x.storage_offset() == 0
    assert len(x) == 3


def test_metadata_0d_and_zero_size(device):
    s = genesis.tensor(2.5, device=device)
    assert (s.shape, s.size(), s.stride(), s.ndim, s.numel()) == ((), (), (), 0, 1)
    assert s.is_contiguous()
    z = genesis.zeros(3, 0, 2, device=device)
    assert (z.shape, z.numel(), z.nbytes, len(z)) == ((3, 0, 2), 0, 0, 3)
    assert z.is_contiguous()


def test_zero_size_is_always_contiguous(device):
    # PyTorch and NumPy (flags.c_contiguous) call every zero-size tensor contiguous.
    z = genesis.zeros(3, 0, 2, device=device)
    assert z.transpose(0, 2).is_contiguous()
    assert z[::-1, :, ::2].is_contiguous()


def test_strides_are_in_elements():
    x, a = base("cpu", dtype=genesis.float64)
    v = x[:, ::2, ::-3]
    assert v.stride() == tuple(s // a.itemsize for s in a[:, ::2, ::-3].strides)


@pytest.mark.parametrize(
    "make, contiguous",
    [
        (lambda x: x, True),
        (lambda x: x.transpose(0, 1), False),
        (lambda x: x[:, ::2], False),
        (lambda x: x[1:], True),
        (lambda x: x[:, 1:], False),
        (lambda x: x[1:2], True),  # size-1 dim: its stride does not matter
        (lambda x: x[:, 2:3].transpose(1, 2), False),
        (lambda x: x[0:1, 0:1].transpose(0, 1), True),
        (lambda x: x[:, :1, :].transpose(0, 1), False),
        (lambda x: x[2].unsqueeze(1), True),
        (lambda x: x[:, :, :1], False),
        (lambda x: x.unsqueeze(0).expand(1, 3, 4, 5), True),
        (lambda x: x[:1].expand(3, 4, 5), False),
        (lambda x: x[:, :, ::-1], False),
    ],
)
def test_is_contiguous(make, contiguous):
    x = genesis.zeros(3, 4, 5)
    assert make(x).is_contiguous() is contiguous


def test_is_contiguous_size_one_dims_with_odd_strides():
    x = genesis.zeros(4, 1)
    y = x.t()  # shape (1, 4), strides (1, 1)
    assert y.is_contiguous()
    assert genesis.zeros(5, 4).narrow(0, 2, 1).is_contiguous()


def test_storage_offset_and_data_ptr(device, dtype):
    x, _ = make_tensor((3, 4), dtype, device)
    cases = [(x[1:, 2:], 6), (x[2], 8), (x[:, 3], 3), (x[::-1], 8), (x.narrow(1, 1, 2), 1)]
    for v, offset in cases:
        assert v.storage_offset() == offset
        assert v.data_ptr() == x.data_ptr() + offset * dtype.itemsize


def test_untyped_storage(device, dtype):
    x, _ = make_tensor((3, 4), dtype, device)
    s = x.untyped_storage()
    assert s.nbytes() == 12 * dtype.itemsize
    assert s.device == x.device
    assert s.data_ptr() == x.data_ptr()
    count = s.use_count()
    v = x[1:]
    w = x.t()
    assert s.use_count() == count + 2
    assert v.untyped_storage().data_ptr() == s.data_ptr()
    del v, w
    assert s.use_count() == count


def test_fresh_tensor_storage_has_one_user():
    assert genesis.zeros(4).untyped_storage().use_count() == 1


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4)])
def test_T(device, shape):
    x, a = base(device, shape)
    assert_view_of(x.T, x, a.T if shape else a[...], a)


def test_len_of_0d():
    with pytest.raises(TypeError) as e:
        len(genesis.tensor(1.0))
    check_message(e)


# --- view / reshape ---


@pytest.mark.parametrize(
    "shape", [(60,), (-1,), (3, 20), (-1, 5), (5, -1, 2), (2, 2, 3, 5), (1, 60, 1), ((4, 15),)]
)
def test_view(device, shape):
    x, a = base(device)
    v = x.view(*shape)
    want = shape[0] if isinstance(shape[0], tuple) else shape
    assert v.data_ptr() == x.data_ptr()
    assert_view_of(v, x, a.reshape(want), a)


def test_view_0d_and_zero_size(device):
    s = genesis.tensor(3.0, device=device)
    assert s.view(1).shape == (1,)
    assert s.view(-1).shape == (1,)
    assert s.view(1, 1).view(()).shape == ()
    z = genesis.zeros(0, 4, device=device)
    assert z.view(4, 0, 3).shape == (4, 0, 3)


def test_view_of_transposed_raises(device):
    x, _ = base(device, (4, 6))
    with pytest.raises(RuntimeError) as e:
        x.t().view(24)
    check_message(e, "view")


def test_view_allowed_on_compatible_strides(device):
    x, a = base(device, (4, 6))
    v = x.t().view(2, 3, 4)  # splits the (non-contiguous) first dim only
    assert_view_of(v, x, a.T.reshape(2, 3, 4), a)


@pytest.mark.parametrize("shape", [(7,), (-1, 7), (-1, -1), (3, -2, 20)])
def test_view_bad_shape(shape):
    with pytest.raises(ValueError) as e:
        genesis.zeros(3, 4, 5).view(*shape)
    check_message(e, "view")


@pytest.mark.parametrize("shape", [(60,), (-1, 3), (5, 3, 4), ()])
def test_reshape_contiguous_is_a_view(device, shape):
    x, a = base(device, (3, 4, 5) if shape else (1, 1))
    r = x.reshape(shape)
    assert r.data_ptr() == x.data_ptr()
    assert_view_of(r, x, a.reshape(shape), a)


@pytest.mark.parametrize(
    "key", [None, (slice(None), slice(None, None, 2)), (..., slice(None, None, -1))]
)
def test_reshape_non_viewable_copies(device, dtype, key):
    x, a = make_tensor((3, 4, 5), dtype, device)
    src = x.transpose(0, 2) if key is None else x[key]
    expected = np.array(a.swapaxes(0, 2) if key is None else a[key])
    r = src.reshape(-1)
    assert_equal(r, expected.reshape(-1), dtype)
    assert r.is_contiguous()
    assert r.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    r.fill_(0)
    assert_equal(x, a, dtype)  # the copy is independent


def test_reshape_forms():
    x = genesis.arange(24)
    assert x.reshape(2, 3, 4).shape == (2, 3, 4)
    assert x.reshape((2, 12)).shape == (2, 12)
    assert x.reshape([4, -1]).shape == (4, 6)
    assert x.view_as(genesis.zeros(6, 4)).shape == (6, 4)
    assert x.reshape_as(genesis.zeros(3, 8)).shape == (3, 8)


# --- transpose / permute / t ---


@pytest.mark.parametrize("d0, d1", [(0, 1), (1, 0), (0, 2), (-1, -3), (1, 1), (2, -2)])
def test_transpose(device, d0, d1):
    x, a = base(device)
    assert_view_of(x.transpose(d0, d1), x, np.swapaxes(a, d0, d1), a)


@pytest.mark.parametrize("dims", [(2, 0, 1), (0, 1, 2), (1, 2, 0), (-1, 0, -2)])
def test_permute(device, dims):
    x, a = base(device)
    assert_view_of(x.permute(*dims), x, a.transpose(dims), a)
    y, b = base(device)
    assert_view_of(y.permute(dims), y, b.transpose(dims), b)


@pytest.mark.parametrize("dims", [(0, 1), (0, 0, 1), (0, 1, 3), (0, 1, 2, 3)])
def test_permute_bad_dims(dims):
    with pytest.raises((ValueError, IndexError)) as e:
        genesis.zeros(2, 3, 4).permute(*dims)
    check_message(e, "permute")


@pytest.mark.parametrize("shape", [(), (4,), (3, 4), (1, 5)])
def test_t(device, shape):
    x, a = base(device, shape)
    assert_view_of(x.t(), x, a.T if shape else a[...], a)


def test_t_rejects_3d():
    with pytest.raises(ValueError) as e:
        genesis.zeros(2, 3, 4).t()
    check_message(e, "t")


def test_mT(device):
    x, a = base(device, (2, 3, 4))
    assert_view_of(x.mT, x, np.swapaxes(a, -1, -2), a)


# --- flatten / squeeze / unsqueeze ---


@pytest.mark.parametrize("start, end", [(0, -1), (1, -1), (0, 1), (-2, -1), (1, 1), (2, 2)])
def test_flatten(device, start, end):
    x, a = base(device)
    s, e = start % 3, end % 3
    want = a.shape[:s] + (int(np.prod(a.shape[s : e + 1])),) + a.shape[e + 1 :]
    assert_view_of(x.flatten(start, end), x, a.reshape(want), a)


def test_flatten_0d_and_non_contiguous(device):
    assert genesis.tensor(4.0, device=device).flatten().shape == (1,)
    x, a = base(device)
    assert_equal(x.transpose(0, 2).flatten(), a.transpose(2, 1, 0).reshape(-1))


def test_flatten_start_after_end():
    with pytest.raises(ValueError) as e:
        genesis.zeros(2, 3, 4).flatten(2, 1)
    check_message(e, "flatten")


@pytest.mark.parametrize("dim", [None, 0, 1, 2, -1, -4, (0, 2), (0, 1), (-1, 0), [1, 3]])
def test_squeeze(device, dim):
    x, a = base(device, (1, 3, 1, 4))
    v = x.squeeze() if dim is None else x.squeeze(dim)
    if dim is None:
        want = np.squeeze(a)
    else:
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        dims = tuple(d for d in dims if a.shape[d] == 1)  # torch ignores non-size-1 dims
        want = np.squeeze(a, axis=dims)
    assert_view_of(v, x, want, a)


def test_squeeze_0d():
    assert genesis.tensor(1.0).squeeze().shape == ()
    assert genesis.tensor(1.0).squeeze(0).shape == ()


@pytest.mark.parametrize("dim", [0, 1, 2, 3, -1, -2, -4])
def test_unsqueeze(device, dim):
    x, a = base(device, (2, 5, 3))
    assert_view_of(x.unsqueeze(dim), x, np.expand_dims(a, dim), a)


def test_unsqueeze_0d():
    assert genesis.tensor(1.0).unsqueeze(0).shape == (1,)
    assert genesis.tensor(1.0).unsqueeze(-1).shape == (1,)


# --- expand ---


@pytest.mark.parametrize(
    "shape, sizes, strides",
    [
        ((3, 1), (3, 4), (1, 0)),
        ((3, 1), (-1, 4), (1, 0)),
        ((4,), (2, 3, 4), (0, 0, 1)),
        ((1, 4), (5, -1), (0, 1)),
        ((), (2, 3), (0, 0)),
        ((2, 1, 3), (2, 0, 3), (3, 0, 1)),
        ((3, 4), (3, 4), (4, 1)),
        ((3, 1), (2, 3, 0), (0, 1, 0)),
    ],
)
def test_expand(device, shape, sizes, strides):
    x, a = base(device, shape, dtype=genesis.int32)
    e = x.expand(*sizes)
    want = tuple(a.shape[i - len(sizes) + a.ndim] if s == -1 else s for i, s in enumerate(sizes))
    assert e.shape == want
    assert e.stride() == strides
    assert_same_storage(e, x)
    assert_equal(e, np.broadcast_to(a, want))
    assert_equal(e.contiguous(), np.broadcast_to(a, want))
    assert_equal(x.expand(sizes), np.broadcast_to(a, want))


def test_expand_writes_through(device):
    x, a = base(device, (3, 1))
    x.expand(3, 4)[1, 2].fill_(7.5)
    a[1, 0] = 7.5
    assert_equal(x, a)


def test_expand_as(device):
    x, a = base(device, (1, 4))
    assert_equal(x.expand_as(genesis.zeros(3, 4)), np.broadcast_to(a, (3, 4)))


@pytest.mark.parametrize(
    "shape, sizes", [((3,), (4,)), ((3, 4), (4,)), ((2, 3), (2, 6)), ((3,), (-1, 3)), ((3,), (-2,))]
)
def test_expand_mismatch(shape, sizes):
    with pytest.raises(ValueError) as e:
        genesis.zeros(*shape).expand(*sizes)
    check_message(e, "expand")


# --- narrow / select ---


@pytest.mark.parametrize(
    "dim, start, length", [(0, 1, 2), (1, 0, 4), (2, 3, 2), (-1, -3, 2), (1, 4, 0), (0, 0, 3)]
)
def test_narrow(device, dim, start, length):
    x, a = base(device)
    s = start % a.shape[dim] if start < 0 else start
    want = np.take(a, np.arange(s, s + length), axis=dim)
    v = x.narrow(dim, start, length)
    assert_equal(v, want)
    assert_same_storage(v, x)
    if length:
        v.fill_(-1)
        idx = [slice(None)] * 3
        idx[dim] = slice(s, s + length)
        a[tuple(idx)] = -1
        assert_equal(x, a)


@pytest.mark.parametrize("dim, index", [(0, 2), (1, -1), (-1, 0), (2, 4), (-3, -3)])
def test_select(device, dim, index):
    x, a = base(device)
    assert_view_of(x.select(dim, index), x, np.moveaxis(a, dim, 0)[index], a)


def test_iteration_yields_rows(device):
    x, a = base(device, (3, 2))
    rows = list(x)
    assert len(rows) == 3
    for r, row in zip(rows, a):
        assert_equal(r, row)


# --- dims out of range ---


@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.size(3),
        lambda x: x.size(-4),
        lambda x: x.stride(3),
        lambda x: x.transpose(0, 3),
        lambda x: x.transpose(-4, 0),
        lambda x: x.squeeze(3),
        lambda x: x.unsqueeze(4),
        lambda x: x.unsqueeze(-5),
        lambda x: x.flatten(0, 3),
        lambda x: x.select(3, 0),
        lambda x: x.narrow(-4, 0, 1),
        lambda x: x.permute(0, 1, 3),
        lambda x: genesis.tensor(1.0).size(0),
        lambda x: genesis.tensor(1.0).select(0, 0),
    ],
)
def test_dim_out_of_range(call):
    with pytest.raises(IndexError) as e:
        call(genesis.zeros(2, 3, 4))
    check_message(e)


@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.select(0, 2),
        lambda x: x.select(1, -4),
        lambda x: x.narrow(1, 2, 2),
        lambda x: x.narrow(0, 3, 1),
        lambda x: x.narrow(2, 0, -1),
    ],
)
def test_select_narrow_out_of_range(call):
    with pytest.raises(IndexError) as e:
        call(genesis.zeros(2, 3, 4))
    check_message(e)
