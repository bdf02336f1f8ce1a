"""bincount, histc and poisson: bincount and histc against PyTorch (every accepted dtype,
weights, minlength, 0-d, zero-size, non-contiguous inputs, NaN and edge values), poisson by
its moments (several rates), reproducibility for a seed and generator=, CPU and CUDA; bad
input raises an error naming the op.
"""

import re

import numpy as np
import pytest
from conftest import FLOAT_DTYPES, HAS_CUDA, INT_DTYPES, dtype_id, to_numpy

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
ALL = list(TORCH)


def _torch(x):
    return torch.from_numpy(to_numpy(x)).to(TORCH[x.dtype])


def _check(got, want, tol=0.0):
    assert got.dtype is GENESIS[want.dtype], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(
        to_numpy(got).astype(np.float64), want.to(torch.float64).numpy(), rtol=tol, atol=tol
    )


def _raises(kind, op, call):
    with pytest.raises(kind, match=rf"^\[{re.escape(op)}\]"):
        call()


# ---- bincount -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
def test_bincount_counts_as_torch(device, dtype):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 20, size=300)
    x = genesis.tensor(a, dtype=dtype, device=device)
    _check(genesis.bincount(x), torch.bincount(_torch(x)))
    _check(x.bincount(minlength=40), torch.bincount(_torch(x), minlength=40))
    _check(x.bincount(minlength=3), torch.bincount(_torch(x), minlength=3))


@pytest.mark.parametrize("wdtype", ALL, ids=dtype_id)
def test_bincount_weights_dtype_as_torch(device, wdtype):
    rng = np.random.default_rng(2)
    a = rng.integers(0, 9, size=200)
    w = rng.integers(0, 2, size=200) if wdtype is genesis.bool else rng.integers(0, 5, size=200)
    if wdtype.is_floating_point:
        w = rng.random(200) * 4
    x = genesis.tensor(a, device=device)
    wt = genesis.tensor(w, dtype=wdtype, device=device)
    want = torch.bincount(_torch(x), _torch(wt), minlength=12)
    tol = 1e-5 if wdtype in (genesis.float32, genesis.float16, genesis.bfloat16) else 1e-12
    _check(genesis.bincount(x, wt, minlength=12), want, tol)
    _check(x.bincount(weights=wt), torch.bincount(_torch(x), _torch(wt)), tol)


def test_bincount_edge_shapes(device):
    e = genesis.tensor([], dtype=genesis.int64, device=device)
    _check(genesis.bincount(e), torch.bincount(torch.zeros(0, dtype=torch.long)))
    _check(
        genesis.bincount(e, minlength=3), torch.bincount(torch.zeros(0, dtype=torch.long), None, 3)
    )
    # As PyTorch: an empty input gives int64 zeros even with float weights.
    w = genesis.tensor([], dtype=genesis.float32, device=device)
    _check(genesis.bincount(e, w, minlength=2), torch.bincount(torch.zeros(0).long(), None, 2))
    one = genesis.tensor([5], device=device)
    _check(genesis.bincount(one), torch.bincount(torch.tensor([5])))
    # Non-contiguous input and weights: every other item.
    a = genesis.tensor(np.arange(40) % 7, device=device)[::2]
    w = genesis.linspace(0, 1, 40, device=device)[::2]
    _check(genesis.bincount(a), torch.bincount(_torch(a)))
    _check(genesis.bincount(a, w), torch.bincount(_torch(a), _torch(w)), 1e-6)


def test_bincount_large_values_and_counts(device):
    a = np.random.default_rng(3).integers(0, 1000, size=100_000)
    x = genesis.tensor(a, dtype=genesis.int32, device=device)
    np.testing.assert_array_equal(to_numpy(genesis.bincount(x)), np.bincount(a))
    assert genesis.bincount(genesis.tensor([70_000], device=device)).shape == (70_001,)


@pytest.mark.parametrize("dtype", [genesis.int32, genesis.int64, genesis.uint8], ids=dtype_id)
@pytest.mark.parametrize("bins", [1, 10, 3000, 70_000])
def test_bincount_many_items(device, dtype, bins):
    # Millions of items: on CUDA few bins count in each block's shared memory first, many go
    # straight to global atomics (Note [Counting in shared memory]); the odd length leaves a
    # tail after the unrolled loads, and the smallest value sits at the very end.
    bins = min(bins, 256) if dtype is genesis.uint8 else bins
    rng = np.random.default_rng(bins)
    a = rng.integers(1, bins, size=(1 << 22) + 37) if bins > 1 else np.zeros((1 << 22) + 37, int)
    a[-1] = 0
    x = genesis.tensor(a, dtype=dtype, device=device)
    np.testing.assert_array_equal(to_numpy(genesis.bincount(x)), np.bincount(a))
    np.testing.assert_array_equal(
        to_numpy(genesis.bincount(x[1::3], minlength=bins + 5)),
        np.bincount(a[1::3], minlength=bins + 5),
    )


