"""The activations of genesis.nn.functional and their layers in genesis.nn against PyTorch on the
same data: values and gradients for every option (float64 and float32), non-contiguous, 0-d and
zero-size input, float16/bfloat16 forward, the in-place forms (the same object returned, the
values, the gradient through them, the leaf error), softmax's implicit dim and its warning,
rrelu's and gumbel_softmax's random draws (by their distribution and gradient), PReLU's weight,
the signatures, the reprs and the input checks.

(tests/ops/test_activation.py tests the compiled kernels themselves at special values.)
"""

import inspect
import pickle
import warnings

import numpy as np
import pytest
from conftest import check_message
from test_autograd import assert_close, check_grads

import genesis
import genesis.nn as nn
import genesis.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RTOL64, ATOL64 = 1e-6, 1e-9
RTOL32, ATOL32 = 2e-5, 1e-6


def _data(shape, seed=0, scale=3.0, dtype=np.float64):
    """Normal data * scale (beyond +-3, the kinks of the hard functions), never exactly 0."""
    a = np.random.default_rng(seed).standard_normal(shape) * scale
    return np.asarray(np.where(a == 0, 0.25, a), dtype=dtype)


def _np(t):
    """A NumPy copy of a genesis or torch tensor; 16-bit floats as float32."""
    t = t.detach().cpu()
    if t.dtype in (genesis.float16, genesis.bfloat16, torch.float16, torch.bfloat16):
        t = t.float()
    return t.numpy()


# (id, fn(lib, x)): every functional with every option; lib is genesis or torch.
CASES = [
    ("relu", lambda m, x: m.nn.functional.relu(x)),
    ("relu6", lambda m, x: m.nn.functional.relu6(x)),
    ("elu", lambda m, x: m.nn.functional.elu(x)),
    ("elu_alpha", lambda m, x: m.nn.functional.elu(x, alpha=0.3)),
    ("elu_alpha_neg", lambda m, x: m.nn.functional.elu(x, -1.5)),
    ("selu", lambda m, x: m.nn.functional.selu(x)),
    ("celu", lambda m, x: m.nn.functional.celu(x)),
    ("celu_alpha", lambda m, x: m.nn.functional.celu(x, alpha=2.5)),
    ("celu_alpha_small", lambda m, x: m.nn.functional.celu(x, 0.3)),
    ("celu_alpha_neg", lambda m, x: m.nn.functional.celu(x, -1.5)),
    ("leaky_relu", lambda m, x: m.nn.functional.leaky_relu(x)),
    ("leaky_relu_slope", lambda m, x: m.nn.functional.leaky_relu(x, negative_slope=0.2)),
    ("rrelu_eval", lambda m, x: m.nn.functional.rrelu(x)),
    ("rrelu_eval_bounds", lambda m, x: m.nn.functional.rrelu(x, 0.1, 0.6, training=False)),
    ("glu", lambda m, x: m.nn.functional.glu(x)),
    ("glu_dim0", lambda m, x: m.nn.functional.glu(x, dim=0)),
    ("glu_dim1", lambda m, x: m.nn.functional.glu(x, 1)),
    ("gelu", lambda m, x: m.nn.functional.gelu(x)),
    ("gelu_tanh", lambda m, x: m.nn.functional.gelu(x, approximate="tanh")),
    ("gelu_none", lambda m, x: m.nn.functional.gelu(x, approximate="none")),
    ("logsigmoid", lambda m, x: m.nn.functional.logsigmoid(x)),
    ("logsigmoid_wide", lambda m, x: m.nn.functional.logsigmoid(x * 12)),
    ("hardshrink", lambda m, x: m.nn.functional.hardshrink(x)),
    ("hardshrink_lambd", lambda m, x: m.nn.functional.hardshrink(x, lambd=2.0)),
    ("hardshrink_zero", lambda m, x: m.nn.functional.hardshrink(x, 0.0)),
    ("tanhshrink", lambda m, x: m.nn.functional.tanhshrink(x)),
    ("softsign", lambda m, x: m.nn.functional.softsign(x)),
    ("softplus", lambda m, x: m.nn.functional.softplus(x)),
    ("softplus_beta", lambda m, x: m.nn.functional.softplus(x, beta=2.0, threshold=5.0)),
    ("softplus_small_beta", lambda m, x: m.nn.functional.softplus(x, 0.5, 1.0)),
    ("softmin", lambda m, x: m.nn.functional.softmin(x, dim=1)),
    ("softmin_dim0", lambda m, x: m.nn.functional.softmin(x, 0)),
    ("softmin_dtype", lambda m, x: m.nn.functional.softmin(x, -1, dtype=m.float64)),
    ("softmax", lambda m, x: m.nn.functional.softmax(x, dim=1)),
    ("softmax_dim0", lambda m, x: m.nn.functional.softmax(x, 0)),
    ("softmax_dtype", lambda m, x: m.nn.functional.softmax(x, -1, dtype=m.float64)),
    ("log_softmax", lambda m, x: m.nn.functional.log_softmax(x, dim=1)),
    ("log_softmax_dim0", lambda m, x: m.nn.functional.log_softmax(x, 0)),
    ("log_softmax_dtype", lambda m, x: m.nn.functional.log_softmax(x, -1, dtype=m.float64)),
    ("softshrink", lambda m, x: m.nn.functional.softshrink(x)),
    ("softshrink_lambd", lambda m, x: m.nn.functional.softshrink(x, lambd=1.5)),
    ("softshrink_zero", lambda m, x: m.nn.functional.softshrink(x, 0.0)),
    ("tanh", lambda m, x: m.nn.functional.tanh(x)),
    ("sigmoid", lambda m, x: m.nn.functional.sigmoid(x)),
    ("hardsigmoid", lambda m, x: m.nn.functional.hardsigmoid(x)),
    ("silu", lambda m, x: m.nn.functional.silu(x)),
    ("mish", lambda m, x: m.nn.functional.mish(x)),
    ("hardswish", lambda m, x: m.nn.functional.hardswish(x)),
    ("hardtanh", lambda m, x: m.nn.functional.hardtanh(x)),
    ("hardtanh_bounds", lambda m, x: m.nn.functional.hardtanh(x, min_val=-2.0, max_val=0.5)),
    ("hardtanh_equal_bounds", lambda m, x: m.nn.functional.hardtanh(x, 0.5, 0.5)),
    ("threshold", lambda m, x: m.nn.functional.threshold(x, 0.5, -7.0)),
    ("threshold_kw", lambda m, x: m.nn.functional.threshold(x, threshold=-1.0, value=3.0)),
]
CASE_IDS = [c[0] for c in CASES]

