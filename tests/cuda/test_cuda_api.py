"""genesis.cuda basics and CUDA tensors: creation, fill, host <-> device copies."""

import numpy as np
import pytest
from conftest import (
    DTYPES,
    NP_DTYPE,
    assert_equal,
    check_message,
    dtype_id,
    make_tensor,
    no_cuda,
    raises_index_error,
    random_array,
    requires_cuda,
)

import genesis


def test_is_available_and_device_count_types():
    assert type(genesis.cuda.is_available()) is bool
    n = genesis.cuda.device_count()
    assert type(n) is int
    assert n >= 0
    assert genesis.cuda.is_available() == (n > 0)


# --- without a GPU ---


@no_cuda
@pytest.mark.parametrize(
    "make",
    [
        lambda: genesis.zeros(2, device="cuda"),
        lambda: genesis.empty(3, device="cuda:0"),
        lambda: genesis.tensor([1.0, 2.0], device="cuda"),
        lambda: genesis.full((2,), 1, device=genesis.device("cuda")),
        lambda: genesis.arange(4, device="cuda"),
        lambda: genesis.zeros(3).cuda(),
        lambda: genesis.zeros(3).to("cuda"),
        lambda: genesis.zeros(3).to("cuda", genesis.float16),
    ],
)
def test_cuda_tensor_without_gpu_raises(make):
    with pytest.raises(RuntimeError) as e:
        make()
    check_message(e)
    assert "no cuda device" in str(e.value).lower()


@no_cuda
def test_device_count_zero_without_gpu():
    assert genesis.cuda.device_count() == 0
    assert genesis.cuda.is_available() is False


# --- with a GPU ---


@requires_cuda
def test_cuda_tensor_attributes():
    t = genesis.zeros(2, 3, device="cuda")
    assert t.is_cuda and not t.is_cpu
    assert t.device.type == "cuda"
    assert t.device == genesis.device("cuda:0")
    assert t.untyped_storage().device == t.device
    assert genesis.zeros(2).cuda().device == genesis.device("cuda:0")
    assert genesis.zeros(2).to(0).device == genesis.device("cuda:0")


@requires_cuda
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("n", [1, 7, 1000, 1000003])
def test_fill_kernel(dtype, n):
    npd = NP_DTYPE[dtype]
    assert_equal(genesis.zeros(n, device="cuda", dtype=dtype), np.zeros(n, npd), dtype)
    assert_equal(genesis.ones(n, device="cuda", dtype=dtype), np.ones(n, npd), dtype)
    value = True if dtype is genesis.bool else -3.5 if dtype.is_floating_point else 101
    assert_equal(
        genesis.full((n,), value, device="cuda", dtype=dtype), np.full(n, value, npd), dtype
    )


@requires_cuda
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_fill_strided_cuda_view(dtype):
    x, a = make_tensor((6, 9), dtype, "cuda")
    value = False if dtype is genesis.bool else 5
    x[::-2, 1::3] = value
    a[::-2, 1::3] = value
    assert_equal(x, a, dtype)
    x.t()[2].fill_(value)
    a.T[2] = value
    assert_equal(x, a, dtype)


@requires_cuda
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4, 5), (1025, 3)])
def test_round_trip(dtype, shape):
    a = random_array(shape, dtype, seed=3)
    t = genesis.tensor(a, dtype=dtype, device="cuda")
    assert t.device.type == "cuda"
    back = t.cpu()
    assert back.device == genesis.device("cpu")
    assert_equal(back, a, dtype)
    assert_equal(t.to("cpu").to("cuda").to("cpu"), a, dtype)


@requires_cuda
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_non_contiguous_copies_both_ways(dtype):
    x, a = make_tensor((8, 6), dtype, "cpu", seed=4)
    # host strided -> device
    assert_equal(x.t().to("cuda"), a.T, dtype)
    assert_equal(x[::-3, 1::2].cuda(), a[::-3, 1::2], dtype)
    assert_equal(x[:1].expand(4, 6).cuda(), np.broadcast_to(a[:1], (4, 6)), dtype)
    # device strided -> host
    y = x.cuda()
    assert_equal(y.t().cpu(), a.T, dtype)
    assert_equal(y[::-1, ::-2].cpu(), a[::-1, ::-2], dtype)
    # into strided views, across devices
    dst, d = make_tensor((8, 6), dtype, "cuda", seed=5)
    dst[::2, ::-1].copy_(x[1::2])
    d[::2, ::-1] = a[1::2]
    assert_equal(dst, d, dtype)
    host, h = make_tensor((6, 8), dtype, "cpu", seed=6)
    host[:, ::2].copy_(y[::2].t())
    h[:, ::2] = a[::2].T
    assert_equal(host, h, dtype)


