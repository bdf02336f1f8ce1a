"""Printing: repr(genesis tensor) must read like repr(torch tensor), with 'torch.' -> 'genesis.'."""

import math
import subprocess
import sys
import types

import numpy as np
import pytest
from conftest import check_message

import genesis
from genesis._tensor_str import get_printoptions, printoptions, tensor_repr

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
NAN, INF = math.nan, math.inf


@pytest.fixture(autouse=True)
def _default_printoptions():
    yield
    genesis.set_printoptions(profile="default")
    try:
        import torch
    except ImportError:
        return
    torch.set_printoptions(profile="default")


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def unwrap_suffix(text):
    # 'dtype=genesis.X' is 2 characters longer than torch's 'dtype=torch.X', so near the line
    # width genesis may rightly put it on a line of its own where torch does not.
    return text.replace(",\n       dtype=", ", dtype=").replace(",\n       device=", ", device=")


def torch_repr(t):
    return repr(t).replace("torch.", "genesis.")


def check(torch, data, dtype=None):
    """Builds the tensor from data (a list or NumPy array) in both libraries and compares."""
    g = genesis.tensor(data, dtype=getattr(genesis, dtype) if dtype else None)
    t = torch.tensor(data, dtype=getattr(torch, dtype) if dtype else None)
    assert unwrap_suffix(repr(g)) == unwrap_suffix(torch_repr(t))
    assert str(g) == repr(g)


def check_pair(g, t):
    assert unwrap_suffix(repr(g)) == unwrap_suffix(torch_repr(t))


# --- literal expectations (no torch needed) ---------------------------------------------------


@pytest.mark.parametrize(
    "data, dtype, expected",
    [
        ([1.0, 2.0, 3.0], None, "tensor([1., 2., 3.])"),
        ([[1, 2], [3, 4]], None, "tensor([[1, 2],\n        [3, 4]])"),
        (3.5, None, "tensor(3.5000)"),
        ([True, False], None, "tensor([ True, False])"),
        ([1.5, -0.25], None, "tensor([ 1.5000, -0.2500])"),
        ([1e-5, 1.0], None, "tensor([1.0000e-05, 1.0000e+00])"),
        ([1.0, NAN, -INF], None, "tensor([1., nan, -inf])"),
        ([1, 2], genesis.int32, "tensor([1, 2], dtype=genesis.int32)"),
        (7, genesis.uint8, "tensor(7, dtype=genesis.uint8)"),
        ([0.5], genesis.float64, "tensor([0.5000], dtype=genesis.float64)"),
    ],
)
def test_literal(data, dtype, expected):
    assert repr(genesis.tensor(data, dtype=dtype)) == expected


def test_literal_empty():
    assert repr(genesis.empty(0, 3)) == "tensor([], size=(0, 3))"
    assert repr(genesis.tensor([])) == "tensor([])"
    assert repr(genesis.empty(0, dtype=genesis.int16)) == "tensor([], dtype=genesis.int16)"


def test_literal_summarized():
    assert repr(genesis.arange(10000)) == "tensor([   0,    1,    2,  ..., 9997, 9998, 9999])"
    expected = (
        "tensor([[   0,    1,    2,  ...,   97,   98,   99],\n"
        "        [ 100,  101,  102,  ...,  197,  198,  199],\n"
        "        [ 200,  201,  202,  ...,  297,  298,  299],\n"
        "        ...,\n"
        "        [1700, 1701, 1702,  ..., 1797, 1798, 1799],\n"
        "        [1800, 1801, 1802,  ..., 1897, 1898, 1899],\n"
        "        [1900, 1901, 1902,  ..., 1997, 1998, 1999]])"
    )
    assert repr(genesis.arange(2000).view(20, 100)) == expected


def test_suffix_wraps_at_linewidth():
    # The data line is 58 characters: ', dtype=genesis.int32)' would end at column 81.
    t = genesis.tensor([1] * 17, dtype=genesis.int32)
    assert repr(t) == "tensor([" + ", ".join("1" * 17) + "],\n       dtype=genesis.int32)"
    t = genesis.tensor([1] * 16, dtype=genesis.int32)
    assert repr(t) == "tensor([" + ", ".join("1" * 16) + "], dtype=genesis.int32)"