# Non-contiguous views of a (6, 8) array, fed to the function as (4, 6) or (6, 4) inputs.
LAYOUTS = {
    "contiguous": lambda x: x[:, :4],
    "transposed": lambda x: x[:4].t(),
    "strided": lambda x: x[:, ::2],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name, fn", CASES, ids=CASE_IDS)
def test_functional_forward_and_gradient(name, fn, dt, layout, device):
    view = LAYOUTS[layout]
    a = _data((6, 8), seed=len(name), dtype=np.dtype(dt))
    rtol, atol = (RTOL64, ATOL64) if dt == "float64" else (RTOL32, ATOL32)
    check_grads(lambda m, x: fn(m, view(x)), [a], device, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name, fn", CASES, ids=CASE_IDS)
def test_functional_zero_size_and_0d(name, fn, device):
    shapes = [(0, 4), (3, 0), (2, 0, 4)] + ([] if name.startswith("glu") else [()])
    for shape in shapes:
        if name in ("glu_dim1", "softmin", "softmax", "log_softmax") and len(shape) < 2:
            continue  # dim 1 of a 0-d input: out of range for both
        a = _data(shape, seed=1)
        try:
            want = fn(torch, torch.tensor(a))
        except (RuntimeError, IndexError):
            continue  # e.g. glu over an odd (0 is even) size: compared in test_bad_input
        got = fn(genesis, genesis.tensor(a, device=device))
        assert_close(got, want, RTOL64, ATOL64)
    one = _data((2,) if name.startswith("glu") else (), seed=2)
    try:
        fn(torch, torch.tensor(one))
    except IndexError:
        return  # dim 1 of a 0-d input
    check_grads(fn, [one], device)


LOW = [
    ("float16", genesis.float16, torch.float16, 4e-3),
    ("bfloat16", genesis.bfloat16, torch.bfloat16, 3e-2),
]


@pytest.mark.parametrize("dt, gdt, tdt, tol", LOW, ids=[d[0] for d in LOW])
@pytest.mark.parametrize("name, fn", CASES, ids=CASE_IDS)
def test_functional_16_bit_forward(name, fn, dt, gdt, tdt, tol, device):
    a = _data((4, 6), seed=3).astype(np.float32)
    try:
        want = fn(torch, torch.tensor(a).to(tdt))
    except (RuntimeError, NotImplementedError):
        pytest.skip(f"torch CPU has no {dt} {name}")
    got = fn(genesis, genesis.tensor(a, device=device).to(gdt))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    # One 16-bit rounding of the result, or of an intermediate (x + 3 of the hard ones).
    scale = np.maximum(np.abs(_np(want)), 1.0)
    assert np.all(np.abs(_np(got) - _np(want)) <= 2 * tol * scale), (_np(got), _np(want))


SPECIAL = [np.nan, np.inf, -np.inf, 0.0, 1e-3, -1e-3, 30.0, -30.0, 3.0, -3.0, 0.5, -0.5]


@pytest.mark.parametrize(
    "name, fn", [c for c in CASES if not c[0].startswith(("glu", "softm", "log_softm"))]
)
def test_functional_special_values(name, fn, device):
    a = np.array(SPECIAL)
    got, want = fn(genesis, genesis.tensor(a, device=device)), fn(torch, torch.tensor(a))
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6, atol=1e-12)


def test_integer_input_of_the_functions_that_take_it(device):
    a = np.array([[-3, 0, 2, 9], [4, -1, 7, 6]])
    for fn in [
        lambda m, x: m.nn.functional.relu(x),
        lambda m, x: m.nn.functional.relu6(x),
        lambda m, x: m.nn.functional.hardtanh(x, -2, 3),
        lambda m, x: m.nn.functional.threshold(x, 2, 20),
        lambda m, x: m.nn.functional.tanhshrink(x),
        lambda m, x: m.nn.functional.softsign(x),
        lambda m, x: m.nn.functional.sigmoid(x),
        lambda m, x: m.nn.functional.tanh(x),
        lambda m, x: m.nn.functional.softmax(x, 1, dtype=m.float32),
        lambda m, x: m.nn.functional.softmin(x, 1, dtype=m.float64),
        lambda m, x: m.nn.functional.log_softmax(x, 0, dtype=m.float32),
    ]:
        got, want = fn(genesis, genesis.tensor(a, device=device)), fn(torch, torch.tensor(a))
        assert_close(got, want, 1e-6, 1e-7)


# ----------------------------------------------------------------------------------------------
# In-place forms
# ----------------------------------------------------------------------------------------------

# (id, fn(lib, x)) that write into x and return it.
INPLACE = [
    ("relu_inplace", lambda m, x: m.nn.functional.relu(x, inplace=True)),
    ("relu_", lambda m, x: m.nn.functional.relu_(x)),
    ("relu6_inplace", lambda m, x: m.nn.functional.relu6(x, inplace=True)),
    ("elu_inplace", lambda m, x: m.nn.functional.elu(x, 0.7, inplace=True)),
    ("elu_", lambda m, x: m.nn.functional.elu_(x)),
    ("elu__alpha", lambda m, x: m.nn.functional.elu_(x, alpha=2.0)),
    ("selu_inplace", lambda m, x: m.nn.functional.selu(x, inplace=True)),
    ("selu_", lambda m, x: m.nn.functional.selu_(x)),
    ("celu_inplace", lambda m, x: m.nn.functional.celu(x, 1.0, inplace=True)),
    ("celu_inplace_alpha", lambda m, x: m.nn.functional.celu(x, 2.5, True)),
    ("celu_", lambda m, x: m.nn.functional.celu_(x, alpha=0.4)),
    ("celu__neg", lambda m, x: m.nn.functional.celu_(x, -2.0)),
    ("leaky_relu_inplace", lambda m, x: m.nn.functional.leaky_relu(x, 0.2, inplace=True)),
    ("leaky_relu_", lambda m, x: m.nn.functional.leaky_relu_(x, 0.3)),
    ("rrelu_eval_inplace", lambda m, x: m.nn.functional.rrelu(x, 0.1, 0.5, False, True)),
    ("rrelu_", lambda m, x: m.nn.functional.rrelu_(x, 0.2, 0.4)),
    ("hardsigmoid_inplace", lambda m, x: m.nn.functional.hardsigmoid(x, inplace=True)),
    ("hardswish_inplace", lambda m, x: m.nn.functional.hardswish(x, True)),
    ("silu_inplace", lambda m, x: m.nn.functional.silu(x, inplace=True)),
    ("mish_inplace", lambda m, x: m.nn.functional.mish(x, inplace=True)),
    ("hardtanh_inplace", lambda m, x: m.nn.functional.hardtanh(x, -0.5, 2.0, True)),
    ("hardtanh_", lambda m, x: m.nn.functional.hardtanh_(x, min_val=-2.0, max_val=1.0)),
    ("threshold_inplace", lambda m, x: m.nn.functional.threshold(x, 0.1, 5.0, inplace=True)),
    ("threshold_", lambda m, x: m.nn.functional.threshold_(x, -0.5, 2.0)),
]
INPLACE_IDS = [c[0] for c in INPLACE]


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name, fn", INPLACE, ids=INPLACE_IDS)
def test_inplace_returns_the_input_with_the_values(name, fn, dt, device):
    a = _data((5, 6), seed=4, dtype=np.dtype(dt))
    x, t = genesis.tensor(a, device=device), torch.tensor(a)
    out, want = fn(genesis, x), fn(torch, t)
    assert out is x
    rtol, atol = (RTOL64, ATOL64) if dt == "float64" else (RTOL32, ATOL32)
    assert_close(x, t, rtol, atol)
    assert_close(out, want, rtol, atol)


@pytest.mark.parametrize("name, fn", INPLACE, ids=INPLACE_IDS)
def test_inplace_on_a_non_contiguous_view_writes_the_base(name, fn, device):
    a = _data((6, 8), seed=5)
    base, tbase = genesis.tensor(a, device=device), torch.tensor(a)
    view = base.t()[::2]
    assert not view.is_contiguous()
    assert fn(genesis, view) is view
    fn(torch, tbase.t()[::2])
    assert_close(base, tbase, RTOL64, ATOL64)


@pytest.mark.parametrize("name, fn", INPLACE, ids=INPLACE_IDS)
def test_inplace_records_the_gradient(name, fn, device):
    """On a non-leaf in a graph, as PyTorch (the compiled elu_ records none: composed then)."""
    if name == "celu__neg":  # torch refuses this backward in place: against its out-of-place
        inplace, fn = fn, lambda m, x: (inplace if m is genesis else celu_neg_out)(m, x)
    check_grads(lambda m, x: fn(m, x * 1), [_data((4, 5), seed=6)], device)
    check_grads(lambda m, x: fn(m, (x * 1).t()[1:]), [_data((4, 5), seed=7)], device)


def celu_neg_out(m, x):
    return m.nn.functional.celu(x, -2.0)


@pytest.mark.parametrize("name, fn", INPLACE, ids=INPLACE_IDS)
def test_inplace_on_a_leaf_that_requires_grad_raises(name, fn, device):
    x = genesis.tensor(_data((3,)), device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad") as e:
        fn(genesis, x)
    check_message(e)
    with genesis.no_grad():  # allowed there, as in PyTorch
        assert fn(genesis, x) is x


@pytest.mark.parametrize("name, fn", INPLACE, ids=INPLACE_IDS)
def test_inplace_on_zero_size_and_0d(name, fn, device):
    for shape in [(0, 3), ()]:
        a = _data(shape, seed=8)
        x, t = genesis.tensor(a, device=device), torch.tensor(a)
        assert fn(genesis, x) is x
        fn(torch, t)
        assert_close(x, t)


# ----------------------------------------------------------------------------------------------
# The ones with their own rules
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "in_shape, w_shape",
    [
        ((4, 3), (3,)),
        ((4, 3), (1,)),
        ((2, 3, 5), (3,)),
        ((2, 3, 4, 2), (3,)),
        ((2, 3, 4, 2), ()),
        ((5,), (1,)),
        ((), (1,)),
        ((0, 3), (3,)),
        ((2, 3, 0), (3,)),
    ],
)
def test_prelu_matches_torch(in_shape, w_shape, device):
    x, w = _data(in_shape, seed=9), np.random.default_rng(1).uniform(-0.5, 0.5, w_shape)
    if 0 in in_shape:
        got = F.prelu(genesis.tensor(x, device=device), genesis.tensor(w, device=device))
        assert_close(got, TF.prelu(torch.tensor(x), torch.tensor(w)))
        return
    check_grads(lambda m, x, w: m.nn.functional.prelu(x, w), [x, w], device)
    if len(in_shape) > 1:  # a non-contiguous input
        swapped = (in_shape[-1],) + in_shape[1:-1] + (in_shape[0],)
        check_grads(
            lambda m, x, w: m.nn.functional.prelu(x.transpose(0, -1), w),
            [_data(swapped, seed=10), w],
            device,
        )


def test_rrelu_training_draws_slopes_in_bounds_with_their_gradient(device):
    genesis.manual_seed(0)
    a = _data((400,), seed=11)
    x = genesis.tensor(a, device=device, requires_grad=True)
    out = F.rrelu(x, 0.1, 0.4, training=True)
    out.sum().backward()
    y, g = _np(out).astype(np.float64), _np(x.grad).astype(np.float64)
    pos = a > 0
    np.testing.assert_array_equal(y[pos], a[pos])
    np.testing.assert_array_equal(g[pos], 1.0)
    slope = y[~pos] / a[~pos]
    assert slope.min() >= 0.1 - 1e-12 and slope.max() <= 0.4 + 1e-12
    assert slope.std() > 0.05  # random, not the mean
    np.testing.assert_allclose(g[~pos], slope, rtol=1e-12)
    # lower == upper: no randomness left, PyTorch's values and gradient.
    check_grads(lambda m, x: m.nn.functional.rrelu(x, 0.2, 0.2, True), [a[:20]], device)
    # In place: the input holds the draws.
    z = genesis.tensor(a, device=device)
    assert F.rrelu_(z, 0.1, 0.4, training=True) is z
    zz = _np(z).astype(np.float64)
    np.testing.assert_array_equal(zz[pos], a[pos])
    assert (zz[~pos] / a[~pos]).min() >= 0.1 - 1e-12
    assert F.rrelu(genesis.zeros(0, 3, device=device), training=True).shape == (0, 3)


def test_rrelu_module_train_and_eval(device):
    a = _data((50,), seed=12)
    layer = nn.RReLU(0.1, 0.3)
    assert layer.training
    genesis.manual_seed(1)
    trained = _np(layer(genesis.tensor(a, device=device)))
    assert not np.allclose(trained, TF.rrelu(torch.tensor(a), 0.1, 0.3).numpy())
    evaluated = layer.eval()(genesis.tensor(a, device=device))
    np.testing.assert_allclose(_np(evaluated), TF.rrelu(torch.tensor(a), 0.1, 0.3).numpy())


def test_gumbel_softmax_distribution_and_gradient(device):
    genesis.manual_seed(3)
    logits = np.log(np.array([[0.1, 0.2, 0.7]]))
    many = genesis.tensor(np.repeat(logits, 4000, 0), device=device)
    hard = F.gumbel_softmax(many, tau=0.5, hard=True)
    h = _np(hard).astype(np.float64)
    np.testing.assert_allclose(h, np.round(h), atol=1e-6)  # one-hot (y_hard - y + y)
    np.testing.assert_array_equal(np.round(h).sum(1), 1.0)
    np.testing.assert_allclose(h.mean(0), [0.1, 0.2, 0.7], atol=0.03)  # Gumbel-max sampling
    soft = F.gumbel_softmax(many, dim=1)
    np.testing.assert_allclose(_np(soft).sum(1), 1.0, rtol=1e-5)
    assert F.gumbel_softmax(genesis.zeros(0, 3, device=device)).shape == (0, 3)


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_gradient_is_the_soft_samples(hard, dim, device):
    """The noise is recovered from the soft sample; PyTorch with that noise gives the same
    result and gradient (straight-through for hard)."""
    a = _data((4, 5), seed=13)
    x = genesis.tensor(a, device=device, requires_grad=True)
    tau = 0.7
    genesis.manual_seed(5)
    out = F.gumbel_softmax(x, tau=tau, hard=hard, dim=dim)
    genesis.manual_seed(5)
    y_soft = _np(F.gumbel_softmax(x.detach(), tau=tau, dim=dim)).astype(np.float64)
    gumbels = np.log(y_soft) * tau - a  # up to a constant per slice: softmax ignores it
    tx = torch.tensor(a, requires_grad=True)
    t_soft = ((tx + torch.tensor(gumbels)) / tau).softmax(dim)
    if hard:
        index = t_soft.max(dim, keepdim=True)[1]
        t_out = torch.zeros_like(t_soft).scatter_(dim, index, 1.0) - t_soft.detach() + t_soft
    else:
        t_out = t_soft
    np.testing.assert_allclose(_np(out), t_out.detach().numpy(), rtol=1e-9, atol=1e-9)
    v = np.random.default_rng(0).standard_normal(a.shape)
    out.backward(genesis.tensor(v, device=device))
    t_out.backward(torch.tensor(v))
    np.testing.assert_allclose(_np(x.grad), tx.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_gumbel_softmax_eps_is_deprecated(device):
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(genesis.zeros(2, 3, device=device), eps=1e-5)


@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_implicit_dim_warns_and_picks_torchs_dim(name, ndim, device):
    a = _data((2, 3, 4, 5)[:ndim], seed=14)
    with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} has been") as w:
        got = getattr(F, name)(genesis.tensor(a, device=device))
    assert w[0].filename == __file__  # _stacklevel=3: the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(TF, name)(torch.tensor(a))
    assert_close(got, want)


@pytest.mark.parametrize("cls", ["Softmax", "LogSoftmax", "Softmin"])
def test_softmax_modules_implicit_dim_warns_at_the_callers_line(cls, device):
    layer = getattr(nn, cls)()
    assert repr(layer) == f"{cls}(dim=None)"
    a = _data((2, 3), seed=15)
    with pytest.warns(UserWarning, match="Implicit dimension choice") as w:
        got = layer(genesis.tensor(a, device=device))
    assert w[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(got, getattr(torch.nn, cls)()(torch.tensor(a)))


def test_softmax_modules_keep_dim_through_pickle_and_old_state():
    layer = pickle.loads(pickle.dumps(nn.Softmax(dim=2)))
    assert layer.dim == 2
    old = nn.LogSoftmax(1)
    state = dict(old.__dict__)
    del state["dim"]  # pickled before ``dim`` existed
    fresh = nn.LogSoftmax.__new__(nn.LogSoftmax)
    fresh.__setstate__(state)
    assert fresh.dim is None


# ----------------------------------------------------------------------------------------------
# Signatures
# ----------------------------------------------------------------------------------------------

# torch's builtins have no inspectable signature: theirs, written out from their docs.
BUILTIN_SIGNATURES = {
    "relu_": "(input)",
    "elu_": "(input, alpha=1.0)",
    "selu_": "(input)",
    "celu_": "(input, alpha=1.0)",
    "leaky_relu_": "(input, negative_slope=0.01)",
    "prelu": "(input, weight)",
    "rrelu_": "(input, lower=0.125, upper=0.3333333333333333, training=False)",
    "logsigmoid": "(input)",
    "hardshrink": "(input, lambd=0.5)",
    "softshrink": "(input, lambd=0.5)",
    "hardtanh_": "(input, min_val=-1.0, max_val=1.0)",
    "threshold_": "(input, threshold, value)",
}
NAMES = sorted(F._activation.__all__)
# The compiled ones, exported as they are (F.relu is genesis._C._nn.relu ...).
COMPILED = [n for n in NAMES if getattr(F, n).__module__ != F._activation.__name__]


def _shape(sig):
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()]


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("gelu", "softplus")])
def test_signature_is_torchs(name):
    ours = inspect.signature(getattr(F, name))
    if name in BUILTIN_SIGNATURES:
        want = BUILTIN_SIGNATURES[name]
        got = (
            "("
            + ", ".join(
                p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
                for p in ours.parameters.values()
            )
            + ")"
        )
        assert got == want
        return
    theirs = _shape(inspect.signature(getattr(TF, name)))
    mine = _shape(ours)
    if name in COMPILED:  # genesis.sigmoid/tanh also take out=, keyword-only
        mine = [p for p in mine if p[0] != "out" or p[1] != inspect.Parameter.KEYWORD_ONLY]
        mine = [(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, d) for n, _, d in mine]
    assert [(n, k) for n, k, _ in mine] == [(n, k) for n, k, _ in theirs]
    assert [d for _, _, d in mine] == pytest.approx([d for _, _, d in theirs])


