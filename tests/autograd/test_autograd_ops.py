"""Autograd against PyTorch, second slice: the gradients of the ops beyond test_autograd.py's
elementwise ops, sum/mean, matmul, views and indexing.

Same method and helpers as test_autograd.py: each case is fn(lib, *leaves) with lib the module
(genesis or torch), run on leaves of the same random float64 data (CPU, and CUDA when there is
one); the same random upstream gradient is backpropagated through both, and the outputs and every
leaf's .grad are compared (shape, dtype, values to rtol 1e-6; linalg 1e-5). A case whose op
genesis lacks is skipped. Each family has a few shapes, a non-contiguous (transposed) input,
negative dims, keepdim True/False, and a 0-d or zero-size input where PyTorch allows one:

- softmax, log_softmax (with dtype=), logsumexp;
- prod (zeros in the reduced slice: one, two), var/std (correction=, unbiased=), norm and
  linalg.vector_norm (p = 1, 2, 3, inf), cumsum, cumprod, nansum, nanmean (NaNs in the input);
- max/min (over all, over a dim: values; the indices do not require grad), amax/amin (ties share
  the gradient evenly), sort, topk, kthvalue, msort, median;
- cat, stack, hstack, vstack, split, chunk, unbind (some pieces unused, zero-size pieces);
- gather, scatter, scatter_add, index_select, index_add, masked_fill, masked_select, take,
  take_along_dim, index_fill, index_copy (duplicate indices where the op allows them);
- einsum, outer, dot, mv, addmm, addcmul, addcdiv, lerp, tensordot, kron;
- flip, roll, tril/triu, repeat, tile, repeat_interleave, rot90, diff, diag, diag_embed,
  Tensor.unfold (overlapping windows), nan_to_num;
- linalg: inv, det, solve, cholesky, svdvals, eigvalsh, qr (symmetric/SPD inputs are built
  inside the function, so the gradient does not depend on a symmetrization convention);
- logcumsumexp, cross, cdist (every p, zero distances), slogdet, matrix_norm (every order),
  eigh and svd with their vectors (through functions the vectors' signs do not change), and
  the reducing writers scatter_reduce/index_reduce (every reduction, ties, zeros), index_put,
  put, masked_scatter, out of place and in place; these also pass gradcheck.

Then: the values of ops that also return indices require grad and the indices do not; second
derivatives (create_graph=True) of softmax, log_softmax, logsumexp, prod, var/std, norm, cat,
gather, einsum, cumsum, logcumsumexp, cross, cdist, slogdet, matrix_norm, eigh, svd and the
writers; and ops of no derivative (heaviside, as in PyTorch) keep the graph and raise
"... not implemented" at backward. The ops of issue 16 are in
test_autograd_special_and_random_ops.py.
"""

import math

import numpy as np
import pytest
from test_autograd import check_grads, grads_both, idx, leaf, np_of, rand, tleaf

import genesis

torch = pytest.importorskip("torch")

LOOSE = {"rtol": 1e-5, "atol": 1e-8}  # linalg: decompositions go through LAPACK-like iterations


def _has(name):
    """genesis has the function or attribute name ("softmax", "Tensor.unfold",
    "linalg.svdvals")."""
    obj = genesis
    for part in name.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def case(id, fn, *arrays, needs=()):
    """A pytest.param of (fn, arrays), skipped where genesis lacks one of the names needs."""
    needs = (needs,) if isinstance(needs, str) else needs
    missing = [n for n in needs if not _has(n)]
    marks = pytest.mark.skipif(bool(missing), reason=f"genesis lacks {', '.join(missing)}")
    return pytest.param(fn, list(arrays), id=id, marks=marks)


X34 = rand((3, 4), 1)
X234 = rand((2, 3, 4), 2)

# ----------------------------------------------------------------------------------------------
# softmax, log_softmax, logsumexp
# ----------------------------------------------------------------------------------------------

SOFTMAX = [
    case("softmax_dim1", lambda m, x: m.softmax(x, 1), X34, needs="softmax"),
    case("softmax_dim0", lambda m, x: m.softmax(x, dim=0), X34, needs="softmax"),
    case("softmax_neg_3d", lambda m, x: x.softmax(-2), X234, needs="softmax"),
    case("softmax_transposed", lambda m, x: m.softmax(x.t(), -1), X34, needs="softmax"),
    case(
        "softmax_dtype",
        lambda m, x: m.softmax(x, 1, dtype=m.float64),
        X34,
        needs="softmax",
    ),
    case("softmax_0d", lambda m, x: m.softmax(x, 0), rand((), 3), needs="softmax"),
    case("softmax_empty", lambda m, x: m.softmax(x, 1), rand((0, 3), 3), needs="softmax"),
    case(
        "functional_softmax",
        lambda m, x: m.nn.functional.softmax(x, dim=-1),
        X234,
        needs="nn.functional.softmax",
    ),
    case("log_softmax_dim1", lambda m, x: m.log_softmax(x, 1), X34, needs="log_softmax"),
    case("log_softmax_neg_3d", lambda m, x: x.log_softmax(-3), X234, needs="log_softmax"),
    case(
        "log_softmax_transposed",
        lambda m, x: m.log_softmax(x.transpose(0, 2), 1),
        X234,
        needs="log_softmax",
    ),
    case(
        "log_softmax_dtype",
        lambda m, x: m.log_softmax(x, 0, dtype=m.float64),
        X34,
        needs="log_softmax",
    ),
    case("log_softmax_0d", lambda m, x: m.log_softmax(x, -1), rand((), 4), needs="log_softmax"),
    case(
        "functional_log_softmax",
        lambda m, x: m.nn.functional.log_softmax(x, dim=1),
        X34,
        needs="nn.functional.log_softmax",
    ),
    case("logsumexp_dim1", lambda m, x: m.logsumexp(x, 1), X34, needs="logsumexp"),
    case(
        "logsumexp_keepdim",
        lambda m, x: m.logsumexp(x, -1, keepdim=True),
        X234,
        needs="logsumexp",
    ),
    case("logsumexp_dims", lambda m, x: x.logsumexp((0, 2)), X234, needs="logsumexp"),
    case(
        "logsumexp_transposed",
        lambda m, x: m.logsumexp(x.t(), 0),
        X34,
        needs="logsumexp",
    ),
    case("logsumexp_0d", lambda m, x: m.logsumexp(x, 0), rand((), 5), needs="logsumexp"),
    case("logsumexp_empty", lambda m, x: m.logsumexp(x, 1), rand((0, 3), 5), needs="logsumexp"),
    case("logsumexp_large", lambda m, x: m.logsumexp(x * 300, 1), X34, needs="logsumexp"),
]


@pytest.mark.parametrize("fn, arrays", SOFTMAX)
def test_softmax_family(fn, arrays, device):
    check_grads(fn, arrays, device)


# ----------------------------------------------------------------------------------------------
# Reductions: prod, var/std, norms, scans, nan-reductions
# ----------------------------------------------------------------------------------------------

# Rows: one zero, two zeros, none. Columns: one zero each, but the last (none).
ZEROS = np.array([[1.5, 0.0, -2.0, 0.5], [0.0, 1.2, 0.0, -0.8], [0.7, -1.1, 1.3, 0.9]])
NANS = rand((3, 4), 6)
NANS[0, 1] = NANS[2, 1] = NANS[2, 3] = np.nan
NONZERO = rand((3, 4), 7, "nonzero")
INF = math.inf