def test_bincount_errors(device):
    def t(v, **kw):
        return genesis.tensor(v, device=device, **kw)

    _raises(ValueError, "bincount", lambda: genesis.bincount(t([1, -1, 2])))
    _raises(ValueError, "bincount", lambda: genesis.bincount(t([[1, 2]])))
    _raises(ValueError, "bincount", lambda: genesis.bincount(t(3)))
    _raises(TypeError, "bincount", lambda: genesis.bincount(t([1.0, 2.0])))
    _raises(TypeError, "bincount", lambda: genesis.bincount(t([True, False])))
    _raises(ValueError, "bincount", lambda: genesis.bincount(t([1, 2]), t([1.0])))
    _raises(ValueError, "bincount", lambda: genesis.bincount(t([1, 2]), t([[1.0, 2.0]])))
    _raises(ValueError, "bincount", lambda: genesis.bincount(t([1, 2]), minlength=-1))
    _raises(TypeError, "bincount", lambda: genesis.bincount(t([1, 2]), [1.0, 2.0]))


# ---- histc ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize(
    "bins, lo, hi",
    [(100, 0, 0), (7, -50, 50), (10, 0, 1), (3, 2.5, 2.5), (1, -1, 1), (64, -3, 300)],
)
def test_histc_as_torch(device, dtype, bins, lo, hi):
    rng = np.random.default_rng(4)
    a = np.concatenate([rng.standard_normal(500) * 40, np.arange(-60, 60) / 10, [lo, hi]])
    if dtype is genesis.bfloat16:
        x = genesis.tensor(a, dtype=genesis.float32, device=device).to(genesis.bfloat16)
    else:
        x = genesis.tensor(a, dtype=dtype, device=device)
    _check(genesis.histc(x, bins, lo, hi), torch.histc(_torch(x), bins, lo, hi))
    _check(x.histc(bins, min=lo, max=hi), torch.histc(_torch(x), bins, lo, hi))


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
def test_histc_items_on_edges(device, dtype):
    # Items at and next to the linspace edges go where PyTorch puts them (Note [histc bins]).
    for bins, lo, hi in [(10, 0, 1), (7, -1, 1), (13, 0.1, 0.9), (1000, 0, 1)]:
        e = torch.linspace(lo, hi, bins + 1, dtype=TORCH[dtype])
        mid = (e[:-1] + e[1:]) / 2
        v = torch.cat([e, mid, torch.nextafter(e, e + 1), torch.nextafter(e, e - 1)])
        x = genesis.tensor(v.numpy(), device=device)
        _check(genesis.histc(x, bins, lo, hi), torch.histc(v, bins, lo, hi))


def test_histc_special_inputs(device):
    def t(v, **kw):
        return genesis.tensor(v, device=device, **kw)

    nan, inf = float("nan"), float("inf")
    for v, args in [
        ([1.0, nan, 2.0], (4, 0, 3)),
        ([1.0, inf, -inf, 2.0], (4, 0, 3)),
        ([2.0, 2.0, 2.0], (4,)),
        ([], (3,)),
        (2.5, (3,)),
        ([0.0, 1.0], (3, 1, 1)),
        ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], (5,)),
    ]:
        _check(genesis.histc(t(v), *args), torch.histc(torch.tensor(v), *args))
    x = t(np.arange(24.0).reshape(4, 6)).t()  # non-contiguous
    _check(genesis.histc(x, 5), torch.histc(_torch(x), 5))
    out = genesis.zeros(4, device=device)
    r = genesis.histc(t([0.0, 1.0, 2.0]), 4, out=out)
    assert r is out and out.tolist() == [1.0, 0.0, 1.0, 1.0]


def test_histc_errors(device):
    def t(v, **kw):
        return genesis.tensor(v, device=device, **kw)

    x = t([0.0, 1.0])
    _raises(ValueError, "histc", lambda: genesis.histc(x, 0))
    _raises(ValueError, "histc", lambda: genesis.histc(x, -1))
    _raises(ValueError, "histc", lambda: genesis.histc(x, 3, min=3, max=1))
    _raises(ValueError, "histc", lambda: genesis.histc(x, 3, min=float("nan"), max=1))
    _raises(ValueError, "histc", lambda: genesis.histc(x, 3, min=0, max=float("inf")))
    _raises(ValueError, "histc", lambda: genesis.histc(t([1.0, float("inf")]), 3))
    _raises(ValueError, "histc", lambda: genesis.histc(t([1.0, float("nan")]), 3))
    _raises(TypeError, "histc", lambda: genesis.histc(t([1, 2]), 3))
    _raises(TypeError, "histc", lambda: genesis.histc(t([True]), 3))


