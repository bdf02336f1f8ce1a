"""Creation helpers and small queries with PyTorch's names, against PyTorch and NumPy.

Tensor.new_empty / new_zeros / new_ones / new_full / new_tensor and Tensor.type_as;
genesis.asarray / as_tensor (sharing with tensors, NumPy arrays and DLPack producers, copy=);
genesis.numel / can_cast / is_floating_point / is_nonzero (and Tensor.is_nonzero);
genesis.finfo / iinfo; format(tensor, spec) and f-strings.
"""

import numpy as np
import pytest
from conftest import (
    DTYPES,
    FLOAT_DTYPES,
    FROM_NP,
    INT_DTYPES,
    NP_DTYPE,
    assert_equal,
    check_message,
    dtype_id,
    make_tensor,
    random_array,
    to_numpy,
)

import genesis

torch = pytest.importorskip("torch")


def torch_dtype(d):
    """The torch dtype with a genesis dtype's name."""
    return getattr(torch, dtype_id(d))


def torch_numpy(t):
    """A NumPy copy of a CPU torch tensor (bfloat16 comes back as float32, as to_numpy does)."""
    if t.dtype is torch.bfloat16:
        t = t.float()
    return t.numpy()


def assert_like_torch(t, ref):
    """genesis tensor t has torch tensor ref's dtype, shape and values."""
    assert dtype_id(t.dtype) == str(ref.dtype).replace("torch.", ""), (t.dtype, ref.dtype)
    assert t.shape == tuple(ref.shape), (t.shape, ref.shape)
    np.testing.assert_array_equal(to_numpy(t), torch_numpy(ref))


def small_values(shape, dtype, seed=0):
    """Random data in [0, 100] whose conversion to every dtype is defined (no int overflow)."""
    if dtype is genesis.bool:
        return random_array(shape, dtype, seed)
    return random_array(shape, dtype, seed, low=0, high=100)


# --- Tensor.new_empty / new_zeros / new_ones / new_full ---


def test_new_factories_keep_dtype_and_device(device, dtype):
    x, _ = make_tensor((2, 3), dtype, device)
    npd = NP_DTYPE[dtype]
    for name, ref in [("new_zeros", np.zeros), ("new_ones", np.ones), ("new_empty", None)]:
        y = getattr(x, name)(4, 5)
        assert y.dtype is dtype
        assert y.device == x.device
        assert y.shape == (4, 5)
        assert y.is_contiguous()
        assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
        if ref is not None:
            assert_equal(y, ref((4, 5), npd), dtype)


@pytest.mark.parametrize(
    "args, shape",
    [
        ((3, 4), (3, 4)),
        (((3, 4),), (3, 4)),
        (([2, 0, 5],), (2, 0, 5)),
        ((7,), (7,)),
        ((0,), (0,)),
        ((1, 1, 1, 2), (1, 1, 1, 2)),
        ((), ()),
        (((),), ()),
        (([],), ()),
    ],
)
def test_new_size_forms_like_torch(device, args, shape):
    x, _ = make_tensor((3,), genesis.float64, device)
    tx = torch.zeros(3, dtype=torch.float64)
    torch_args = args or ((),)  # torch needs a size; genesis takes no sizes as ()
    for name in ["new_empty", "new_zeros", "new_ones"]:
        y = getattr(x, name)(*args)
        ref = getattr(tx, name)(*torch_args)
        assert y.shape == tuple(ref.shape) == shape
        if name != "new_empty":
            assert_like_torch(y.cpu(), ref)
    assert_like_torch(x.new_full(shape, 2.5).cpu(), tx.new_full(shape, 2.5))
    assert_like_torch(x.new_full(list(shape), -1).cpu(), tx.new_full(list(shape), -1))


def test_new_full_every_dtype(device, dtype):
    x, _ = make_tensor((2, 3), dtype, device)
    value = random_array((), dtype, seed=3).item()
    y = x.new_full((3, 2), value)
    assert y.device == x.device
    assert_like_torch(y.cpu(), torch.zeros(1, dtype=torch_dtype(dtype)).new_full((3, 2), value))


