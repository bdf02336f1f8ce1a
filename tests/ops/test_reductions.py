"""Reductions against NumPy, with PyTorch's semantics.

sum mean prod max min argmax argmin var std all any over dim=None/int/tuple (negative dims),
keepdim, dtype=; max/min(dim) named tuples; zero-size and 0-d inputs; NaN; first-occurrence
argmax; 16-bit floats accumulating in float32; softmax/log_softmax; non-contiguous inputs and
large arrays that take the parallel paths; the errors.
"""

import numpy as np
import pytest
from conftest import DTYPES, FLOAT_DTYPES, INT_DTYPES, check_message, dtype_id, to_numpy
from conftest import random_array as rand
from op_reference import ACC_EPS, RTOL, assert_close, finish

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

SHAPE = (3, 4, 5)
DIMS = [None, 0, 1, -1, (0, 2), (-1, 0), (0, 1, 2), (1,)]


def make(a, dtype, device):
    return genesis.tensor(a, dtype=dtype, device=device)


def axis(dim):
    return dim if dim is None or isinstance(dim, tuple) else (dim,)


def call(x, op, dim, keepdim, **kw):
    """x.op() for dim None without keepdim, else x.op(dim=..., keepdim=...)."""
    if dim is None and not keepdim:
        return getattr(x, op)(**kw)
    return getattr(x, op)(dim=dim, keepdim=keepdim, **kw)


def sum_dtype(dt):
    return I64 if not dt.is_floating_point else dt


def data(op, dt, shape, seed=0):
    """Inputs that keep each reduction well conditioned (prod: near 1 or small integers)."""
    if op == "prod":
        if dt.is_floating_point:
            return rand(shape, dt, seed, low=0.5, high=1.5)
        if dt is B:
            a = rand(shape, dt, seed)
            a.flat[::7] = True
            return a
        v = rand(shape, dt, seed, low=1, high=2)
        if dt is not U8:
            sign = rand(shape, I8, seed + 1, low=0, high=1) * 2 - 1
            v = (v * sign).astype(v.dtype)
        return v
    if op in ("all", "any"):
        a = rand(shape, dt, seed)
        if dt is not B:
            a.flat[::4] = 0
        return a
    return rand(shape, dt, seed)


def float_tol(dt, a64, dim, keepdim, scale=1.0):
    """(rtol, per-output atol) for a float reduction: rounding of the result plus accumulation
    error relative to sum(|x|) over the reduced elements."""
    s = np.sum(np.abs(a64), axis=axis(dim), keepdims=keepdim) * scale
    return RTOL[dt] * 2, ACC_EPS[dt] * s


def reference(op, a, dt, dim, keepdim, correction=1):
    """(expected values, expected dtype, rtol, atol)."""
    ax = axis(dim)
    if op in ("sum", "prod"):
        out = sum_dtype(dt)
        acc = a.astype(np.float64 if dt.is_floating_point else np.int64)
        r = (np.sum if op == "sum" else np.prod)(acc, axis=ax, keepdims=keepdim)
        if not out.is_floating_point:
            return r, out, None, None
        rtol, atol = float_tol(dt, acc, dim, keepdim)
        if op == "prod":  # inputs near 1: relative error grows with the number of factors
            atol = 0.0
            rtol = 1e-12 if dt is F64 else rtol + 8e-6
        return finish(r, out), out, rtol, atol
    if op == "mean":
        a64 = a.astype(np.float64)
        n = a64.size if dim is None else np.prod([a64.shape[d] for d in ax])
        rtol, atol = float_tol(dt, a64, dim, keepdim, scale=1.0 / max(n, 1))
        return finish(np.mean(a64, axis=ax, keepdims=keepdim), dt), dt, rtol, atol
    if op in ("var", "std"):
        a64 = a.astype(np.float64)
        with np.errstate(all="ignore"):
            r = np.var(a64, axis=ax, ddof=correction, keepdims=keepdim)
            if op == "std":
                r = np.sqrt(r)
        return finish(r, dt), dt, RTOL[dt] * 2 + 10 * ACC_EPS[dt], 0.0
    if op in ("all", "any"):
        r = (np.all if op == "all" else np.any)(a != 0, axis=ax, keepdims=keepdim)
        return r, B, None, None
    raise AssertionError(op)


def check(got, a, op, dt, dim=None, keepdim=False, rtol=None, **kw):
    want, out, rtol_, atol = reference(op, a, dt, dim, keepdim, **kw)
    if op in ("var", "std") and out in (F32, F64):
        # The spread of equal values is 0 in exact arithmetic; a float mean leaves rounding
        # residue of the values' size times eps (squared for var).
        scale = float(np.max(np.abs(np.asarray(a, np.float64)))) if np.size(a) else 0.0
        eps = float(np.finfo(np.float32 if out is F32 else np.float64).eps)
        residue = scale * eps * 4
        atol = max(atol or 0.0, residue if op == "std" else residue**2)
    assert_close(got, want, out, rtol=rtol if rtol is not None else rtol_, atol=atol)


