"""Elementwise ops against NumPy, with PyTorch's semantics (type promotion, signs, errors).

Binary ops (operators, reflected and in-place forms, methods, genesis.* functions), unary ops,
clamp, type promotion with 0-d tensors and Python scalars, broadcasting, non-contiguous and
negative-stride operands, NaN/inf, integer division by zero, and the errors. 16-bit floats are
computed in float32 and rounded once, so they are compared with a tolerance of an ulp or two.
"""

import operator
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import (
    DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    NP_DTYPE,
    check_message,
    dtype_id,
    random_array,
    requires_cuda,
    to_numpy,
)
from op_reference import (
    ATOL_TRANSCENDENTAL,
    RTOL,
    RTOL_TRANSCENDENTAL,
    as_compute,
    assert_close,
    finish,
    result_type,
)

import genesis

B, U8, I8, I16, I32, I64 = (
    genesis.bool,
    genesis.uint8,
    genesis.int8,
    genesis.int16,
    genesis.int32,
    genesis.int64,
)
F16, BF16, F32, F64 = genesis.float16, genesis.bfloat16, genesis.float32, genesis.float64

# name -> (operator, in-place operator, NumPy reference)
BINARY = {
    "add": (operator.add, operator.iadd, np.add),
    "sub": (operator.sub, operator.isub, np.subtract),
    "mul": (operator.mul, operator.imul, np.multiply),
    "div": (operator.truediv, operator.itruediv, np.true_divide),
    "floor_divide": (operator.floordiv, operator.ifloordiv, np.floor_divide),
    "remainder": (operator.mod, operator.imod, np.remainder),
    "pow": (operator.pow, operator.ipow, np.power),
    "eq": (operator.eq, None, np.equal),
    "ne": (operator.ne, None, np.not_equal),
    "lt": (operator.lt, None, np.less),
    "le": (operator.le, None, np.less_equal),
    "gt": (operator.gt, None, np.greater),
    "ge": (operator.ge, None, np.greater_equal),
    "bitwise_and": (operator.and_, operator.iand, np.bitwise_and),
    "bitwise_or": (operator.or_, operator.ior, np.bitwise_or),
    "bitwise_xor": (operator.xor, operator.ixor, np.bitwise_xor),
    "maximum": (None, None, np.maximum),
    "minimum": (None, None, np.minimum),
}
COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}
BITWISE = {"bitwise_and", "bitwise_or", "bitwise_xor"}
# PyTorch has no bool kernels for these (a bool result type raises).
NO_BOOL_RESULT = {"sub", "floor_divide", "remainder", "pow"}
INPLACE = [n for n, spec in BINARY.items() if spec[1] is not None]


def supported(name, *dtypes_or_scalars, rt):
    """Whether PyTorch computes op `name` on these operands (rt: their result type)."""
    if name in BITWISE and rt.is_floating_point:
        return False
    if name in NO_BOOL_RESULT and rt is B:
        return False
    if name == "sub":  # torch refuses any bool operand of '-'
        for x in dtypes_or_scalars:
            if x is B or isinstance(x, bool):
                return False
    return True


def operand(name, role, dtype, shape, seed):
    """NumPy data for operand `role` ('a' left, 'b' right) of op `name`, kept clear of
    integer overflow that C++ leaves undefined (int32/int64) and of negative integer powers."""
    if name == "pow" and dtype is not B:
        if dtype.is_floating_point:
            if role == "a":
                return random_array(shape, dtype, seed, low=-4, high=4)
            v = random_array(shape, dtype, seed, low=-2, high=3)
            v.flat[::2] = np.round(v.flat[::2])  # integer exponents too
            return v
        lo = 0 if (dtype is U8 or role == "b") else -4
        return random_array(shape, dtype, seed, low=lo, high=4 if role == "a" else 5)
    if dtype is I32 and name in ("add", "sub"):
        return random_array(shape, dtype, seed, low=-(2**29), high=2**29)
    if dtype is I32 and name == "mul":
        return random_array(shape, dtype, seed, low=-(2**15), high=2**15)
    if dtype is I64 and name == "mul":
        return random_array(shape, dtype, seed, low=-(2**31), high=2**31)
    return random_array(shape, dtype, seed)


def expected_binary(name, a, b, rt):
    """(expected values, expected dtype) of op(a, b) for operands of result type rt."""
    compute = F32 if (name == "div" and not rt.is_floating_point) else rt
    out = B if name in COMPARISONS else compute
    with np.errstate(all="ignore"):
        r = BINARY[name][2](as_compute(a, compute), as_compute(b, compute))
    return finish(r, out), out


def tolerance(name, dtype, a=None):
    """(rtol, atol) for a float result of op `name`."""
    if not dtype.is_floating_point:
        return None, None
    if name == "pow":
        return RTOL_TRANSCENDENTAL[dtype], ATOL_TRANSCENDENTAL[dtype]
    if name in ("remainder", "floor_divide") and a is not None:
        # x - y * floor(x / y) and fmod-based formulas differ by an ulp of x.
        scale = float(np.max(np.abs(np.asarray(a, dtype=np.float64)), initial=1.0))
        return RTOL[dtype], 4 * RTOL[dtype] * scale
    return RTOL[dtype], 0.0


def check_binary(name, got, a, b, rt):
    want, out = expected_binary(name, a, b, rt)
    rtol, atol = tolerance(name, out, a)
    assert_close(got, want, out, rtol=rtol, atol=atol)


def spellings(name, x, y):
    """op(x, y) by every spelling: operator, method and genesis function."""
    op = BINARY[name][0]
    results = {}
    if op is not None:
        results["operator"] = op(x, y)
    results["method"] = getattr(x, name)(y)
    results["function"] = getattr(genesis, name)(x, y)
    return results


def make(a, dtype, device):
    return genesis.tensor(a, dtype=dtype, device=device)


def cases(names, dtypes, ok):
    return [pytest.param(n, d, id=f"{n}-{dtype_id(d)}") for n in names for d in dtypes if ok(n, d)]


# --- binary: tensor with tensor ---


@pytest.mark.parametrize("name, dt", cases(BINARY, DTYPES, lambda n, d: supported(n, d, d, rt=d)))
def test_binary_same_dtype(device, name, dt):
    a = operand(name, "a", dt, (3, 5), seed=1)
    b = operand(name, "b", dt, (3, 5), seed=2)
    if name in COMPARISONS or name in ("maximum", "minimum"):
        b.flat[::3] = a.flat[::3]  # equal elements too
    x, y = make(a, dt, device), make(b, dt, device)
    for form, got in spellings(name, x, y).items():
        try:
            check_binary(name, got, a, b, dt)
        except AssertionError as e:
            raise AssertionError(f"{form}: {e}") from None


