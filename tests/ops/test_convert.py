"""Conversions: to / cpu / clone / contiguous / copy_ / numpy / item / tolist / dtype casts."""

import numpy as np
import pytest
from conftest import (
    DTYPES,
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

# Values beyond float16's range become inf, in NumPy (with this warning) as in genesis.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")

# --- to(dtype) for every pair ---


def source_data(src, dst, seed=0):
    """Random data of dtype src whose conversion to dst is defined (no float->int overflow)."""
    if src.is_floating_point and dst in INT_DTYPES:
        info = np.iinfo(NP_DTYPE[dst])
        lo, hi = info.min * 0.99, info.max * 0.99  # stays in range after rounding to src
        if src is genesis.float16:
            lo, hi = max(lo, -6e4), min(hi, 6e4)
        a = random_array((7, 9), src, seed, low=lo, high=hi)
    else:
        a = random_array((7, 9), src, seed)
    a.flat[::5] = 0  # zeros matter for conversions to bool
    if src.is_floating_point:
        a.flat[1::11] = -0.0
    return a


def reference_cast(a, src, dst):
    """What a.astype(dst) gives; conversions to bfloat16 use torch as the reference."""
    if dst is genesis.bfloat16:
        torch = pytest.importorskip("torch")
        return torch.from_numpy(np.ascontiguousarray(a)).to(torch.bfloat16).float().numpy()
    return a.astype(NP_DTYPE[dst])


@pytest.mark.parametrize("dst", DTYPES, ids=dtype_id)
def test_to_dtype_every_pair(device, dtype, dst):
    a = source_data(dtype, dst)
    x = genesis.tensor(a, dtype=dtype, device=device)
    expected = reference_cast(a, dtype, dst)
    assert_equal(x.to(dst), expected, dst)
    assert_equal(x.t().to(dst), expected.T, dst)  # strided source
    assert_equal(x[::-2, 1::3].to(dst), expected[::-2, 1::3], dst)
    assert_equal(x[2:3].expand(4, 9).to(dst), np.broadcast_to(expected[2:3], (4, 9)), dst)


@pytest.mark.parametrize("dst", DTYPES, ids=dtype_id)
def test_to_dtype_0d_and_zero_size(device, dtype, dst):
    x = genesis.tensor(1, dtype=dtype, device=device)
    assert_equal(x.to(dst), np.array(1, NP_DTYPE[dst]), dst)
    z = genesis.zeros(2, 0, dtype=dtype, device=device)
    assert_equal(z.to(dst), np.zeros((2, 0), NP_DTYPE[dst]), dst)


def test_float_to_int_truncates(device):
    x = genesis.tensor([2.9, -2.9, 0.5, -0.5, 127.99, -128.5], dtype=genesis.float64, device=device)
    assert x.to(genesis.int8).tolist() == [2, -2, 0, 0, 127, -128]
    assert x.to(genesis.int64).tolist() == [2, -2, 0, 0, 127, -128]


def test_to_bool_is_nonzero(device):
    x = genesis.tensor([0.0, -0.0, 0.1, -3.0, float("inf"), float("nan")], device=device)
    assert x.to(genesis.bool).tolist() == [False, False, True, True, True, True]
    y = genesis.tensor([0, 256, -1], device=device)
    assert y.bool().tolist() == [False, True, True]


@pytest.mark.parametrize("src", [genesis.int32, genesis.int64], ids=dtype_id)
@pytest.mark.parametrize("dst", [genesis.float16, genesis.bfloat16], ids=dtype_id)
def test_wide_ints_to_16_bit_floats_round(device, src, dst):
    a = random_array((500,), src, seed=11, low=-70000, high=70000)
    x = genesis.tensor(a, device=device)
    assert_equal(x.to(dst), reference_cast(a, src, dst), dst)


def test_int_wraps_like_numpy(device):
    a = np.array([255, 256, -1, 300, -129, 2**40 + 7], np.int64)
    x = genesis.tensor(a, device=device)
    for dst in [genesis.uint8, genesis.int8, genesis.int16, genesis.int32]:
        assert_equal(x.to(dst), a.astype(NP_DTYPE[dst]), dst)


# --- the forms of to(), cpu, clone, contiguous ---


def test_to_forms(device):
    x, a = make_tensor((3, 4), genesis.float32, device)
    assert_equal(x.to(device), a)
    assert_equal(x.to(genesis.device(device)), a)
    assert_equal(x.to(device, genesis.float64), a.astype(np.float64))
    assert_equal(x.to("cpu", genesis.int16), a.astype(np.int16))
    assert_equal(x.to(dtype=genesis.float16), a.astype(np.float16))
    assert_equal(x.to("float64"), a.astype(np.float64))
    other = genesis.zeros(1, dtype=genesis.int32)
    y = x.to(other)
    assert y.device == other.device
    assert_equal(y, a.astype(np.int32))
    assert_equal(x.to(device=device, dtype=genesis.float64), a.astype(np.float64))


def test_to_without_change_shares_data(device):
    x, _ = make_tensor((3, 4), genesis.float32, device)
    for y in [x.to(genesis.float32), x.to(device), x.to(x), x.to(device, genesis.float32)]:
        assert y.data_ptr() == x.data_ptr()


def test_to_without_change_returns_self(device):
    x, _ = make_tensor((3, 4), genesis.float32, device)
    assert x.to(genesis.float32) is x
    assert x.to(device) is x
    assert x.to(x) is x
    assert x.to(dtype=genesis.float32, device=device) is x


def test_cpu_and_contiguous_return_self():
    x = genesis.zeros(3, 4)
    assert x.cpu() is x
    assert x.contiguous() is x


def test_to_copy_true(device):
    x, a = make_tensor((3, 4), genesis.float32, device)
    y = x.to(dtype=genesis.float32, copy=True)
    assert y.data_ptr() != x.data_ptr()
    y.fill_(0)
    assert_equal(x, a)
    assert x.to(device, copy=True).data_ptr() != x.data_ptr()


def test_to_bad_arguments():
    x = genesis.zeros(2)
    with pytest.raises(TypeError) as e:
        x.to(genesis.float32, bogus=1)
    check_message(e, "to")
    with pytest.raises(TypeError):
        x.to("float33")
    with pytest.raises(ValueError):
        x.to("cuda:x")


def test_cpu(device, dtype):
    x, a = make_tensor((2, 3), dtype, device)
    c = x.cpu()
    assert c.device == genesis.device("cpu")
    assert_equal(c, a, dtype)


def test_clone(device, dtype):
    x, a = make_tensor((4, 5), dtype, device)
    expanded = (x[1:2].expand(3, 5), np.broadcast_to(a[1:2], (3, 5)))
    for src, ref in [(x, a), (x.t(), a.T), (x[::-1, ::2], a[::-1, ::2]), expanded]:
        c = src.clone()
        assert_equal(c, ref, dtype)
        assert c.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    c = x.clone()
    c.fill_(1)
    assert_equal(x, a, dtype)


def test_contiguous(device, dtype):
    x, a = make_tensor((4, 5), dtype, device)
    assert x.contiguous().data_ptr() == x.data_ptr()
    for src, ref in [(x.t(), a.T), (x[:, ::-2], a[:, ::-2]), (x[:1].expand(3, 5), a[[0, 0, 0]])]:
        c = src.contiguous()
        assert c.is_contiguous()
        assert c.stride() == (5 if ref.shape[1] == 5 else ref.shape[1], 1)
        assert_equal(c, ref, dtype)
        assert c.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()


# --- copy_ ---


def test_copy_broadcast_cast_strided(device, dtype):
    dst, d = make_tensor((4, 6), dtype, device, seed=1)
    src, s = make_tensor((3, 2), genesis.float64, device, seed=2, low=0, high=100)
    ref = to_numpy(genesis.tensor(s, dtype=dtype))  # the cast itself is tested by to()
    view = dst[::-1, ::2]  # strided destination (4, 3)
    assert view.copy_(src.t()[:1]) is view  # strided source (1, 3), broadcast
    d[::-1, ::2] = ref.T[:1]
    assert_equal(dst, d, dtype)


def test_copy_returns_self_and_copies(device, dtype):
    dst, d = make_tensor((3, 4), dtype, device, seed=1)
    src, s = make_tensor((3, 4), dtype, device, seed=2)
    assert dst.copy_(src) is dst
    assert_equal(dst, s, dtype)
    src.fill_(0)
    assert_equal(dst, s, dtype)  # no aliasing


def test_copy_broadcasts(device):
    dst, d = make_tensor((4, 5), genesis.float32, device, seed=1)
    row, r = make_tensor((5,), genesis.float32, device, seed=2)
    dst.copy_(row)
    assert_equal(dst, np.broadcast_to(r, (4, 5)))
    col, c = make_tensor((4, 1), genesis.float32, device, seed=3)
    dst.copy_(col)
    assert_equal(dst, np.broadcast_to(c, (4, 5)))
    dst.copy_(genesis.tensor(2.5, device=device))
    assert_equal(dst, np.full((4, 5), 2.5, np.float32))


@pytest.mark.parametrize("src_dtype", DTYPES, ids=dtype_id)
def test_copy_casts(device, dtype, src_dtype):
    src, s = make_tensor((3, 5), src_dtype, device, seed=4, low=0, high=100)
    dst = genesis.zeros(3, 5, dtype=dtype, device=device)
    dst.copy_(src)
    expected = genesis.tensor(s, dtype=src_dtype).to(dtype)  # checked by test_to_dtype_every_pair
    assert_equal(dst, to_numpy(expected), dtype)


def test_copy_strided_destination_and_source(device):
    dst, d = make_tensor((6, 8), genesis.int32, device, seed=5)
    src, s = make_tensor((4, 3), genesis.int16, device, seed=6)
    dst[::2, 7:1:-2].copy_(src.t()[:, ::-1][:, :3])  # rows 0, 2, 4; columns 7, 5, 3
    d[::2, 7:1:-2] = s.T[:, ::-1][:, :3]
    assert_equal(dst, d)


def test_copy_from_numpy_and_list(device):
    dst = genesis.zeros(2, 3, dtype=genesis.int64, device=device)
    a = random_array((2, 3), genesis.int64, seed=7)
    dst.copy_(a)
    assert_equal(dst, a)
    dst.copy_([1.5, 2.5, -3.5])
    assert_equal(dst, np.array([[1, 2, -3], [1, 2, -3]]))


@pytest.mark.parametrize(
    "dst_shape, src_shape", [((3, 4), (4, 3)), ((3, 4), (2, 4)), ((4,), (3, 4)), ((), (2,))]
)
def test_copy_bad_shape(device, dst_shape, src_shape):
    dst = genesis.zeros(dst_shape, device=device)
    with pytest.raises(ValueError) as e:
        dst.copy_(genesis.zeros(src_shape, device=device))
    check_message(e, "copy_")


# --- numpy ---


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d is not genesis.bfloat16], ids=dtype_id)
def test_numpy_shares_memory(dtype):
    x, a = make_tensor((3, 4), dtype)
    n = x.numpy()
    assert n.dtype == NP_DTYPE[dtype]
    np.testing.assert_array_equal(n, a)
    assert n.ctypes.data == x.data_ptr()
    n[1, 2] = n[0, 0]
    assert x[1, 2].item() == a[0, 0]
    x[2, 3] = a[0, 1].item()
    assert n[2, 3] == a[0, 1]


