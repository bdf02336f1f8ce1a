"""cat / concat / stack and where against NumPy, with PyTorch's promotion and errors."""

import numpy as np
import pytest
from conftest import check_message, dtype_id, random_array, requires_cuda
from op_reference import as_compute, assert_close, finish, result_type

import genesis

B, U8, I8, I16, I32, I64 = (
    genesis.bool,
    genesis.uint8,
    genesis.int8,
    genesis.int16,
    genesis.int32,
    genesis.int64,
)
F16, BF16, F32, F64 = genesis.float16, genesis.bfloat16, genesis.float32, genesis.float64


def make(a, dtype, device):
    return genesis.tensor(a, dtype=dtype, device=device)


def promote_all(dtypes):
    out = dtypes[0]
    for d in dtypes[1:]:
        out = genesis.promote_types(out, d)
    return out


def np_cat(arrays, dtypes, dim, stack=False):
    """The expected (values, dtype) of cat/stack: every input cast to the promoted dtype."""
    out = promote_all(dtypes)
    cast = [finish(as_compute(a, out), out) for a in arrays]
    return (np.stack if stack else np.concatenate)(cast, axis=dim), out


# --- cat ---


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
def test_cat_dims(device, dim):
    shapes = []
    for extra in [2, 1, 3]:
        s = [2, 3, 4]
        s[dim] = extra
        shapes.append(tuple(s))
    arrays = [random_array(s, F32, seed=k) for k, s in enumerate(shapes)]
    ts = [make(a, F32, device) for a in arrays]
    want = np.concatenate(arrays, axis=dim)
    assert_close(genesis.cat(ts, dim=dim), want, F32, rtol=0.0)
    assert_close(genesis.cat(ts, dim), want, F32, rtol=0.0)
    assert_close(genesis.concat(tuple(ts), dim=dim), want, F32, rtol=0.0)


def test_cat_default_dim_and_single_input(device):
    a = random_array((2, 3), I32, seed=1)
    b = random_array((4, 3), I32, seed=2)
    x, y = make(a, I32, device), make(b, I32, device)
    assert_close(genesis.cat([x, y]), np.concatenate([a, b]), I32)
    one = genesis.cat([x])
    assert_close(one, a, I32)
    one.fill_(0)  # a new tensor, not a view of the input
    assert_close(x, a, I32)


def test_cat_every_dtype(device, dtype):
    a = random_array((2, 5), dtype, seed=3)
    b = random_array((3, 5), dtype, seed=4)
    got = genesis.cat([make(a, dtype, device), make(b, dtype, device)])
    assert_close(got, np.concatenate([a, b]), dtype, rtol=0.0)
    got = genesis.cat([make(a.T.copy(), dtype, device), make(b.T.copy(), dtype, device)], dim=1)
    assert_close(got, np.concatenate([a.T, b.T], axis=1), dtype, rtol=0.0)


PROMOTIONS = [
    [I8, U8],
    [B, I32],
    [I64, F16],
    [F16, BF16],
    [I32, F64],
    [B, U8, I16],
    [F32, I8, F16],
    [B, B],
]


@pytest.mark.parametrize("dtypes", PROMOTIONS, ids=lambda ds: "-".join(map(dtype_id, ds)))
def test_cat_and_stack_promote(device, dtypes):
    arrays = [
        random_array((2, 3), d, seed=k, low=None if d is B else 0, high=None if d is B else 100)
        for k, d in enumerate(dtypes)
    ]
    ts = [make(a, d, device) for a, d in zip(arrays, dtypes)]
    want, out = np_cat(arrays, dtypes, 1)
    assert_close(genesis.cat(ts, dim=1), want, out, rtol=0.0)
    want, out = np_cat(arrays, dtypes, 0, stack=True)
    assert_close(genesis.stack(ts), want, out, rtol=0.0)


