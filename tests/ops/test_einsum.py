"""genesis.einsum against torch.einsum: fixed equations (matrix products, traces, diagonals,
ellipsis broadcasting, implicit outputs, several operands), every dtype PyTorch takes,
non-contiguous and zero-size operands, Hypothesis-generated random equations, and the errors of
equations that do not parse or do not match the operands."""

import numpy as np
import pytest
from conftest import FLOAT_DTYPES, INT_DTYPES, dtype_id, make_tensor, to_numpy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genesis

torch = pytest.importorskip("torch")


def _pair(shape, dtype, device, seed=0, stepped=False):
    full = tuple(shape[:-1]) + (2 * shape[-1],) if stepped and shape else tuple(shape)
    low, high = (0, 3) if dtype is genesis.uint8 else (-3, 3)
    x, _ = make_tensor(full, dtype, device, seed=seed, low=low, high=high)
    if stepped and shape:
        x = x[..., ::2]
    t = torch.from_numpy(np.array(to_numpy(x), order="C"))
    return x, (t.to(torch.float64) if dtype.is_floating_point else t)


def _close(got, want, dtype):
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert got.dtype is dtype, (got.dtype, dtype)
    g, w = to_numpy(got), want.numpy()
    if not dtype.is_floating_point:
        np.testing.assert_array_equal(g, w.astype(g.dtype))
        return
    tol = {genesis.float16: 1e-2, genesis.bfloat16: 5e-2}.get(dtype, 1e-6)
    scale = max(1.0, float(np.abs(w).max())) if w.size else 1.0
    np.testing.assert_allclose(g.astype(np.float64), w, rtol=tol, atol=tol * scale)


CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ji,jk", [(4, 3), (4, 5)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("iji->j", [(3, 2, 3)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("i...->...", [(3, 2, 4)]),
    ("...i->i", [(2, 3)]),
    ("...ij", [(2, 3, 4)]),
    ("i...,i...->i...", [(3, 1, 2), (3, 4, 1)]),
    ("i,i->i", [(1,), (3,)]),
    ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 5)]),
    ("ab,cd,ef->abcdef", [(2, 1), (1, 2), (2, 2)]),
    ("abc,cd,db->a", [(2, 3, 4), (4, 5), (5, 3)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("Ab,b->A", [(2, 3), (3,)]),
    ("aB,Ba", [(2, 3), (3, 2)]),
    (",i->i", [(), (3,)]),
    ("", [()]),
    ("i j , j k -> i k", [(2, 3), (3, 4)]),
    ("ij,jk->ik", [(0, 3), (3, 4)]),
    ("ij,jk->ik", [(2, 0), (0, 4)]),
    ("ijk,ik->j", [(2, 0, 3), (2, 3)]),
    ("iij,jk->ik", [(3, 3, 2), (2, 4)]),
]


@pytest.mark.parametrize("eq,shapes", CASES, ids=[c[0] or "empty" for c in CASES])
def test_einsum_cases(device, eq, shapes):
    for stepped in (False, True):
        pairs = [
            _pair(s, genesis.float64, device, seed=i, stepped=stepped) for i, s in enumerate(shapes)
        ]
        got = genesis.einsum(eq, *[p[0] for p in pairs])
        _close(got, torch.einsum(eq, *[p[1] for p in pairs]), genesis.float64)
    # A single list of operands works too.
    _close(
        genesis.einsum(eq, [p[0] for p in pairs]),
        torch.einsum(eq, [p[1] for p in pairs]),
        genesis.float64,
    )


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES, ids=dtype_id)
def test_einsum_dtypes(device, dtype):
    for eq, shapes in [
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("ii->i", [(3, 3)]),
        ("i...,i->...", [(3, 2), (3,)]),
    ]:
        if device == "cuda" and not dtype.is_floating_point and len(shapes) > 1:
            ops = [genesis.ones(s, dtype=dtype, device=device) for s in shapes]
            with pytest.raises(TypeError, match=r"^\[einsum\]"):
                genesis.einsum(eq, *ops)
            continue
        pairs = [_pair(s, dtype, device, seed=i, stepped=True) for i, s in enumerate(shapes)]
        want = torch.einsum(eq, *[p[1] for p in pairs])
        _close(genesis.einsum(eq, *[p[0] for p in pairs]), want, dtype)


