"""Factories: tensor, empty/zeros/ones/full, arange, linspace, eye, *_like, from_numpy."""

import numpy as np
import pytest
from conftest import (
    DTYPES,
    NP_DTYPE,
    assert_equal,
    check_message,
    dtype_id,
    random_array,
    to_numpy,
)

import genesis

# --- genesis.tensor ---


@pytest.mark.parametrize(
    "data, dtype",
    [
        (3, genesis.int64),
        (-7, genesis.int64),
        (2.5, genesis.float32),
        (True, genesis.bool),
        (False, genesis.bool),
    ],
)
def test_tensor_from_python_scalar(device, data, dtype):
    t = genesis.tensor(data, device=device)
    assert t.shape == ()
    assert t.ndim == 0
    assert t.dtype is dtype
    assert t.device.type == device
    assert t.item() == data
    assert type(t.item()) is type(data)


@pytest.mark.parametrize(
    "data, dtype",
    [
        ([1, 2, 3], genesis.int64),
        ([[1, -2], [3, 4]], genesis.int64),
        ([1.5, 2, 3], genesis.float32),
        ([[1, 2], [3, 4.25]], genesis.float32),
        ([True, False], genesis.bool),
        ([True, 2], genesis.int64),
        ([True, 2.5], genesis.float32),
        ((1, 2, 3), genesis.int64),
        (((1.0, 2.0), (3.0, 4.0)), genesis.float32),
        ([(1, 2), [3, 4]], genesis.int64),
        ([[[1], [2]], [[3], [4]]], genesis.int64),
    ],
)
def test_tensor_from_nested_sequences_infers_like_torch(device, data, dtype):
    t = genesis.tensor(data, device=device)
    assert_equal(t, np.array(data, dtype=NP_DTYPE[dtype]), dtype)


def test_tensor_from_empty_list():
    assert_equal(genesis.tensor([]), np.zeros(0, np.float32))
    assert_equal(genesis.tensor([[], []]), np.zeros((2, 0), np.float32))


def test_tensor_from_numpy_keeps_dtype_and_copies(device, dtype):
    if dtype is genesis.bfloat16:
        pytest.skip("NumPy has no bfloat16")
    a = random_array((3, 4), dtype, seed=1)
    t = genesis.tensor(a, device=device)
    assert_equal(t, a)
    original = a.copy()
    a[...] = a[::-1]  # mutate the source: the tensor keeps its own copy
    assert_equal(t, original)
    if device == "cpu":
        assert t.data_ptr() != a.ctypes.data


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a.T,
        lambda a: a[::2, ::-1],
        lambda a: a[::-1, 1::3],
        lambda a: np.broadcast_to(a[:1], (4, 6)),
    ],
)
def test_tensor_from_strided_numpy(device, make):
    a = make(random_array((4, 6), genesis.float32, seed=2))
    assert_equal(genesis.tensor(a, device=device), a)


def test_tensor_from_numpy_zero_size_and_0d(device):
    assert_equal(
        genesis.tensor(np.zeros((0, 3), np.int16), device=device), np.zeros((0, 3), np.int16)
    )
    assert_equal(genesis.tensor(np.array(2.5), device=device), np.array(2.5))


@pytest.mark.parametrize(
    "scalar, dtype",
    [
        (np.float16(1.5), genesis.float16),
        (np.float32(-2.25), genesis.float32),
        (np.float64(3.125), genesis.float64),
        (np.int8(-5), genesis.int8),
        (np.uint8(200), genesis.uint8),
        (np.int32(7), genesis.int32),
        (np.int64(-9), genesis.int64),
        (np.bool_(True), genesis.bool),
    ],
)
def test_tensor_from_numpy_scalar_keeps_dtype(device, scalar, dtype):
    t = genesis.tensor(scalar, device=device)
    assert t.shape == ()
    assert t.dtype is dtype
    assert t.item() == scalar


def test_tensor_from_tensor_copies(device, dtype):
    src = genesis.tensor(random_array((2, 5), dtype, seed=3), dtype=dtype, device=device)
    t = genesis.tensor(src)
    assert t.dtype is dtype
    assert t.device == src.device
    assert t.untyped_storage().data_ptr() != src.untyped_storage().data_ptr()
    expected = to_numpy(src)
    src.fill_(1)
    assert_equal(t, expected, dtype)


def test_tensor_from_tensor_with_dtype(device):
    src = genesis.tensor([1.75, -2.5, 3.0], device=device)
    assert_equal(genesis.tensor(src, dtype=genesis.int32), np.array([1, -2, 3], np.int32))


def test_tensor_from_list_of_0d_tensors():
    t = genesis.tensor([genesis.tensor(1.5), genesis.tensor(2.5)])
    assert_equal(t, np.array([1.5, 2.5], np.float32))


