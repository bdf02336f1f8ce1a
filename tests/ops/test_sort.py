"""Sorting and selection (sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, quantile,
nanquantile, unique, unique_consecutive) and binary search (searchsorted, bucketize) against
PyTorch: every dtype, duplicates, NaN and -0.0, several dims, 0-d, zero-size and non-contiguous
inputs, the CUDA sort paths (one row, many rows, long rows of 64-bit keys), CPU and CUDA; bad
input raises an error naming the op.
"""

import numpy as np
import pytest
from conftest import DTYPES, FLOAT_DTYPES, NP_DTYPE, check_message, dtype_id, to_numpy
from hypothesis import given, settings
from hypothesis import strategies as st

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


def _data(shape, dtype, seed=0, specials=True):
    """Random values with many duplicates; floats also hold NaN, +-inf and -0.0."""
    rng = np.random.default_rng(seed)
    if dtype is genesis.bool:
        return rng.integers(0, 2, shape).astype(np.float64)
    a = rng.integers(-6, 7, shape).astype(np.float64)
    if dtype is genesis.uint8:
        a = np.asarray(np.abs(a))
    if dtype in FLOAT_DTYPES:
        a = a / 4
        if specials and a.size >= 8:
            flat = a.reshape(-1)
            picks = rng.choice(flat.size, 4, replace=False)
            flat[picks] = [np.nan, np.inf, -np.inf, -0.0]
    return np.asarray(a)


def _pair(shape, dtype, device, seed=0, stepped=False, specials=True):
    a = _data(shape, dtype, seed, specials)
    t = torch.from_numpy(a).to(TORCH[dtype])
    x = genesis.tensor(a, dtype=dtype, device=device)
    if stepped:
        x, t = x[..., ::-2], t.flip(-1)[..., ::2]
    return x, t


def _np(t):
    if isinstance(t, torch.Tensor):
        t = t.to(torch.float64) if t.dtype in (torch.bfloat16, torch.float16) else t
        return t.numpy()
    a = to_numpy(t)
    return a.astype(np.float64) if a.dtype == np.float16 else a


def _same(got, want):
    """Exact equality, NaN equal to NaN, -0.0 equal to 0.0 (the sign is checked separately)."""
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    np.testing.assert_array_equal(_np(got), _np(want))


SHAPES = [(), (0,), (7,), (4, 9), (3, 0, 5), (3, 4, 6)]


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_sort_argsort_match_torch_stable(device, dtype):
    for shape in SHAPES:
        x, t = _pair(shape, dtype, device, seed=len(shape))
        for dim in range(-max(len(shape), 1), max(len(shape), 1)):
            for descending in (False, True):
                got = x.sort(dim, descending)
                want = torch.sort(t, dim=dim, descending=descending, stable=True)
                _same(got.values, want.values)
                _same(got.indices, want.indices)
                assert got.indices.dtype is genesis.int64
                _same(genesis.argsort(x, dim, descending), want.indices)
    x, t = _pair((5, 12), dtype, device, seed=3, stepped=True)
    got, want = genesis.sort(x, 1, stable=True), torch.sort(t, dim=1, stable=True)
    _same(got.values, want.values)
    _same(got.indices, want.indices)


def test_sort_keeps_negative_zero_and_nan_payloads(device):
    x = genesis.tensor([0.0, -0.0, float("nan"), -1.0, -0.0], device=device)
    values = x.sort().values.cpu().numpy()
    assert list(np.signbit(values[1:4])) == [False, True, True]  # 0.0, -0.0, -0.0 in input order
    assert np.isnan(values[4])


@pytest.mark.parametrize(
    "shape, dtype",
    [
        ((1, 200_003), genesis.float32),  # one long row: a plain radix sort
        ((37, 1_001), genesis.float16),  # many rows of narrow keys: one packed radix sort
        ((300, 50), genesis.float64),  # many short rows of 64-bit keys: segmented sort
        ((3, 70_000), genesis.int64),  # long rows of 64-bit keys: one radix sort per row
        ((2, 100_000), genesis.uint8),
        ((1, (1 << 20) + 17), genesis.float32),  # CPU: radix passes in parallel tasks
        ((1, (1 << 20) + 5), genesis.int64),
    ],
)
def test_sort_paths(device, shape, dtype):
    x, t = _pair(shape, dtype, device, seed=11)
    for descending in (False, True):
        got = x.sort(descending=descending)
        want = torch.sort(t, descending=descending, stable=True)
        _same(got.values, want.values)
        _same(got.indices, want.indices)