def logical(got, op, dt):
    """all/any of a uint8 tensor: torch keeps uint8, genesis documents bool; accept both."""
    if op in ("all", "any") and dt is U8 and got.dtype is U8:
        return got.bool()
    return got


def prod_dim_ok(dim, keepdim):
    """torch's prod takes one int dim, or none (and then no keepdim)."""
    return isinstance(dim, int) or (dim is None and not keepdim)


def cases(ops, dtypes, ok=lambda op, d: True):
    return [
        pytest.param(op, d, id=f"{op}-{dtype_id(d)}") for op in ops for d in dtypes if ok(op, d)
    ]


def defined(op, dt):
    if op in ("mean", "var", "std"):
        return dt.is_floating_point
    if op in ("argmax", "argmin"):
        return dt is not B
    return True


# --- full reductions, every dtype ---


@pytest.mark.parametrize(
    "op, dt",
    cases(["sum", "prod", "mean", "var", "std", "all", "any"], DTYPES, defined),
)
def test_full_reduction(device, op, dt):
    a = data(op, dt, SHAPE, seed=1)
    x = make(a, dt, device)
    got = getattr(x, op)()
    assert tuple(got.shape) == ()
    check(logical(got, op, dt), a, op, dt)
    if op != "prod":  # torch's prod takes no keepdim without a dim
        check(logical(call(x, op, None, True), op, dt), a, op, dt, None, True)


@pytest.mark.parametrize("op, dt", cases(["max", "min", "argmax", "argmin"], DTYPES, defined))
def test_full_max_min_arg(device, op, dt):
    a = rand(SHAPE, dt, seed=2)
    x = make(a, dt, device)
    got = getattr(x, op)()
    assert tuple(got.shape) == ()
    if op in ("max", "min"):
        assert_close(got, np.asarray((np.max if op == "max" else np.min)(a)), dt, rtol=0.0)
    else:
        assert_close(got, np.asarray((np.argmax if op == "argmax" else np.argmin)(a)), I64)


# --- reductions over dims ---


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("op", ["sum", "mean", "prod", "var", "std", "all", "any"])
def test_reduce_dims(device, op, dim, keepdim):
    if op == "prod" and not prod_dim_ok(dim, keepdim):
        pytest.skip("torch's prod takes one int dim")
    dt = F32 if op not in ("all", "any") else I32
    a = data(op, dt, SHAPE, seed=3)
    x = make(a, dt, device)
    check(call(x, op, dim, keepdim), a, op, dt, dim, keepdim)


@pytest.mark.parametrize(
    "op, dt", cases(["sum", "prod", "mean", "var", "std", "all", "any"], DTYPES, defined)
)
def test_reduce_dims_every_dtype(device, op, dt):
    a = data(op, dt, SHAPE, seed=4)
    x = make(a, dt, device)
    for dim, keepdim in [(1, False), ((0, -1), True), (-3, False)]:
        if op == "prod" and isinstance(dim, tuple):
            continue  # torch's prod reduces one dim or all
        check(logical(call(x, op, dim, keepdim), op, dt), a, op, dt, dim, keepdim)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1, 2, -3])
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_dim_named_tuple(device, op, dim, keepdim):
    a = rand(SHAPE, F32, seed=5)
    x = make(a, F32, device)
    r = getattr(x, op)(dim=dim, keepdim=keepdim)
    npf, npa = (np.max, np.argmax) if op == "max" else (np.min, np.argmin)
    values = npf(a, axis=dim, keepdims=keepdim)
    indices = npa(a, axis=dim, keepdims=keepdim)
    assert_close(r.values, values, F32, rtol=0.0)
    assert_close(r.indices, indices, I64)
    v, i = r
    assert_close(v, values, F32, rtol=0.0)
    assert_close(i, indices, I64)
    assert_close(r[0], values, F32, rtol=0.0)
    assert_close(r[1], indices, I64)
    assert len(r) == 2
    # positional dim
    v2, i2 = getattr(x, op)(dim)
    assert_close(v2, npf(a, axis=dim), F32, rtol=0.0)
    assert_close(i2, npa(a, axis=dim), I64)


@pytest.mark.parametrize("dt", DTYPES, ids=dtype_id)
def test_max_min_dim_every_dtype(device, dt):
    a = rand((4, 6), dt, seed=6)
    x = make(a, dt, device)
    for op, npf, npa in [("max", np.max, np.argmax), ("min", np.min, np.argmin)]:
        values, indices = getattr(x, op)(dim=1)
        assert_close(values, npf(a, axis=1), dt, rtol=0.0)
        assert_close(indices, npa(a, axis=1), I64)  # first occurrence, also for bool ties
        values, indices = getattr(x, op)(dim=0, keepdim=True)
        assert_close(values, npf(a, axis=0, keepdims=True), dt, rtol=0.0)
        assert_close(indices, npa(a, axis=0, keepdims=True), I64)


