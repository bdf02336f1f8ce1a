"""Shape and rearrangement ops against PyTorch and NumPy: splits, movedim, unflatten, diagonal,
broadcast_to/_tensors, flip, roll, atleast_Nd, hstack/vstack/dstack/column_stack and the
function forms of the view methods. Random data, every dtype for the copies, CPU and CUDA,
0-d, zero-size and non-contiguous inputs; bad input raises an error naming the op.
"""

import numpy as np
import pytest
from conftest import DTYPES, assert_same_storage, dtype_id, make_tensor, to_numpy

import genesis

torch = pytest.importorskip("torch")


def _mk(shape, dtype, device, seed):
    return make_tensor(shape, dtype, device, seed=seed)[0]


def _t(x):
    """The torch tensor of a genesis one (through NumPy; bfloat16 as float32)."""
    return torch.from_numpy(np.ascontiguousarray(to_numpy(x)))


def _same(got, want):
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(to_numpy(got), want.numpy())


def _same_all(got, want):
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        _same(g, w)


SOURCES = {
    "contiguous": lambda d: _mk((4, 5, 6), genesis.float32, d, seed=1),
    "transposed": lambda d: _mk((6, 5, 4), genesis.float32, d, seed=2).permute(2, 1, 0),
    "stepped": lambda d: _mk((8, 5, 12), genesis.float32, d, seed=3)[::2, :, ::-2],
}


# --- splits: views --------------------------------------------------------------------------


@pytest.mark.parametrize("source", list(SOURCES))
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_split_chunk_tensor_split_unbind_match_torch(device, source, dim):
    x = SOURCES[source](device)
    tx = _t(x)
    for size in (1, 2, 3, 7):
        _same_all(genesis.split(x, size, dim), torch.split(tx, size, dim))
        _same_all(x.split(size, dim=dim), tx.split(size, dim=dim))
    n = x.shape[dim]
    for sizes in ([n], [1, n - 1], [0, n, 0]):
        _same_all(genesis.split(x, sizes, dim=dim), torch.split(tx, sizes, dim=dim))
    for chunks in (1, 2, 3, 4, 9):
        _same_all(genesis.chunk(x, chunks, dim), torch.chunk(tx, chunks, dim))
        _same_all(x.tensor_split(chunks, dim), tx.tensor_split(chunks, dim))
    for indices in ([1, 3], [2], [0, 100, 1], [-1, -3], []):
        _same_all(
            genesis.tensor_split(x, indices, dim=dim), torch.tensor_split(tx, indices, dim=dim)
        )
    _same_all(
        x.tensor_split(genesis.tensor([1, 3]), dim), tx.tensor_split(torch.tensor([1, 3]), dim)
    )
    _same_all(x.tensor_split(genesis.tensor(2), dim), tx.tensor_split(torch.tensor(2), dim))
    _same_all(genesis.unbind(x, dim), torch.unbind(tx, dim))
    for piece in x.split(2, dim) + x.chunk(2, dim) + x.unbind(dim):
        assert_same_storage(piece, x)


def test_splits_of_zero_size_dims(device):
    x = genesis.zeros(0, 3, device=device)
    tx = torch.zeros(0, 3)
    _same_all(x.split(2), tx.split(2))
    _same_all(x.split(0), tx.split(0))
    _same_all(x.chunk(3), tx.chunk(3))
    _same_all(x.tensor_split(3), tx.tensor_split(3))
    assert x.unbind(0) == ()
    _same_all(x.unbind(1), tx.unbind(1))


