"""pairwise_distance, cosine_similarity and pdist (functional) and PairwiseDistance,
CosineSimilarity (modules) against torch: values and gradients for every p, keepdim, eps,
broadcasting, 0-d, non-contiguous and zero-size inputs, dtypes (integer inputs included), zero
vectors (cosine_similarity's clamp, not recorded by autograd), the input checks and repr."""

import math

import numpy as np
import pytest
from conftest import check_message, to_numpy
from test_autograd import check_grads

import genesis
import genesis.nn as nn
import genesis.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(3)


def _np(t):
    return to_numpy(t.detach()) if isinstance(t, genesis.Tensor) else t.detach().numpy()


def _r(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape)


# ----------------------------------------------------------------------------------------------
# pairwise_distance
# ----------------------------------------------------------------------------------------------

PS = [2.0, 1.0, 3.0, 0.5, 1.5, math.inf, -math.inf, -1.5]


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance_matches_torch(p, keepdim, device):
    check_grads(
        lambda m, a, b: m.nn.functional.pairwise_distance(a, b, p=p, keepdim=keepdim),
        [_r(5, 4), _r(5, 4, seed=1)],
        device,
    )


def test_pairwise_distance_p0_counts_nonzeros(device):
    a, b = _r(5, 4), _r(5, 4, seed=1)
    b[0, :2], a[0, :2] = 1.0, 0.75  # two differences cancelled by eps
    ga = genesis.tensor(a, device=device, requires_grad=True)
    got = F.pairwise_distance(ga, genesis.tensor(b, device=device), p=0, eps=0.25)
    want = TF.pairwise_distance(torch.tensor(a), torch.tensor(b), p=0, eps=0.25)
    np.testing.assert_array_equal(_np(got), want.numpy())
    assert _np(got)[0] == 2
    got.sum().backward()  # torch gives no gradient (None); genesis zeros
    assert (_np(ga.grad) == 0).all()


@pytest.mark.parametrize(
    "s1, s2",
    [
        ((4,), (4,)),
        ((4,), (3, 4)),
        ((3, 1, 4), (2, 4)),
        ((), ()),
        ((2, 3, 4), (2, 3, 4)),
        ((1, 4), (3, 4)),
    ],
)
def test_pairwise_distance_shapes_and_broadcasting(s1, s2, device):
    for eps in (1e-6, 0.5):
        check_grads(
            lambda m, a, b, eps=eps: m.nn.functional.pairwise_distance(a, b, eps=eps),
            [_r(*s1), _r(*s2, seed=1)],
            device,
        )


def test_pairwise_distance_non_contiguous_zero_size_and_float32(device):
    check_grads(
        lambda m, a, b: m.nn.functional.pairwise_distance(a.t(), b[:, ::2], p=3.0),
        [_r(4, 5), _r(5, 8, seed=1)],
        device,
    )
    check_grads(
        lambda m, a, b: m.nn.functional.pairwise_distance(a, b),
        [_r(5, 4).astype(np.float32), _r(5, 4, seed=1).astype(np.float32)],
        device,
        rtol=1e-5,
        atol=1e-6,
    )
    for shape in [(0, 4), (3, 0)]:
        got = F.pairwise_distance(
            genesis.zeros(*shape, device=device), genesis.zeros(*shape, device=device)
        )
        want = TF.pairwise_distance(torch.zeros(*shape), torch.zeros(*shape))
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(_np(got), want.numpy())


def test_pairwise_distance_dtypes(device):
    a, b = [[1, 2, 3], [4, 5, 6]], [[0, 0, 0], [4, 4, 4]]
    got = F.pairwise_distance(genesis.tensor(a, device=device), genesis.tensor(b, device=device))
    want = TF.pairwise_distance(torch.tensor(a), torch.tensor(b))
    assert got.dtype is genesis.float32 and want.dtype is torch.float32
    np.testing.assert_allclose(_np(got), want.numpy(), rtol=1e-6)
    x, y = _r(3, 8).astype(np.float32), _r(3, 8, seed=2).astype(np.float32)
    for gd, td in [(genesis.float16, torch.float16), (genesis.bfloat16, torch.bfloat16)]:
        got = F.pairwise_distance(
            genesis.tensor(x, device=device).to(gd), genesis.tensor(y, device=device).to(gd)
        )
        want = TF.pairwise_distance(torch.tensor(x).to(td), torch.tensor(y).to(td))
        assert got.dtype is gd
        np.testing.assert_allclose(_np(got.float()), want.float().numpy(), rtol=2e-2)