REDUCTIONS = [
    case("prod_all", lambda m, x: x.prod(), NONZERO, needs="prod"),
    case("prod_dim", lambda m, x: m.prod(x, 1), NONZERO, needs="prod"),
    case("prod_neg_keepdim", lambda m, x: x.prod(-2, keepdim=True), X234, needs="prod"),
    case("prod_transposed", lambda m, x: x.t().prod(1), NONZERO, needs="prod"),
    case("prod_0d", lambda m, x: x.prod(), rand((), 8), needs="prod"),
    case("prod_empty", lambda m, x: x.prod(1), rand((0, 3), 8), needs="prod"),
    case("prod_all_one_zero", lambda m, x: x.prod(), ZEROS[0], needs="prod"),
    case("prod_all_two_zeros", lambda m, x: x.prod(), ZEROS[1], needs="prod"),
    case("prod_dim_zeros_rows", lambda m, x: x.prod(1), ZEROS, needs="prod"),
    case("prod_dim_zeros_cols", lambda m, x: x.prod(0, keepdim=True), ZEROS, needs="prod"),
    case("prod_zeros_transposed", lambda m, x: x.t().prod(-1), ZEROS, needs="prod"),
    case("var_all", lambda m, x: x.var(), X34, needs="var"),
    case("var_dim", lambda m, x: m.var(x, 1), X34, needs="var"),
    case("var_correction0", lambda m, x: x.var(dim=0, correction=0), X34, needs="var"),
    case(
        "var_correction1_keepdim",
        lambda m, x: x.var(dim=-1, correction=1, keepdim=True),
        X234,
        needs="var",
    ),
    case("var_dims", lambda m, x: m.var(x, (0, -1)), X234, needs="var"),
    case("var_unbiased_false", lambda m, x: x.var(1, unbiased=False), X34, needs="var"),
    case("var_unbiased_true", lambda m, x: m.var(x, 0, unbiased=True), X34, needs="var"),
    case("var_transposed", lambda m, x: x.t().var(0), X34, needs="var"),
    case("std_all", lambda m, x: x.std(), X34, needs="std"),
    case("std_dim_keepdim", lambda m, x: m.std(x, -2, keepdim=True), X234, needs="std"),
    case("std_correction0", lambda m, x: x.std(dim=1, correction=0), X34, needs="std"),
    case("std_unbiased_false", lambda m, x: x.std(0, unbiased=False), X34, needs="std"),
    case("std_transposed", lambda m, x: x.transpose(0, 1).std(-1), X234, needs="std"),
    case("norm_default", lambda m, x: x.norm(), X34, needs="norm"),
    case("norm_p1", lambda m, x: x.norm(p=1), X34, needs="norm"),
    case("norm_p3_dim", lambda m, x: m.norm(x, p=3, dim=1), X34, needs="norm"),
    case("norm_inf_dim", lambda m, x: x.norm(p=INF, dim=0), X34, needs="norm"),
    case("norm_p2_neg_keepdim", lambda m, x: x.norm(2, -1, keepdim=True), X234, needs="norm"),
    case("norm_p1_dims", lambda m, x: m.norm(x, 1, (0, 2)), X234, needs="norm"),
    case("norm_transposed", lambda m, x: x.t().norm(dim=1), X34, needs="norm"),
    case("norm_0d", lambda m, x: x.norm(), rand((), 10), needs="norm"),
    case("norm_empty_dim", lambda m, x: x.norm(dim=1), rand((0, 3), 10), needs="norm"),
    case(
        "vector_norm_2",
        lambda m, x: m.linalg.vector_norm(x, ord=2),
        X234,
        needs="linalg.vector_norm",
    ),
    case(
        "vector_norm_3_dim",
        lambda m, x: m.linalg.vector_norm(x, ord=3, dim=-1),
        X34,
        needs="linalg.vector_norm",
    ),
    case(
        "vector_norm_inf_keepdim",
        lambda m, x: m.linalg.vector_norm(x.t(), ord=INF, dim=1, keepdim=True),
        X34,
        needs="linalg.vector_norm",
    ),
    case("cumsum", lambda m, x: m.cumsum(x, 1), X34, needs="cumsum"),
    case("cumsum_neg_3d", lambda m, x: x.cumsum(-3), X234, needs="cumsum"),
    case("cumsum_transposed", lambda m, x: x.t().cumsum(dim=1), X34, needs="cumsum"),
    case("cumsum_0d", lambda m, x: m.cumsum(x, 0), rand((), 11), needs="cumsum"),
    case("cumsum_empty", lambda m, x: m.cumsum(x, 0), rand((0, 3), 11), needs="cumsum"),
    case("cumprod", lambda m, x: m.cumprod(x, 1), NONZERO, needs="cumprod"),
    case("cumprod_neg", lambda m, x: x.cumprod(-2), NONZERO, needs="cumprod"),
    case("cumprod_transposed", lambda m, x: x.t().cumprod(1), NONZERO, needs="cumprod"),
    case("cumprod_0d", lambda m, x: m.cumprod(x, 0), rand((), 12), needs="cumprod"),
    case("nansum_all", lambda m, x: m.nansum(x), NANS, needs="nansum"),
    case("nansum_dim", lambda m, x: x.nansum(1), NANS, needs="nansum"),
    case("nansum_neg_keepdim", lambda m, x: m.nansum(x, -2, keepdim=True), NANS, needs="nansum"),
    case("nansum_transposed", lambda m, x: x.t().nansum(0), NANS, needs="nansum"),
    case("nanmean_all", lambda m, x: m.nanmean(x), NANS, needs="nanmean"),
    case("nanmean_dim", lambda m, x: x.nanmean(0), NANS, needs="nanmean"),
    case("nanmean_keepdim", lambda m, x: m.nanmean(x, -1, keepdim=True), NANS, needs="nanmean"),
    case("nanmean_no_nans", lambda m, x: x.nanmean(1), X34, needs="nanmean"),
]


@pytest.mark.parametrize("fn, arrays", REDUCTIONS)
def test_reductions(fn, arrays, device):
    check_grads(fn, arrays, device)


# ----------------------------------------------------------------------------------------------
# max/min, amax/amin, sorting
# ----------------------------------------------------------------------------------------------

# Ties: row 0 two maxima, row 1 all equal, row 2 two minima; the max over all is tied twice.
TIES = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [-1.0, 0.5, -1.0, 0.2]])
ODD = rand((3, 5), 13)  # odd length for the median along dim 1

MAX_MIN = [
    case("max_all", lambda m, x: x.max(), X34, needs="max"),
    case("min_all", lambda m, x: m.min(x), X234, needs="min"),
    case("max_all_0d", lambda m, x: x.max(), rand((), 14), needs="max"),
    case("max_all_transposed", lambda m, x: x.t().max(), X34, needs="max"),
    case("max_dim", lambda m, x: x.max(1).values, X34, needs="max"),
    case("max_dim_keepdim", lambda m, x: m.max(x, -1, keepdim=True)[0], X234, needs="max"),
    case("max_dim_transposed", lambda m, x: x.t().max(dim=0).values, X34, needs="max"),
    case("min_dim", lambda m, x: x.min(dim=0).values, X34, needs="min"),
    case("min_dim_neg_keepdim", lambda m, x: m.min(x, -2, True).values, X234, needs="min"),
    case("amax_dim", lambda m, x: x.amax(1), X34, needs="amax"),
    case("amax_all", lambda m, x: m.amax(x), X234, needs="amax"),
    case("amax_dims_keepdim", lambda m, x: x.amax((0, -1), keepdim=True), X234, needs="amax"),
    case("amax_ties", lambda m, x: m.amax(x, dim=1), TIES, needs="amax"),
    case("amax_ties_all", lambda m, x: x.amax((0, 1)), TIES, needs="amax"),
    case("amax_ties_transposed", lambda m, x: x.t().amax(0), TIES, needs="amax"),
    case("amin_dim", lambda m, x: m.amin(x, -1), X34, needs="amin"),
    case("amin_ties_keepdim", lambda m, x: x.amin(1, keepdim=True), TIES, needs="amin"),
    case("amin_ties_cols", lambda m, x: m.amin(x, 0), TIES, needs="amin"),
]