def test_gelu_and_softplus_signatures():
    # The compiled ones: gelu's approximate is keyword-only, as torch's.
    x, t = genesis.tensor([-1.0, 1.0]), torch.tensor([-1.0, 1.0])
    with pytest.raises(TypeError):
        F.gelu(x, "tanh")
    assert_close(F.gelu(x, approximate="tanh"), TF.gelu(t, approximate="tanh"))
    assert_close(F.softplus(x, 2, 10), TF.softplus(t, 2, 10))
    assert_close(F.softplus(x, beta=2, threshold=1), TF.softplus(t, beta=2, threshold=1))


def test_every_name_is_exported_by_functional_and_nn():
    want = {
        "relu",
        "relu_",
        "relu6",
        "elu",
        "elu_",
        "selu",
        "selu_",
        "celu",
        "celu_",
        "leaky_relu",
        "leaky_relu_",
        "prelu",
        "rrelu",
        "rrelu_",
        "glu",
        "gelu",
        "logsigmoid",
        "hardshrink",
        "tanhshrink",
        "softsign",
        "softplus",
        "softmin",
        "softmax",
        "log_softmax",
        "softshrink",
        "gumbel_softmax",
        "tanh",
        "sigmoid",
        "hardsigmoid",
        "silu",
        "mish",
        "hardswish",
        "hardtanh",
        "hardtanh_",
        "threshold",
        "threshold_",
    }
    assert want == set(NAMES)
    assert all(callable(getattr(F, n)) for n in want)
    assert set(MODULES) <= set(nn.__all__)


