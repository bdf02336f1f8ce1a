"""genesis.testing.assert_close against torch.testing.assert_close.

Each case builds the same inputs with torch and with genesis (a function of the module), runs
both libraries' assert_close on them, and requires the same outcome: both pass, or both raise
the same exception class with the same message once PyTorch's names are genesis's
("torch.float32" -> "genesis.float32", the Tensor class's name, torch.Size where genesis has no
Size).
"""

import math
import re
import subprocess
import sys

import numpy as np
import pytest

import genesis
import genesis.testing

torch = pytest.importorskip("torch")

inf, nan = math.inf, math.nan


def outcome(assert_close, actual, expected, kwargs):
    """None when assert_close passes, else (exception class name, message)."""
    try:
        assert_close(actual, expected, **kwargs)
    except (AssertionError, ValueError, TypeError) as e:
        return type(e).__name__, str(e)
    return None


def _size(match):
    sizes = [int(s) for s in re.findall(r"\d+", match.group(1))]
    size = getattr(genesis, "Size", None)
    return repr(size(sizes) if size is not None else tuple(sizes))


def genesis_names(result):
    """torch's outcome in genesis's words."""
    if result is None:
        return None
    kind, msg = result
    msg = msg.replace("<class 'torch.Tensor'>", f"<class '{genesis.Tensor.__module__}.Tensor'>")
    msg = re.sub(r"torch\.Size\((\[[^\]]*\])\)", _size, msg)
    return kind, msg.replace("torch.", "genesis.")


def check(case, **kwargs):
    """Runs ``case(module) -> (actual, expected)`` through both libraries' assert_close."""
    want = genesis_names(outcome(torch.testing.assert_close, *case(torch), kwargs))
    got = outcome(genesis.testing.assert_close, *case(genesis), kwargs)
    assert got == want
    return got


def t(m, data, dtype="float32"):
    return m.tensor(data, dtype=getattr(m, dtype))


# ---- tensors: equal, close, not close ---------------------------------------------------------

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTEGERS = ["uint8", "int8", "int16", "int32", "int64"]
# Per float dtype: an offset from 1.0 within the default tolerances and one beyond them.
OFFSETS = {
    "float16": (2.0**-10, 2.0**-9),  # rtol 1e-3: one ulp at 1.0 is close, two are not
    "bfloat16": (2.0**-6, 3 * 2.0**-7),  # rtol 1.6e-2
    "float32": (5e-6, 3e-5),  # atol 1e-5 + rtol 1.3e-6
    "float64": (1e-7, 1e-6),  # 1e-7 + 1e-7
}


@pytest.mark.parametrize("dtype", FLOATS + INTEGERS + ["bool"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4), (0,), (2, 0)])
def test_equal_tensors_pass(dtype, shape):
    data = np.arange(math.prod(shape)).reshape(shape) % 2
    assert check(lambda m: (t(m, data.tolist(), dtype), t(m, data.tolist(), dtype))) is None


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("data", [1.0, [1.0, 1.0, 1.0], [[1.0, 2.0], [1.0, -1.0]]])
def test_close_and_not_close_by_dtype(dtype, data):
    near, far = OFFSETS[dtype]
    flat = np.ravel(data)
    for offset, passes in ((near, True), (far, False)):
        moved = np.where(np.arange(flat.size) == flat.size - 1, flat + offset, flat)
        moved = moved.reshape(np.shape(data)).tolist()
        result = check(lambda m: (t(m, moved, dtype), t(m, data, dtype)))  # noqa: B023
        assert (result is None) == passes


@pytest.mark.parametrize("dtype", INTEGERS + ["bool"])
def test_integers_and_bool_compare_exactly(dtype):
    a, b = ([1, 0, 1], [1, 1, 0]) if dtype == "bool" else ([1, 2, 3, 4], [1, 2, 4, 9])
    result = check(lambda m: (t(m, a, dtype), t(m, b, dtype)))
    assert result[1].startswith("Tensor-likes are not equal!")
    check(lambda m: (t(m, a[0], dtype), t(m, b[-1], dtype)))  # 0-d: "Scalars are not equal!"


def test_integer_differences_do_not_wrap():
    check(lambda m: (t(m, [0, 255], "uint8"), t(m, [255, 0], "uint8")))
    check(lambda m: (t(m, [-128, 127], "int8"), t(m, [127, -128], "int8")))


