"""genesis.linalg's decompositions against PyTorch: solve, inv, det, slogdet, cholesky, qr, svd,
svdvals, eigh and eigvalsh on random well-conditioned float32/float64 matrices, batched (empty
batches and n = 0 too), non-contiguous, CPU and CUDA. Factors that are unique only up to signs
(Q, U, V, eigenvectors) are checked through their invariants: reconstruction, orthogonality,
sorted values. Bad input and the LinAlgError cases raise errors naming the op.
"""

import numpy as np
import pytest
from conftest import to_numpy

import genesis

torch = pytest.importorskip("torch")

FLOATS = [genesis.float32, genesis.float64]
NP = {genesis.float32: np.float32, genesis.float64: np.float64}
TOL = {genesis.float32: 2e-4, genesis.float64: 1e-10}
BATCHES = [(), (3,), (2, 2), (0,)]


def _rng(seed):
    return np.random.default_rng(seed)


def _general(shape, seed=0):
    """Well-conditioned square (or any) matrices: random plus a dominant diagonal."""
    a = _rng(seed).standard_normal(shape)
    if shape[-1] == shape[-2]:
        a = a + shape[-1] * np.eye(shape[-1])
    return a


def _spd(shape, seed=0):
    a = _rng(seed).standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _g(a, dtype, device, layout="contiguous"):
    """A genesis tensor of a's values: contiguous, or the transpose of a contiguous one."""
    a = np.asarray(a, dtype=NP[dtype])
    if layout == "transposed":
        return genesis.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), device=device).mT
    if layout == "stepped":
        big = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=a.dtype)
        big[..., ::2] = a
        return genesis.tensor(big, device=device)[..., ::2]
    return genesis.tensor(a, device=device)


def _close(got, want, dtype, scale=1.0):
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    tol = TOL[dtype] * scale
    np.testing.assert_allclose(to_numpy(got).astype(np.float64), want, rtol=tol, atol=tol)