@pytest.mark.parametrize(
    "call, exc, op",
    [
        (lambda x: x.split(0), ValueError, "split"),
        (lambda x: x.split(-1), ValueError, "split"),
        (lambda x: x.split([2, 2]), ValueError, "split"),
        (lambda x: x.split([6, -1]), ValueError, "split"),
        (lambda x: x.split([2**62, 2**62, 2**62]), ValueError, "split"),
        (lambda x: x.split(2, dim=3), IndexError, "split"),
        (lambda x: genesis.tensor(1).split(1), IndexError, "split"),
        (lambda x: x.chunk(0), ValueError, "chunk"),
        (lambda x: x.tensor_split(0), ValueError, "tensor_split"),
        (lambda x: x.tensor_split(genesis.tensor([1.0])), TypeError, "tensor_split"),
        (lambda x: x.unbind(2), IndexError, "unbind"),
        (lambda x: x.split("a"), TypeError, "split"),
    ],
)
def test_split_errors(call, exc, op):
    x = genesis.zeros(5, 2)
    with pytest.raises(exc, match=rf"^\[{op}\]"):
        call(x)


# --- views that move or split dims ------------------------------------------------------------


@pytest.mark.parametrize("source", list(SOURCES))
def test_movedim_swapaxes_unflatten_diagonal_match_torch(device, source):
    x = SOURCES[source](device)
    tx = _t(x)
    for src, dst in ((0, 2), (-1, 0), ((0, 1), (2, 0)), ([2, 0], [0, 1]), ((), ())):
        for fn in (genesis.movedim, genesis.moveaxis):
            got = fn(x, src, dst)
            _same(got, torch.movedim(tx, src, dst))
            assert_same_storage(got, x)
        _same(x.movedim(src, dst), tx.movedim(src, dst))
    _same(x.swapaxes(0, 2), tx.swapaxes(0, 2))
    _same(genesis.swapdims(x, -1, 1), torch.swapdims(tx, -1, 1))
    _same(genesis.transpose(x, 0, 1), torch.transpose(tx, 0, 1))
    if source == "contiguous":
        _same(x.unflatten(2, (2, 3)), tx.unflatten(2, (2, 3)))
        _same(genesis.unflatten(x, -1, (3, -1)), torch.unflatten(tx, -1, (3, -1)))
        _same(x.unflatten(0, (4,)), tx.unflatten(0, (4,)))
    for offset in (0, 1, 3, 6, 7, -1, -3, -4, -5, 2**62, -(2**62)):
        for d1, d2 in ((0, 1), (1, 0), (0, 2), (2, -2)):
            got = x.diagonal(offset, d1, d2)
            want = tx.diagonal(max(min(offset, 100), -100), d1, d2)
            _same(got, want)
            assert_same_storage(got, x)
    _same(genesis.diagonal(x, offset=1, dim1=1, dim2=2), torch.diagonal(tx, 1, 1, 2))


def test_view_errors():
    x = genesis.zeros(2, 3, 4)
    cases = [
        (lambda: x.movedim((0, 0), (1, 2)), ValueError, "movedim"),
        (lambda: x.movedim((0, 1), (2, 2)), ValueError, "movedim"),
        (lambda: x.movedim((0, 1), (2,)), ValueError, "movedim"),
        (lambda: x.movedim(3, 0), IndexError, "movedim"),
        (lambda: x.unflatten(1, (2, 2)), ValueError, "unflatten"),
        (lambda: x.unflatten(1, ()), ValueError, "unflatten"),
        (lambda: x.unflatten(1, (-1, -1)), ValueError, "unflatten"),
        (lambda: x.diagonal(0, 1, 1), ValueError, "diagonal"),
        (lambda: genesis.zeros(3).diagonal(), ValueError, "diagonal"),
        (lambda: x.broadcast_to((3, 3, 4)), ValueError, "expand"),
        (lambda: genesis.broadcast_tensors(genesis.zeros(2), genesis.zeros(3)), ValueError, ""),
    ]
    for call, exc, op in cases:
        with pytest.raises(exc, match=rf"^\[{op}"):
            call()


