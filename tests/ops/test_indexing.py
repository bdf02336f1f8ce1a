"""Basic indexing: x[key] and x[key] = value with ints, slices, None, Ellipsis and bools.

NumPy is the reference for every key; getitem results must be views (VIEW plans) that share
and write through to the base tensor.
"""

import numpy as np
import pytest
from conftest import (
    NP_DTYPE,
    assert_equal,
    assert_same_storage,
    check_message,
    make_tensor,
    raises_index_error,
    random_array,
    round_to_bfloat16,
)

import genesis

S = slice
ALL = slice(None)
KEYS = [
    0,
    -1,
    3,
    (1, 2),
    (-1, -2, -3),
    (0, 0, 0),
    ALL,
    S(1, 3),
    S(None, None, 2),
    S(None, None, -1),
    S(3, 0, -2),
    S(-2, None),
    S(10, 20),
    S(-100, 100),
    S(None, None, -3),
    S(0, 0),
    S(4, None, -1),
    S(None, -10, -1),
    (ALL, 2),
    (ALL, ALL, S(5, None, -4)),
    (ALL, S(None, None, -2), S(1, None, 2)),
    (1, S(None, None, -2), -1),
    (S(None, None, -1), S(None, None, -1), S(None, None, -1)),
    Ellipsis,
    (Ellipsis,),
    (Ellipsis, 1),
    (1, Ellipsis),
    (Ellipsis, S(None, None, -2)),
    (0, Ellipsis, 0),
    (),
    None,
    (None,),
    (None, 1, None),
    (Ellipsis, None),
    (None, Ellipsis, None),
    (S(None, None, -1), None, Ellipsis, S(1, None, 2)),
    (ALL, None, ALL, None),
    True,
    False,
    (True, 1),
    (0, True),
    (ALL, True),
    (ALL, False, S(1, 3)),
    (Ellipsis, True),
    (None, True, 2),
]


def key_id(key):
    return repr(key).replace("slice", "s").replace("None", "N").replace("Ellipsis", "...")


def base(device, dtype=genesis.float32, shape=(4, 5, 6), seed=0):
    return make_tensor(shape, dtype, device, seed)


@pytest.mark.parametrize("key", KEYS, ids=key_id)
def test_getitem_matches_numpy_and_is_a_view(device, key):
    x, a = base(device)
    v = x[key]
    expected = a[key]
    assert_equal(v, expected)
    assert x._index_plan(key).kind == genesis.IndexKind.VIEW
    assert_same_storage(v, x)
    if v.numel():
        v.fill_(-7.0)
        a[key] = -7.0
        assert_equal(x, a)


def test_getitem_every_dtype(device, dtype):
    x, a = base(device, dtype)
    for key in [(1, S(None, None, -2)), (Ellipsis, 2), (S(None, None, -1), None, 0)]:
        assert_equal(x[key], a[key], dtype)


@pytest.mark.parametrize(
    "key", [(), Ellipsis, None, (None, None), True, False, (Ellipsis, None)], ids=key_id
)
def test_getitem_0d(device, key):
    x, a = base(device, shape=())
    assert_equal(x[key], a[key])


@pytest.mark.parametrize(
    "key",
    [(ALL, ALL, 1), S(1, None), S(None, None, -1), (Ellipsis, S(2, 0, -1)), 0, (None, ALL)],
    ids=key_id,
)
def test_getitem_zero_size(device, key):
    x, a = base(device, shape=(3, 0, 4))
    assert_equal(x[key], a[key])


@pytest.mark.parametrize(
    "make, make_np",
    [
        (lambda x: x.transpose(0, 2), lambda a: a.swapaxes(0, 2)),
        (lambda x: x[::-1, 1::2], lambda a: a[::-1, 1::2]),
        (
            lambda x: x[:, None].expand(4, 3, 5, 6),
            lambda a: np.broadcast_to(a[:, None], (4, 3, 5, 6)),
        ),
    ],
)
@pytest.mark.parametrize(
    "key",
    [(1, S(None, None, -2)), (S(None, None, -1), Ellipsis, 0), (ALL, 1), (None, -1)],
    ids=key_id,
)
def test_getitem_on_strided_and_expanded(device, make, make_np, key):
    x, a = base(device)
    src, ref = make(x), make_np(a)
    v = src[key]
    assert_equal(v, ref[key])
    assert_same_storage(v, x)


def test_getitem_chained_views_write_through(device):
    x, a = base(device, genesis.int32, shape=(6, 8))
    v = x[::-1][1:5:2][:, ::-3]
    v.fill_(11)
    a[::-1][1:5:2][:, ::-3] = 11
    assert_equal(x, a)