def test_not_close_messages():
    result = check(lambda m: (t(m, [1.0, 2.5, 3.0]), t(m, [1.0, 2.0, 3.0])))
    assert result == (
        "AssertionError",
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.25 at index (1,) (up to 1.3e-06 allowed)",
    )
    check(lambda m: (t(m, 1.5), t(m, 1.25)))  # 0-d: Scalars are not close!
    check(lambda m: (t(m, [[1.0, 2.0], [3.0, 4.0]]), t(m, [[1.0, 2.1], [3.5, 4.0]])))
    check(
        lambda m: (t(m, [[[1.0], [0.0]], [[5.0], [2.0]]]), t(m, [[[1.0], [1.0]], [[0.0], [2.0]]]))
    )
    # The greatest differences at different places; ties go to the first.
    check(lambda m: (t(m, [10.0, 1.0, 0.0, 3.0]), t(m, [5.0, 0.5, 1.0, 8.0])))
    check(lambda m: (t(m, [2.0, 3.0, 2.0]), t(m, [1.0, 2.0, 1.0])))
    # Relative to an expected 0: infinite.
    check(lambda m: (t(m, [1.0, 1.0]), t(m, [1.0, 0.0])))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4)])
def test_random_values_near_the_tolerance(dtype, shape):
    rng = np.random.default_rng([FLOATS.index(dtype), *shape])  # the same data every run
    expected = rng.standard_normal(shape).astype(np.float32)
    rtol, atol = torch.testing._comparison._DTYPE_PRECISIONS[getattr(torch, dtype)]
    scale = (atol + rtol * np.abs(expected)) * rng.uniform(0.0, 2.0, shape)
    actual = (expected + scale * rng.choice([-1.0, 1.0], shape)).astype(np.float32)

    def case(m):
        lib = torch if m is torch else genesis
        return tuple(lib.from_numpy(x).to(getattr(m, dtype)) for x in (actual, expected))

    check(case)
    check(case, rtol=1e-2, atol=1e-3)


def test_non_contiguous():
    # A transpose, a step and a broadcast: indices are of the logical shape.
    check(lambda m: (t(m, [[1.0, 2.0], [3.0, 4.0]]).t(), t(m, [[1.0, 3.0], [2.0, 5.0]])))
    check(lambda m: (t(m, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])[::2], t(m, [0.0, 2.0, 4.5])))
    check(lambda m: (t(m, [1.0, 2.0]).expand(3, 2), t(m, [[1.0, 2.0]] * 2 + [[1.0, 2.5]])))
    check(lambda m: (t(m, [[1.0, 2.0], [3.0, 4.0]]).t(), t(m, [[1.0, 3.0], [2.0, 4.0]])))


def test_check_stride():
    def case(m):
        return t(m, [[1.0, 2.0], [3.0, 4.0]]).t(), t(m, [[1.0, 3.0], [2.0, 4.0]])

    assert check(case) is None
    assert check(case, check_stride=True)[1].startswith("The values for attribute 'stride()'")


def test_zero_size():
    assert check(lambda m: (m.zeros(0), m.zeros(0))) is None
    assert check(lambda m: (m.zeros(2, 0, 3), m.zeros(2, 0, 3))) is None
    check(lambda m: (m.zeros(0), m.zeros(1)))
    check(lambda m: (m.zeros(2, 0), m.zeros(0, 2)))
    check(lambda m: (m.zeros(0), m.zeros(0, dtype=m.float64)))


# ---- NaN and infinities -----------------------------------------------------------------------


@pytest.mark.parametrize("equal_nan", [False, True])
def test_nan(equal_nan):
    check(lambda m: (t(m, [1.0, nan]), t(m, [1.0, nan])), equal_nan=equal_nan)
    check(lambda m: (t(m, nan), t(m, nan)), equal_nan=equal_nan)
    check(lambda m: (t(m, [nan, 1.0, 2.0]), t(m, [1.0, nan, 2.0])), equal_nan=equal_nan)
    check(lambda m: (t(m, [1.0, 5.0, nan]), t(m, [1.0, 1.0, nan])), equal_nan=equal_nan)
    check(lambda m: (t(m, [nan], "float16"), t(m, [nan], "float16")), equal_nan=equal_nan)
    check(lambda m: (nan, nan), equal_nan=equal_nan)
    check(lambda m: ([nan, 1.0], [nan, 1.0]), equal_nan=equal_nan)