TORCH_DTYPE = {
    genesis.bool: torch.bool,
    genesis.int8: torch.int8,
    genesis.int64: torch.int64,
    genesis.float32: torch.float32,
}
GENESIS_DTYPE = {v: k for k, v in TORCH_DTYPE.items()}
# PyTorch's dtype rules: sums promote bool and integers to int64, steps without a contracted
# subscript multiply (promoting), contractions need one dtype and refuse bool.
DTYPE_RULES = [
    ("ii->i", [genesis.int8]),
    ("ii", [genesis.int8]),
    ("ij->j", [genesis.bool]),
    ("ij->ji", [genesis.bool]),
    ("ij,j->j", [genesis.int8, genesis.int8]),
    ("ij,j->i", [genesis.int8, genesis.int8]),
    ("ij,k->k", [genesis.int8, genesis.int8]),
    ("ij,ij->ij", [genesis.int8, genesis.int8]),
    ("ij,ij->ij", [genesis.bool, genesis.bool]),
    ("i,j->ij", [genesis.bool, genesis.bool]),
    ("ij,j->j", [genesis.bool, genesis.bool]),
    ("ij,j->ij", [genesis.int8, genesis.float32]),
    ("ij,j->", [genesis.int8, genesis.int8]),  # int64 @ int8: both refuse
    ("ij,jk->i", [genesis.int8, genesis.int8]),
    ("ij,j->i", [genesis.bool, genesis.bool]),
    ("ij,jk->ik", [genesis.int8, genesis.float32]),
]


@pytest.mark.parametrize("eq,dtypes", DTYPE_RULES, ids=[f"{e}-{d}" for e, d in DTYPE_RULES])
def test_einsum_dtype_rules(eq, dtypes):
    terms = eq.split("->")[0].split(",")
    made = [_pair((2,) * len(t), d, "cpu", seed=i) for i, (t, d) in enumerate(zip(terms, dtypes))]
    ops = [x.bool() if d is genesis.bool else x for (x, _), d in zip(made, dtypes)]
    tops = [torch.from_numpy(np.array(to_numpy(x), order="C")) for x in ops]
    try:
        want = torch.einsum(eq, *tops)
    except (RuntimeError, NotImplementedError):
        with pytest.raises((RuntimeError, TypeError), match=r"^\[einsum\]"):
            genesis.einsum(eq, *ops)
        return
    got = genesis.einsum(eq, *ops)
    assert got.dtype is GENESIS_DTYPE[want.dtype], (got.dtype, want.dtype)
    np.testing.assert_array_equal(to_numpy(got), want.numpy())


def test_einsum_single_operand_is_a_view(device):
    x = genesis.ones(3, 3, device=device)
    assert (
        genesis.einsum("ij->ji", x).untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    )
    d = genesis.einsum("ii->i", x)
    d.fill_(5.0)
    assert to_numpy(x).trace() == 15.0


ERRORS = [
    ("i,i->", [(3,)], ValueError),  # fewer operands than terms
    ("i->i", [(3,), (3,)], ValueError),  # more operands than terms
    ("ij,i->", [(3,), (3,)], ValueError),  # subscripts != ndim
    ("ijk...", [(3, 3)], ValueError),  # more subscripts than dims
    ("i,i->", [(3,), (4,)], RuntimeError),  # a shared index of two sizes
    ("ii->i", [(3, 4)], RuntimeError),  # a repeated index of two sizes
    ("i1,i->", [(3,), (3,)], ValueError),  # invalid character
    ("i,i->j", [(3,), (3,)], ValueError),  # output index not in the inputs
    ("i,i->ii", [(3,), (3,)], ValueError),  # repeated output index
    ("...i...,i->", [(3,), (3,)], ValueError),  # two ellipses
    ("..i,i->", [(3,), (3,)], ValueError),  # a lone '.'
    ("i->i->i", [(3,)], ValueError),  # two arrows
    ("i...,i...->i...", [(3, 3, 2), (3, 4, 1)], RuntimeError),  # ellipsis dims do not broadcast
    ("i-i", [(3,)], ValueError),
]


@pytest.mark.parametrize("eq,shapes,exc", ERRORS, ids=[e[0] for e in ERRORS])
def test_einsum_errors(device, eq, shapes, exc):
    ops = [genesis.ones(s, device=device) for s in shapes]
    with pytest.raises(exc, match=r"^\[einsum\]"):
        genesis.einsum(eq, *ops)


