"""Autograd against PyTorch, the ops of issue 16 that had no derivative: aminmax, atleast_Nd,
tensor_split, digamma and polygamma (trigamma), hardtanh and leaky_relu with their in-place
forms, quantile and nanquantile; and the random draws and counting ops whose backward PyTorch
defines as zeros or refuses (normal, bernoulli, poisson, histc, histogram, heaviside, unique).

Same method as test_autograd_ops.py: fn(lib, *leaves) runs on genesis and torch leaves of the
same random float64 data (CPU, and CUDA when there is one), the same random upstream gradient
goes back through both, and outputs and gradients are compared; edge cases (0-d, zero-size,
non-contiguous, ties, keepdim, negative dims) and gradcheck / second derivatives where cheap.
"""

import numpy as np
import pytest
from test_autograd import check_grads, grads_both, leaf, rand, tleaf

import genesis

torch = pytest.importorskip("torch")

X34 = rand((3, 4), 1)
X234 = rand((2, 3, 4), 2)
TIES = np.array([[1.0, 3.0, 3.0, 1.0], [2.0, 2.0, 2.0, 2.0], [0.5, -1.0, 4.0, -1.0]])


def _torch_aminmax_has_a_derivative():
    x = torch.ones(2, dtype=torch.float64, requires_grad=True)
    try:
        torch.stack(torch.aminmax(x)).sum().backward()
        return True
    except RuntimeError:  # "derivative for aten::aminmax is not implemented" (torch < 2.13)
        return False


TORCH_AMINMAX_GRAD = _torch_aminmax_has_a_derivative()


def aminmax(m, x, method=False, **kw):
    """m.aminmax(x, **kw) (x.aminmax(**kw) with method); on a torch whose aminmax has no
    derivative (2.11 on the GPU machine), torch's amin and amax, whose gradients are the same
    (ties share evenly)."""
    if m is torch and not TORCH_AMINMAX_GRAD:
        return torch.amin(x, **kw), torch.amax(x, **kw)
    return x.aminmax(**kw) if method else m.aminmax(x, **kw)


def case(id, fn, *arrays):
    return pytest.param(fn, list(arrays), id=id)


def joined(m, pieces):
    """The pieces of a split as one tensor (each weighted differently), for check_grads."""
    return m.cat([p.reshape(-1) * (i + 1) for i, p in enumerate(pieces)])


# ----------------------------------------------------------------------------------------------
# aminmax, atleast_Nd, tensor_split
# ----------------------------------------------------------------------------------------------

VIEWS = [
    case("aminmax_all", lambda m, x: m.stack(aminmax(m, x)), X34),
    case("aminmax_dim", lambda m, x: m.stack(aminmax(m, x, dim=1)), X34),
    case("aminmax_neg_keepdim", lambda m, x: m.stack(aminmax(m, x, dim=-2, keepdim=True)), X234),
    case("aminmax_method", lambda m, x: m.stack(aminmax(m, x, method=True, dim=0)), X34),
    case("aminmax_transposed", lambda m, x: m.stack(aminmax(m, x.t(), dim=1)), X34),
    case("aminmax_ties_dim", lambda m, x: m.stack(aminmax(m, x, dim=1)), TIES),
    case("aminmax_ties_all", lambda m, x: m.stack(aminmax(m, x)), TIES),
    case("aminmax_ties_min_only", lambda m, x: aminmax(m, x, dim=0)[0] * 3, TIES),
    case("aminmax_0d", lambda m, x: m.stack(aminmax(m, x)), rand((), 3)),
    case("aminmax_zero_size", lambda m, x: m.stack(aminmax(m, x, dim=1)), rand((0, 3), 3)),
    case("atleast_1d_0d", lambda m, x: m.atleast_1d(x), rand((), 4)),
    case("atleast_2d_0d", lambda m, x: m.atleast_2d(x), rand((), 4)),
    case("atleast_2d_1d", lambda m, x: m.atleast_2d(x), rand((5,), 4)),
    case("atleast_3d_0d", lambda m, x: m.atleast_3d(x), rand((), 4)),
    case("atleast_3d_1d", lambda m, x: m.atleast_3d(x), rand((5,), 4)),
    case("atleast_3d_2d", lambda m, x: m.atleast_3d(x.t()), X34),
    case("atleast_3d_3d", lambda m, x: m.atleast_3d(x) * 2, X234),
    case("atleast_3d_zero_size", lambda m, x: m.atleast_3d(x), rand((0,), 4)),
    case(
        "atleast_3d_tuple",
        lambda m, x, y: m.cat([t.reshape(-1) for t in m.atleast_3d(x, y)]),
        rand((5,), 4),
        X34,
    ),
    case("tensor_split_sections", lambda m, x: joined(m, m.tensor_split(x, 3, dim=1)), X34),
    case("tensor_split_more_sections", lambda m, x: joined(m, x.tensor_split(5)), X34),
    case("tensor_split_list", lambda m, x: joined(m, m.tensor_split(x, [1, 3], dim=-1)), X234),
    case("tensor_split_unsorted", lambda m, x: joined(m, m.tensor_split(x, [3, 1, -1, 9], 1)), X34),
    case(
        "tensor_split_tensor", lambda m, x: joined(m, m.tensor_split(x, m.tensor([1, 2]), 0)), X34
    ),
    case("tensor_split_0d_tensor", lambda m, x: joined(m, m.tensor_split(x, m.tensor(2), 1)), X34),
    case("tensor_split_some_unused", lambda m, x: m.tensor_split(x.t(), 3)[1] * 2, X34),
    case(
        "tensor_split_zero_size",
        lambda m, x: joined(m, m.tensor_split(x, 2, dim=0)),
        rand((0, 3), 5),
    ),
]