@pytest.mark.parametrize("dt", [d for d in DTYPES if d is not B], ids=dtype_id)
def test_argmax_argmin_dims(device, dt):
    a = rand(SHAPE, dt, seed=7)
    x = make(a, dt, device)
    for dim in [0, 1, -1]:
        for keepdim in [False, True]:
            assert_close(
                x.argmax(dim=dim, keepdim=keepdim), np.argmax(a, axis=dim, keepdims=keepdim), I64
            )
            assert_close(
                x.argmin(dim=dim, keepdim=keepdim), np.argmin(a, axis=dim, keepdims=keepdim), I64
            )
    assert_close(x.argmax(1), np.argmax(a, axis=1), I64)
    assert_close(x.argmax(dim=None), np.argmax(a), I64)


def test_argmax_first_occurrence_and_nan(device):
    x = make(np.array([1.0, 3.0, 2.0, 3.0, 0.0, 0.0], np.float32), F32, device)
    assert x.argmax().item() == 1
    assert x.argmin().item() == 4
    assert x.max(dim=0).indices.item() == 1
    assert x.min(dim=0).indices.item() == 4
    m = np.array([[5, 1, 5, 1], [2, 2, 7, 7], [0, 0, 0, 0]], np.int32)
    t = make(m, I32, device)
    assert_close(t.argmax(dim=1), np.array([0, 2, 0]), I64)
    assert_close(t.argmin(dim=1), np.array([1, 0, 0]), I64)
    assert_close(t.max(dim=1).indices, np.array([0, 2, 0]), I64)
    nan = np.array([1.0, np.nan, 3.0, np.nan], np.float32)
    for dt in FLOAT_DTYPES:
        n = make(nan, dt, device)
        assert n.argmax().item() == 1
        assert n.argmin().item() == 1
        assert np.isnan(n.max().item()) and np.isnan(n.min().item())
        v, i = n.max(dim=0)
        assert np.isnan(v.item()) and i.item() == 1
        assert np.isnan(n.sum().item())
        assert np.isnan(n.mean().item())


# --- dtype= ---


def test_dtype_argument(device):
    a = rand((4, 5), F32, seed=8)
    x = make(a, F32, device)
    got = x.sum(dtype=F64)
    assert_close(got, np.sum(a.astype(np.float64)), F64, rtol=1e-12)
    got = x.sum(dim=1, dtype=F64)
    assert_close(got, np.sum(a.astype(np.float64), axis=1), F64, rtol=1e-12)
    i = rand((4, 5), I8, seed=9)
    xi = make(i, I8, device)
    assert_close(xi.sum(dtype=I32), np.sum(i.astype(np.int32)).astype(np.int32), I32)
    assert_close(xi.sum(dim=0, dtype=I16), np.sum(i.astype(np.int16), axis=0), I16)
    assert_close(xi.mean(dtype=F64), np.mean(i.astype(np.float64)), F64, rtol=1e-12)
    assert_close(
        xi.mean(dim=1, dtype=F32), np.mean(i.astype(np.float64), axis=1).astype(np.float32), F32
    )
    p = rand((2, 3), I32, seed=10, low=-3, high=3)
    xp = make(p, I32, device)
    assert_close(xp.prod(dim=1, dtype=F32), np.prod(p, axis=1).astype(np.float32), F32)
    assert_close(xp.prod(dtype=F64), np.prod(p.astype(np.float64)), F64)
    h = make(rand((3, 4), F16, seed=11), F16, device)
    assert h.sum(dtype=F32).dtype is F32
    assert h.mean(dim=0, dtype=F64).dtype is F64


def test_sum_of_bool_and_ints_gives_int64(device):
    for dt in [B, *INT_DTYPES]:
        a = rand((5, 6), dt, seed=12)
        x = make(a, dt, device)
        assert x.sum().dtype is I64
        assert x.sum(dim=0).dtype is I64
        assert x.prod(dim=1).dtype is I64
    b = make(np.array([True, True, False, True]), B, device)
    assert b.sum().item() == 3
    u = make(np.full(1000, 255, np.uint8), U8, device)
    assert u.sum().item() == 255 * 1000  # no uint8 wrap


# --- zero-size and 0-d ---


def test_zero_size(device):
    a = np.zeros((0, 3), np.float32)
    x = make(a, F32, device)
    assert_close(x.sum(), np.float32(0), F32)
    assert_close(x.prod(), np.float32(1), F32)
    assert_close(x.sum(dim=0), np.zeros(3, np.float32), F32)
    assert_close(x.prod(dim=0), np.ones(3, np.float32), F32)
    assert_close(x.sum(dim=1), np.zeros(0, np.float32), F32)
    assert_close(x.sum(dim=0, keepdim=True), np.zeros((1, 3), np.float32), F32)
    assert np.isnan(x.mean().item())
    assert_close(x.all(), np.bool_(True), B)
    assert_close(x.any(), np.bool_(False), B)
    assert_close(x.all(dim=0), np.ones(3, bool), B)
    assert_close(x.any(dim=0), np.zeros(3, bool), B)
    v, i = x.max(dim=1)
    assert_close(v, np.zeros(0, np.float32), F32)
    assert_close(i, np.zeros(0, np.int64), I64)
    assert_close(x.argmax(dim=1), np.zeros(0, np.int64), I64)
    xi = make(np.zeros((2, 0), np.int32), I32, device)
    assert_close(xi.sum(), np.int64(0), I64)
    assert_close(xi.prod(dim=1), np.ones(2, np.int64), I64)
    for f in [
        lambda: x.max(),
        lambda: x.min(),
        lambda: x.argmax(),
        lambda: x.max(dim=0),
        lambda: x.argmin(dim=0),
        lambda: xi.max(dim=1),
    ]:
        with pytest.raises((RuntimeError, IndexError, ValueError)) as e:
            f()
        check_message(e)