@pytest.mark.parametrize(
    "dtype, value",
    [
        (genesis.int32, 2.5),
        (genesis.int32, -2.9),
        (genesis.int64, True),
        (genesis.bool, 2),
        (genesis.bool, 0.0),
        (genesis.float16, 1 / 3),
        (genesis.bfloat16, 1 / 3),
        (genesis.float32, 2**40 + 1),
        (genesis.uint8, 255),
        (genesis.int8, -128),
    ],
    ids=str,
)
def test_new_full_casts_the_fill_value_like_torch(device, dtype, value):
    x = genesis.zeros(2, dtype=dtype, device=device)
    ref = torch.zeros(2, dtype=torch_dtype(dtype)).new_full((2, 2), value)
    assert_like_torch(x.new_full((2, 2), value).cpu(), ref)


def test_new_factories_dtype_and_device_keywords(device):
    x, _ = make_tensor((2, 3), genesis.int32, "cpu")
    y = x.new_zeros(2, 3, dtype=genesis.float64, device=device)
    assert y.dtype is genesis.float64
    assert y.device.type == device  # "cuda" resolves to "cuda:0", as in PyTorch
    assert_equal(y, np.zeros((2, 3)))
    y = x.new_ones((4,), dtype="float16", device=genesis.device(device))
    assert y.device.type == device
    assert_equal(y, np.ones(4, np.float16))
    y = x.new_empty([2, 2], dtype=genesis.int8, device=device)
    assert (y.dtype, y.shape, y.device.type) == (genesis.int8, (2, 2), device)
    y = x.new_full((3,), 1.5, dtype=genesis.bfloat16, device=device)
    assert_equal(y, np.full(3, 1.5, np.float32), genesis.bfloat16)
    y = x.new_full((3,), 7, dtype=genesis.bool)
    assert_equal(y, np.ones(3, bool))
    # None keeps the tensor's dtype and device
    y = x.new_zeros(2, dtype=None, device=None)
    assert (y.dtype, y.device) == (x.dtype, x.device)


def test_new_factories_from_non_contiguous_tensors(device, dtype):
    x, a = make_tensor((4, 6), dtype, device)
    for view in [x.t(), x[::-2, 1::3], x[1:2].expand(3, 6)]:
        assert not view.is_contiguous()
        for y in [view.new_zeros(2, 5), view.new_ones(2, 5), view.new_full((2, 5), 1)]:
            assert y.is_contiguous()
            assert y.stride() == (5, 1)
            assert (y.dtype, y.device) == (x.dtype, x.device)
        y = view.new_tensor(view)
        assert y.is_contiguous()
        assert_equal(y, to_numpy(view), dtype)
    assert_equal(x, a, dtype)  # the source is untouched


# --- Tensor.new_tensor ---


def test_new_tensor_copies_arrays_and_tensors(device, dtype):
    x, _ = make_tensor((2,), dtype, device)
    a = random_array((3, 4), dtype, seed=1)
    y = x.new_tensor(a)
    assert y.device == x.device
    assert_equal(y, a, dtype)
    if device == "cpu":
        assert y.data_ptr() != a.ctypes.data
    a_before = a.copy()
    a[...] = a[::-1].copy()  # change the array: the tensor keeps its values
    assert_equal(y, a_before, dtype)

    src, s = make_tensor((3, 4), dtype, device, seed=2)
    for data, ref in [(src, s), (src.t(), s.T), (src[::2, ::-1], s[::2, ::-1])]:
        z = x.new_tensor(data)
        assert z is not data
        assert z.untyped_storage().data_ptr() != src.untyped_storage().data_ptr()
        assert_equal(z, ref, dtype)
    z = x.new_tensor(src)
    src.fill_(1)
    assert_equal(z, s, dtype)


@pytest.mark.parametrize(
    "data",
    [
        [1.7, -2.2, 0.0],
        [[1, 2], [3, -4]],
        [True, False],
        3,
        2.5,
        True,
        [],
        np.array([1.9, -1.9, 0.25]),
        np.array([True, False]),
        np.array([[3, -7]], np.int16),
    ],
    ids=repr,
)
@pytest.mark.parametrize(
    "dtype",
    [genesis.bool, genesis.int8, genesis.int32, genesis.float16, genesis.bfloat16, genesis.float64],
    ids=dtype_id,
)
def test_new_tensor_takes_the_tensors_dtype_like_torch(device, data, dtype):
    x = genesis.zeros(1, dtype=dtype, device=device)
    y = x.new_tensor(data)
    assert y.device == x.device
    assert_like_torch(y.cpu(), torch.zeros(1, dtype=torch_dtype(dtype)).new_tensor(data))