@pytest.mark.parametrize("fn, arrays", VIEWS)
def test_views_and_aminmax(fn, arrays, device):
    check_grads(fn, arrays, device)


def test_aminmax_is_one_node_and_ties_share_evenly(device):
    x = leaf(TIES, device)
    mn, mx = genesis.aminmax(x, dim=1)
    assert mn.grad_fn is mx.grad_fn or mn.grad_fn.name() == mx.grad_fn.name() == "AminmaxBackward0"
    assert mn.grad_fn.name() == "AminmaxBackward0"
    (mn * genesis.tensor([1.0, 10.0, 100.0], device=device) + mx * 1000).sum().backward()
    want = [[0.5, 500, 500, 0.5], [252.5, 252.5, 252.5, 252.5], [0, 50, 1000, 50]]
    np.testing.assert_allclose(x.grad.cpu().numpy(), want)


def _write_piece(m, x):
    y = x * 1
    m.tensor_split(y, [1, 3], dim=1)[1].mul_(3)  # a recorded view: y's history is rebased
    return y


def _write_atleast(m, x):
    y = x * 1
    m.atleast_3d(y).mul_(2)
    return y


@pytest.mark.parametrize("fn", [_write_piece, _write_atleast], ids=["tensor_split", "atleast_3d"])
def test_pieces_are_recorded_views(fn, device):
    """Writing a piece in place rebases its base's history, as for PyTorch's views."""
    check_grads(fn, [X34], device)


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: m.stack(m.aminmax(x, dim=1)),
        lambda m, x: joined(m, m.tensor_split(x, [1, 3], dim=1)),
        lambda m, x: m.atleast_3d(x) ** 2,
    ],
    ids=["aminmax", "tensor_split", "atleast_3d"],
)
def test_gradcheck_views_and_aminmax(fn, device):
    x = leaf(X34, device)
    assert genesis.autograd.gradcheck(lambda t: fn(genesis, t), [x])


# ----------------------------------------------------------------------------------------------
# digamma, polygamma, hardtanh, leaky_relu
# ----------------------------------------------------------------------------------------------

# Inputs away from digamma's poles: positive, and negative between the integers.
GAMMA_X = np.concatenate([rand((8,), 6, "pos") * 3, -rand((4,), 7, "pos") + 0.25 - 2.0])