def test_infinities():
    assert check(lambda m: (t(m, [inf, -inf, 1.0]), t(m, [inf, -inf, 1.0]))) is None
    check(lambda m: (t(m, [inf, 1.0]), t(m, [-inf, 1.0])))
    check(lambda m: (t(m, [-inf, 1.0]), t(m, [inf, 1.0])))
    check(lambda m: (t(m, [1.0, inf]), t(m, [1.0, 1e30])))
    check(lambda m: (t(m, [1.0, 1e30]), t(m, [1.0, -inf])))
    check(lambda m: (t(m, inf), t(m, -inf)))
    check(lambda m: (t(m, [inf], "float64"), t(m, [inf], "float64")), rtol=0.5, atol=1.0)
    check(lambda m: (inf, -inf))
    check(lambda m: (inf, inf))


# ---- attributes -------------------------------------------------------------------------------


def test_shape_mismatch():
    result = check(lambda m: (t(m, [1.0, 2.0]), t(m, [1.0, 2.0, 3.0])))
    assert result[1].startswith("The values for attribute 'shape' do not match: ")
    check(lambda m: (t(m, [[1.0, 2.0]]), t(m, [1.0, 2.0])))
    check(lambda m: (t(m, 1.0), t(m, [1.0])))


def test_dtype_mismatch():
    result = check(lambda m: (t(m, [1.0]), t(m, [1.0], "float64")))
    assert result == (
        "AssertionError",
        "The values for attribute 'dtype' do not match: genesis.float32 != genesis.float64.",
    )
    check(lambda m: (t(m, [1], "int32"), t(m, [1], "int64")))
    check(lambda m: (t(m, [1], "bool"), t(m, [1], "uint8")))


def test_check_dtype_false_promotes_and_takes_the_looser_tolerance():
    kw = {"check_dtype": False}
    assert check(lambda m: (t(m, [1.0, 2.0]), t(m, [1.0, 2.0], "float64")), **kw) is None
    assert check(lambda m: (t(m, [1.0, 2.0 + 5e-6]), t(m, [1.0, 2.0], "float64")), **kw) is None
    check(lambda m: (t(m, [1.0, 2.5]), t(m, [1.0, 2.0], "float64")), **kw)
    check(lambda m: (t(m, [1, 2], "int32"), t(m, [1.0, 2.5], "float16")), **kw)
    check(lambda m: (t(m, [1, 3], "uint8"), t(m, [1, -3], "int8")), **kw)
    check(lambda m: (t(m, [1.0], "bfloat16"), t(m, [1.01], "float16")), **kw)
    check(lambda m: (t(m, 1, "int64"), t(m, 1.5, "float32")), **kw)
    # The shape is checked all the same.
    check(lambda m: (t(m, [1.0]), t(m, [1.0, 2.0], "float64")), **kw)


def test_explicit_tolerances():
    check(lambda m: (t(m, [1.0, 2.0]), t(m, [1.0, 2.1])), rtol=0.0, atol=0.2)
    check(lambda m: (t(m, [1.0, 2.0]), t(m, [1.0, 2.1])), rtol=0.0, atol=0.05)
    check(lambda m: (t(m, [1.0, 2.0]), t(m, [1.0, 2.0 + 1e-6])), rtol=0, atol=0)  # "equal"
    check(lambda m: (t(m, [1, 5], "int32"), t(m, [1, 7], "int32")), rtol=0.5, atol=0.0)
    check(lambda m: (t(m, [1, 5], "int32"), t(m, [1, 9], "int32")), rtol=0.1, atol=1)
    check(lambda m: (t(m, [True, False], "bool"), t(m, [True, True], "bool")), rtol=0, atol=1)
    check(lambda m: (t(m, [True, False], "bool"), t(m, [True, True], "bool")), rtol=0.5, atol=0.1)


# ---- numbers, None, arrays --------------------------------------------------------------------

NUMBERS = [
    (1, 1),
    (1, 2),
    (0, 3),
    (1.0, 1.0 + 1e-8),
    (1.0, 1.1),
    (2.5, 0.0),
    (1, 1.0),
    (1.0, 1),
    (1 + 2j, 1 + 2j),
    (1 + 2j, 1 + 3j),
    (True, True),
    (True, False),
    (None, None),
    (None, 1),
    (1.0, None),
    (np.float32(1.0), np.float32(1.1)),
    (np.float64(2.0), 2.0),
    (np.int64(3), 3),
    (np.bool_(True), np.bool_(False)),
    (np.bool_(True), True),
    ("a", "a"),
    ({1, 2}, {1, 2}),
]


