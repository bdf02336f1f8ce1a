"""Autograd against PyTorch: the gradients of the first slice of differentiable ops, the graph's
API, grad modes and the errors.

Most tests run one function on genesis and on torch (CPU, float64 unless the test is about
dtypes) from the same random data: fn(lib, *leaves) with lib the module (genesis or torch),
so one lambda serves both. The same random upstream gradient is backpropagated, and the outputs
and the leaves' .grad are compared (shape, dtype, values to rtol 1e-6):

- elementwise ops: tensor and Python-number operands on either side, broadcasting, mixed
  float32/float64, the torch-style functions, unary math, the rounding ops (zero gradients) and
  the activations of genesis.nn.functional;
- sum and mean, matmul/mm/bmm/@, the view ops, indexing (basic, integer tensors with
  duplicates, bool masks, negative steps against torch.flip), copies and casts, in-place ops on
  non-leaves;
- 0-d, zero-size and non-contiguous inputs, and a chain of ops.

Then: double backward (create_graph), autograd.grad and autograd.backward (allow_unused,
inputs=), accumulation, hooks, retain_grad, grad_fn, grad modes, integer results, detach and
_version, the RuntimeErrors PyTorch raises (matched on its wording), memory returned after
backward (CUDA), a linear regression trained by hand, and backward in several threads.
"""

import threading

import numpy as np
import pytest
from conftest import requires_cuda, to_numpy

import genesis

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-6, 1e-9  # float64 results
RTOL32, ATOL32 = 1e-5, 1e-6  # results that went through float32

# Input domains (low, high) where an op and its derivative are finite and well conditioned.
DOMAINS = {
    "pos": (0.5, 2.0),  # log, sqrt, pow's base
    "unit": (-0.9, 0.9),  # asin, acos, atanh
    "gt1": (1.1, 3.0),  # acosh
    "wide": (-6.0, 6.0),  # fmod/remainder dividends (several periods)
}


# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------


def rand(shape, seed=0, domain="normal"):
    """Random float64 NumPy data (an ndarray also when 0-d), never all zeros.

    domain: "normal" (standard normal), "nonzero" (|x| in [0.5, 2], either sign) or a key of
    DOMAINS (uniform in that range).
    """
    rng = np.random.default_rng(seed)
    if domain == "normal":
        return np.asarray(rng.standard_normal(shape))
    if domain == "nonzero":
        sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        return np.asarray(sign * rng.uniform(0.5, 2.0, shape))
    low, high = DOMAINS[domain]
    return np.asarray(rng.uniform(low, high, shape))


def leaf(a, device="cpu"):
    """A genesis leaf that requires grad, holding NumPy array a (its dtype kept)."""
    return genesis.tensor(a, device=device, requires_grad=True)


def tleaf(a):
    """The torch leaf of the same data."""
    return torch.tensor(a, requires_grad=True)


def np_of(t):
    """A NumPy copy of a genesis or torch tensor (detached, on the CPU)."""
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach())
    return t.detach().cpu().numpy(force=True)  # force: torch's ZeroTensor gradients


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


def assert_close(got, want, rtol=RTOL, atol=ATOL):
    """genesis tensor got has torch tensor want's shape, dtype and values."""
    assert isinstance(got, genesis.Tensor), type(got)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert dtype_name(got) == dtype_name(want), (got.dtype, want.dtype)
    np.testing.assert_allclose(np_of(got), np_of(want), rtol=rtol, atol=atol)


def assert_grad(g, t, rtol=RTOL, atol=ATOL):
    """genesis leaf g has torch leaf t's .grad (None where torch has None), on g's device."""
    if t.grad is None:
        assert g.grad is None
        return
    assert g.grad is not None, "genesis gave no gradient where torch gave one"
    assert str(g.grad.device) == str(g.device)
    assert_close(g.grad, t.grad, rtol, atol)


def check_grads(fn, arrays, device, rtol=RTOL, atol=ATOL, seed=100):
    """Runs fn(lib, *leaves) on genesis and torch leaves made of arrays, backpropagates the same
    random gradient through both, and compares the outputs and the leaves' .grad.

    Values are read only after backward (test_reading_values_keeps_the_graph reads them before).
    Returns the genesis leaves.
    """
    gx = [leaf(a, device) for a in arrays]
    tx = [tleaf(a) for a in arrays]
    gout = fn(genesis, *gx)
    tout = fn(torch, *tx)
    assert gout.requires_grad, "the genesis result does not require grad: no graph recorded"
    assert not gout.is_leaf and gout.grad_fn is not None
    v = rand(tuple(tout.shape), seed).astype(np_of(tout).dtype)
    tout.backward(torch.tensor(v))
    gout.backward(genesis.tensor(v, device=device))
    assert_close(gout, tout, rtol, atol)
    for g, t in zip(gx, tx):
        assert_grad(g, t, rtol, atol)
    return gx


def grads_both(fn, arrays, device, **kw):
    """Compares the first and second derivatives of fn(lib, *leaves) with torch's: the first
    through autograd.grad(create_graph=True) with a random upstream gradient, the second as the
    gradient of sum_i(sum(grad_i * w_i)) with random w_i."""
    gx = [leaf(a, device) for a in arrays]
    tx = [tleaf(a) for a in arrays]
    gout, tout = fn(genesis, *gx), fn(torch, *tx)
    v = rand(tuple(tout.shape), 200)
    g1 = genesis.autograd.grad(gout, gx, genesis.tensor(v, device=device), create_graph=True)
    t1 = torch.autograd.grad(tout, tx, torch.tensor(v), create_graph=True)
    ws = [rand(a.shape, 300 + i) for i, a in enumerate(arrays)]
    gs = sum((g * genesis.tensor(w, device=device)).sum() for g, w in zip(g1, ws))
    ts = sum((t * torch.tensor(w)).sum() for t, w in zip(t1, ws))
    g2 = genesis.autograd.grad(gs, gx)
    t2 = torch.autograd.grad(ts, tx)
    for g, t in zip(g1 + g2, t1 + t2):
        assert_close(g, t, **kw)


def idx(m, x, data):
    """An index tensor (integers or bools) of lib m on x's device."""
    return m.tensor(data, device=x.device)


def fn_ids(cases):
    return [c[0] for c in cases]


# ----------------------------------------------------------------------------------------------
# Elementwise ops
# ----------------------------------------------------------------------------------------------

# (id, fn(lib, x), domain of x)
UNARY = [
    ("neg", lambda m, x: m.neg(x), "normal"),
    ("abs", lambda m, x: m.abs(x), "normal"),
    ("relu", lambda m, x: m.relu(x), "normal"),
    ("exp", lambda m, x: m.exp(x), "normal"),
    ("log", lambda m, x: m.log(x), "pos"),
    ("sqrt", lambda m, x: m.sqrt(x), "pos"),
    ("rsqrt", lambda m, x: m.rsqrt(x), "pos"),
    ("sin", lambda m, x: m.sin(x), "normal"),
    ("cos", lambda m, x: m.cos(x), "normal"),
    ("tanh", lambda m, x: m.tanh(x), "normal"),
    ("sigmoid", lambda m, x: m.sigmoid(x), "normal"),
    ("reciprocal", lambda m, x: m.reciprocal(x), "nonzero"),
    ("log1p", lambda m, x: m.log1p(x), "pos"),
    ("expm1", lambda m, x: m.expm1(x), "normal"),
    ("log2", lambda m, x: m.log2(x), "pos"),
    ("log10", lambda m, x: m.log10(x), "pos"),
    ("exp2", lambda m, x: m.exp2(x), "normal"),
    ("erf", lambda m, x: m.erf(x), "normal"),
    ("erfc", lambda m, x: m.erfc(x), "normal"),
    ("sinh", lambda m, x: m.sinh(x), "normal"),
    ("cosh", lambda m, x: m.cosh(x), "normal"),
    ("asin", lambda m, x: m.asin(x), "unit"),
    ("acos", lambda m, x: m.acos(x), "unit"),
    ("atan", lambda m, x: m.atan(x), "normal"),
    ("asinh", lambda m, x: m.asinh(x), "normal"),
    ("acosh", lambda m, x: m.acosh(x), "gt1"),
    ("atanh", lambda m, x: m.atanh(x), "unit"),
    ("square", lambda m, x: m.square(x), "normal"),
    ("method_exp", lambda m, x: x.exp(), "normal"),
    ("method_tanh", lambda m, x: x.tanh(), "normal"),
    ("silu", lambda m, x: m.nn.functional.silu(x), "normal"),
    ("gelu", lambda m, x: m.nn.functional.gelu(x), "normal"),
    ("gelu_tanh", lambda m, x: m.nn.functional.gelu(x, approximate="tanh"), "normal"),
    ("softplus", lambda m, x: m.nn.functional.softplus(x), "normal"),
    ("softplus_beta", lambda m, x: m.nn.functional.softplus(x * 12, beta=2.0), "normal"),
    ("elu", lambda m, x: m.nn.functional.elu(x), "normal"),
    ("elu_alpha", lambda m, x: m.nn.functional.elu(x, alpha=0.5), "normal"),
    ("mish", lambda m, x: m.nn.functional.mish(x), "normal"),
]