def test_new_tensor_keywords(device):
    x = genesis.zeros(1, dtype=genesis.int32)
    y = x.new_tensor([1.25, -2.5], dtype=genesis.float64, device=device)
    assert y.device.type == device
    assert_equal(y, np.array([1.25, -2.5]))
    y = x.new_tensor([[1.7, 2.2]], dtype=None)
    assert_equal(y, np.array([[1, 2]], np.int32))


def test_new_tensor_0d_and_zero_size(device):
    x, _ = make_tensor((2, 2), genesis.float32, device)
    assert_equal(x.new_tensor(4), np.array(4, np.float32))
    assert_equal(x.new_tensor(np.array(-1.5)), np.array(-1.5, np.float32))
    assert_equal(x.new_tensor(np.zeros((0, 3), np.int64)), np.zeros((0, 3), np.float32))
    assert_equal(x.new_tensor(genesis.zeros(2, 0)), np.zeros((2, 0), np.float32))


# --- bad arguments to Tensor.new_* ---


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda x: x.new_zeros(-1), "new_zeros"),
        (lambda x: x.new_empty(2, -1), "new_empty"),
        (lambda x: x.new_ones((3, -2)), "new_ones"),
        (lambda x: x.new_full((-1,), 1.0), "new_full"),
        (lambda x: x.new_zeros(2**62, 4), "new_zeros"),
        (lambda x: x.new_empty(2**31, 2**31, 2**31), "new_empty"),
    ],
)
def test_new_negative_and_too_large_sizes(call, op):
    with pytest.raises(ValueError) as e:
        call(genesis.zeros(2))
    check_message(e, op)


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda x: x.new_ones(2.0), "new_ones"),
        (lambda x: x.new_empty((2, 3.0)), "new_empty"),
        (lambda x: x.new_zeros((2, 3), 4), "new_zeros"),
        (lambda x: x.new_zeros("3"), "new_zeros"),
        (lambda x: x.new_full((2,), "x"), "new_full"),
        (lambda x: x.new_full((2,), None), "new_full"),
    ],
)
def test_new_bad_sizes_and_fill_values(call, op):
    with pytest.raises(TypeError) as e:
        call(genesis.zeros(2))
    check_message(e, op)


def test_new_bad_dtype_and_device():
    x = genesis.zeros(2)
    for call in [
        lambda: x.new_zeros(2, dtype="float33"),
        lambda: x.new_empty(2, dtype=3),
        lambda: x.new_tensor([1], dtype="bogus"),
        lambda: x.new_full((2,), 1, dtype=True),
    ]:
        with pytest.raises(TypeError) as e:
            call()
        check_message(e)
    for call in [lambda: x.new_ones(2, device="cuda:x"), lambda: x.new_tensor([1], device="tpu")]:
        with pytest.raises(ValueError) as e:
            call()
        check_message(e)


def test_new_full_overflowing_fill_raises():
    # PyTorch raises RuntimeError too
    with pytest.raises(RuntimeError) as e:
        genesis.zeros(2, dtype=genesis.uint8).new_full((2,), 300)
    check_message(e, "new_full")
    with pytest.raises(RuntimeError):
        torch.zeros(2, dtype=torch.uint8).new_full((2,), 300)
    with pytest.raises(RuntimeError) as e:
        genesis.zeros(2, dtype=genesis.int8).new_full((2,), float("inf"))
    check_message(e, "new_full")


def test_new_tensor_bad_data():
    x = genesis.zeros(2)
    with pytest.raises(ValueError) as e:
        x.new_tensor([[1], [2, 3]])
    check_message(e)
    with pytest.raises(TypeError) as e:
        x.new_tensor("abc")
    check_message(e)
    with pytest.raises(RuntimeError) as e:
        genesis.zeros(2, dtype=genesis.uint8).new_tensor([-1, 256])
    check_message(e)


# --- Tensor.type_as ---


@pytest.mark.parametrize("dst", DTYPES, ids=dtype_id)
def test_type_as_like_torch(device, dtype, dst):
    a = small_values((3, 5), dtype)
    x = genesis.tensor(a, dtype=dtype, device=device)
    tx = torch.tensor(a, dtype=torch_dtype(dtype))
    other = genesis.zeros(1, dtype=dst, device=device)
    t_other = torch.zeros(1, dtype=torch_dtype(dst))
    y = x.type_as(other)
    assert y.device == x.device
    assert_like_torch(y.cpu(), tx.type_as(t_other))
    assert_like_torch(x.t().type_as(other).cpu(), tx.t().type_as(t_other))  # strided source
    assert_like_torch(x[::-2, 1::2].type_as(other).cpu(), tx.flip(0)[::2, 1::2].type_as(t_other))


