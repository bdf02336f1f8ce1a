"""cumsum, cumprod, logcumsumexp, cummax and cummin against PyTorch: every dtype, every dim
(negative too), 0-d, zero-size, non-contiguous and negative-stride inputs, dtype=, out= and the
in-place forms, CPU and CUDA; bad input raises an error naming the op.
"""

import numpy as np
import pytest
from conftest import DTYPES, FLOAT_DTYPES, dtype_id, make_tensor, to_numpy

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
GENESIS = {v: k for k, v in TORCH.items()}
TOL = {genesis.float16: 2e-3, genesis.bfloat16: 2e-2, genesis.float32: 2e-5}


def _torch(x):
    h = x.cpu()
    t = torch.from_numpy(to_numpy(h))
    return t.to(TORCH[x.dtype])


def _check(got, want):
    """got (genesis) has want's (torch) dtype, shape and values, up to the dtype's rounding."""
    assert got.dtype is GENESIS[want.dtype], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    if want.is_floating_point():
        # Running sums that cancel keep the rounding error of their largest terms: the absolute
        # tolerance scales with the largest result (CUB on CUDA groups the terms differently).
        tol = TOL.get(got.dtype, 1e-12)
        w = want.to(torch.float64).numpy()
        finite = np.abs(w[np.isfinite(w)])
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        np.testing.assert_allclose(
            to_numpy(got).astype(np.float64), w, rtol=tol, atol=tol * scale, equal_nan=True
        )
    else:
        np.testing.assert_array_equal(to_numpy(got), want.numpy())


def _input(shape, dtype, device, seed=0, layout="contiguous", **kwargs):
    """A random tensor: contiguous, transposed, reversed (negative strides) or stepped."""
    if layout == "contiguous":
        return make_tensor(shape, dtype, device, seed=seed, **kwargs)[0]
    if layout == "reversed":
        x = make_tensor(shape, dtype, device, seed=seed, **kwargs)[0]
        x = x[tuple(slice(None, None, -1) for _ in shape)]
        assert all(s < 0 for s, n in zip(x.stride(), shape) if n > 1)
        return x
    if layout == "transposed":
        return make_tensor(shape[::-1], dtype, device, seed=seed, **kwargs)[0].permute(
            *range(len(shape) - 1, -1, -1)
        )
    big = [s * 2 for s in shape]
    x = make_tensor(big, dtype, device, seed=seed, **kwargs)[0]
    return x[tuple(slice(None, None, 2) for _ in shape)]


SHAPES_DIMS = [((5,), 0), ((5,), -1), ((3, 7), 0), ((3, 7), 1), ((2, 3, 70), 1), ((2, 3, 4), -3)]
LAYOUTS = ["contiguous", "transposed", "reversed", "stepped"]


def _data(op, dtype):
    # Products of values near 1 stay finite; other floats are normal * 100.
    if op == "cumprod" and dtype.is_floating_point:
        return {"low": 0.5, "high": 1.5}
    if op == "cumprod" and dtype in (genesis.int64,):
        return {"low": -3, "high": 3}
    return {}


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod(device, dtype, op):
    for i, (shape, dim) in enumerate(SHAPES_DIMS):
        for layout in LAYOUTS:
            x = _input(shape, dtype, device, seed=i, layout=layout, **_data(op, dtype))
            want = getattr(torch, op)(_torch(x), dim)
            _check(getattr(genesis, op)(x, dim), want)
            _check(getattr(x, op)(dim=dim), want)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_logcumsumexp(device, dtype):
    for i, (shape, dim) in enumerate(SHAPES_DIMS):
        for layout in LAYOUTS:
            x = _input(shape, dtype, device, seed=i, layout=layout)
            want = torch.logcumsumexp(_torch(x), dim)
            _check(genesis.logcumsumexp(x, dim), want)
            _check(x.logcumsumexp(dim), want)


def test_logcumsumexp_is_stable_and_handles_infinities(device):
    inf, nan = float("inf"), float("nan")
    for values in (
        [1000.0, 1000.0, -1000.0],
        [-inf, -inf, 1.0, inf, 2.0, inf],
        [inf, -inf, 3.0],
        [1.0, nan, 2.0],
        [-inf, -inf],
    ):
        for dtype in (genesis.float32, genesis.float64):
            x = genesis.tensor(values, dtype=dtype, device=device)
            _check(genesis.logcumsumexp(x, 0), torch.logcumsumexp(_torch(x), 0))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin(device, dtype, op):
    for i, (shape, dim) in enumerate(SHAPES_DIMS):
        for layout in LAYOUTS:
            # Few distinct values, so ties are common.
            kw = {} if dtype is genesis.bool else {"low": 0, "high": 4}
            x = _input(shape, dtype, device, seed=i, layout=layout, **kw)
            if dtype.is_floating_point:
                x = x.floor()
            w = getattr(torch, op)(_torch(x), dim)
            r = getattr(genesis, op)(x, dim)
            _check(r.values, w.values)
            _check(r.indices, w.indices)
            values, indices = getattr(x, op)(dim)
            _check(values, w.values)
            _check(indices, w.indices)
            assert r[0] is r.values and r[1] is r.indices
            assert type(r).__name__ == op


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_nan_and_ties(device, op):
    nan = float("nan")
    for dtype in (genesis.float32, genesis.float16, genesis.float64):
        x = genesis.tensor(
            [1.0, 3.0, 3.0, 2.0, 3.0, nan, 5.0, nan, 1.0, -1.0], dtype=dtype, device=device
        )
        w = getattr(torch, op)(_torch(x), 0)
        r = getattr(genesis, op)(x, 0)
        _check(r.values, w.values)
        _check(r.indices, w.indices)
    # A long row, so that CUDA's scan groups the items across threads and blocks.
    x = genesis.tensor(np.random.default_rng(3).integers(0, 50, 5000), device=device)
    x = x.to(genesis.float32)
    x[1234] = nan
    x[4321] = nan
    w = getattr(torch, op)(_torch(x), 0)
    r = getattr(genesis, op)(x, 0)
    _check(r.values, w.values)
    _check(r.indices, w.indices)