# The ops whose gradient is zero (PyTorch gives zeros, not None).
ZERO_GRAD = [
    ("floor", lambda m, x: m.floor(x)),
    ("ceil", lambda m, x: m.ceil(x)),
    ("round", lambda m, x: m.round(x)),
    ("trunc", lambda m, x: m.trunc(x)),
    ("sign", lambda m, x: m.sign(x)),
]

# One tensor operand and a Python number (float or int) on either side.
# (id, fn(lib, x), domain of x)
WITH_NUMBER = [
    ("x+2.5", lambda m, x: x + 2.5, "normal"),
    ("2.5+x", lambda m, x: 2.5 + x, "normal"),
    ("x-2", lambda m, x: x - 2, "normal"),
    ("2.5-x", lambda m, x: 2.5 - x, "normal"),
    ("x*-1.5", lambda m, x: x * -1.5, "normal"),
    ("3*x", lambda m, x: 3 * x, "normal"),
    ("x/4.0", lambda m, x: x / 4.0, "normal"),
    ("4.0/x", lambda m, x: 4.0 / x, "nonzero"),
    ("x**3", lambda m, x: x**3, "normal"),
    ("x**2", lambda m, x: x**2, "normal"),
    ("x**0.5", lambda m, x: x**0.5, "pos"),
    ("x**-1.5", lambda m, x: x**-1.5, "pos"),
    ("x**0", lambda m, x: x**0, "normal"),
    ("2.0**x", lambda m, x: 2.0**x, "normal"),
    ("-x", lambda m, x: -x, "normal"),
    ("add(x,2.5)", lambda m, x: m.add(x, 2.5), "normal"),
    ("mul(x,2.5)", lambda m, x: m.mul(x, 2.5), "normal"),
    ("div(x,-3)", lambda m, x: m.div(x, -3), "normal"),
    ("pow(x,3)", lambda m, x: m.pow(x, 3), "normal"),
    ("pow(2.0,x)", lambda m, x: m.pow(2.0, x), "normal"),
    ("fmod(x,1.5)", lambda m, x: m.fmod(x, 1.5), "wide"),
    ("remainder(x,1.5)", lambda m, x: m.remainder(x, 1.5), "wide"),
    ("clamp", lambda m, x: m.clamp(x, min=-0.5, max=0.5), "normal"),
    ("clamp_min", lambda m, x: x.clamp(min=0.2), "normal"),
    ("clamp_max", lambda m, x: x.clamp(max=-0.1), "normal"),
    ("where_number", lambda m, x: m.where(x > 0, x, 0.0), "normal"),
]

# Two tensor operands. (id, fn(lib, a, b), domain of a, domain of b)
BINARY = [
    ("add", lambda m, a, b: m.add(a, b), "normal", "normal"),
    ("sub", lambda m, a, b: m.sub(a, b), "normal", "normal"),
    ("mul", lambda m, a, b: m.mul(a, b), "normal", "normal"),
    ("div", lambda m, a, b: m.div(a, b), "normal", "nonzero"),
    ("pow", lambda m, a, b: m.pow(a, b), "pos", "normal"),
    ("maximum", lambda m, a, b: m.maximum(a, b), "normal", "normal"),
    ("minimum", lambda m, a, b: m.minimum(a, b), "normal", "normal"),
    ("atan2", lambda m, a, b: m.atan2(a, b), "normal", "normal"),
    ("hypot", lambda m, a, b: m.hypot(a, b), "normal", "normal"),
    ("fmod", lambda m, a, b: m.fmod(a, b), "wide", "nonzero"),
    ("remainder", lambda m, a, b: m.remainder(a, b), "wide", "nonzero"),
    ("where", lambda m, a, b: m.where(a > b, a, b), "normal", "normal"),
    ("a+b", lambda m, a, b: a + b, "normal", "normal"),
    ("a-b", lambda m, a, b: a - b, "normal", "normal"),
    ("a*b", lambda m, a, b: a * b, "normal", "normal"),
    ("a/b", lambda m, a, b: a / b, "normal", "nonzero"),
    ("a**b", lambda m, a, b: a**b, "pos", "normal"),
]

BROADCAST_SHAPES = [
    ((3, 4), (3, 4)),
    ((2, 3, 4), (4,)),
    ((3, 1), (1, 4)),
    ((2, 1, 4), (3, 1)),
    ((), (2, 3)),
    ((2, 3), ()),
]


@pytest.mark.parametrize("case", UNARY, ids=fn_ids(UNARY))
def test_unary(case, device):
    _, fn, domain = case
    check_grads(fn, [rand((3, 4), 1, domain)], device)


@pytest.mark.parametrize("case", ZERO_GRAD, ids=fn_ids(ZERO_GRAD))
def test_rounding_ops_have_zero_gradient(case, device):
    _, fn = case
    (x,) = check_grads(fn, [rand((3, 4), 2) * 3], device)
    assert not np.any(np_of(x.grad))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_relu_at_special_values(dtype, device):
    """relu is PyTorch's (0 below zero, else the input: NaN and -0.0 pass), and its one-pass
    backward (BinaryOp::ReluBackward) is PyTorch's threshold_backward: 0 where the result is
    <= 0, the gradient elsewhere, so a NaN result passes the gradient."""
    values = [float("nan"), -1.0, 0.0, -0.0, 2.0, float("inf"), -float("inf"), 1e-30, -3.5]
    upstream = [3.0, -2.0, 5.0, 7.0, 0.5, -1.0, 4.0, 6.0, 8.0]
    x = genesis.tensor(values, dtype=getattr(genesis, dtype), device=device, requires_grad=True)
    y = x.relu()
    y.backward(genesis.tensor(upstream, dtype=x.dtype, device=device))
    t = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=True)
    u = t.relu()
    u.backward(torch.tensor(upstream, dtype=t.dtype))
    got, want = y.detach().float().cpu().numpy(), u.detach().float().numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0.0 stays -0.0
    np.testing.assert_array_equal(x.grad.float().cpu().numpy(), t.grad.float().numpy())


@pytest.mark.parametrize("case", WITH_NUMBER, ids=fn_ids(WITH_NUMBER))
def test_with_python_number(case, device):
    _, fn, domain = case
    check_grads(fn, [rand((3, 4), 3, domain)], device)


@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=str)
@pytest.mark.parametrize("case", BINARY, ids=fn_ids(BINARY))
def test_binary_broadcasting(case, shapes, device):
    _, fn, da, db = case
    check_grads(fn, [rand(shapes[0], 4, da), rand(shapes[1], 5, db)], device)


# fmod, remainder and where are degenerate with equal operands.
SAME_OPERAND = [c for c in BINARY if c[0] not in ("fmod", "remainder", "where")]


@pytest.mark.parametrize("case", SAME_OPERAND, ids=fn_ids(SAME_OPERAND))
def test_binary_same_tensor_on_both_sides(case, device):
    """fn(x, x): both operands' gradients add up in x.grad (maximum/minimum: two ties)."""
    _, fn, da, _ = case
    domain = "pos" if da == "pos" else "nonzero"
    check_grads(lambda m, x: fn(m, x, x), [rand((3, 4), 6, domain)], device)


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_maximum_minimum_ties_split_the_gradient(op, device):
    a = rand((2, 5), 7)
    b = a.copy()
    b[0] += 1.0  # row 0 differs, row 1 ties
    check_grads(lambda m, x, y: getattr(m, op)(x, y), [a, b], device)


def test_clamp_with_tensor_bounds(device):
    lo = rand((3, 4), 8) * 0.3 - 0.5
    hi = rand((4,), 9) * 0.3 + 0.5
    check_grads(lambda m, x, a, b: m.clamp(x, min=a, max=b), [rand((3, 4), 10), lo, hi], device)