MIXED = [
    (I8, U8),
    (B, I16),
    (U8, I64),
    (I32, F16),
    (I64, BF16),
    (F16, BF16),
    (F32, F64),
    (B, F32),
    (I16, I32),
    (F16, F32),
]


@pytest.mark.parametrize("pair", MIXED, ids=lambda p: f"{dtype_id(p[0])}-{dtype_id(p[1])}")
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_mixed_dtypes(device, name, pair):
    da, db = pair
    rt = genesis.promote_types(da, db)
    if not supported(name, da, db, rt=rt):
        pytest.skip("not defined for these dtypes (errors are tested below)")
    a = operand(name, "a", da, (4, 3), seed=3)
    b = operand(name, "b", db, (4, 3), seed=4)
    x, y = make(a, da, device), make(b, db, device)
    assert result_type(x, y) is rt
    for form, got in spellings(name, x, y).items():
        try:
            check_binary(name, got, a, b, rt)
        except AssertionError as e:
            raise AssertionError(f"{form}: {e}") from None
    # Both orders (not pow: integer tensors to negative tensor powers have no NumPy reference).
    if BINARY[name][0] is not None and name != "pow":
        check_binary(name, BINARY[name][0](y, x), b, a, rt)


# --- binary: tensor with Python scalar (and reflected) ---

SCALARS = [3, -3, 2.5, True]


def scalar_ok(name, dt, s, reflected):
    rt = result_type(genesis.empty(1, dtype=dt), s)
    if not supported(name, dt, s, rt=rt):
        return False
    if name == "pow" and not reflected and not rt.is_floating_point and s < 0:
        return False  # integers to negative integer powers raise (tested below)
    return True


@pytest.mark.parametrize("name", [n for n in BINARY if BINARY[n][0] is not None])
def test_binary_python_scalar(device, name, dtype):
    op = BINARY[name][0]
    checked = 0
    for s in SCALARS:
        for reflected in (False, True):
            if not scalar_ok(name, dtype, s, reflected):
                continue
            a = operand(name, "b" if reflected else "a", dtype, (2, 5), seed=5)
            x = make(a, dtype, device)
            rt = result_type(x, s)
            try:
                if reflected:
                    check_binary(name, op(s, x), s, a, rt)
                else:
                    check_binary(name, op(x, s), a, s, rt)
                    check_binary(name, getattr(x, name)(s), a, s, rt)
                    check_binary(name, getattr(genesis, name)(x, s), a, s, rt)
            except AssertionError as e:
                what = f"{s!r} {name} t" if reflected else f"t {name} {s!r}"
                raise AssertionError(f"{what}: {e}") from None
            checked += 1
    if not checked:
        pytest.skip("no scalar form is defined for this dtype")


@pytest.mark.parametrize(
    "dt, s, want",
    [
        (I32, 2.5, F32),
        (F16, 2.5, F16),
        (BF16, 2.5, BF16),
        (U8, 1000, U8),
        (I8, 3, I8),
        (B, True, B),
        (B, 1, I64),
        (B, 1.5, F32),
        (I64, True, I64),
        (F64, 3, F64),
    ],
    ids=str,
)
def test_scalar_does_not_widen_within_category(device, dt, s, want):
    a = random_array((4,), dt, seed=6)
    x = make(a, dt, device)
    assert result_type(x, s) is want
    got = x + s
    assert got.dtype is want
    check_binary("add", got, a, s, want)
    check_binary("add", s + x, s, a, want)


def test_uint8_plus_large_int_wraps(device):
    x = make(np.array([1, 200, 255], np.uint8), U8, device)
    assert_close(x + 1000, np.array([233, 176, 231], np.uint8), U8)
    assert_close(x - 3, np.array([254, 197, 252], np.uint8), U8)


def test_bool_tensor_with_python_bool(device):
    x = make(np.array([True, False, True, False]), B, device)
    assert_close(x + True, np.array([True, True, True, True]), B)
    assert_close(x * True, np.array([True, False, True, False]), B)
    assert_close(x & True, np.array([True, False, True, False]), B)
    assert_close(x | False, np.array([True, False, True, False]), B)
    assert_close(x ^ True, np.array([False, True, False, True]), B)
    assert_close(x + 1, np.array([2, 1, 2, 1]), I64)


# --- type promotion with 0-d tensors ---

ZERO_DIM = [
    # (dims of the left operand, dtype, dims of the right operand, dtype)
    ((3,), I32, (), I64),
    ((3,), F16, (), F64),
    ((3,), I8, (), F64),
    ((3,), U8, (), I8),
    ((3,), B, (), I32),
    ((3,), B, (), F16),
    ((3,), F32, (), B),
    ((3,), I64, (), F16),
    ((), F16, (), I64),
    ((), I32, (), F64),
    ((), I16, (3,), U8),
    ((), F64, (3,), I16),
    ((2, 1), BF16, (), F32),
]


@pytest.mark.parametrize("case", ZERO_DIM, ids=str)
def test_zero_dim_tensor_promotion(device, case):
    sa, da, sb, db = case
    a = random_array(
        sa, da, seed=7, low=1 if da is not B else None, high=9 if da is not B else None
    )
    b = random_array(
        sb, db, seed=8, low=1 if db is not B else None, high=9 if db is not B else None
    )
    x, y = make(a, da, device), make(b, db, device)
    rt = result_type(x, y)
    for name in ["add", "mul", "div", "lt", "maximum", "sub"]:
        if not supported(name, da, db, rt=rt):
            continue
        for form, got in spellings(name, x, y).items():
            try:
                check_binary(name, got, a, b, rt)
            except AssertionError as e:
                raise AssertionError(f"{name} {form}: {e}") from None


def test_result_type_helper_matches_torch():
    """The test's result_type (and genesis.promote_types) agree with torch.result_type."""
    torch = pytest.importorskip("torch")

    def to_torch(x):
        if isinstance(x, genesis.Tensor):
            return torch.zeros(tuple(x.shape), dtype=getattr(torch, x.dtype.name))
        return x

    ops = []
    for d in DTYPES:
        ops += [genesis.empty(2, dtype=d), genesis.empty((), dtype=d)]
    scalars = [True, 3, 2.5]
    for x in ops:
        for y in ops + scalars:
            want = torch.result_type(to_torch(x), to_torch(y))
            got = result_type(x, y)
            assert got.name == str(want).replace("torch.", ""), (x.dtype, x.ndim, y, got, want)


def test_genesis_result_type_matches_helper():
    ops = []
    for d in DTYPES:
        ops += [genesis.empty(2, dtype=d), genesis.empty((), dtype=d)]
    for x in ops:
        for y in ops + [True, 3, 2.5]:
            assert genesis.result_type(x, y) is result_type(x, y), (x.dtype, x.ndim, y)