def test_cat_zero_size(device):
    a = random_array((2, 3), F32, seed=5)
    x = make(a, F32, device)
    e = make(np.zeros((0, 3), np.float32), F32, device)
    assert_close(genesis.cat([e, x, e]), a, F32)
    assert_close(genesis.cat([e, e]), np.zeros((0, 3), np.float32), F32)
    z = make(np.zeros((2, 0), np.float32), F32, device)
    assert_close(genesis.cat([z, x, z], dim=1), a, F32)
    assert_close(genesis.cat([z, z], dim=0), np.zeros((4, 0), np.float32), F32)


def test_cat_non_contiguous(device):
    a = random_array((6, 8), F32, seed=6)
    b = random_array((8, 6), I16, seed=7)
    x, y = make(a, F32, device), make(b, I16, device)
    got = genesis.cat([x[::2, ::-1], x[1:4]], dim=0)  # (3, 8) + (3, 8)
    assert_close(got, np.concatenate([a[::2, ::-1], a[1:4]]), F32)
    got = genesis.cat([x.t()[:3, ::2], x[:3, ::-3]], dim=1)  # (3, 3) + (3, 3)
    assert_close(got, np.concatenate([a.T[:3, ::2], a[:3, ::-3]], axis=1), F32)
    expanded = x[0].unsqueeze(0).expand(3, 8)
    got = genesis.cat([expanded, x[::2, ::-1]], dim=0)
    assert_close(got, np.concatenate([np.broadcast_to(a[0], (3, 8)), a[::2, ::-1]]), F32)
    yp = y[::-2].t()  # (6, 4) int16
    got = genesis.cat([yp, x[:, ::-2]], dim=1)  # int16 + float32 -> float32
    want = np.concatenate([b[::-2].T.astype(np.float32), a[:, ::-2]], axis=1)
    assert_close(got, want, F32)


def test_cat_large(device):
    a = random_array((1000, 300), F32, seed=8)
    b = random_array((1000, 200), F32, seed=9)
    x, y = make(a, F32, device), make(b, F32, device)
    assert_close(genesis.cat([x, y], dim=1), np.concatenate([a, b], axis=1), F32)
    assert_close(genesis.cat([x.t(), y.t()], dim=0), np.concatenate([a.T, b.T]), F32)


def test_cat_errors(device):
    x = make(np.zeros((2, 3), np.float32), F32, device)
    y = make(np.zeros((2, 4), np.float32), F32, device)
    v = make(np.zeros(3, np.float32), F32, device)
    s = make(np.float32(1), F32, device)
    with pytest.raises((ValueError, RuntimeError)) as e:
        genesis.cat([])
    check_message(e)
    for f in [
        lambda: genesis.cat([x, y]),
        lambda: genesis.cat([x, v]),
        lambda: genesis.cat([s, s]),
        lambda: genesis.stack([x, y]),
        lambda: genesis.stack([x, v]),
    ]:
        with pytest.raises((RuntimeError, ValueError)) as e:
            f()
        check_message(e)
    for f in [
        lambda: genesis.cat([x, x], dim=2),
        lambda: genesis.cat([x, x], dim=-3),
        lambda: genesis.stack([x, x], dim=3),
        lambda: genesis.stack([x, x], dim=-4),
    ]:
        with pytest.raises(IndexError) as e:
            f()
        check_message(e)
    with pytest.raises((ValueError, RuntimeError)) as e:
        genesis.stack([])
    check_message(e)
    with pytest.raises(TypeError):
        genesis.cat([x, np.zeros((2, 3), np.float32), 3])


@requires_cuda
def test_joins_different_devices_raise():
    x = genesis.zeros(2, 3)
    y = genesis.zeros(2, 3, device="cuda")
    c = genesis.tensor([True, False, True], device="cuda")
    for f in [
        lambda: genesis.cat([x, y]),
        lambda: genesis.stack([y, x]),
        lambda: genesis.where(c, x, y),
        lambda: genesis.where(c.cpu(), y, y),
    ]:
        with pytest.raises(RuntimeError) as e:
            f()
        check_message(e)