@pytest.mark.parametrize(
    "dtype", [genesis.float32, genesis.float16, genesis.int32, genesis.int16], ids=dtype_id
)
def test_sort_of_a_long_row_of_spread_keys(device, dtype):
    """A row of 2^20 + 3 spread keys: on the CPU the sort by prefix groups, whose groups write
    their positions and values in runs (Note [Values from keys]); zeros of both signs and NaNs
    among normals are read back through their positions, in input order."""
    n = (1 << 20) + 3
    rng = np.random.default_rng(5)
    if dtype in FLOAT_DTYPES:
        # float32 values: torch rounds float64 to float16 through float32 (twice), genesis once
        a = (rng.standard_normal(n) * 100).astype(np.float32).astype(np.float64)
        a[rng.choice(n, 600, replace=False)] = np.repeat([0.0, -0.0, np.nan], 200)
    else:
        a = rng.integers(-30000, 30000, n).astype(np.float64)
    t = torch.from_numpy(a).to(TORCH[dtype])
    x = genesis.tensor(a, dtype=dtype, device=device)
    for descending in (False, True):
        got = x.sort(descending=descending)
        want = torch.sort(t, descending=descending, stable=True)
        _same(got.values, want.values)
        _same(got.indices, want.indices)
        g, w = _np(got.values), _np(want.values)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_sort_of_one_long_row_at_any_offset(device, dtype):
    """One row longer than 2048 items: on CUDA its keys, positions and results move in 16-byte
    vectors when the tensors are aligned (Note [One row in vectors]) and item by item when a
    view starts off alignment; lengths with a tail after the last vector, against torch."""
    x, t = _pair((5003,), dtype, device, seed=21)
    for start in (0, 1, 3):
        for length in (4096, 4099, 5003 - start):
            xs, ts = x[start : start + length], t[start : start + length]
            for descending in (False, True):
                got = xs.sort(descending=descending)
                want = torch.sort(ts, descending=descending, stable=True)
                _same(got.values, want.values)
                _same(got.indices, want.indices)
                _same(xs.argsort(descending=descending, stable=True), want.indices)
                if dtype in FLOAT_DTYPES:  # the sign of a zero survives the sort
                    g, w = _np(got.values), _np(want.values)
                    keep = ~np.isnan(w)
                    np.testing.assert_array_equal(np.signbit(g[keep]), np.signbit(w[keep]))


NOT_BOOL = [d for d in DTYPES if d is not genesis.bool]  # torch has no bool topk/kthvalue/mode


@pytest.mark.parametrize("dtype", NOT_BOOL, ids=dtype_id)
def test_topk_is_the_stable_sort_prefix(device, dtype):
    x, t = _pair((4, 9), dtype, device, seed=5)
    for k in (0, 1, 4, 9):
        for largest in (True, False):
            for dim in (-1, 0):
                if k > x.shape[dim]:
                    continue
                got = x.topk(k, dim, largest)
                want = torch.sort(t, dim=dim, descending=largest, stable=True)
                _same(got.values, want.values.narrow(dim, 0, k))
                _same(got.indices, want.indices.narrow(dim, 0, k))
                _same(got.values, torch.topk(t, k, dim, largest).values)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_sort_rows_of_every_length_class(device, dtype):
    """CUDA sorts rows of up to 2048 items with keys of up to 32 bits in shared memory, one block
    a row (1, 2, 4 or 8 items a thread), longer ones with device-wide radix sorts: each against
    torch's stable sort, values (with -0.0 and NaN read back from the input) and positions."""
    for cols in (1, 255, 256, 300, 1000, 1024, 2047, 2048, 2049):
        x, t = _pair((3, cols), dtype, device, seed=cols)
        for descending in (False, True):
            got = x.sort(dim=1, descending=descending, stable=True)
            want = torch.sort(t, dim=1, descending=descending, stable=True)
            _same(got.values, want.values)
            _same(got.indices, want.indices)
            if dtype in FLOAT_DTYPES:  # the sign of a zero survives the sort
                g, w = _np(got.values), _np(want.values)
                keep = ~np.isnan(w)
                np.testing.assert_array_equal(np.signbit(g[keep]), np.signbit(w[keep]))