# ---- poisson --------------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [0.0, 0.5, 5.0, 9.99, 10.0, 50.0, 1e4])
def test_poisson_moments(device, rate):
    n = 200_000
    g = genesis.Generator().manual_seed(7)
    x = genesis.poisson(genesis.full((n,), rate, dtype=genesis.float64, device=device), g)
    a = to_numpy(x)
    assert a.dtype == np.float64 and a.shape == (n,)
    assert (a >= 0).all() and (a == np.floor(a)).all()
    if rate == 0:
        assert (a == 0).all()
        return
    # Mean and variance within ~5 standard errors.
    assert abs(a.mean() - rate) < 5 * np.sqrt(rate / n)
    assert abs(a.var() / rate - 1) < 5 * np.sqrt(2 / n) + 5 / np.sqrt(n * rate)


def test_poisson_distribution_small_rate(device):
    # The frequencies of 0 .. 5 for rate 1.5 match the probability mass function.
    n = 200_000
    genesis.manual_seed(3)
    a = to_numpy(genesis.poisson(genesis.full((n,), 1.5, device=device)))
    k = np.arange(6)
    pmf = np.exp(-1.5) * 1.5**k / np.array([1, 1, 2, 6, 24, 120])
    freq = np.bincount(a.astype(np.int64), minlength=6)[:6] / n
    assert (np.abs(freq - pmf) < 5 * np.sqrt(pmf / n) + 1e-4).all(), (freq, pmf)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_poisson_dtypes_shapes_and_layouts(device, dtype):
    rates = genesis.tensor([[0.0, 1.0, 3.0], [20.0, 100.0, 7.0]], dtype=dtype, device=device)
    r = genesis.poisson(rates)
    assert r.dtype is dtype and r.shape == (2, 3) and r.device == rates.device
    assert to_numpy(r)[0, 0] == 0
    nc = rates.t()  # non-contiguous: the same rates, transposed
    g1 = genesis.Generator().manual_seed(5)
    g2 = genesis.Generator().manual_seed(5)
    np.testing.assert_array_equal(
        to_numpy(genesis.poisson(nc, g1)), to_numpy(genesis.poisson(nc.contiguous(), g2))
    )
    assert genesis.poisson(genesis.zeros(0, 3, dtype=dtype, device=device)).shape == (0, 3)
    assert genesis.poisson(genesis.tensor(4.0, dtype=dtype, device=device)).shape == ()


def test_poisson_same_numbers_for_a_seed(device):
    rates = genesis.linspace(0, 60, 1000, device=device)
    genesis.manual_seed(11)
    a = to_numpy(genesis.poisson(rates))
    b = to_numpy(genesis.poisson(rates))  # the stream moved on
    genesis.manual_seed(11)
    np.testing.assert_array_equal(to_numpy(genesis.poisson(rates)), a)
    assert (a != b).any()
    g = genesis.Generator().manual_seed(11)
    np.testing.assert_array_equal(to_numpy(genesis.poisson(rates, generator=g)), a)
    # One counter per element: the next draw starts where it would after 1000 uniforms.
    g2 = genesis.Generator().manual_seed(11)
    genesis.rand(1000, generator=g2)
    np.testing.assert_array_equal(
        to_numpy(genesis.poisson(rates, g)), to_numpy(genesis.poisson(rates, g2))
    )


@pytest.mark.skipif(not HAS_CUDA, reason="needs CUDA")
def test_poisson_cpu_and_cuda_agree():
    rates = genesis.tensor(np.concatenate([np.linspace(0, 30, 3000), [1e3, 1e4, 1e6]]))
    g = genesis.Generator().manual_seed(21)
    cpu = to_numpy(genesis.poisson(rates, g))
    g.manual_seed(21)
    gpu = to_numpy(genesis.poisson(rates.cuda(), g))
    np.testing.assert_array_equal(cpu, gpu)


