"""torch.nn.functional's activations (genesis.nn.functional and genesis.gelu ...) and the
elementwise composites lerp, addcmul, addcdiv, clamp_min/clamp_max, nan_to_num, isclose,
allclose and equal, against PyTorch on the CPU from the same NumPy data: values, result dtypes,
the dtypes each refuses, default and other parameters, in-place forms, out=, broadcasting,
non-contiguous and zero-size inputs, on CPU and CUDA.
"""

import numpy as np
import pytest
from conftest import DEVICES, DTYPES, check_message, dtype_id, random_array, to_numpy
from op_reference import assert_close

import genesis
import genesis.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

B, I64 = genesis.bool, genesis.int64
F16, BF16, F32, F64 = genesis.float16, genesis.bfloat16, genesis.float32, genesis.float64
FLOATS = [F16, BF16, F32, F64]
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 25.0, -25.0, 0.5]
TOL = {F16: (2e-3, 1e-3), BF16: (1.6e-2, 1e-2), F32: (1e-5, 1e-6), F64: (1e-12, 1e-14)}

# name -> (genesis call, torch call) over (x, **kwargs)
ACTIVATIONS = {
    "silu": (lambda x: F.silu(x), lambda x: TF.silu(x)),
    "mish": (lambda x: F.mish(x), lambda x: TF.mish(x)),
    "gelu": (lambda x: F.gelu(x), lambda x: TF.gelu(x)),
    "gelu_tanh": (
        lambda x: F.gelu(x, approximate="tanh"),
        lambda x: TF.gelu(x, approximate="tanh"),
    ),
    "softplus": (lambda x: F.softplus(x), lambda x: TF.softplus(x)),
    "softplus_beta": (
        lambda x: F.softplus(x, beta=2.0, threshold=5.0),
        lambda x: TF.softplus(x, beta=2.0, threshold=5.0),
    ),
    "elu": (lambda x: F.elu(x), lambda x: TF.elu(x)),
    "elu_alpha": (lambda x: F.elu(x, alpha=0.3), lambda x: TF.elu(x, alpha=0.3)),
    "leaky_relu": (lambda x: F.leaky_relu(x), lambda x: TF.leaky_relu(x)),
    "leaky_relu_slope": (lambda x: F.leaky_relu(x, 0.2), lambda x: TF.leaky_relu(x, 0.2)),
    "hardtanh": (lambda x: F.hardtanh(x), lambda x: TF.hardtanh(x)),
    "hardtanh_bounds": (
        lambda x: F.hardtanh(x, -0.5, 2.0),
        lambda x: TF.hardtanh(x, -0.5, 2.0),
    ),
    "relu": (lambda x: F.relu(x), lambda x: TF.relu(x)),
}


def torch_of(a, dt):
    t = torch.from_numpy(np.ascontiguousarray(a))
    return t.to(torch.bfloat16) if dt is BF16 else t


def np_of(t):
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


def float_input(dt, shape=(6, 9), seed=0, special=SPECIAL):
    a = random_array(shape, dt, seed) * 4
    flat = a.reshape(-1)
    flat[: len(special)] = np.asarray(special, dtype=flat.dtype)
    return a