SORTING = [
    case("sort", lambda m, x: x.sort().values, X34, needs="sort"),
    case("sort_dim0", lambda m, x: m.sort(x, 0)[0], X34, needs="sort"),
    case(
        "sort_descending_neg",
        lambda m, x: m.sort(x, dim=-2, descending=True).values,
        X234,
        needs="sort",
    ),
    case("sort_transposed", lambda m, x: x.t().sort(1).values, X34, needs="sort"),
    case("sort_0d", lambda m, x: x.sort().values, rand((), 15), needs="sort"),
    case("sort_empty", lambda m, x: x.sort(0).values, rand((0, 3), 15), needs="sort"),
    case("topk", lambda m, x: x.topk(2).values, X34, needs="topk"),
    case(
        "topk_dim0_smallest",
        lambda m, x: m.topk(x, 2, dim=0, largest=False)[0],
        X34,
        needs="topk",
    ),
    case("topk_neg_transposed", lambda m, x: x.t().topk(3, -2).values, X34, needs="topk"),
    case("kthvalue", lambda m, x: x.kthvalue(2).values, X34, needs="kthvalue"),
    case(
        "kthvalue_dim_keepdim",
        lambda m, x: m.kthvalue(x, 1, dim=-2, keepdim=True).values,
        X234,
        needs="kthvalue",
    ),
    case("kthvalue_transposed", lambda m, x: x.t().kthvalue(3, 0)[0], X34, needs="kthvalue"),
    case("msort", lambda m, x: m.msort(x), X34, needs="msort"),
    case("msort_transposed", lambda m, x: x.t().msort(), X34, needs="msort"),
    case("median_dim", lambda m, x: x.median(1).values, ODD, needs="median"),
    case("median_dim_even", lambda m, x: m.median(x, dim=-1).values, X34, needs="median"),
    case(
        "median_dim_keepdim",
        lambda m, x: x.median(0, keepdim=True)[0],
        X234,
        needs="median",
    ),
    case("median_transposed", lambda m, x: x.t().median(1).values, ODD, needs="median"),
    case("median_all", lambda m, x: x.median(), ODD, needs="median"),
]


@pytest.mark.parametrize("fn, arrays", MAX_MIN + SORTING)
def test_max_min_sort(fn, arrays, device):
    check_grads(fn, arrays, device)


# (op, fn(lib, x) -> (values, indices)) on X234
WITH_INDICES = [
    ("max", lambda m, x: x.max(1)),
    ("min", lambda m, x: m.min(x, -1, keepdim=True)),
    ("sort", lambda m, x: x.sort(0, descending=True)),
    ("topk", lambda m, x: x.topk(2)),
    ("kthvalue", lambda m, x: x.kthvalue(2, 1)),
    ("median", lambda m, x: x.median(-1)),
    ("cummax", lambda m, x: x.cummax(1)),
    ("cummin", lambda m, x: m.cummin(x, 0)),
    ("mode", lambda m, x: x.mode(1)),
]


@pytest.mark.parametrize(
    "op, fn",
    [
        pytest.param(op, fn, id=op, marks=pytest.mark.skipif(not _has(op), reason="no " + op))
        for op, fn in WITH_INDICES
    ],
)
def test_values_require_grad_indices_do_not(op, fn, device):
    """The values of ops that also return indices are in the graph; the indices are not (and
    equal PyTorch's on data without ties)."""
    x = leaf(X234, device)
    values, indices = fn(genesis, x)
    _, tindices = fn(torch, torch.tensor(X234, requires_grad=True))
    assert indices.dtype == genesis.int64 and not indices.requires_grad
    assert indices.grad_fn is None
    np.testing.assert_array_equal(np_of(indices), tindices.numpy())
    assert values.requires_grad and values.grad_fn is not None


# ----------------------------------------------------------------------------------------------
# Joining and splitting
# ----------------------------------------------------------------------------------------------


def _split_pieces(m, x):
    p = x.split(2, 0)  # (2, 4) pieces; the middle one unused
    return p[0] * 2.0 - p[2] * 0.5


def _split_sizes(m, x):
    p = m.split(x, [1, 3, 2], dim=-2)  # (1, 4), (3, 4), (2, 4); the last unused
    return p[0] * 3.0 + p[1].sum(0, keepdim=True)


def _split_transposed(m, x):
    p = x.t().split([2, 0, 4])  # of the (6, 4) transposed: a zero-size piece, a piece unused
    return p[0].sum(0) + p[1].sum(0) * 3.0


def _chunk(m, x):
    c = x.chunk(3, dim=1)  # three (2, 1, 4) pieces; two unused
    return c[1] * 1.5


def _chunk_uneven(m, x):
    c = m.chunk(x, 4, 0)  # 6 rows in 4 chunks: 2, 2, 2
    return c[0] - c[2] * 2.0


def _unbind(m, x):
    u = x.unbind(1)  # three (2, 4) tensors; one unused
    return u[0] * 2.0 + u[2]


def _unbind_neg(m, x):
    u = m.unbind(x.t(), -1)  # columns of the transposed: rows of x
    return u[2] * u[0]


JOINS = [
    case("cat_dim0", lambda m, x, y: m.cat([x, y]), X34, rand((2, 4), 20), needs="cat"),
    case("cat_dim1", lambda m, x, y: m.cat([x, y, x], 1), X34, rand((3, 2), 20), needs="cat"),
    case(
        "cat_neg_dim",
        lambda m, x, y: m.cat((x, y), dim=-1),
        X234,
        rand((2, 3, 1), 20),
        needs="cat",
    ),
    case(
        "cat_zero_size_piece",
        lambda m, x, y: m.cat([x, y], 0) * 2.0,
        X34,
        rand((0, 4), 20),
        needs="cat",
    ),
    case(
        "cat_transposed",
        lambda m, x, y: m.cat([x.t(), y], 0),
        X34,
        rand((2, 3), 20),
        needs="cat",
    ),
    case("cat_1d", lambda m, x, y: m.cat([x, y]), rand((3,), 21), rand((2,), 22), needs="cat"),
    case("stack", lambda m, x, y: m.stack([x, y]), X34, rand((3, 4), 23), needs="stack"),
    case(
        "stack_neg_dim",
        lambda m, x, y: m.stack((x, y, x), dim=-1),
        X34,
        rand((3, 4), 23),
        needs="stack",
    ),
    case(
        "stack_transposed",
        lambda m, x, y: m.stack([x.t(), y], 1),
        X34,
        rand((4, 3), 23),
        needs="stack",
    ),
    case("stack_0d", lambda m, x, y: m.stack([x, y]), rand((), 24), rand((), 25), needs="stack"),
    case("hstack", lambda m, x, y: m.hstack([x, y]), X34, rand((3, 2), 26), needs="hstack"),
    case(
        "hstack_1d",
        lambda m, x, y: m.hstack((x, y)),
        rand((3,), 26),
        rand((2,), 27),
        needs="hstack",
    ),
    case("vstack", lambda m, x, y: m.vstack([x, y]), X34, rand((1, 4), 28), needs="vstack"),
    case(
        "vstack_1d",
        lambda m, x, y: m.vstack([x, y]),
        rand((4,), 28),
        rand((4,), 29),
        needs="vstack",
    ),
    case("split_int", _split_pieces, rand((6, 4), 30), needs="split"),
    case("split_sizes", _split_sizes, rand((6, 4), 31), needs="split"),
    case("split_transposed", _split_transposed, rand((4, 6), 32), needs="split"),
    case("chunk", _chunk, X234, needs="chunk"),
    case("chunk_uneven", _chunk_uneven, rand((6, 3), 33), needs="chunk"),
    case("unbind", _unbind, X234, needs="unbind"),
    case("unbind_neg_transposed", _unbind_neg, X34, needs="unbind"),
]


@pytest.mark.parametrize("fn, arrays", JOINS)
def test_joins_and_splits(fn, arrays, device):
    check_grads(fn, arrays, device)


# ----------------------------------------------------------------------------------------------
# Index ops
# ----------------------------------------------------------------------------------------------

ROW_MASK = [True, False, True, True]
MASK = [[True, False, False, True], [False, False, True, True], [True, True, False, False]]