@requires_cuda
@pytest.mark.parametrize("dst", [genesis.float16, genesis.bfloat16, genesis.int32, genesis.bool])
def test_copy_with_cast_across_devices(dst):
    x, a = make_tensor((5, 7), genesis.float32, "cpu", seed=7, low=0, high=100)
    expected = x.to(dst)  # the CPU cast is the reference
    assert_equal(x.to("cuda", dst), to_np(expected), dst)
    assert_equal(x.cuda().to("cpu", dst), to_np(expected), dst)
    assert_equal(x.t().cuda().to(dst).t(), to_np(expected), dst)


def to_np(t):
    return t.float().numpy() if t.dtype is genesis.bfloat16 else t.numpy()


@requires_cuda
def test_item_and_tolist_on_cuda():
    x, a = make_tensor((3, 4), genesis.float64, "cuda")
    assert x[1, 2].item() == a[1, 2]
    assert type(x[0, 0].item()) is float
    assert x.tolist() == a.tolist()
    assert x.t()[::-1].tolist() == a.T[::-1].tolist()
    assert genesis.tensor(True, device="cuda").item() is True
    assert genesis.tensor(7, device="cuda", dtype=genesis.uint8).item() == 7
    assert genesis.tensor(1.5, device="cuda", dtype=genesis.bfloat16).item() == 1.5
    with pytest.raises(ValueError):
        x.item()


@requires_cuda
def test_numpy_of_cuda_tensor_raises():
    with pytest.raises(TypeError) as e:
        genesis.zeros(2, device="cuda").numpy()
    check_message(e, "numpy")


@requires_cuda
def test_index_error_keeps_cuda_usable():
    x = genesis.zeros(3, device="cuda")
    with raises_index_error():
        x[3]
    x[1] = 2.0
    assert x.tolist() == [0.0, 2.0, 0.0]


@pytest.mark.skipif(genesis.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_second_device():
    x, a = make_tensor((4, 5), genesis.float32, "cuda:1")
    assert x.device == genesis.device("cuda:1")
    y = x.to("cuda:0")
    assert y.device == genesis.device("cuda:0")
    assert_equal(y, a)
    z = genesis.zeros(4, 5, device="cuda:0")
    z.copy_(x.t().t())
    assert_equal(z, a)


NO_DEVICE_ENTRY_POINTS = {
    "zeros": lambda: genesis.zeros(2, device="cuda"),
    "empty": lambda: genesis.empty(2, device="cuda:0"),
    "tensor": lambda: genesis.tensor([1.0], device="cuda"),
    "arange": lambda: genesis.arange(3, device="cuda"),
    "randn": lambda: genesis.randn(3, device="cuda"),
    "to": lambda: genesis.ones(2).to("cuda"),
    "cuda()": lambda: genesis.ones(2).cuda(),
    "copy_": lambda: genesis.ones(2).copy_(genesis.ones(2), non_blocking=True).cuda(),
    "pin_memory": lambda: genesis.ones(2).pin_memory(),
    "current_device": lambda: genesis.cuda.current_device(),
    "set_device": lambda: genesis.cuda.set_device(0),
    "synchronize": lambda: genesis.cuda.synchronize(),
    "Stream": lambda: genesis.cuda.Stream(),
    "current_stream": lambda: genesis.cuda.current_stream(),
    "get_device_name": lambda: genesis.cuda.get_device_name(0),
    "get_device_properties": lambda: genesis.cuda.get_device_properties(0),
    "mem_get_info": lambda: genesis.cuda.mem_get_info(),
}


@pytest.mark.skipif(genesis.cuda.is_available(), reason="needs a machine without a GPU")
def test_one_no_device_message_everywhere():
    # Every entry point that needs a CUDA device says the same thing when there is none.
    messages = {}
    for name, call in NO_DEVICE_ENTRY_POINTS.items():
        with pytest.raises(RuntimeError) as e:
            call()
        messages[name] = str(e.value)
    distinct = set(messages.values())
    assert len(distinct) == 1, messages
    (text,) = distinct
    assert text.startswith("[cuda] no CUDA device is available (genesis was built with")
    assert "use device='cpu'" in text
