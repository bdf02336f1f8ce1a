"""outer, dot, vdot, inner, addmm/addbmm/baddbmm/addmv (+ in place), mv, kron, cross,
linalg.cross, cdist and tensordot against PyTorch: random data, every dtype PyTorch takes,
broadcasting, 0-d, zero-size and non-contiguous inputs, out=, CPU and CUDA; bad input raises an
error naming the op.
"""

import math

import numpy as np
import pytest
from conftest import FLOAT_DTYPES, INT_DTYPES, dtype_id, make_tensor, to_numpy

import genesis

torch = pytest.importorskip("torch")

TORCH = {
    genesis.bool: torch.bool,
    genesis.uint8: torch.uint8,
    genesis.int8: torch.int8,
    genesis.int16: torch.int16,
    genesis.int32: torch.int32,
    genesis.int64: torch.int64,
    genesis.float16: torch.float16,
    genesis.bfloat16: torch.bfloat16,
    genesis.float32: torch.float32,
    genesis.float64: torch.float64,
}
NUMERIC = FLOAT_DTYPES + INT_DTYPES


def _pair(shape, dtype, device, seed=0, stepped=False):
    """A genesis tensor of small random values (non-contiguous when stepped) and the same values
    in torch: float64 for floating dtypes (the reference), the dtype itself for integers."""
    full = tuple(shape[:-1]) + (2 * shape[-1],) if stepped and shape else tuple(shape)
    low, high = (0, 3) if dtype is genesis.uint8 else (-3, 3)
    x, _ = make_tensor(full, dtype, device, seed=seed, low=low, high=high)
    if stepped and shape:
        x = x[..., ::2]
        assert not x.is_contiguous() or x.numel() <= 1
    a = to_numpy(x)
    t = torch.from_numpy(np.array(a, order="C"))
    t = t.to(torch.float64) if dtype.is_floating_point else t.to(TORCH[dtype])
    return x, t


def _close(got, want, dtype):
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert got.dtype is dtype, (got.dtype, dtype)
    g = to_numpy(got)
    w = want.numpy()
    if not dtype.is_floating_point:
        np.testing.assert_array_equal(g, w.astype(g.dtype))
        return
    tol = {genesis.float16: 1e-2, genesis.bfloat16: 5e-2}.get(dtype, 1e-5)
    scale = max(1.0, float(np.abs(w).max())) if w.size else 1.0
    np.testing.assert_allclose(g.astype(np.float64), w, rtol=tol, atol=tol * scale, equal_nan=True)


def _raises(exc, op, fn):
    with pytest.raises(exc, match=rf"^\[{op}\]"):
        fn()


# --- outer, dot, vdot, inner -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMERIC, ids=dtype_id)
def test_outer(device, dtype):
    for n, m in [(3, 4), (0, 2), (1, 1)]:
        x, tx = _pair((n,), dtype, device, seed=1, stepped=True)
        y, ty = _pair((m,), dtype, device, seed=2)
        _close(genesis.outer(x, y), torch.outer(tx, ty), dtype)
        _close(x.outer(y), torch.outer(tx, ty), dtype)
    out = genesis.empty(3, 4, dtype=dtype, device=device)
    x, tx = _pair((3,), dtype, device)
    y, ty = _pair((4,), dtype, device, seed=3)
    assert genesis.outer(x, y, out=out) is out
    _close(out, torch.outer(tx, ty), dtype)


def test_outer_promotes_and_checks(device):
    i = genesis.tensor([1, 2], device=device)
    f = genesis.tensor([0.5, 1.0, 2.0], device=device)
    r = genesis.outer(i, f)
    assert r.dtype is genesis.float32
    np.testing.assert_allclose(to_numpy(r), np.outer([1, 2], [0.5, 1.0, 2.0]))
    _raises(RuntimeError, "outer", lambda: genesis.outer(genesis.ones(2, 2, device=device), f))
    _raises(RuntimeError, "outer", lambda: genesis.outer(f, genesis.tensor(1.0, device=device)))