def test_numpy_strided_and_keeps_storage_alive():
    x, a = make_tensor((4, 6), genesis.float64)
    n = x[::-1, 1::2].numpy()
    np.testing.assert_array_equal(n, a[::-1, 1::2])
    assert n.strides == a[::-1, 1::2].strides
    del x
    np.testing.assert_array_equal(n, a[::-1, 1::2])
    e = genesis.zeros(3, dtype=genesis.int16).expand(2, 3).numpy()
    assert e.strides == (0, 2)


def test_numpy_0d_and_zero_size():
    assert genesis.tensor(2.5).numpy().shape == ()
    assert genesis.tensor(2.5).numpy() == 2.5
    assert genesis.zeros(0, 3, dtype=genesis.int8).numpy().shape == (0, 3)


def test_numpy_bfloat16_raises():
    with pytest.raises(TypeError) as e:
        genesis.zeros(2, dtype=genesis.bfloat16).numpy()
    check_message(e, "numpy")


def test_asarray():
    x, a = make_tensor((3, 4), genesis.float32)
    n = np.asarray(x)
    np.testing.assert_array_equal(n, a)
    n[0, 0] = 99.0
    assert x[0, 0].item() == 99.0
    d = np.asarray(x, dtype=np.float64)
    assert d.dtype == np.float64
    np.testing.assert_array_equal(d, n.astype(np.float64))