@pytest.mark.parametrize("dtype", NOT_BOOL, ids=dtype_id)
def test_topk_by_a_running_bound(device, dtype):
    """The CPU keeps a heap of the k best for small k (Note [Top k by a running bound]), splits
    a long row over threads, and falls back to the selection when a row keeps entering the heap
    (sorted against the wanted order): every path gives the stable sort's prefix."""
    x, t = _pair((64, 1000), dtype, device, seed=31)
    long_x, long_t = _pair(((1 << 17) + 3,), dtype, device, seed=32)
    ramp = np.arange(3000, dtype=np.float64) % (
        100 if dtype in (genesis.int8, genesis.uint8) else 3000
    )
    ramp_x, ramp_t = (
        genesis.tensor(ramp, dtype=dtype, device=device),
        torch.from_numpy(ramp).to(TORCH[dtype]),
    )
    cases = [(x, t, -1), (long_x, long_t, 0), (ramp_x, ramp_t, 0)]
    cases.append((ramp_x.flip(0), ramp_t.flip(0), 0))
    for xs, ts, dim in cases:
        for k in (1, 5, 16, 100):
            for largest in (True, False):
                got = xs.topk(k, dim, largest)
                want = torch.sort(ts, dim=dim, descending=largest, stable=True)
                _same(got.values, want.values.narrow(dim, 0, k))
                _same(got.indices, want.indices.narrow(dim, 0, k))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_topk_of_a_long_row(device, dtype):
    """Rows of 2^16 items or more take the radix select on CUDA (keys up to 32 bits): the same
    first k items and positions as a stable sort, ties (many here) by position."""
    x, t = _pair((70001,), dtype, device, seed=8)
    rng = np.random.default_rng(9)
    for k in (1, 16, 1024, 70001):
        for largest in (True, False):
            got = x.topk(k, largest=largest)
            want = torch.sort(t, descending=largest, stable=True)
            _same(got.values, want.values[:k])
            _same(got.indices, want.indices[:k])
    # Distinct values: every digit pass matters (no early ties).
    if dtype in (genesis.float32, genesis.int32, genesis.float64):
        a = rng.permutation(1 << 17).astype(np.float64) - 5000
        x2, t2 = genesis.tensor(a, dtype=dtype, device=device), torch.from_numpy(a).to(TORCH[dtype])
        for k in (1, 7, 1000):
            got, want = x2.view(2, -1).topk(k, dim=1), t2.view(2, -1).topk(k, dim=1)
            _same(got.values, want.values)
            _same(got.indices, want.indices)
            got = x2.view(1, -1, 1).topk(k, dim=1, largest=False)
            want = torch.sort(t2.view(1, -1, 1), dim=1, stable=True)
            _same(got.values, want.values[:, :k])
            _same(got.indices, want.indices[:, :k])


@pytest.mark.parametrize(
    "dtype", [genesis.float16, genesis.float32, genesis.int8, genesis.uint8], ids=dtype_id
)
def test_topk_of_long_rows_at_any_offset(device, dtype):
    """The radix select reads 16 bytes at a time (Note [Vector loads in radix select]): rows
    that start off a 16-byte boundary, whose length leaves loose items at both ends, and
    constant and sorted rows (one digit for a whole warp) give the stable sort's prefix."""
    base, tbase = _pair((70_000 + 37,), dtype, device, seed=11)
    rows = [(base[off : off + 70_003], tbase[off : off + 70_003]) for off in (0, 1, 3, 8, 17)]
    const = np.full(65_541, 3, dtype=np.float64)
    ramp = np.arange(65_541, dtype=np.float64) % 120 - (0 if dtype is genesis.uint8 else 60)
    for a in (const, ramp):
        rows.append(
            (genesis.tensor(a, dtype=dtype, device=device), torch.from_numpy(a).to(TORCH[dtype]))
        )
    for x, t in rows:
        for k in (1, 16, 300):
            for largest in (True, False):
                got = x.topk(k, largest=largest)
                want = torch.sort(t, descending=largest, stable=True)
                _same(got.values, want.values[:k])
                _same(got.indices, want.indices[:k])