@pytest.mark.parametrize("dtype", NUMERIC, ids=dtype_id)
@pytest.mark.parametrize("name", ["dot", "vdot"])
def test_dot(device, dtype, name):
    if device == "cuda" and not dtype.is_floating_point:
        x = genesis.ones(3, dtype=dtype, device=device)
        _raises(TypeError, name, lambda: getattr(genesis, name)(x, x))
        return
    f = getattr(genesis, name)
    for n in (5, 0, 1):
        x, tx = _pair((n,), dtype, device, seed=1, stepped=True)
        y, ty = _pair((n,), dtype, device, seed=2)
        _close(f(x, y), torch.dot(tx, ty), dtype)
        _close(getattr(x, name)(y), torch.dot(tx, ty), dtype)
    out = genesis.empty((), dtype=dtype, device=device)
    assert f(x, y, out=out) is out
    _close(out, torch.dot(tx, ty), dtype)


@pytest.mark.parametrize("name", ["dot", "vdot"])
def test_dot_errors(device, name):
    f = getattr(genesis, name)
    a = genesis.ones(3, device=device)
    _raises(RuntimeError, name, lambda: f(a, genesis.ones(3, dtype=genesis.float64, device=device)))
    _raises(RuntimeError, name, lambda: f(a, genesis.ones(4, device=device)))
    _raises(RuntimeError, name, lambda: f(genesis.ones(3, 1, device=device), a))
    b = genesis.ones(3, dtype=genesis.bool, device=device)
    _raises(TypeError, name, lambda: f(b, b))


@pytest.mark.parametrize("dtype", NUMERIC, ids=dtype_id)
def test_inner(device, dtype):
    if device == "cuda" and not dtype.is_floating_point:
        pytest.skip("integer products are refused on CUDA")
    cases = [((3, 4), (5, 4)), ((2, 3, 4), (4,)), ((4,), (4,)), ((0, 4), (2, 4)), ((3, 0), (2, 0))]
    for sa, sb in cases:
        x, tx = _pair(sa, dtype, device, seed=1, stepped=True)
        y, ty = _pair(sb, dtype, device, seed=2)
        _close(genesis.inner(x, y), torch.inner(tx, ty), dtype)
        _close(x.inner(y), torch.inner(tx, ty), dtype)
    s, ts = _pair((), dtype, device, seed=4)
    y, ty = _pair((2, 4), dtype, device, seed=6)
    _close(genesis.inner(s, y), torch.inner(ts, ty), dtype)
    _close(genesis.inner(y, s), torch.inner(ty, ts), dtype)
    out = genesis.empty(2, 3, 2, dtype=dtype, device=device)
    x, tx = _pair((2, 3, 4), dtype, device)
    y, ty = _pair((2, 4), dtype, device, seed=5)
    assert genesis.inner(x, y, out=out) is out
    _close(out, torch.inner(tx, ty), dtype)


def test_inner_errors(device):
    a = genesis.ones(2, 3, device=device)
    _raises(RuntimeError, "inner", lambda: genesis.inner(a, genesis.ones(2, 4, device=device)))
    _raises(
        RuntimeError,
        "inner",
        lambda: genesis.inner(a, genesis.ones(3, dtype=genesis.float64, device=device)),
    )
    # A 0-d operand multiplies, with promotion.
    r = genesis.inner(genesis.tensor(2, device=device), genesis.tensor([1.5], device=device))
    assert r.dtype is genesis.float32 and to_numpy(r).tolist() == [3.0]


# --- addmm and friends -------------------------------------------------------------------------

SCALED = [
    # name, input shapes (broadcasting), first, second
    ("addmm", [(3, 2), (2,), (1, 1), ()], (3, 4), (4, 2)),
    ("addbmm", [(3, 2), (2,), (3, 1)], (5, 3, 4), (5, 4, 2)),
    ("baddbmm", [(5, 3, 2), (3, 2), (1,)], (5, 3, 4), (5, 4, 2)),
    ("addmv", [(3,), (1,), ()], (3, 4), (4,)),
]
COEFS = [(1, 1), (2, 0.5), (0, 3), (-1.5, 2)]