def test_zero_dim_input(device):
    x = make(np.array(2.5, np.float32), F32, device)
    for op in ["sum", "mean", "prod"]:
        assert_close(getattr(x, op)(), np.float32(2.5), F32)
        assert_close(getattr(x, op)(dim=0), np.float32(2.5), F32)
        assert_close(getattr(x, op)(dim=-1), np.float32(2.5), F32)
    for op in ["max", "min"]:
        assert_close(getattr(x, op)(), np.float32(2.5), F32)
        assert_close(getattr(x, op)(dim=-1).values, np.float32(2.5), F32)
    assert_close(x.sum(dim=0, keepdim=True), np.float32(2.5), F32)
    v, i = x.max(dim=0)
    assert_close(v, np.float32(2.5), F32)
    assert_close(i, np.int64(0), I64)
    assert_close(x.argmax(), np.int64(0), I64)
    assert_close(x.argmax(dim=0), np.int64(0), I64)
    assert_close(x.all(), np.bool_(True), B)
    with pytest.raises(IndexError) as e:
        x.sum(dim=1)
    check_message(e)


# --- var / std ---


@pytest.mark.parametrize("dt", FLOAT_DTYPES, ids=dtype_id)
def test_var_std_correction(device, dt):
    a = rand((4, 6), dt, seed=13)
    x = make(a, dt, device)
    for op in ["var", "std"]:
        f = getattr(x, op)
        check(f(), a, op, dt)
        check(f(correction=0), a, op, dt, correction=0)
        check(f(correction=2), a, op, dt, correction=2)
        check(f(unbiased=False), a, op, dt, correction=0)
        check(f(unbiased=True), a, op, dt, correction=1)
        check(f(dim=1), a, op, dt, 1)
        check(f(dim=0, correction=0, keepdim=True), a, op, dt, 0, True, correction=0)
        check(f(dim=(0, 1), unbiased=False), a, op, dt, (0, 1), correction=0)
        check(f(dim=-1, keepdim=True), a, op, dt, -1, True)


def test_var_degenerate(device):
    one = make(np.array([1.0], np.float32), F32, device)
    assert np.isnan(one.var().item())
    assert np.isnan(one.std().item())
    assert one.var(correction=0).item() == 0.0
    two = make(np.array([1.0, 2.0], np.float32), F32, device)
    assert np.isinf(two.var(correction=2).item())
    assert two.var(unbiased=False).item() == pytest.approx(0.25)
    assert two.var().item() == pytest.approx(0.5)
    z = make(np.zeros((2, 0), np.float32), F32, device)
    assert np.isnan(to_numpy(z.var(dim=1))).all()


def test_integer_mean_var_std_raise(device):
    x = make(np.array([1, 2, 3], np.int64), I64, device)
    for f in [lambda: x.mean(), lambda: x.mean(dim=0), lambda: x.var(), lambda: x.std(dim=0)]:
        with pytest.raises((RuntimeError, TypeError)) as e:
            f()
        check_message(e)
    b = make(np.array([True, False]), B, device)
    with pytest.raises((RuntimeError, TypeError)):
        b.mean()


# --- dim errors ---


def test_dim_errors(device):
    x = make(rand((2, 3), F32, seed=14), F32, device)
    for f in [
        lambda: x.sum(dim=2),
        lambda: x.sum(dim=-3),
        lambda: x.mean(dim=(0, 5)),
        lambda: x.max(dim=2),
        lambda: x.argmax(dim=-3),
        lambda: x.var(dim=3),
        lambda: x.all(dim=2),
        lambda: x.softmax(2),
    ]:
        with pytest.raises(IndexError) as e:
            f()
        check_message(e)
    for f in [lambda: x.sum(dim=(0, 0)), lambda: x.mean(dim=(1, -1))]:
        with pytest.raises((RuntimeError, ValueError)) as e:
            f()
        check_message(e)


# --- non-contiguous ---