# --- item, tolist, casts, Python conversions ---


@pytest.mark.parametrize("shape", [(), (1,), (1, 1, 1)])
def test_item(device, dtype, shape):
    x, a = make_tensor(shape, dtype, device)
    v = x.item()
    want = bool if dtype is genesis.bool else float if dtype.is_floating_point else int
    assert type(v) is want
    assert v == a.reshape(()).item()


def test_item_of_strided_view(device):
    x, a = make_tensor((4, 5), genesis.int64, device)
    assert x.t()[3, 1].item() == a[1, 3]
    assert x[::-1, ::-2][0, 0].item() == a[3, 4]


@pytest.mark.parametrize("shape", [(2,), (0,), (2, 3)])
def test_item_needs_one_element(device, shape):
    with pytest.raises(ValueError) as e:
        genesis.zeros(shape, device=device).item()
    check_message(e, "item")


@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 2)])
def test_tolist(device, dtype, shape):
    x, a = make_tensor(shape, dtype, device)
    assert x.tolist() == a.tolist()
    if len(shape) == 2:
        assert x.t().tolist() == a.T.tolist()
        assert x[::-1, ::2].tolist() == a[::-1, ::2].tolist()
        assert (
            x[:1].expand(3, *shape[1:]).tolist() == np.broadcast_to(a[:1], (3, shape[1])).tolist()
        )