def test_broadcast_to_and_broadcast_tensors(device):
    a = _mk((3, 1), genesis.float32, device, seed=4)
    b = _mk((4,), genesis.float32, device, seed=5)
    _same(a.broadcast_to((2, 3, 4)), _t(a).broadcast_to((2, 3, 4)))
    _same(genesis.broadcast_to(b, (3, -1)), torch.broadcast_to(_t(b), (3, -1)))
    _same_all(genesis.broadcast_tensors(a, b), torch.broadcast_tensors(_t(a), _t(b)))
    (only,) = genesis.broadcast_tensors(a)
    assert only.shape == (3, 1)
    s = genesis.tensor(2.0, device=device)
    got = genesis.broadcast_tensors(s, a)
    assert got[0].shape == got[1].shape == (3, 1)


# --- copies that rearrange --------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_flip_and_roll_every_dtype(device, dtype):
    x = _mk((3, 4, 5), dtype, device, seed=6)
    a = to_numpy(x)
    for dims in ((0,), (2,), (0, 2), (-1, 0, 1), ()):
        got = genesis.flip(x, dims)
        assert got.dtype == dtype and got.is_contiguous()
        np.testing.assert_array_equal(to_numpy(got), np.flip(a, dims) if dims else a)
    np.testing.assert_array_equal(to_numpy(x.flip(0, 1)), a[::-1, ::-1])
    np.testing.assert_array_equal(to_numpy(x.fliplr()), np.fliplr(a))
    np.testing.assert_array_equal(to_numpy(genesis.flipud(x)), np.flipud(a))
    for shifts, dims in (
        (1, 0),
        (-2, 2),
        ((1, -1), (0, 1)),
        (7, None),
        (-13, None),
        (4, 1),
        (2**62, 2),
    ):
        got = genesis.roll(x, shifts, dims)
        np.testing.assert_array_equal(to_numpy(got), np.roll(a, shifts, dims))
        np.testing.assert_array_equal(to_numpy(x.roll(shifts, dims)), np.roll(a, shifts, dims))


def test_flip_and_roll_edges(device):
    s = genesis.tensor(3.5, device=device)
    assert genesis.flip(s, ()).item() == 3.5 and genesis.flip(s, 0).item() == 3.5
    assert genesis.roll(s, 3).item() == 3.5
    e = genesis.zeros(0, 3, device=device)
    assert genesis.flip(e, (0, 1)).shape == (0, 3)
    assert genesis.roll(e, 2, 0).shape == (0, 3) and genesis.roll(e, 1).shape == (0, 3)
    x = _mk((6, 4), genesis.float64, device, seed=7)[::2, ::-1]  # stepped, negative
    a = to_numpy(x)
    np.testing.assert_array_equal(to_numpy(x.flip(1)), a[:, ::-1])
    np.testing.assert_array_equal(to_numpy(x.roll((1, 2), (0, 1))), np.roll(a, (1, 2), (0, 1)))
    y = genesis.arange(4.0, device=device)
    z = y.flip(0)
    z[0] = 100.0  # a copy: the input is unchanged
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_flip_and_roll_errors():
    x = genesis.zeros(2, 3)
    cases = [
        (lambda: x.flip(0, 0), ValueError, "flip"),
        (lambda: x.flip(2), IndexError, "flip"),
        (lambda: genesis.zeros(3).fliplr(), ValueError, "fliplr"),
        (lambda: genesis.tensor(1.0).flipud(), ValueError, "flipud"),
        (lambda: x.roll((1, 2), (0,)), ValueError, "roll"),
        (lambda: x.roll((1, 2)), ValueError, "roll"),
        (lambda: x.roll((), ()), ValueError, "roll"),
        (lambda: x.roll(1, 5), IndexError, "roll"),
    ]
    for call, exc, op in cases:
        with pytest.raises(exc, match=rf"^\[{op}\]"):
            call()


# --- at-least-N-d views and the stacks ---------------------------------------------------------