@pytest.mark.parametrize(
    "make_view, np_view",
    [
        (lambda x: x.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1)),
        (lambda x: x[::-1, 1::2, ::-2], lambda a: a[::-1, 1::2, ::-2]),
        (lambda x: x.transpose(0, 2)[1:], lambda a: a.swapaxes(0, 2)[1:]),
        (
            lambda x: x[:, :1].expand(4, 5, 6),
            lambda a: np.broadcast_to(a[:, :1], (4, 5, 6)),
        ),
    ],
    ids=["permute", "steps", "transpose-slice", "expand"],
)
def test_non_contiguous(device, make_view, np_view):
    a = rand((4, 5, 6), F32, seed=15)
    x = make(a, F32, device)
    v, w = make_view(x), np.ascontiguousarray(np_view(a))
    p = rand((4, 5, 6), F32, seed=15, low=0.5, high=1.5)
    vp, wp = make_view(make(p, F32, device)), np.ascontiguousarray(np_view(p))
    for op in ["sum", "mean", "var", "std", "prod"]:
        t, src = (vp, wp) if op == "prod" else (v, w)
        for dim in [None, 0, (0, 2), (-1, 1), 1]:
            for keepdim in [False, True]:
                if op == "prod" and not prod_dim_ok(dim, keepdim):
                    continue
                check(call(t, op, dim, keepdim), src, op, F32, dim, keepdim)
    for dim in [0, 1, -1]:
        r = v.max(dim=dim)
        assert_close(r.values, np.max(w, axis=dim), F32, rtol=0.0)
        assert_close(r.indices, np.argmax(w, axis=dim), I64)
        assert_close(v.argmin(dim=dim), np.argmin(w, axis=dim), I64)
    assert_close(v.max(), np.max(w), F32, rtol=0.0)
    assert_close((v > 0).all(dim=1), np.all(w > 0, axis=1), B)
    assert_close((v > 0).any(dim=(0, 2)), np.any(w > 0, axis=(0, 2)), B)


# --- large arrays ---


def test_large_sums(device):
    n = 100_003
    a = rand((n,), F32, seed=16, low=-1, high=1)
    x = make(a, F32, device)
    check(x.sum(), a, "sum", F32)
    check(x.mean(), a, "mean", F32)
    check(x.var(), a, "var", F32, rtol=1e-4)
    check(x.std(correction=0), a, "std", F32, rtol=1e-4, correction=0)
    i = rand((n,), I64, seed=17)
    check(make(i, I64, device).sum(), i, "sum", I64)
    b = rand((n,), B, seed=18)
    assert make(b, B, device).sum().item() == int(b.sum())
    m = rand((1000, 101), F32, seed=19)
    xm = make(m, F32, device)
    for dim in [0, 1, (0, 1), -1]:
        check(xm.sum(dim=dim), m, "sum", F32, dim)
        check(xm.mean(dim=dim, keepdim=True), m, "mean", F32, dim, True)
    check(xm.t().sum(dim=1), np.ascontiguousarray(m.T), "sum", F32, 1)
    check(xm.t().var(dim=0), np.ascontiguousarray(m.T), "var", F32, 0)
    w = rand((101, 1000), F64, seed=20)
    check(make(w, F64, device).sum(dim=0), w, "sum", F64, 0)


@pytest.mark.parametrize("dt", [F32, I64, F16], ids=dtype_id)
def test_large_middle_and_strided_dims(device, dt):
    a = rand((30, 2000, 3), dt, seed=28)
    x = make(a, dt, device)
    for dim in [1, (0, 2), (0, 1), -1]:
        check(x.sum(dim=dim), a, "sum", dt, dim)
    if dt.is_floating_point:
        check(x.mean(dim=1, keepdim=True), a, "mean", dt, 1, True)
        check(x.var(dim=(0, 1)), a, "var", dt, (0, 1), rtol=1e-4 if dt is F32 else None)
    v, i = x.max(dim=1)
    assert_close(v, np.max(a, axis=1), dt, rtol=0.0)
    assert_close(i, np.argmax(a, axis=1), I64)
    assert_close(x.argmin(dim=0), np.argmin(a, axis=0), I64)
    t = x.permute(1, 2, 0)  # (2000, 3, 30), non-contiguous
    w = np.ascontiguousarray(a.transpose(1, 2, 0))
    check(t.sum(dim=0), w, "sum", dt, 0)
    check(t.sum(dim=(1, 2)), w, "sum", dt, (1, 2))
    assert_close(t.argmax(dim=0), np.argmax(w, axis=0), I64)


def test_half_accumulates_in_float32(device):
    n = 100_000
    for dt in [F16, BF16]:
        a = np.full(n, 0.1, np.float32)
        x = make(a, dt, device)
        v = x.float().cpu().numpy()[0].astype(np.float64)  # 0.1 as stored
        got = x.sum()
        assert got.dtype is dt
        assert got.float().item() == pytest.approx(v * n, rel=RTOL[dt] * 2)
        assert x.mean().float().item() == pytest.approx(v, rel=RTOL[dt] * 2)
        r = rand((300, 400), dt, seed=21)
        check(make(r, dt, device).sum(dim=1), r, "sum", dt, 1)
        check(make(r, dt, device).sum(dim=0), r, "sum", dt, 0)
        check(make(r, dt, device).var(dim=0), r, "var", dt, 0)


