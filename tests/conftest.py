"""Shared fixtures and helpers: devices, dtypes, random NumPy data and comparisons.

The tests live in one folder per area (ops, autograd, cuda, memory, io, distributed, project;
nn and optim to come). Test modules import the helpers directly (``from conftest import ...``,
``op_reference``, ``isolated``) and some import another area's test module for its helpers
(``from test_dlpack import HandMade``): pytest puts this directory on sys.path because tests/
is not a package, and this file puts every area's folder there too, before any test module is
collected.
"""

import contextlib
import os
import sys

import numpy as np
import pytest
from hypothesis_constants import use_no_local_constants

import genesis

use_no_local_constants()  # examples must not depend on constants in genesis/ (see there)
# Fused CUDA programs are built before their group runs, so that every compiled test runs the
# generated kernel (users' builds run in the background: Note [Building programs in the
# background]; tests/compile/test_background_builds.py tests that path).
genesis._C._fusion.set_background_builds(False)

# Every area's folder on sys.path (see the docstring).
_TESTS = os.path.dirname(os.path.abspath(__file__))
for _area in sorted(os.listdir(_TESTS)):
    _folder = os.path.join(_TESTS, _area)
    if os.path.isdir(_folder) and not _area.startswith((".", "_")) and _folder not in sys.path:
        sys.path.append(_folder)

HAS_CUDA = genesis.cuda.is_available()
requires_cuda = pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device available")
no_cuda = pytest.mark.skipif(HAS_CUDA, reason="a CUDA device is available")

DEVICES = ["cpu", pytest.param("cuda", marks=requires_cuda)]


@contextlib.contextmanager
def raises_index_error(match=None):
    """pytest.raises(IndexError) for index ops on any device: with a GPU, the block ends with a
    synchronize(), where a CUDA index op's out-of-range index is raised (Note [Deferred index
    errors] in csrc/core/index_check.h)."""
    with pytest.raises(IndexError, match=match) as info:
        yield info
        if HAS_CUDA:
            genesis.cuda.synchronize()


@pytest.fixture(autouse=True)
def _no_pending_index_error():
    """Fails a test that leaves a deferred CUDA index error unraised, instead of letting it
    surface in whichever test waits for the device next."""
    yield
    if HAS_CUDA:
        try:
            genesis.cuda.synchronize()
        except IndexError as e:
            pytest.fail(f"the test left a deferred CUDA index error unraised: {e}")


def under_compute_sanitizer():
    """Whether this process runs under compute-sanitizer (its CUDA injection library, named in
    CUDA_INJECTION64_PATH or mapped into the process). Its host backtraces keep the Python
    frames of CUDA calls alive, and with them their locals: tests of when Python objects are
    freed check that only outside it."""
    import os

    if "sanitizer" in os.environ.get("CUDA_INJECTION64_PATH", "").lower():
        return True
    try:
        with open("/proc/self/maps") as maps:
            return any("sanitizer" in line.lower() for line in maps)
    except OSError:
        return False


def skip_lifetime_check_under_sanitizer(device):
    """Skips a test of object lifetimes on CUDA under compute-sanitizer (see above)."""
    if device == "cuda" and under_compute_sanitizer():
        pytest.skip("compute-sanitizer keeps the frames of CUDA calls, and their locals, alive")


DTYPES = [
    genesis.bool,
    genesis.uint8,
    genesis.int8,
    genesis.int16,
    genesis.int32,
    genesis.int64,
    genesis.float16,
    genesis.bfloat16,
    genesis.float32,
    genesis.float64,
]
FLOAT_DTYPES = [d for d in DTYPES if d.is_floating_point]
INT_DTYPES = [genesis.uint8, genesis.int8, genesis.int16, genesis.int32, genesis.int64]

# The NumPy dtype that holds a genesis dtype's values (bfloat16 values live in float32).
NP_DTYPE = {
    genesis.bool: np.dtype(np.bool_),
    genesis.uint8: np.dtype(np.uint8),
    genesis.int8: np.dtype(np.int8),
    genesis.int16: np.dtype(np.int16),
    genesis.int32: np.dtype(np.int32),
    genesis.int64: np.dtype(np.int64),
    genesis.float16: np.dtype(np.float16),
    genesis.bfloat16: np.dtype(np.float32),
    genesis.float32: np.dtype(np.float32),
    genesis.float64: np.dtype(np.float64),
}
# The genesis dtype of a NumPy array (the inverse of NP_DTYPE without bfloat16).
FROM_NP = {v: k for k, v in NP_DTYPE.items() if k is not genesis.bfloat16}


def dtype_id(d):
    return repr(d).replace("genesis.", "")


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


@pytest.fixture(params=DTYPES, ids=dtype_id)
def dtype(request):
    return request.param


def round_to_bfloat16(a):
    """float32 values rounded to the nearest bfloat16 (ties to even), kept in float32."""
    bits = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def random_array(shape, dtype, seed=0, low=None, high=None):
    """Random NumPy data (an ndarray, also when 0-d) for a genesis dtype; never all zeros.

    Floats are normal * 100 (negative and fractional), rounded to the dtype's precision, so a
    genesis tensor made from them holds exactly these values. Integers span the dtype's range
    unless low/high (inclusive) are given.
    """
    return np.asarray(_random_values(shape, dtype, seed, low, high))


def _random_values(shape, dtype, seed, low, high):
    rng = np.random.default_rng(seed)
    npd = NP_DTYPE[dtype]
    if dtype is genesis.bool:
        return rng.random(shape) < 0.5
    if not dtype.is_floating_point:
        info = np.iinfo(npd)
        lo = info.min if low is None else low
        hi = info.max if high is None else high
        if dtype is genesis.int64 and low is None:
            lo, hi = -(2**40), 2**40
        return rng.integers(lo, hi, size=shape, endpoint=True, dtype=npd)
    if low is not None:
        values = rng.uniform(low, high, size=shape)
    else:
        values = rng.standard_normal(shape) * 100
    if dtype is genesis.bfloat16:
        return round_to_bfloat16(values.astype(np.float32))
    return values.astype(npd)


def make_tensor(shape, dtype, device="cpu", seed=0, **kwargs):
    """(genesis tensor, NumPy array) holding the same random values."""
    a = random_array(shape, dtype, seed, **kwargs)
    return genesis.tensor(a, dtype=dtype, device=device), a


def to_numpy(t):
    """A NumPy copy of a genesis tensor on any device (bfloat16 comes back as float32)."""
    h = t.cpu()
    if h.dtype is genesis.bfloat16:
        h = h.float()
    return np.array(h.numpy(), copy=True)


def assert_equal(t, expected, dtype=None):
    """t (a genesis tensor) has expected's shape, the dtype (default: expected's), and values."""
    expected = np.asarray(expected)
    assert isinstance(t, genesis.Tensor), type(t)
    want = dtype if dtype is not None else FROM_NP[expected.dtype]
    assert t.dtype is want, (t.dtype, want)
    assert t.shape == expected.shape, (t.shape, expected.shape)
    got = to_numpy(t)
    np.testing.assert_array_equal(got, expected.astype(got.dtype, copy=False), strict=False)


def assert_same_storage(a, b):
    """a and b are views of one storage."""
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def check_message(excinfo, op=None):
    """Error messages start with the op in brackets: '[zeros] ...'."""
    msg = str(excinfo.value)
    assert msg.startswith("["), msg
    if op is not None:
        assert msg.startswith(f"[{op}]"), msg