def test_einsum_bad_operands(device):
    a = genesis.ones(3, device=device)
    with pytest.raises(ValueError, match=r"^\[einsum\]"):
        genesis.einsum("i")
    with pytest.raises(RuntimeError, match=r"^\[einsum\]"):
        genesis.einsum("i,i->", a, a.double())
    with pytest.raises(TypeError, match=r"^\[einsum\]"):
        genesis.einsum("i,i->", a > 0, a > 0)
    with pytest.raises(TypeError, match=r"^\[einsum\]"):
        genesis.einsum("i,i->", a, [1.0, 2.0, 3.0])


def test_einsum_sublist_form(device):
    a, ta = _pair((3, 4), genesis.float64, device, seed=1)
    b, tb = _pair((2, 4, 5), genesis.float64, device, seed=2)
    cases = [
        ((a, [0, 1], b, [..., 1, 2]), (ta, [0, 1], tb, [..., 1, 2])),
        ((a, [0, 1], b, [..., 1, 2], [..., 0, 2]), (ta, [0, 1], tb, [..., 1, 2], [..., 0, 2])),
        ((a, [30, 30 + 1]), (ta, [30, 30 + 1])),
        ((a, [0, 1], [1]), (ta, [0, 1], [1])),
    ]
    for got_args, want_args in cases:
        _close(genesis.einsum(*got_args), torch.einsum(*want_args), genesis.float64)
    with pytest.raises(ValueError, match=r"^\[einsum\]"):
        genesis.einsum(a, [0, 52])
    with pytest.raises(TypeError, match=r"^\[einsum\]"):
        genesis.einsum(a, [0, "b"])
    with pytest.raises(TypeError, match=r"^\[einsum\]"):
        genesis.einsum(3, [0])
    with pytest.raises(ValueError, match=r"^\[einsum\]"):
        genesis.einsum()


# --- random equations ---------------------------------------------------------------------------

FUZZ = settings(
    derandomize=True,
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
LETTERS = "abcdeB"


@st.composite
def equations(draw):
    """(equation, operand shapes) PyTorch accepts: 1-3 operands, repeated and one-operand
    indices, size-1 broadcasting, ellipses, implicit or explicit outputs."""
    sizes = {c: draw(st.integers(0, 3)) for c in LETTERS}
    ell = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    n = draw(st.integers(1, 3))
    terms, shapes = [], []
    for _ in range(n):
        labels = draw(st.lists(st.sampled_from(LETTERS), max_size=4))
        shape = []
        for c in labels:
            # A size 1 broadcasts against the other operands, but repeats within a term agree.
            one = c not in labels[: len(shape)] and draw(st.integers(0, 4)) == 0
            shape.append(1 if one else sizes[c])
        for i, c in enumerate(labels):  # repeats take the first appearance's size
            shape[i] = shape[labels.index(c)]
        term = "".join(labels)
        if draw(st.booleans()):
            k = draw(st.integers(0, len(ell)))
            mine = [1 if draw(st.integers(0, 3)) == 0 else s for s in ell[len(ell) - k :]]
            at = draw(st.integers(0, len(labels)))
            term = term[:at] + "..." + term[at:]
            shape = shape[:at] + mine + shape[at:]
        terms.append(term)
        shapes.append(tuple(shape))
    eq = ",".join(terms)
    if draw(st.booleans()):
        used = sorted({c for t in terms for c in t if c != "."})
        out = draw(st.permutations(used))
        out = "".join(out[: draw(st.integers(0, len(out)))])
        if "..." in eq and draw(st.booleans()):
            at = draw(st.integers(0, len(out)))
            out = out[:at] + "..." + out[at:]
        eq += "->" + out
    return eq, shapes


@FUZZ
@given(case=equations(), stepped=st.booleans())
def test_einsum_random(device, case, stepped):
    eq, shapes = case
    pairs = [
        _pair(s, genesis.float64, device, seed=i, stepped=stepped) for i, s in enumerate(shapes)
    ]
    try:
        want = torch.einsum(eq, *[p[1] for p in pairs])
    except RuntimeError:  # size-1 labels torch does not broadcast in this position
        with pytest.raises((RuntimeError, ValueError), match=r"^\[einsum\]"):
            genesis.einsum(eq, *[p[0] for p in pairs])
        return
    _close(genesis.einsum(eq, *[p[0] for p in pairs]), want, genesis.float64)
