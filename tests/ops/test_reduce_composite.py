"""amax/amin/aminmax, logsumexp, nansum/nanmean, count_nonzero, var_mean/std_mean, norm, diff and
genesis.linalg's norms against PyTorch: random data, several dims, keepdim, 0-d, zero-size and
non-contiguous inputs, CPU and CUDA; bad input raises an error naming the op.
"""

import math

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


def _pair(shape, dtype, device, seed=0, stepped=False):
    x, _ = make_tensor(shape, dtype, device, seed=seed)
    if stepped:
        x = x[..., ::-2]
    t = torch.from_numpy(np.ascontiguousarray(to_numpy(x))).to(TORCH[dtype])
    return x, t


def _close(got, want, dtype=None):
    want = want.to(torch.float64) if want.dtype in (torch.bfloat16, torch.float16) else want
    g = to_numpy(got).astype(np.float64) if want.is_floating_point() else to_numpy(got)
    assert tuple(got.shape) == tuple(want.shape)
    tol = {genesis.float16: 2e-3, genesis.bfloat16: 2e-2}.get(dtype, 1e-5)
    np.testing.assert_allclose(g, want.numpy(), rtol=tol, atol=tol, equal_nan=True)


DIMS = [None, 0, -1, (0, 2), (2, 0, 1), ()]
NP_OF = {genesis.float32: np.float32, genesis.float64: np.float64}


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_amax_amin_aminmax(device, dtype):
    x, t = _pair((3, 4, 6), dtype, device, seed=1, stepped=True)
    if dtype is genesis.bool:
        pytest.skip("torch's amax of bool is covered by any/all")
    for dim in DIMS:
        tdim = () if dim is None else dim
        for keepdim in (False, True):
            _close(genesis.amax(x, tdim, keepdim), torch.amax(t, tdim, keepdim), dtype)
            _close(x.amin(dim=tdim, keepdim=keepdim), t.amin(dim=tdim, keepdim=keepdim), dtype)
    r, w = x.aminmax(dim=1), t.aminmax(dim=1)
    _close(r.min, w.min, dtype)
    _close(r.max, w.max, dtype)
    _close(genesis.aminmax(x).max, torch.aminmax(t).max, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("n", [1, 15, 16, 17, 1000, 300_001])
def test_aminmax_in_one_pass(device, dtype, n):
    # Rows (the reduced items contiguous) take one pass on the CPU (Note [Min and max in one
    # pass]): 16 lanes, a tail, pieces over the threads for a long row; columns, bool and the
    # 16-bit floats take two reductions there. CUDA reads once (MinMaxReducer), in chunks for a
    # long row (300_001). All must agree with NumPy.
    if dtype is genesis.bool:
        pytest.skip("torch's aminmax of bool is covered by any/all")
    x, _ = make_tensor((n,), dtype, device, seed=n)
    a = to_numpy(x).astype(np.float64)
    r = genesis.aminmax(x)
    assert r.min.shape == () and r.min.dtype == dtype
    assert to_numpy(r.min) == a.min() and to_numpy(r.max) == a.max()
    k = genesis.aminmax(x, keepdim=True)
    assert k.min.shape == (1,) and to_numpy(k.max)[0] == a.max()
    rows = x[: n - n % 3].reshape(3, -1) if n >= 3 else x.reshape(1, -1)
    b = to_numpy(rows).astype(np.float64)
    for dim, keepdim in ((-1, False), (1, True), (0, False)):
        got = genesis.aminmax(rows, dim=dim, keepdim=keepdim)
        np.testing.assert_array_equal(to_numpy(got.min), b.min(axis=dim, keepdims=keepdim))
        np.testing.assert_array_equal(to_numpy(got.max), b.max(axis=dim, keepdims=keepdim))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize(
    "shape, dim",
    [
        ((4096, 8), 0),  # columns: many chunks of the reduced dim, a block combines each output
        ((1000, 300), 0),  # columns: a few chunks, a thread combines each output
        ((7, 50_001), 1),  # few long rows, cut into chunks
        ((64, 9, 33), (0, 2)),  # dims apart: permuted first
        ((5, 1, 3), 1),  # only a size-1 dim reduced
    ],
)
def test_aminmax_layouts(device, dtype, shape, dim):
    # Every reduction layout against NumPy, bit for bit (min and max pick an item), also through
    # a transposed and a reversed view.
    x, _ = make_tensor(shape, dtype, device, seed=len(shape) + shape[-1])
    for view in (x, x.flip(-1), x.transpose(0, -1).transpose(0, -1)):
        a = to_numpy(view)
        r = genesis.aminmax(view, dim=dim)
        np.testing.assert_array_equal(to_numpy(r.min), a.min(axis=dim))
        np.testing.assert_array_equal(to_numpy(r.max), a.max(axis=dim))
        assert r.min.dtype == dtype and r.max.dtype == dtype


def test_aminmax_of_nothing_raises(device):
    # No identity for min or max: an empty reduced dim raises, an empty kept dim gives empties.
    with pytest.raises(IndexError, match="aminmax"):
        genesis.zeros(2, 0, device=device).aminmax(dim=1)
    with pytest.raises(IndexError, match="aminmax"):
        genesis.aminmax(genesis.zeros(0, device=device))
    r = genesis.zeros(0, 3, device=device).aminmax(dim=1)
    assert r.min.shape == (0,) and r.max.shape == (0,)


@pytest.mark.parametrize("where", [0, 5, 16, 40, -1])
def test_aminmax_nan_anywhere(device, where):
    # NaN in a lane's first item, inside the lanes, after them, and in the tail: both NaN.
    a = np.random.default_rng(4).standard_normal(10_001).astype(np.float32)
    a[where] = np.nan
    for t in (genesis.tensor(a, device=device), genesis.tensor(a.reshape(73, 137), device=device)):
        r = genesis.aminmax(t)
        assert np.isnan(to_numpy(r.min)) and np.isnan(to_numpy(r.max))
    rows = genesis.aminmax(genesis.tensor(a[:10_000].reshape(100, 100), device=device), dim=1)
    nan_row = (where % 10_001) // 100 if where != -1 else None
    for i, (lo, hi) in enumerate(zip(to_numpy(rows.min), to_numpy(rows.max))):
        assert np.isnan(lo) == np.isnan(hi) == (i == nan_row)


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
def test_aminmax_infinities_are_no_nan(device, dtype):
    # An infinity turns the one pass's NaN check on (inf * 0 is NaN); its second look finds none.
    a = np.random.default_rng(5).standard_normal(5000)
    a[[7, 3000]] = np.inf
    a[100] = -np.inf
    r = genesis.aminmax(genesis.tensor(a, dtype=dtype, device=device))
    assert to_numpy(r.min) == -np.inf and to_numpy(r.max) == np.inf
    rows = genesis.aminmax(genesis.tensor(a.reshape(50, 100), dtype=dtype, device=device), dim=1)
    want = a.reshape(50, 100).astype(NP_OF[dtype])
    np.testing.assert_array_equal(to_numpy(rows.min), want.min(1))
    np.testing.assert_array_equal(to_numpy(rows.max), want.max(1))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_logsumexp_nansum_nanmean_norms(device, dtype):
    x, t = _pair((3, 4, 6), dtype, device, seed=2, stepped=True)
    x, t = x / 30, t / 30  # exp stays finite in every dtype
    for dim in DIMS:
        if dim == ():
            continue
        tdim = tuple(range(3)) if dim is None else dim
        for keepdim in (False, True):
            _close(x.logsumexp(dim, keepdim), torch.logsumexp(t, tdim, keepdim), dtype)
            _close(genesis.nansum(x, dim, keepdim), torch.nansum(t, tdim, keepdim), dtype)
            _close(x.nanmean(dim, keepdim), t.nanmean(tdim, keepdim), dtype)
            for p in (2, 1, 3, 0.5, math.inf, -math.inf, 0):
                _close(
                    genesis.linalg.vector_norm(x, p, dim, keepdim),
                    torch.linalg.vector_norm(t, p, dim, keepdim),
                    dtype,
                )
            want = torch.linalg.vector_norm(t, 2, dim, keepdim)  # torch.norm refuses 3 dims
            _close(x.norm(dim=dim, keepdim=keepdim), want, dtype)
    for ord in ("fro", 1, -1, math.inf, -math.inf):
        for dim in ((-2, -1), (0, 2), (2, 0)):
            _close(
                genesis.linalg.matrix_norm(x, ord, dim),
                torch.linalg.matrix_norm(t, ord, dim),
                dtype,
            )
    _close(
        genesis.linalg.matrix_norm(x, keepdim=True),
        torch.linalg.matrix_norm(t, keepdim=True),
        dtype,
    )


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
def test_matrix_norms_from_singular_values(device, dtype):
    # ord 2, -2 and 'nuc' come from linalg.svdvals: batched, any pair of dims, non-contiguous.
    x, t = _pair((2, 3, 4, 10), dtype, device, seed=4, stepped=True)  # (2, 3, 4, 5) stepped
    for ord in (2, -2, "nuc"):
        for dim in ((-2, -1), (1, 3), (3, 0), (2, 1)):
            for keepdim in (False, True):
                _close(
                    genesis.linalg.matrix_norm(x, ord, dim, keepdim),
                    torch.linalg.matrix_norm(t, ord, dim, keepdim),
                    dtype,
                )
    for shape in ((0, 3), (3, 0), (2, 0, 0)):
        e = genesis.zeros(shape, dtype=dtype, device=device)
        for ord in (2, "nuc"):
            _close(
                genesis.linalg.matrix_norm(e, ord),
                torch.linalg.matrix_norm(torch.zeros(shape, dtype=TORCH[dtype]), ord),
            )
        with pytest.raises(IndexError, match=r"^\[matrix_norm\] ord -2 of an empty matrix"):
            genesis.linalg.matrix_norm(e, -2)
    _close(x.norm("nuc", dim=(0, 2)), torch.norm(t, "nuc", dim=(0, 2)), dtype)


LINALG_NORM_CALLS = [
    {},
    {"ord": 2},
    {"ord": -2},
    {"ord": "fro"},
    {"ord": "nuc"},
    {"ord": math.inf},
    {"ord": -1},
    {"dim": 1},
    {"dim": -1, "ord": 3},
    {"dim": (0, 1)},
    {"dim": (1, 0), "ord": 2, "keepdim": True},
    {"keepdim": True},
    {"ord": 1, "dim": 0, "keepdim": True},
]


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
def test_linalg_norm_matches_torch(device, dtype):
    x, t = _pair((4, 10), dtype, device, seed=5, stepped=True)
    for kwargs in LINALG_NORM_CALLS:
        _close(genesis.linalg.norm(x, **kwargs), torch.linalg.norm(t, **kwargs), dtype)
    v, u = _pair((7,), dtype, device, seed=6)
    for kwargs in ({}, {"ord": 1}, {"ord": math.inf}, {"ord": 0.5}, {"dim": 0, "keepdim": True}):
        _close(genesis.linalg.norm(v, **kwargs), torch.linalg.norm(u, **kwargs), dtype)
    # Without ord and dim: the 2-norm of every element, any number of dims.
    b, w = _pair((2, 3, 4), dtype, device, seed=7)
    _close(genesis.linalg.norm(b), torch.linalg.norm(w), dtype)
    _close(genesis.linalg.norm(b, keepdim=True), torch.linalg.norm(w, keepdim=True), dtype)
    _close(genesis.linalg.norm(b, dim=(2, 0)), torch.linalg.norm(w, dim=(2, 0)), dtype)
    s = genesis.tensor(-3.0, dtype=dtype, device=device)
    assert genesis.linalg.norm(s).item() == 3.0
    r = genesis.linalg.norm(x, dtype=genesis.float64)
    assert r.dtype == genesis.float64


def test_nan_handling(device):
    a = np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, np.nan]], dtype=np.float32)
    x, t = genesis.tensor(a, device=device), torch.from_numpy(a)
    _close(x.nansum(1), t.nansum(1))
    _close(x.nanmean(1), t.nanmean(1))
    _close(x.amax(1), t.amax(1))
    _close(
        genesis.tensor([-math.inf, -math.inf], device=device).logsumexp(0),
        torch.tensor([-math.inf] * 2).logsumexp(0),
    )
    _close(
        genesis.tensor([math.inf, 1.0], device=device).logsumexp(0),
        torch.tensor([math.inf, 1.0]).logsumexp(0),
    )
    _close(
        genesis.tensor([1000.0, 1000.0], device=device).logsumexp(0),
        torch.tensor([1000.0] * 2).logsumexp(0),
    )


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_logsumexp_of_rows(device, dtype):
    """logsumexp over the last dim of contiguous rows (on CUDA one kernel up to 1024 items a row,
    Note [Fused row logsumexp]): every row length around the kernel's lane and pack widths, large
    values, rows of -inf, rows holding +inf or NaN, keepdim, 1-d input, an unaligned start, and
    rows too long for the kernel, against torch."""
    rng = np.random.default_rng(3)
    for cols in (1, 3, 8, 17, 33, 64, 100, 256, 513, 1000, 1024, 1025, 3000):
        a = rng.standard_normal((5, cols)) * 4 + 50
        a[1] = -math.inf
        a[2, cols // 2] = math.inf
        a[3, cols - 1] = math.nan
        t = torch.from_numpy(a).to(TORCH[dtype])
        x = genesis.tensor(a, dtype=dtype, device=device)
        for keepdim in (False, True):
            _close(x.logsumexp(-1, keepdim), torch.logsumexp(t, -1, keepdim), dtype)
        _close(x[4].logsumexp(0), torch.logsumexp(t[4], 0), dtype)
        flat = genesis.tensor(a.reshape(-1), dtype=dtype, device=device)
        shifted = flat[1:].reshape(-1)[: 4 * cols].reshape(4, cols)  # starts one item in
        _close(
            shifted.logsumexp(1),
            torch.logsumexp(t.reshape(-1)[1 : 4 * cols + 1].reshape(4, cols), 1),
            dtype,
        )


def test_float32_logsumexp_of_rows_is_within_float32_rounding(device):
    """The fused rows' exponentials are the hardware's ex2 (Note [Fused row logsumexp]): against
    float64 on the same float32 inputs, results of every size within a few float32 ulps, and
    near-zero results within 1e-6."""
    rng = np.random.default_rng(11)
    for cols, scale, shift in ((1024, 4.0, 0.0), (1000, 1.0, -math.log(1000)), (37, 30.0, 5.0)):
        a = (rng.standard_normal((64, cols)) * scale + shift).astype(np.float32)
        want = torch.logsumexp(torch.from_numpy(a).double(), 1).numpy()
        got = to_numpy(genesis.tensor(a, device=device).logsumexp(1)).astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=5e-7, atol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_count_nonzero_and_diff(device, dtype):
    x, t = _pair((4, 5), dtype, device, seed=3)
    if dtype.is_floating_point:  # zeros to count
        x = x * (x > x.mean())
    a = to_numpy(x)
    t = torch.from_numpy(np.ascontiguousarray(a)).to(TORCH[dtype])
    for dim in (None, 0, 1, (0, 1)):
        assert (
            to_numpy(genesis.count_nonzero(x, dim)).tolist() == torch.count_nonzero(t, dim).tolist()
        )
    for n, dim in ((1, -1), (2, 0), (0, 1), (7, 1)):
        if dtype is genesis.bool and n > 1:
            continue
        got, want = x.diff(n, dim), torch.diff(t, n, dim)
        assert got.dtype == dtype
        _close(got, want, dtype)
    pre, tpre = _pair((4, 1), dtype, device, seed=4)
    got = genesis.diff(x, dim=1, prepend=pre, append=pre)
    _close(got, torch.diff(t, dim=1, prepend=tpre, append=tpre), dtype)


def test_var_mean_std_mean(device):
    x, t = _pair((3, 5), genesis.float32, device, seed=5, stepped=True)
    for dim in (None, 0, 1):
        for g, w in ((genesis.var_mean, torch.var_mean), (genesis.std_mean, torch.std_mean)):
            got, want = g(x, dim), w(t, dim)
            _close(got[0], want[0])
            _close(got[1], want[1])
    got, want = (
        genesis.var_mean(x, 1, correction=0, keepdim=True),
        torch.var_mean(t, 1, correction=0, keepdim=True),
    )
    _close(got[0], want[0])


def test_edges(device):
    e = genesis.zeros(0, 3, device=device)
    assert genesis.nansum(e).item() == 0.0 and math.isnan(genesis.nanmean(e).item())
    assert genesis.logsumexp(e, 0).tolist() == [-math.inf] * 3
    assert genesis.linalg.vector_norm(e).item() == 0.0
    assert genesis.count_nonzero(e).item() == 0
    assert e.diff(dim=0).shape == (0, 3) and e.diff(dim=1).shape == (0, 2)
    s = genesis.tensor(-3.0, device=device)
    assert s.amax().item() == -3.0 and s.norm().item() == 3.0 and s.logsumexp().item() == -3.0


@pytest.mark.parametrize(
    "call, exc, op",
    [
        (lambda: genesis.zeros(2, 0).amax(1), IndexError, "amax"),
        (lambda: genesis.zeros(0).amin(), IndexError, "amin"),
        (lambda: genesis.zeros(2, 3).amax((0, 0)), RuntimeError, "amax"),
        (lambda: genesis.arange(3).norm(), TypeError, "vector_norm"),
        (lambda: genesis.linalg.vector_norm(genesis.arange(3)), TypeError, "vector_norm"),
        (lambda: genesis.linalg.matrix_norm(genesis.zeros(3)), ValueError, "matrix_norm"),
        (lambda: genesis.linalg.matrix_norm(genesis.zeros(3, 3), 3), ValueError, "matrix_norm"),
        (lambda: genesis.linalg.matrix_norm(genesis.zeros(3, 3), "max"), ValueError, "matrix_norm"),
        (
            lambda: genesis.linalg.matrix_norm(genesis.zeros(3, 3, dtype=genesis.float16), 2),
            RuntimeError,
            "linalg.svdvals",
        ),
        (lambda: genesis.linalg.norm(genesis.zeros(2, 2, 2), 2), ValueError, "linalg.norm"),
        (lambda: genesis.linalg.norm(genesis.zeros(3), "fro"), ValueError, "linalg.norm"),
        (lambda: genesis.linalg.norm(genesis.zeros(3, 3), "fro", 0), ValueError, "linalg.norm"),
        (
            lambda: genesis.linalg.norm(genesis.zeros(2, 2, 2), dim=(0, 1, 2)),
            ValueError,
            "linalg.norm",
        ),
        (lambda: genesis.linalg.norm(genesis.arange(3)), TypeError, "vector_norm"),
        (
            lambda: genesis.linalg.matrix_norm(genesis.zeros(3, 3), dim=(0, 0)),
            ValueError,
            "matrix_norm",
        ),
        (lambda: genesis.zeros(3).norm("max"), ValueError, "norm"),
        (lambda: genesis.arange(3).nanmean(), RuntimeError, "nanmean"),
        (lambda: genesis.zeros(3).diff(-1), ValueError, "diff"),
        (lambda: genesis.tensor(1.0).diff(), ValueError, "diff"),
        (lambda: genesis.var_mean(genesis.arange(3)), RuntimeError, "var"),
    ],
)
def test_errors(call, exc, op):
    with pytest.raises(exc, match=rf"^\[{op}\]"):
        call()


@pytest.mark.parametrize("dt", [genesis.float16, genesis.bfloat16], ids=str)
def test_nanmean_of_16_bit_floats_counts_past_their_range(device, dt):
    # The count (and the sum) run in float32: 80000 values of 0.25 gave 0.0 in float16 (a count
    # of 80000 is inf there). torch gives 0.25.
    x = genesis.full((80000,), 0.25, device=device).to(dt)
    x[::7] = float("nan")
    assert genesis.nanmean(x).item() == 0.25
    assert genesis.nanmean(x).dtype == dt
    rows = genesis.full((3, 70000), 2.0, device=device).to(dt)
    assert genesis.nanmean(rows, dim=1).tolist() == [2.0, 2.0, 2.0]
    big = genesis.full((100000,), 60000.0, device=device).to(genesis.float16)
    assert genesis.nanmean(big).item() == 60000.0  # the sum is far past float16's range


def test_logsumexp_of_float16_over_more_items_than_float16_holds(device):
    # sum(exp(x - max)) reaches the count: 80000 items summed in float16 gave inf (torch too).
    x = genesis.full((2, 80000), 0.25, device=device).to(genesis.float16)
    cases = [
        (genesis.logsumexp(x, 1), 80000),
        (genesis.logsumexp(x[0], 0), 80000),
        (genesis.logsumexp(x, (0, 1)), 160000),
    ]
    for got, count in cases:
        assert got.dtype == genesis.float16
        want = np.log(count) + 0.25
        np.testing.assert_allclose(to_numpy(got).astype(np.float64), want, rtol=2e-3)


def test_logsumexp_of_a_0d_float16_tensor_over_its_dim(device):
    # A 0-d tensor's dim 0 is the tensor itself: counting its items read past its (empty) shape.
    x = genesis.tensor(1.5, device=device).half()
    for dim in (0, -1, (0,)):
        assert genesis.logsumexp(x, dim).item() == 1.5
    assert genesis.logsumexp(x, 0, keepdim=True).shape == ()


def test_norm_with_p_none_and_16_bit_p_norms(device):
    x = genesis.tensor([3.0, 4.0], device=device)
    assert genesis.norm(x, p=None).item() == 5.0 and x.norm(p=None).item() == 5.0
    # |x|^3 of float16 3208 overflowed: the p-norm sums in float32 (torch 5360).
    h = genesis.tensor([3208.0, 4948.0], device=device).half()
    want = torch.norm(torch.tensor([3208.0, 4948.0]).half(), p=3).item()
    assert genesis.norm(h, p=3).dtype == genesis.float16
    assert genesis.norm(h, p=3).item() == want