def test_all_any_of_long_rows_split_over_threads():
    """A long row is cut into pieces, one per thread, whose results were stored in a
    vector<bool>: two threads writing bits of one byte could lose the deciding piece. Repeated
    so that a race would show; the deciding element sits in the last piece."""
    n = 1 << 20
    zeros = np.zeros(n, np.int32)
    zeros[-5] = 3
    ones = np.ones(n, bool)
    ones[-5] = False
    x, y = genesis.tensor(zeros), genesis.tensor(ones)
    for _ in range(200):
        assert x.any().item() is True
        assert y.all().item() is False


@pytest.mark.parametrize("dt", [F32, F16, BF16], ids=dtype_id)
def test_long_reductions_cut_into_chunks(device, dt):
    """Inputs long enough to be cut into hundreds of 32 KiB chunks and combined by a final kernel
    (Note [Reduction chunks]; on CUDA 9.0+ a programmatic dependent launch): full reductions of
    an odd length (a short last chunk), a few long rows, and the first index of a tie that spans
    two chunks. On the CPU, 16-bit rows are widened a block at a time (Reduction::row_16bit)."""
    n = (1 << 22) + 5
    a = rand((n,), dt, seed=23, low=-1, high=1)
    x = make(a, dt, device)
    check(x.sum(), a, "sum", dt)
    check(x.mean(), a, "mean", dt)
    check(x.var(), a, "var", dt, rtol=1e-3 if dt is F16 else 1e-4)
    want_norm = np.sqrt(np.sum(np.asarray(a, np.float64) ** 2))
    norm_rtol = {F32: 1e-5, F16: 2e-3, BF16: 8e-3}[dt]  # the result rounds to dt
    np.testing.assert_allclose(float(x.norm()), want_norm, rtol=norm_rtol)
    b = a.copy()
    b[3_000_001] = 7.0
    b[(1 << 22) + 4] = 7.0  # a later tie, in the last chunk
    b[9_000] = -7.0
    xb = make(b, dt, device)
    assert float(xb.max()) == 7.0 and float(xb.min()) == -7.0
    assert xb.argmax().item() == 3_000_001 and xb.argmin().item() == 9_000
    rows = rand((3, (1 << 21) + 3), dt, seed=24, low=-1, high=1)
    xr = make(rows, dt, device)
    check(xr.sum(dim=1), rows, "sum", dt, 1)
    assert_close(xr.amax(dim=1), np.max(rows, axis=1), dt, rtol=0.0)
    assert_close(xr.argmin(dim=1), np.argmin(rows, axis=1), I64)


def test_large_max_argmax_all_any(device):
    n = 100_003
    a = rand((n,), F32, seed=22, low=-1, high=1)
    a[54_321] = 5.0
    a[77_777] = 5.0  # a later tie: argmax is the first
    a[12_345] = -5.0
    a[99_999] = -5.0
    x = make(a, F32, device)
    assert x.max().item() == 5.0
    assert x.min().item() == -5.0
    assert x.argmax().item() == 54_321
    assert x.argmin().item() == 12_345
    m = a[: 1000 * 100].reshape(1000, 100)
    xm = make(m, F32, device)
    for dim in [0, 1]:
        v, i = xm.max(dim=dim)
        assert_close(v, np.max(m, axis=dim), F32, rtol=0.0)
        assert_close(i, np.argmax(m, axis=dim), I64)
        assert_close(xm.argmin(dim=dim), np.argmin(m, axis=dim), I64)
    ones = np.ones(n, bool)
    ones[-1] = False
    assert make(ones, B, device).all().item() is False
    assert make(ones[:-1], B, device).all().item() is True
    zeros = np.zeros(n, np.int32)
    zeros[99_999] = 3
    assert make(zeros, I32, device).any().item() is True
    assert make(zeros[:99_999], I32, device).any().item() is False
    assert_close(make(m > 0.9, B, device).any(dim=1), np.any(m > 0.9, axis=1), B)


# --- softmax / log_softmax ---