# (id, fn(lib, a, b), dtype of a, shape of a, dtype of b, shape of b)
MIXED = [
    ("f32+f64", lambda m, a, b: a + b, np.float32, (3, 4), np.float64, (4,)),
    ("f64*f32", lambda m, a, b: a * b, np.float64, (3, 1), np.float32, (3, 4)),
    ("f32/f64", lambda m, a, b: a / b, np.float32, (3, 4), np.float64, (3, 4)),
    ("atan2", lambda m, a, b: m.atan2(a, b), np.float32, (3, 4), np.float64, (3, 4)),
    ("f32*f64_0d", lambda m, a, b: a * b, np.float32, (3, 4), np.float64, ()),
    ("f32*2.5", lambda m, a, b: a * 2.5 + b, np.float32, (3, 4), np.float32, (4,)),
]


@pytest.mark.parametrize("case", MIXED, ids=fn_ids(MIXED))
def test_mixed_float32_float64(case, device):
    """The result takes PyTorch's promoted dtype; each leaf's grad keeps the leaf's dtype."""
    _, fn, ta, sa, tb, sb = case
    a = rand(sa, 11, "nonzero").astype(ta)
    b = rand(sb, 12, "nonzero").astype(tb)
    ga, gb = check_grads(fn, [a, b], device, rtol=RTOL32, atol=ATOL32)
    assert ga.grad.dtype == ga.dtype and gb.grad.dtype == gb.dtype


# ----------------------------------------------------------------------------------------------
# Reductions and matrix products
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, 0, -1, (0, 2), (-1, 0), (1,)], ids=str)
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_sum_mean(op, dim, keepdim, device):
    def fn(m, x):
        if dim is None and not keepdim:
            return getattr(x, op)()
        return getattr(x, op)(dim=dim, keepdim=keepdim)

    check_grads(fn, [rand((2, 3, 4), 13)], device)


@pytest.mark.parametrize(
    "shapes",
    [
        ((3,), (3,)),
        ((3,), (3, 4)),
        ((2, 3), (3,)),
        ((2, 3), (3, 4)),
        ((5, 2, 3), (3, 4)),
        ((3,), (5, 3, 4)),
        ((5, 2, 3), (3,)),
        ((5, 2, 3), (5, 3, 4)),
        ((2, 1, 2, 3), (3, 3, 4)),
    ],
    ids=str,
)
def test_matmul(shapes, device):
    check_grads(lambda m, a, b: m.matmul(a, b), [rand(shapes[0], 14), rand(shapes[1], 15)], device)


def test_matmul_operator(device):
    check_grads(lambda m, a, b: a @ b, [rand((4, 2, 3), 16), rand((3, 5), 17)], device)


def test_mm(device):
    check_grads(lambda m, a, b: m.mm(a, b), [rand((2, 3), 18), rand((3, 4), 19)], device)


def test_bmm(device):
    check_grads(lambda m, a, b: m.bmm(a, b), [rand((5, 2, 3), 20), rand((5, 3, 4), 21)], device)


def test_matmul_one_operand_requires_grad(device):
    """Only the operand that requires grad gets one (the other is a plain tensor)."""
    b = rand((3, 4), 23)
    check_grads(lambda m, a: a @ m.tensor(b, device=a.device), [rand((2, 3), 22)], device)


# ----------------------------------------------------------------------------------------------
# Views, indexing, copies
# ----------------------------------------------------------------------------------------------

# (id, input shape, fn(lib, x))
VIEWS = [
    ("view", (2, 3, 4), lambda m, x: x.view(6, 4)),
    ("view_infer", (2, 3, 4), lambda m, x: x.view(-1, 3)),
    ("reshape", (2, 3, 4), lambda m, x: x.reshape(4, 6)),
    ("reshape_of_transposed", (2, 3, 4), lambda m, x: x.transpose(0, 2).reshape(-1)),
    ("flatten", (2, 3, 4), lambda m, x: x.flatten()),
    ("flatten_from_1", (2, 3, 4), lambda m, x: x.flatten(1)),
    ("squeeze", (2, 1, 3, 1), lambda m, x: x.squeeze()),
    ("squeeze_dim", (2, 1, 3, 1), lambda m, x: x.squeeze(1)),
    ("unsqueeze", (2, 3), lambda m, x: x.unsqueeze(1)),
    ("unsqueeze_neg", (2, 3), lambda m, x: x.unsqueeze(-1)),
    ("transpose", (2, 3, 4), lambda m, x: x.transpose(0, 2)),
    ("permute", (2, 3, 4), lambda m, x: x.permute(2, 0, 1)),
    ("t", (3, 4), lambda m, x: x.t()),
    ("T", (3, 4), lambda m, x: x.T),
    ("expand", (3, 1), lambda m, x: x.expand(2, 3, 4)),
    ("expand_keep", (1, 4), lambda m, x: x.expand(3, -1)),
    ("narrow", (2, 3, 4), lambda m, x: x.narrow(2, 1, 2)),
    ("select", (2, 3, 4), lambda m, x: x.select(1, -1)),
    ("diagonal", (3, 4), lambda m, x: x.diagonal()),
    ("diagonal_offset", (2, 3, 4), lambda m, x: x.diagonal(offset=1, dim1=1, dim2=2)),
    ("diagonal_below", (4, 3), lambda m, x: x.diagonal(-1)),
    ("movedim", (2, 3, 4), lambda m, x: x.movedim(0, -1)),
    ("movedim_tuple", (2, 3, 4), lambda m, x: x.movedim((0, 1), (2, 0))),
    (
        "chain_of_views",
        (2, 3, 4),
        lambda m, x: x.permute(1, 0, 2)[1:].reshape(2, 8).t().unsqueeze(0).expand(2, 8, 2),
    ),
]


@pytest.mark.parametrize("case", VIEWS, ids=fn_ids(VIEWS))
def test_views(case, device):
    _, shape, fn = case
    check_grads(fn, [rand(shape, 24)], device)


# (id, fn(lib, x) on a (3, 4, 5) input[, torch's equivalent when torch lacks the syntax])
INDEXING = [
    ("int", lambda m, x: x[1]),
    ("negative_ints", lambda m, x: x[-1, 2]),
    ("all_ints_0d", lambda m, x: x[2, 1, -1]),
    ("slices", lambda m, x: x[1:, ::2, 1:4]),
    ("ellipsis_none", lambda m, x: x[..., None, 1]),
    ("negative_step", lambda m, x: x[::-1], lambda m, x: x.flip(0)),
    ("negative_step_2", lambda m, x: x[:, ::-2], lambda m, x: x.flip(1)[:, ::2]),
    ("list_duplicates", lambda m, x: x[[0, 2, 0]]),
    ("tensor_duplicates", lambda m, x: x[idx(m, x, [2, 0, 2, 2])]),
    ("tensor_negative", lambda m, x: x[idx(m, x, [-1, 0, -1])]),
    ("tensor_2d", lambda m, x: x[idx(m, x, [[0, 1], [1, 0]])]),
    ("two_tensors", lambda m, x: x[idx(m, x, [0, 1, 1]), idx(m, x, [3, 0, 3])]),
    ("slice_and_tensor", lambda m, x: x[1:, idx(m, x, [0, 0, 2])]),
    ("separated_tensors", lambda m, x: x[idx(m, x, [0, 2]), :, idx(m, x, [1, 1])]),
    ("bool_mask", lambda m, x: x[x > 0]),
    ("bool_rows", lambda m, x: x[idx(m, x, [True, False, True])]),
    ("bool_mask_2d", lambda m, x: x[x.sum(2) > 0]),
]


@pytest.mark.parametrize("case", INDEXING, ids=fn_ids(INDEXING))
def test_indexing(case, device):
    gfn = case[1]
    tfn = case[2] if len(case) > 2 else gfn
    check_grads(lambda m, x: (gfn if m is genesis else tfn)(m, x), [rand((3, 4, 5), 25)], device)


# (id, fn(lib, x), dtype of x)
COPIES = [
    ("clone", lambda m, x: x.clone(), np.float64),
    ("contiguous", lambda m, x: x.t().contiguous(), np.float64),
    ("to_float32", lambda m, x: x.to(m.float32), np.float64),
    ("float", lambda m, x: x.float(), np.float64),
    ("double", lambda m, x: x.double() * 2, np.float32),
    ("to_same_dtype", lambda m, x: x.to(m.float64) * 2, np.float64),
]