def test_tolist_element_types(device):
    assert type(genesis.tensor([1.5], device=device).tolist()[0]) is float
    assert type(genesis.tensor([1], dtype=genesis.uint8, device=device).tolist()[0]) is int
    assert type(genesis.tensor([True], device=device).tolist()[0]) is bool
    assert type(genesis.tensor([1.5], dtype=genesis.bfloat16, device=device).tolist()[0]) is float


@pytest.mark.parametrize(
    "method, dtype",
    [
        ("float", genesis.float32),
        ("half", genesis.float16),
        ("bfloat16", genesis.bfloat16),
        ("double", genesis.float64),
        ("int", genesis.int32),
        ("long", genesis.int64),
        ("short", genesis.int16),
        ("char", genesis.int8),
        ("byte", genesis.uint8),
        ("bool", genesis.bool),
    ],
)
def test_cast_methods(device, method, dtype):
    x, a = make_tensor((3, 4), genesis.float64, device, low=0, high=100)
    y = getattr(x, method)()
    assert y.dtype is dtype
    assert y.device == x.device
    assert_equal(y, reference_cast(a, genesis.float64, dtype), dtype)


def test_bool_of_tensor(device):
    assert bool(genesis.tensor(3, device=device)) is True
    assert bool(genesis.tensor([0.0], device=device)) is False
    assert bool(genesis.tensor([[True]], device=device)) is True
    for shape in [(2,), (0,), (2, 2)]:
        with pytest.raises(RuntimeError) as e:
            bool(genesis.zeros(shape, device=device))
        check_message(e)


def test_python_number_conversions(device):
    assert float(genesis.tensor(3, device=device)) == 3.0
    assert type(float(genesis.tensor(3, device=device))) is float
    assert int(genesis.tensor(-2.7, device=device)) == -2
    assert type(int(genesis.tensor([5.0], device=device))) is int
    assert [10, 20, 30][genesis.tensor(1, device=device)] == 20  # __index__
    with pytest.raises(ValueError) as e:
        float(genesis.zeros(2, device=device))
    check_message(e)
    with pytest.raises(ValueError):
        int(genesis.zeros(2, device=device))
    with pytest.raises(TypeError):
        [1, 2][genesis.tensor(1.0, device=device)]


def test_int_of_bool_tensor_is_an_int(device):
    t = genesis.tensor(True, device=device)
    assert type(t.__int__()) is int  # a bool here makes int(t) warn (DeprecationWarning)
    assert int(t) == 1


def test_len_of_0d_raises():
    with pytest.raises(TypeError) as e:
        len(genesis.tensor(1.0))
    check_message(e)


# --- float16 / bfloat16 rounding ---