def test_tensor_dtype_argument(device, dtype):
    a = random_array((3, 2), dtype, seed=4)
    t = genesis.tensor(a.tolist(), dtype=dtype, device=device)
    assert_equal(t, a, dtype)


def test_tensor_dtype_argument_converts():
    assert_equal(genesis.tensor([1.9, -1.9, 0.5], dtype=genesis.int64), np.array([1, -1, 0]))
    assert_equal(
        genesis.tensor([0.0, 0.5, -0.0, -3.0], dtype=genesis.bool), [False, True, False, True]
    )
    assert_equal(genesis.tensor([0, 2, -1], dtype=genesis.bool), np.array([False, True, True]))
    assert_equal(genesis.tensor([True, False], dtype=genesis.float64), np.array([1.0, 0.0]))
    assert_equal(genesis.tensor(3, dtype=genesis.float16), np.array(3, np.float16))


# --- empty / zeros / ones / full ---


@pytest.mark.parametrize("make", ["zeros", "ones", "empty"])
@pytest.mark.parametrize(
    "args, shape",
    [
        ((2, 3), (2, 3)),
        (((2, 3),), (2, 3)),
        (([2, 3],), (2, 3)),
        ((4,), (4,)),
        ((), ()),
        (((),), ()),
        ((0,), (0,)),
        ((3, 0, 2), (3, 0, 2)),
        ((np.int64(2), 3), (2, 3)),
    ],
)
def test_size_forms(device, make, args, shape):
    t = getattr(genesis, make)(*args, device=device)
    assert t.shape == shape
    assert t.dtype is genesis.float32
    assert t.device.type == device
    assert t.is_contiguous()


def test_zeros_ones(device, dtype):
    for fn, value in [(genesis.zeros, 0), (genesis.ones, 1)]:
        t = fn(3, 4, dtype=dtype, device=device)
        assert_equal(t, np.full((3, 4), value, NP_DTYPE[dtype]), dtype)


def test_empty_dtype(device, dtype):
    t = genesis.empty((2, 7), dtype=dtype, device=device)
    assert t.shape == (2, 7)
    assert t.dtype is dtype
    assert t.stride() == (7, 1)


@pytest.mark.parametrize(
    "value, dtype",
    [(True, genesis.bool), (3, genesis.int64), (-3.5, genesis.float32), (False, genesis.bool)],
)
def test_full_infers_dtype(device, value, dtype):
    t = genesis.full((2, 3), value, device=device)
    assert_equal(t, np.full((2, 3), value, NP_DTYPE[dtype]), dtype)


def test_full_with_dtype(device, dtype):
    value = {genesis.bool: True, genesis.uint8: 200, genesis.int8: -100}.get(dtype, -77)
    if dtype.is_floating_point:
        value = -2.75
    t = genesis.full((5, 2), value, dtype=dtype, device=device)
    assert_equal(t, np.full((5, 2), value, NP_DTYPE[dtype]), dtype)


def test_full_size_forms():
    assert genesis.full(3, 1.0).shape == (3,)
    assert genesis.full([2, 2], 1.0).shape == (2, 2)
    assert genesis.full((), 1.0).shape == ()
    assert genesis.full((0, 4), 1.0).shape == (0, 4)


# --- arange / linspace / eye ---


@pytest.mark.parametrize(
    "args",
    [(5,), (2, 10), (2, 10, 3), (10, 0, -3), (-5, 5, 2), (7, 7), (0,), (-3, -10, -1)],
)
def test_arange_int(device, args):
    t = genesis.arange(*args, device=device)
    assert_equal(t, np.arange(*args, dtype=np.int64))


@pytest.mark.parametrize(
    "args",
    [(5.0,), (0, 1, 0.1), (-1.5, 2.5, 0.5), (3, -1, -0.75), (0.5, 4), (1, 2, 0.3)],
)
def test_arange_float(device, args):
    t = genesis.arange(*args, device=device)
    expected = np.arange(*args)
    assert t.dtype is genesis.float32
    assert t.shape == expected.shape
    np.testing.assert_allclose(to_numpy(t), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [genesis.int32, genesis.float64, genesis.int8, genesis.float16])
def test_arange_dtype(device, dtype):
    t = genesis.arange(1, 11, 2, dtype=dtype, device=device)
    assert_equal(t, np.arange(1, 11, 2, dtype=NP_DTYPE[dtype]), dtype)


@pytest.mark.parametrize("step", [0, 0.0])
def test_arange_step_zero(step):
    with pytest.raises(ValueError) as e:
        genesis.arange(0, 10, step)
    check_message(e, "arange")