def test_true_division_of_integers_gives_float32(device):
    for dt in [B, U8, I8, I16, I32, I64]:
        a = random_array((5,), dt, seed=9, low=None if dt is B else 1, high=None if dt is B else 50)
        b = np.ones(5, dtype=NP_DTYPE[dt])
        x, y = make(a, dt, device), make(b, dt, device)
        for got in [x / y, x.div(y), genesis.div(x, y), genesis.true_divide(x, y), x / 2]:
            assert got.dtype is F32, (dt, got.dtype)
    x = make(np.array([7, -7, 0], np.int32), I32, device)
    assert_close(x / 2, np.array([3.5, -3.5, 0.0], np.float32), F32)
    assert_close(x / 0, np.array([np.inf, -np.inf, np.nan], np.float32), F32)


# --- integer and float division, remainder ---


@pytest.mark.parametrize("dt", [I8, I16, I32, I64], ids=dtype_id)
def test_integer_floor_division_and_remainder_signs(device, dt):
    a = np.array([7, -7, 7, -7, 6, -6, 0], NP_DTYPE[dt])
    b = np.array([2, 2, -2, -2, 3, -3, 5], NP_DTYPE[dt])
    x, y = make(a, dt, device), make(b, dt, device)
    assert_close(x // y, np.array([3, -4, -4, 3, 2, 2, 0]), dt)
    assert_close(x % y, np.array([1, 1, -1, -1, 0, 0, 0]), dt)
    assert_close(genesis.floor_divide(x, y), np.array([3, -4, -4, 3, 2, 2, 0]), dt)
    assert_close(genesis.remainder(x, y), np.array([1, 1, -1, -1, 0, 0, 0]), dt)
    assert_close(x.div(y, rounding_mode="floor"), np.array([3, -4, -4, 3, 2, 2, 0]), dt)
    assert_close(x.div(y, rounding_mode="trunc"), np.array([3, -3, -3, 3, 2, 2, 0]), dt)
    assert_close(genesis.div(x, y, rounding_mode="trunc"), np.array([3, -3, -3, 3, 2, 2, 0]), dt)
    assert_close(x // -2, np.array([-4, 3, -4, 3, -3, 3, 0]), dt)
    assert_close(x % -2, np.array([-1, -1, -1, -1, 0, 0, 0]), dt)
    assert_close(-7 // y, np.array([-4, -4, 3, 3, -3, 2, -2]), dt)
    assert_close(-7 % y, np.array([1, 1, -1, -1, 2, -1, 3]), dt)


@pytest.mark.parametrize("dt", FLOAT_DTYPES, ids=dtype_id)
def test_float_floor_division_and_remainder_signs(device, dt):
    a = np.array([7.5, -7.5, 7.5, -7.5, 6.0, 0.0], np.float32)
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 4.0], np.float32)
    x, y = make(a, dt, device), make(b, dt, device)
    assert_close(x // y, finish(np.array([3.0, -4.0, -4.0, 3.0, 2.0, 0.0]), dt), dt)
    assert_close(x % y, finish(np.array([1.5, 0.5, -0.5, -1.5, 0.0, 0.0]), dt), dt)
    assert_close(x.div(y, rounding_mode="trunc"), finish(np.array([3, -3, -3, 3, 2, 0.0]), dt), dt)
    assert_close(x.div(y, rounding_mode="floor"), finish(np.array([3, -4, -4, 3, 2, 0.0]), dt), dt)
    assert_close(x % -2, finish(np.array([-0.5, -1.5, -0.5, -1.5, 0.0, 0.0]), dt), dt)


def test_float_division_by_zero_like_torch(device):
    x = make(np.array([1.0, -1.0, 0.0], np.float32), F32, device)
    assert_close(x / 0, np.array([np.inf, -np.inf, np.nan], np.float32), F32)
    assert_close(x // 0, np.array([np.inf, -np.inf, np.nan], np.float32), F32)
    assert_close(x % 0, np.array([np.nan, np.nan, np.nan], np.float32), F32)


def test_integer_division_overflow_does_not_crash(device):
    # INT_MIN // -1 and INT_MIN % -1 trap (SIGFPE) on x86 when done naively: a child process.
    code = (
        "import genesis\n"
        "for dt, lo in [(genesis.int32, -2**31), (genesis.int64, -2**63), (genesis.int8, -128)]:\n"
        f"    x = genesis.tensor([lo] * 9, dtype=dt, device={device!r})\n"
        "    m = genesis.full((9,), -1, dtype=dt, device=x.device)\n"
        "    print((x // m).tolist()[0] == lo, (x % m).tolist()[0] == 0,"
        " (x // -1).tolist()[0] == lo, (x % -1).tolist()[0] == 0,"
        " x.div(m, rounding_mode='trunc').tolist()[0] == lo)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(genesis.__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env
    )
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    # torch wraps: INT_MIN // -1 == INT_MIN, INT_MIN % -1 == 0
    assert r.stdout.split() == ["True"] * 15, r.stdout


@pytest.mark.parametrize("dt", INT_DTYPES, ids=dtype_id)
def test_integer_division_by_zero_gives_zero(device, dt):
    # genesis's documented choice (torch's CPU raises ZeroDivisionError): 0, on both devices.
    a = np.array([7, 0, 5, 100] if dt is U8 else [7, -7, 5, 100], NP_DTYPE[dt])
    b = np.array([0, 0, 2, 0], NP_DTYPE[dt])
    x, y = make(a, dt, device), make(b, dt, device)
    assert_close(x // y, np.array([0, 0, 2, 0]), dt)
    assert_close(x % y, np.array([0, 0, 1, 0]), dt)
    assert_close(x // 0, np.zeros(4), dt)
    assert_close(x % 0, np.zeros(4), dt)
    z = x.clone()
    z //= 0
    assert_close(z, np.zeros(4), dt)
    z = x.clone()
    z %= y
    assert_close(z, np.array([0, 0, 1, 0]), dt)
    # The process is fine afterwards.
    assert_close(x + 1, a + np.array(1, a.dtype), dt)


def test_div_rounding_mode_errors(device):
    x = make(np.array([1.0, 2.0], np.float32), F32, device)
    with pytest.raises((ValueError, RuntimeError)) as e:
        x.div(2, rounding_mode="round")
    check_message(e)
    with pytest.raises((ValueError, RuntimeError)):
        genesis.div(x, x, rounding_mode="bad")


# --- pow ---


def test_pow_forms(device):
    a = np.array([1.0, 2.0, 3.0, 0.5], np.float32)
    x = make(a, F32, device)
    assert_close(x**2, a**2, F32)
    assert_close(x.pow(2), a**2, F32)
    assert_close(genesis.pow(x, 0.5), np.sqrt(a), F32, rtol=4e-6)
    assert_close(2**x, np.float32(2) ** a, F32, rtol=4e-6)
    assert_close(x**-1, (1 / a).astype(np.float32), F32, rtol=4e-6)
    assert_close(x**x, a**a, F32, rtol=4e-6)
    assert_close(x**0, np.ones(4, np.float32), F32)
    i = make(np.array([0, 1, 2, -3], np.int64), I64, device)
    assert_close(i**0, np.array([1, 1, 1, 1]), I64)
    assert_close(i**3, np.array([0, 1, 8, -27]), I64)
    assert_close(2 ** i.abs(), np.array([1, 2, 4, 8]), I64)
    assert_close(i**2.5, np.array([0, 1, 2**2.5, np.nan], np.float32), F32, rtol=4e-6)
    assert_close(2.0 ** i.abs(), np.array([1, 2, 4, 8], np.float32), F32)


@pytest.mark.parametrize("dt", INT_DTYPES, ids=dtype_id)
def test_integer_to_negative_integer_power_raises(device, dt):
    x = make(np.array([1, 2, 3], NP_DTYPE[dt]), dt, device)
    for f in [
        lambda: x**-1,
        lambda: x.pow(-2),
        lambda: genesis.pow(x, -1),
        lambda: x.pow_(-1),
    ]:
        with pytest.raises(RuntimeError) as e:
            f()
        check_message(e)
    assert_close(x, np.array([1, 2, 3]), dt)


# --- bitwise ---


@pytest.mark.parametrize("dt", [B, *INT_DTYPES], ids=dtype_id)
def test_invert(device, dt):
    a = random_array((3, 4), dt, seed=10)
    x = make(a, dt, device)
    assert_close(~x, np.invert(a), dt)
    assert_close(x.bitwise_not(), np.invert(a), dt)


def test_bitwise_on_floats_raises_type_error(device):
    f = make(np.array([1.0, 2.0], np.float32), F32, device)
    h = make(np.array([1.0, 2.0], np.float16), F16, device)
    i = make(np.array([1, 2], np.int32), I32, device)
    for g in [
        lambda: f & f,
        lambda: f | i,
        lambda: i ^ h,
        lambda: i & 2.5,
        lambda: 2.5 | i,
        lambda: ~f,
        lambda: genesis.bitwise_and(f, f),
        lambda: i.bitwise_or(f),
    ]:
        with pytest.raises(TypeError) as e:
            g()
        check_message(e)


def test_bool_ops_torch_refuses(device):
    b = make(np.array([True, False]), B, device)
    for g in [lambda: b - b, lambda: -b, lambda: b.neg(), lambda: b - 1, lambda: b // b]:
        with pytest.raises((RuntimeError, TypeError)) as e:
            g()
        check_message(e)


# --- add/sub alpha ---


def test_add_sub_alpha(device):
    a = random_array((3, 4), F32, seed=11)
    b = random_array((3, 4), F32, seed=12)
    x, y = make(a, F32, device), make(b, F32, device)
    assert_close(x.add(y, alpha=2), a + np.float32(2) * b, F32, rtol=1e-6, atol=1e-4)
    assert_close(genesis.add(x, y, alpha=-0.5), a - np.float32(0.5) * b, F32, atol=1e-4)
    assert_close(genesis.sub(x, y, alpha=3), a - np.float32(3) * b, F32, atol=1e-4)
    assert_close(x.sub(y, alpha=0.25), a - np.float32(0.25) * b, F32, atol=1e-4)
    assert_close(x.add(2, alpha=3), a + np.float32(6), F32, atol=1e-4)
    i = make(np.array([1, 2, 3], np.int64), I64, device)
    assert_close(i.add(i, alpha=3), np.array([4, 8, 12]), I64)
    assert_close(i.sub(i, alpha=2), np.array([-1, -2, -3]), I64)
    z = x.clone()
    assert z.add_(y, alpha=2) is z
    assert_close(z, a + np.float32(2) * b, F32, atol=1e-4)
    z.sub_(y, alpha=2)
    assert_close(z, a, F32, atol=1e-4)


def test_integer_add_with_float_alpha_raises(device):
    i = make(np.array([1, 2], np.int64), I64, device)
    with pytest.raises((RuntimeError, TypeError, ValueError)) as e:
        i.add(i, alpha=2.5)
    check_message(e)


# --- in-place binary ---


def inplace_ok(name, dt):
    return supported(name, dt, dt, rt=dt) and not (name == "div" and not dt.is_floating_point)


@pytest.mark.parametrize("name, dt", cases(INPLACE, DTYPES, inplace_ok))
def test_inplace_same_dtype(device, name, dt):
    a = operand(name, "a", dt, (3, 4), seed=13)
    b = operand(name, "b", dt, (3, 4), seed=14)
    want, _ = expected_binary(name, a, b, dt)
    rtol, atol = tolerance(name, dt, a)

    x, y = make(a, dt, device), make(b, dt, device)
    x0, ptr = x, x.data_ptr()
    x = BINARY[name][1](x, y)  # x op= y
    assert x is x0 and x.data_ptr() == ptr
    assert_close(x, want, dt, rtol=rtol, atol=atol)
    assert_close(y, b, dt)  # the other operand is untouched

    x = make(a, dt, device)
    assert getattr(x, name + "_")(y) is x
    assert_close(x, want, dt, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_with_scalar(device, name, dtype):
    s = 3 if not dtype.is_floating_point else 2.5
    if dtype is B:
        s = True
    rt = result_type(genesis.empty(1, dtype=dtype), s)
    if not inplace_ok(name, rt) or rt is not dtype or not supported(name, dtype, s, rt=rt):
        pytest.skip("not defined in place for this dtype")
    a = operand(name, "a", dtype, (7,), seed=15)
    want, _ = expected_binary(name, a, s, dtype)
    rtol, atol = tolerance(name, dtype, a)
    x = make(a, dtype, device)
    x0 = x
    x = BINARY[name][1](x, s)
    assert x is x0
    assert_close(x, want, dtype, rtol=rtol, atol=atol)


@pytest.mark.parametrize(
    "dx, dy",
    [(F16, F64), (I32, I64), (F32, I32), (I64, B), (BF16, F16), (F32, F16), (I8, U8)],
    ids=str,
)
def test_inplace_casts_result_to_self(device, dx, dy):
    a = random_array((2, 3), dx, seed=16, low=None if dx is B else -20, high=20)
    b = random_array(
        (2, 3), dy, seed=17, low=None if dy is B else (0 if dy is U8 else -20), high=40
    )
    x, y = make(a, dx, device), make(b, dy, device)
    rt = genesis.promote_types(dx, dy)
    for name in ["add", "mul", "sub"]:
        if not supported(name, dx, dy, rt=rt):
            continue
        z = x.clone()
        z = BINARY[name][1](z, y)
        assert z.dtype is dx
        want, out = expected_binary(name, a, b, rt)
        assert_close(
            z, finish(want, dx), dx, rtol=RTOL.get(dx), atol=1e-6 if dx.is_floating_point else None
        )


def test_inplace_broadcasts_other(device):
    a = random_array((3, 4), F32, seed=18)
    b = random_array((4,), F32, seed=19)
    x = make(a, F32, device)
    x += make(b, F32, device)
    assert_close(x, a + b, F32)
    x -= make(b[:1], F32, device)  # shape (1,)
    assert_close(x, a + b - b[:1], F32)
    x *= make(np.float32(2.0), F32, device)  # 0-d
    assert_close(x, (a + b - b[:1]) * np.float32(2), F32)


def test_inplace_into_non_contiguous_views_writes_through(device):
    a = random_array((6, 8), F32, seed=20)
    x = make(a, F32, device)
    v = x[::2, 1::3]
    v += 1.0
    a[::2, 1::3] += np.float32(1.0)
    assert_close(x, a, F32)
    w = x.t()
    w *= make(np.arange(6, dtype=np.float32), F32, device)
    a *= np.arange(6, dtype=np.float32)[:, None]
    assert_close(x, a, F32)
    r = x[::-1, ::-2]
    r.sub_(make(np.ones(4, np.float32), F32, device))
    a[::-1, ::-2] -= np.float32(1)
    assert_close(x, a, F32)
    x[1].exp_()
    a[1] = finish(np.exp(a[1].astype(np.float64)), F32)
    assert_close(x, a, F32, rtol=4e-6)


def test_inplace_self_alias(device):
    a = random_array((4, 4), F32, seed=21)
    x = make(a, F32, device)
    x += x
    assert_close(x, a * 2, F32)
    x *= x
    assert_close(x, (a * 2) * (a * 2), F32)


def _overlap_cases():
    """(what, in-place op on x, NumPy result from the original values a)."""

    def shifted(a):
        b = a.copy()
        b[1:] = a[1:] + a[:-1]
        return b

    def transposed(a):
        return (a.reshape(4, 3) + a.T).reshape(3, 4)

    return [
        ("x.add_(x[::-1])", lambda x: x.add_(x[::-1]), lambda a: a + a[::-1], (6,)),
        ("x[1:].add_(x[:-1])", lambda x: x[1:].add_(x[:-1]), shifted, (6,)),
        ("x.view(4, 3).add_(x.t())", lambda x: x.view(4, 3).add_(x.t()), transposed, (3, 4)),
        ("x.mul_(x[::-1])", lambda x: x.mul_(x[::-1]), lambda a: a * a[::-1], (100_000,)),
    ]


@pytest.mark.parametrize("case", _overlap_cases(), ids=lambda c: c[0])
def test_inplace_with_overlapping_operand_raises_or_is_exact(device, case):
    # torch raises "unsupported operation: some elements of the input tensor and the written-to
    # tensor refer to a single memory location"; NumPy computes as if from a copy. Either is
    # fine; a result that read already-written elements is not.
    _, f, ref, shape = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 97
    x = make(a, F32, device)
    try:
        f(x)
    except RuntimeError as e:
        assert str(e).startswith("["), str(e)
        return
    assert_close(x, ref(a), F32)


@pytest.mark.parametrize(
    "op",
    [lambda z: z.add_(1.0), lambda z: z.exp_(), lambda z: z.mul_(2.0)],
    ids=["add_", "exp_", "mul_"],
)
def test_inplace_into_expanded_self(device, op):
    # torch raises "more than one element of the written-to tensor refers to a single memory
    # location"; applying the op more than once per memory location is wrong.
    base = make(np.zeros((1, 4), np.float32) + np.float32(0.5), F32, device)
    z = base.expand(3, 4)
    try:
        op(z)
    except RuntimeError as e:
        assert str(e).startswith("["), str(e)
        return
    once = op(make(np.full((1, 4), 0.5, np.float32), F32, device))
    assert_close(base, to_numpy(once), F32, rtol=1e-6)


def test_inplace_non_overlapping_interleaved_views(device):
    a = random_array((10,), F32, seed=43)
    x = make(a, F32, device)
    x[::2].add_(x[1::2])
    a[::2] += a[1::2]
    assert_close(x, a, F32)


def test_inplace_cannot_broadcast_self(device):
    x = make(np.zeros(3, np.float32), F32, device)
    y = make(np.zeros((2, 3), np.float32), F32, device)
    with pytest.raises((RuntimeError, ValueError)) as e:
        x += y
    check_message(e)
    with pytest.raises((RuntimeError, ValueError)):
        x.add_(y)
    assert tuple(x.shape) == (3,)


def _inplace_cast_errors(device):
    i = make(np.array([1, 2, 3], np.int64), I64, device)
    i32 = make(np.array([1, 2, 3], np.int32), I32, device)
    u = make(np.array([1, 2, 3], np.uint8), U8, device)
    b = make(np.array([True, False, True]), B, device)
    f = make(np.array([1.0, 2.0, 3.0], np.float32), F32, device)
    i8 = make(np.array([1, 2, 3], np.int8), I8, device)

    def iadd(x, y):
        x += y

    def idiv(x, y):
        x /= y

    def imul(x, y):
        x *= y

    def isub(x, y):
        x -= y

    return [
        ("int += 1.5", i, lambda: iadd(i, 1.5)),
        ("int /= 2", i, lambda: idiv(i, 2)),
        ("int.div_(int)", i, lambda: i.div_(i)),
        ("bool += 1", b, lambda: iadd(b, 1)),
        ("bool += int8 tensor", b, lambda: iadd(b, i8)),
        ("int32 *= float tensor", i32, lambda: imul(i32, f)),
        ("uint8 -= 0.5", u, lambda: isub(u, 0.5)),
        ("int.exp_()", i, lambda: i.exp_()),
        ("int.sqrt_()", i, lambda: i.sqrt_()),
        ("int.sigmoid_()", i, lambda: i.sigmoid_()),
        ("bool.sin_()", b, lambda: b.sin_()),
        ("int.clamp_(min=0.5)", i, lambda: i.clamp_(min=0.5)),
        ("int.pow_(0.5)", i, lambda: i.pow_(0.5)),
        ("int8.add_(f32)", i8, lambda: i8.add_(f)),
    ]


def test_inplace_result_type_cannot_be_cast_raises(device):
    for what, target, f in _inplace_cast_errors(device):
        before = to_numpy(target)
        with pytest.raises(RuntimeError) as e:
            f()
        assert str(e.value).startswith("["), (what, str(e.value))
        np.testing.assert_array_equal(to_numpy(target), before, err_msg=what)


# --- unary ---

UNARY_FLOAT = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": lambda a: 1.0 / np.sqrt(a),
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "sigmoid": lambda a: 1.0 / (1.0 + np.exp(-a)),
}
UNARY_EXACT = {
    "neg": np.negative,
    "abs": np.abs,
    "relu": lambda a: np.maximum(a, np.zeros((), a.dtype)),
}
FLOAT_RANGE = {
    "exp": (-10, 10),
    "log": (0.01, 100),
    "sqrt": (0, 100),
    "rsqrt": (0.01, 100),
    "sin": (-6, 6),
    "cos": (-6, 6),
    "tanh": (-5, 5),
    "sigmoid": (-10, 10),
}
INT_RANGE = {
    "exp": (-5, 5),
    "log": (1, 100),
    "sqrt": (0, 100),
    "rsqrt": (1, 100),
    "sin": (-6, 6),
    "cos": (-6, 6),
    "tanh": (-5, 5),
    "sigmoid": (-10, 10),
}


def unary_input(name, dt, shape, seed):
    if dt is B or name in UNARY_EXACT:
        return random_array(shape, dt, seed)
    lo, hi = (FLOAT_RANGE if dt.is_floating_point else INT_RANGE)[name]
    if dt is U8:
        lo = max(lo, 0)
    return random_array(shape, dt, seed, low=lo, high=hi)


def expected_unary(name, a, dt):
    if name in UNARY_EXACT:
        return UNARY_EXACT[name](a), dt
    out = dt if dt.is_floating_point else F32
    with np.errstate(all="ignore"):
        # integers and bools are converted to float32 first, as torch does
        src = a if dt in (F32, F64, BF16) else a.astype(np.float32)
        r = UNARY_FLOAT[name](src.astype(np.float64))
    return finish(r, out), out


def check_unary(name, got, a, dt):
    want, out = expected_unary(name, a, dt)
    if name in UNARY_EXACT:
        assert_close(got, finish(want, out), out, rtol=0.0)
    else:
        assert_close(got, want, out, rtol=RTOL_TRANSCENDENTAL[out], atol=ATOL_TRANSCENDENTAL[out])


def unary_ok(name, dt):
    return not (dt is B and name in UNARY_EXACT)


@pytest.mark.parametrize("name, dt", cases([*UNARY_EXACT, *UNARY_FLOAT], DTYPES, unary_ok))
def test_unary(device, name, dt):
    a = unary_input(name, dt, (3, 7), seed=22)
    x = make(a, dt, device)
    forms = {"method": getattr(x, name)(), "function": getattr(genesis, name)(x)}
    if name == "neg":
        forms["operator"] = -x
        forms["negative"] = x.negative()
    if name == "abs":
        forms["builtin"] = abs(x)
    for form, got in forms.items():
        try:
            check_unary(name, got, a, dt)
        except AssertionError as e:
            raise AssertionError(f"{form}: {e}") from None
    assert_close(x, finish(a, dt), dt, rtol=0.0)  # the input is untouched


def inplace_unary_ok(name, dt):
    if name in UNARY_EXACT:
        return dt is not B
    return dt.is_floating_point


@pytest.mark.parametrize("name, dt", cases([*UNARY_EXACT, *UNARY_FLOAT], DTYPES, inplace_unary_ok))
def test_unary_inplace(device, name, dt):
    a = unary_input(name, dt, (2, 9), seed=23)
    x = make(a, dt, device)
    ptr = x.data_ptr()
    assert getattr(x, name + "_")() is x
    assert x.data_ptr() == ptr and x.dtype is dt
    check_unary(name, x, a, dt)


def test_unary_on_non_contiguous_and_zero_size(device):
    a = random_array((5, 6), F32, seed=24, low=0.1, high=5)
    x = make(a, F32, device)
    for name in ["exp", "sqrt", "neg", "relu", "sigmoid"]:
        for view, ref in [
            (x.t(), a.T),
            (x[::-2, 1::2], a[::-2, 1::2]),
            (x[:, None, 2].expand(5, 3), np.broadcast_to(a[:, None, 2], (5, 3))),
        ]:
            check_unary(name, getattr(view, name)(), np.ascontiguousarray(ref), F32)
    z = make(np.zeros((0, 3), np.float32), F32, device)
    assert tuple(z.exp().shape) == (0, 3)
    assert tuple((-z).shape) == (0, 3)
    s = make(np.array(2.0, np.float32), F32, device)
    assert_close(s.exp(), np.exp(np.float64(2.0)).astype(np.float32), F32, rtol=4e-6)
    assert tuple(s.exp().shape) == ()


def test_unary_special_values(device):
    vals = np.array([0.0, -1.0, 1.0, np.inf, -np.inf, np.nan], np.float64)
    for dt in FLOAT_DTYPES:
        x = make(vals.astype(np.float32), dt, device)
        for name in UNARY_FLOAT:
            check_unary(name, getattr(x, name)(), finish(vals, dt), dt)
        for name in UNARY_EXACT:
            check_unary(name, getattr(x, name)(), finish(vals, dt), dt)


def test_neg_and_abs_of_integers_wrap(device):
    u = make(np.array([0, 1, 255], np.uint8), U8, device)
    assert_close(-u, np.array([0, 255, 1]), U8)
    i = make(np.array([-128, -1, 127], np.int8), I8, device)
    assert_close(i.abs(), np.array([-128, 1, 127]), I8)
    assert_close(-i, np.array([-128, 1, -127]), I8)
    assert_close(i.relu(), np.array([0, 0, 127]), I8)


# --- clamp ---


@pytest.mark.parametrize("dt", [d for d in DTYPES if d is not B], ids=dtype_id)
def test_clamp_scalars(device, dt):
    a = random_array((4, 5), dt, seed=25)
    lo, hi = (-30, 40) if dt.is_floating_point else (-30, 40)
    if dt is U8:
        lo, hi = 50, 200
    x = make(a, dt, device)
    wide = a.astype(np.float64)
    both = finish(np.minimum(np.maximum(wide, lo), hi), dt)
    for got in [
        x.clamp(lo, hi),
        x.clamp(min=lo, max=hi),
        genesis.clamp(x, lo, hi),
        x.clip(lo, hi),
        genesis.clip(x, min=lo, max=hi),
    ]:
        assert_close(got, both, dt)
    assert_close(x.clamp(min=lo), finish(np.maximum(wide, lo), dt), dt)
    assert_close(x.clamp(max=hi), finish(np.minimum(wide, hi), dt), dt)
    z = x.clone()
    assert z.clamp_(lo, hi) is z
    assert_close(z, both, dt)
    z = x.clone()
    z.clip_(min=lo)
    assert_close(z, finish(np.maximum(wide, lo), dt), dt)


def test_clamp_bounds_that_do_not_fit_raise(device):
    # A number bound is not wrapped into the tensor's dtype (int8 1000 would clamp to -24).
    x = make(np.array([-100, 5, 100], dtype=np.int8), genesis.int8, device)
    for call in (
        lambda: x.clamp(-1000, 1000),
        lambda: x.clamp(max=1000),
        lambda: x.clone().clamp_(min=-1000),
        lambda: make(np.ones(2, np.float16), F16, device).clamp(-1e6, 1e6),
    ):
        with pytest.raises(RuntimeError) as e:
            call()
        check_message(e)
    assert x.clamp(-1000.5, 1000.5).dtype is F32  # a float bound promotes: nothing to fit
    assert x.clamp(-127, 127).tolist() == [-100, 5, 100]


def test_clamp_tensor_bounds(device):
    a = random_array((4, 5), F32, seed=26)
    lo = random_array((1, 5), F32, seed=27) - np.float32(50)
    hi = random_array((4, 1), F32, seed=28) + np.float32(50)
    x = make(a, F32, device)
    tlo, thi = make(lo, F32, device), make(hi, F32, device)
    assert_close(x.clamp(tlo, thi), np.minimum(np.maximum(a, lo), hi), F32)
    assert_close(x.clamp(min=tlo), np.maximum(a, lo), F32)
    assert_close(genesis.clamp(x, max=thi), np.minimum(a, hi), F32)
    z = x.clone()
    z.clamp_(tlo, thi)
    assert_close(z, np.minimum(np.maximum(a, lo), hi), F32)
    # int tensor with int tensor bounds keeps its dtype
    i = make(np.array([1, 5, 9], np.int32), I32, device)
    b = make(np.array([2, 2, 2], np.int32), I32, device)
    assert_close(i.clamp(min=b, max=6), np.array([2, 5, 6]), I32)


def test_clamp_special_cases(device):
    x = make(np.array([1.0, np.nan, -5.0, 7.0], np.float32), F32, device)
    assert_close(x.clamp(0, 2), np.array([1.0, np.nan, 0.0, 2.0], np.float32), F32)
    assert_close(x.clamp(min=3, max=2), np.array([2.0, np.nan, 2.0, 2.0], np.float32), F32)
    i = make(np.array([1, 2, 3], np.int64), I64, device)
    assert_close(i.clamp(min=2.5), np.array([2.5, 2.5, 3.0], np.float32), F32)
    assert_close(i.clamp(0, 2), np.array([1, 2, 2]), I64)
    h = make(np.array([1.0, 2.0, 3.0], np.float16), F16, device)
    assert_close(h.clamp(1.5, 2.5), np.array([1.5, 2.0, 2.5], np.float16), F16)
    with pytest.raises((RuntimeError, ValueError, TypeError)) as e:
        x.clamp()
    check_message(e)


# --- maximum / minimum / comparisons with NaN ---


def test_nan_propagation_and_comparisons(device):
    a = np.array([1.0, np.nan, np.nan, 2.0, -np.inf, np.inf], np.float32)
    b = np.array([np.nan, 3.0, np.nan, 1.0, 0.0, np.inf], np.float32)
    for dt in FLOAT_DTYPES:
        x, y = make(a, dt, device), make(b, dt, device)
        assert_close(genesis.maximum(x, y), finish(np.maximum(a, b), dt), dt)
        assert_close(genesis.minimum(y, x), finish(np.minimum(b, a), dt), dt)
        assert_close(x.maximum(y), finish(np.maximum(a, b), dt), dt)
        for name in COMPARISONS:
            assert_close(BINARY[name][0](x, y), BINARY[name][2](a, b), B)
        assert_close(x == float("nan"), np.zeros(6, bool), B)
        assert_close(x != float("nan"), np.ones(6, bool), B)
        assert_close(x + y, finish(a + b, dt), dt)


# --- broadcasting ---

BROADCAST_SHAPES = [
    ((3, 1), (1, 4)),
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (3, 1)),
    ((0, 3), (1, 3)),
    ((), (2, 3)),
    ((2, 1, 3), (4, 1)),
    ((5,), ()),
    ((), ()),
    ((0,), (0,)),
    ((1,), (0,)),
    ((2, 0, 3), (2, 1, 3)),
    ((1, 1, 1), (2, 3)),
]


@pytest.mark.parametrize("sa, sb", BROADCAST_SHAPES, ids=str)
def test_broadcasting(device, sa, sb):
    for dt in [F32, I32]:
        a = random_array(sa, dt, seed=29, low=None if dt is F32 else -1000, high=1000)
        b = random_array(sb, dt, seed=30, low=None if dt is F32 else 1, high=1000)
        x, y = make(a, dt, device), make(b, dt, device)
        for name in ["add", "sub", "mul", "gt", "maximum", "floor_divide", "div"]:
            got = BINARY[name][0](x, y) if BINARY[name][0] else getattr(genesis, name)(x, y)
            assert tuple(got.shape) == np.broadcast_shapes(sa, sb)
            check_binary(name, got, a, b, dt)
            if BINARY[name][0]:
                check_binary(name, BINARY[name][0](y, x), b, a, dt)


@pytest.mark.parametrize(
    "sa, sb", [((2, 3), (3, 2)), ((3,), (4,)), ((2, 3, 4), (2, 4)), ((0,), (2,))]
)
def test_broadcast_mismatch_raises(device, sa, sb):
    x = make(np.zeros(sa, np.float32), F32, device)
    y = make(np.zeros(sb, np.float32), F32, device)
    for f in [lambda: x + y, lambda: x < y, lambda: genesis.maximum(x, y), lambda: y * x]:
        with pytest.raises((RuntimeError, ValueError)) as e:
            f()
        check_message(e)


# --- non-contiguous operands ---


def views(a, x):
    """Pairs (genesis view, NumPy view) of a (6, 8) base."""
    return [
        (x.t(), a.T),
        (x[::2, 1::3], a[::2, 1::3]),
        (x[::-1], a[::-1]),
        (x[::-2, ::-3], a[::-2, ::-3]),
        (x[1:5, 2].unsqueeze(1).expand(4, 6), np.broadcast_to(a[1:5, 2][:, None], (4, 6))),
    ]


@pytest.mark.parametrize("dt", [F32, F16, I64, B], ids=dtype_id)
def test_binary_non_contiguous(device, dt):
    a = random_array((6, 8), dt, seed=31)
    b = random_array((8, 6), dt, seed=32)
    x, y = make(a, dt, device), make(b, dt, device)
    names = ["add", "mul", "lt", "maximum", "eq"]
    for vx, va in views(a, x):
        va = np.ascontiguousarray(va)
        for vy, vb in [
            (y.t()[: va.shape[0], : va.shape[1]], b.T[: va.shape[0], : va.shape[1]]),
            (
                y[::-1, ::-1][: va.shape[0], : va.shape[1]],
                b[::-1, ::-1][: va.shape[0], : va.shape[1]],
            ),
        ]:
            vb = np.ascontiguousarray(vb)
            if vb.shape != va.shape:
                continue
            for name in names:
                got = BINARY[name][0](vx, vy) if BINARY[name][0] else getattr(genesis, name)(vx, vy)
                check_binary(name, got, va, vb, dt)
        # with a row broadcast from a strided view
        row = x[0, ::-1][: va.shape[1]]
        check_binary("add", vx + row, va, np.ascontiguousarray(a[0, ::-1][: va.shape[1]]), dt)


# --- large arrays (parallel and vectorized paths) ---


def test_large_contiguous_and_broadcast(device):
    a = random_array((1000, 101), F32, seed=33)
    b = random_array((101,), F32, seed=34)
    c = random_array((1000, 1), F32, seed=35)
    x, y, z = make(a, F32, device), make(b, F32, device), make(c, F32, device)
    assert_close(x + y, a + b, F32)
    assert_close(x * z, a * c, F32)
    assert_close(x - y * z, a - b * c, F32, atol=1e-3)
    assert_close(x > z, a > c, B)
    n = 100_003
    e = random_array((n,), F32, seed=36, low=-10, high=10)
    t = make(e, F32, device)
    check_unary("exp", t.exp(), e, F32)
    check_unary("sigmoid", t.sigmoid(), e, F32)
    h = random_array((n,), F16, seed=37)
    g = random_array((n,), F16, seed=38)
    check_binary("add", make(h, F16, device) + make(g, F16, device), h, g, F16)
    hb = random_array((n,), BF16, seed=37)
    gb = random_array((n,), BF16, seed=38)
    check_binary("mul", make(hb, BF16, device) * make(gb, BF16, device), hb, gb, BF16)
    check_binary("sub", make(hb, BF16, device) - make(e, F32, device), hb, e, F32)
    i = random_array((n,), I64, seed=39)
    j = random_array((n,), I64, seed=40, low=-1000, high=1000)
    xi, xj = make(i, I64, device), make(j, I64, device)
    check_binary("floor_divide", xi // xj, i, j, I64)
    check_binary("remainder", xi % xj, i, j, I64)


def test_large_non_contiguous(device):
    a = random_array((700, 300), F32, seed=41)
    b = random_array((300, 700), F32, seed=42)
    x, y = make(a, F32, device), make(b, F32, device)
    assert_close(x.t() + y, a.T + b, F32)
    assert_close(x[::-1, ::2] * y.t()[::-1, ::2], a[::-1, ::2] * b.T[::-1, ::2], F32)
    x[:, ::2] *= 2.0
    a[:, ::2] *= np.float32(2)
    assert_close(x, a, F32)
    x.t()[::3].relu_()
    a.T[::3] = np.maximum(a.T[::3], 0)
    assert_close(x, a, F32)


# --- misc errors ---


def test_unsupported_operand_types(device):
    x = make(np.zeros(3, np.float32), F32, device)
    for f in [lambda: x + "a", lambda: x * None, lambda: "a" < x, lambda: x + object()]:
        with pytest.raises(TypeError):
            f()


@requires_cuda
def test_different_devices_raise():
    x = genesis.tensor([1.0, 2.0], device="cpu")
    y = genesis.tensor([1.0, 2.0], device="cuda")
    for f in [
        lambda: x + y,
        lambda: y * x,
        lambda: genesis.maximum(x, y),
        lambda: x < y,
        lambda: y.add_(x),
        lambda: y.clamp(min=x),
    ]:
        with pytest.raises(RuntimeError) as e:
            f()
        check_message(e)


# --- 16-bit floats through float a chunk at a time (cpu/half_simd.h, kSixteenBitChunk) ---

CHUNKED_OPS = {
    "add": operator.add,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "lt": operator.lt,
    "maximum": lambda x, y: x.maximum(y),
}


@pytest.mark.parametrize("dt", [F16, BF16], ids=dtype_id)
@pytest.mark.parametrize("name", list(CHUNKED_OPS))
@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((2500,), (2500,)), ((3, 1100), (1, 1100)), ((3, 1100), (3, 1)), ((2049,), ())],
    ids=["dense", "row-broadcast", "column-broadcast", "0-d"],
)
def test_16_bit_binary_runs_cross_chunks_as_torch(device, dt, name, a_shape, b_shape):
    """Runs longer than a chunk, with either side dense, broadcast or 0-d, and a transposed
    (general-path) operand: the same bits as torch's float opmath rounded once."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32) + 0.5
    t_dtype = getattr(torch, dtype_id(dt))
    ta, tb = torch.tensor(a).to(t_dtype), torch.tensor(b).to(t_dtype)
    x, y = genesis.tensor(a, device=device).to(dt), genesis.tensor(b, device=device).to(dt)
    op = CHUNKED_OPS[name]
    want, got = op(ta, tb), op(x, y)
    if want.dtype != torch.bool:
        want, got = want.float(), got.float()
    np.testing.assert_array_equal(to_numpy(got), want.numpy())
    got_t = op(y, x) if b_shape == () else op(x.mT, y.mT) if len(a_shape) == 2 else None
    if got_t is not None:
        want_t = op(tb, ta) if b_shape == () else op(ta.mT, tb.mT)
        want_t = want_t if want_t.dtype == torch.bool else want_t.float()
        got_t = got_t if got_t.dtype == genesis.bool else got_t.float()
        np.testing.assert_array_equal(to_numpy(got_t), want_t.numpy())


ZERO_DIM_BESIDE_16_BIT = ["add", "sub", "mul", "div", "pow", "maximum", "atan2", "remainder", "lt"]


@pytest.mark.parametrize("dt", [F16, BF16], ids=dtype_id)
@pytest.mark.parametrize("zero_dim", [F32, F64], ids=dtype_id)
@pytest.mark.parametrize("name", ZERO_DIM_BESIDE_16_BIT)
@pytest.mark.parametrize("first", [False, True], ids=["second", "first"])
def test_0d_tensor_beside_16_bit_floats_as_torch(dt, zero_dim, name, first):
    """Note [0-d tensors beside 16-bit floats]: torch's CPU * and / read a 0-d second operand
    at its own precision, every other op and position rounds it to the 16-bit dtype first."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a = np.abs(rng.standard_normal(4000).astype(np.float32)) + 0.1
    t_dt, t_zero = getattr(torch, dtype_id(dt)), getattr(torch, dtype_id(zero_dim))
    x, tx = genesis.tensor(a).to(dt), torch.tensor(a).to(t_dt)
    for value in (1.005, 0.1234567, 3.3333):
        s, ts = genesis.tensor(value, dtype=zero_dim), torch.tensor(value, dtype=t_zero)
        g_op, t_op = getattr(genesis, name), getattr(torch, name)
        got = g_op(s, x) if first else g_op(x, s)
        want = t_op(ts, tx) if first else t_op(tx, ts)
        if want.dtype != torch.bool:
            got, want = got.float(), want.float()
        np.testing.assert_array_equal(to_numpy(got), want.numpy(), err_msg=f"{value}")
    if name in ("mul", "div") and not first:  # the in-place forms too
        y, ty = x.clone(), tx.clone()
        getattr(y, name + "_")(s)
        getattr(ty, name + "_")(ts)
        np.testing.assert_array_equal(to_numpy(y.float()), ty.float().numpy())
