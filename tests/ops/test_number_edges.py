"""Numbers and dtypes at their edges, against PyTorch: clamp's common dtype and bound checks,
numbers that do not fit an integer result, add/sub's alpha beside 16-bit floats, reductions
with an integer dtype= of floats, and Python ints beyond int64 (the fixes of the differential
fuzz's former KNOWN_BUGS; see Note [Clamp in one dtype] and Note [Integers beyond int64])."""

import math

import numpy as np
import pytest

import genesis

torch = pytest.importorskip("torch")

inf = math.inf


def pair(values, dtype, device="cpu", shape=None):
    """The same values as a genesis and a torch tensor."""
    a = np.array(values, dtype=np.float32 if dtype == "bfloat16" else dtype)
    if shape is not None:
        a = a.reshape(shape)
    g = genesis.tensor(a, dtype=getattr(genesis, dtype), device=device)
    t = torch.tensor(a).to(getattr(torch, dtype))
    return g, t


def same(g, t):
    assert str(g.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (g.dtype, t.dtype)
    assert tuple(g.shape) == tuple(t.shape)
    np.testing.assert_array_equal(
        g.cpu().float().numpy() if g.dtype == genesis.bfloat16 else g.cpu().numpy(),
        t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy(),
    )


@pytest.fixture(params=["cpu", "cuda"])
def device(request):
    if request.param == "cuda" and not genesis.cuda.is_available():
        pytest.skip("no CUDA device available")
    return request.param


# --- clamp: one common dtype -----------------------------------------------------------------


def test_clamp_int_tensor_with_out_of_range_int_and_float_bound(device):
    g, t = pair([1, -7, 9], "int32", device)
    same(genesis.clamp(g, 2**40, 0.5), torch.clamp(t, 2**40, 0.5))


def test_clamp_zero_dim_float_bound_does_not_widen(device):
    g, t = pair([1, 9], "int32", device)
    lo_g, lo_t = pair(3.0, "float32", device)
    hi_g, hi_t = pair([5.0, 6.0], "float16", device)
    r = genesis.clamp(g, lo_g, hi_g)
    assert r.dtype == genesis.float16
    same(r, torch.clamp(t, lo_t, hi_t))


def test_clamp_compares_in_the_promoted_dtype(device):
    g, t = pair([0.0], "float16", device)
    lo_g, lo_t = pair([16383], "int16", device)
    hi_g, hi_t = pair([inf], "bfloat16", device)
    r = genesis.clamp(g, lo_g, hi_g)
    assert r.item() == 16383.0
    same(r, torch.clamp(t, lo_t, hi_t))


@pytest.mark.parametrize(
    "dtype, kwargs",
    [
        ("uint8", {"max": 1e300}),  # the result is float32: 1e300 does not fit it
        ("float32", {"min": -1e300}),
        ("float16", {"max": 2**31}),  # an int bound beyond float16's range
        ("float16", {"min": 1e10}),
        ("int8", {"min": -1000}),
    ],
)
def test_clamp_bounds_must_fit_the_result(dtype, kwargs, device):
    g, t = pair([1, 2], dtype, device)
    try:
        want = torch.clamp(t, **kwargs)
    except RuntimeError:
        with pytest.raises(RuntimeError, match=r"^\[clamp\] value .* without overflow"):
            genesis.clamp(g, **kwargs)
        return
    same(genesis.clamp(g, **kwargs), want)


def test_clamp_in_place_casts_back_or_refuses(device):
    g, t = pair([1.0, 5.0], "float16", device)
    lo_g, lo_t = pair([2.0, 2.0], "float32", device)
    g.clamp_(lo_g, 4)
    t.clamp_(lo_t, torch.tensor(4))
    same(g, t)
    gi, _ = pair([1, 5], "int32", device)
    with pytest.raises(RuntimeError, match=r"^\[clamp_\] result type float32 can't be cast"):
        gi.clamp_(0.5)


def test_clamp_gradient_unchanged_by_promotion():
    x = genesis.tensor([0.5, 2.0, 5.0], dtype=genesis.float16).requires_grad_()
    lo = genesis.tensor([1.0, 1.0, 1.0]).requires_grad_()
    y = genesis.clamp(x, lo, 4)
    assert y.dtype == genesis.float32
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]
    assert lo.grad.tolist() == [1.0, 0.0, 0.0]


# --- numbers that do not fit an integer result -----------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "L.where(x > 0, x, 200)",
        "x ** 256",
        "L.addcmul(x, x, x, value=200)",
        "x.add(1, alpha=300)",
        "x.sub(x, alpha=-129)",
        "x + 200",  # both wrap
    ],
)
def test_numbers_beside_int8(code, device):
    g, t = pair([3, -4], "int8", device)
    got = want = None
    try:
        want = eval(code, {"L": torch, "x": t})
    except RuntimeError as e:
        assert "without overflow" in str(e)
    if want is None:
        with pytest.raises(RuntimeError, match=r"cannot be converted to int8 without overflow"):
            eval(code, {"L": genesis, "x": g})
        return
    got = eval(code, {"L": genesis, "x": g})
    same(got, want)