def test_getitem_numpy_integer_index(device):
    x, a = base(device)
    assert_equal(x[np.int64(2), np.int32(-1)], a[2, -1])


def test_getitem_python_bool_separated_by_slice_follows_numpy(device):
    # NumPy places a 0-d boolean index (an advanced index) first when a slice separates it
    # from the integer index: a[0, :, True] has shape (1, 5, 6).
    x, a = base(device)
    key = (0, ALL, True)
    assert_equal(x[key], a[key])


# --- setitem ---


@pytest.mark.parametrize("key", KEYS, ids=key_id)
def test_setitem_scalar_fills(device, key):
    x, a = base(device)
    assert x._index_plan(key, 2.5).kind == genesis.IndexKind.FILL
    x[key] = 2.5
    a[key] = 2.5
    assert_equal(x, a)


def fill_value(dtype):
    return {genesis.bool: True, genesis.uint8: 250, genesis.int8: -100}.get(
        dtype, -3.5 if dtype.is_floating_point else -30000
    )


def test_setitem_scalar_every_dtype(device, dtype):
    x, a = base(device, dtype)
    value = fill_value(dtype)
    x[1:, ::-2, 3] = value
    a[1:, ::-2, 3] = value
    assert_equal(x, a, dtype)


@pytest.mark.parametrize("value", [7, 2.75, True, np.float64(-1.5), np.int16(9)])
def test_setitem_scalar_casts(device, value):
    x, a = base(device, genesis.int32)
    x[0] = value
    a[0] = value
    assert_equal(x, a)


@pytest.mark.parametrize(
    "key, value_shape",
    [
        (ALL, (4, 5, 6)),
        (ALL, (6,)),
        (ALL, (5, 1)),
        (ALL, (1, 1, 6)),
        (0, (5, 6)),
        (0, (1, 5, 6)),
        ((S(None, None, -1), 2), (4, 6)),
        ((S(1, 3), S(None, None, -2)), (1, 6)),
        ((Ellipsis, S(None, None, 3)), (2,)),
        ((1, 2, 3), ()),
        ((None, 1), (5, 6)),
        ((S(None, None, -1), None), (4, 1, 5, 6)),
        (S(2, 2), (0, 5, 6)),
        (S(2, 2), (6,)),
    ],
    ids=key_id,
)
@pytest.mark.parametrize("kind", ["tensor", "numpy", "list"])
def test_setitem_copies_with_broadcast(device, key, value_shape, kind):
    x, a = base(device)
    v = random_array(value_shape, genesis.float32, seed=9)
    if kind == "list" and 0 in value_shape:
        pytest.skip("a nested list cannot hold the shape of zero-size data")
    value = {"tensor": genesis.tensor(v, device=device), "numpy": v, "list": v.tolist()}[kind]
    if kind != "list" or value_shape:
        assert x._index_plan(key, value).kind == genesis.IndexKind.COPY
    x[key] = value
    a[key] = v
    assert_equal(x, a)


def test_setitem_strided_tensor_value(device):
    x, a = base(device)
    src, s = base(device, shape=(6, 5), seed=3)
    x[1, ::-1] = src.t()
    a[1, ::-1] = s.T
    assert_equal(x, a)
    x[:, 0, :] = src[:4, 2:3]
    a[:, 0, :] = s[:4, 2:3]
    assert_equal(x, a)
    x[::-2, 1] = src[0, :1].expand(2, 6)
    a[::-2, 1] = np.broadcast_to(s[0, :1], (2, 6))
    assert_equal(x, a)


@pytest.mark.parametrize(
    "value_dtype", [genesis.float64, genesis.int64, genesis.bool, genesis.float16]
)
def test_setitem_casts_value(device, dtype, value_dtype):
    x, a = base(device, dtype)
    v = random_array((5, 6), value_dtype, seed=4, low=0, high=100)
    x[2] = genesis.tensor(v, dtype=value_dtype, device=device)
    a[2] = round_to_bfloat16(v) if dtype is genesis.bfloat16 else v.astype(NP_DTYPE[dtype])
    assert_equal(x, a, dtype)


def test_setitem_0d(device):
    x, a = base(device, shape=())
    x[()] = 4.5
    assert x.item() == 4.5
    x[...] = genesis.tensor(-1.25)
    assert x.item() == -1.25
    x[None] = [2.0]
    assert x.item() == 2.0
    del a


def test_setitem_bad_shape(device):
    x, _ = base(device)
    with pytest.raises(ValueError) as e:
        x[0] = genesis.zeros(4, device=device)
    check_message(e)
    with pytest.raises(ValueError):
        x[:, 1] = np.zeros((4, 5))