@pytest.mark.parametrize(
    "start, end, steps", [(0, 1, 5), (-3, 7, 11), (2, 2, 1), (5, -5, 4), (0, 1, 0), (1.5, 9.5, 1)]
)
def test_linspace(device, start, end, steps):
    t = genesis.linspace(start, end, steps, device=device)
    assert t.dtype is genesis.float32
    assert t.shape == (steps,)
    np.testing.assert_allclose(to_numpy(t), np.linspace(start, end, steps), rtol=1e-6, atol=1e-6)


def test_linspace_dtype(device):
    t = genesis.linspace(0, 1, 7, dtype=genesis.float64, device=device)
    assert t.dtype is genesis.float64
    np.testing.assert_allclose(to_numpy(t), np.linspace(0, 1, 7), rtol=1e-15)


def test_linspace_negative_steps():
    with pytest.raises(ValueError) as e:
        genesis.linspace(0, 1, -1)
    check_message(e, "linspace")


@pytest.mark.parametrize("n, m", [(3, None), (1, None), (0, None), (2, 5), (5, 2), (4, 0)])
def test_eye(device, n, m):
    t = genesis.eye(n, device=device) if m is None else genesis.eye(n, m, device=device)
    assert_equal(t, np.eye(n, m, dtype=np.float32))


def test_eye_dtype(device, dtype):
    assert_equal(
        genesis.eye(3, 4, dtype=dtype, device=device), np.eye(3, 4, dtype=NP_DTYPE[dtype]), dtype
    )


# --- *_like ---


def test_like_functions(device, dtype):
    base = genesis.tensor(random_array((4, 3), dtype, seed=5), dtype=dtype, device=device).T
    for fn, value in [(genesis.zeros_like, 0), (genesis.ones_like, 1)]:
        assert_equal(fn(base), np.full((3, 4), value, NP_DTYPE[dtype]), dtype)
    assert_equal(genesis.full_like(base, 1), np.full((3, 4), 1, NP_DTYPE[dtype]), dtype)
    e = genesis.empty_like(base)
    assert (e.shape, e.dtype, e.device) == ((3, 4), dtype, base.device)


def test_like_functions_dtype_override(device):
    base = genesis.zeros(2, 3, dtype=genesis.int16, device=device)
    assert_equal(genesis.zeros_like(base, dtype=genesis.float64), np.zeros((2, 3)))
    assert_equal(genesis.ones_like(base, dtype=genesis.bool), np.ones((2, 3), bool))
    assert_equal(
        genesis.full_like(base, 2.5, dtype=genesis.float16), np.full((2, 3), 2.5, np.float16)
    )
    assert genesis.empty_like(base, dtype=genesis.uint8).dtype is genesis.uint8


def test_full_like_casts_fill_to_input_dtype():
    base = genesis.zeros(3, dtype=genesis.int32)
    assert_equal(genesis.full_like(base, 2.9), np.full(3, 2, np.int32))


def test_like_zero_size_and_0d():
    assert genesis.ones_like(genesis.zeros(0, 5)).shape == (0, 5)
    assert_equal(genesis.ones_like(genesis.tensor(4)), np.array(1))


def test_like_requires_a_tensor():
    with pytest.raises(TypeError) as e:
        genesis.zeros_like(np.zeros(3))
    check_message(e, "zeros_like")


# --- from_numpy ---


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d is not genesis.bfloat16], ids=dtype_id)
def test_from_numpy_shares_memory_both_ways(dtype):
    a = random_array((3, 4), dtype, seed=6)
    t = genesis.from_numpy(a)
    assert t.dtype is dtype
    assert t.data_ptr() == a.ctypes.data
    assert_equal(t, a)
    a[1, 2] = a[0, 0]  # numpy -> tensor
    assert t[1, 2].item() == a[0, 0]
    value = a[2, 3]
    t[0, 1] = value.item()  # tensor -> numpy
    assert a[0, 1] == value


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a.T,
        lambda a: a[::2],
        lambda a: a[::-1],
        lambda a: a[:, ::-2],
        lambda a: a[::-2, 1::3],
        lambda a: a[1:, 2],
        lambda a: a[::-1, ::-1].T,
    ],
)
def test_from_numpy_strided_shares_memory(make):
    base = random_array((6, 7), genesis.float64, seed=7)
    a = make(base)
    t = genesis.from_numpy(a)
    assert t.shape == a.shape
    assert t.stride() == tuple(s // a.itemsize for s in a.strides)
    assert t.data_ptr() == a.ctypes.data
    assert_equal(t, a)
    t.fill_(-1.0)
    assert (a == -1.0).all()
    assert (base == -1.0).sum() == a.size
    a[...] = 5.0
    assert_equal(t, np.full(a.shape, 5.0))


def test_from_numpy_broadcast_array_has_stride_zero():
    row = random_array((4,), genesis.int32, seed=8)
    t = genesis.from_numpy(np.broadcast_to(row, (3, 4)))
    assert t.stride() == (0, 1)
    assert_equal(t, np.broadcast_to(row, (3, 4)))
    assert_equal(t.contiguous(), np.broadcast_to(row, (3, 4)))


def test_from_numpy_keeps_array_alive():
    a = np.arange(10, dtype=np.int32)
    t = genesis.from_numpy(a[2:])
    del a
    assert t.tolist() == list(range(2, 10))


def test_from_numpy_0d_and_zero_size():
    assert_equal(genesis.from_numpy(np.array(3.5)), np.array(3.5))
    assert_equal(genesis.from_numpy(np.zeros((2, 0), np.int8)), np.zeros((2, 0), np.int8))


def test_from_numpy_requires_an_array():
    with pytest.raises(TypeError) as e:
        genesis.from_numpy([1, 2])
    check_message(e, "from_numpy")


# --- bad input ---


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda: genesis.zeros(-1), "zeros"),
        (lambda: genesis.ones(2, -3), "ones"),
        (lambda: genesis.empty((3, -1)), "empty"),
        (lambda: genesis.full((-2,), 1.0), "full"),
        (lambda: genesis.eye(-1), "eye"),
        (lambda: genesis.eye(2, -2), "eye"),
    ],
)
def test_negative_sizes(call, op):
    with pytest.raises(ValueError) as e:
        call()
    check_message(e, op)