@pytest.mark.parametrize("case", COPIES, ids=fn_ids(COPIES))
def test_copies_and_casts(case, device):
    _, fn, dt = case
    (x,) = check_grads(fn, [rand((3, 4), 26).astype(dt)], device, rtol=RTOL32, atol=ATOL32)
    assert x.grad.dtype == x.dtype


def test_clone_does_not_share_memory(device):
    x = leaf(rand((3,), 27), device)
    y = x.clone()
    assert y.data_ptr() != x.data_ptr()
    assert y.grad_fn is not None and not y.is_leaf


def _iadd(m, x, w):
    y = x * 1.5
    y += w
    y *= w
    y -= 0.5
    return y


# (id, fn(lib, x, w)): in-place ops on the non-leaf y = x * 1.5
INPLACE = [
    ("add_", lambda m, x, w: (x * 1.5).add_(w)),
    ("add_number", lambda m, x, w: (x * 1.5).add_(2.0) * w),
    ("mul_", lambda m, x, w: (x * 1.5).mul_(w)),
    ("mul_number", lambda m, x, w: (x * 1.5).mul_(-3.0) + w),
    ("exp_", lambda m, x, w: (x * 1.5).exp_() * w),
    ("relu_", lambda m, x, w: (x * 1.5).relu_() * w),
    ("chain", lambda m, x, w: (x * 1.5).mul_(w).add_(w).mul_(2.0).exp_()),
    ("augmented_assignment", _iadd),
]


@pytest.mark.parametrize("case", INPLACE, ids=fn_ids(INPLACE))
def test_inplace_on_non_leaf(case, device):
    _, fn = case
    check_grads(fn, [rand((3, 4), 28), rand((3, 4), 29)], device)


def _setitem_row(m, y):
    y[0] = 5.0


# In-place ops of no formula in this slice: (id, op(lib, y)) on the non-leaf y = x * 2
INPLACE_WITHOUT_FORMULA = [
    ("setitem", _setitem_row),
    ("zero_", lambda m, y: y.zero_()),
    ("fill_", lambda m, y: y.fill_(1.5)),
    ("copy_", lambda m, y: y.copy_(m.full((3, 4), 2.0, dtype=m.float64, device=y.device))),
]


@pytest.mark.parametrize("case", INPLACE_WITHOUT_FORMULA, ids=fn_ids(INPLACE_WITHOUT_FORMULA))
def test_inplace_without_formula_is_refused_or_exact(case, device):
    """Writing into a non-leaf gives PyTorch's gradient, or a RuntimeError while the op has no
    formula; never the gradient of the values the tensor held before."""
    _, op = case
    a, w = rand((3, 4), 113), rand((3, 4), 114)
    x, tx = leaf(a, device), tleaf(a)
    y, ty = x * 2, tx * 2
    op(torch, ty)
    (ty * torch.tensor(w)).sum().backward()
    try:
        op(genesis, y)
    except RuntimeError:
        return  # refused: allowed until the op has a formula
    (y * genesis.tensor(w, device=device)).sum().backward()
    assert_grad(x, tx)


def test_inplace_result_is_the_same_tensor(device):
    x = leaf(rand((3,), 30), device)
    y = x * 2
    ptr, version = y.data_ptr(), y._version
    assert y.add_(1.0) is y
    assert y.data_ptr() == ptr and y._version > version
    assert y.grad_fn is not None and y.requires_grad


# ----------------------------------------------------------------------------------------------
# Shapes and layouts: 0-d, zero-size, non-contiguous, a chain
# ----------------------------------------------------------------------------------------------

ZERO_D = [
    ("x*x", lambda m, x, y: x * x),
    ("sin(x)*y", lambda m, x, y: m.sin(x) * y),
    ("x/y", lambda m, x, y: x / y),
    ("sum", lambda m, x, y: (x * y).sum()),
    ("mean", lambda m, x, y: x.mean()),
    ("reshape", lambda m, x, y: x.reshape(1, 1) * y),
    ("unsqueeze", lambda m, x, y: x.unsqueeze(0)),
    ("expand", lambda m, x, y: x.expand(3) * y),
]


@pytest.mark.parametrize("case", ZERO_D, ids=fn_ids(ZERO_D))
def test_zero_dim(case, device):
    x, _ = check_grads(case[1], [rand((), 31), rand((), 32, "nonzero")], device)
    assert x.grad.shape == ()


# (id, fn(lib, x, w)) with x of shape (0, 3) and w of shape (3, 2)
ZERO_SIZE = [
    ("mul", lambda m, x, w: x * 2),
    ("exp", lambda m, x, w: x.exp()),
    ("sum", lambda m, x, w: x.sum()),
    ("sum_0", lambda m, x, w: x.sum(0)),
    ("sum_1", lambda m, x, w: x.sum(1)),
    ("mean_1", lambda m, x, w: x.mean(1)),
    ("matmul", lambda m, x, w: x @ w),
    ("matmul_empty_inner", lambda m, x, w: x.t() @ x),
    ("broadcast", lambda m, x, w: x + w.sum(1)),
]


@pytest.mark.parametrize("case", ZERO_SIZE, ids=fn_ids(ZERO_SIZE))
def test_zero_size(case, device):
    x, _ = check_grads(case[1], [np.zeros((0, 3)), rand((3, 2), 33)], device)
    assert x.grad is not None and x.grad.shape == (0, 3)


def test_noncontiguous_leaf(device):
    """A leaf that is a transposed view: its grad has its shape (and the same values)."""
    a, b = rand((4, 3), 34), rand((4, 5), 35)
    x = genesis.tensor(a, device=device).t().requires_grad_()
    tx = torch.tensor(a).t().requires_grad_()
    assert x.is_leaf and not x.is_contiguous()
    out = ((x.exp() * 2) @ genesis.tensor(b, device=device)).sin().sum()
    tout = ((tx.exp() * 2) @ torch.tensor(b)).sin().sum()
    out.backward()
    tout.backward()
    assert_grad(x, tx)


def test_noncontiguous_intermediates(device):
    """Transposed and strided non-leaves as operands of elementwise ops and matmul."""

    def fn(m, x, w):
        xt = x.t()
        return m.matmul(xt.exp() + xt[:, ::2].sum(1, keepdim=True), w.t()) * x[::2].sum()

    check_grads(fn, [rand((4, 3), 36), rand((5, 4), 37)], device)


def test_chain_of_ops(device):
    """A small two-layer network with a mean loss, through many op families at once."""

    def fn(m, x, w1, b1, w2):
        h = (x @ w1 + b1).tanh()
        h = m.where(h > 0, h, h * 0.1)
        z = (h @ w2).sigmoid() * 2 - x[:, :2].abs() ** 1.5
        return (z - z.mean(0, keepdim=True)).pow(2).sum(-1).mean()

    arrays = [rand((6, 3), 38), rand((3, 5), 39), rand((5,), 40), rand((5, 2), 41)]
    check_grads(fn, arrays, device)


def test_backward_default_gradient_of_a_scalar(device):
    a = rand((3, 4), 42)
    x, tx = leaf(a, device), tleaf(a)
    (x.exp() * x).sum().backward()
    (tx.exp() * tx).sum().backward()
    assert_grad(x, tx)


def test_one_element_non_scalar_takes_implicit_gradient(device):
    a = rand((1, 1), 43)
    x, tx = leaf(a, device), tleaf(a)
    (x * 3).backward()
    (tx * 3).backward()
    assert_grad(x, tx)


@pytest.mark.parametrize(
    "read",
    [
        lambda t: t.detach().numpy(),
        lambda t: np.asarray(t.detach()),
        lambda t: np.from_dlpack(t.detach()),
        lambda t: t.tolist(),
        lambda t: str(t),
    ],
    ids=["numpy", "asarray", "from_dlpack", "tolist", "str"],
)
def test_reading_values_keeps_the_graph(read):
    """Looking at a saved tensor's values (here relu's and exp's outputs) is not a write: the
    backward that follows works, as in PyTorch."""
    a = rand((3, 4), 112)
    x = leaf(a)
    y = x.relu()
    z = y.exp()
    read(y)
    read(z)
    z.sum().backward()
    np.testing.assert_allclose(np_of(x.grad), np.exp(np.maximum(a, 0)) * (a > 0), rtol=RTOL)