SPECIAL = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    1 / 3,
    -2.5,
    65504.0,
    65519.99,
    65520.0,
    1e6,
    -1e6,
    float("inf"),
    float("-inf"),
    2.0**-24,
    2.0**-25,
    2.0**-25 * 1.0001,
    3 * 2.0**-25,
    2.0**-14,
    2.0**-14 - 2.0**-24,
    2.0**-26,
    1 + 2.0**-11,
    1 + 3 * 2.0**-11,
    1e-8,
    -1e-30,
    3.4e38,
    1e300,
    255.5,
    2049.0,
    2051.0,
    2.0**-133,
    2.0**-126 * 0.75,
    1 + 2.0**-8,
    1 + 3 * 2.0**-8,
]


def bits16(values_f32, dtype):
    """The 16-bit patterns of float16 values (given as float16) or bfloat16 values (as float32)."""
    if dtype is genesis.float16:
        return np.asarray(values_f32, np.float16).view(np.uint16)
    return (np.asarray(values_f32, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def assert_bits_equal(got, expected, dtype):
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(bits16(got[~nan], dtype), bits16(expected[~nan], dtype))


def float16_cases(seed):
    rng = np.random.default_rng(seed)
    scales = [1e-7, 1e-5, 1e-3, 1.0, 1e2, 1e4, 7e4]
    return np.concatenate([rng.standard_normal(200) * s for s in scales] + [np.array(SPECIAL)])


def test_float16_from_python_floats_bit_exact():
    values = [float(v) for v in float16_cases(0) if abs(v) < 1e5 or np.isinf(v)]
    values = [v for v in values if abs(v) < 3e38 or np.isinf(v)]
    got = genesis.tensor(values, dtype=genesis.float16).numpy()
    assert_bits_equal(got, np.array(values).astype(np.float16), genesis.float16)


def test_float16_special_values_bit_exact():
    got = genesis.tensor(SPECIAL + [float("nan")], dtype=genesis.float16).numpy()
    assert_bits_equal(got, np.array(SPECIAL + [float("nan")]).astype(np.float16), genesis.float16)


def test_float16_from_float64_is_correctly_rounded():
    # 1 + 2**-11 + 2**-40 lies just above the tie between float16 1.0 and 1 + 2**-10; rounding
    # through float32 first loses the 2**-40 and ties to even (1.0). NumPy rounds once.
    x = 1 + 2.0**-11 + 2.0**-40
    want = np.float16(x)
    assert genesis.tensor([x], dtype=genesis.float16).numpy()[0] == want
    assert genesis.tensor([x], dtype=genesis.float64).half().numpy()[0] == want


@pytest.mark.parametrize("src", [genesis.float32, genesis.float64], ids=dtype_id)
def test_float16_cast_bit_exact(device, src):
    a = float16_cases(1).astype(NP_DTYPE[src])
    got = genesis.tensor(a, device=device).half().cpu().numpy()
    assert_bits_equal(got, a.astype(np.float16), genesis.float16)


def test_float16_to_float32_exact(device):
    h = np.arange(0, 2**16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    got = genesis.tensor(h, device=device).float().cpu().numpy()
    np.testing.assert_array_equal(got, h.astype(np.float32))
    assert_bits_equal(got.astype(np.float16), h, genesis.float16)


def test_bfloat16_from_python_floats_matches_torch():
    torch = pytest.importorskip("torch")
    values = [float(v) for v in float16_cases(2)] + [float("nan")]
    got = genesis.tensor(values, dtype=genesis.bfloat16).float().numpy()
    want = torch.tensor(values, dtype=torch.bfloat16).float().numpy()
    assert_bits_equal(got, want, genesis.bfloat16)


@pytest.mark.parametrize("src", [genesis.float32, genesis.float64], ids=dtype_id)
def test_bfloat16_cast_matches_torch(device, src):
    torch = pytest.importorskip("torch")
    a = np.concatenate([float16_cases(3), np.array([1e38, -3e38, 2.0**-130])]).astype(NP_DTYPE[src])
    got = genesis.tensor(a, device=device).bfloat16().float().cpu().numpy()
    want = torch.from_numpy(a).bfloat16().float().numpy()
    assert_bits_equal(got, want, genesis.bfloat16)


def test_bfloat16_to_float32_exact(device):
    bits = np.arange(0, 2**16, dtype=np.uint32) << 16
    f = bits.view(np.float32)
    got = genesis.tensor(f, device=device).bfloat16().float().cpu().numpy()
    nan = np.isnan(f)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint32), bits[~nan])