def np_softmax(a, dim):
    a = a.astype(np.float64)
    m = np.max(a, axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(a - m)
    with np.errstate(all="ignore"):
        return e / np.sum(e, axis=dim, keepdims=True)


def np_log_softmax(a, dim):
    a = a.astype(np.float64)
    m = np.max(a, axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    return a - m - np.log(np.sum(np.exp(a - m), axis=dim, keepdims=True))


SOFTMAX_TOL = {F16: (4e-3, 1e-4), BF16: (2e-2, 1e-3), F32: (1e-5, 1e-7), F64: (1e-12, 1e-15)}


@pytest.mark.parametrize("dt", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_softmax(device, dt, dim):
    a = rand((3, 4, 7), dt, seed=23, low=-5, high=5)
    x = make(a, dt, device)
    rtol, atol = SOFTMAX_TOL[dt]
    want = finish(np_softmax(a, dim), dt)
    for got in [genesis.softmax(x, dim), x.softmax(dim), x.softmax(dim=dim)]:
        assert_close(got, want, dt, rtol=rtol, atol=atol)
    want = finish(np_log_softmax(a, dim), dt)
    for got in [genesis.log_softmax(x, dim), x.log_softmax(dim), genesis.log_softmax(x, dim=dim)]:
        assert_close(got, want, dt, rtol=rtol, atol=atol * 10)


def test_softmax_stability_and_inf(device):
    a = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1001.0, -999.0]], np.float32)
    x = make(a, F32, device)
    assert_close(x.softmax(1), np_softmax(a, 1).astype(np.float32), F32, rtol=1e-5, atol=1e-7)
    assert_close(
        x.log_softmax(1), np_log_softmax(a, 1).astype(np.float32), F32, rtol=1e-5, atol=1e-5
    )
    m = np.array([[-np.inf, 0.0, 1.0], [-np.inf, -np.inf, 2.0]], np.float32)
    xm = make(m, F32, device)
    assert_close(xm.softmax(-1), np_softmax(m, -1).astype(np.float32), F32, rtol=1e-6, atol=1e-7)
    lsm = to_numpy(xm.log_softmax(-1))
    assert lsm[0, 0] == -np.inf and lsm[1, 1] == -np.inf and abs(lsm[1, 2]) < 1e-6
    allinf = make(np.full((1, 3), -np.inf, np.float32), F32, device)
    assert np.isnan(to_numpy(allinf.softmax(1))).all()