def test_long_rows_and_many_rows(device):
    # Rows longer than a CUDA block's tile and many short rows in one scan.
    for shape, dim in (((3, 20000), 1), ((20000, 3), 1), ((20000, 3), 0), ((1, 100000), -1)):
        x = _input(shape, genesis.int32, device, low=-100, high=100)
        _check(genesis.cumsum(x, dim), torch.cumsum(_torch(x), dim))
        y = _input(shape, genesis.float64, device)
        _check(genesis.cumsum(y, dim), torch.cumsum(_torch(y), dim))
        _check(genesis.logcumsumexp(y, dim), torch.logcumsumexp(_torch(y), dim))
        r, w = genesis.cummax(x, dim), torch.cummax(_torch(x), dim)
        _check(r.values, w.values)
        _check(r.indices, w.indices)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_row_lengths_around_the_warp_scan_steps(device, dtype):
    # On CUDA, rows of up to 4096 items are scanned a row per warp, 512 items a step, with
    # 16-byte loads where the rows are aligned to them (Note [Warp row scans]): lengths around
    # the steps and the limit, and rows that start off a 16-byte boundary (a 1-item offset).
    if dtype is genesis.bool:
        pytest.skip("cumsum of bool promotes to int64 before scanning")
    kw = {} if dtype.is_floating_point else {"low": 0 if dtype is genesis.uint8 else -3, "high": 3}
    for i, n in enumerate((1, 3, 31, 33, 511, 512, 513, 1000, 1024, 4095, 4096, 4097)):
        flat = make_tensor((3 * n + 1,), dtype, device, seed=i, **kw)[0]
        for x in (flat[: 3 * n].reshape(3, n), flat[1:].reshape(3, n)):
            _check(genesis.cumsum(x, 1), torch.cumsum(_torch(x), 1))
            if dtype.is_floating_point:
                _check(genesis.logcumsumexp(x, 1), torch.logcumsumexp(_torch(x), 1))
                p = (x * 0.01 + 1).to(dtype)
                _check(genesis.cumprod(p, 1), torch.cumprod(_torch(p), 1))


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"])
def test_zero_d_and_zero_size(device, op):
    dtype = genesis.float32
    x = genesis.tensor(2.5, device=device)
    for dim in (0, -1):
        want = getattr(torch, op)(_torch(x), dim)
        got = getattr(genesis, op)(x, dim)
        if op in ("cummax", "cummin"):
            _check(got.values, want.values)
            _check(got.indices, want.indices)
        else:
            _check(got, want)
    for shape, dim in (((0,), 0), ((3, 0), 0), ((3, 0, 2), -1), ((0, 4), 1)):
        x = genesis.empty(shape, dtype=dtype, device=device)
        want = getattr(torch, op)(torch.empty(shape), dim)
        got = getattr(genesis, op)(x, dim)
        if op in ("cummax", "cummin"):
            _check(got.values, want.values)
            _check(got.indices, want.indices)
        else:
            _check(got, want)


def test_dtype_argument(device):
    x = make_tensor((4, 5), genesis.int8, device, seed=2)[0]
    for dtype in (genesis.int8, genesis.int32, genesis.float32, genesis.float64, genesis.float16):
        for op in ("cumsum", "cumprod"):
            want = getattr(torch, op)(_torch(x), 1, dtype=TORCH[dtype])
            _check(getattr(genesis, op)(x, 1, dtype=dtype), want)
            _check(getattr(x, op)(1, dtype=dtype), want)
    # dtype converts the input first: 2.5 -> 2.
    y = genesis.tensor([2.5, 3.7, -1.2], device=device)
    _check(genesis.cumprod(y, 0, dtype=genesis.int64), torch.tensor([2, 6, -6]))
    # bool sums to int64 by default.
    b = genesis.tensor([True, False, True, True], device=device)
    _check(genesis.cumsum(b, 0), torch.tensor([1, 1, 2, 3]))
    _check(genesis.cumprod(b, 0), torch.tensor([1, 0, 0, 0]))