# --- errors ---


@pytest.mark.parametrize(
    "key",
    [4, -5, (0, 5), (0, 0, 6), (0, -6), (Ellipsis, 6), (None, 4), (True, 4)],
    ids=key_id,
)
def test_index_out_of_range(device, key):
    x, _ = base(device)
    with raises_index_error() as e:
        x[key]
    check_message(e, "index")
    with raises_index_error():
        x[key] = 1.0


@pytest.mark.parametrize(
    "key",
    [(0, 0, 0, 0), (ALL, ALL, ALL, 0), (0, Ellipsis, 0, 0, 0), (Ellipsis, Ellipsis)],
    ids=key_id,
)
def test_too_many_indices(device, key):
    x, _ = base(device)
    with raises_index_error() as e:
        x[key]
    check_message(e, "index")


def test_index_0d_tensor_with_int():
    with raises_index_error() as e:
        genesis.tensor(1.0)[0]
    check_message(e)


@pytest.mark.parametrize("key", [1.0, (0, 1.5), "a", (Ellipsis, 2.0)], ids=key_id)
def test_non_integer_index(device, key):
    x, _ = base(device)
    with raises_index_error() as e:
        x[key]
    check_message(e)


@pytest.mark.parametrize("key", [S(0.5, 2), S(None, None, 1.0), (0, S(1, 2.0))], ids=key_id)
def test_non_integer_slice_bounds(device, key):
    x, _ = base(device)
    with pytest.raises(TypeError) as e:
        x[key]
    check_message(e)


def test_slice_step_zero(device):
    x, _ = base(device)
    with pytest.raises(ValueError) as e:
        x[::0]
    check_message(e)


# --- random basic keys against NumPy ---


def random_key(rng, ndim):
    """A random basic key: ints, slices (any bounds and step), None and at most one Ellipsis."""
    items, consumed, has_ellipsis = [], 0, False
    for _ in range(rng.integers(0, ndim + 3)):
        r = rng.random()
        if r < 0.1:
            items.append(None)
        elif r < 0.2 and not has_ellipsis:
            items.append(Ellipsis)
            has_ellipsis = True
        elif consumed < ndim and r < 0.45:
            items.append(int(rng.integers(-3, 3)))
            consumed += 1
        elif consumed < ndim:
            bound = lambda: None if rng.random() < 0.3 else int(rng.integers(-8, 9))  # noqa: E731
            step = None if rng.random() < 0.3 else int(rng.choice([-3, -2, -1, 1, 2, 3]))
            items.append(S(bound(), bound(), step))
            consumed += 1
    return tuple(items)


@pytest.mark.parametrize("seed", range(20))
def test_random_keys_match_numpy(device, seed):
    rng = np.random.default_rng(seed)
    for i in range(25):
        shape = tuple(int(n) for n in rng.integers(3, 6, size=rng.integers(1, 5)))
        x, a = make_tensor(shape, genesis.int32, device, seed=seed * 100 + i)
        key = random_key(rng, len(shape))
        v = x[key]
        assert_equal(v, a[key])
        assert_same_storage(v, x)
        x[key] = -1
        a[key] = -1
        assert_equal(x, a)


# --- advanced paths: mask compaction and single-index scatter (kernels/index.cu) ---

# Lengths around the CUDA kernels' vector widths (4 and 16 elements), tiles (4096) and count
# groups (8 tiles).
EDGE_LENGTHS = [1, 3, 4, 5, 15, 16, 17, 255, 4095, 4096, 4097, 8 * 4096 + 5]
# Item sizes 1, 2, 4 and 8.
SIZED_DTYPES = [genesis.bool, genesis.uint8, genesis.int16, genesis.float32, genesis.float64]


@pytest.mark.parametrize("n", EDGE_LENGTHS)
@pytest.mark.parametrize("dtype", SIZED_DTYPES, ids=lambda d: repr(d).replace("genesis.", ""))
@pytest.mark.parametrize("offset", [0, 1, 4], ids=lambda o: f"offset{o}")
def test_mask_getitem_lengths_and_alignment(device, n, dtype, offset):
    # Offset 1 misaligns the mask and the data for the CUDA kernels' vector loads, offset 4 the
    # mask's 16-byte loads; the result must not depend on that.
    rng = np.random.default_rng(n + offset)
    big, a = make_tensor((n + offset,), dtype, device, seed=n)
    m = rng.random(n + offset) < 0.5
    m[-1] = True  # the tail counts
    big_mask = genesis.tensor(m, device=device)
    x, mask = big[offset:], big_mask[offset:]
    assert_equal(x[mask], a[offset:][m[offset:]])
    for fill in (False, True):  # none and all selected
        full = genesis.tensor(np.full(n, fill), device=device)
        assert_equal(x[full], a[offset:][np.full(n, fill)])