@pytest.mark.parametrize("dtype", NOT_BOOL, ids=dtype_id)
def test_kthvalue_median_mode(device, dtype):
    x, t = _pair((5, 8), dtype, device, seed=7)
    for dim in (0, 1, -1):
        n = x.shape[dim]
        for keepdim in (False, True):
            for k in (1, n // 2 + 1, n):
                got, want = x.kthvalue(k, dim, keepdim), torch.kthvalue(t, k, dim, keepdim)
                _same(got.values, want.values)
                _same(
                    x.gather(dim, got.indices if keepdim else got.indices.unsqueeze(dim)),
                    want.values if keepdim else want.values.unsqueeze(dim),
                )
            got, want = x.median(dim, keepdim), torch.median(t, dim, keepdim)
            _same(got.values, want.values)
            got, want = x.nanmedian(dim, keepdim), torch.nanmedian(t, dim, keepdim)
            _same(got.values, want.values)
            got, want = x.mode(dim, keepdim), torch.mode(t, dim, keepdim)
            _same(got.values, want.values)
            _same(got.indices, want.indices)
    _same(x.median(), t.median())
    _same(genesis.nanmedian(x), torch.nanmedian(t))


def test_bool_selection_follows_the_sort(device):
    x = genesis.tensor([True, False, True, False, False], device=device)
    _same(x.topk(2).indices, torch.tensor([0, 2]))
    _same(x.kthvalue(4).values, torch.tensor(True))
    _same(x.mode().indices, torch.tensor(4))


def test_median_nan_rules_match_torch(device):
    a = np.array([[3.0, np.nan, 1.0, np.nan, 2.0], [np.nan] * 5, [4.0, 1.0, 2.0, 3.0, 0.5]])
    x, t = genesis.tensor(a, device=device), torch.from_numpy(a)
    for f in ("median", "nanmedian"):
        got, want = getattr(x, f)(1), getattr(t, f)(1)
        _same(got.values, want.values)
        _same(got.indices, want.indices)
    _same(x.median(), t.median())
    _same(genesis.tensor([], device=device).median(), torch.tensor([]).median())


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
def test_quantile_matches_torch(device, dtype):
    x, t = _pair((4, 7, 5), dtype, device, seed=9, specials=False)
    qs = [0.0, 0.3, 0.5, 1.0]
    for interpolation in ("linear", "lower", "higher", "midpoint", "nearest"):
        for dim in (None, 0, -1):
            for keepdim in (False, True):
                for q in (0.25, qs, genesis.tensor(qs, dtype=dtype, device=device)):
                    tq = torch.tensor(q.cpu().numpy()) if isinstance(q, genesis.Tensor) else q
                    tq = tq if not isinstance(tq, list) else torch.tensor(tq, dtype=TORCH[dtype])
                    if isinstance(tq, torch.Tensor):
                        tq = tq.to(TORCH[dtype])
                    got = x.quantile(q, dim, keepdim, interpolation=interpolation)
                    want = torch.quantile(t, tq, dim, keepdim, interpolation=interpolation)
                    assert tuple(got.shape) == tuple(want.shape)
                    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6, atol=1e-6)
    a = np.array([[1.0, np.nan, 3.0, 2.0], [np.nan] * 4], dtype=np.float64)
    y, u = genesis.tensor(a, device=device), torch.from_numpy(a)
    for q in (0.5, [0.1, 0.9]):
        tq = q if isinstance(q, float) else torch.tensor(q, dtype=torch.float64)
        _same(y.quantile(q, 1), torch.quantile(u, tq, 1))
        np.testing.assert_allclose(_np(genesis.nanquantile(y, q, 1)), _np(u.nanquantile(tq, 1)))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_unique_matches_torch(device, dtype):
    for shape in [(), (0,), (11,), (4, 6)]:
        x, t = _pair(shape, dtype, device, seed=13)
        got = genesis.unique(x, return_inverse=True, return_counts=True)
        want = torch.unique(t, return_inverse=True, return_counts=True)
        for g, w in zip(got, want):
            _same(g, w)
        _same(x.unique(), torch.unique(t))
        got = genesis.unique_consecutive(x, return_inverse=True, return_counts=True)
        want = torch.unique_consecutive(t, return_inverse=True, return_counts=True)
        for g, w in zip(got, want):
            _same(g, w)
    x, t = _pair((6, 3), dtype, device, seed=1, specials=False)
    x, t = genesis.cat([x, x[:2]]), torch.cat([t, t[:2]])  # repeated rows
    for dim in (0, 1, -1):
        got = x.unique(dim=dim, return_inverse=True, return_counts=True)
        want = torch.unique(t, dim=dim, return_inverse=True, return_counts=True)
        for g, w in zip(got, want):
            _same(g, w)
        got = x.unique_consecutive(dim=dim, return_inverse=True, return_counts=True)
        want = torch.unique_consecutive(t, dim=dim, return_inverse=True, return_counts=True)
        for g, w in zip(got, want):
            _same(g, w)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_unique_of_floats_without_the_inverse(device, dtype):
    """unique() of floats without the inverse or counts (on CUDA a sort of keys alone, Note
    [Unique of floats]): many repeats, every NaN kept, -0.0 and +0.0 one value, +-inf, long and
    non-contiguous inputs, one item; the same values as torch (zeros compared by value)."""
    rng = np.random.default_rng(7)
    for n in (1, 2, 1000, 70000):
        a = np.round(rng.standard_normal(n) * 8) / 4
        if n >= 8:
            a[rng.choice(n, 8, replace=False)] = [
                np.nan,
                np.nan,
                -np.nan,
                0.0,
                -0.0,
                -0.0,
                np.inf,
                -np.inf,
            ]
        t = torch.from_numpy(a).to(TORCH[dtype])
        x = genesis.tensor(a, dtype=dtype, device=device)
        _same(x.unique(), torch.unique(t))
        _same(genesis.unique(x.reshape(-1, 1)[::3]), torch.unique(t.reshape(-1, 1)[::3]))
        _same(x.unique(sorted=True, return_counts=True)[1], torch.unique(t, return_counts=True)[1])
    empty = genesis.tensor([], dtype=dtype, device=device)
    assert empty.unique().shape == (0,) and empty.unique().dtype == dtype


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [genesis.int32], ids=dtype_id)
def test_unique_of_mostly_distinct_values_and_only_nans(device, dtype):
    """A result that uses most of its room keeps it (Note [Room of unique's results]); negative
    NaNs lead the sorted floats and still come last; inputs of NaNs alone."""
    rng = np.random.default_rng(8)
    a = rng.permutation(3000).astype(np.float64)[:2500]
    a[::10] = a[1::10]  # every tenth repeats its neighbour: 2250 distinct of 2500
    if dtype.is_floating_point:
        a[[3, 700, 1400]] = [-np.nan, np.nan, -np.nan]
    t = torch.from_numpy(a).to(TORCH[dtype])
    got = genesis.tensor(a, dtype=dtype, device=device).unique()
    _same(got, torch.unique(t))
    assert got.is_contiguous() and got.shape == (torch.unique(t).numel(),)
    if dtype.is_floating_point:
        nans = np.array([-np.nan, np.nan, -np.nan, np.nan])
        got = genesis.tensor(nans, dtype=dtype, device=device).unique()
        assert got.shape == (4,) and np.isnan(got.float().cpu().numpy()).all()