# ----------------------------------------------------------------------------------------------
# Double backward
# ----------------------------------------------------------------------------------------------


def test_second_derivative_of_cube(device):
    a = rand((5,), 44)
    x = leaf(a, device)
    (g,) = genesis.autograd.grad((x**3).sum(), x, create_graph=True)
    assert g.requires_grad
    (gg,) = genesis.autograd.grad(g.sum(), x, create_graph=True)
    (ggg,) = genesis.autograd.grad(gg.sum(), x)
    np.testing.assert_allclose(np_of(g), 3 * a**2, rtol=RTOL)
    np.testing.assert_allclose(np_of(gg), 6 * a, rtol=RTOL)
    np.testing.assert_allclose(np_of(ggg), np.full(5, 6.0), rtol=RTOL)


def test_second_derivative_of_sin_times_x(device):
    grads_both(lambda m, x: (m.sin(x) * x).sum(), [rand((6,), 45)], device)


def test_second_derivative_of_matmul_loss(device):
    """A gradient penalty: the gradient of |d loss / d x|^2 w.r.t. both x and w."""

    def fn(m, x, w):
        return (x @ w).tanh().sum()

    grads_both(fn, [rand((4, 3), 46), rand((3, 2), 47)], device)


SMOOTH = [c for c in UNARY if c[0] not in ("neg",)]


@pytest.mark.parametrize("case", SMOOTH, ids=fn_ids(SMOOTH))
def test_second_derivative_unary(case, device):
    _, fn, domain = case
    grads_both(fn, [rand((3, 4), 48, domain)], device)


SMOOTH_BINARY = [c for c in BINARY if c[0] in ("mul", "div", "pow", "atan2", "hypot", "a**b")]


@pytest.mark.parametrize("case", SMOOTH_BINARY, ids=fn_ids(SMOOTH_BINARY))
def test_second_derivative_binary(case, device):
    _, fn, da, db = case
    grads_both(fn, [rand((3, 4), 49, da), rand((4,), 50, db)], device)


def test_second_derivative_through_views_and_indexing(device):
    def fn(m, x):
        y = x.t()[1:].reshape(-1)
        return (y[idx(m, x, [0, 3, 3])] ** 3).sum() + (x.diagonal() ** 2).sum() * x.sum()

    grads_both(fn, [rand((3, 3), 51)], device)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_with_create_graph(device):
    """backward(create_graph=True) leaves a .grad with history, differentiable again."""
    a = rand((4,), 52)
    x, tx = leaf(a, device), tleaf(a)
    (x**3 * x.sin()).sum().backward(create_graph=True)
    (tx**3 * tx.sin()).sum().backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    g, tg = x.grad, tx.grad
    x.grad, tx.grad = None, None
    (g * g).sum().backward()
    (tg * tg).sum().backward()
    assert_grad(x, tx)


# ----------------------------------------------------------------------------------------------
# autograd.grad, autograd.backward, inputs=
# ----------------------------------------------------------------------------------------------


def test_grad_returns_tuple_and_leaves_dot_grad_alone(device):
    a = rand((3,), 53)
    x = leaf(a, device)
    out = genesis.autograd.grad((x * x).sum(), x)
    assert isinstance(out, tuple) and len(out) == 1
    np.testing.assert_allclose(np_of(out[0]), 2 * a, rtol=RTOL)
    assert not out[0].requires_grad
    assert x.grad is None


def test_grad_allow_unused(device):
    x, y = leaf(rand((3,), 54), device), leaf(rand((3,), 55), device)
    gx, gy = genesis.autograd.grad((x * 2).sum(), [x, y], allow_unused=True)
    np.testing.assert_allclose(np_of(gx), np.full(3, 2.0))
    assert gy is None


def test_grad_unused_input_is_an_error(device):
    x, y = leaf(rand((3,), 54), device), leaf(rand((3,), 55), device)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        genesis.autograd.grad((x * 2).sum(), [x, y])


def test_grad_several_outputs_and_grad_outputs(device):
    a, b = rand((3, 4), 56), rand((4,), 57)
    v1, v2 = rand((3, 4), 58), rand((4,), 59)
    x, w = leaf(a, device), leaf(b, device)
    tx, tw = tleaf(a), tleaf(b)
    got = genesis.autograd.grad(
        [x * w, (x.exp() * w).sum(0)],
        [x, w],
        grad_outputs=[genesis.tensor(v1, device=device), genesis.tensor(v2, device=device)],
    )
    want = torch.autograd.grad(
        [tx * tw, (tx.exp() * tw).sum(0)],
        [tx, tw],
        grad_outputs=[torch.tensor(v1), torch.tensor(v2)],
    )
    for g, t in zip(got, want):
        assert_close(g, t)


def test_grad_with_respect_to_a_non_leaf(device):
    a = rand((3, 4), 60)
    x, tx = leaf(a, device), tleaf(a)
    h, th = x.sin() * 2, tx.sin() * 2
    (gh,) = genesis.autograd.grad((h**2).sum(), h)
    (th_grad,) = torch.autograd.grad((th**2).sum(), th)
    assert_close(gh, th_grad)
    assert x.grad is None


def test_grad_retain_graph_allows_a_second_call(device):
    x = leaf(rand((3,), 61), device)
    y = x.exp().sum()
    (g1,) = genesis.autograd.grad(y, x, retain_graph=True)
    (g2,) = genesis.autograd.grad(y, x)
    np.testing.assert_array_equal(np_of(g1), np_of(g2))


def test_backward_inputs_restricts_accumulation(device):
    a, b = rand((3, 4), 62), rand((4, 2), 63)
    x, w = leaf(a, device), leaf(b, device)
    tx, tw = tleaf(a), tleaf(b)
    (x @ w).tanh().sum().backward(inputs=[x])
    (tx @ tw).tanh().sum().backward(inputs=[tx])
    assert_grad(x, tx)
    assert w.grad is None
    genesis.autograd.backward((x @ w).tanh().sum(), inputs=[w])
    torch.autograd.backward((tx @ tw).tanh().sum(), inputs=[tw])
    assert_grad(w, tw)
    assert_grad(x, tx)  # unchanged by the second pass


def test_backward_inputs_non_leaf_gets_grad(device):
    a = rand((3,), 64)
    x, tx = leaf(a, device), tleaf(a)
    h, th = x * 3, tx * 3
    (h.exp()).sum().backward(inputs=[h])
    (th.exp()).sum().backward(inputs=[th])
    assert_close(h.grad, th.grad)
    assert x.grad is None


def test_autograd_backward_several_tensors(device):
    a = rand((2, 3), 65)
    v1, v2 = rand((2, 3), 66), rand((3,), 67)
    x, tx = leaf(a, device), tleaf(a)
    genesis.autograd.backward(
        [x.sin(), (x * x).sum(0)],
        grad_tensors=[genesis.tensor(v1, device=device), genesis.tensor(v2, device=device)],
    )
    torch.autograd.backward(
        [tx.sin(), (tx * tx).sum(0)], grad_tensors=[torch.tensor(v1), torch.tensor(v2)]
    )
    assert_grad(x, tx)


# ----------------------------------------------------------------------------------------------
# .grad: accumulation and assignment
# ----------------------------------------------------------------------------------------------


def test_grad_accumulates_over_two_backward_calls(device):
    a = rand((3, 4), 68)
    x, tx = leaf(a, device), tleaf(a)
    for t in (x, tx):
        (t.exp() * 2).sum().backward()
        (t * t).sum().backward()
    assert_grad(x, tx)
    np.testing.assert_allclose(np_of(x.grad), 2 * np.exp(a) + 2 * a, rtol=RTOL)


def test_grad_accumulates_with_retain_graph(device):
    a = rand((3,), 69)
    x = leaf(a, device)
    y = x.exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(np_of(x.grad), 2 * np.exp(a), rtol=RTOL)


def test_grad_assign_then_accumulate(device):
    a = rand((3,), 70)
    x = leaf(a, device)
    x.grad = genesis.ones(3, dtype=genesis.float64, device=device)
    (x * 3).sum().backward()
    np.testing.assert_allclose(np_of(x.grad), np.full(3, 4.0))
    x.grad = None
    assert x.grad is None
    (x * 3).sum().backward()
    np.testing.assert_allclose(np_of(x.grad), np.full(3, 3.0))