INDEX_OPS = [
    case(
        "gather_dim1_duplicates",
        lambda m, x: x.gather(1, idx(m, x, [[0, 2, 0], [1, 1, 3], [3, 0, 2]])),
        X34,
        needs="gather",
    ),
    case(
        "gather_dim0_neg",
        lambda m, x: m.gather(x, -2, idx(m, x, [[2, 0, 1, 2], [2, 2, 0, 0]])),
        X34,
        needs="gather",
    ),
    case(
        "gather_transposed",
        lambda m, x: x.t().gather(1, idx(m, x, [[0], [2], [2], [1]])),
        X34,
        needs="gather",
    ),
    case(
        "gather_empty_index",
        lambda m, x: x.gather(0, idx(m, x, np.zeros((0, 4), np.int64))),
        X34,
        needs="gather",
    ),
    case(
        "scatter",
        lambda m, x, s: x.scatter(1, idx(m, x, [[0, 2], [3, 1], [1, 0]]), s),
        X34,
        rand((3, 2), 40),
        needs="scatter",
    ),
    case(
        "scatter_dim0_neg",
        lambda m, x, s: m.scatter(x, -2, idx(m, x, [[2, 0, 1, 0]]), s),
        X34,
        rand((1, 4), 41),
        needs="scatter",
    ),
    case(
        "scatter_add_duplicates",
        lambda m, x, s: x.scatter_add(1, idx(m, x, [[0, 0, 2], [3, 1, 3], [1, 1, 1]]), s),
        X34,
        rand((3, 3), 42),
        needs="scatter_add",
    ),
    case(
        "scatter_add_transposed",
        lambda m, x, s: m.scatter_add(x.t(), 0, idx(m, x, [[0, 2, 2], [3, 3, 0]]), s),
        X34,
        rand((2, 3), 43),
        needs="scatter_add",
    ),
    case(
        "index_select_duplicates",
        lambda m, x: x.index_select(0, idx(m, x, [2, 0, 2, 1])),
        X34,
        needs="index_select",
    ),
    case(
        "index_select_neg_dim",
        lambda m, x: m.index_select(x, -1, idx(m, x, [3, 3])),
        X234,
        needs="index_select",
    ),
    case(
        "index_select_transposed",
        lambda m, x: x.t().index_select(1, idx(m, x, [1, 1, 0])),
        X34,
        needs="index_select",
    ),
    case(
        "index_select_empty",
        lambda m, x: x.index_select(0, idx(m, x, np.zeros(0, np.int64))),
        X34,
        needs="index_select",
    ),
    case(
        "index_add",
        lambda m, x, s: x.index_add(0, idx(m, x, [2, 0, 2]), s),
        X34,
        rand((3, 4), 44),
        needs="index_add",
    ),
    case(
        "index_add_alpha_neg_dim",
        lambda m, x, s: m.index_add(x, -1, idx(m, x, [1, 3]), s, alpha=-2.5),
        X34,
        rand((3, 2), 45),
        needs="index_add",
    ),
    case(
        "masked_fill",
        lambda m, x: x.masked_fill(idx(m, x, MASK), 0.5),
        X34,
        needs="masked_fill",
    ),
    case(
        "masked_fill_broadcast_mask",
        lambda m, x: m.masked_fill(x, idx(m, x, ROW_MASK), -1.0),
        X234,
        needs="masked_fill",
    ),
    case(
        "masked_fill_transposed_computed",
        lambda m, x: x.t().masked_fill(x.t() > 0, 2.0),
        X34,
        needs="masked_fill",
    ),
    case(
        "masked_fill_0d_tensor_value",
        lambda m, x, v: x.masked_fill(idx(m, x, MASK), v),
        X34,
        rand((), 46),
        needs="masked_fill",
    ),
    case(
        "masked_select",
        lambda m, x: x.masked_select(idx(m, x, MASK)),
        X34,
        needs="masked_select",
    ),
    case(
        "masked_select_broadcast",
        lambda m, x: m.masked_select(x, idx(m, x, ROW_MASK)),
        X234,
        needs="masked_select",
    ),
    case(
        "take_duplicates_neg",
        lambda m, x: x.take(idx(m, x, [[0, 11], [-1, 5], [5, 5]])),
        X34,
        needs="take",
    ),
    case(
        "take_transposed",
        lambda m, x: m.take(x.t(), idx(m, x, [1, 2, 7])),
        X34,
        needs="take",
    ),
    case(
        "take_along_dim",
        lambda m, x: m.take_along_dim(x, idx(m, x, [[0, 0], [3, 1], [2, 2]]), dim=1),
        X34,
        needs="take_along_dim",
    ),
    case(
        "take_along_dim_sorted",
        lambda m, x: x.take_along_dim(x.argsort(0, descending=True), 0),
        X34,
        needs="take_along_dim",
    ),
    case(
        "take_along_dim_flat",
        lambda m, x: m.take_along_dim(x, idx(m, x, [3, 3, 0])),
        X34,
        needs="take_along_dim",
    ),
    case(
        "index_fill",
        lambda m, x: x.index_fill(1, idx(m, x, [0, 2]), -1.5),
        X34,
        needs="index_fill",
    ),
    case(
        "index_fill_neg_transposed",
        lambda m, x: m.index_fill(x.t(), -2, idx(m, x, [3]), 0.0),
        X34,
        needs="index_fill",
    ),
    case(
        "index_copy",
        lambda m, x, s: x.index_copy(0, idx(m, x, [2, 0]), s),
        X34,
        rand((2, 4), 47),
        needs="index_copy",
    ),
    case(
        "index_copy_neg_dim",
        lambda m, x, s: m.index_copy(x, -1, idx(m, x, [3, 1, 0]), s),
        X234,
        rand((2, 3, 3), 48),
        needs="index_copy",
    ),
]


@pytest.mark.parametrize("fn, arrays", INDEX_OPS)
def test_index_ops(fn, arrays, device):
    check_grads(fn, arrays, device)


# ----------------------------------------------------------------------------------------------
# Products and blends
# ----------------------------------------------------------------------------------------------

PRODUCTS = [
    case(
        "einsum_matmul",
        lambda m, a, b: m.einsum("ij,jk->ik", a, b),
        X34,
        rand((4, 2), 50),
        needs="einsum",
    ),
    case("einsum_diagonal", lambda m, a: m.einsum("ii->i", a), rand((3, 3), 51), needs="einsum"),
    case(
        "einsum_bmm",
        lambda m, a, b: m.einsum("bij,bjk->bik", a, b),
        X234,
        rand((2, 4, 2), 52),
        needs="einsum",
    ),
    case(
        "einsum_dot",
        lambda m, a, b: m.einsum("i,i->", a, b),
        rand((5,), 53),
        rand((5,), 54),
        needs="einsum",
    ),
    case("einsum_transpose", lambda m, a: m.einsum("ij->ji", a), X34, needs="einsum"),
    case(
        "einsum_list_operands_transposed",
        lambda m, a, b: m.einsum("ij,jk->ik", [a.t(), b]),
        X34,
        rand((3, 2), 55),
        needs="einsum",
    ),
    case(
        "einsum_same_operand_twice",
        lambda m, a: m.einsum("ij,ij->i", a, a),
        X34,
        needs="einsum",
    ),
    case("outer", lambda m, a, b: m.outer(a, b), rand((3,), 56), rand((4,), 57), needs="outer"),
    case("dot", lambda m, a, b: a.dot(b), rand((5,), 58), rand((5,), 59), needs="dot"),
    case("dot_empty", lambda m, a, b: m.dot(a, b), rand((0,), 58), rand((0,), 59), needs="dot"),
    case("mv", lambda m, a, v: m.mv(a, v), X34, rand((4,), 60), needs="mv"),
    case("mv_transposed", lambda m, a, v: a.t().mv(v), X34, rand((3,), 61), needs="mv"),
    case(
        "addmm",
        lambda m, c, a, b: m.addmm(c, a, b),
        rand((3, 2), 62),
        X34,
        rand((4, 2), 63),
        needs="addmm",
    ),
    case(
        "addmm_beta_alpha_broadcast",
        lambda m, c, a, b: c.addmm(a, b.t(), beta=0.5, alpha=-2.0),
        rand((2,), 64),
        X34,
        rand((2, 4), 65),
        needs="addmm",
    ),
    case(
        "addcmul",
        lambda m, x, a, b: m.addcmul(x, a, b, value=0.5),
        X34,
        rand((3, 4), 66),
        rand((4,), 67),
        needs="addcmul",
    ),
    case(
        "addcmul_default",
        lambda m, x, a, b: x.addcmul(a.t(), b),
        rand((4, 3), 68),
        X34,
        rand((4, 3), 69),
        needs="addcmul",
    ),
    case(
        "addcdiv",
        lambda m, x, a, b: m.addcdiv(x, a, b, value=-1.5),
        X34,
        rand((3, 4), 70),
        rand((3, 1), 71, "nonzero"),
        needs="addcdiv",
    ),
    case(
        "addcdiv_default",
        lambda m, x, a, b: x.addcdiv(a, b),
        rand((4,), 72),
        X34,
        rand((3, 4), 73, "nonzero"),
        needs="addcdiv",
    ),
    case(
        "lerp_scalar",
        lambda m, a, b: m.lerp(a, b, 0.3),
        X34,
        rand((3, 4), 74),
        needs="lerp",
    ),
    case(
        "lerp_tensor",
        lambda m, a, b, w: a.lerp(b, w),
        X34,
        rand((4,), 75),
        rand((3, 4), 76),
        needs="lerp",
    ),
    case(
        "lerp_tensor_transposed",
        lambda m, a, b, w: m.lerp(a.t(), b, w),
        X34,
        rand((4, 3), 77),
        rand((), 78),
        needs="lerp",
    ),
    case(
        "tensordot_2",
        lambda m, a, b: m.tensordot(a, b),
        X234,
        rand((3, 4, 2), 79),
        needs="tensordot",
    ),
    case(
        "tensordot_lists",
        lambda m, a, b: m.tensordot(a, b, dims=([1, 0], [0, 1])),
        X234,
        rand((3, 2, 5), 80),
        needs="tensordot",
    ),
    case(
        "tensordot_0",
        lambda m, a, b: m.tensordot(a, b, dims=0),
        rand((2, 3), 81),
        rand((2,), 82),
        needs="tensordot",
    ),
    case("kron", lambda m, a, b: m.kron(a, b), rand((2, 3), 83), rand((3, 2), 84), needs="kron"),
    case(
        "kron_strided",
        lambda m, a, b: a[:, ::2].kron(b),
        rand((2, 3), 85),
        rand((3, 2), 86),
        needs="kron",
    ),
    case(
        "kron_1d",
        lambda m, a, b: m.kron(a, b),
        rand((2, 3), 87),
        rand((2,), 88),
        needs="kron",
    ),
]