INTEGER_DTYPES = [d for d in DTYPES if d not in FLOAT_DTYPES]  # bool too


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
def test_unique_of_integers_over_ranges(device, dtype):
    """unique without the inverse (values, and values with counts) over value ranges that take
    every width of the CUDA sort's key bits (Note [Unique of integers]): one value, small ranges
    away from zero, ranges across zero and across the sign bit, the type's extremes, long
    inputs with many repeats, non-contiguous input."""
    np_dtype = NP_DTYPE[dtype]
    rng = np.random.default_rng(7)
    if dtype is genesis.bool:
        lo_type, hi_type = 0, 1
    else:
        lo_type, hi_type = int(np.iinfo(np_dtype).min), int(np.iinfo(np_dtype).max)
    ranges = [(5, 5), (0, 1), (lo_type, hi_type), (lo_type, lo_type + 3), (hi_type - 3, hi_type)]
    if dtype is not genesis.bool:
        ranges += [(100, 120), (-40, 40), (1000, 1000 + (1 << 13)), (-(1 << 20), 1 << 20)]
    for lo, hi in ranges:
        lo, hi = max(lo, lo_type), min(hi, hi_type)
        if lo > hi:  # a range wider than the type
            continue
        for n in (1, 37, 5000):
            a = rng.integers(lo, hi, n, dtype=np.int64, endpoint=True).astype(np_dtype)
            x = genesis.tensor(a, device=device)
            values, counts = np.unique(a, return_counts=True)
            np.testing.assert_array_equal(to_numpy(x.unique()), values)
            got_values, got_counts = x.unique(return_counts=True)
            np.testing.assert_array_equal(to_numpy(got_values), values)
            np.testing.assert_array_equal(to_numpy(got_counts), counts)
            assert got_values.dtype is dtype and got_counts.dtype is genesis.int64
    a = rng.integers(0, 2 if dtype is genesis.bool else 100, (40, 30)).astype(np_dtype)
    x = genesis.tensor(a, device=device)[::2, ::-3]  # non-contiguous, negative step
    values, counts = np.unique(a[::2, ::-3], return_counts=True)
    got_values, got_counts = x.unique(return_counts=True)
    np.testing.assert_array_equal(to_numpy(got_values), values)
    np.testing.assert_array_equal(to_numpy(got_counts), counts)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(-3, 3), min_size=0, max_size=40),
    st.sampled_from([genesis.int8, genesis.int64, genesis.float32, genesis.float64]),
)
def test_sort_unique_duplicates_hypothesis(values, dtype):
    a = np.array(values, dtype=np.float64)
    x, t = genesis.tensor(a, dtype=dtype), torch.from_numpy(a).to(TORCH[dtype])
    for descending in (False, True):
        got, want = x.sort(descending=descending), t.sort(descending=descending, stable=True)
        _same(got.values, want.values)
        _same(got.indices, want.indices)
    for g, w in zip(
        x.unique(return_inverse=True, return_counts=True),
        t.unique(return_inverse=True, return_counts=True),
    ):
        _same(g, w)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d is not genesis.bool], ids=dtype_id)