# ----------------------------------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------------------------------

# (constructor call text): built with both libraries by eval.
MODULES = {
    "ReLU": ["()", "(inplace=True)"],
    "ReLU6": ["()", "(True)"],
    "LeakyReLU": ["()", "(0.2)", "(negative_slope=0.1, inplace=True)"],
    "PReLU": ["()", "(num_parameters=4)", "(1, init=0.1)"],
    "RReLU": ["()", "(0.1, 0.3)", "(lower=0.2, upper=0.5, inplace=True)"],
    "ELU": ["()", "(alpha=0.5)", "(2.0, True)"],
    "SELU": ["()", "(inplace=True)"],
    "CELU": ["()", "(alpha=2.0)", "(0.5, inplace=True)"],
    "GELU": ["()", "(approximate='tanh')", "('none')"],
    "SiLU": ["()", "(inplace=True)"],
    "Mish": ["()", "(True)"],
    "Sigmoid": ["()"],
    "Tanh": ["()"],
    "Softmax": ["(dim=1)", "(-1)", "(0)"],
    "LogSoftmax": ["(dim=1)", "(-1)"],
    "Softmin": ["(dim=1)", "(0)"],
    "Softmax2d": ["()"],
    "Softplus": ["()", "(beta=2.0, threshold=5.0)", "(0.5)"],
    "Softsign": ["()"],
    "Hardtanh": ["()", "(-2.0, 0.5)", "(min_val=0.0, max_val=3.0, inplace=True)", "(-1, 1)"],
    "Hardswish": ["()", "(inplace=True)"],
    "Hardsigmoid": ["()", "(True)"],
    "LogSigmoid": ["()"],
    "GLU": ["()", "(dim=1)", "(0)"],
    "Threshold": ["(0.1, 20.0)", "(threshold=-1, value=2, inplace=True)"],
    "Tanhshrink": ["()"],
    "Softshrink": ["()", "(lambd=1.5)", "(0)"],
    "Hardshrink": ["()", "(lambd=1.5)", "(2)"],
}
MODULE_CASES = [(cls, args) for cls, calls in MODULES.items() for args in calls]