def test_type_as_0d_and_zero_size(device, dtype):
    other = genesis.zeros(3, dtype=genesis.float64, device=device)
    x = genesis.tensor(1, dtype=dtype, device=device)
    assert_equal(x.type_as(other), np.array(1.0))
    z = genesis.zeros(2, 0, dtype=dtype, device=device)
    assert_equal(z.type_as(other), np.zeros((2, 0)))


def test_type_as_same_dtype_shares_data(device, dtype):
    x, a = make_tensor((3, 4), dtype, device)
    y = x.type_as(genesis.zeros(2, 2, dtype=dtype, device=device))
    assert y.data_ptr() == x.data_ptr()
    assert_equal(y, a, dtype)


def test_type_as_same_dtype_returns_self():
    t = torch.zeros(2)
    assert t.type_as(torch.zeros(1)) is t
    x = genesis.zeros(2)
    assert x.type_as(genesis.zeros(1)) is x


@pytest.mark.skipif(not genesis.cuda.is_available(), reason="no CUDA device available")
def test_type_as_takes_the_device_too():
    # As torch's self.type(other.type()): a CUDA other moves the tensor to CUDA.
    x = genesis.arange(3)
    y = x.type_as(genesis.zeros(1, device="cuda"))
    assert y.device.type == "cuda" and y.dtype is genesis.float32
    assert y.cpu().tolist() == [0.0, 1.0, 2.0]


def test_type_as_requires_a_tensor():
    with pytest.raises(TypeError):
        genesis.zeros(2).type_as(np.zeros(2))
    with pytest.raises(TypeError):
        genesis.zeros(2).type_as(genesis.float64)


# --- genesis.asarray / as_tensor: genesis tensors ---


def test_as_tensor_of_a_tensor_is_the_tensor(device, dtype):
    x, _ = make_tensor((3, 4), dtype, device)
    for t in [x, x.t(), x[::2, ::-1], genesis.tensor(5, dtype=dtype, device=device)]:
        assert genesis.as_tensor(t) is t
        assert genesis.as_tensor(t, dtype, device) is t
        assert genesis.as_tensor(t, dtype=dtype, device=genesis.device(device)) is t
        assert genesis.asarray(t) is t
        assert genesis.asarray(t, copy=False) is t
        assert genesis.asarray(t, dtype=dtype, device=device, copy=None) is t


@pytest.mark.parametrize("dst", DTYPES, ids=dtype_id)
def test_asarray_tensor_with_another_dtype_converts(device, dtype, dst):
    a = small_values((3, 4), dtype)
    x = genesis.tensor(a, dtype=dtype, device=device)
    ref = torch.tensor(a, dtype=torch_dtype(dtype)).to(torch_dtype(dst))
    for y in [genesis.as_tensor(x, dtype=dst), genesis.asarray(x, dtype=dst)]:
        assert y.device == x.device
        assert_like_torch(y.cpu(), ref)
    if dst is not dtype:
        with pytest.raises(ValueError) as e:
            genesis.asarray(x, dtype=dst, copy=False)
        check_message(e, "asarray")
    y = genesis.asarray(x, dtype=dst, copy=True)
    assert y.data_ptr() != x.data_ptr()
    assert_like_torch(y.cpu(), ref)


def test_asarray_copy_true_copies_a_tensor(device, dtype):
    x, a = make_tensor((3, 4), dtype, device)
    for src, ref in [(x, a), (x.t(), a.T), (x[1:2].expand(3, 4), np.broadcast_to(a[1:2], (3, 4)))]:
        y = genesis.asarray(src, copy=True)
        assert y is not src
        assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
        assert (y.dtype, y.device) == (x.dtype, x.device)
        assert_equal(y, ref, dtype)
    y = genesis.asarray(x, copy=True)
    y.fill_(1)
    assert_equal(x, a, dtype)


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)], ids=str)
def test_asarray_tensor_0d_and_zero_size(device, shape):
    x = genesis.zeros(shape, dtype=genesis.int16, device=device)
    assert genesis.asarray(x) is x
    y = genesis.asarray(x, dtype=genesis.float32)
    assert (y.shape, y.dtype) == (shape, genesis.float32)
    y = genesis.asarray(x, copy=True)
    assert (y.shape, y.dtype) == (shape, genesis.int16)


# --- genesis.asarray / as_tensor: NumPy arrays ---