def test_half_accumulates_in_float32(device):
    # 4096 ones: a float16 accumulator would stop at 2048.
    x = genesis.ones(4096, dtype=genesis.float16, device=device)
    got = genesis.cumsum(x, 0)
    assert got.dtype is genesis.float16
    _check(got, torch.cumsum(torch.ones(4096, dtype=torch.float16), 0))


def test_out(device):
    x = make_tensor((3, 4), genesis.int32, device, seed=4, low=-9, high=9)[0]
    out = genesis.empty((3, 4), dtype=genesis.int64, device=device)
    r = genesis.cumsum(x, 1, out=out)
    assert r is out
    _check(out, torch.cumsum(_torch(x), 1))
    out32 = genesis.empty((3, 4), dtype=genesis.int32, device=device)
    assert genesis.cumprod(x, 0, out=out32) is out32
    _check(out32, torch.cumprod(_torch(x), 0).to(torch.int32))
    f = x.to(genesis.float32)
    out = genesis.empty((3, 4), device=device)
    assert genesis.logcumsumexp(f, 0, out=out) is out
    _check(out, torch.logcumsumexp(_torch(f), 0))
    values = genesis.empty((3, 4), dtype=genesis.int32, device=device)
    indices = genesis.empty((3, 4), dtype=genesis.int64, device=device)
    r = genesis.cummax(x, 1, out=(values, indices))
    w = torch.cummax(_torch(x), 1)
    assert r.values is values and r.indices is indices
    _check(values, w.values)
    _check(indices, w.indices)
    with pytest.raises(RuntimeError, match=r"^\[cummin\]"):
        genesis.cummin(x, 1, out=(indices, indices))
    with pytest.raises(TypeError, match=r"^\[cummin\]"):
        genesis.cummin(x, 1, out=values)
    wrong = genesis.empty(5, dtype=genesis.int64, device=device)  # resized, as PyTorch
    with pytest.warns(UserWarning, match=r"^\[cumsum\] An output with one or more elements"):
        genesis.cumsum(x, 1, out=wrong)
    assert wrong.shape == x.shape


@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize(
    "dtype", [genesis.int32, genesis.uint8, genesis.float32, genesis.bfloat16], ids=dtype_id
)
def test_in_place(device, op, dtype):
    for layout in LAYOUTS:
        x = _input((4, 6), dtype, device, seed=5, layout=layout, **_data(op[:-1], dtype))
        t = _torch(x)
        getattr(t, op)(0)
        assert getattr(x, op)(0) is x
        _check(x, t)
        x = _input((4, 6), dtype, device, seed=6, layout=layout, **_data(op[:-1], dtype))
        t = _torch(x)
        getattr(t, op)(-1, dtype=TORCH[dtype])
        getattr(x, op)(-1, dtype=dtype)
        _check(x, t)
    with pytest.raises(RuntimeError, match=rf"^\[{op}\]"):
        getattr(genesis.ones(3, dtype=genesis.float32, device=device), op)(0, dtype=genesis.float64)
    with pytest.raises(TypeError, match=rf"^\[{op}\]"):
        getattr(genesis.ones(3, dtype=genesis.bool, device=device), op)(0)


def test_in_place_view_writes_through(device):
    base = genesis.arange(12, device=device).reshape(3, 4)
    view = base[:, 1:3]
    view.cumsum_(0)
    want = torch.arange(12).reshape(3, 4)
    want[:, 1:3].cumsum_(0)
    _check(base, want)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"])
def test_bad_dim(device, op):
    x = genesis.ones((2, 3), device=device)
    for dim in (2, -3, 100):
        with pytest.raises(IndexError, match=rf"^\[{op}\] dimension out of range"):
            getattr(genesis, op)(x, dim)
    with pytest.raises(IndexError, match=rf"^\[{op}\]"):
        getattr(genesis, op)(genesis.tensor(1.0, device=device), 1)
    with pytest.raises(TypeError):
        getattr(genesis, op)(x)  # dim is required


def test_bad_dtypes(device):
    for dtype in (genesis.int64, genesis.bool, genesis.uint8):
        x = genesis.ones(3, dtype=dtype, device=device)
        with pytest.raises(TypeError, match=r"^\[logcumsumexp\]"):
            genesis.logcumsumexp(x, 0)
    with pytest.raises(TypeError, match=r"^\[cumsum\]"):
        genesis.cumsum(genesis.ones(3, device=device), 0, dtype=genesis.bool)


def test_read_only_out_is_refused():
    buf = np.zeros(4, np.int64)
    buf.setflags(write=False)
    out = genesis.from_numpy(buf)
    with pytest.raises(ValueError, match=r"^\[cumsum\] cannot write into a read-only"):
        genesis.cumsum(genesis.ones(4, dtype=genesis.int64), 0, out=out)
    assert buf.tolist() == [0, 0, 0, 0]