@pytest.mark.parametrize("check_dtype", [True, False])
@pytest.mark.parametrize("pair", NUMBERS, ids=repr)
def test_numbers(pair, check_dtype):
    check(lambda m: pair, check_dtype=check_dtype)


def test_unrelated_types_are_a_type_error():
    result = check(lambda m: (t(m, 1.0), 1.0))
    assert result[0] == "TypeError"
    check(lambda m: (1.0, t(m, 1.0)))
    check(lambda m: (t(m, [1.0, 2.0]), [1.0, 2.0]))
    check(lambda m: (np.array([1.0]), t(m, [1.0], "float64")))
    check(lambda m: (t(m, [1.0]), None))


def test_numpy_arrays():
    check(lambda m: (np.array([1.0, 2.0]), np.array([1.0, 2.0])))
    check(lambda m: (np.array([1.0, 2.0]), np.array([1.0, 2.5])))
    check(lambda m: (np.array([1, 2], np.int32), np.array([1, 3], np.int32)))
    check(lambda m: (np.array([1.0], np.float32), np.array([1.0])))
    check(lambda m: (np.arange(6.0).reshape(2, 3).T, np.arange(6.0).reshape(3, 2)))
    check(lambda m: (np.array(2.0), np.array(2.5)))
    check(lambda m: (np.array([1.0, 2.0], ">f4"), np.array([1.0, 2.0], ">f4")))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix, an ndarray subclass
@pytest.mark.parametrize("allow_subclasses", [True, False])
def test_allow_subclasses(allow_subclasses):
    kw = {"allow_subclasses": allow_subclasses}
    check(lambda m: (np.array([[1.0, 2.0]]), np.asmatrix([[1.0, 2.0]])), **kw)
    check(lambda m: (np.array([[1.0, 2.0]]), np.array([[1.0, 2.0]])), **kw)


# ---- sequences and mappings -------------------------------------------------------------------


def test_sequences():
    assert (
        check(
            lambda m: ([t(m, [1.0]), t(m, [2, 3], "int64")], (t(m, [1.0]), t(m, [2, 3], "int64")))
        )
        is None
    )
    check(lambda m: ([t(m, [1.0]), t(m, [2.0])], [t(m, [1.0]), t(m, [2.5])]))
    check(lambda m: ((1, 2.0, [3]), (1, 2.0, [4])))
    check(lambda m: ([], []))
    check(lambda m: ([t(m, [1.0])], [t(m, [1.0]), t(m, [2.0])]))
    check(lambda m: ([1, [2, 3]], [1, [2]]))
    check(lambda m: ([1, [2, 3]], [2, [2]]))  # the structure is checked first
    check(lambda m: (b"ab", b"ac"))
    check(lambda m: ("ab", "ab"))


def test_mappings():
    def nested(m, last):
        return {"a": [t(m, [1.0]), (t(m, [[2.0]]), 3)], "b": {"c": t(m, [4.0, last])}}

    assert check(lambda m: (nested(m, 5.0), nested(m, 5.0))) is None
    result = check(lambda m: (nested(m, 5.0), nested(m, 6.0)))
    assert result[1].endswith("\n\nThe failure occurred for item ['b']['c']")
    check(lambda m: ({"a": 1, "b": 2}, {"a": 1, "c": 2}))
    check(lambda m: ({"a": 1}, {"a": 1, "b": 2}))
    check(lambda m: ({"x": [1, {"y": 2}]}, {"x": [1, {"y": 3}]}))
    check(lambda m: ({1: 1.0, "a": 2.0}, {1: 1.0, "a": 2.5}))  # keys that do not sort
    check(lambda m: ({"a": [1, 2]}, {"a": [1]}))


def test_first_failure_wins():
    check(lambda m: ([t(m, [1.0]), t(m, [2.0])], [t(m, [1.5]), t(m, [2.5])]))
    check(lambda m: ([t(m, [1.0]), t(m, [2.0])], [t(m, [1.0]), t(m, [2.0], "float64")]))


# ---- msg and tolerance arguments --------------------------------------------------------------