@pytest.mark.parametrize("dt", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_matches_torch(device, name, dt):
    ours, theirs = ACTIVATIONS[name]
    # PyTorch 2.11's gelu(+inf) is NaN (2.13's is inf); genesis gives inf (checked below).
    special = [v for v in SPECIAL if v != np.inf] if name.startswith("gelu") else SPECIAL
    a = float_input(dt, special=special) if dt.is_floating_point else random_array((6, 9), dt, 0)
    try:
        want = theirs(torch_of(a, dt))
    except (RuntimeError, TypeError, NotImplementedError):
        with pytest.raises((TypeError, RuntimeError)) as e:
            ours(genesis.from_numpy(a).to(dt).to(device))
        check_message(e)
        return
    got = ours(genesis.from_numpy(a).to(dt).to(device))
    rtol, atol = TOL.get(dt, (None, None))
    assert_close(got, np_of(want), dt, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_layouts(device, name):
    # Non-contiguous (transposed, negative-step) and zero-size inputs, float32.
    ours, theirs = ACTIVATIONS[name]
    a = float_input(F32, (8, 5), seed=3)
    x = genesis.from_numpy(a).to(device)
    for g, t in [
        (x.t(), torch.from_numpy(a).t()),
        (x.flip(0)[::2], torch.from_numpy(a).flip(0)[::2]),
    ]:
        assert_close(ours(g), np_of(theirs(t)), F32, rtol=1e-5, atol=1e-6)
    empty = genesis.zeros(0, 3, device=device)
    assert ours(empty).shape == (0, 3)
    scalar = genesis.tensor(-1.5, device=device)
    assert_close(ours(scalar), np_of(theirs(torch.tensor(-1.5))), F32, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "name, call, torch_call",
    [
        ("silu", lambda x: F.silu(x, inplace=True), lambda x: TF.silu(x, inplace=True)),
        ("mish", lambda x: F.mish(x, inplace=True), lambda x: TF.mish(x, inplace=True)),
        ("relu", lambda x: F.relu(x, inplace=True), lambda x: TF.relu(x, inplace=True)),
        ("elu", lambda x: F.elu(x, 0.5, inplace=True), lambda x: TF.elu(x, 0.5, inplace=True)),
        ("elu_", lambda x: F.elu_(x, 0.5), lambda x: TF.elu_(x, 0.5)),
        ("leaky", lambda x: F.leaky_relu(x, 0.1, True), lambda x: TF.leaky_relu(x, 0.1, True)),
        ("leaky_", lambda x: F.leaky_relu_(x, 0.1), lambda x: TF.leaky_relu_(x, 0.1)),
        ("hardtanh", lambda x: F.hardtanh(x, inplace=True), lambda x: TF.hardtanh(x, inplace=True)),
        ("hardtanh_", lambda x: F.hardtanh_(x, -2, 2), lambda x: TF.hardtanh_(x, -2, 2)),
    ],
)
def test_inplace_activations_write_and_return_the_input(device, name, call, torch_call):
    a = float_input(F32, (4, 6), seed=5)
    base = genesis.from_numpy(a.copy()).to(device)
    view = base[:, 1::2]  # writes through a strided view reach the base
    result = call(view)
    assert result is view
    t = torch.from_numpy(a.copy())
    torch_call(t[:, 1::2])
    assert_close(base, t.numpy(), F32, rtol=1e-6, atol=1e-7)


def test_activation_bad_input(device):
    x = genesis.ones(3, device=device)
    with pytest.raises(ValueError) as e:
        F.gelu(x, approximate="fast")
    check_message(e, "gelu")
    with pytest.raises(ValueError) as e:
        F.hardtanh(x, 2.0, 1.0)
    check_message(e, "hardtanh")
    for fn in (F.silu, F.gelu, F.mish, F.softplus, F.elu, F.leaky_relu):
        with pytest.raises(TypeError) as e:
            fn(genesis.ones(3, dtype=I64, device=device))
        check_message(e)
    with pytest.raises(TypeError) as e:
        F.hardtanh(genesis.ones(3, dtype=B, device=device))
    check_message(e, "hardtanh")
    # Integer tensors: bounds truncate to integers; ones the dtype cannot hold raise (PyTorch).
    i8 = genesis.tensor([-100, 5, 100], dtype=genesis.int8, device=device)
    assert F.hardtanh(i8, -5.5, 3.9).tolist() == [-5, 3, 3]
    for bounds in [(-1e30, 1e30), (-1000.0, 1000.0), (float("nan"), 1.0)]:
        with pytest.raises(RuntimeError) as e:
            F.hardtanh(i8, *bounds)
        check_message(e, "hardtanh")
    # An in-place activation whose result cannot be stored: float result into an int tensor.
    with pytest.raises(TypeError) as e:
        F.silu(genesis.ones(3, dtype=I64, device=device), inplace=True)
    check_message(e)


def test_activations_at_infinity(device):
    x = genesis.tensor([float("inf"), 1e4, -1e4], device=device)
    for name, want in [
        ("gelu", [np.inf, 1e4, 0.0]),
        ("silu", [np.inf, 1e4, 0.0]),
        ("softplus", [np.inf, 1e4, 0.0]),
        ("mish", [np.inf, 1e4, 0.0]),
        ("elu", [np.inf, 1e4, -1.0]),
    ]:
        got = to_numpy(getattr(F, name)(x).cpu())
        np.testing.assert_allclose(np.abs(got), np.abs(want), err_msg=name)
    assert to_numpy(F.gelu(x, approximate="tanh").cpu())[0] == np.inf


def test_activations_are_also_top_level_functions():
    # elu and softmax are Python wrappers in F (PyTorch's inplace= and dtype= signatures)
    for name in ("gelu", "silu", "mish", "softplus", "leaky_relu", "hardtanh"):
        assert getattr(genesis, name) is getattr(F, name)
    assert F.sigmoid is genesis.sigmoid


# ---- composites -------------------------------------------------------------------------


@pytest.mark.parametrize("dt", FLOATS, ids=dtype_id)
def test_lerp(device, dt):
    a, b = float_input(dt, (5, 4), 1), random_array((4,), dt, 2)
    w = random_array((5, 4), dt, 3, low=-0.5, high=1.5)
    ga, gb, gw = (genesis.from_numpy(v).to(dt).to(device) for v in (a, b, w))
    ta, tb, tw = (torch_of(v, dt) for v in (a, b, w))
    rtol, atol = TOL[dt]
    for weight, tweight in [(0.25, 0.25), (0.75, 0.75), (1.0, 1.0), (gw, tw)]:
        want = np_of(torch.lerp(ta, tb, tweight))
        assert_close(genesis.lerp(ga, gb, weight), want, dt, rtol=rtol, atol=atol)
        assert_close(ga.lerp(gb, weight), want, dt, rtol=rtol, atol=atol)
    x = ga.clone()
    assert x.lerp_(gb, 0.5) is x
    assert_close(x, np_of(ta.clone().lerp_(tb, 0.5)), dt, rtol=rtol, atol=atol)
    out = genesis.empty(5, 4, dtype=dt, device=device)
    assert genesis.lerp(ga, gb, 0.3, out=out) is out


def test_lerp_bad_input(device):
    f, d = genesis.ones(3, device=device), genesis.ones(3, dtype=F64, device=device)
    with pytest.raises(TypeError) as e:
        genesis.lerp(f, d, 0.5)
    check_message(e, "lerp")
    with pytest.raises(TypeError) as e:
        genesis.lerp(genesis.ones(3, dtype=I64), genesis.ones(3, dtype=I64), 0.5)
    check_message(e, "lerp")
    with pytest.raises(ValueError) as e:
        genesis.lerp(f, genesis.ones(4, device=device), 0.5)
    check_message(e, "lerp")


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("dt", [genesis.int32, I64, F16, BF16, F32, F64], ids=dtype_id)
def test_addcmul_addcdiv(device, op, dt):
    low = 1 if dt.is_floating_point else 1
    a = random_array((3, 4), dt, 1, low=-9, high=9)
    b = random_array((4,), dt, 2, low=-9, high=9)
    c = random_array((3, 1), dt, 3, low=low, high=9)
    g = [genesis.from_numpy(v).to(dt).to(device) for v in (a, b, c)]
    t = [torch_of(v, dt) for v in (a, b, c)]
    value = 2 if not dt.is_floating_point else 0.5
    tfn = getattr(torch, op)
    try:
        want = tfn(*t, value=value)
    except RuntimeError:
        with pytest.raises(TypeError) as e:
            getattr(genesis, op)(*g, value=value)
        check_message(e, op)
        return
    rtol, atol = TOL.get(dt, (None, None))
    assert_close(getattr(genesis, op)(*g, value=value), np_of(want), dt, rtol=rtol, atol=atol)
    assert_close(getattr(g[0], op)(g[1], g[2], value=value), np_of(want), dt, rtol=rtol, atol=atol)
    x = g[0].clone()
    assert getattr(x, op + "_")(g[1], g[2], value=value) is x
    assert_close(x, np_of(want), dt, rtol=rtol, atol=atol)


def test_addc_bad_input(device):
    i = genesis.ones(3, dtype=I64, device=device)
    with pytest.raises(TypeError) as e:
        genesis.addcmul(i, i, i, value=0.5)
    check_message(e, "addcmul")
    with pytest.raises(TypeError) as e:
        genesis.addcdiv(i, i, i)
    check_message(e, "addcdiv")


@pytest.mark.parametrize("dt", DTYPES, ids=dtype_id)
def test_clamp_min_max(device, dt):
    if dt is B:
        return
    a = random_array((4, 5), dt, 4, low=0 if dt is genesis.uint8 else -20, high=20)
    g, t = genesis.from_numpy(a).to(dt).to(device), torch_of(a, dt)
    lo, hi = (3, 7) if not dt.is_floating_point else (-1.5, 2.5)
    if dt is genesis.uint8:
        lo, hi = 3, 7
    assert_close(genesis.clamp_min(g, lo), np_of(torch.clamp_min(t, lo)), dt)
    assert_close(g.clamp_max(hi), np_of(t.clamp_max(hi)), dt)
    x = g.clone()
    assert x.clamp_min_(lo) is x
    assert_close(x, np_of(t.clone().clamp_min_(lo)), dt)
    low = 0 if dt is genesis.uint8 else -5
    bound = genesis.from_numpy(random_array((5,), dt, 5, low=low, high=5)).to(dt).to(device)
    want = torch.clamp_max(t, torch_of(to_numpy(bound.cpu()), dt))
    assert_close(genesis.clamp_max(g, bound), np_of(want), dt)


@pytest.mark.parametrize("dt", DTYPES, ids=dtype_id)
def test_nan_to_num(device, dt):
    a = float_input(dt) if dt.is_floating_point else random_array((6, 9), dt, 0)
    g, t = genesis.from_numpy(a).to(dt).to(device), torch_of(a, dt)
    for kwargs in ({}, {"nan": 1.5, "posinf": 100.0}, {"neginf": -7.0}):
        assert_close(genesis.nan_to_num(g, **kwargs), np_of(torch.nan_to_num(t, **kwargs)), dt)
        assert_close(g.nan_to_num(**kwargs), np_of(t.nan_to_num(**kwargs)), dt)
    x = g.clone()
    assert x.nan_to_num_(nan=2.0) is x
    assert_close(x, np_of(t.clone().nan_to_num_(nan=2.0)), dt)


@pytest.mark.parametrize("dt", DTYPES, ids=dtype_id)
def test_isclose_allclose(device, dt):
    a = float_input(dt) if dt.is_floating_point else random_array((6, 9), dt, 0)
    b = a.copy()
    if dt.is_floating_point:
        noise = random_array(a.shape, F64, 7) * 1e-3
        b = (a.astype(np.float64) * (1 + noise)).astype(a.dtype)
    elif dt is not B:
        b = (a.astype(np.int64) + (random_array(a.shape, I64, 8, low=0, high=2))).astype(a.dtype)
    g = [genesis.from_numpy(v).to(dt).to(device) for v in (a, b)]
    t = [torch_of(v, dt) for v in (a, b)]
    for kw in ({}, {"rtol": 1e-2}, {"atol": 1.0}, {"equal_nan": True}):
        want = torch.isclose(*t, **kw)
        assert_close(genesis.isclose(*g, **kw), want.numpy(), B)
        assert_close(g[0].isclose(g[1], **kw), want.numpy(), B)
        assert genesis.allclose(*g, **kw) == torch.allclose(*t, **kw)
        assert g[0].allclose(g[1], **kw) == t[0].allclose(t[1], **kw)


@pytest.mark.parametrize("dt", [F32, F64, genesis.float16, genesis.bfloat16], ids=dtype_id)
def test_isclose_with_infinities_and_nan(device, dt):
    # An infinite `other` made the tolerance infinite: every finite x was close to inf, and inf
    # close to -inf. As torch and NumPy: an infinity is close only to itself; NaN only with
    # equal_nan.
    inf, nan = float("inf"), float("nan")
    pairs = [
        (1.0, inf),
        (-1e4, -inf),
        (inf, -inf),
        (-inf, inf),
        (inf, inf),
        (-inf, -inf),
        (inf, 1.0),
        (nan, nan),
        (nan, 1.0),
        (1.0, nan),
        (inf, nan),
        (0.0, -0.0),
        (1.0, 1.0),
    ]
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    g = [genesis.tensor(v, device=device).to(dt) for v in (a, b)]
    tdt = {F32: torch.float32, F64: torch.float64, genesis.float16: torch.float16}.get(
        dt, torch.bfloat16
    )
    t = [torch.tensor(v).to(tdt) for v in (a, b)]
    for kw in ({}, {"equal_nan": True}, {"rtol": 10.0, "atol": 100.0}):
        want = torch.isclose(*t, **kw).numpy()
        assert to_numpy(genesis.isclose(*g, **kw)).tolist() == want.tolist(), kw
        assert want.tolist() == np.isclose(a, b, **kw).tolist()  # the reference agrees with NumPy
    x = genesis.tensor([1.0, 2.0], device=device).to(dt)
    assert not genesis.allclose(x, genesis.tensor([inf, inf], device=device).to(dt))
    assert not genesis.allclose(
        genesis.tensor([inf], device=device), genesis.tensor([-inf], device=device)
    )
    assert genesis.allclose(
        genesis.tensor([inf, nan], device=device),
        genesis.tensor([inf, nan], device=device),
        equal_nan=True,
    )


def test_isclose_bad_input(device):
    with pytest.raises(TypeError) as e:
        genesis.isclose(genesis.ones(2, device=device), genesis.ones(2, dtype=F64, device=device))
    check_message(e, "isclose")
    with pytest.raises(ValueError) as e:
        genesis.isclose(genesis.ones(2, device=device), genesis.ones(2, device=device), rtol=-1)
    check_message(e, "isclose")


def test_equal(device):
    a = genesis.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    assert genesis.equal(a, a.clone()) and a.equal(a.t().t())
    assert not genesis.equal(a, a.t())
    assert not genesis.equal(a, a.reshape(4))
    assert genesis.equal(a, genesis.tensor([[1, 2], [3, 4]], device=device))  # promotes
    nan = genesis.tensor([float("nan")], device=device)
    assert not genesis.equal(nan, nan)
    assert genesis.equal(genesis.zeros(0, 2, device=device), genesis.zeros(0, 2, device=device))
    assert torch.equal(torch.tensor([1.0, 2.0]), torch.tensor([1, 2]))


@pytest.mark.parametrize("device", DEVICES)
def test_composites_write_out(device):
    a = genesis.tensor([float("nan"), 1.0, float("inf")], device=device)
    out = genesis.empty(3, device=device)
    assert genesis.nan_to_num(a, out=out) is out
    assert to_numpy(out.cpu())[0] == 0.0
    wrong = genesis.empty(4, device=device)  # resized with PyTorch's warning
    with pytest.warns(UserWarning, match=r"^\[clamp_min\] An output with one or more elements"):
        genesis.clamp_min(a, 0.0, out=wrong)
    assert wrong.shape == (3,)


def test_softplus_of_16_bit_floats_with_beta_computes_in_float32(device):
    # exp(beta * x) overflowed float16 below the threshold: softplus(5.7, beta=2) was inf.
    for dt, tdt in ((F16, torch.float16), (BF16, torch.bfloat16)):
        x = genesis.tensor([5.7, -3.0, 12.0], device=device).to(dt)
        want = TF.softplus(torch.tensor([5.7, -3.0, 12.0]).to(tdt), beta=2.0)
        assert_close(F.softplus(x, beta=2.0), np_of(want), dt)


def test_lerp_takes_a_0d_weight_of_any_dtype_as_a_number(device):
    a = genesis.tensor([1.0, 3.0], device=device).to(F16)
    b = genesis.tensor([2.0, 7.0], device=device).to(F16)
    for w in (genesis.tensor(0.25), genesis.tensor(0.25, dtype=F64), genesis.tensor(2, dtype=I64)):
        w = w.to(device)
        got = genesis.lerp(a, b, w)
        want = torch.lerp(
            torch.tensor([1.0, 3.0]).half(), torch.tensor([2.0, 7.0]).half(), torch.tensor(w.item())
        )
        assert got.dtype == F16 and to_numpy(got).tolist() == want.float().tolist()
    with pytest.raises(TypeError, match=r"^\[lerp\] expected weight of dtype"):
        genesis.lerp(a, b, genesis.tensor([0.5, 0.5], device=device))