def _torch_scaled(name, ti, t1, t2, beta, alpha):
    return getattr(torch, name)(ti, t1, t2, beta=beta, alpha=alpha)


@pytest.mark.parametrize("name,inputs,s1,s2", SCALED, ids=[s[0] for s in SCALED])
@pytest.mark.parametrize("dtype", NUMERIC, ids=dtype_id)
def test_scaled_products(device, dtype, name, inputs, s1, s2):
    if device == "cuda" and not dtype.is_floating_point:
        x = genesis.ones(s1, dtype=dtype, device=device)
        y = genesis.ones(s2, dtype=dtype, device=device)
        _raises(
            TypeError, name, lambda: getattr(genesis, name)(genesis.ones((), dtype=dtype), x, y)
        )
        return
    f = getattr(genesis, name)
    a, ta = _pair(s1, dtype, device, seed=1, stepped=True)
    b, tb = _pair(s2, dtype, device, seed=2)
    for k, shape in enumerate(inputs):
        i, ti = _pair(shape, dtype, device, seed=3 + k)
        for beta, alpha in COEFS:
            if dtype is genesis.uint8 and beta < 0:
                continue  # torch refuses a negative factor for uint8
            want = _torch_scaled(name, ti, ta, tb, beta, alpha)
            _close(f(i, a, b, beta=beta, alpha=alpha), want, dtype)
            _close(getattr(i, name)(a, b, beta=beta, alpha=alpha), want, dtype)
    _close(f(i, a, b), _torch_scaled(name, ti, ta, tb, 1, 1), dtype)
    # In place on a tensor of the result's shape, and out=.
    full = tuple(_torch_scaled(name, ti, ta, tb, 1, 1).shape)
    s, ts = _pair(full, dtype, device, seed=9)
    want = _torch_scaled(name, ts, ta, tb, 2, 3)
    assert getattr(s, name + "_")(a, b, beta=2, alpha=3) is s
    _close(s, want, dtype)
    out = genesis.empty(full, dtype=dtype, device=device)
    assert f(i, a, b, out=out) is out
    _close(out, _torch_scaled(name, ti, ta, tb, 1, 1), dtype)


@pytest.mark.parametrize("name,inputs,s1,s2", SCALED, ids=[s[0] for s in SCALED])
def test_scaled_products_edge_cases(device, name, inputs, s1, s2):
    f = getattr(genesis, name)
    a, ta = _pair(s1, genesis.float32, device, seed=1)
    b, tb = _pair(s2, genesis.float32, device, seed=2)
    # beta = 0 ignores NaN in input.
    nan = genesis.full(inputs[0], math.nan, device=device)
    r = f(nan, a, b, beta=0)
    assert not np.isnan(to_numpy(r)).any()
    # Zero-size contraction: the product is 0, the result beta * input.
    z1 = genesis.ones(tuple(s1[:-1]) + (0,), device=device)
    z2 = genesis.ones(
        ((s2[0], 0) + tuple(s2[2:])) if len(s2) == 3 else (0,) + tuple(s2[1:]), device=device
    )
    i = genesis.ones(inputs[0], device=device)
    want = _torch_scaled(
        name, torch.ones(inputs[0]), torch.ones(z1.shape), torch.ones(z2.shape), 2, 1
    )
    _close(f(i, z1, z2, beta=2), want.double(), genesis.float32)
    # Errors: mismatched inner sizes, an input that does not broadcast, mixed dtypes, ndim.
    bad2 = genesis.ones(
        tuple(s2[:-2]) + (s2[-2] + 1,) + tuple(s2[-1:]) if len(s2) > 1 else (5,), device=device
    )
    _raises(RuntimeError, name, lambda: f(i, a, bad2))
    wrong = genesis.ones(7, device=device)
    _raises(RuntimeError, name, lambda: f(wrong, a, b))
    _raises(RuntimeError, name, lambda: f(i.double(), a, b))
    _raises(RuntimeError, name, lambda: f(i, a.double(), b))
    _raises(RuntimeError, name, lambda: f(i, a[0], b))
    # In place: self must have the result's shape; read-only refused.
    small = genesis.ones(inputs[-1], device=device)
    full = tuple(f(i, a, b).shape)
    if tuple(small.shape) != full:
        _raises(RuntimeError, name + "_", lambda: getattr(small, name + "_")(a, b))
    # An expanded target (several elements on one memory location) is refused, unchanged.
    expanded = genesis.zeros((1,) * len(full), device=device).expand(full)
    _raises(RuntimeError, name + "_", lambda: getattr(expanded, name + "_")(a, b))
    assert to_numpy(expanded).sum() == 0


