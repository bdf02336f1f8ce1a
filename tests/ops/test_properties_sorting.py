"""Property tests (Hypothesis) for the ops whose answers hinge on duplicates: stable sort and
argsort, unique (sorted, inverse, counts), and the accumulating scatter_add / index_add with
repeated indices; against PyTorch and NumPy on small random arrays, CPU and CUDA.
"""

import numpy as np
import pytest
from conftest import DEVICES, to_numpy

import genesis

hypothesis = pytest.importorskip("hypothesis")
torch = pytest.importorskip("torch")
st = hypothesis.strategies
given, settings = hypothesis.given, hypothesis.settings

TORCH = {
    genesis.int8: torch.int8,
    genesis.int32: torch.int32,
    genesis.int64: torch.int64,
    genesis.float32: torch.float32,
    genesis.float64: torch.float64,
}
SETTINGS = settings(max_examples=50, deadline=None)

# Few distinct values, so that most arrays are full of ties; NaN for the float dtypes.
small_values = st.lists(st.integers(-3, 3), min_size=0, max_size=30)
dtypes = st.sampled_from(list(TORCH))


def _pair(values, dtype, device, nan_at=None):
    a = np.array(values, dtype=np.float64)
    if nan_at is not None and dtype.is_floating_point and a.size:
        a[nan_at % a.size] = np.nan
    return genesis.tensor(a, dtype=dtype, device=device), torch.from_numpy(a).to(TORCH[dtype])


def _same(got, want):
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    np.testing.assert_array_equal(to_numpy(got), want.numpy())


@pytest.mark.parametrize("device", DEVICES)
@SETTINGS
@given(
    values=small_values,
    dtype=dtypes,
    nan_at=st.one_of(st.none(), st.integers(0, 29)),
    rows=st.sampled_from([1, 2, 3]),
    descending=st.booleans(),
)
def test_stable_sort_and_argsort_match_torch(device, values, dtype, nan_at, rows, descending):
    values = values[: len(values) // rows * rows]
    x, t = _pair(values, dtype, device, nan_at)
    x, t = x.reshape(rows, -1), t.reshape(rows, -1)
    for dim in (0, 1, -1):
        got = x.sort(dim=dim, descending=descending, stable=True)
        want = t.sort(dim=dim, descending=descending, stable=True)
        _same(got.values, want.values)
        _same(got.indices, want.indices)
        _same(
            x.argsort(dim=dim, descending=descending, stable=True),
            t.argsort(dim=dim, descending=descending, stable=True),
        )
    if not descending:  # NumPy's stable argsort also puts NaN last
        a = to_numpy(x)
        _same(genesis.argsort(x, dim=1, stable=True), torch.from_numpy(a.argsort(1, "stable")))


@pytest.mark.parametrize("device", DEVICES)
@SETTINGS
@given(values=small_values, dtype=dtypes, shape2d=st.booleans())
def test_unique_matches_numpy_and_torch(device, values, dtype, shape2d):
    if shape2d:
        values = values[: len(values) // 2 * 2]
    x, t = _pair(values, dtype, device)
    if shape2d:
        x, t = x.reshape(2, -1), t.reshape(2, -1)
    got = genesis.unique(x, sorted=True, return_inverse=True, return_counts=True)
    want = torch.unique(t, sorted=True, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        _same(g, w)
    a = to_numpy(x)
    values_np, inverse_np, counts_np = np.unique(a, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(to_numpy(got[0]), values_np)
    np.testing.assert_array_equal(to_numpy(got[1]).ravel(), inverse_np.ravel())
    np.testing.assert_array_equal(to_numpy(got[2]), counts_np)
    # The inverse rebuilds the input; the counts add up to its size.
    np.testing.assert_array_equal(to_numpy(got[0])[to_numpy(got[1])], a)
    assert int(to_numpy(got[2]).sum()) == a.size
    _same(x.unique(), torch.unique(t))


index_cases = st.integers(1, 6).flatmap(
    lambda n: st.tuples(
        st.just(n), st.lists(st.integers(0, n - 1), min_size=0, max_size=25), st.integers(1, 3)
    )
)


@pytest.mark.parametrize("device", DEVICES)
@SETTINGS
@given(
    case=index_cases,
    dtype=st.sampled_from([genesis.int64, genesis.float64]),
    seed=st.integers(0, 9),
)
def test_index_add_and_scatter_add_with_duplicate_indices(device, case, dtype, seed):
    n, idx, cols = case
    rng = np.random.default_rng(seed)
    src = rng.integers(-5, 6, size=(len(idx), cols)).astype(np.float64)
    base = rng.integers(-5, 6, size=(n, cols)).astype(np.float64)
    want = base.copy()
    np.add.at(want, np.array(idx, dtype=np.int64), src)
    index = genesis.tensor(idx, dtype=genesis.int64, device=device)
    s = genesis.tensor(src, dtype=dtype, device=device)
    got = genesis.tensor(base, dtype=dtype, device=device)
    got.index_add_(0, index, s)
    np.testing.assert_array_equal(to_numpy(got), want)  # small integers: exact in any order
    # scatter_add along dim 0 with the index repeated across columns.
    index2 = index.reshape(-1, 1).expand(len(idx), cols).contiguous()
    got2 = genesis.tensor(base, dtype=dtype, device=device).scatter_add(0, index2, s)
    np.testing.assert_array_equal(to_numpy(got2), want)
    tb = torch.from_numpy(base).to(TORCH[dtype])
    tw = tb.scatter_add(0, torch.from_numpy(to_numpy(index2)), torch.from_numpy(src).to(tb.dtype))
    _same(got2, tw)
    # index_add along dim 1 (the transposed problem), with alpha.
    got3 = genesis.tensor(base.T.copy(), dtype=dtype, device=device)
    got3.index_add_(1, index, s.t(), alpha=2)
    np.testing.assert_array_equal(to_numpy(got3), (base + 2 * (want - base)).T)