def test_atleast_nd_match_torch(device):
    shapes = [(), (3,), (2, 3), (2, 3, 4), (0,), (2, 0, 1, 5)]
    tensors = [_mk(s, genesis.int32, device, seed=i) for i, s in enumerate(shapes)]
    for g, t in (
        (genesis.atleast_1d, torch.atleast_1d),
        (genesis.atleast_2d, torch.atleast_2d),
        (genesis.atleast_3d, torch.atleast_3d),
    ):
        for x in tensors:
            got = g(x)
            _same(got, t(_t(x)))
            assert_same_storage(got, x)
        _same_all(g(*tensors), t(*[_t(x) for x in tensors]))
        _same_all(g(tensors), t([_t(x) for x in tensors]))


@pytest.mark.parametrize(
    "shapes",
    [[(3,), (2,)], [(2, 3), (2, 1)], [(), (2,)], [(2, 3, 1), (2, 1, 1)], [(0,), (3,)], [(4, 2)]],
    ids=str,
)
def test_hstack(device, shapes):
    xs = [_mk(s, genesis.float32, device, seed=i) for i, s in enumerate(shapes)]
    _same(genesis.hstack(xs), torch.hstack([_t(x) for x in xs]))


@pytest.mark.parametrize(
    "shapes", [[(3,), (3,)], [(2, 3), (3,)], [(), ()], [(1, 2, 3), (4, 2, 3)]], ids=str
)
def test_vstack_dstack_column_stack(device, shapes):
    xs = [_mk(s, genesis.float64, device, seed=i) for i, s in enumerate(shapes)]
    ts = [_t(x) for x in xs]
    _same(genesis.vstack(xs), torch.vstack(ts))
    if all(x.shape == xs[0].shape for x in xs):
        _same(genesis.dstack(xs), torch.dstack(ts))
    if all(x.ndim <= 2 for x in xs) and len({x.shape[0] if x.ndim else 1 for x in xs}) == 1:
        _same(genesis.column_stack(xs), torch.column_stack(ts))


def test_stacks_promote_and_refuse():
    got = genesis.hstack([genesis.tensor([1, 2]), genesis.tensor([0.5])])
    assert got.dtype == genesis.float32 and got.tolist() == [1.0, 2.0, 0.5]
    with pytest.raises(RuntimeError, match=r"^\[vstack\]"):
        genesis.vstack([genesis.zeros(2), genesis.zeros(3)])
    with pytest.raises(RuntimeError, match=r"^\[hstack\] expected a non-empty"):
        genesis.hstack([])
    with pytest.raises(TypeError, match=r"^\[dstack\] expected a sequence of tensors"):
        genesis.dstack(genesis.zeros(2))
    with pytest.raises(TypeError, match=r"^\[column_stack\]"):
        genesis.column_stack([genesis.zeros(2), 3])


# --- function forms of the view methods -------------------------------------------------------


def test_function_forms_of_view_methods(device):
    x = _mk((2, 3, 4), genesis.float32, device, seed=8)
    tx = _t(x)
    _same(genesis.reshape(x, (4, -1)), torch.reshape(tx, (4, -1)))
    _same(genesis.permute(x, (2, 0, 1)), torch.permute(tx, (2, 0, 1)))
    _same(genesis.squeeze(x[:, :1]), torch.squeeze(tx[:, :1]))
    _same(genesis.squeeze(x[:, :1], 1), torch.squeeze(tx[:, :1], 1))
    _same(genesis.squeeze(x[:1, :1], (0, 1)), torch.squeeze(tx[:1, :1], (0, 1)))
    _same(genesis.unsqueeze(x, -1), torch.unsqueeze(tx, -1))
    _same(genesis.flatten(x, 1), torch.flatten(tx, 1))
    _same(genesis.flatten(x, start_dim=0, end_dim=1), torch.flatten(tx, 0, 1))
    _same(genesis.narrow(x, 2, 1, 2), torch.narrow(tx, 2, 1, 2))
    _same(genesis.select(x, 1, -1), torch.select(tx, 1, -1))
    _same(genesis.t(x[0]), torch.t(tx[0]))
    _same(genesis.transpose(x, 0, 2), torch.transpose(tx, 0, 2))
    for view in (genesis.reshape(x, (24,)), genesis.permute(x, (1, 0, 2)), genesis.t(x[0])):
        assert_same_storage(view, x)