NP_DTYPES = list(FROM_NP.values())


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("fn", ["asarray", "as_tensor"])
def test_asarray_numpy_shares_memory_both_ways(dtype, fn):
    a = random_array((3, 4), dtype)
    t = getattr(genesis, fn)(a)
    assert t.dtype is dtype
    assert t.device == genesis.device("cpu")
    assert t.data_ptr() == a.ctypes.data
    assert_equal(t, a, dtype)
    value = random_array((), dtype, seed=7).item()
    t[1, 2] = value  # a write through the tensor shows in the array
    assert a[1, 2] == value
    a[0] = random_array((4,), dtype, seed=8)  # and a write to the array shows in the tensor
    assert_equal(t, a, dtype)
    assert torch.as_tensor(a).data_ptr() == a.ctypes.data  # the same as PyTorch


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=dtype_id)
def test_asarray_strided_numpy_shares_memory(dtype):
    base = random_array((6, 8), dtype)
    for index in [(slice(None, None, -2), slice(1, None, 3)), (slice(1, 4), slice(None, None, 2))]:
        view = base[index]
        t = genesis.asarray(view)
        assert_equal(t, view, dtype)
        value = random_array((), dtype, seed=9).item()
        t.fill_(value)
        expected = base.copy()
        expected[index] = value
        np.testing.assert_array_equal(base, expected)
    t = genesis.as_tensor(base.T)
    assert t.shape == (8, 6)
    assert_equal(t, base.T, dtype)
    assert t.data_ptr() == base.ctypes.data


def test_asarray_numpy_0d_and_zero_size():
    a = np.array(2.5)
    t = genesis.asarray(a)
    assert t.shape == ()
    assert t.dtype is genesis.float64
    t.fill_(-1.0)
    assert a[()] == -1.0
    z = np.zeros((0, 3), np.int16)
    assert_equal(genesis.asarray(z), z)
    assert_equal(genesis.as_tensor(z, dtype=genesis.float32), z.astype(np.float32))


def test_asarray_numpy_with_a_conversion_copies(device):
    a = random_array((3, 4), genesis.float64)
    a_before = a.copy()
    for t in [genesis.asarray(a, dtype=genesis.float32), genesis.as_tensor(a, genesis.float32)]:
        assert t.dtype is genesis.float32
        assert_equal(t, a.astype(np.float32))
        t.fill_(0)
    np.testing.assert_array_equal(a, a_before)
    with pytest.raises(ValueError) as e:
        genesis.asarray(a, dtype=genesis.float32, copy=False)
    check_message(e, "asarray")
    t = genesis.asarray(a, dtype=genesis.bfloat16)
    assert_like_torch(t, torch.asarray(a, dtype=torch.bfloat16))

    t = genesis.asarray(a, device=device)  # shared on the CPU, copied to a GPU
    assert t.device.type == device
    assert_equal(t, a)
    assert (t.data_ptr() == a.ctypes.data) == (device == "cpu")
    if device != "cpu":
        with pytest.raises(ValueError) as e:
            genesis.asarray(a, device=device, copy=False)
        check_message(e, "asarray")


def test_asarray_numpy_copy_true():
    a = random_array((3, 4), genesis.int32)
    a_before = a.copy()
    t = genesis.asarray(a, copy=True)
    assert t.data_ptr() != a.ctypes.data
    assert_equal(t, a)
    t.fill_(0)
    np.testing.assert_array_equal(a, a_before)
    t = genesis.asarray(a, dtype=genesis.int32, copy=False)
    assert t.data_ptr() == a.ctypes.data


@pytest.mark.parametrize(
    "scalar",
    [np.float32(1.5), np.float16(2.5), np.float64(-0.25), np.int16(3), np.uint8(7), np.bool_(True)],
    ids=repr,
)
def test_asarray_numpy_scalars_like_torch(scalar):
    for fn, ref in [(genesis.asarray, torch.asarray), (genesis.as_tensor, torch.as_tensor)]:
        t = fn(scalar)
        assert t.shape == ()
        assert_like_torch(t, ref(scalar))


def test_asarray_shares_a_dlpack_producer():
    ta = torch.arange(12.0).reshape(3, 4).t()
    t = genesis.asarray(ta)
    assert t.data_ptr() == ta.data_ptr()
    assert t.stride() == ta.stride()
    t[0, 1] = -5.0
    assert ta[0, 1].item() == -5.0
    assert genesis.asarray(ta, copy=False).data_ptr() == ta.data_ptr()
    y = genesis.as_tensor(ta, dtype=genesis.float64)
    assert_like_torch(y, ta.double())
    with pytest.raises(ValueError) as e:
        genesis.asarray(ta, dtype=genesis.float64, copy=False)
    check_message(e, "asarray")
    assert genesis.asarray(ta, copy=True).data_ptr() != ta.data_ptr()