def test_pairwise_distance_errors(device):
    with pytest.raises(RuntimeError) as info:
        F.pairwise_distance(genesis.ones(3, 2, device=device), genesis.ones(3, 3, device=device))
    check_message(info, "pairwise_distance")
    with pytest.raises(RuntimeError):
        TF.pairwise_distance(torch.ones(3, 2), torch.ones(3, 3))
    with pytest.raises(TypeError) as info:
        F.pairwise_distance([1.0], genesis.ones(1, device=device))
    check_message(info, "pairwise_distance")


# ----------------------------------------------------------------------------------------------
# cosine_similarity
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "s1, s2, dim",
    [
        ((5, 4), (5, 4), 1),
        ((5, 4), (5, 4), 0),
        ((5, 4), (5, 4), -1),
        ((2, 3, 4), (2, 3, 4), 1),
        ((4,), (4,), 0),
        ((3, 4), (4,), -1),
        ((3, 1, 4), (2, 4), 2),
        ((1, 4), (3, 4), 1),
    ],
)
def test_cosine_similarity_matches_torch(s1, s2, dim, device):
    for eps in (1e-8, 0.5):
        check_grads(
            lambda m, a, b, eps=eps: m.nn.functional.cosine_similarity(a, b, dim=dim, eps=eps),
            [_r(*s1), _r(*s2, seed=1)],
            device,
        )


def test_cosine_similarity_zero_and_tiny_vectors(device):
    # The clamp of the norms is not recorded by autograd: the gradient of a zero or tiny row is
    # the unclamped norm's, as in torch.
    a = _r(4, 3)
    a[0] = 0.0
    a[1] *= 1e-10
    b = _r(4, 3, seed=1)
    b[2] = 0.0
    for eps in (1e-8, 1e-3):
        check_grads(
            lambda m, x, y, eps=eps: m.nn.functional.cosine_similarity(x, y, eps=eps),
            [a, b],
            device,
        )


def test_cosine_similarity_non_contiguous_zero_size_and_dtypes(device):
    check_grads(
        lambda m, a, b: m.nn.functional.cosine_similarity(a.t(), b[::2], dim=0),
        [_r(4, 5), _r(10, 4, seed=1)],
        device,
    )
    check_grads(
        lambda m, a, b: m.nn.functional.cosine_similarity(a, b),
        [_r(5, 4).astype(np.float32), _r(5, 4, seed=1).astype(np.float32)],
        device,
        rtol=1e-5,
        atol=1e-6,
    )
    got = F.cosine_similarity(
        genesis.zeros(0, 4, device=device), genesis.zeros(0, 4, device=device)
    )
    assert tuple(got.shape) == (0,)
    # integer and mixed inputs: converted to the common floating dtype
    a, b = [[1, 2]], [[3.0, 3.0]]
    got = F.cosine_similarity(
        genesis.tensor(a, device=device), genesis.tensor(b, dtype=genesis.float64, device=device)
    )
    want = TF.cosine_similarity(torch.tensor(a), torch.tensor(b, dtype=torch.float64))
    assert got.dtype is genesis.float64
    np.testing.assert_allclose(_np(got), want.numpy(), rtol=1e-12)
    x, y = _r(3, 6).astype(np.float32), _r(3, 6, seed=2).astype(np.float32)
    got = F.cosine_similarity(
        genesis.tensor(x, device=device).half(), genesis.tensor(y, device=device)
    )
    want = TF.cosine_similarity(torch.tensor(x).half(), torch.tensor(y))
    assert got.dtype is genesis.float32
    np.testing.assert_allclose(_np(got), want.numpy(), rtol=1e-3, atol=1e-3)
    for gd, td in [(genesis.float16, torch.float16), (genesis.bfloat16, torch.bfloat16)]:
        got = F.cosine_similarity(
            genesis.tensor(x, device=device).to(gd), genesis.tensor(y, device=device).to(gd)
        )
        want = TF.cosine_similarity(torch.tensor(x).to(td), torch.tensor(y).to(td))
        assert got.dtype is gd
        np.testing.assert_allclose(_np(got.float()), want.float().numpy(), atol=2e-2)