def test_only_printed_part_is_fetched():
    # 10**12 elements through a stride-0 view: converting it whole could never finish.
    huge = genesis.tensor([1.5], dtype=genesis.bfloat16).expand(10**12)
    expected = (
        "tensor([1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],\n"
        "       dtype=genesis.bfloat16)"
    )
    assert repr(huge) == expected


def test_printoptions_literal():
    genesis.set_printoptions(precision=2)
    assert repr(genesis.tensor([1.2345, 2.0])) == "tensor([1.23, 2.00])"
    genesis.set_printoptions(sci_mode=True)
    assert repr(genesis.tensor([1.5, -2.0])) == "tensor([ 1.50e+00, -2.00e+00])"
    genesis.set_printoptions(threshold=5, edgeitems=1)
    assert repr(genesis.arange(6)) == "tensor([0,  ..., 5])"
    genesis.set_printoptions(profile="default")
    assert repr(genesis.arange(6)) == "tensor([0, 1, 2, 3, 4, 5])"


def test_printoptions_context():
    before = get_printoptions()
    with printoptions(precision=1, linewidth=40):
        assert repr(genesis.tensor([1.25, 2.0])) == "tensor([1.2, 2.0])"
        assert get_printoptions()["linewidth"] == 40
    assert get_printoptions() == before
    assert repr(genesis.tensor([1.25, 2.0])) == "tensor([1.2500, 2.0000])"


class _CudaDevice(types.SimpleNamespace):
    def __str__(self):
        return "cuda:0"


class _FakeCuda:
    """A CPU tensor posing as one on cuda:0; numpy() must only be reached after cpu()."""

    def __init__(self, t):
        self._t = t
        self.shape, self.ndim, self.dtype = t.shape, t.ndim, t.dtype
        self.device = _CudaDevice(type="cuda")
        self.is_cuda = True

    def numel(self):
        return self._t.numel()

    def narrow(self, dim, start, length):
        return _FakeCuda(self._t.narrow(dim, start, length))

    def cpu(self):
        return self._t

    def numpy(self):
        raise AssertionError("numpy() called on a CUDA tensor")


def test_device_suffix_fake_cuda():
    fake = _FakeCuda
    assert tensor_repr(fake(genesis.tensor([1.0, 2.0]))) == "tensor([1., 2.], device='cuda:0')"
    got = tensor_repr(fake(genesis.tensor([1, 2], dtype=genesis.int32)))
    assert got == "tensor([1, 2], device='cuda:0', dtype=genesis.int32)"
    got = tensor_repr(fake(genesis.empty(0, 2, dtype=genesis.float16)))
    assert got == "tensor([], device='cuda:0', size=(0, 2), dtype=genesis.float16)"
    got = tensor_repr(fake(genesis.arange(5000).view(50, 100)))
    assert got.startswith("tensor([[   0,    1,    2,  ...,   97,   98,   99],")
    assert got.endswith("[4900, 4901, 4902,  ..., 4997, 4998, 4999]], device='cuda:0')")


@pytest.mark.skipif(not genesis.cuda.is_available(), reason="needs a CUDA device")
def test_device_suffix_cuda():
    t = genesis.tensor([1.0, 2.0]).cuda()
    assert repr(t) == "tensor([1., 2.], device='cuda:0')"
    t = genesis.arange(2000).view(20, 100).to(genesis.bfloat16).cuda()
    assert repr(t) == repr(genesis.arange(2000).view(20, 100).to(genesis.bfloat16)).replace(
        "dtype=", "device='cuda:0', dtype="
    )


# --- comparisons with torch -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "data",
    [
        0,
        1,
        [],
        [1],
        [0, 1, 2, 3],
        [[1, 0, 5], [7, 3, 0]],
        [[[1, 2], [3, 4]], [[5, 6], [7, 8]]],
        [[[[1]], [[0]]]],
    ],
    ids=["0d-zero", "0d", "empty", "1", "1d", "2d", "3d", "4d"],
)
def test_small_every_dtype(torch, data, dtype):
    check(torch, data, dtype)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", *FLOAT_DTYPES])
