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
    with pytest.raises(IndexError) as e:
        x[key]
    check_message(e, "index")
    with pytest.raises(IndexError):
        x[key] = 1.0


@pytest.mark.parametrize(
    "key",
    [(0, 0, 0, 0), (ALL, ALL, ALL, 0), (0, Ellipsis, 0, 0, 0), (Ellipsis, Ellipsis)],
    ids=key_id,
)
def test_too_many_indices(device, key):
    x, _ = base(device)
    with pytest.raises(IndexError) as e:
        x[key]
    check_message(e, "index")


def test_index_0d_tensor_with_int():
    with pytest.raises(IndexError) as e:
        genesis.tensor(1.0)[0]
    check_message(e)


@pytest.mark.parametrize("key", [1.0, (0, 1.5), "a", (Ellipsis, 2.0)], ids=key_id)
def test_non_integer_index(device, key):
    x, _ = base(device)
    with pytest.raises(IndexError) as e:
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