def test_poisson_errors(device):
    def t(v, **kw):
        return genesis.tensor(v, device=device, **kw)

    _raises(ValueError, "poisson", lambda: genesis.poisson(t([1.0, -1.0])))
    _raises(ValueError, "poisson", lambda: genesis.poisson(t([float("nan")])))
    _raises(ValueError, "poisson", lambda: genesis.poisson(t([float("inf")])))
    _raises(TypeError, "poisson", lambda: genesis.poisson(t([1, 2])))
    _raises(TypeError, "poisson", lambda: genesis.poisson(t([1.0]), generator=3))


# ---- histogram ------------------------------------------------------------------------------


def _check_hist(got, want, tol=0.0):
    assert type(got).__name__ == "histogram" and got._fields == ("hist", "bin_edges")
    _check(got.hist, want.hist, tol)
    # genesis's linspace rounds each edge once; PyTorch's can differ in the last bits (of the
    # range's scale: its steps add up rounded products).
    e = want.bin_edges.to(torch.float64).numpy()
    eps = 1e-6 if want.bin_edges.dtype == torch.float32 else 1e-14
    assert got.bin_edges.dtype is GENESIS[want.bin_edges.dtype]
    np.testing.assert_allclose(to_numpy(got.bin_edges), e, rtol=0, atol=eps * np.abs(e).max())


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64], ids=dtype_id)
@pytest.mark.parametrize(
    "bins, rng_", [(10, None), (7, (-50.0, 50.0)), (1000, (0.0, 1.0)), (3, (2.0, 2.0))]
)
def test_histogram_as_torch(device, dtype, bins, rng_):
    r = np.random.default_rng(5)
    a = np.concatenate([r.standard_normal(500) * 40, r.random(300), np.arange(-10, 11) / 10])
    x = genesis.tensor(a, dtype=dtype, device=device)
    w = genesis.tensor(r.random(a.size), dtype=dtype, device=device)
    tx, tw = _torch(x), _torch(w)
    _check_hist(genesis.histogram(x, bins, range=rng_), torch.histogram(tx, bins, range=rng_))
    # Densities divide by bin widths, which inherit the edges' last-bit differences.
    tol = 1e-3 if dtype is genesis.float32 else 1e-9
    _check_hist(
        x.histogram(bins, range=rng_, weight=w, density=True),
        torch.histogram(tx, bins, range=rng_, weight=tw, density=True),
        tol,
    )
    edges = genesis.tensor([-30.0, -1.0, 0.0, 0.5, 2.0, 60.0], dtype=dtype, device=device)
    _check_hist(genesis.histogram(x, edges), torch.histogram(tx, _torch(edges)))
    _check_hist(
        genesis.histogram(x, edges, weight=w), torch.histogram(tx, _torch(edges), weight=tw), tol
    )


def test_histogram_special_inputs(device):
    def t(v):
        return genesis.tensor(v, device=device)

    for v, bins in [([2.0, 2.0], 4), ([], 3), ([[1.0, 2.0], [3.0, 4.0]], 2), (1.5, 2)]:
        _check_hist(genesis.histogram(t(v), bins), torch.histogram(torch.tensor(v), bins))
    x = t(np.arange(12.0).reshape(3, 4)).t()
    _check_hist(genesis.histogram(x, 5), torch.histogram(_torch(x), 5))
    v = [1.0, float("nan"), 3.0]
    _check_hist(
        genesis.histogram(t(v), 2, range=(0.0, 4.0)),
        torch.histogram(torch.tensor(v), 2, range=(0.0, 4.0)),
    )


def test_histogram_errors(device):
    def t(v, **kw):
        return genesis.tensor(v, device=device, **kw)

    x = t([1.0, 2.0])
    _raises(TypeError, "histogram", lambda: genesis.histogram(t([1, 2]), 3))
    _raises(TypeError, "histogram", lambda: genesis.histogram(x.half(), 3))
    _raises(ValueError, "histogram", lambda: genesis.histogram(x, 0))
    _raises(ValueError, "histogram", lambda: genesis.histogram(x, 3, range=(3.0, 1.0)))
    _raises(ValueError, "histogram", lambda: genesis.histogram(t([1.0, float("inf")]), 3))
    _raises(TypeError, "histogram", lambda: genesis.histogram(x, 3, weight=t([1, 2])))
    _raises(ValueError, "histogram", lambda: genesis.histogram(x, 3, weight=t([1.0])))
    _raises(ValueError, "histogram", lambda: genesis.histogram(x, t([1.0])))
    _raises(
        TypeError, "histogram", lambda: genesis.histogram(x, t([1.0, 2.0], dtype=genesis.float64))
    )
    _raises(TypeError, "histogram", lambda: genesis.histogram(x, t([0.0, 1.0]), range=(0.0, 1.0)))