@pytest.mark.parametrize(
    "data", [[[1, 2], [3]], [[1], 2], [1, [2]], [[[1, 2]], [[3]]], [[1, 2], []]]
)
def test_ragged_data(data):
    with pytest.raises(ValueError) as e:
        genesis.tensor(data)
    check_message(e, "tensor")


@pytest.mark.parametrize(
    "data", ["abc", ["a", "b"], [True, "x"], [1, "2"], None, [1, None], [[None]], {1: 2}, b"ab"]
)
def test_non_numeric_data(data):
    with pytest.raises(TypeError) as e:
        genesis.tensor(data)
    check_message(e, "tensor")


@pytest.mark.parametrize(
    "array",
    [
        np.zeros(3, np.complex64),
        np.zeros(3, np.uint16),
        np.array([1, "a"], dtype=object),
        np.zeros(2, np.uint32),
        np.array(["x", "y"]),
    ],
)
def test_unsupported_numpy_dtypes(array):
    for fn, op in [(genesis.tensor, "tensor"), (genesis.from_numpy, "from_numpy")]:
        with pytest.raises(TypeError) as e:
            fn(array)
        check_message(e, op)


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda: genesis.zeros(2.0), "zeros"),
        (lambda: genesis.zeros((2, 3.0)), "zeros"),
        (lambda: genesis.ones([1.5]), "ones"),
        (lambda: genesis.empty(2, 3.0), "empty"),
        (lambda: genesis.full((2.0,), 1), "full"),
        (lambda: genesis.eye(2.0), "eye"),
        (lambda: genesis.linspace(0, 1, 2.0), "linspace"),
        (lambda: genesis.zeros("3"), "zeros"),
        (lambda: genesis.full((2,), "x"), "full"),
        (lambda: genesis.full((2,), None), "full"),
    ],
)
def test_non_integer_sizes_and_bad_fill(call, op):
    with pytest.raises(TypeError) as e:
        call()
    check_message(e, op)


@pytest.mark.parametrize(
    "make, op",
    [
        (lambda: genesis.full((2,), 300, dtype=genesis.uint8), "full"),
        (lambda: genesis.full((2,), -1, dtype=genesis.uint8), "full"),
        (lambda: genesis.zeros(2, dtype=genesis.int32).fill_(2**40), "fill_"),
        (lambda: genesis.full((2,), float("inf"), dtype=genesis.int32), "full"),
        (lambda: genesis.full((2,), float("nan"), dtype=genesis.int64), "full"),
        (lambda: genesis.full((2,), 1e6, dtype=genesis.float16), "full"),
        (lambda: genesis.full_like(genesis.zeros(2, dtype=genesis.int8), 128), "full_like"),
    ],
)
def test_fill_values_that_overflow_the_dtype_raise(make, op):
    # PyTorch raises too; wrapping silently would hide bugs.
    with pytest.raises(RuntimeError, match=rf"^\[{op}\] value .* cannot be converted to"):
        make()


def test_fill_values_at_the_dtype_limits_are_kept():
    assert genesis.full((1,), 255, dtype=genesis.uint8).item() == 255
    assert genesis.full((1,), -128, dtype=genesis.int8).item() == -128
    assert genesis.full((1,), -(2**63)).item() == -(2**63)
    assert genesis.full((1,), 65504.0, dtype=genesis.float16).item() == 65504.0
    assert np.isinf(genesis.full((1,), float("inf"), dtype=genesis.float16).item())