def _t(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


LAYOUTS = ["contiguous", "transposed", "stepped"]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_solve_inv_det(device, dtype, batch, layout):
    for n in (0, 1, 4):
        a = _general(batch + (n, n), seed=n)
        b = _rng(7).standard_normal(batch + (n, 3))
        ga, gb = _g(a, dtype, device, layout), _g(b, dtype, device, layout)
        _close(genesis.linalg.solve(ga, gb), torch.linalg.solve(_t(a), _t(b)).numpy(), dtype)
        _close(genesis.linalg.inv(ga), torch.linalg.inv(_t(a)).numpy(), dtype)
        want = torch.linalg.det(_t(a)).numpy()
        _close(
            genesis.linalg.det(ga), want, dtype, scale=max(1.0, float(np.abs(want).max(initial=1)))
        )
        sign, logabs = genesis.linalg.slogdet(ga)
        ws, wl = torch.linalg.slogdet(_t(a))
        _close(sign, ws.numpy(), dtype)
        _close(logabs, wl.numpy(), dtype, scale=10)
        assert genesis.linalg.det(ga).dtype is dtype


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_solve_vector_broadcast_and_right(device, dtype):
    a = _general((2, 1, 4, 4))
    b = _rng(1).standard_normal((3, 4, 2))
    got = genesis.linalg.solve(_g(a, dtype, device), _g(b, dtype, device))
    _close(got, torch.linalg.solve(_t(a), _t(b)).numpy(), dtype)
    # vectors: 1-D, and A's shape without the last dim
    v = _rng(2).standard_normal(4)
    _close(
        genesis.linalg.solve(_g(a, dtype, device), _g(v, dtype, device)),
        torch.linalg.solve(_t(a), _t(v)).numpy(),
        dtype,
    )
    a3 = _general((3, 4, 4))
    v3 = _rng(3).standard_normal((3, 4))
    _close(
        genesis.linalg.solve(_g(a3, dtype, device), _g(v3, dtype, device)),
        torch.linalg.solve(_t(a3), _t(v3)).numpy(),
        dtype,
    )
    # X A = B
    br = _rng(4).standard_normal((3, 5, 4))
    _close(
        genesis.linalg.solve(_g(a3, dtype, device), _g(br, dtype, device), left=False),
        torch.linalg.solve(_t(a3), _t(br), left=False).numpy(),
        dtype,
    )
    # as torch, a vector B is a column for left=False too, which X A = B does not take
    with pytest.raises(RuntimeError, match=r"^\[linalg.solve\] Incompatible .*XA = B"):
        genesis.linalg.solve(_g(a3, dtype, device), _g(v, dtype, device), left=False)


def test_singular_and_det_values(device):
    s = genesis.tensor([[1.0, 2.0], [2.0, 4.0]], device=device)
    with pytest.raises(genesis.linalg.LinAlgError, match=r"^\[linalg.solve\] .*singular"):
        genesis.linalg.solve(s, genesis.ones(2, device=device))
    with pytest.raises(genesis.linalg.LinAlgError, match=r"^\[linalg.inv\] .*singular"):
        genesis.linalg.inv(s)
    batch = genesis.stack([genesis.eye(2, device=device), s])
    with pytest.raises(genesis.linalg.LinAlgError, match=r"\(Batch element 1\)"):
        genesis.linalg.inv(batch)
    assert issubclass(genesis.linalg.LinAlgError, RuntimeError)
    z = genesis.zeros(2, 2, dtype=genesis.float64, device=device)
    assert genesis.linalg.det(z).item() == 0.0
    sign, logabs = genesis.linalg.slogdet(z)
    assert sign.item() == 0.0 and logabs.item() == -np.inf
    # an odd permutation: the pivoting's sign counts
    p = genesis.tensor([[0.0, 1.0], [1.0, 0.0]], device=device)
    assert genesis.linalg.det(p).item() == -1.0
    assert genesis.linalg.det(genesis.zeros(0, 0, device=device)).item() == 1.0


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(device, dtype, batch, upper):
    for n, layout in ((0, "contiguous"), (1, "contiguous"), (5, "transposed"), (4, "stepped")):
        a = _spd(batch + (n, n), seed=n)
        # the triangle that is not read holds garbage
        junk = np.triu(np.full((n, n), 1e3), 1)
        a_in = a + (junk.T if upper else junk)
        got = genesis.linalg.cholesky(_g(a_in, dtype, device, layout), upper=upper)
        _close(got, torch.linalg.cholesky(_t(a), upper=upper).numpy(), dtype, scale=10)


def test_cholesky_not_positive_definite(device):
    a = genesis.tensor([[1.0, 2.0], [2.0, 1.0]], device=device)
    with pytest.raises(
        genesis.linalg.LinAlgError,
        match=r"^\[linalg.cholesky\] .*not positive-definite .*order 2",
    ):
        genesis.linalg.cholesky(a)


@pytest.mark.parametrize("n", [8, 64, 129])
def test_cholesky_nan_item_spreads_without_error(device, n):
    """A NaN on an item's diagonal is no failed minor: it spreads through that item's factor from
    its row on, the other items stay right (CUDA's own kernel for n <= 64, cuSOLVER above)."""
    a = _spd((3, n, n), seed=5) / n
    a[1, 3, 3] = np.nan
    factors = genesis.linalg.cholesky(_g(a, genesis.float64, device))
    got = to_numpy(factors)
    assert np.isnan(got[1, 3:, 3]).all() and not np.isnan(got[1, :3, :3]).any()
    want = torch.linalg.cholesky(_t(a[0::2])).numpy()
    _close(factors[0::2], want, genesis.float64, scale=10)


# On CUDA, batches of several matrices go to the batched routines (cuBLAS's getrfBatched and
# getrsBatched while n <= 128 * sqrt(batch); Cholesky to genesis's own kernel for n <= 64, one
# matrix or many, else cuSOLVER's potrfBatched), one matrix and larger n to one call per matrix
# (Note [Batched small matrices] in csrc/cuda/solver.cpp): n and batches on both sides (n = 200
# with 2 matrices, and 300 with 5, take the loop). Every item
# differs from the others and is compared on its own, so a wrong matrix stride, pivot layout or
# info slot shows up in some item.
SMALL_CASES = [
    (batch, n)
    for batch in [(0,), (1,), (2,), (3, 5), (40,)]
    for n in [2, 16, 32, 33, 64, 129, 200]
    if n <= {(40,): 64, (3, 5): 129}.get(batch, 200)  # the CPU's time
]


def _pivoting(shape, seed=0):
    """Well-conditioned matrices (I + noise / n) with their rows shuffled, a different shuffle
    per item: partial pivoting must swap rows, so the pivots differ between items."""
    rng = _rng(seed)
    n = shape[-1]
    a = np.eye(n) + rng.standard_normal(shape) / n
    flat = a.reshape(-1, n, n)
    for i in range(flat.shape[0]):
        flat[i] = flat[i][rng.permutation(n)]
    return flat.reshape(shape)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("batch,n", SMALL_CASES, ids=str)
def test_batched_small_solve_inv_det(device, dtype, batch, n):
    a = _pivoting(batch + (n, n), seed=n)
    ga = _g(a, dtype, device)
    ta = _t(a)
    for k in (1, 3):
        b = _rng(n + k).standard_normal(batch + (n, k))
        got = genesis.linalg.solve(ga, _g(b, dtype, device))
        _close(got, torch.linalg.solve(ta, _t(b)).numpy(), dtype, scale=10)
    v = _rng(5).standard_normal(batch + (n,))  # a batch of vectors
    got = genesis.linalg.solve(ga, _g(v, dtype, device))
    _close(got, torch.linalg.solve(ta, _t(v)).numpy(), dtype, scale=10)
    _close(genesis.linalg.inv(ga), torch.linalg.inv(ta).numpy(), dtype, scale=10)
    # det's sign comes from each item's own pivots: a pivot row read from another item, or
    # pivots a matrix apart at the wrong stride, flips or scrambles it
    want = torch.linalg.det(ta).numpy()
    _close(
        genesis.linalg.det(ga), want, dtype, scale=10 * max(1.0, float(np.abs(want).max(initial=1)))
    )
    sign, logabs = genesis.linalg.slogdet(ga)
    ws, wl = torch.linalg.slogdet(ta)
    assert np.array_equal(to_numpy(sign), ws.numpy().astype(NP[dtype]))
    _close(logabs, wl.numpy(), dtype, scale=10 * n)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("n", [4, 129, 300])
def test_batched_singular_item(device, dtype, n):
    """One exactly singular item (a zero column: U(k, k) is exactly zero) among good ones: the
    error names that item and, for inv, the zero pivot; det is 0 there and right elsewhere."""
    a = _pivoting((5, n, n), seed=1)
    k = n // 2
    a[3, :, k] = 0.0
    ga = _g(a, dtype, device)
    b = _g(_rng(2).standard_normal((5, n, 2)), dtype, device)
    with pytest.raises(
        genesis.linalg.LinAlgError, match=r"^\[linalg.solve\] \(Batch element 3\): "
    ):
        genesis.linalg.solve(ga, b)
    with pytest.raises(
        genesis.linalg.LinAlgError,
        match=rf"^\[linalg.inv\] \(Batch element 3\): The diagonal element {k + 1} is zero",
    ):
        genesis.linalg.inv(ga)
    det = to_numpy(genesis.linalg.det(ga)).astype(np.float64)
    want = torch.linalg.det(_t(a)).numpy()
    assert det[3] == 0.0
    np.testing.assert_allclose(det, want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    sign, logabs = genesis.linalg.slogdet(ga)
    assert to_numpy(sign)[3] == 0.0 and to_numpy(logabs)[3] == -np.inf


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("batch,n", SMALL_CASES, ids=str)
@pytest.mark.parametrize("upper", [False, True])
def test_batched_small_cholesky(device, dtype, batch, n, upper):
    a = _spd(batch + (n, n), seed=n) / n  # distinct per item, eigenvalues of order 1
    junk = np.triu(np.full((n, n), 1e3), 1)
    a_in = a + (junk.T if upper else junk)
    got = genesis.linalg.cholesky(_g(a_in, dtype, device), upper=upper)
    _close(got, torch.linalg.cholesky(_t(a), upper=upper).numpy(), dtype, scale=10)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("n", [1, 5, 32, 33, 64])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_of_many_small_matrices(device, dtype, n, upper):
    # Over 1024 matrices (Note [Batched small matrices]): CUDA's own kernel for n <= 32 (an
    # 8 x 8 block of threads), cuSOLVER's batched call above; one item not positive-definite.
    a = _spd((1500, n, n), seed=n) / n
    got = genesis.linalg.cholesky(_g(a, dtype, device), upper=upper)
    _close(got, torch.linalg.cholesky(_t(a), upper=upper).numpy(), dtype, scale=10)
    # Note [Cholesky layouts]: L column-major only from cuSOLVER's call (CUDA, n > 32 here)
    transposed = device == "cuda" and not upper and n > 32
    assert (got.mT if transposed else got).is_contiguous()
    a[1234, n - 1, n - 1] = -1.0
    with pytest.raises(genesis.linalg.LinAlgError, match=rf"Batch element 1234\): .*order {n} "):
        genesis.linalg.cholesky(_g(a, dtype, device), upper=upper)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("n", [4, 64, 129])
def test_batched_cholesky_not_positive_definite_item(device, dtype, n):
    """Item 2 of 4 has a leading minor of order k that is not positive-definite (its own
    diagonal entry made negative): the error names the item and the order."""
    a = _spd((4, n, n), seed=3) / n
    k = n // 2 + 1
    a[2, k - 1, k - 1] = -1.0
    with pytest.raises(
        genesis.linalg.LinAlgError,
        match=rf"^\[linalg.cholesky\] \(Batch element 2\): .*order {k} is not",
    ):
        genesis.linalg.cholesky(_g(a, dtype, device))
    good = np.delete(a, 2, axis=0)
    _close(
        genesis.linalg.cholesky(_g(good, dtype, device)),
        torch.linalg.cholesky(_t(good)).numpy(),
        dtype,
        scale=10,
    )


def _orthonormal_columns(q, dtype):
    qn = to_numpy(q).astype(np.float64)
    k = qn.shape[-1]
    eye = np.broadcast_to(np.eye(k), qn.shape[:-2] + (k, k))
    np.testing.assert_allclose(np.swapaxes(qn, -1, -2) @ qn, eye, atol=TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(device, dtype, batch, mode):
    for (m, n), layout in zip([(4, 4), (6, 3), (3, 6), (0, 3), (3, 0)], LAYOUTS * 2):
        a = _general(batch + (m, n), seed=m + n)
        q, r = genesis.linalg.qr(_g(a, dtype, device, layout), mode=mode)
        wq, wr = torch.linalg.qr(_t(a), mode=mode)
        assert tuple(r.shape) == tuple(wr.shape) and tuple(q.shape) == tuple(wq.shape)
        rn = to_numpy(r)
        assert np.all(np.tril(rn, -1) == 0)
        # |R| is unique (rows change sign with Q's columns)
        _close(genesis.abs(r), np.abs(wr.numpy()), dtype, scale=10)
        if mode == "r":
            continue
        _orthonormal_columns(q, dtype)
        _close(q @ r, a, dtype, scale=10)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("full", [True, False])
def test_svd(device, dtype, batch, full):
    for (m, n), layout in zip([(4, 4), (6, 3), (3, 6), (0, 3), (3, 0), (1, 1)], LAYOUTS * 2):
        a = _rng(m * 7 + n).standard_normal(batch + (m, n))
        u, s, vh = genesis.linalg.svd(_g(a, dtype, device, layout), full_matrices=full)
        wu, ws, wvh = torch.linalg.svd(_t(a), full_matrices=full)
        for got, want in ((u, wu), (s, ws), (vh, wvh)):
            assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
        _close(s, ws.numpy(), dtype, scale=10)
        _close(genesis.linalg.svdvals(_g(a, dtype, device, layout)), ws.numpy(), dtype, scale=10)
        _orthonormal_columns(u, dtype)
        _orthonormal_columns(vh.mT, dtype)
        k = min(m, n)
        us = u[..., :k] * s.unsqueeze(-2)
        _close(us @ vh[..., :k, :], a, dtype, scale=10)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(device, dtype, batch, uplo):
    for n, layout in ((0, "contiguous"), (1, "contiguous"), (5, "transposed"), (4, "stepped")):
        a = _spd(batch + (n, n), seed=n) - 2 * n * np.eye(n)  # eigenvalues of both signs
        junk = np.triu(np.full((n, n), 1e3), 1)
        a_in = a + (junk if uplo == "L" else junk.T)
        w, v = genesis.linalg.eigh(_g(a_in, dtype, device, layout), UPLO=uplo)
        ww, _ = torch.linalg.eigh(_t(a))
        scale = 10 * max(1.0, n * n)
        _close(w, ww.numpy(), dtype, scale=scale)
        _close(
            genesis.linalg.eigvalsh(_g(a_in, dtype, device, layout), UPLO=uplo),
            ww.numpy(),
            dtype,
            scale=scale,
        )
        _orthonormal_columns(v, dtype)
        _close((v * w.unsqueeze(-2)) @ v.mT, a, dtype, scale=scale)


def test_out_and_return_types(device):
    a = genesis.tensor([[4.0, 2.0], [2.0, 5.0]], device=device)
    out = genesis.empty(2, 2, device=device)
    r = genesis.linalg.cholesky(a, out=out)
    assert r is out
    np.testing.assert_allclose(to_numpy(out), [[2.0, 0.0], [1.0, 2.0]])
    out = genesis.empty(2, device=device)
    assert genesis.linalg.eigvalsh(a, out=out) is out
    d = genesis.empty((), device=device)
    assert genesis.linalg.det(a, out=d) is d and d.item() == pytest.approx(16.0)
    assert genesis.linalg.inv(a, out=genesis.empty(2, 2, device=device)).shape == (2, 2)
    assert genesis.linalg.solve(a, a, out=genesis.empty(2, 2, device=device)).shape == (2, 2)
    assert genesis.linalg.svdvals(a, out=genesis.empty(2, device=device)).shape == (2,)
    assert type(genesis.linalg.slogdet(a)).__name__ == "linalg_slogdet"
    assert genesis.linalg.qr(a)._fields == ("Q", "R")
    assert genesis.linalg.svd(a)._fields == ("U", "S", "Vh")
    assert genesis.linalg.eigh(a)._fields == ("eigenvalues", "eigenvectors")
    assert genesis.linalg.qr(a, mode="r").Q.shape == (0,)


def test_tuple_out_arguments(device):
    # out=(...) for the decompositions that return several tensors: each part is written into
    # its out tensor (resized as PyTorch resizes empty ones) and the named tuple holds them.
    a = _g(_general((2, 3, 3), seed=9), genesis.float64, device)
    s = _g(_spd((2, 3, 3), seed=10), genesis.float64, device)
    cases = [
        (genesis.linalg.slogdet, (a,), {}, 2),
        (genesis.linalg.qr, (a,), {"mode": "complete"}, 2),
        (genesis.linalg.qr, (a,), {"mode": "r"}, 2),
        (genesis.linalg.svd, (a,), {"full_matrices": False}, 3),
        (genesis.linalg.eigh, (s,), {"UPLO": "U"}, 2),
    ]
    for fn, args, kwargs, n in cases:
        want = fn(*args, **kwargs)
        outs = tuple(genesis.empty(0, dtype=genesis.float64, device=device) for _ in range(n))
        got = fn(*args, **kwargs, out=outs)
        assert type(got) is type(want) and len(got) == n
        for g, o, w in zip(got, outs, want):
            assert g is o
            _close(g, to_numpy(w).astype(np.float64), genesis.float64)
    # A list works too, as in PyTorch.
    q, r = genesis.empty(0, device=device), genesis.empty(0, device=device)
    assert genesis.linalg.qr(genesis.eye(2, device=device), out=[q, r]).R is r


@pytest.mark.parametrize(
    "call, text",
    [
        (lambda a: genesis.linalg.qr(a, out=genesis.empty(0)), r"a tuple of 2 tensors \(Q, R\)"),
        (lambda a: genesis.linalg.svd(a, out=(genesis.empty(0),) * 2), "a tuple of 3 tensors"),
        (lambda a: genesis.linalg.eigh(a, out=(genesis.empty(0), 1.0)), "a tuple of 2 tensors"),
        (lambda a: genesis.linalg.slogdet(a, out=[None, None]), "a tuple of 2 tensors"),
    ],
)
def test_bad_tuple_out_arguments(device, call, text):
    a = genesis.eye(2, device=device)
    with pytest.raises(TypeError, match=r"^\[linalg\.\w+\] out must be " + text):
        call(a)


def test_tuple_out_of_another_dtype_raises(device):
    a = genesis.eye(2, device=device)
    outs = (genesis.empty(0, dtype=genesis.int64, device=device), genesis.empty(0, device=device))
    with pytest.raises(RuntimeError, match=r"^\[linalg\.qr\]"):
        genesis.linalg.qr(a, out=outs)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: genesis.linalg.solve(a, a),
        genesis.linalg.inv,
        genesis.linalg.det,
        genesis.linalg.slogdet,
        genesis.linalg.cholesky,
        genesis.linalg.eigh,
        genesis.linalg.eigvalsh,
    ],
    ids=["solve", "inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh"],
)
def test_bad_square_inputs(device, fn):
    with pytest.raises(RuntimeError, match=r"^\[linalg\.\w+\] .*square"):
        fn(genesis.ones(2, 3, device=device))
    with pytest.raises(RuntimeError, match=r"^\[linalg\.\w+\] .*at least 2 dimensions"):
        fn(genesis.ones(3, device=device))
    with pytest.raises(RuntimeError, match=r"^\[linalg\.\w+\] .*floating point"):
        fn(genesis.ones(2, 2, dtype=genesis.int64, device=device))
    with pytest.raises(RuntimeError, match=r"^\[linalg\.\w+\] .*Low precision"):
        fn(genesis.ones(2, 2, dtype=genesis.float16, device=device))


@pytest.mark.parametrize(
    "fn",
    [genesis.linalg.qr, genesis.linalg.svd, genesis.linalg.svdvals],
    ids=["qr", "svd", "svdvals"],
)
def test_bad_rectangular_inputs(device, fn):
    with pytest.raises(RuntimeError, match=r"^\[linalg\.\w+\] .*at least 2 dimensions"):
        fn(genesis.ones(3, device=device))
    with pytest.raises(RuntimeError, match=r"^\[linalg\.\w+\] .*floating point"):
        fn(genesis.ones(2, 2, dtype=genesis.int32, device=device))


def test_bad_arguments(device):
    a = genesis.eye(3, device=device)
    with pytest.raises(RuntimeError, match=r"^\[linalg.solve\] Incompatible shapes"):
        genesis.linalg.solve(a, genesis.ones(4, 2, device=device))
    with pytest.raises(RuntimeError, match=r"^\[linalg.solve\] .*same dtype"):
        genesis.linalg.solve(a, genesis.ones(3, 2, dtype=genesis.float64, device=device))
    with pytest.raises(RuntimeError, match=r"^\[linalg.qr\] .*mode"):
        genesis.linalg.qr(a, mode="full")
    with pytest.raises(RuntimeError, match=r"^\[linalg.eigh\] .*UPLO"):
        genesis.linalg.eigh(a, UPLO="X")


def test_lapack_is_found():
    # NumPy's bundled OpenBLAS (or the system's LAPACK) was loaded at run time
    assert "dgetrf" in genesis._C._linalg._lapack_library()


def _run_with_lapack(path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, GENESIS_LAPACK=path)
    code = (
        "import genesis\n"
        "try:\n"
        "    print(genesis.linalg.inv(genesis.eye(2)).tolist())\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout


def test_lapack_override_env():
    out = _run_with_lapack("/nonexistent/liblapack.so")
    assert out.startswith("[linalg.inv] no LAPACK library could be loaded"), out
    assert "GENESIS_LAPACK" in out
    found = genesis._C._linalg._lapack_library().split(" (")[0]
    assert _run_with_lapack(found).strip() == "[[1.0, 0.0], [0.0, 1.0]]"


def test_lapack_with_32_bit_ints():
    # The other naming scheme: scipy-openblas32 (scipy_dgetrf_, 32-bit ints), as the system's
    # liblapack.so.3 (dgetrf_) would be; optional, so skipped when it is not installed.
    import os
    import subprocess
    import sys

    openblas32 = pytest.importorskip("scipy_openblas32")
    path = os.path.join(openblas32.get_lib_dir(), "libscipy_openblas.so")
    code = (
        "import numpy as np, genesis\n"
        "rng = np.random.default_rng(0)\n"
        "a = rng.standard_normal((3, 5, 5)) + 5 * np.eye(5)\n"
        "g = genesis.tensor(a)\n"
        "assert '32-bit' in genesis._C._linalg._lapack_library()\n"
        "assert np.allclose(genesis.linalg.inv(g).numpy(), np.linalg.inv(a))\n"
        "assert np.allclose(genesis.linalg.det(g).numpy(), np.linalg.det(a))\n"
        "assert np.allclose(genesis.linalg.svdvals(g).numpy(), np.linalg.svd(a)[1])\n"
        "s = a @ a.transpose(0, 2, 1)\n"
        "gs = genesis.tensor(s)\n"
        "assert np.allclose(genesis.linalg.eigvalsh(gs).numpy(), np.linalg.eigvalsh(s))\n"
        "assert np.allclose(genesis.linalg.cholesky(gs).numpy(), np.linalg.cholesky(s))\n"
        "q, r = genesis.linalg.qr(g)\n"
        "assert np.allclose((q @ r).numpy(), a)\n"
        "print('ok')\n"
    )
    env = dict(os.environ, GENESIS_LAPACK=path)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert out.stdout.strip() == "ok", out.stderr