@pytest.mark.parametrize(
    "msg", ["custom message", lambda generated: f"Header\n\n{generated}\n\nFooter"], ids=str
)
def test_msg(msg):
    check(lambda m: (t(m, [1.0, 2.0]), t(m, [1.0, 3.0])), msg=msg)
    check(lambda m: (t(m, [1.0]), t(m, [1.0, 3.0])), msg=msg)
    check(lambda m: ({"a": [t(m, 1.0)]}, {"a": [t(m, 2.0)]}), msg=msg)
    check(lambda m: (1, 2), msg=msg)
    check(lambda m: (None, 2.0), msg=msg)
    # Errors of structure and of arguments keep their own message.
    check(lambda m: ([1], [1, 2]), msg=msg)
    check(lambda m: (t(m, 1.0), 1.0), msg=msg)
    check(lambda m: (t(m, 1.0), t(m, 1.0)), msg=msg, rtol=1e-3)
    assert check(lambda m: (t(m, 1.0), t(m, 1.0)), msg=msg) is None


@pytest.mark.parametrize("which", ["rtol", "atol"])
def test_only_one_tolerance_is_a_value_error(which):
    result = check(lambda m: (t(m, [1.0]), t(m, [1.0])), **{which: 1e-3})
    assert result[0] == "ValueError"
    check(lambda m: (1.0, 1.0), **{which: 1e-3})
    check(lambda m: ({"a": [t(m, [1.0])]}, {"a": [t(m, [1.0])]}), **{which: 1e-3})
    check(lambda m: (None, None), **{which: 1e-3})  # None and bools take no tolerance
    check(lambda m: (True, True), **{which: 1e-3})


# ---- autograd, and no torch inside genesis ----------------------------------------------------


def test_tensors_that_require_grad():
    check(lambda m: (m.ones(2, requires_grad=True) * 2, m.full((2,), 2.5)))
    x = genesis.ones(2, requires_grad=True)
    genesis.testing.assert_close(x, x.detach())
    assert x.grad is None


def test_genesis_testing_does_not_import_torch():
    code = (
        "import sys, genesis\n"
        "genesis.testing.assert_close(genesis.ones(2), genesis.ones(2))\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


# ---- CUDA -------------------------------------------------------------------------------------

needs_cuda = pytest.mark.skipif(not genesis.cuda.is_available(), reason="needs a GPU")
needs_both_cuda = pytest.mark.skipif(
    not (genesis.cuda.is_available() and torch.cuda.is_available()),
    reason="needs a GPU that genesis and torch both use",
)


@needs_cuda
def test_cuda_device_mismatch_message():
    with pytest.raises(AssertionError) as info:
        genesis.testing.assert_close(genesis.ones(2, device="cuda"), genesis.ones(2))
    assert str(info.value) == "The values for attribute 'device' do not match: cuda:0 != cpu."
    genesis.testing.assert_close(
        genesis.ones(2, device="cuda"), genesis.ones(2), check_device=False
    )
    with pytest.raises(AssertionError, match=r"^Tensor-likes are not close!"):
        genesis.testing.assert_close(
            genesis.ones(2, device="cuda"), genesis.zeros(2), check_device=False
        )


@needs_both_cuda
@pytest.mark.parametrize("dtype", FLOATS + ["int32", "bool"])
def test_cuda_same_outcome_as_torch(dtype):
    a, b = [[1.0, 0.0, 2.0], [nan, 1.0, inf]], [[1.0, 1.0, 2.5], [nan, 1.0, inf]]
    if dtype in ("int32", "bool"):
        a, b = [[1, 0, 2], [3, 1, 1]], [[1, 1, 2], [3, 0, 1]]
    assert check(lambda m: (t(m, a, dtype).cuda(), t(m, a, dtype).cuda()), equal_nan=True) is None
    check(lambda m: (t(m, a, dtype).cuda(), t(m, b, dtype).cuda()))
    check(lambda m: (t(m, a, dtype).cuda().t(), t(m, b, dtype).cuda().t()), equal_nan=True)
    check(lambda m: (t(m, a, dtype).cuda(), t(m, b, dtype)))
    check(lambda m: (t(m, a, dtype).cuda(), t(m, b, dtype)), check_device=False)
    check(lambda m: (t(m, a, dtype).cuda(), t(m, a, dtype)), check_device=False, equal_nan=True)
    check(lambda m: (t(m, a[0], dtype).cuda()[1], t(m, b[0], dtype).cuda()[1]))