@pytest.mark.parametrize("cls, args", MODULE_CASES, ids=[f"{c}{a}" for c, a in MODULE_CASES])
def test_module_matches_torch(cls, args, device):
    g_layer = eval(f"nn.{cls}{args}")
    t_layer = eval(f"torch.nn.{cls}{args}")
    assert repr(g_layer) == repr(t_layer)
    assert list(g_layer.state_dict()) == list(t_layer.state_dict())
    if cls == "PReLU":
        with torch.no_grad():
            t_layer.weight.uniform_(-0.5, 0.5)
        g_layer.load_state_dict(t_layer.state_dict())
    g_layer.to(device).eval()
    t_layer.eval()
    shape = (2, 4, 3, 2)
    a = _data(shape, seed=16).astype(np.float32)
    # In place in a graph: on a non-leaf (a leaf that requires grad is refused by both).
    gx = genesis.tensor(a, device=device, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    g_out, t_out = g_layer(gx * 1), t_layer(tx * 1)
    assert_close(g_out, t_out, RTOL32, ATOL32)
    v = _data(tuple(t_out.shape), seed=17).astype(np.float32)
    g_out.backward(genesis.tensor(v, device=device))
    t_out.backward(torch.tensor(v))
    # atol: torch's vectorized float32 tanh rounds 1 + tanh(u) to 0 sooner (gelu 'tanh').
    assert_close(gx.grad, tx.grad, RTOL32, 1e-5)
    if cls == "PReLU":
        assert_close(g_layer.weight.grad, t_layer.weight.grad, RTOL32, 1e-5)
    if getattr(t_layer, "inplace", False):
        x = genesis.tensor(a, device=device)
        assert g_layer(x) is x


def test_prelu_parameter_init_device_and_dtype(device):
    layer = nn.PReLU(3, init=0.1, device=device, dtype=genesis.float64)
    assert isinstance(layer.weight, nn.Parameter) and layer.weight.requires_grad
    assert layer.weight.shape == (3,) and layer.weight.dtype is genesis.float64
    assert str(layer.weight.device).startswith(device)
    np.testing.assert_array_equal(_np(layer.weight), [0.1, 0.1, 0.1])
    assert layer.num_parameters == 3 and layer.init == 0.1
    with genesis.no_grad():
        layer.weight.fill_(0.7)
    layer.reset_parameters()
    np.testing.assert_allclose(_np(layer.weight), 0.1)
    np.testing.assert_array_equal(_np(nn.PReLU().weight), [0.25])
    assert [n for n, _ in layer.named_parameters()] == ["weight"]


def test_softmax2d_normalizes_over_channels(device):
    for shape in [(3, 4, 5), (2, 3, 4, 5)]:
        a = _data(shape, seed=18)
        check_grads(lambda m, x: m.nn.Softmax2d()(x), [a], device)


def test_hardtanh_module_bounds_and_deprecated_names():
    with pytest.raises(AssertionError, match=r"^\[Hardtanh\] max_val \(1.0\) must be greater"):
        nn.Hardtanh(1.0, 1.0)
    with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
        layer = nn.Hardtanh(min_value=-3.0)
    with pytest.warns(FutureWarning, match="`max_value` is deprecated"):
        layer = nn.Hardtanh(max_value=4.0)
    assert (layer.min_val, layer.max_val) == (-1.0, 4.0)
    assert isinstance(nn.ReLU6(), nn.Hardtanh) and nn.ReLU6().max_val == 6.0


def test_modules_in_a_sequential_model(device):
    """A small model written for torch.nn, run with genesis.nn on torch's parameters."""

    def build(lib):
        return lib.nn.Sequential(
            lib.nn.Linear(6, 8),
            lib.nn.GELU(),
            lib.nn.Linear(8, 8),
            lib.nn.PReLU(),
            lib.nn.Linear(8, 8),
            lib.nn.SiLU(inplace=True),
            lib.nn.Linear(8, 4),
            lib.nn.LogSoftmax(dim=-1),
        )

    t_model, g_model = build(torch), build(genesis)
    g_model.load_state_dict(t_model.state_dict())
    g_model.to(device)
    assert repr(g_model) == repr(t_model)
    a = _data((5, 6), seed=19).astype(np.float32)
    g_out, t_out = g_model(genesis.tensor(a, device=device)), t_model(torch.tensor(a))
    assert_close(g_out, t_out, RTOL32, ATOL32)
    g_out.sum().backward()
    t_out.sum().backward()
    for (name, gp), (_, tp) in zip(g_model.named_parameters(), t_model.named_parameters()):
        assert_close(gp.grad, tp.grad, 1e-4, 1e-5), name


# ----------------------------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------------------------

I64 = genesis.int64


def _raises(exc, op, fn, match=None):
    with pytest.raises(exc, match=match) as e:
        fn()
    check_message(e, op)


@pytest.mark.parametrize("name", [n for n in NAMES if n not in COMPILED])  # compiled: tests/ops
def test_non_tensor_input_raises_type_error(name):
    args = {"threshold": (0.5, 1.0), "threshold_": (0.5, 1.0), "prelu": (genesis.ones(1),)}
    with pytest.raises(TypeError) as e:
        getattr(F, name)([1.0, 2.0], *args.get(name, ()))
    check_message(e)


FLOAT_ONLY = [
    "elu",
    "elu_",
    "selu",
    "selu_",
    "celu",
    "celu_",
    "leaky_relu",
    "leaky_relu_",
    "rrelu",
    "rrelu_",
    "glu",
    "gelu",
    "logsigmoid",
    "hardshrink",
    "softplus",
    "softshrink",
    "hardsigmoid",
    "silu",
    "mish",
    "hardswish",
    "gumbel_softmax",
]


@pytest.mark.parametrize("name", FLOAT_ONLY)
def test_integer_input_of_float_only_functions_raises(name, device):
    x = genesis.tensor([[1, 2], [3, 4]], device=device)
    with pytest.raises(TypeError) as e:
        getattr(F, name)(x)
    check_message(e)
    assert str(e.value).startswith((f"[{name}]", f"[{name.rstrip('_')}]"))


def test_bad_arguments_raise_like_torch(device):
    x = genesis.tensor(_data((2, 3)), device=device)
    _raises(TypeError, "prelu", lambda: F.prelu(x.long(), genesis.ones(1, dtype=I64)))
    _raises(TypeError, "softmax", lambda: F.softmax(x.long(), 1))
    _raises(TypeError, "softmin", lambda: F.softmin(x.long(), 1))
    _raises(TypeError, "softmin", lambda: F.softmin(x > 0, 1))
    _raises(TypeError, "relu6", lambda: F.relu6(x > 0))
    _raises(TypeError, "threshold", lambda: F.threshold(x > 0, 0, 1))
    _raises(TypeError, "prelu", lambda: F.prelu(x, [0.25]))
    _raises(RuntimeError, "glu", lambda: F.glu(genesis.tensor(1.0, device=device)), "scalars")
    _raises(RuntimeError, "glu", lambda: F.glu(x), "dimension 1 is size 3")
    _raises(IndexError, "glu", lambda: F.glu(x, 2), "out of range")
    _raises(IndexError, "softmax", lambda: F.softmax(x, 2), "out of range")
    _raises(IndexError, "log_softmax", lambda: F.log_softmax(x, -3), "out of range")
    _raises(IndexError, "softmin", lambda: F.softmin(x, 5), "out of range")
    _raises(IndexError, "gumbel_softmax", lambda: F.gumbel_softmax(x, dim=2), "out of range")
    w = genesis.ones(4, device=device, dtype=genesis.float64)
    _raises(RuntimeError, "prelu", lambda: F.prelu(x, w), "channel size = 3")
    _raises(RuntimeError, "prelu", lambda: F.prelu(x, w.view(2, 2)), "1D")
    _raises(RuntimeError, "prelu", lambda: F.prelu(x, w[:3].float()), "type promoting")
    _raises(RuntimeError, "prelu", lambda: F.prelu(x[0, 0], w[:3]), "0-d input")
    _raises(RuntimeError, "prelu", lambda: F.prelu(x[0], w[:3]), "channel size = 1")
    _raises(RuntimeError, "softshrink", lambda: F.softshrink(x, -0.5), "lambda")
    _raises(RuntimeError, "celu", lambda: F.celu(x, 0.0), "alpha cannot be 0")
    _raises(RuntimeError, "celu_", lambda: F.celu_(x, 0.0), "alpha cannot be 0")
    _raises(RuntimeError, "rrelu", lambda: F.rrelu(x, 0.5, 0.1), "lower bound")
    _raises(RuntimeError, "rrelu_", lambda: F.rrelu_(x, 0.5, 0.1, True), "lower bound")
    _raises(ValueError, "hardtanh", lambda: F.hardtanh(x, 2.0, 1.0), "min_val")
    _raises(ValueError, "gelu", lambda: F.gelu(x, approximate="exact"), "approximate")
    _raises(ValueError, "Softmax2d", lambda: nn.Softmax2d()(x), "3D or 4D, got 2D")
    _raises(RuntimeError, "prelu", lambda: nn.PReLU(2).to(device).double()(x), "size = 3")
    _raises(RuntimeError, "glu", lambda: nn.GLU()(x))
    # Nothing was written by a refused in-place call.
    before = _np(x).copy()
    _raises(RuntimeError, "celu_", lambda: F.celu(x, 0.0, inplace=True))
    np.testing.assert_array_equal(_np(x), before)