@pytest.mark.parametrize("fn, arrays", PRODUCTS)
def test_products(fn, arrays, device):
    check_grads(fn, arrays, device)


# ----------------------------------------------------------------------------------------------
# Shape ops
# ----------------------------------------------------------------------------------------------

NONFINITE = rand((3, 4), 90)
NONFINITE[0, 0], NONFINITE[1, 2], NONFINITE[2, 3] = np.nan, np.inf, -np.inf

SHAPE_OPS = [
    case("flip", lambda m, x: x.flip(0), X34, needs="flip"),
    case("flip_dims_neg", lambda m, x: m.flip(x, (0, -1)), X234, needs="flip"),
    case("flip_transposed", lambda m, x: x.t().flip([1]), X34, needs="flip"),
    case("flip_empty", lambda m, x: x.flip(1), rand((0, 3), 91), needs="flip"),
    case("roll_flat", lambda m, x: x.roll(5), X34, needs="roll"),
    case("roll_dim", lambda m, x: m.roll(x, -1, 1), X34, needs="roll"),
    case("roll_dims", lambda m, x: x.roll((1, -2), (0, 2)), X234, needs="roll"),
    case("roll_transposed", lambda m, x: m.roll(x.t(), shifts=2, dims=-1), X34, needs="roll"),
    case("tril", lambda m, x: x.tril(), X34, needs="tril"),
    case("tril_diagonal", lambda m, x: m.tril(x, diagonal=-1), X234, needs="tril"),
    case("triu", lambda m, x: m.triu(x), X34, needs="triu"),
    case("triu_diagonal_transposed", lambda m, x: x.t().triu(1), X34, needs="triu"),
    case("repeat", lambda m, x: x.repeat(2, 3), X34, needs="Tensor.repeat"),
    case("repeat_new_dims", lambda m, x: x.repeat(2, 1, 1, 2), X34, needs="Tensor.repeat"),
    case("repeat_transposed", lambda m, x: x.t().repeat(1, 2), X34, needs="Tensor.repeat"),
    case("tile", lambda m, x: m.tile(x, (2,)), X34, needs="tile"),
    case("tile_more_dims", lambda m, x: x.tile((2, 1, 3)), X34, needs="tile"),
    case(
        "repeat_interleave",
        lambda m, x: m.repeat_interleave(x, 2),
        X34,
        needs="repeat_interleave",
    ),
    case(
        "repeat_interleave_dim",
        lambda m, x: x.repeat_interleave(3, dim=-1),
        X234,
        needs="repeat_interleave",
    ),
    case(
        "repeat_interleave_transposed",
        lambda m, x: x.t().repeat_interleave(2, 0),
        X34,
        needs="repeat_interleave",
    ),
    case(
        "repeat_interleave_tensor",
        lambda m, x: m.repeat_interleave(x, idx(m, x, [1, 0, 3]), dim=0),
        X34,
        needs="repeat_interleave",
    ),
    case("rot90", lambda m, x: x.rot90(), X34, needs="rot90"),
    case("rot90_k3_dims", lambda m, x: m.rot90(x, 3, (2, 0)), X234, needs="rot90"),
    case("rot90_k2_transposed", lambda m, x: x.t().rot90(2, [0, 1]), X34, needs="rot90"),
    case("diff", lambda m, x: x.diff(), X34, needs="diff"),
    case("diff_n2_dim0", lambda m, x: m.diff(x, n=2, dim=0), X34, needs="diff"),
    case("diff_neg_transposed", lambda m, x: x.t().diff(dim=-2), X34, needs="diff"),
    case(
        "diff_prepend_append",
        lambda m, x, p, a: m.diff(x, dim=1, prepend=p, append=a),
        X34,
        rand((3, 1), 92),
        rand((3, 2), 93),
        needs="diff",
    ),
    case("diag_1d", lambda m, x: m.diag(x), rand((4,), 94), needs="diag"),
    case("diag_1d_offset", lambda m, x: x.diag(2), rand((3,), 95), needs="diag"),
    case("diag_1d_negative_offset", lambda m, x: m.diag(x, -1), rand((3,), 95), needs="diag"),
    case("diag_2d", lambda m, x: x.diag(), X34, needs="diag"),
    case("diag_2d_offset", lambda m, x: m.diag(x, 1), X34, needs="diag"),
    case("diag_2d_neg_transposed", lambda m, x: x.t().diag(-2), X34, needs="diag"),
    case("diag_embed", lambda m, x: m.diag_embed(x), X34, needs="diag_embed"),
    case(
        "diag_embed_offset_dims",
        lambda m, x: x.diag_embed(offset=-1, dim1=0, dim2=2),
        X34,
        needs="diag_embed",
    ),
    case(
        "diag_embed_transposed",
        lambda m, x: m.diag_embed(x.t(), 1),
        X34,
        needs="diag_embed",
    ),
    case("unfold_overlap", lambda m, x: x.unfold(1, 3, 1), rand((3, 6), 96), needs="Tensor.unfold"),
    case(
        "unfold_step2",
        lambda m, x: x.unfold(-1, 3, 2),
        rand((2, 3, 7), 97),
        needs="Tensor.unfold",
    ),
    case(
        "unfold_transposed",
        lambda m, x: x.t().unfold(0, 2, 1),
        rand((3, 5), 98),
        needs="Tensor.unfold",
    ),
    case("unfold_0d", lambda m, x: x.unfold(0, 1, 1), rand((), 99), needs="Tensor.unfold"),
    case("nan_to_num", lambda m, x: m.nan_to_num(x), NONFINITE, needs="nan_to_num"),
    case(
        "nan_to_num_values",
        lambda m, x: x.nan_to_num(nan=1.5, posinf=2.0, neginf=-3.0),
        NONFINITE,
        needs="nan_to_num",
    ),
    case(
        "nan_to_num_transposed",
        lambda m, x: m.nan_to_num(x.t(), 0.0),
        NONFINITE,
        needs="nan_to_num",
    ),
]


@pytest.mark.parametrize("fn, arrays", SHAPE_OPS)
def test_shape_ops(fn, arrays, device):
    check_grads(fn, arrays, device)


# ----------------------------------------------------------------------------------------------
# linalg
# ----------------------------------------------------------------------------------------------

WELL = rand((3, 3), 110) + 3.0 * np.eye(3)  # well conditioned
WELL_B = rand((2, 4, 4), 111) + 4.0 * np.eye(4)