# --- genesis.asarray / as_tensor: Python data ---


@pytest.mark.parametrize(
    "data",
    [
        1,
        -2.5,
        True,
        [1, 2, 3],
        [[1.5, 2], [3, 4]],
        (1, 2),
        [],
        [True, 2],
        [True, 2.5],
        [[[1], [2]], [[3], [4]]],
    ],
    ids=repr,
)
def test_asarray_python_data_like_torch(device, data):
    for fn, ref in [(genesis.asarray, torch.asarray), (genesis.as_tensor, torch.as_tensor)]:
        t = fn(data, device=device)
        assert t.device.type == device
        assert_like_torch(t.cpu(), ref(data))
    t = genesis.asarray(data, device=device, copy=True)
    assert_like_torch(t.cpu(), torch.asarray(data, copy=True))
    with pytest.raises(ValueError) as e:
        genesis.asarray(data, copy=False)
    check_message(e, "asarray")
    with pytest.raises(ValueError):
        torch.asarray(data, copy=False)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_asarray_python_data_with_dtype(device, dtype):
    data = [[0, 1, 2], [3, 4, 5]]
    td = torch_dtype(dtype)
    assert_like_torch(
        genesis.asarray(data, dtype=dtype, device=device).cpu(), torch.asarray(data, dtype=td)
    )
    assert_like_torch(genesis.as_tensor(data, dtype, device).cpu(), torch.as_tensor(data, dtype=td))


def test_asarray_list_of_0d_tensors():
    t = genesis.asarray([genesis.tensor(1.5), genesis.tensor(2.0)])
    assert_equal(t, np.array([1.5, 2.0], np.float32))


def test_asarray_bad_arguments():
    for copy in [1, "yes", 0.0]:
        with pytest.raises(TypeError) as e:
            genesis.asarray([1, 2], copy=copy)
        check_message(e, "asarray")
    with pytest.raises(TypeError) as e:
        genesis.asarray([1, 2], dtype="bogus")
    check_message(e)
    with pytest.raises(ValueError) as e:
        genesis.asarray([1, 2], device="cuda:x")
    check_message(e)
    for array in [np.zeros(3, np.uint16), np.zeros(3, np.complex64)]:
        with pytest.raises(TypeError) as e:
            genesis.asarray(array)
        check_message(e, "asarray")
    for data in ["abc", None, [1, None]]:
        with pytest.raises(TypeError) as e:
            genesis.as_tensor(data)
        check_message(e)
    with pytest.raises(ValueError) as e:
        genesis.asarray([[1], [2, 3]])
    check_message(e)


# --- numel, is_floating_point, can_cast ---


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (5,), (3, 4), (2, 3, 4)], ids=str)
def test_numel_like_torch(device, shape):
    x = genesis.zeros(shape, device=device)
    n = torch.numel(torch.zeros(shape))
    assert genesis.numel(x) == x.numel() == n
    assert type(genesis.numel(x)) is int
    if len(shape) >= 2:
        assert genesis.numel(x.transpose(0, -1)) == n
        assert genesis.numel(x[::2]) == torch.numel(torch.zeros(shape)[::2])


def test_numel_of_expanded_tensor(device):
    x = genesis.tensor([[1.0], [2.0]], device=device).expand(2, 5)
    assert genesis.numel(x) == 10
    assert genesis.numel(genesis.tensor(3, device=device)) == 1


def test_is_floating_point_like_torch(device, dtype):
    td = torch_dtype(dtype)
    want = torch.is_floating_point(torch.zeros(2, dtype=td))
    assert want == dtype.is_floating_point
    for shape in [(2, 3), (), (0,)]:
        x = genesis.zeros(shape, dtype=dtype, device=device)
        assert genesis.is_floating_point(x) is want
        assert x.is_floating_point() is want


@pytest.mark.parametrize("src", DTYPES, ids=dtype_id)
def test_can_cast_every_pair_like_torch(src):
    for dst in DTYPES:
        want = torch.can_cast(torch_dtype(src), torch_dtype(dst))
        got = genesis.can_cast(src, dst)
        assert type(got) is bool
        assert got == want, (src, dst, got, want)
        assert genesis.can_cast(from_=src, to=dst) == want