# --- triangles, diagonals, repeats and grids ---------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_tril_triu_diag_repeat_every_dtype(device, dtype):
    x = _mk((2, 4, 5), dtype, device, seed=9)
    a = to_numpy(x)
    for k in (0, 1, -1, 3, -3, 10, -10, 2**62, -(2**62)):
        kk = max(min(k, 100), -100)
        for got in (x.tril(k), genesis.tril(x, diagonal=k)):
            assert got.dtype == dtype
            np.testing.assert_array_equal(to_numpy(got), np.tril(a, kk))
        np.testing.assert_array_equal(to_numpy(genesis.triu(x, k)), np.triu(a, kk))
    y = x.clone()
    assert y.tril_(1) is y  # in place, returning itself as PyTorch's
    np.testing.assert_array_equal(to_numpy(y), np.tril(a, 1))
    y = x.clone()
    assert y.triu_(-2) is y
    np.testing.assert_array_equal(to_numpy(y), np.triu(a, -2))
    v = x[0, 0]
    for k in (0, 2, -1):
        np.testing.assert_array_equal(to_numpy(genesis.diag(v, k)), np.diag(to_numpy(v), k))
        np.testing.assert_array_equal(to_numpy(x[1].diag(k)), np.diag(a[1], k))
    for sizes in ((2, 1, 1), (1, 2, 3), (3, 1, 2, 1), (2, 0, 1)):
        np.testing.assert_array_equal(to_numpy(x.repeat(*sizes)), np.tile(a, sizes))
    np.testing.assert_array_equal(to_numpy(genesis.tile(x, (2,))), np.tile(a, (2,)))
    for r, dim in ((2, None), (3, 0), (1, -1), (0, 1)):
        np.testing.assert_array_equal(
            to_numpy(x.repeat_interleave(r, dim=dim)), np.repeat(a, r, axis=dim)
        )


def test_triangles_and_repeats_against_torch(device):
    x = _mk((3, 6, 4), genesis.float32, device, seed=10)[:, ::2, ::-1]  # non-contiguous
    tx = _t(x)
    _same(x.tril(1), tx.tril(1))
    _same(x.triu(-1), tx.triu(-1))
    _same(x.repeat(2, 1, 1, 2), tx.repeat(2, 1, 1, 2))
    _same(x.repeat_interleave(2, 1), tx.repeat_interleave(2, 1))
    _same(x.repeat_interleave(genesis.tensor(2)), tx.repeat_interleave(torch.tensor(2)))
    for offset, d1, d2 in ((0, -2, -1), (1, 0, 2), (-2, 3, 1)):
        _same(x.diag_embed(offset, d1, d2), tx.diag_embed(offset, d1, d2))
    for rows, cols, offset in (
        (3, 3, 0),
        (4, 2, 1),
        (2, 5, -1),
        (0, 3, 0),
        (3, 3, -10),
        (3, 3, 10),
    ):
        for g, t in (
            (genesis.tril_indices, torch.tril_indices),
            (genesis.triu_indices, torch.triu_indices),
        ):
            got = g(rows, cols, offset, device=device)
            _same(got, t(rows, cols, offset))
            assert got.device.type == device and got.dtype == genesis.int64
    assert genesis.tril_indices(3, 3, dtype=genesis.int32).dtype == genesis.int32
    a, b = genesis.arange(3, device=device), genesis.arange(4.0, device=device)[::-1]
    b = b.to(genesis.int64)
    for indexing in ("ij", "xy"):
        got = genesis.meshgrid(a, b, a, indexing=indexing)
        want = torch.meshgrid(_t(a), _t(b), _t(a), indexing=indexing)
        _same_all(got, want)
        assert_same_storage(got[0], a)
    _same_all(genesis.meshgrid([a, b]), torch.meshgrid([_t(a), _t(b)], indexing="ij"))
    got = genesis.expand_copy(genesis.tensor([1, 2], device=device), (3, 2))
    assert got.is_contiguous() and got.tolist() == [[1, 2]] * 3