def test_searchsorted_bucketize_match_torch(device, dtype):
    s_np = np.sort(_data((9,), dtype, seed=2, specials=False))
    v_np = _data((3, 5), dtype, seed=3, specials=False)
    s, ts = (
        genesis.tensor(s_np, dtype=dtype, device=device),
        torch.from_numpy(s_np).to(TORCH[dtype]),
    )
    v, tv = (
        genesis.tensor(v_np, dtype=dtype, device=device),
        torch.from_numpy(v_np).to(TORCH[dtype]),
    )
    for right in (False, True):
        _same(genesis.searchsorted(s, v, right=right), torch.searchsorted(ts, tv, right=right))
        side = "right" if right else "left"
        _same(genesis.searchsorted(s, v, side=side), torch.searchsorted(ts, tv, side=side))
        got = genesis.searchsorted(s, v, right=right, out_int32=True)
        assert got.dtype is genesis.int32
        _same(got, torch.searchsorted(ts, tv, right=right, out_int32=True))
        _same(genesis.bucketize(v, s, right=right), torch.bucketize(tv, ts, right=right))
        _same(genesis.searchsorted(s, 2, right=right), torch.searchsorted(ts, 2, right=right))
    rows_np = np.sort(_data((3, 6), dtype, seed=4, specials=False), axis=1)
    rows = genesis.tensor(rows_np, dtype=dtype, device=device)
    trows = torch.from_numpy(rows_np).to(TORCH[dtype])
    _same(genesis.searchsorted(rows, v), torch.searchsorted(trows, tv))
    perm = np.random.default_rng(0).permutation(9)
    order = np.argsort(s_np[perm], kind="stable")
    got = genesis.searchsorted(
        s[genesis.tensor(perm, device=device)], v, sorter=genesis.tensor(order, device=device)
    )
    want = torch.searchsorted(ts[perm], tv, sorter=torch.from_numpy(order))
    _same(got, want)