# --- alpha beside 16-bit floats ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_alpha_product_is_added_in_float32(dtype, device):
    a_g, a_t = pair([inf, 1.0], dtype, device)
    b_g, b_t = pair(-19, "int64", device)
    want = (a_t.float() + 1e10 * b_t.float()).to(getattr(torch, dtype))  # inf, not nan
    same(genesis.add(a_g, b_g, alpha=1e10), want)
    # alpha * other in float32 and the sum rounded once (torch raises for this alpha beside a
    # float16 other, and rounds the product to bfloat16 first)
    c_g, c_t = pair([2.0, -3.0], dtype, device)
    d_g, d_t = pair([60000.0, 1.0], dtype, device)
    want = (d_t.float() - 1e5 * c_t.float()).to(getattr(torch, dtype))
    same(genesis.sub(d_g, c_g, alpha=1e5), want)


def test_alpha_gradients_beside_float16():
    x = genesis.tensor([1.0, 2.0], dtype=genesis.float16).requires_grad_()
    y = genesis.tensor([3.0, 4.0], dtype=genesis.float16).requires_grad_()
    z = genesis.sub(x, y, alpha=2)
    assert z.dtype == genesis.float16 and z.tolist() == [-5.0, -6.0]
    z.sum().backward()
    assert x.grad.dtype == genesis.float16 and x.grad.tolist() == [1.0, 1.0]
    assert y.grad.tolist() == [-2.0, -2.0]


def test_addcmul_converts_integer_operands_to_float16_first(device):
    a_g, a_t = pair([1.0], "float16", device)
    b_g, b_t = pair([0.0], "float16", device)
    c_g, c_t = pair([100000], "int32", device)
    r = genesis.addcmul(a_g, b_g, c_g)
    assert math.isnan(r.item())  # 0 * inf, as torch
    same(r, torch.addcmul(a_t, b_t, c_t))


# --- reductions with an integer dtype= of floats -------------------------------------------------


@pytest.mark.parametrize("op", ["sum", "prod", "nansum"])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_float_reduction_to_integer_dtype_converts_like_to(op, dtype, device):
    g, t = pair([1e10, 2.5, -3.75], "float32", device)
    got = getattr(genesis, op)(g, dtype=getattr(genesis, dtype))
    try:
        want = getattr(torch, op)(t, dtype=getattr(torch, dtype))
    except NotImplementedError:  # torch 2.11 has no integer nansum
        want = torch.sum(t, dtype=getattr(torch, dtype))
    assert got.dtype == getattr(genesis, dtype)
    # each value as .to(dtype) makes it, then reduced (exact for the in-range values)
    conv = g.to(getattr(genesis, dtype))
    assert got.item() == getattr(genesis, op)(conv, dtype=getattr(genesis, dtype)).item()
    if dtype == "int64":
        same(got, want)


# --- Python ints beyond int64 ----------------------------------------------------------------


def test_uint64_range_int_beside_a_float_tensor(device):
    g, t = pair([1.0, -2.0], "float32", device)
    same(g * 2**63, t * 2**63)
    same(genesis.add(g, 2**64 - 1), torch.add(t, 2**64 - 1))
    x_g, x_t = pair([inf, -inf, math.nan], "float32", device)
    same(
        genesis.nan_to_num(x_g, posinf=10**20, neginf=-(10**30)),
        torch.nan_to_num(x_t, posinf=10**20, neginf=-(10**30)),
    )


def test_uint64_range_int_beside_an_integer_tensor_is_a_float(device):
    g, _ = pair([1, 2], "int64", device)
    r = g * 2**63
    assert r.dtype == genesis.float32
    assert r.tolist() == [2.0**63, 2.0**64]
    with pytest.raises(RuntimeError, match=r"without overflow"):
        g.fill_(2**63)
    c = genesis.clamp(g, max=2**63)  # torch raises: 2**63 does not fit int64
    assert c.dtype == genesis.float32 and c.tolist() == [1.0, 2.0]


def test_ints_beyond_uint64_are_refused(device):
    g, _ = pair([1.0], "float32", device)
    with pytest.raises(ValueError, match=r"^\[mul\] value .* is out of range"):
        genesis.mul(g, 2**64)
    with pytest.raises(ValueError, match=r"out of range"):
        g + (-(2**63) - 1)


# --- lerp with a bool weight -------------------------------------------------------------------


@pytest.mark.parametrize("weight", [True, False])
def test_lerp_bool_weight_is_zero_or_one(weight, device):
    s_g, s_t = pair([1.0, 2.0], "float32", device)
    e_g, e_t = pair([3.0, 5.0], "float32", device)
    same(genesis.lerp(s_g, e_g, weight), torch.lerp(s_t, e_t, weight))
    w_g = genesis.tensor(weight)  # a 0-d CPU tensor, also beside CUDA tensors
    same(genesis.lerp(s_g, e_g, w_g), torch.lerp(s_t, e_t, torch.tensor(weight)))
    same(genesis.lerp(s_g, e_g, genesis.tensor(0.25)), torch.lerp(s_t, e_t, torch.tensor(0.25)))