ELEMENTWISE = [
    case("digamma", lambda m, x: m.digamma(x), GAMMA_X),
    case("digamma_method_2d", lambda m, x: x.reshape(3, 4).t().digamma(), GAMMA_X),
    case("digamma_0d", lambda m, x: m.digamma(x), np.asarray(1.7)),
    case("digamma_zero_size", lambda m, x: m.digamma(x), rand((0, 2), 1)),
    case("digamma_inplace", lambda m, x: (x * 1).digamma_(), GAMMA_X),
    case("polygamma_0", lambda m, x: m.polygamma(0, x), GAMMA_X),
    case("polygamma_1", lambda m, x: m.polygamma(1, x), GAMMA_X),
    case("polygamma_2", lambda m, x: m.polygamma(2, x), GAMMA_X),
    case("polygamma_3_method", lambda m, x: x.polygamma(3), GAMMA_X),
    case("polygamma_inplace", lambda m, x: (x * 1).polygamma_(1), GAMMA_X),
    case("hardtanh", lambda m, x: m.nn.functional.hardtanh(x * 2), X34),
    case("hardtanh_bounds", lambda m, x: m.nn.functional.hardtanh(x, -0.5, 0.25), X234),
    case(
        "hardtanh_at_bounds",
        lambda m, x: m.nn.functional.hardtanh(x, -1.0, 1.0),
        np.array([-1.0, 1.0, 0.0, -2.0, 2.0, 0.999]),
    ),
    case("hardtanh_inplace", lambda m, x: m.nn.functional.hardtanh(x * 2, inplace=True), X34),
    case("hardtanh_", lambda m, x: m.nn.functional.hardtanh_(x.t() * 2, -0.5, 0.5), X34),
    case("hardtanh_0d", lambda m, x: m.nn.functional.hardtanh(x), np.asarray(0.3)),
    case("leaky_relu", lambda m, x: m.nn.functional.leaky_relu(x), X34),
    case("leaky_relu_slope", lambda m, x: m.nn.functional.leaky_relu(x, 0.2), X234),
    case("leaky_relu_negative_slope", lambda m, x: m.nn.functional.leaky_relu(x, -0.3), X34),
    case(
        "leaky_relu_at_zero",
        lambda m, x: m.nn.functional.leaky_relu(x, 0.1),
        np.array([0.0, -0.0, 1.0, -1.0]),
    ),
    case("leaky_relu_inplace", lambda m, x: m.nn.functional.leaky_relu(x * 1, 0.1, True), X34),
    case("leaky_relu_", lambda m, x: m.nn.functional.leaky_relu_(x.t() * 1, 0.3), X34),
    case("leaky_relu_zero_size", lambda m, x: m.nn.functional.leaky_relu(x), rand((0,), 1)),
]


@pytest.mark.parametrize("fn, arrays", ELEMENTWISE)
def test_special_and_activations(fn, arrays, device):
    check_grads(fn, arrays, device, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    "fn, arrays",
    [
        case("digamma", lambda m, x: m.digamma(x), GAMMA_X),
        case("polygamma_1", lambda m, x: m.polygamma(1, x), GAMMA_X),
        case("hardtanh", lambda m, x: m.nn.functional.hardtanh(x * 2), X34),
        case("leaky_relu", lambda m, x: m.nn.functional.leaky_relu(x, 0.2), X34),
        case("leaky_relu_", lambda m, x: m.nn.functional.leaky_relu_(x * 1, 0.2) * x, X34),
        case("hardtanh_", lambda m, x: m.nn.functional.hardtanh_(x * 2) * x, X34),
    ],
)
def test_special_and_activations_double_backward(fn, arrays, device):
    grads_both(fn, arrays, device, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_gradcheck_polygamma(n, device):
    x = leaf(GAMMA_X, device)
    assert genesis.autograd.gradcheck(lambda t: genesis.polygamma(n, t), [x])
    assert genesis.autograd.gradgradcheck(lambda t: genesis.polygamma(n, t), [x])


def test_polygamma_values_against_torch(device):
    x = np.concatenate([rand((200,), 3) * 20, [0.5, 1.0, 2.5, -2.5, 30.0, 1e-3, -0.7]])
    for n in range(6):
        got = genesis.polygamma(n, genesis.tensor(x, device=device)).cpu().numpy()
        want = torch.polygamma(n, torch.tensor(x)).numpy()
        # PyTorch's own trigamma series is good to ~1e-8 relative near x = 6.
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-12, err_msg=f"n={n}")
    x32 = genesis.tensor(x[:50], dtype=genesis.float32, device=device)
    got = genesis.polygamma(1, x32)
    assert got.dtype is genesis.float32
    want = torch.polygamma(1, torch.tensor(x[:50], dtype=torch.float32)).numpy()
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-4)
    ints = genesis.polygamma(1, genesis.tensor([1, 2, 3], device=device))
    assert ints.dtype is genesis.float32
    assert genesis.polygamma(1, genesis.tensor(0.0, device=device)).item() == float("inf")


def test_polygamma_refuses_negative_n(device):
    x = genesis.ones(3, device=device)
    with pytest.raises(ValueError, match=r"^\[polygamma\]"):
        genesis.polygamma(-1, x)
    with pytest.raises(ValueError, match=r"^\[polygamma_\]"):
        x.polygamma_(-2)