def test_can_cast_docstring_cases():
    assert genesis.can_cast(genesis.int32, genesis.float16)
    assert not genesis.can_cast(genesis.float32, genesis.int64)
    assert not genesis.can_cast(genesis.int8, genesis.bool)
    assert genesis.can_cast(genesis.bool, genesis.uint8)
    assert not genesis.can_cast("float32", "int32")  # dtype names work too


def test_queries_bad_arguments():
    with pytest.raises(TypeError) as e:
        genesis.can_cast(genesis.float32, 3)
    check_message(e, "can_cast")
    with pytest.raises(TypeError) as e:
        genesis.can_cast("float33", genesis.float32)
    check_message(e)
    for fn in [genesis.numel, genesis.is_floating_point, genesis.is_nonzero]:
        with pytest.raises(TypeError):
            fn(np.zeros(1))
        with pytest.raises(TypeError):
            fn(3)


# --- is_nonzero ---


def nonzero_cases(dtype):
    """Values of dtype (Python numbers) with their is_nonzero, whatever torch says."""
    if dtype is genesis.bool:
        return [True, False]
    values = [0, random_array((), dtype, seed=4, low=1, high=100).item()]
    if dtype.is_floating_point:
        tiny = {genesis.float16: 6e-8, genesis.bfloat16: 1e-40, genesis.float32: 1e-45}
        values += [-0.0, float("nan"), float("-inf"), tiny.get(dtype, 5e-324)]
        values += [random_array((), dtype, seed=5).item()]
    elif dtype is not genesis.uint8:
        values += [-1, random_array((), dtype, seed=6).item()]
    return values


def test_is_nonzero_like_torch(device, dtype):
    td = torch_dtype(dtype)
    for value in nonzero_cases(dtype):
        want = torch.is_nonzero(torch.tensor(value, dtype=td))
        for shape in [(), (1,), (1, 1, 1)]:
            x = genesis.full(shape, value, dtype=dtype, device=device)
            assert genesis.is_nonzero(x) is want, (value, shape)
            assert x.is_nonzero() is want, (value, shape)


def test_is_nonzero_of_views(device):
    x = genesis.arange(6, device=device).reshape(2, 3)
    assert genesis.is_nonzero(x[1:2, 2])  # strided one-element view
    assert not x.t()[0:1, 0].is_nonzero()
    assert genesis.tensor(5, device=device).expand(1, 1).is_nonzero()
    assert genesis.is_nonzero(genesis.tensor(2**62, device=device))


@pytest.mark.parametrize("shape", [(0,), (2,), (2, 3), (1, 0), (1, 2)], ids=str)
def test_is_nonzero_needs_exactly_one_element(device, shape):
    x = genesis.ones(shape, device=device)
    for call in [lambda: genesis.is_nonzero(x), x.is_nonzero]:
        with pytest.raises(RuntimeError) as e:
            call()
        check_message(e, "is_nonzero")
    with pytest.raises(RuntimeError):
        torch.is_nonzero(torch.ones(shape))


# --- finfo / iinfo ---


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_finfo_like_torch(dtype):
    got, want = genesis.finfo(dtype), torch.finfo(torch_dtype(dtype))
    for name in ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]:
        g, w = getattr(got, name), getattr(want, name)
        assert g == w, (name, g, w)
        assert type(g) is type(w), (name, type(g), type(w))
    assert repr(got) == repr(want)


def test_finfo_eps_and_tiny_from_numpy():
    # The float16 / float32 / float64 values agree with NumPy's too.
    for dtype in [genesis.float16, genesis.float32, genesis.float64]:
        got, want = genesis.finfo(dtype), np.finfo(NP_DTYPE[dtype])
        assert got.eps == float(want.eps)
        assert got.max == float(want.max)
        assert got.tiny == float(want.tiny)
        assert got.bits == want.bits


def test_finfo_default_is_float32():
    got, want = genesis.finfo(), torch.finfo()
    assert (got.eps, got.max, got.bits, got.dtype) == (want.eps, want.max, want.bits, want.dtype)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
def test_iinfo_like_torch(dtype):
    got, want = genesis.iinfo(dtype), torch.iinfo(torch_dtype(dtype))
    for name in ["bits", "min", "max", "dtype"]:
        g, w = getattr(got, name), getattr(want, name)
        assert g == w, (name, g, w)
        assert type(g) is type(w), (name, type(g), type(w))
    np_info = np.iinfo(NP_DTYPE[dtype])
    assert (got.min, got.max) == (int(np_info.min), int(np_info.max))