def test_softmax_non_contiguous_and_large(device):
    a = rand((50, 40), F32, seed=24, low=-5, high=5)
    x = make(a, F32, device)
    assert_close(x.t().softmax(1), np_softmax(a.T, 1).astype(np.float32), F32, rtol=1e-5)
    assert_close(
        x[::-2, ::3].softmax(0), np_softmax(a[::-2, ::3], 0).astype(np.float32), F32, rtol=1e-5
    )
    b = rand((64, 3000), F32, seed=25, low=-5, high=5)
    xb = make(b, F32, device)
    assert_close(xb.softmax(1), np_softmax(b, 1).astype(np.float32), F32, rtol=1e-5, atol=1e-9)
    assert_close(xb.softmax(0), np_softmax(b, 0).astype(np.float32), F32, rtol=1e-5, atol=1e-9)
    assert_close(
        xb.log_softmax(1), np_log_softmax(b, 1).astype(np.float32), F32, rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("dt", [F32, genesis.float64], ids=dtype_id)
def test_softmax_of_zero_size_is_a_new_tensor(device, dt):
    x = genesis.zeros(0, 3, dtype=dt, device=device)
    for y in [x.softmax(1), x.log_softmax(0)]:
        assert y.shape == (0, 3) and y.dtype == dt
        y.resize_(2, 2)  # its own storage, not x's: growing it is allowed
    assert x.shape == (0, 3)


# --- genesis.* function forms ---


def test_function_forms(device):
    a = rand((3, 4), F32, seed=26)
    x = make(a, F32, device)
    check(genesis.sum(x), a, "sum", F32)
    check(genesis.sum(x, dim=1), a, "sum", F32, 1)
    check(genesis.sum(x, 0, keepdim=True), a, "sum", F32, 0, True)
    check(genesis.mean(x, dim=(0, 1)), a, "mean", F32, (0, 1))
    check(genesis.prod(x / 100, dim=0), a / 100, "prod", F32, 0)
    check(genesis.var(x, dim=1), a, "var", F32, 1)
    check(genesis.std(x), a, "std", F32)
    check(genesis.all(x, dim=1), a, "all", F32, 1)
    check(genesis.any(x), a, "any", F32)
    assert_close(genesis.max(x), np.max(a), F32, rtol=0.0)
    v, i = genesis.max(x, dim=1)
    assert_close(v, np.max(a, axis=1), F32, rtol=0.0)
    assert_close(i, np.argmax(a, axis=1), I64)
    assert_close(genesis.min(x, 0).indices, np.argmin(a, axis=0), I64)
    assert_close(genesis.argmax(x), np.argmax(a), I64)
    assert_close(genesis.argmin(x, dim=1), np.argmin(a, axis=1), I64)


def test_mean_of_float16_keeps_dtype(device):
    a = rand((4, 5), F16, seed=27)
    x = make(a, F16, device)
    check(x.mean(), a, "mean", F16)
    check(x.mean(dim=1), a, "mean", F16, 1)
    assert x.sum().dtype is F16 and x.prod(dim=0).dtype is F16


@pytest.mark.parametrize("dt", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("cols", [1, 3, 8, 33, 1024, 1025, 4100])
def test_softmax_row_lengths(device, dt, cols):
    # On CUDA, rows up to 1024 items take a warp each and longer ones a block (Note [Fused
    # softmax]); lengths that are not a whole number of 16-byte packs take the unpacked loads.
    a = rand((6, cols), dt, seed=cols, low=-8, high=8)
    x = make(a, dt, device)
    rtol, atol = SOFTMAX_TOL[dt]
    assert_close(x.softmax(-1), finish(np_softmax(a, 1), dt), dt, rtol=rtol, atol=atol)
    assert_close(x.log_softmax(1), finish(np_log_softmax(a, 1), dt), dt, rtol=rtol, atol=atol * 10)
    # A view that starts one row in (its rows need not start on a pack) and one with trailing
    # size-1 dims, which still reduces contiguous rows.
    assert_close(x[1:].softmax(1), finish(np_softmax(a[1:], 1), dt), dt, rtol=rtol, atol=atol)
    y = x.view(6, cols, 1, 1)
    want = finish(np_softmax(a, 1), dt).reshape(6, cols, 1, 1)
    assert_close(y.softmax(1), want, dt, rtol=rtol, atol=atol)


@pytest.mark.parametrize("cols", [5, 2000])
def test_softmax_rows_with_inf_and_nan_are_nan_as_in_torch(device, cols):
    a = rand((5, cols), F32, seed=7, low=-3, high=3)
    a[0, cols // 2] = np.inf  # +inf: inf - inf in the composite: the whole row is NaN
    a[1, cols - 1] = np.nan
    a[2, :] = -np.inf  # nothing to normalise: NaN
    a[3, 0] = -np.inf  # -inf is an ordinary zero
    x = make(a, F32, device)
    for got in (to_numpy(x.softmax(1)), to_numpy(x.log_softmax(1))):
        assert np.isnan(got[:3]).all()
        assert np.isfinite(got[4]).all() and np.isfinite(got[3, 1:]).all()
    assert to_numpy(x.softmax(1))[3, 0] == 0
    assert to_numpy(x.log_softmax(1))[3, 0] == -np.inf
    want = np_softmax(a[3:], 1).astype(np.float32)
    assert_close(x[3:].softmax(1), want, F32, rtol=1e-5, atol=1e-7)


def test_softmax_keeps_the_input_and_a_dtype_argument(device):
    a = rand((4, 300), F32, seed=9, low=-4, high=4)
    x = make(a, F32, device)
    before = to_numpy(x).copy()
    x.softmax(1)
    np.testing.assert_array_equal(to_numpy(x), before)
    got = x.softmax(1, dtype=genesis.float64)
    assert got.dtype == genesis.float64
    np.testing.assert_allclose(to_numpy(got), np_softmax(a, 1), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("dt", [F16, F32, F64], ids=dtype_id)
@pytest.mark.parametrize("cols", [70000, 70001])
def test_softmax_few_long_rows(device, dt, cols):
    # On CUDA, a few long rows are cut into chunks of a block each (Note [Fused softmax]).
    a = rand((3, cols), dt, seed=3, low=-10, high=10)
    a[1, 5] = 40  # one chunk holds the row's maximum
    a[2, cols - 3] = np.nan  # a NaN in the last chunk makes the row NaN
    x = make(a, dt, device)
    rtol, atol = SOFTMAX_TOL[dt]
    got, got_log = to_numpy(x.softmax(1)), to_numpy(x.log_softmax(1))
    assert np.isnan(got[2]).all() and np.isnan(got_log[2]).all()
    assert_close(x[:2].softmax(1), finish(np_softmax(a[:2], 1), dt), dt, rtol=rtol, atol=atol)
    # log_softmax of the maximum is a tiny difference: its rounding error is absolute.
    want = finish(np_log_softmax(a[:2], 1), dt)
    assert_close(x[:2].log_softmax(1), want, dt, rtol=rtol, atol=atol * 1000)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dt", [F32, genesis.float64], ids=dtype_id)
@pytest.mark.parametrize("cols", [1, 16, 130, 3000])
def test_softmax_gradient_of_rows(device, dt, cols, log):
    # The CPU's row kernels (Note [CPU row softmax]): the gradient from the saved output, on
    # rows, on rows behind trailing size-1 dims and along a dim that is not innermost
    a = rand((5, cols), dt, seed=cols + 1, low=-6, high=6)
    g = rand((5, cols), dt, seed=cols + 2, low=-1, high=1)
    want = np_softmax(a.astype(np.float64), 1)
    gd = g.astype(np.float64)
    if log:
        want_grad = gd - want * gd.sum(1, keepdims=True)
    else:
        want_grad = want * (gd - (gd * want).sum(1, keepdims=True))
    rtol, atol = (1e-4, 1e-6) if dt is F32 else (1e-10, 1e-13)
    for shape, dim in (((5, cols), 1), ((5, cols, 1), 1)):
        x = make(a, dt, device).reshape(*shape).requires_grad_()
        y = x.log_softmax(dim) if log else x.softmax(dim)
        (grad,) = genesis.autograd.grad(y, [x], make(g, dt, device).reshape(*shape))
        assert_close(grad.reshape(5, cols), want_grad.astype(a.dtype), dt, rtol=rtol, atol=atol)
    xt = make(a.T.copy(), dt, device).requires_grad_()
    y = xt.log_softmax(0) if log else xt.softmax(0)
    (grad,) = genesis.autograd.grad(y, [xt], make(g.T.copy(), dt, device))
    assert_close(grad, want_grad.T.astype(a.dtype), dt, rtol=rtol, atol=atol)