def _spd(m, x):
    """x @ x^T for a (n, 2n) x: symmetric positive definite, differentiable in x."""
    return x @ x.transpose(-2, -1)


def _qr(m, x):
    q, r = m.linalg.qr(x)
    return q * 2.0 + r


LINALG = [
    case("inv", lambda m, a: m.linalg.inv(a), WELL, needs="linalg.inv"),
    case("inv_batched", lambda m, a: m.linalg.inv(a), WELL_B, needs="linalg.inv"),
    case("inv_transposed", lambda m, a: m.linalg.inv(a.mT), WELL, needs="linalg.inv"),
    case("det", lambda m, a: m.linalg.det(a), WELL, needs="linalg.det"),
    case("det_batched", lambda m, a: m.linalg.det(a), WELL_B, needs="linalg.det"),
    case("det_transposed", lambda m, a: m.linalg.det(a.t()), rand((4, 4), 112), needs="linalg.det"),
    case(
        "solve_matrix",
        lambda m, a, b: m.linalg.solve(a, b),
        WELL,
        rand((3, 2), 113),
        needs="linalg.solve",
    ),
    case(
        "solve_vector",
        lambda m, a, b: m.linalg.solve(a, b),
        WELL,
        rand((3,), 114),
        needs="linalg.solve",
    ),
    case(
        "solve_batched_transposed",
        lambda m, a, b: m.linalg.solve(a.mT, b),
        WELL_B,
        rand((2, 4, 3), 115),
        needs="linalg.solve",
    ),
    case(
        "cholesky",
        lambda m, x: m.linalg.cholesky(_spd(m, x)),
        rand((3, 6), 116),
        needs="linalg.cholesky",
    ),
    case(
        "cholesky_batched",
        lambda m, x: m.linalg.cholesky(_spd(m, x)),
        rand((2, 3, 6), 117),
        needs="linalg.cholesky",
    ),
    case("svdvals", lambda m, a: m.linalg.svdvals(a), X34, needs="linalg.svdvals"),
    case("svdvals_tall", lambda m, a: m.linalg.svdvals(a.t()), X34, needs="linalg.svdvals"),
    case("svdvals_batched", lambda m, a: m.linalg.svdvals(a), X234, needs="linalg.svdvals"),
    case(
        "eigvalsh",
        lambda m, x: m.linalg.eigvalsh(x + x.mT),
        rand((4, 4), 118),
        needs="linalg.eigvalsh",
    ),
    case(
        "eigvalsh_batched",
        lambda m, x: m.linalg.eigvalsh(x + x.mT),
        rand((2, 3, 3), 119),
        needs="linalg.eigvalsh",
    ),
    case("qr_square", _qr, rand((3, 3), 120), needs="linalg.qr"),
    case("qr_tall", lambda m, x: m.linalg.qr(x)[1], rand((4, 3), 121), needs="linalg.qr"),
]


@pytest.mark.parametrize("fn, arrays", LINALG)
def test_linalg(fn, arrays, device):
    check_grads(fn, arrays, device, **LOOSE)


# ----------------------------------------------------------------------------------------------
# Scans, cross products, distances, slogdet and matrix norms
# ----------------------------------------------------------------------------------------------

NEG_DET = rand((3, 3), 140) + np.diag([-3.0, 3.0, 3.0])  # det < 0: slogdet's sign is -1


def _with_duplicates(m, x, y):
    """cdist of x against y with two of x's rows among y's: zero distances."""
    return m.cdist(x, m.cat([y, x[:2]], 0))


MORE = [
    case("logcumsumexp", lambda m, x: m.logcumsumexp(x, 1), X34, needs="logcumsumexp"),
    case("logcumsumexp_neg_dim", lambda m, x: x.logcumsumexp(-3), X234, needs="logcumsumexp"),
    case("logcumsumexp_t", lambda m, x: m.logcumsumexp(x.t(), 0), X34, needs="logcumsumexp"),
    case(  # large values: computed in log space, nothing overflows
        "logcumsumexp_large",
        lambda m, x: m.logcumsumexp(x * 300.0, 1),
        X34,
        needs="logcumsumexp",
    ),
    case("logcumsumexp_0d", lambda m, x: m.logcumsumexp(x, 0), rand((), 141), needs="logcumsumexp"),
    case("logcumsumexp_empty", lambda m, x: m.logcumsumexp(x, 1), rand((2, 0), 142)),
    case(
        "cross_dim",
        lambda m, a, b: m.cross(a, b, dim=0),
        rand((3, 4), 143),
        rand((3, 4), 144),
        needs="cross",
    ),
    case(
        "cross_default_dim_broadcast",
        lambda m, a, b: m.cross(a, b),
        rand((2, 3), 145),
        rand((1, 3), 146),
        needs="cross",
    ),
    case(
        "linalg_cross",
        lambda m, a, b: m.linalg.cross(a.mT, b),
        rand((3, 4), 147),
        rand((4, 3), 148),
        needs="linalg.cross",
    ),
    case("cdist_p2", lambda m, x, y: m.cdist(x, y), X34, rand((5, 4), 149), needs="cdist"),
    case(
        "cdist_p2_products",
        lambda m, x, y: m.cdist(x, y, compute_mode="use_mm_for_euclid_dist"),
        X34,
        rand((5, 4), 150),
        needs="cdist",
    ),
    case(
        "cdist_p2_zero_distances",
        _with_duplicates,
        X34,
        rand((2, 4), 151),
        needs="cdist",
    ),
    case(
        "cdist_p1",
        lambda m, x, y: m.cdist(x, y, p=1.0),
        X34,
        rand((5, 4), 152),
        needs="cdist",
    ),
    case(
        "cdist_p3_batched",
        lambda m, x, y: m.cdist(x, y, p=3.0),
        X234,
        rand((1, 5, 4), 153),
        needs="cdist",
    ),
    case(
        "cdist_p0_5",
        lambda m, x, y: m.cdist(x, y, p=0.5),
        X34,
        rand((5, 4), 154),
        needs="cdist",
    ),
    case(
        "cdist_inf",
        lambda m, x, y: m.cdist(x, y, p=float("inf")),
        X34,
        rand((5, 4), 155),
        needs="cdist",
    ),
    case(
        "cdist_p0",
        lambda m, x, y: m.cdist(x, y, p=0.0),
        X34,
        rand((5, 4), 156),
        needs="cdist",
    ),
    case("slogdet", lambda m, a: m.linalg.slogdet(a)[1], WELL, needs="linalg.slogdet"),
    case("slogdet_neg", lambda m, a: m.linalg.slogdet(a).logabsdet, NEG_DET),
    case("slogdet_batched", lambda m, a: m.linalg.slogdet(a)[1], WELL_B, needs="linalg.slogdet"),
]
for _ord in ["fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf")]:
    MORE.append(
        case(
            f"matrix_norm_{_ord}",
            lambda m, a, o=_ord: m.linalg.matrix_norm(a, o),
            WELL,
            needs="linalg.matrix_norm",
        )
    )
MORE.append(
    case(
        "matrix_norm_dims_keepdim",
        lambda m, a: m.linalg.matrix_norm(a, "nuc", dim=(0, 2), keepdim=True),
        X234,
        needs="linalg.matrix_norm",
    )
)
MORE.append(
    case(
        "matrix_norm_1_batched",
        lambda m, a: m.linalg.matrix_norm(a, 1, dim=(-1, 0)),
        X234,
        needs="linalg.matrix_norm",
    )
)
MORE.append(case("norm_nuc", lambda m, a: m.linalg.norm(a, "nuc"), X34, needs="linalg.norm"))

WEIGHTS = rand((6, 6), 160)


def _weights(m, x, rows, cols):
    return m.tensor(WEIGHTS[:rows, :cols], dtype=m.float64, device=x.device)


def _eigh(m, x):
    """Eigenvalues and vectors, through a function the vectors' signs do not change."""
    w, v = m.linalg.eigh(x + x.mT)
    return (v * v * _weights(m, x, v.shape[-2], v.shape[-1])).sum(-1) + w * w