def test_info_values_fit_the_dtype(device):
    for dtype in INT_DTYPES:
        info = genesis.iinfo(dtype)
        x = genesis.tensor([info.min, info.max], dtype=dtype, device=device)
        assert x.tolist() == [info.min, info.max]
    for dtype in FLOAT_DTYPES:
        info = genesis.finfo(dtype)
        x = genesis.tensor(
            [info.min, info.max, info.tiny, 1 + info.eps], dtype=dtype, device=device
        )
        assert x.tolist() == [info.min, info.max, info.tiny, 1 + info.eps]
        assert x[3].item() != 1.0


@pytest.mark.parametrize(
    "bad", [genesis.int32, genesis.bool, genesis.uint8, "float32", torch.float32, 3], ids=repr
)
def test_finfo_bad_dtype(bad):
    with pytest.raises(TypeError) as e:
        genesis.finfo(bad)
    check_message(e, "finfo")


@pytest.mark.parametrize(
    "bad",
    [genesis.float32, genesis.bfloat16, genesis.bool, "int32", torch.int32, None, 3],
    ids=repr,
)
def test_iinfo_bad_dtype(bad):
    with pytest.raises(TypeError) as e:
        genesis.iinfo(bad)
    check_message(e, "iinfo")


def test_info_unhashable_argument_raises_type_error():
    with pytest.raises(TypeError):
        genesis.finfo([])
    with pytest.raises(TypeError):
        genesis.iinfo({})


# --- format(tensor, spec) ---


FLOAT_SPECS = ["", ".3f", "e", ".2e", ">12.4f", "+g", ".1%", "<10", "010.2f"]
INT_SPECS = ["", "d", "x", "05d", ",", ".1f", "^9", "+"]
BOOL_SPECS = ["", "d", ">6", "^7"]


def specs_for(dtype):
    if dtype is genesis.bool:
        return BOOL_SPECS
    return FLOAT_SPECS if dtype.is_floating_point else INT_SPECS


def test_format_0d_like_torch(device, dtype):
    for seed in range(3):
        a = random_array((), dtype, seed=seed)
        x = genesis.tensor(a, dtype=dtype, device=device)
        tx = torch.tensor(a, dtype=torch_dtype(dtype))
        for spec in specs_for(dtype):
            want = format(tx, spec)
            assert format(x, spec) == want, (spec, want)
            assert f"{x:{spec}}" == want
            assert x.__format__(spec) == want


def test_format_docstring_example(device):
    assert f"{genesis.tensor(2 / 3, device=device):.3f}" == "0.667"
    assert f"{genesis.tensor(-7, device=device):+d}" == "-7"
    # an empty spec on a 0-d tensor formats the value, as in PyTorch
    assert format(genesis.tensor(2 / 3)) == format(torch.tensor(2 / 3)) == "0.6666666865348816"


def test_format_0d_view(device):
    x, a = make_tensor((3, 4), genesis.float64, device)
    assert f"{x[1, 2]:.5e}" == f"{a[1, 2]:.5e}"
    assert f"{x.t()[2, 1]:.2f}" == f"{a[1, 2]:.2f}"


def test_format_empty_spec_is_str(device, dtype):
    x, _ = make_tensor((2, 3), dtype, device)
    for t in [x, x[0], x.t(), x[:, ::-2], x[:, :0], genesis.zeros(0, dtype=dtype, device=device)]:
        assert format(t, "") == str(t)
        assert f"{t}" == str(t)
        assert t.__format__("") == str(t)


@pytest.mark.parametrize("shape", [(1,), (0,), (2, 2), (1, 1)], ids=str)
@pytest.mark.parametrize("spec", [".3f", "d", ">10", "s"])
def test_format_spec_needs_a_0d_tensor(device, shape, spec):
    x = genesis.ones(shape, device=device)
    with pytest.raises(TypeError) as e:
        format(x, spec)
    check_message(e, "format")
    with pytest.raises(TypeError):
        format(torch.ones(shape), spec)  # PyTorch raises TypeError too


def test_format_bad_spec_on_0d_like_torch():
    # The value's own format raises: ValueError, as in PyTorch.
    for value, spec in [(3.5, "d"), (3, "s"), (True, "s")]:
        with pytest.raises(ValueError):
            format(genesis.tensor(value), spec)
        with pytest.raises(ValueError):
            format(torch.tensor(value), spec)