def test_cosine_similarity_errors(device):
    with pytest.raises(RuntimeError, match="floating point") as info:
        F.cosine_similarity(
            genesis.tensor([[1, 2]], device=device), genesis.tensor([[3, 3]], device=device)
        )
    check_message(info, "cosine_similarity")
    with pytest.raises(RuntimeError, match="floating point"):
        TF.cosine_similarity(torch.tensor([[1, 2]]), torch.tensor([[3, 3]]))
    with pytest.raises(RuntimeError) as info:
        F.cosine_similarity(genesis.ones(2, 3, device=device), genesis.ones(2, 4, device=device))
    check_message(info, "cosine_similarity")
    with pytest.raises(IndexError):  # genesis's dim check, as torch's
        F.cosine_similarity(genesis.ones(2, device=device), genesis.ones(2, device=device))
    with pytest.raises(IndexError):
        TF.cosine_similarity(torch.ones(2), torch.ones(2))
    with pytest.raises(TypeError) as info:
        F.cosine_similarity(genesis.ones(2, device=device), 3.0)
    check_message(info, "cosine_similarity")


# ----------------------------------------------------------------------------------------------
# pdist
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, 1.5, math.inf, 0.0])
def test_pdist_matches_torch(p, device):
    check_grads(lambda m, x: m.nn.functional.pdist(x, p), [_r(6, 4)], device)
    check_grads(lambda m, x: m.nn.functional.pdist(x.t(), p), [_r(3, 5)], device)  # strided


def test_pdist_duplicate_rows_float32_and_sizes(device):
    x = _r(4, 3)
    x[2] = x[0]  # a zero distance: a zero gradient, as torch's
    check_grads(lambda m, x: m.nn.functional.pdist(x), [x], device)
    check_grads(
        lambda m, x: m.nn.functional.pdist(x, 1.0),
        [_r(5, 3).astype(np.float32)],
        device,
        rtol=1e-5,
        atol=1e-6,
    )
    for shape in [(1, 3), (0, 3), (3, 0)]:
        got = F.pdist(genesis.zeros(*shape, device=device))
        want = TF.pdist(torch.zeros(*shape))
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_array_equal(_np(got), want.numpy())
    got = F.pdist(genesis.tensor([[0.0, 1], [3, -1], [2, 2]], device=device), math.inf)
    np.testing.assert_array_equal(_np(got), [3.0, 2.0, 3.0])
    got = F.pdist(genesis.tensor(x, device=device).half())  # torch CPU has no float16 pdist
    np.testing.assert_allclose(_np(got.float()), TF.pdist(torch.tensor(x)).numpy(), rtol=3e-3)


def test_pdist_errors(device):
    def expect(match, *args):
        with pytest.raises(RuntimeError, match=match) as info:
            F.pdist(*args)
        check_message(info, "pdist")

    expect("2D tensors", genesis.ones(2, 3, 3, device=device))
    expect("2D tensors", genesis.ones(3, device=device))
    expect("floating-point", genesis.ones(2, 3, dtype=genesis.int64, device=device))
    expect("non-negative", genesis.ones(2, 3, device=device), -1)
    with pytest.raises(RuntimeError, match="non-negative"):
        TF.pdist(torch.ones(2, 3), -1)
    with pytest.raises(TypeError) as info:
        F.pdist([[1.0]])
    check_message(info, "pdist")


# ----------------------------------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------------------------------


def test_modules_match_torch(device):
    for args in [(), (1.0,), (3.0, 1e-3, True)]:
        g, t = nn.PairwiseDistance(*args), torch.nn.PairwiseDistance(*args)
        assert repr(g) == repr(t) == "PairwiseDistance()"
        assert (g.norm, g.eps, g.keepdim) == (t.norm, t.eps, t.keepdim)
        assert list(g.state_dict()) == list(t.state_dict()) == []
        a, b = _r(4, 5), _r(4, 5, seed=1)
        got = g(genesis.tensor(a, device=device), genesis.tensor(b, device=device))
        np.testing.assert_allclose(
            _np(got), t(torch.tensor(a), torch.tensor(b)).numpy(), rtol=1e-12
        )
    for args in [(), (0,), (-1, 1e-3)]:
        g, t = nn.CosineSimilarity(*args), torch.nn.CosineSimilarity(*args)
        assert repr(g) == repr(t) == "CosineSimilarity()"
        assert (g.dim, g.eps) == (t.dim, t.eps)
        a, b = _r(4, 5), _r(4, 5, seed=1)
        got = g(genesis.tensor(a, device=device), genesis.tensor(b, device=device))
        np.testing.assert_allclose(
            _np(got), t(torch.tensor(a), torch.tensor(b)).numpy(), rtol=1e-12
        )