def test_joins_stay_on_the_device(device):
    x = genesis.tensor([1.0, 2.0], device=device)
    c = genesis.tensor([True, False], device=device)
    assert genesis.cat([x, x]).device == x.device
    assert genesis.stack([x, x]).device == x.device
    assert genesis.where(c, x, 0.0).device == x.device


# --- stack ---


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
def test_stack_dims(device, dim):
    arrays = [random_array((3, 4), F32, seed=k) for k in range(3)]
    ts = [make(a, F32, device) for a in arrays]
    want = np.stack(arrays, axis=dim)
    assert_close(genesis.stack(ts, dim=dim), want, F32, rtol=0.0)
    assert_close(genesis.stack(tuple(ts), dim), want, F32, rtol=0.0)


def test_stack_every_dtype_and_0d(device, dtype):
    arrays = [random_array((2, 3), dtype, seed=k) for k in range(4)]
    got = genesis.stack([make(a, dtype, device) for a in arrays], dim=1)
    assert_close(got, np.stack(arrays, axis=1), dtype, rtol=0.0)
    scalars = [random_array((), dtype, seed=k) for k in range(3)]
    got = genesis.stack([make(s, dtype, device) for s in scalars])
    assert_close(got, np.stack(scalars), dtype, rtol=0.0)


def test_stack_zero_size_and_non_contiguous(device):
    e = make(np.zeros((0, 3), np.float32), F32, device)
    assert_close(genesis.stack([e, e], dim=1), np.zeros((0, 2, 3), np.float32), F32)
    a = random_array((5, 6), F32, seed=10)
    x = make(a, F32, device)
    parts = [x.t()[:3], x[:3, ::-1][:, :5], x[:3, None, 2].expand(3, 5)]
    refs = [a.T[:3], a[:3, ::-1][:, :5], np.broadcast_to(a[:3, None, 2], (3, 5))]
    for dim in [0, 1, 2, -1]:
        assert_close(genesis.stack(parts, dim=dim), np.stack(refs, axis=dim), F32)


def test_stack_large(device):
    arrays = [random_array((100, 100), F32, seed=k) for k in range(10)]
    got = genesis.stack([make(a, F32, device) for a in arrays], dim=0)
    assert_close(got, np.stack(arrays), F32)
    assert_close(
        genesis.stack([make(a, F32, device).t() for a in arrays], dim=2),
        np.stack([a.T for a in arrays], axis=2),
        F32,
    )


# --- where ---


def test_where_every_dtype(device, dtype):
    c = random_array((3, 4), B, seed=11)
    a = random_array((3, 4), dtype, seed=12)
    b = random_array((3, 4), dtype, seed=13)
    cond = make(c, B, device)
    x, y = make(a, dtype, device), make(b, dtype, device)
    want = np.where(c, a, b)
    assert_close(genesis.where(cond, x, y), want, dtype, rtol=0.0)
    assert_close(x.where(cond, y), want, dtype, rtol=0.0)


@pytest.mark.parametrize(
    "sc, sa, sb",
    [((3, 1), (1, 4), (4,)), ((3, 4), (), (3, 4)), ((), (2, 3), (2, 3)), ((2, 1, 3), (4, 1), ())],
    ids=str,
)
def test_where_broadcasts(device, sc, sa, sb):
    c = random_array(sc, B, seed=14)
    a = random_array(sa, F32, seed=15)
    b = random_array(sb, F32, seed=16)
    got = genesis.where(make(c, B, device), make(a, F32, device), make(b, F32, device))
    assert_close(got, np.where(c, a, b), F32, rtol=0.0)