def test_triangles_and_repeats_edges(device):
    e = genesis.zeros(0, 3, device=device)
    assert e.tril().shape == (0, 3) and e.repeat(2, 2).shape == (0, 6)
    assert e.repeat_interleave(3).shape == (0,)
    assert genesis.tensor(5, device=device).repeat_interleave(3).tolist() == [5, 5, 5]
    assert genesis.tensor(5, device=device).repeat(2).tolist() == [5, 5]
    b = genesis.ones(2, 2, dtype=genesis.bool, device=device)
    assert b.tril().tolist() == [[True, False], [True, True]] and b.tril().dtype == genesis.bool
    assert genesis.diag(genesis.zeros(0, device=device)).shape == (0, 0)


def test_triangles_and_repeats_errors():
    x = genesis.zeros(2, 3)
    cases = [
        (lambda: genesis.zeros(3).tril(), ValueError, "tril"),
        (lambda: genesis.zeros(3).triu_(), ValueError, "triu_"),
        (lambda: genesis.tril_indices(-1, 3), ValueError, "tril_indices"),
        (lambda: genesis.triu_indices(3, 3, dtype=genesis.float32), TypeError, "triu_indices"),
        (lambda: genesis.zeros(2, 2, 2).diag(), ValueError, "diag"),
        (lambda: genesis.tensor(1.0).diag_embed(), ValueError, "diag_embed"),
        (lambda: x.diag_embed(0, 1, 1), ValueError, "diag_embed"),
        (lambda: x.repeat(2), ValueError, "repeat"),
        (lambda: x.repeat(2, -1), ValueError, "repeat"),
        (lambda: x.repeat(2**40, 2**40), ValueError, "repeat"),
        (lambda: x.repeat_interleave(-1), ValueError, "repeat_interleave"),
        (lambda: x.repeat_interleave(2, dim=2), IndexError, "repeat_interleave"),
        (
            lambda: x.repeat_interleave(genesis.tensor([1, 2])),
            RuntimeError,
            "repeat_interleave",
        ),
        (lambda: genesis.meshgrid(x), ValueError, "meshgrid"),
        (lambda: genesis.meshgrid(genesis.zeros(2), indexing="yx"), ValueError, "meshgrid"),
        (
            lambda: genesis.meshgrid(genesis.zeros(2), genesis.zeros(2, dtype=genesis.int32)),
            RuntimeError,
            "meshgrid",
        ),
    ]
    for call, exc, op in cases:
        with pytest.raises(exc, match=rf"^\[{op}\]"):
            call()


@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4, 6])
def test_rot90_matches_torch(device, k):
    torch = pytest.importorskip("torch")
    a = np.arange(24).reshape(2, 3, 4)
    x, t = genesis.tensor(a, device=device), torch.from_numpy(a)
    for dims in [(0, 1), (1, 2), (2, 0), (-1, -2)]:
        got = genesis.rot90(x, k, dims)
        want = torch.rot90(t, k, dims)
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
        assert got.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(x[:, ::-1].rot90(k).cpu().numpy(), t.flip(1).rot90(k).numpy())
    for bad in [(0,), (0, 0), (0, 3)]:
        with pytest.raises((RuntimeError, IndexError)) as e:
            x.rot90(k, bad)
        assert str(e.value).startswith("[rot90]")
    with pytest.raises(RuntimeError, match=r"^\[rot90\]"):
        genesis.rot90(genesis.zeros(3, device=device))


