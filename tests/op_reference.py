"""NumPy references for the compute ops: PyTorch's result-type rules and tolerant comparisons.

Used by test_elementwise, test_reductions, test_joins and test_everyday_compute. Nothing here
calls a genesis op at import time (only dtype objects and genesis.promote_types at call time).
"""

import numpy as np
from conftest import NP_DTYPE, round_to_bfloat16, to_numpy

import genesis

HALF_DTYPES = (genesis.float16, genesis.bfloat16)

# Relative tolerance for float results, by dtype: 16-bit floats are computed in float32 and
# rounded once, so they may differ from the reference by an ulp of the result.
RTOL = {
    genesis.float16: 2e-3,
    genesis.bfloat16: 1.6e-2,
    genesis.float32: 1e-6,
    genesis.float64: 1e-12,
}
# Transcendentals (exp, log, sin, ...): a few ulp in float32 and float64, plus a small absolute
# tolerance for results near zero (sin near k*pi).
RTOL_TRANSCENDENTAL = {**RTOL, genesis.float32: 4e-6, genesis.float64: 1e-12}
ATOL_TRANSCENDENTAL = {
    genesis.float16: 1e-5,
    genesis.bfloat16: 1e-5,
    genesis.float32: 1e-6,
    genesis.float64: 1e-13,
}
# The accumulation error allowed for float reductions, relative to sum(|x|).
ACC_EPS = {
    genesis.float16: 2e-6,
    genesis.bfloat16: 2e-6,
    genesis.float32: 2e-6,
    genesis.float64: 1e-13,
}


def category(d):
    """0 for bool, 1 for integers, 2 for floating point."""
    if d is genesis.bool:
        return 0
    return 2 if d.is_floating_point else 1


def scalar_dtype(s):
    """The dtype a Python scalar takes part in promotion with (torch: float -> default float32)."""
    if isinstance(s, bool):
        return genesis.bool
    if isinstance(s, int):
        return genesis.int64
    if isinstance(s, float):
        return genesis.float32
    raise TypeError(type(s))


def _promote(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return genesis.promote_types(a, b)


def _combine(higher, lower):
    # torch's combine_categories (c10/core/ScalarType + TensorIterator result_type).
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_floating_point:
        return higher
    if higher is genesis.bool or lower.is_floating_point:
        return genesis.promote_types(higher, lower)
    return higher


def result_type(*operands):
    """torch.result_type for genesis tensors and Python scalars.

    Dimensioned tensors promote among themselves; 0-d tensors, then Python scalars, only raise
    the category (bool < integer < float) and never widen within it.
    """
    dim = zero = wrapped = None
    for x in operands:
        if isinstance(x, genesis.Tensor):
            if x.ndim == 0:
                zero = _promote(zero, x.dtype)
            else:
                dim = _promote(dim, x.dtype)
        else:
            wrapped = _promote(wrapped, scalar_dtype(x))
    return _combine(dim, _combine(zero, wrapped))


def np_compute_dtype(d):
    """The NumPy dtype a genesis dtype is computed in (16-bit floats compute in float32)."""
    if d in HALF_DTYPES:
        return np.dtype(np.float32)
    return NP_DTYPE[d]


def as_compute(x, d):
    """x (NumPy data or a Python scalar) cast to dtype d (C-style: integers wrap, int32 beyond
    65504 becomes inf in float16), held in d's computation type (float32 for 16-bit floats)."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        if d in HALF_DTYPES:
            return finish(x.astype(np.float32), d).astype(np.float32)
        return x.astype(NP_DTYPE[d])


def finish(r, d):
    """A NumPy result rounded to genesis dtype d, as genesis stores it (bfloat16 in float32)."""
    r = np.asarray(r)
    with np.errstate(all="ignore"):
        if d is genesis.bfloat16:
            return round_to_bfloat16(r.astype(np.float32))
        return r.astype(NP_DTYPE[d])


def assert_close(t, expected, dtype, rtol=None, atol=None):
    """t has dtype, expected's shape, and its values: exact for bool/ints, close for floats.

    expected holds dtype's values (bfloat16 values in float32). NaNs must match NaNs and
    infinities must match exactly.
    """
    assert isinstance(t, genesis.Tensor), type(t)
    assert t.dtype is dtype, (t.dtype, dtype)
    expected = np.asarray(expected)
    assert tuple(t.shape) == expected.shape, (t.shape, expected.shape)
    got = to_numpy(t)
    if not dtype.is_floating_point:
        np.testing.assert_array_equal(got, expected.astype(got.dtype), strict=True)
        return
    if rtol is None:
        rtol = RTOL[dtype]
    if atol is None:
        atol = 0.0
    g, e = got.astype(np.float64), expected.astype(np.float64)
    if np.ndim(atol) == 0:
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
        return
    # A per-element absolute tolerance (reductions: relative to sum(|x|) of each output).
    ok = np.isclose(g, e, rtol=rtol, atol=np.broadcast_to(atol, e.shape), equal_nan=True)
    ok |= g == e  # equal infinities
    assert ok.all(), (
        f"mismatch at {np.argwhere(~ok)[:5].tolist()}: got {g[~ok][:5]}, want {e[~ok][:5]}"
    )