def test_grad_zero_then_accumulate(device):
    x = leaf(rand((3,), 71), device)
    (x * 3).sum().backward()
    g = x.grad
    x.grad.zero_()
    (x * 5).sum().backward()
    np.testing.assert_allclose(np_of(x.grad), np.full(3, 5.0))
    np.testing.assert_allclose(np_of(g), np.full(3, 5.0))  # accumulated in place


@pytest.mark.parametrize(
    "bad",
    [
        lambda d: genesis.ones(4, dtype=genesis.float64, device=d),
        lambda d: genesis.ones(3, dtype=genesis.float32, device=d),
    ],
    ids=["shape", "dtype"],
)
def test_grad_assign_mismatch_is_an_error(bad, device):
    x = leaf(rand((3,), 72), device)
    with pytest.raises(RuntimeError):
        x.grad = bad(device)


# ----------------------------------------------------------------------------------------------
# Hooks and retain_grad
# ----------------------------------------------------------------------------------------------


def test_leaf_hook_modifies_grad(device):
    a = rand((3,), 73)
    x = leaf(a, device)
    seen = []

    def hook(g):
        seen.append(np_of(g))
        return g * 2

    x.register_hook(hook)
    (x * x).sum().backward()
    np.testing.assert_allclose(seen[0], 2 * a, rtol=RTOL)
    np.testing.assert_allclose(np_of(x.grad), 4 * a, rtol=RTOL)


def test_non_leaf_hook_modifies_grad_flowing_on(device):
    a = rand((3, 4), 74)
    x, tx = leaf(a, device), tleaf(a)
    for t in (x, tx):
        h = t.sin()
        h.register_hook(lambda g: g * g + 1)
        (h * 3).sum().backward()
    assert_grad(x, tx)


def test_hook_returning_none_only_observes(device):
    a = rand((3,), 75)
    x = leaf(a, device)
    seen = []
    y = x * 2
    y.register_hook(lambda g: seen.append(np_of(g)))
    (y * y).sum().backward()
    np.testing.assert_allclose(seen[0], 4 * a, rtol=RTOL)
    np.testing.assert_allclose(np_of(x.grad), 8 * a, rtol=RTOL)


def test_hooks_run_in_registration_order(device):
    x = leaf(rand((3,), 76), device)
    x.register_hook(lambda g: g * 2)
    x.register_hook(lambda g: g + 1)
    x.sum().backward()
    np.testing.assert_allclose(np_of(x.grad), np.full(3, 3.0))


@pytest.mark.parametrize("where", ["leaf", "non_leaf"])
def test_removed_hook_does_not_run(where, device):
    x = leaf(rand((3,), 77), device)
    t = x if where == "leaf" else x * 1.0
    calls = []
    handle = t.register_hook(lambda g: calls.append(1) or g * 10)
    handle.remove()
    handle.remove()  # a second remove does nothing
    (t * 2).sum().backward()
    assert calls == []
    np.testing.assert_allclose(np_of(x.grad), np.full(3, 2.0))


def test_post_accumulate_grad_hooks(device):
    """torch's Tensor.register_post_accumulate_grad_hook: after each accumulation into .grad,
    with the accumulated value; removable; leaves only."""
    x = leaf(rand((3,), 79), device)
    seen = []
    first = x.register_post_accumulate_grad_hook(lambda t: seen.append(np_of(t.grad).copy()))
    x.register_hook(lambda g: g * 2)  # a gradient hook runs before the accumulation
    (x * 3).sum().backward()
    (x * 1).sum().backward()
    np.testing.assert_allclose(seen[0], np.full(3, 6.0))
    np.testing.assert_allclose(seen[1], np.full(3, 8.0))  # accumulated
    first.remove()
    calls = []

    def step(t):  # an optimizer step in backward: uses the grad and drops it
        calls.append(1)
        with genesis.no_grad():
            t.sub_(t.grad)
        t.grad = None

    x.register_post_accumulate_grad_hook(step)
    x.grad = None
    before = np_of(x.detach()).copy()
    (x * 1).sum().backward()
    assert len(seen) == 2 and calls == [1] and x.grad is None
    np.testing.assert_allclose(np_of(x.detach()), before - 2.0)
    with pytest.raises(RuntimeError, match=r"^\[register_post_accumulate_grad_hook\] post"):
        (x * 2).register_post_accumulate_grad_hook(step)
    with pytest.raises(RuntimeError, match=r"^\[register_post_accumulate_grad_hook\] cannot"):
        genesis.ones(2).register_post_accumulate_grad_hook(step)


def test_retain_grad_on_non_leaf(device):
    a = rand((3, 4), 78)
    x, tx = leaf(a, device), tleaf(a)
    h, th = x.exp(), tx.exp()
    u = x * 2  # not retained
    assert not h.retains_grad
    h.retain_grad()
    th.retain_grad()
    assert h.retains_grad
    ((h * u).sin()).sum().backward()
    ((th * (tx * 2)).sin()).sum().backward()
    assert_close(h.grad, th.grad)
    assert u.grad is None
    assert_grad(x, tx)


def test_retain_grad_on_leaf_is_a_no_op(device):
    x = leaf(rand((3,), 79), device)
    x.retain_grad()
    assert not x.retains_grad
    (x * 2).sum().backward()
    np.testing.assert_allclose(np_of(x.grad), np.full(3, 2.0))


# ----------------------------------------------------------------------------------------------
# The graph's API: requires_grad, is_leaf, grad_fn
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda d: genesis.tensor([1.0, 2.0], device=d, requires_grad=True),
        lambda d: genesis.zeros(2, 3, device=d, requires_grad=True),
        lambda d: genesis.ones((2, 3), device=d, requires_grad=True),
        lambda d: genesis.randn(2, 3, device=d, requires_grad=True),
        lambda d: genesis.rand(2, 3, device=d, requires_grad=True),
        lambda d: genesis.full((2, 3), 1.5, device=d, requires_grad=True),
        lambda d: genesis.empty(2, 3, device=d, requires_grad=True),
    ],
    ids=["tensor", "zeros", "ones", "randn", "rand", "full", "empty"],
)
def test_factories_make_leaves_that_require_grad(make, device):
    x = make(device)
    assert x.requires_grad and x.is_leaf
    assert x.grad is None and x.grad_fn is None
    assert x.dtype is genesis.float32
    (x * 2).sum().backward()
    np.testing.assert_array_equal(np_of(x.grad), np.full(tuple(x.shape), 2.0, np.float32))


def test_requires_grad_flag(device):
    x = genesis.tensor(rand((3,), 80), device=device)
    assert not x.requires_grad and x.is_leaf
    assert x.requires_grad_() is x
    assert x.requires_grad and x.is_leaf
    x.requires_grad_(False)
    assert not x.requires_grad
    x.requires_grad = True
    assert x.requires_grad
    y = x * 2
    assert y.requires_grad and not y.is_leaf
    z = genesis.tensor(rand((3,), 81), device=device) * 2  # from a tensor without grad
    assert not z.requires_grad and z.is_leaf and z.grad_fn is None


def test_requires_grad_on_non_leaf(device):
    """As PyTorch: True is allowed (a no-op), False is an error."""
    y = leaf(rand((3,), 82), device) * 2
    assert y.requires_grad_() is y
    assert y.requires_grad and not y.is_leaf
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)


def test_grad_fn_and_next_functions(device):
    x, y = leaf(rand((3,), 83), device), leaf(rand((3,), 84), device)
    c = genesis.tensor(rand((3,), 85), device=device)
    assert x.grad_fn is None
    z = x * y
    assert z.grad_fn.name() == "MulBackward0"
    nf = z.grad_fn.next_functions
    assert isinstance(nf, tuple) and len(nf) == 2
    assert [(n.name(), i) for n, i in nf] == [("AccumulateGrad", 0), ("AccumulateGrad", 0)]
    w = (x * c).exp()
    assert w.grad_fn.name() == "ExpBackward0"
    (mul_node, nr) = w.grad_fn.next_functions[0]
    assert mul_node.name() == "MulBackward0" and nr == 0
    assert mul_node.next_functions[0][0].name() == "AccumulateGrad"
    assert mul_node.next_functions[1] == (None, 0)