WHERE_PROMOTION = [
    (F32, 1.0, 0.0),  # both scalars: float32
    (None, 1, 0),  # both int scalars: int64
    (None, 1.0, 0),
    (None, True, False),
    (I8, "t", 2.5),  # int8 tensor with a float scalar: float32
    (F16, "t", 2.5),  # float16 stays float16
    (I8, "t", 3),  # int8 stays int8
    (B, "t", 2),  # bool with int scalar: int64
    (I8, "t", (I64, ())),  # 0-d int64 does not widen int8
    (I8, "t", (I64, (4,))),  # a dimensioned int64 does
    (U8, (I8, (4,)), "t"),
    (F16, "t", (BF16, (4,))),
    (I32, "t", (F64, ())),
]


@pytest.mark.parametrize("case", WHERE_PROMOTION, ids=str)
def test_where_promotion(device, case):
    dt, first, second = case
    c = np.array([True, False, True, False])
    cond = make(c, B, device)

    def build(spec, seed):
        if spec == "t":
            a = random_array(
                (4,), dt, seed, low=None if dt is B else 0, high=None if dt is B else 9
            )
            return make(a, dt, device), a
        if isinstance(spec, tuple):
            d, shape = spec
            a = random_array(shape, d, seed, low=0, high=9)
            return make(a, d, device), a
        return spec, spec

    x, a = build(first, 17)
    y, b = build(second, 18)
    out = result_type(x, y)
    got = genesis.where(cond, x, y)
    want = np.where(c, as_compute(a, out), as_compute(b, out))
    assert_close(got, finish(want, out), out, rtol=0.0)


def test_where_non_contiguous_nan_and_large(device):
    a = random_array((40, 30), F32, seed=19)
    a[::7, ::5] = np.nan
    b = random_array((30, 40), F32, seed=20)
    x, y = make(a, F32, device), make(b, F32, device)
    cond = x.t() > y
    got = genesis.where(cond, x.t(), y[::-1])
    want = np.where(a.T > b, a.T, b[::-1])
    assert_close(got, want, F32, rtol=0.0)
    n = 100_003
    c = random_array((n,), B, seed=21)
    p = random_array((n,), F32, seed=22)
    got = genesis.where(make(c, B, device), make(p, F32, device), 0.0)
    assert_close(got, np.where(c, p, np.float32(0)), F32, rtol=0.0)


@pytest.mark.parametrize("dtype", [B, I8, I16, F16, F32, F64], ids=str)
def test_where_vectors_offsets_and_tails(device, dtype):
    # CUDA moves 16 bytes of each operand per thread where every pointer is aligned to its
    # vector (Note [Vector where]): lengths around a vector, operands one item off alignment,
    # and a scalar on either side.
    for n in (1, 15, 16, 17, 1000, 4099):
        c = random_array((n + 1,), B, seed=n)
        a = random_array((n + 1,), dtype, seed=n + 1)
        b = random_array((n + 1,), dtype, seed=n + 2)
        cond, x, y = make(c, B, device), make(a, dtype, device), make(b, dtype, device)
        for s in (slice(0, n), slice(1, n + 1)):
            for t in (slice(0, n), slice(1, n + 1)):
                got = genesis.where(cond[s], x[t], y[s])
                assert_close(got, np.where(c[s], a[t], b[s]), dtype, rtol=0.0)
        one = a[0].item()
        assert_close(genesis.where(cond, one, y), np.where(c, a[0], b), dtype, rtol=0.0)
        assert_close(genesis.where(cond, x, one), np.where(c, a, a[0]), dtype, rtol=0.0)


def test_where_condition_must_be_bool(device):
    x = make(np.array([1.0, 2.0]), F32, device)
    for cond in [
        make(np.array([1, 0], np.int32), I32, device),
        make(np.array([1.0, 0.0], np.float32), F32, device),
        make(np.array([1, 0], np.uint8), U8, device),
    ]:
        with pytest.raises((TypeError, RuntimeError)) as e:
            genesis.where(cond, x, x)
        check_message(e)
    c = make(np.array([True, False]), B, device)
    with pytest.raises((RuntimeError, ValueError)) as e:
        genesis.where(c, x, make(np.zeros(3, np.float32), F32, device))
    check_message(e)