def test_mask_getitem_2d_and_row_mask(device):
    x, a = make_tensor((37, 300), genesis.float32, device, seed=1)
    m = np.random.default_rng(2).random((37, 300)) < 0.3
    assert_equal(x[genesis.tensor(m, device=device)], a[m])
    rows = np.random.default_rng(3).random(37) < 0.5  # through nonzero
    assert_equal(x[genesis.tensor(rows, device=device)], a[rows])


@pytest.mark.parametrize("k", [1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 4097])
@pytest.mark.parametrize("dtype", SIZED_DTYPES[1:], ids=lambda d: repr(d).replace("genesis.", ""))
@pytest.mark.parametrize("offset", [0, 1], ids=lambda o: f"offset{o}")
def test_integer_setitem_lengths_and_alignment(device, k, dtype, offset):
    n = k + 10
    x, a = make_tensor((n,), dtype, device, seed=k)
    rng = np.random.default_rng(k)
    idx = rng.permutation(n)[:k] - rng.integers(0, 2, k) * n  # unique rows, some negative
    big_idx = np.concatenate([np.zeros(offset, np.int64), idx])
    big_v = random_array((k + offset,), dtype, seed=k + 1)
    gidx = genesis.tensor(big_idx, device=device)[offset:]
    gv = genesis.tensor(big_v, dtype=dtype, device=device)[offset:]
    x[gidx] = gv
    a[idx] = big_v[offset:]
    assert_equal(x, a)


def test_integer_setitem_rows_columns_and_broadcast(device):
    x, a = make_tensor((6, 7), genesis.float32, device, seed=4)
    rows = np.array([4, -1, 0])
    x[genesis.tensor(rows, device=device)] = genesis.tensor(a[:3] + 1, device=device)
    a[rows] = a[:3] + 1
    cols = np.array([[1, 3], [-2, 0]])
    x[:, genesis.tensor(cols, device=device)] = 7.5
    a[:, cols] = 7.5
    x[genesis.tensor(rows, device=device), 2] = genesis.tensor([1.0, 2.0, 3.0], device=device)
    a[rows, 2] = [1.0, 2.0, 3.0]
    assert_equal(x, a)


def test_integer_setitem_duplicate_indices(device):
    x = genesis.zeros(10, device=device)
    x[genesis.tensor([3, 3, -7, 5], device=device)] = genesis.tensor([2.0, 2.0, 2.0, 4.0])
    assert x.tolist() == [0, 0, 0, 2, 0, 4, 0, 0, 0, 0]
    y = genesis.zeros(3, device=device)
    y[genesis.tensor([1] * 4097, device=device)] = genesis.arange(4097, device=device).float()
    assert y[0].item() == 0 and y[2].item() == 0 and 0 <= y[1].item() < 4097


@pytest.mark.parametrize("k", [1, 5, 4097])
@pytest.mark.parametrize("where", [0, -1, "middle"])
@pytest.mark.parametrize("bad", [1, -1], ids=["past_end", "before_start"])
def test_integer_setitem_out_of_range_writes_nothing(device, k, where, bad):
    n = k + 3
    x, a = make_tensor((n,), genesis.float32, device, seed=k)
    idx = np.arange(k) % n
    pos = k // 2 if where == "middle" else where
    idx[pos] = n if bad > 0 else -n - 1
    with raises_index_error() as e:
        x[genesis.tensor(idx, device=device)] = genesis.zeros(k, device=device)
    check_message(e, "index")
    assert_equal(x, a)  # unchanged, also where the indices were in range
    x[genesis.tensor([0], device=device)] = 5.0  # the device stays usable, no stale error
    a[0] = 5.0
    assert_equal(x, a)


def test_integer_setitem_index_sharing_destination(device):
    # The index is read in full before any write, as in NumPy.
    x = genesis.arange(10, device=device)
    a = np.arange(10)
    x[x[2:5]] = genesis.tensor([7, 8, 9], device=device)
    a[a[2:5].copy()] = [7, 8, 9]
    assert_equal(x, a)
    y = genesis.tensor([2, 0, 1], device=device)
    y[y] = genesis.tensor([1, 0, 2], device=device)
    b = np.array([2, 0, 1])
    b[b.copy()] = [1, 0, 2]
    assert_equal(y, b)