@pytest.mark.parametrize("dtype", NUMERIC, ids=dtype_id)
def test_mv(device, dtype):
    if device == "cuda" and not dtype.is_floating_point:
        pytest.skip("integer products are refused on CUDA")
    for n, m in [(3, 4), (0, 4), (3, 0)]:
        a, ta = _pair((n, m), dtype, device, seed=1, stepped=True)
        v, tv = _pair((m,), dtype, device, seed=2)
        _close(genesis.mv(a, v), torch.mv(ta, tv), dtype)
        _close(a.mv(v), torch.mv(ta, tv), dtype)
    a, ta = _pair((3, 4), dtype, device)
    v, tv = _pair((4,), dtype, device, seed=3)
    out = genesis.empty(3, dtype=dtype, device=device)
    assert genesis.mv(a, v, out=out) is out
    _close(out, torch.mv(ta, tv), dtype)


def test_mv_errors(device):
    a = genesis.ones(3, 4, device=device)
    _raises(RuntimeError, "mv", lambda: genesis.mv(a, genesis.ones(5, device=device)))
    _raises(RuntimeError, "mv", lambda: genesis.mv(genesis.ones(4, device=device), a[0]))
    _raises(RuntimeError, "mv", lambda: genesis.mv(a, genesis.ones(4, 1, device=device)))
    _raises(
        RuntimeError,
        "mv",
        lambda: genesis.mv(a, genesis.ones(4, dtype=genesis.int64, device=device)),
    )


# --- kron, cross --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMERIC + [genesis.bool], ids=dtype_id)
def test_kron(device, dtype):
    cases = [((2, 3), (4, 2)), ((2, 3), (4, 2, 2)), ((3,), (2, 2)), ((), (2, 3)), ((2, 0), (3, 1))]
    for sa, sb in cases:
        if dtype is genesis.bool:
            x = genesis.tensor(np.random.default_rng(1).random(sa) < 0.5, device=device)
            y = genesis.tensor(np.random.default_rng(2).random(sb) < 0.5, device=device)
            tx, ty = torch.from_numpy(to_numpy(x)), torch.from_numpy(to_numpy(y))
        else:
            x, tx = _pair(sa, dtype, device, seed=1, stepped=True)
            y, ty = _pair(sb, dtype, device, seed=2)
        _close(genesis.kron(x, y), torch.kron(tx, ty), dtype)
        _close(x.kron(y), torch.kron(tx, ty), dtype)
    out = genesis.empty(torch.kron(tx, ty).shape, dtype=dtype, device=device)
    assert genesis.kron(x, y, out=out) is out
    _close(out, torch.kron(tx, ty), dtype)


def test_kron_promotes(device):
    r = genesis.kron(
        genesis.tensor([1, 2], device=device), genesis.tensor([0.5, 1.0], device=device)
    )
    assert r.dtype is genesis.float32
    assert to_numpy(r).tolist() == [0.5, 1.0, 1.0, 2.0]