# (id, fn(lib, x)) on a (3, 4) leaf: the node names PyTorch gives.
NODE_NAMES = [
    ("mul", lambda m, x: x * x),
    ("add", lambda m, x: x + x),
    ("sub", lambda m, x: x - 1),
    ("div", lambda m, x: x / 2),
    ("neg", lambda m, x: -x),
    ("exp", lambda m, x: x.exp()),
    ("tanh", lambda m, x: x.tanh()),
    ("sigmoid", lambda m, x: x.sigmoid()),
    ("pow", lambda m, x: x**3),
    ("view", lambda m, x: x.view(12)),
    ("transpose", lambda m, x: x.transpose(0, 1)),
    ("t", lambda m, x: x.t()),
    ("select", lambda m, x: x[0]),
    ("slice", lambda m, x: x[1:]),
    ("index", lambda m, x: x[[0, 1]]),
    ("sum_dim", lambda m, x: x.sum(0)),
    ("mean_dim", lambda m, x: x.mean(1)),
    ("sum", lambda m, x: x.sum()),
    ("mean", lambda m, x: x.mean()),
    ("clone", lambda m, x: x.clone()),
    ("mm", lambda m, x: x @ x.t()),
]


@pytest.mark.parametrize("case", NODE_NAMES, ids=fn_ids(NODE_NAMES))
def test_node_names_match_pytorch(case, device):
    _, fn = case
    a = rand((3, 4), 86)
    assert fn(genesis, leaf(a, device)).grad_fn.name() == fn(torch, tleaf(a)).grad_fn.name()


# ----------------------------------------------------------------------------------------------
# Grad modes
# ----------------------------------------------------------------------------------------------


def test_no_grad_context(device):
    x = leaf(rand((3,), 87), device)
    assert genesis.is_grad_enabled()
    with genesis.no_grad():
        assert not genesis.is_grad_enabled()
        y = x * 2
        assert not y.requires_grad and y.is_leaf and y.grad_fn is None
        assert x.requires_grad  # the flag of the leaf is untouched
    assert genesis.is_grad_enabled()
    assert (x * 2).requires_grad


def test_grad_modes_nest_and_restore(device):
    x = leaf(rand((3,), 88), device)
    with genesis.no_grad():
        with genesis.enable_grad():
            assert genesis.is_grad_enabled()
            assert (x * 2).requires_grad
            with genesis.set_grad_enabled(False):
                assert not (x * 2).requires_grad
            assert genesis.is_grad_enabled()
        assert not genesis.is_grad_enabled()
        with genesis.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not genesis.is_grad_enabled()
    assert genesis.is_grad_enabled()


def test_grad_mode_restored_after_exception():
    with pytest.raises(ValueError, match="inside"):
        with genesis.no_grad():
            raise ValueError("inside")
    assert genesis.is_grad_enabled()


def test_set_grad_enabled_as_a_function(device):
    x = leaf(rand((3,), 89), device)
    try:
        genesis.set_grad_enabled(False)
        assert not genesis.is_grad_enabled()
        assert not (x * 2).requires_grad
    finally:
        genesis.set_grad_enabled(True)
    assert genesis.is_grad_enabled()
    assert (x * 2).requires_grad


def test_grad_mode_decorators(device):
    x = leaf(rand((3,), 90), device)

    @genesis.no_grad()
    def off(t):
        """Doc kept."""
        return t * 2, genesis.is_grad_enabled()

    @genesis.enable_grad()
    def on(t):
        return t * 2

    @genesis.set_grad_enabled(False)
    def set_off(t):
        return t * 2

    @genesis.inference_mode()
    def inference(t):
        return t * 2

    assert genesis.is_grad_enabled()  # decorating changes nothing by itself
    y, enabled = off(x)
    assert not y.requires_grad and not enabled
    assert off.__name__ == "off" and off.__doc__ == "Doc kept."
    with genesis.no_grad():
        assert on(x).requires_grad
        assert not genesis.is_grad_enabled()
    assert not set_off(x).requires_grad
    assert not inference(x).requires_grad
    assert genesis.is_grad_enabled()


def test_bare_decorators(device):
    """@genesis.no_grad without parentheses, as PyTorch allows for no_grad, enable_grad and
    inference_mode."""
    x = leaf(rand((3,), 91), device)

    @genesis.no_grad
    def off(t):
        return t * 2

    @genesis.enable_grad
    def on(t):
        return t * 2

    @genesis.inference_mode
    def inference(t):
        return t * 2

    assert not off(x).requires_grad
    with genesis.no_grad():
        assert on(x).requires_grad
    assert not inference(x).requires_grad


def test_inference_mode(device):
    x = leaf(rand((3,), 92), device)
    with genesis.inference_mode():
        assert not genesis.is_grad_enabled()
        assert not (x * 2).requires_grad
    with genesis.inference_mode(False):
        assert (x * 2).requires_grad
    assert genesis.is_grad_enabled()


def test_grad_mode_is_per_thread(device):
    x = leaf(rand((3,), 93), device)
    seen = {}

    def other():
        seen["enabled"] = genesis.is_grad_enabled()
        seen["records"] = (x * 2).requires_grad

    with genesis.no_grad():
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == {"enabled": True, "records": True}


# ----------------------------------------------------------------------------------------------
# Integer results, detach, _version
# ----------------------------------------------------------------------------------------------

INTEGER_RESULTS = [
    ("gt", lambda x: x > 0),
    ("eq", lambda x: x == x),
    ("ne_number", lambda x: x != 1.0),
    ("argmax", lambda x: x.argmax()),
    ("argmax_dim", lambda x: x.argmax(dim=1)),
    ("argmin", lambda x: x.argmin(dim=0)),
    ("long", lambda x: x.long()),
    ("to_int32", lambda x: x.to(genesis.int32)),
    ("to_bool", lambda x: x.to(genesis.bool)),
    ("count", lambda x: (x > 0).sum()),
    ("mask_back_to_float", lambda x: (x > 0).float()),
]


@pytest.mark.parametrize("case", INTEGER_RESULTS, ids=fn_ids(INTEGER_RESULTS))
def test_integer_and_bool_results_do_not_require_grad(case, device):
    x = leaf(rand((3, 4), 94), device)
    y = case[1](x)
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None


def test_detach_shares_memory_without_grad(device):
    a = rand((3,), 95)
    x = leaf(a, device)
    y = x * 2
    for d, base in ((x.detach(), x), (y.detach(), y), (x.data, x)):
        assert d.data_ptr() == base.data_ptr()
        assert not d.requires_grad and d.is_leaf and d.grad_fn is None and d.grad is None
    x.detach()[0] = 5.0
    assert np_of(x)[0] == 5.0


def test_detach_stops_the_gradient(device):
    a = rand((3,), 96)
    x = leaf(a, device)
    (x * x.detach()).sum().backward()
    np.testing.assert_allclose(np_of(x.grad), a, rtol=RTOL)


def test_detach_in_place(device):
    x = leaf(rand((3,), 97), device)
    y = x * 2
    assert y.detach_() is y
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None


def test_version_counts_writes(device):
    t = genesis.tensor(rand((3, 4), 98), device=device)
    v0 = t._version
    t.add_(1.0)
    v1 = t._version
    assert v1 > v0
    t[0].mul_(2.0)  # a write through a view counts for the base
    assert t._version > v1


# ----------------------------------------------------------------------------------------------
# The guards: PyTorch's RuntimeErrors
# ----------------------------------------------------------------------------------------------


def _modify_saved_output(x):
    y = x.sigmoid()  # saves its output
    z = y * 1.0
    y.mul_(2.0)
    return z.sum()


def _modify_saved_operand(x):
    w = genesis.tensor([1.0, 2.0, 3.0], dtype=genesis.float64, device=x.device)
    z = x * w  # saves w for x's gradient
    w.add_(1.0)
    return z.sum()


def _modify_saved_non_leaf(x):
    h = x * 2
    z = h * h  # saves h
    h.add_(1.0)
    return z.sum()


@pytest.mark.parametrize(
    "build",
    [_modify_saved_output, _modify_saved_operand, _modify_saved_non_leaf],
    ids=["output", "operand", "non_leaf"],
)
def test_modified_saved_tensor_is_an_error(build, device):
    x = leaf(rand((3,), 99), device)
    loss = build(x)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def _setitem(x):
    x[0] = 1.0


def _iadd_leaf(x):
    x += 1.0


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.add_(1.0),
        lambda x: x.mul_(2.0),
        lambda x: x.exp_(),
        lambda x: x.relu_(),
        lambda x: x.zero_(),
        lambda x: x.fill_(1.5),
        _iadd_leaf,
        _setitem,
    ],
    ids=["add_", "mul_", "exp_", "relu_", "zero_", "fill_", "+=", "setitem"],
)
def test_inplace_on_leaf_requiring_grad_is_an_error(op, device):
    x = leaf(rand((3,), 100), device)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        op(x)