def _svd(full_matrices):
    def fn(m, x):
        u, s, vh = m.linalg.svd(x, full_matrices=full_matrices)
        k = s.shape[-1]
        u, vh = u[..., :k], vh[..., :k, :]
        cu, cv = _weights(m, x, u.shape[-2], k), _weights(m, x, k, vh.shape[-1])
        return (u * u * cu).sum(-2) + (vh * vh * cv).sum(-1) + s * s * s

    return fn


for _id, _fn, _a in [
    ("eigh", _eigh, rand((4, 4), 161)),
    ("eigh_batched", _eigh, rand((2, 3, 3), 162)),
    ("svd_square", _svd(False), rand((4, 4), 163)),
    ("svd_tall", _svd(False), rand((5, 3), 164)),
    ("svd_wide", _svd(False), rand((3, 5), 165)),
    ("svd_batched", _svd(False), rand((2, 5, 3), 166)),
    ("svd_full_square", _svd(True), rand((3, 3), 167)),
]:
    MORE.append(case(_id, _fn, _a))
MORE.append(  # full_matrices with only S used: S's gradient alone
    case("svd_full_values", lambda m, x: m.linalg.svd(x)[1], rand((5, 3), 168))
)


@pytest.mark.parametrize("fn, arrays", MORE)
@pytest.mark.filterwarnings("ignore:Using torch.cross without specifying the dim")
def test_scans_cross_distances_norms(fn, arrays, device):
    check_grads(fn, arrays, device, **LOOSE)


@pytest.mark.parametrize("fn, arrays", MORE)
def test_gradcheck_scans_cross_distances_norms(fn, arrays, device, request):
    """Finite differences agree with the formulas (not only with torch's formulas)."""
    if "zero_distances" in request.node.name:
        pytest.skip("a zero distance is a kink: no finite-difference derivative")
    leaves = [leaf(a, device) for a in arrays]
    assert genesis.autograd.gradcheck(lambda *xs: fn(genesis, *xs), leaves, atol=1e-5)


def test_slogdet_sign_requires_no_grad(device):
    a = leaf(WELL, device)
    sign, logabsdet = genesis.linalg.slogdet(a)
    assert not sign.requires_grad and sign.grad_fn is None
    assert logabsdet.requires_grad and logabsdet.grad_fn.name() == "LinalgSlogdetBackward0"


# ----------------------------------------------------------------------------------------------
# The reducing and scattering writers
# ----------------------------------------------------------------------------------------------

SCATTER_IDX = [[0, 1, 2, 0], [1, 0, 2, 2], [2, 2, 0, 1]]  # duplicates along dim 0
WITH_ZEROS = np.where(np.arange(12).reshape(3, 4) % 5 == 0, 0.0, rand((3, 4), 170))
TIES = np.round(rand((3, 4), 171))  # small integers: equal values tie for amax/amin


def _scatter_reduce(reduce, include_self, dim=0):
    def fn(m, x, src):
        return x.scatter_reduce(dim, idx(m, x, SCATTER_IDX), src, reduce, include_self=include_self)

    return fn


WRITERS = []
for _reduce in ["sum", "mean", "amax", "amin", "prod"]:
    for _self in [True, False]:
        WRITERS.append(
            case(
                f"scatter_reduce_{_reduce}_{'self' if _self else 'noself'}",
                _scatter_reduce(_reduce, _self),
                X34,
                rand((3, 4), 172),
                needs="Tensor.scatter_reduce",
            )
        )
WRITERS += [
    case(
        "scatter_reduce_prod_zeros",
        _scatter_reduce("prod", True),
        WITH_ZEROS,
        WITH_ZEROS[::-1].copy(),
        needs="Tensor.scatter_reduce",
    ),
    case(
        "scatter_reduce_amax_ties",
        _scatter_reduce("amax", True),
        TIES,
        TIES[::-1].copy(),
        needs="Tensor.scatter_reduce",
    ),
    case(
        "index_reduce_prod_zeros",
        lambda m, x, s: x.index_reduce(1, idx(m, x, [3, 0, 3]), s, "prod"),
        WITH_ZEROS,
        rand((3, 3), 174),
        needs="Tensor.index_reduce",
    ),
    case(
        "index_put",
        lambda m, x, v: x.index_put((idx(m, x, [0, 2]),), v),
        X34,
        rand((2, 4), 175),
        needs="Tensor.index_put",
    ),
    case(
        "index_put_accumulate_duplicates",
        lambda m, x, v: x.index_put((idx(m, x, [0, 0, 2]), idx(m, x, [1, 1, 3])), v, True),
        X34,
        rand((3,), 176),
        needs="Tensor.index_put",
    ),
    case(
        "index_put_mask_broadcast",
        lambda m, x, v: m.index_put(x, (idx(m, x, [True, False, True]),), v),
        X34,
        rand((4,), 177),
        needs="index_put",
    ),
    case(
        "put",
        lambda m, x, s: x.put(idx(m, x, [[0, 5], [11, 7]]), s),
        X34,
        rand((2, 2), 178),
        needs="Tensor.put",
    ),
    case(
        "put_accumulate",
        lambda m, x, s: m.put(x, idx(m, x, [0, 5, 0]), s, accumulate=True),
        X34,
        rand((3,), 179),
        needs="put",
    ),
    case(
        "masked_scatter",
        lambda m, x, s: x.masked_scatter(x > 0.2, s),
        X34,
        rand((4, 4), 180),
        needs="Tensor.masked_scatter",
    ),
    case(
        "masked_scatter_broadcast_self",
        lambda m, x, s: m.masked_scatter(x[0], s > 0.0, s),
        X34,
        rand((3, 4), 181),
        needs="masked_scatter",
    ),
]


def _writers_in_place(m, x, src):
    """The in-place forms on a non-leaf, one after another (scatter_reduce_ last: it saves its
    result, which a later in-place op would modify)."""
    h = x * 1.0
    h.index_put_((idx(m, x, [1]),), src[0], accumulate=True)
    h.put_(idx(m, x, [3]), src[1, :1])
    h.masked_scatter_(src > 0.5, src.flatten() * 3.0)
    h.scatter_reduce_(0, idx(m, x, SCATTER_IDX), src, "amax")
    return h


def _index_reduce_in_place(m, x, src):
    h = x * 1.0
    h.index_reduce_(0, idx(m, x, [2, 0]), src[:2] * 2.0, "mean", include_self=False)
    return h


WRITERS.append(
    case("in_place_forms", _writers_in_place, X34, rand((3, 4), 182), needs="Tensor.put_")
)
WRITERS.append(
    case(
        "index_reduce_in_place",
        _index_reduce_in_place,
        X34,
        rand((3, 4), 186),
        needs="Tensor.index_reduce_",
    )
)


def test_writing_a_saved_result_raises_at_backward(device):
    """scatter_reduce saves its result; writing it afterwards raises at backward, as in
    PyTorch."""
    x, src = leaf(X34, device), leaf(rand((3, 4), 187), device)
    index = genesis.tensor(SCATTER_IDX, device=device)
    h = x.scatter_reduce(0, index, src, "prod")
    h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        h.sum().backward()


@pytest.mark.parametrize("fn, arrays", WRITERS)
@pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")
def test_reducing_writers(fn, arrays, device):
    check_grads(fn, arrays, device)


def test_scatter_reduce_src_larger_than_index(device):
    """Only src's index-shaped part is read: its gradient is torch's for that part (torch
    itself refuses the gradient of a larger src), zero past it."""
    x, src = rand((3, 4), 183), rand((3, 5), 184)
    index = [[0, 3], [1, 1], [2, 0]]
    gx, gs = leaf(x, device), leaf(src, device)
    tx, ts = torch.tensor(x, requires_grad=True), torch.tensor(src[:, :2], requires_grad=True)
    got = gx.scatter_reduce(1, genesis.tensor(index, device=device), gs, "amin")
    want = tx.scatter_reduce(1, torch.tensor(index), ts, "amin")
    np.testing.assert_allclose(np_of(got), want.detach().numpy())
    v = rand((3, 4), 185)
    got.backward(genesis.tensor(v, device=device))
    want.backward(torch.tensor(v))
    np.testing.assert_allclose(np_of(gx.grad), tx.grad.numpy())
    np.testing.assert_allclose(np_of(gs.grad)[:, :2], ts.grad.numpy())
    assert not np_of(gs.grad)[:, 2:].any()