@pytest.mark.parametrize("dtype", NUMERIC, ids=dtype_id)
def test_cross(device, dtype):
    x, tx = _pair((4, 3, 5), dtype, device, seed=1, stepped=True)
    y, ty = _pair((4, 3, 5), dtype, device, seed=2)
    want = torch.cross(tx, ty, dim=1)
    _close(genesis.cross(x, y), want, dtype)  # the first dim of size 3
    _close(genesis.cross(x, y, dim=-2), want, dtype)
    _close(x.cross(y, 1), want, dtype)
    # Broadcasting sizes (same ndim) and linalg.cross's default dim -1.
    a, ta = _pair((2, 1, 3), dtype, device, seed=3)
    b, tb = _pair((1, 4, 3), dtype, device, seed=4)
    _close(genesis.linalg.cross(a, b), torch.linalg.cross(ta, tb), dtype)
    _close(genesis.cross(a, b, dim=2), torch.cross(ta, tb, dim=2), dtype)
    z, tz = _pair((0, 3), dtype, device)
    _close(genesis.linalg.cross(z, z), torch.linalg.cross(tz, tz), dtype)
    out = genesis.empty(2, 4, 3, dtype=dtype, device=device)
    assert genesis.linalg.cross(a, b, out=out) is out
    _close(out, torch.linalg.cross(ta, tb), dtype)
    out = genesis.empty(4, 3, 5, dtype=dtype, device=device)
    assert genesis.cross(x, y, 1, out=out) is out
    _close(out, want, dtype)


def test_cross_errors(device):
    a = genesis.ones(4, 4, device=device)
    _raises(RuntimeError, "cross", lambda: genesis.cross(a, a))  # no dim of size 3
    c = genesis.ones(4, 3, device=device)
    _raises(RuntimeError, "cross", lambda: genesis.cross(c, c, dim=0))
    _raises(RuntimeError, "linalg.cross", lambda: genesis.linalg.cross(c, c, dim=0))
    _raises(
        RuntimeError,
        "linalg.cross",
        lambda: genesis.linalg.cross(c, genesis.ones(3, device=device)),
    )
    _raises(RuntimeError, "cross", lambda: genesis.cross(c, c.double()))
    _raises(IndexError, "cross", lambda: genesis.cross(c, c, dim=2))
    b = genesis.ones(3, dtype=genesis.bool, device=device)
    _raises(TypeError, "cross", lambda: genesis.cross(b, b))


# --- cdist ---------------------------------------------------------------------------------------