def test_unfold_matches_torch(device):
    torch = pytest.importorskip("torch")
    a = np.arange(60.0).reshape(3, 4, 5)
    x, t = genesis.tensor(a, device=device), torch.from_numpy(a)
    for dim, size, step in [(0, 2, 1), (1, 3, 2), (-1, 5, 1), (2, 1, 3), (1, 0, 1), (2, 4, 7)]:
        got, want = x.unfold(dim, size, step), t.unfold(dim, size, step)
        assert got.shape == tuple(want.shape) and got.stride() == want.stride()
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
    y = x[:, ::-2]  # negative strides
    np.testing.assert_array_equal(
        y.unfold(1, 2, 1).cpu().numpy(), t.flip(1)[:, ::2].unfold(1, 2, 1).numpy()
    )
    view = x.unfold(2, 2, 2)
    view[0, 0, 0, 0] = -1.0  # shares memory
    assert x[0, 0, 0].item() == -1.0
    s = genesis.tensor(3.0, device=device)
    assert s.unfold(0, 1, 1).shape == tuple(torch.tensor(3.0).unfold(0, 1, 1).shape)
    with pytest.raises(RuntimeError, match=r"^\[unfold\]"):
        x.unfold(0, 4, 1)
    with pytest.raises(ValueError, match=r"^\[unfold\]"):
        x.unfold(0, 2, 0)
    with pytest.raises(IndexError, match=r"^\[unfold\]"):
        x.unfold(3, 1, 1)


@pytest.mark.parametrize("dtype", [genesis.bool, genesis.int32, genesis.float16, genesis.float64])
def test_repeat_interleave_with_a_tensor_of_repeats(device, dtype):
    """One repeat per item along dim (or over the flattened input), int32 or int64, zeros
    allowed; a one-item tensor repeats every item; against torch, non-contiguous input too."""
    x = _mk((3, 4, 5), dtype, device, seed=11)[:, ::-1, 1::2]  # (3, 4, 2), non-contiguous
    tx = _t(x)
    rng = np.random.default_rng(12)
    for dim in (0, 1, -1, None):
        n = x.numel() if dim is None else x.shape[dim]
        r = rng.integers(0, 4, n)
        for rdt, tdt in ((genesis.int64, torch.int64), (genesis.int32, torch.int32)):
            got = x.repeat_interleave(genesis.tensor(r, dtype=rdt, device=device), dim=dim)
            want = tx.repeat_interleave(torch.tensor(r, dtype=tdt), dim=dim)
            _same(got, want)
    _same(
        genesis.repeat_interleave(x, genesis.tensor([2], device=device), dim=1),
        torch.repeat_interleave(tx, torch.tensor([2]), dim=1),
    )
    zero = genesis.repeat_interleave(x, genesis.zeros(3, dtype=genesis.int64, device=device), 0)
    assert zero.shape == (0, 4, 2)
    empty = genesis.zeros(0, 2, dtype=dtype, device=device)
    assert empty.repeat_interleave(
        genesis.zeros(0, dtype=genesis.int64, device=device), 0
    ).shape == (0, 2)


def test_repeat_interleave_tensor_errors():
    x = genesis.zeros(2, 3)
    cases = [
        (lambda: x.repeat_interleave(genesis.tensor([1, -2]), dim=0), ValueError, "negative"),
        (lambda: x.repeat_interleave(genesis.tensor([1, 2, 3]), dim=0), RuntimeError, "same size"),
        (lambda: x.repeat_interleave(genesis.tensor([[1, 2]]), dim=0), RuntimeError, "1-dim"),
        (
            lambda: x.repeat_interleave(genesis.tensor([1.0, 2.0]), dim=0),
            TypeError,
            "int32 or int64",
        ),
    ]
    for call, kind, text in cases:
        with pytest.raises(kind, match=r"\[repeat_interleave\].*" + text):
            call()