def test_searchsorted_nan_and_promotion(device):
    s = genesis.tensor([1.0, 2.0, float("nan")], device=device)
    got = genesis.searchsorted(s, genesis.tensor([float("nan"), 2.0, 5.0], device=device))
    _same(got, torch.tensor([3, 1, 3]))  # as torch: a NaN in the sequence is passed over
    ints = genesis.tensor([1, 2, 3], device=device)
    _same(
        genesis.searchsorted(ints, genesis.tensor([1.5, 2.5], device=device)),
        torch.searchsorted(torch.tensor([1, 2, 3]), torch.tensor([1.5, 2.5])),
    )


def test_out_arguments(device):
    x, t = _pair((3, 5), genesis.float32, device, seed=4)
    values = genesis.empty(3, 5, device=device)
    indices = genesis.empty(3, 5, dtype=genesis.int64, device=device)
    r = genesis.sort(x, out=(values, indices))
    assert r.values is values and r.indices is indices
    _same(values, torch.sort(t, stable=True).values)
    out = genesis.empty(3, device=device)
    assert (
        genesis.median(x, 1, out=(out, genesis.empty(3, dtype=genesis.int64, device=device))).values
        is out
    )
    q = genesis.empty(3, 5, dtype=genesis.float32, device=device)
    y, u = _pair((3, 5), genesis.float32, device, seed=5, specials=False)
    assert genesis.quantile(y, 0.5, 0, out=q[0]) is not None
    np.testing.assert_allclose(_np(q[0]), _np(torch.quantile(u, 0.5, 0)), rtol=1e-6)
    pos = genesis.empty(2, dtype=genesis.int64, device=device)
    s = genesis.tensor([1.0, 2.0, 3.0], device=device)
    assert genesis.searchsorted(s, genesis.tensor([2.5, 0.0], device=device), out=pos) is pos
    _same(pos, torch.tensor([2, 0]))


def test_bad_input(device):
    x = genesis.rand(3, 4, device=device)
    with pytest.raises(IndexError) as e:
        x.sort(2)
    check_message(e, "sort")
    with pytest.raises(RuntimeError) as e:
        x.topk(5)
    check_message(e, "topk")
    with pytest.raises(RuntimeError) as e:
        x.kthvalue(0)
    check_message(e, "kthvalue")
    with pytest.raises(IndexError) as e:
        genesis.zeros(2, 0, device=device).median(1)
    check_message(e, "median")
    with pytest.raises(IndexError) as e:
        genesis.zeros(2, 0, device=device).mode(1)
    check_message(e, "mode")
    with pytest.raises(TypeError) as e:
        genesis.tensor([1, 2], device=device).quantile(0.5)
    check_message(e, "quantile")
    with pytest.raises(RuntimeError) as e:
        x.quantile(1.5)
    check_message(e, "quantile")
    with pytest.raises(ValueError) as e:
        x.quantile(0.5, interpolation="cubic")
    check_message(e, "quantile")
    with pytest.raises(RuntimeError) as e:
        genesis.searchsorted(genesis.rand(2, 3, device=device), genesis.rand(3, 3, device=device))
    check_message(e, "searchsorted")
    with pytest.raises(ValueError) as e:
        genesis.searchsorted(genesis.rand(3, device=device), 0.5, side="left", right=True)
    check_message(e, "searchsorted")
    with pytest.raises(TypeError) as e:
        genesis.searchsorted(
            genesis.rand(3, device=device),
            0.5,
            sorter=genesis.tensor([0, 1, 2], dtype=genesis.int32, device=device),
        )
    check_message(e, "searchsorted")
    with pytest.raises(RuntimeError) as e:
        genesis.bucketize(genesis.rand(3, device=device), genesis.rand(2, 2, device=device))
    check_message(e, "bucketize")
    with pytest.raises(IndexError) as e:
        genesis.unique(x, dim=3)
    check_message(e, "unique")