P_VALUES = [0.0, 1.0, 2.0, 0.5, 3.0, math.inf]
MODES = [
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_cdist(device, dtype):
    cases = [
        ((5, 3), (4, 3)),
        ((2, 1, 5, 3), (3, 4, 3)),
        ((30, 4), (2, 4)),
        ((0, 3), (2, 3)),
        ((2, 0), (3, 0)),
    ]
    for sa, sb in cases:
        x, tx = _pair(sa, dtype, device, seed=1, stepped=True)
        y, ty = _pair(sb, dtype, device, seed=2)
        for p in P_VALUES:
            want = torch.cdist(tx, ty, p=p)
            _close(genesis.cdist(x, y, p=p), want, dtype)
        for mode in MODES:
            _close(
                genesis.cdist(x, y, compute_mode=mode),
                torch.cdist(tx, ty, compute_mode=mode),
                dtype,
            )
    # p = 0 counts differing coordinates exactly.
    a = genesis.tensor([[1.0, 2.0, 3.0]], dtype=dtype, device=device)
    b = genesis.tensor([[1.0, 0.0, 0.0], [1.0, 2.0, 3.0]], dtype=dtype, device=device)
    assert to_numpy(genesis.cdist(a, b, p=0)).tolist() == [[2.0, 0.0]]


def test_cdist_errors(device):
    a = genesis.ones(3, 4, device=device)
    _raises(ValueError, "cdist", lambda: genesis.cdist(a, a, p=-1))
    _raises(RuntimeError, "cdist", lambda: genesis.cdist(genesis.ones(4, device=device), a))
    _raises(RuntimeError, "cdist", lambda: genesis.cdist(a, genesis.ones(3, 5, device=device)))
    _raises(TypeError, "cdist", lambda: genesis.cdist(a.long(), a.long()))
    _raises(TypeError, "cdist", lambda: genesis.cdist(a, a.double()))
    _raises(ValueError, "cdist", lambda: genesis.cdist(a, a, compute_mode="fast"))
    _raises(
        ValueError,  # batch dims that do not broadcast: genesis's broadcasting error
        "cdist",
        lambda: genesis.cdist(
            genesis.ones(2, 3, 4, device=device), genesis.ones(3, 3, 4, device=device)
        ),
    )


# --- tensordot -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMERIC, ids=dtype_id)
def test_tensordot(device, dtype):
    if device == "cuda" and not dtype.is_floating_point:
        pytest.skip("integer products are refused on CUDA")
    x, tx = _pair((3, 4, 5), dtype, device, seed=1, stepped=True)
    y, ty = _pair((4, 5, 2), dtype, device, seed=2)
    _close(genesis.tensordot(x, y), torch.tensordot(tx, ty), dtype)
    z, tz = _pair((5, 3), dtype, device, seed=3)
    _close(genesis.tensordot(x, z, dims=1), torch.tensordot(tx, tz, dims=1), dtype)
    _close(
        genesis.tensordot(x, z, dims=([0, 2], [1, 0])),
        torch.tensordot(tx, tz, dims=([0, 2], [1, 0])),
        dtype,
    )
    _close(
        genesis.tensordot(x, z, dims=([-1], [0])), torch.tensordot(tx, tz, dims=([2], [0])), dtype
    )
    _close(genesis.tensordot(x, z, dims=(2, 0)), torch.tensordot(tx, tz, dims=([2], [0])), dtype)
    _close(genesis.tensordot(x, z, dims=0), torch.tensordot(tx, tz, dims=0), dtype)
    e, te = _pair((3, 0), dtype, device, seed=4)
    f, tf = _pair((0, 2), dtype, device, seed=5)
    _close(genesis.tensordot(e, f, dims=1), torch.tensordot(te, tf, dims=1), dtype)
    out = genesis.empty(3, 2, dtype=dtype, device=device)
    assert genesis.tensordot(x, y, 2, out=out) is out
    _close(out, torch.tensordot(tx, ty), dtype)


def test_tensordot_errors(device):
    a = genesis.ones(3, 4, device=device)
    op = "tensordot"
    _raises(RuntimeError, op, lambda: genesis.tensordot(a, genesis.ones(3, 5, device=device)))
    _raises(RuntimeError, op, lambda: genesis.tensordot(a, a, dims=-1))
    _raises(RuntimeError, op, lambda: genesis.tensordot(a, genesis.ones(3, device=device), dims=2))
    _raises(RuntimeError, op, lambda: genesis.tensordot(a, a, dims=([0, 1], [0])))
    _raises(RuntimeError, op, lambda: genesis.tensordot(a, a.double(), dims=1))
    _raises(IndexError, op, lambda: genesis.tensordot(a, a, dims=([5], [0])))
    _raises(RuntimeError, op, lambda: genesis.tensordot(a, a, dims=([0, 0], [0, 0])))
    _raises(TypeError, op, lambda: genesis.tensordot(a, a, dims="ij"))


def test_methods_exist():
    for name in [
        "outer",
        "dot",
        "vdot",
        "inner",
        "addmm",
        "addmm_",
        "addbmm",
        "addbmm_",
        "baddbmm",
        "baddbmm_",
        "addmv",
        "addmv_",
        "mv",
        "kron",
        "cross",
    ]:
        assert callable(getattr(genesis.Tensor, name)), name