def test_negative(torch, dtype):
    check(torch, [[-1, 2, -30], [4, -125, 6]], dtype)
    check(torch, -7, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (2, 0, 4), (0, 0)])
def test_zero_size(torch, shape, dtype):
    check_pair(
        genesis.empty(*shape, dtype=getattr(genesis, dtype)),
        torch.empty(*shape, dtype=getattr(torch, dtype)),
    )


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize(
    "data",
    [
        3.5,
        -0.0,
        [-0.0, 1.0],
        [0.0, 0.0],
        [0.1, 0.25, 1.0],
        [1e-5, 1.0],  # min < 1e-4: sci
        [1.0, 2000.0],  # integer valued, ratio > 1000: sci
        [0.5, 999.0],
        [1.5, 1500.0],  # ratio > 1000: sci
        [1e9, 1.0],  # > 1e8: sci
        [123456789.0],
        [1e-30, 1e30],
        [-1e-5, 3.25, -1234.5],
        NAN,
        INF,
        [NAN, NAN],
        [NAN, 1.5, INF],
        [NAN, 1e-6, -INF],
        [0.0, -INF],
        [[NAN, 2.0], [INF, -3.0]],
        [65504.0, -65504.0],
    ],
)
def test_floats(torch, data, dtype):
    check(torch, data, dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", [(7,), (40,), (5, 9), (3, 4, 5), (2, 3, 2, 4)])
@pytest.mark.parametrize("scale", [1.0, 1e-3, 1e5, 1e-6])
def test_random_floats(torch, shape, dtype, scale):
    data = np.random.default_rng(sum(shape)).standard_normal(shape) * scale
    check(torch, data, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape", [(1001,), (10000,), (20, 100), (2, 600), (10, 10, 30), (7, 7, 7, 7), (3, 1000)]
)
def test_summarized(torch, shape, dtype):
    n = int(np.prod(shape))
    g = genesis.arange(n).view(*shape).to(getattr(genesis, dtype))
    t = torch.arange(n).view(*shape).to(getattr(torch, dtype))
    check_pair(g, t)


@pytest.mark.parametrize("shape", [(2000,), (40, 50), (11, 12, 13)])
def test_summarized_random(torch, shape):
    data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    data[(0,) * len(shape)] = 12345.678  # wide values in the printed corner
    check(torch, data)
    data[(-1,) * len(shape)] = 1e-7  # sci mode decided by a printed value
    check(torch, data)


def test_summarized_float(torch):
    check_pair(genesis.arange(2000).view(20, 100).float(), torch.arange(2000).view(20, 100).float())
    check_pair(genesis.arange(1, 1002).float(), torch.arange(1, 1002).float())


def test_expanded(torch):
    check_pair(
        genesis.tensor([[1.5]]).expand(10**6, 10**6), torch.tensor([[1.5]]).expand(10**6, 10**6)
    )


def test_non_contiguous(torch):
    g, t = genesis.arange(12).view(3, 4), torch.arange(12).view(3, 4)
    check_pair(g.t(), t.t())
    check_pair(g[::2, 1::2], t[::2, 1::2])
    check_pair(g[:, -1], t[:, -1])
    check_pair(g.float().t(), t.float().t())
    g, t = genesis.arange(24).view(2, 3, 4), torch.arange(24).view(2, 3, 4)
    check_pair(g.permute(2, 0, 1), t.permute(2, 0, 1))
    check_pair(g[1, ::2, ::3], t[1, ::2, ::3])
    g, t = genesis.arange(6000).view(60, 100), torch.arange(6000).view(60, 100)
    check_pair(g.t(), t.t())
    check_pair(g[::3, 1::7], t[::3, 1::7])
    check_pair(g.t().to(genesis.bfloat16), t.t().to(torch.bfloat16))
    check_pair(g.t()[::2].to(genesis.float16), t.t()[::2].to(torch.float16))


@pytest.mark.parametrize(
    "options",
    [
        dict(precision=2),
        dict(precision=8),
        dict(precision=0),
        dict(threshold=10),
        dict(threshold=10, edgeitems=1),
        dict(threshold=10, edgeitems=5),
        dict(edgeitems=0),
        dict(threshold=10, edgeitems=0),
        dict(threshold=0),
        dict(linewidth=30),
        dict(linewidth=200),
        dict(sci_mode=True),
        dict(sci_mode=False),
        dict(profile="short"),
        dict(profile="full"),
    ],
    ids=repr,
)
def test_printoptions(torch, options):
    genesis.set_printoptions(**options)
    torch.set_printoptions(**options)
    rng = np.random.default_rng(1)
    for data in [
        rng.standard_normal(30) * 100,
        rng.standard_normal((6, 7)),
        np.array([1e-6, 1.0, 12345.0]),
        np.array([1.0, 2.0, 1e5]),
        np.array([NAN, 1.5]),
        np.array([0.0, NAN, -INF]),
        np.arange(2000).reshape(40, 50),
        np.arange(50),
        1.25,
    ]:
        check(torch, data)
        check(torch, data, "float64")
    check_pair(genesis.arange(1200).float(), torch.arange(1200).float())


def test_randomized(torch):
    """Random shapes, dtypes, values, views and print options, all against torch."""
    rng = np.random.default_rng(1234)
    option_values = dict(
        precision=[0, 2, 6],
        threshold=[0, 50, 1000],
        edgeitems=[0, 1, 2, 5],
        linewidth=[1, 30, 120],
        sci_mode=[None, True, False],
    )
    for _ in range(300):
        options = {
            k: v[rng.integers(len(v))] for k, v in option_values.items() if rng.random() < 0.2
        }
        genesis.set_printoptions(profile="default", **options)
        torch.set_printoptions(profile="default", **options)
        shape = tuple(int(n) for n in rng.integers(0, 12, rng.integers(0, 5)))
        data = np.array(rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 9, shape))
        data[rng.random(shape) < 0.1] = rng.choice([0.0, NAN, INF, -INF])
        dtype = DTYPES[rng.integers(len(DTYPES))]
        if dtype not in FLOAT_DTYPES:
            data = np.nan_to_num(data, posinf=0, neginf=0).clip(-100, 100).astype(np.int64)
            if dtype == "bool":
                data = data != 0
            elif dtype == "uint8":
                data = data % 256
        g = genesis.tensor(data, dtype=getattr(genesis, dtype))
        t = torch.tensor(data, dtype=getattr(torch, dtype))
        if len(shape) >= 2:
            g, t = g.transpose(0, -1 + len(shape)), t.transpose(0, -1 + len(shape))
        if shape and shape[0] > 2:
            g, t = g[1::2], t[1::2]
        check_pair(g, t)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"precision": genesis.ones(2)}, TypeError),
        ({"precision": 2.5}, TypeError),
        ({"threshold": "10"}, TypeError),
        ({"edgeitems": True}, TypeError),
        ({"linewidth": None, "sci_mode": 1}, TypeError),
        ({"profile": "tiny"}, ValueError),
    ],
)
def test_set_printoptions_refuses_bad_values(kwargs, error):
    before = genesis.get_printoptions()
    with pytest.raises(error) as e:
        genesis.set_printoptions(**kwargs)
    check_message(e, "set_printoptions")
    assert genesis.get_printoptions() == before  # nothing half-set


def test_threshold_inf_never_summarizes():
    try:
        genesis.set_printoptions(threshold=float("inf"))
        assert "..." not in repr(genesis.arange(2000))
    finally:
        genesis.set_printoptions(profile="default")


def test_an_error_inside_a_binding_call_is_raised_not_fatal():
    """A RecursionError raised by Python code a binding runs (here: printing with a tensor as
    the precision, set behind set_printoptions' back) reaches the caller as an exception; the
    bindings' entry point lets no C++ exception end the process."""
    code = (
        "import genesis, genesis._tensor_str as s\n"
        "x = (genesis.rand(3, 4, dtype=genesis.float64) + 0.5).requires_grad_()\n"
        "s.PRINT_OPTS.precision = x\n"
        "try:\n"
        "    print({'precision': x})\n"
        "except RecursionError:\n"
        "    print('raised')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "raised"