def test_inplace_on_leaf_allowed_under_no_grad(device):
    a = rand((3,), 101)
    x = leaf(a, device)
    with genesis.no_grad():
        x.add_(1.0)
        x *= 2.0
    np.testing.assert_allclose(np_of(x), (a + 1) * 2, rtol=RTOL)
    assert x.requires_grad and x.is_leaf


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.exp().sum(),
        lambda x: x.sigmoid().sum(),
        lambda x: (x * x).sum(),
        lambda x: (x.unsqueeze(0) @ x.unsqueeze(1)).sum(),
    ],
    ids=["exp", "sigmoid", "mul", "matmul"],
)
def test_second_backward_without_retain_graph_is_an_error(fn, device):
    x = leaf(rand((3,), 102), device)
    y = fn(x)
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_second_grad_call_without_retain_graph_is_an_error(device):
    x = leaf(rand((3,), 103), device)
    y = x.exp().sum()
    genesis.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        genesis.autograd.grad(y, x)


def test_backward_of_non_scalar_needs_gradient(device):
    x = leaf(rand((3,), 104), device)
    y = x * 2
    with pytest.raises(
        RuntimeError, match="grad can be implicitly created only for scalar outputs"
    ):
        y.backward()
    with pytest.raises(
        RuntimeError, match="grad can be implicitly created only for scalar outputs"
    ):
        genesis.autograd.grad(y, x)


@pytest.mark.parametrize(
    "make",
    [
        lambda d: genesis.tensor([1, 2, 3], device=d).requires_grad_(),
        lambda d: genesis.tensor([True, False], device=d).requires_grad_(),
        lambda d: genesis.tensor([1, 2, 3], device=d, requires_grad=True),
        lambda d: genesis.zeros(3, dtype=genesis.int32, device=d, requires_grad=True),
    ],
    ids=["int64_method", "bool_method", "tensor_kwarg", "zeros_kwarg"],
)
def test_requires_grad_on_integer_tensor_is_an_error(make, device):
    with pytest.raises(RuntimeError, match="(?i)only Tensors of floating point"):
        make(device)


@pytest.mark.parametrize(
    "fn",
    [
        lambda d: genesis.ones(3, device=d).sum().backward(),
        lambda d: genesis.tensor(2.0, device=d).backward(),
        lambda d: _no_grad_result(d).backward(),
        lambda d: genesis.autograd.grad(_no_grad_result(d), leaf(np.ones(3), d)),
    ],
    ids=["plain_tensor", "0d_tensor", "made_under_no_grad", "grad"],
)
def test_backward_on_tensor_without_grad_is_an_error(fn, device):
    with pytest.raises(RuntimeError, match="does not require grad"):
        fn(device)


def _no_grad_result(device):
    x = leaf(np.ones(3), device)
    with genesis.no_grad():
        return (x * 2).sum()


def test_grad_of_input_not_requiring_grad_is_an_error(device):
    x = leaf(rand((3,), 105), device)
    c = genesis.tensor(rand((3,), 106), device=device)
    with pytest.raises(RuntimeError, match="does not require grad"):
        genesis.autograd.grad((x * c).sum(), c)


def test_hook_on_tensor_without_grad_is_an_error(device):
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        genesis.ones(3, device=device).register_hook(lambda g: g)


# ----------------------------------------------------------------------------------------------
# Memory, a worked example, threads
# ----------------------------------------------------------------------------------------------


@requires_cuda
def test_backward_releases_graph_memory():
    """After backward and dropping the loss and intermediates, CUDA memory holds only the
    parameters, the data and the gradients; a second step leaves the same amount."""
    alloc = genesis.cuda.memory_allocated
    w = leaf(rand((64, 64), 107), "cuda")  # 32768 bytes: a multiple of the pool's 512
    b = leaf(rand((64,), 108), "cuda")  # 512 bytes
    x = genesis.tensor(rand((256, 64), 109), device="cuda")
    with genesis.no_grad():  # a warm-up: whatever the first matmul keeps is in the baseline
        warm = (x @ w + b).tanh() @ w.t()
        del warm
    # synchronize runs deferred work first: inside a compiled region (tests/compile's region
    # suite) a pending result holds no memory yet and its group holds its inputs
    genesis.cuda.synchronize()
    base = alloc()
    grad_bytes = 64 * 64 * 8 + 64 * 8
    for step in range(3):
        h = (x @ w + b).tanh()
        z = h * h.sigmoid()
        loss = z.mean()
        assert alloc() > base
        loss.backward()
        del loss, z, h
        genesis.cuda.synchronize()
        assert alloc() == base + grad_bytes, step
    w.grad = None
    b.grad = None
    assert alloc() == base


@pytest.mark.parametrize("reset", ["set_none", "zero_"])
def test_linear_regression_with_manual_sgd(reset, device):
    """Fitting y = X w* + b* by gradient descent: the loss falls, w and b approach the truth,
    and every step matches PyTorch running the same loop."""
    rng = np.random.default_rng(110)
    X = rng.standard_normal((200, 3)).astype(np.float32)
    w_true = np.array([[2.0], [-3.0], [0.5]], np.float32)
    y = (X @ w_true + 0.7 + 0.01 * rng.standard_normal((200, 1))).astype(np.float32)

    def train(m, dev, steps=150, lr=0.1):
        Xt, yt = m.tensor(X, device=dev), m.tensor(y, device=dev)
        w = m.zeros(3, 1, device=dev, requires_grad=True)
        b = m.zeros(1, device=dev, requires_grad=True)
        losses = []
        for _ in range(steps):
            loss = ((Xt @ w + b - yt) ** 2).mean()
            loss.backward()
            losses.append(loss.item())
            with m.no_grad():
                w -= lr * w.grad
                b -= lr * b.grad
            if reset == "set_none":
                w.grad = None
                b.grad = None
            else:
                w.grad.zero_()
                b.grad.zero_()
        return w, b, np.array(losses)

    w, b, losses = train(genesis, device)
    tw, tb, tlosses = train(torch, "cpu")
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    assert np.all(np.diff(losses[:50]) < 0)
    assert losses[-1] < losses[0] * 1e-3
    np.testing.assert_allclose(np_of(w), w_true, atol=0.02)
    np.testing.assert_allclose(np_of(b), [0.7], atol=0.02)
    np.testing.assert_allclose(losses, tlosses, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np_of(w), np_of(tw), rtol=1e-4, atol=1e-5)


def _independent_step(seed, device):
    """One backward pass on a graph of its own; the leaves' grads as NumPy."""
    x = leaf(rand((16, 8), seed), device)
    w = leaf(rand((8, 4), seed + 1), device)
    h = (x @ w).tanh()
    h.register_hook(lambda g: g * 1.5)
    loss = (h * h.exp()).sum() + (x[::2] ** 2).mean()
    loss.backward()
    return np_of(x.grad), np_of(w.grad)


def _in_threads(n_threads, target):
    barrier = threading.Barrier(n_threads)
    errors = []

    def run(i):
        try:
            barrier.wait()
            target(i)
        except BaseException as e:  # reported in the main thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def test_backward_in_two_threads_matches_serial(device):
    rounds = 20
    serial = [_independent_step(1000 + i, device) for i in range(2)]
    results = {i: [] for i in range(2)}

    def target(i):
        for _ in range(rounds):
            results[i].append(_independent_step(1000 + i, device))

    _in_threads(2, target)
    for i in range(2):
        assert len(results[i]) == rounds
        for gx, gw in results[i]:
            np.testing.assert_allclose(gx, serial[i][0], rtol=1e-12, atol=0)
            np.testing.assert_allclose(gw, serial[i][1], rtol=1e-12, atol=0)


def test_threads_accumulate_into_a_shared_leaf(device):
    """Backward passes in two threads, each through its own graph, add into one leaf's grad."""
    a = rand((32,), 111)
    w = leaf(a, device)
    rounds = 25

    def target(i):
        for _ in range(rounds):
            (w.exp() * (i + 1)).sum().backward()

    _in_threads(2, target)
    np.testing.assert_allclose(np_of(w.grad), rounds * 3 * np.exp(a), rtol=1e-12)


def test_grad_mode_names_are_shared_with_genesis_autograd():
    for name in ("no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled"):
        assert getattr(genesis, name) is getattr(genesis.autograd, name)