def test_activation_nodes_and_nan(device):
    x = leaf(np.array([np.nan, -2.0, 0.5]), device)
    F = genesis.nn.functional
    y = F.hardtanh(x)
    assert y.grad_fn.name() == "HardtanhBackward0"
    y.sum().backward()
    t = tleaf(np.array([np.nan, -2.0, 0.5]))
    torch.nn.functional.hardtanh(t).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), t.grad.numpy())  # NaN passes g
    assert F.leaky_relu(x).grad_fn.name() == "LeakyReluBackward0"
    assert F.leaky_relu_(x * 1).grad_fn.name() == "LeakyReluBackward1"
    assert F.hardtanh_(x * 1).grad_fn.name() == "HardtanhBackward1"


def test_inplace_leaky_relu_with_negative_slope_refuses_backward(device):
    """PyTorch refuses the in-place form's backward for a negative slope (the result's sign no
    longer tells where the input was positive); the forward still runs."""
    for lib, x in ((genesis, leaf(X34, device)), (torch, tleaf(X34))):
        y = lib.nn.functional.leaky_relu_(x * 1, -0.5)
        with pytest.raises(RuntimeError, match="negative slope"):
            y.sum().backward()


def test_inplace_activations_on_a_leaf_are_refused(device):
    x = leaf(X34, device)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        genesis.nn.functional.leaky_relu_(x)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        genesis.nn.functional.hardtanh(x, inplace=True)
    with genesis.no_grad():
        genesis.nn.functional.hardtanh_(x)
    assert float(x.detach().abs().max()) <= 1.0


def test_integer_activations_stay_outside_the_graph(device):
    x = genesis.tensor([-3, 0, 4], device=device)
    assert not genesis.nn.functional.hardtanh(x).requires_grad


# ----------------------------------------------------------------------------------------------
# quantile, nanquantile
# ----------------------------------------------------------------------------------------------

WITH_NAN = X34.copy()
WITH_NAN[1, 2] = np.nan
ALL_NAN_ROW = X34.copy()
ALL_NAN_ROW[0, :] = np.nan
MODES = ["linear", "lower", "higher", "midpoint", "nearest"]

QUANTILE = [
    ("all_scalar", X34, 0.3, {}),
    ("all_tensor_q", X34, [0.0, 0.25, 0.5, 1.0], {}),
    ("all_keepdim", X234, 0.7, {"keepdim": True}),
    ("dim1", X34, 0.4, {"dim": 1}),
    ("dim_neg_keepdim", X234, [0.1, 0.9], {"dim": -2, "keepdim": True}),
    ("dim0_tensor_q", X234, [0.2, 0.5, 0.8], {"dim": 0}),
    ("transposed", X34.T.copy(), 0.6, {"dim": 0}),
    ("0d", np.asarray(1.5), 0.5, {}),
    ("0d_dim", np.asarray(1.5), [0.5, 1.0], {"dim": 0, "keepdim": True}),
    ("nan", WITH_NAN, [0.3, 0.6], {"dim": 1}),
    ("nan_all", WITH_NAN, 0.5, {}),
    ("nan_row", ALL_NAN_ROW, [0.3, 0.6], {"dim": 1}),
]