@pytest.mark.parametrize("fn, arrays", WRITERS)
def test_gradcheck_reducing_writers(fn, arrays, device, request):
    name = request.node.name
    if "ties" in name or "amax" in name or "amin" in name or "in_place" in name:
        pytest.skip("max/min at ties are kinks: no finite-difference derivative")
    leaves = [leaf(a, device) for a in arrays]
    assert genesis.autograd.gradcheck(lambda *xs: fn(genesis, *xs), leaves, atol=1e-5)


# ----------------------------------------------------------------------------------------------
# Second derivatives
# ----------------------------------------------------------------------------------------------

DOUBLE = [
    case("softmax", lambda m, x: m.softmax(x, 1), X34, needs="softmax"),
    case("log_softmax", lambda m, x: m.log_softmax(x.t(), -1), X34, needs="log_softmax"),
    case("logsumexp", lambda m, x: m.logsumexp(x, 0, keepdim=True), X34, needs="logsumexp"),
    case("prod", lambda m, x: x.prod(1), NONZERO, needs="prod"),
    case("prod_all", lambda m, x: x.prod(), rand((4,), 130, "nonzero"), needs="prod"),
    case("var", lambda m, x: x.var(-1), X34, needs="var"),
    case("std", lambda m, x: x.std(0), X34, needs="std"),
    case("norm", lambda m, x: x.norm(dim=1), X34, needs="norm"),
    case("norm_p3", lambda m, x: x.norm(p=3), X34, needs="norm"),
    case(
        "cat",
        lambda m, x, y: m.cat([x * x, y.sin()], 1),
        X34,
        rand((3, 2), 131),
        needs="cat",
    ),
    case(
        "gather",
        lambda m, x: (x * x).gather(1, idx(m, x, [[0, 0], [3, 1], [2, 2]])),
        X34,
        needs="gather",
    ),
    case(
        "einsum",
        lambda m, a, b: m.einsum("ij,jk->ik", a, b),
        X34,
        rand((4, 2), 132),
        needs="einsum",
    ),
    case("einsum_square", lambda m, a: m.einsum("ij,ij->j", a, a), X34, needs="einsum"),
    case("cumsum", lambda m, x: (x * x).cumsum(1), X34, needs="cumsum"),
    case("logcumsumexp", lambda m, x: (x * x).logcumsumexp(1), X34, needs="logcumsumexp"),
    case("cross", lambda m, a, b: m.cross(a * a, b, dim=0), rand((3, 2), 157), rand((3, 2), 158)),
    case(  # torch differentiates its cdist twice only through the products form
        "cdist",
        lambda m, x, y: m.cdist(x * x, y, compute_mode="use_mm_for_euclid_dist"),
        X34,
        rand((5, 4), 159),
        needs="cdist",
    ),
    case("slogdet", lambda m, a: m.linalg.slogdet(a * 1.5)[1], WELL, needs="linalg.slogdet"),
    case("matrix_norm", lambda m, a: m.linalg.matrix_norm(a * a), WELL),
    case("eigh", _eigh, rand((3, 3), 190)),
    case("svd", _svd(False), rand((4, 3), 191)),
    case(
        "scatter_reduce_mean",
        lambda m, x, s: _scatter_reduce("mean", True)(m, x * x, s * s),
        X34,
        rand((3, 4), 192),
    ),
    case("scatter_reduce_prod", _scatter_reduce("prod", False), X34, rand((3, 4), 193)),
    case(
        "index_put_accumulate",
        lambda m, x, v: (x * x).index_put((idx(m, x, [0, 0]),), v * v, True),
        X34,
        rand((2, 4), 194),
    ),
    case(
        "masked_scatter",
        lambda m, x, s: (x * x).masked_scatter(x > 0.2, s * s),
        X34,
        rand((4, 4), 195),
    ),
]


@pytest.mark.parametrize("fn, arrays", DOUBLE)
def test_double_backward(fn, arrays, device):
    grads_both(fn, arrays, device)


# ----------------------------------------------------------------------------------------------
# Ops of no derivative
# ----------------------------------------------------------------------------------------------

# (op, fn(lib, x)) of no derivative in genesis yet: heaviside has none in PyTorch either (histc's
# result requires no grad, as PyTorch's: test_autograd_special_and_random_ops.py); the others
# have one in PyTorch, and are skipped here once they have one in genesis.
WITHOUT_FORMULA = [
    ("heaviside", lambda m, x: m.heaviside(x, m.zeros_like(x))),
]


@pytest.mark.parametrize("op, fn", [pytest.param(op, fn, id=op) for op, fn in WITHOUT_FORMULA])
def test_ops_without_formula_raise_at_backward(op, fn, device):
    """The result of an op without a derivative requires grad (its input does), and backward
    raises "... not implemented" instead of giving a wrong or missing gradient."""
    if not _has(op):
        pytest.skip(f"genesis has no {op}")
    x = leaf(X34, device)
    y = fn(genesis, x)
    assert y.requires_grad and y.grad_fn is not None, "the op dropped the graph silently"
    try:
        y.sum().backward()
    except RuntimeError as e:
        assert "not implemented" in str(e), str(e)
        return
    pytest.skip(f"{op} has a derivative now")


# Note [Split as one node]: split, split_with_sizes and chunk record one node for their pieces,
# as PyTorch does; backward concatenates the pieces' gradients.
SPLITS = [
    ("split", lambda m, y: y.split(2, 1), "SplitBackward0"),
    ("split_sizes", lambda m, y: y.split([1, 4, 1], 1), "SplitWithSizesBackward0"),
    ("chunk_uneven", lambda m, y: m.chunk(y, 4, 1), "SplitBackward0"),
    ("split_transposed", lambda m, y: y.t().split(3, 0), "SplitBackward0"),
    ("unbind", lambda m, y: y.unbind(1), "UnbindBackward0"),
    ("unbind_0", lambda m, y: m.unbind(y, 0), "UnbindBackward0"),
]


@pytest.mark.parametrize("name, pieces, node", SPLITS, ids=[s[0] for s in SPLITS])
def test_split_pieces_share_one_node(name, pieces, node, device):
    x, tx = leaf(rand((4, 6), 40), device), tleaf(rand((4, 6), 40))
    got, want = pieces(genesis, x * 1), pieces(torch, tx * 1)
    assert [p.grad_fn.name() for p in got] == [p.grad_fn.name() for p in want] == [node] * len(got)
    assert all(p.grad_fn is got[0].grad_fn for p in got)
    # a piece left out of the loss gets zeros; a piece used twice adds up
    w = [rand(tuple(p.shape), 41 + k) for k, p in enumerate(want)]
    loss = sum((p * genesis.tensor(a, device=device)).sum() for p, a in zip(got[1:], w[1:]))
    (loss + got[-1].sum()).backward()
    tloss = sum((p * torch.tensor(a)).sum() for p, a in zip(want[1:], w[1:]))
    (tloss + want[-1].sum()).backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-12)


def test_split_second_derivatives(device):
    def fn(m, x):
        a, b, c = (x * x).split([2, 3, 1], 1)
        return (a * a).sum() + (b * c).sum() + c.exp().sum()

    grads_both(fn, [rand((3, 6), 42)], device)


def test_split_pieces_refuse_in_place_ops_as_pytorch(device):
    y = leaf(rand((4, 6), 43), device) * 1
    for write in (
        lambda: y.split(2, 1)[0].mul_(2),
        lambda: y.chunk(3, 1)[1].add_(1),
        lambda: y.split([2, 4], 1)[1].t().zero_(),  # a view of a piece too
        lambda: y.unbind(0)[2].mul_(2),
    ):
        with pytest.raises(RuntimeError, match="is a view and is being modified inplace.*multiple"):
            write()
    with genesis.no_grad():  # allowed without grad mode, as in PyTorch
        y.split(2, 1)[0].mul_(2)
    z = genesis.tensor(rand((4, 6), 44), device=device)  # nothing requires grad: allowed
    z.split(2, 1)[0].mul_(2)
    np.testing.assert_allclose(z.cpu().numpy()[:, :2], rand((4, 6), 44)[:, :2] * 2)
    piece = y.tensor_split([1, 3], dim=1)[1]  # tensor_split's pieces stay views of their own
    piece.mul_(3)