@pytest.mark.parametrize("ignore_nan", [False, True], ids=["quantile", "nanquantile"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name, data, q, kw", QUANTILE, ids=[c[0] for c in QUANTILE])
def test_quantile(name, data, q, kw, mode, ignore_nan, device):
    op = "nanquantile" if ignore_nan else "quantile"
    qa = np.asarray(q, dtype=np.float64)

    def fn(m, x, qt):
        return getattr(m, op)(x, qt, interpolation=mode, **kw)

    gx, gq = leaf(data, device), leaf(qa, device)
    tx, tq = tleaf(data), tleaf(qa)
    gout, tout = fn(genesis, gx, gq), fn(torch, tx, tq)
    assert tuple(gout.shape) == tuple(tout.shape)
    np.testing.assert_allclose(gout.detach().cpu().numpy(), tout.detach().numpy(), rtol=1e-12)
    # The values do not depend on whether a graph is recorded.
    with genesis.no_grad():
        plain = fn(genesis, gx, gq)
    np.testing.assert_array_equal(plain.cpu().numpy(), gout.detach().cpu().numpy())
    v = rand(tuple(tout.shape), 11)
    tout.backward(torch.tensor(v))
    gout.backward(genesis.tensor(v, device=device))
    for g, t in ((gx, tx), (gq, tq)):
        want = t.grad.numpy() if t.grad is not None else np.zeros(t.shape)
        got = g.grad.cpu().numpy() if g.grad is not None else np.zeros(t.shape)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_gradcheck_quantile(mode, device):
    x, q = leaf(X234, device), leaf(np.array([0.15, 0.45, 0.85]), device)
    assert genesis.autograd.gradcheck(
        lambda a, b: genesis.quantile(a, b, dim=1, interpolation=mode), [x, q]
    )


def test_quantile_double_backward(device):
    grads_both(
        lambda m, x: (
            m.quantile(x, m.tensor([0.3, 0.7], dtype=m.float64, device=x.device), dim=-1) ** 2
        ),
        [X34],
        device,
    )


def test_quantile_errors_under_grad(device):
    x = leaf(X34, device)
    with pytest.raises(RuntimeError, match=r"^\[quantile\] q must be in the range"):
        genesis.quantile(x, 1.5)
    with pytest.raises(IndexError, match=r"^\[nanquantile\]"):
        genesis.nanquantile(leaf(rand((0, 2), 1), device), 0.5, dim=0)
    with pytest.raises(ValueError, match=r"^\[quantile\] interpolation"):
        genesis.quantile(x, 0.5, interpolation="cubic")


# ----------------------------------------------------------------------------------------------
# Random draws and counting: what PyTorch 2.13 does at backward
# ----------------------------------------------------------------------------------------------

P = rand((3, 4), 8, "pos") / 2.5  # in (0.2, 0.8): probabilities, rates, stds

DRAWS = [
    ("normal_both", lambda m, a, b: m.normal(a, b), "NormalBackward3"),
    ("normal_mean", lambda m, a, b: m.normal(a, 1.5), "NormalBackward1"),
    ("normal_std", lambda m, a, b: m.normal(0.5, b), "NormalBackward2"),
    ("bernoulli", lambda m, a, b: m.bernoulli(b), "BernoulliBackward0"),
    ("bernoulli_method", lambda m, a, b: b.bernoulli(), "BernoulliBackward0"),
    ("poisson", lambda m, a, b: m.poisson(b * 4), "PoissonBackward0"),
]


@pytest.mark.parametrize("fn, node", [pytest.param(f, n, id=i) for i, f, n in DRAWS])
def test_random_draws_have_zero_gradients(fn, node, device):
    """PyTorch records these draws with zero gradients for every tensor parameter (normal is not
    reparameterized); genesis matches the node and the zeros."""
    ga, gb = leaf(X34, device), leaf(P, device)
    ta, tb = tleaf(X34), tleaf(P)
    gout, tout = fn(genesis, ga, gb), fn(torch, ta, tb)
    assert tout.grad_fn.name() == node and gout.grad_fn.name() == node
    gout.sum().backward()
    tout.sum().backward()
    for g, t in ((ga, ta), (gb, tb)):
        assert (g.grad is None) == (t.grad is None)
        if t.grad is not None:
            assert not t.grad.any() and not g.grad.cpu().numpy().any()
            assert tuple(g.grad.shape) == tuple(t.grad.shape)


def test_histc_result_requires_no_grad(device):
    x = leaf(X34, device)
    for lib, t in ((genesis, x), (torch, tleaf(X34))):
        h = lib.histc(t, bins=4, min=-2.0, max=2.0)
        assert not h.requires_grad and h.grad_fn is None


NO_DERIVATIVE = [
    ("histogram", lambda m, x: m.histogram(x, bins=4)[0], RuntimeError),
    ("histogram_edges", lambda m, x: m.histogram(x, bins=4)[1], RuntimeError),
    ("heaviside", lambda m, x: m.heaviside(x, m.zeros_like(x)), RuntimeError),
    ("unique", lambda m, x: m.unique(x), NotImplementedError),
    ("unique_inverse", lambda m, x: m.unique(x, return_inverse=True)[0], NotImplementedError),
    ("unique_dim", lambda m, x: m.unique(x, dim=0), NotImplementedError),
    ("unique_consecutive", lambda m, x: m.unique_consecutive(x), NotImplementedError),
]


@pytest.mark.parametrize("fn, error", [pytest.param(f, e, id=i) for i, f, e in NO_DERIVATIVE])
def test_no_derivative_raises_as_torch(fn, error, device):
    """The result requires grad and backward raises PyTorch's kind of error: RuntimeError
    (histogram, heaviside), NotImplementedError (unique, declared not implemented)."""
    for lib, x in ((genesis, leaf(X34, device)), (torch, tleaf(X34))):
        y = fn(lib, x)
        assert y.requires_grad and y.grad_fn is not None
        with pytest.raises(error, match="not implemented") as info:
            y.sum().backward()
        if error is RuntimeError:
            assert not isinstance(info.value, NotImplementedError), lib.__name__
