"""The small names a PyTorch swap trips on: genesis.Size, the default dtype and device, `x in t`,
the autograd part of repr, shape errors caught as RuntimeError and ValueError, NumPy arrays in
operators and NumPy ufuncs on CPU tensors."""

import pickle

import numpy as np
import pytest

import genesis

cuda = pytest.mark.skipif(not genesis.cuda.is_available(), reason="no CUDA device available")


@pytest.fixture
def restore_defaults():
    yield
    genesis.set_default_dtype(genesis.float32)
    genesis.set_default_device(None)


# --- genesis.Size --------------------------------------------------------------------------------


def test_shape_and_size_are_sizes():
    x = genesis.zeros(2, 3, 4)
    for s in (x.shape, x.size()):
        assert type(s) is genesis.Size and isinstance(s, tuple)
        assert s == (2, 3, 4) and hash(s) == hash((2, 3, 4))
        assert s.numel() == 24 == x.numel()
    assert type(x.stride()) is tuple  # as in PyTorch
    assert x.size(1) == 3
    assert genesis.zeros(()).shape == genesis.Size([]) and genesis.Size().numel() == 1
    assert genesis.zeros(0, 5).shape.numel() == 0


def test_size_keeps_its_type_and_prints_like_torch():
    s = genesis.Size([2, 3])
    assert repr(s) == str(s) == "genesis.Size([2, 3])"
    assert type(s[1:]) is genesis.Size and s[1:] == (3,)
    assert type(s[0]) is int
    assert type(s + (4,)) is genesis.Size and s + (4,) == (2, 3, 4)
    assert type((1,) + s) is genesis.Size and (1,) + s == (1, 2, 3)
    assert type(s * 2) is genesis.Size and s * 2 == (2, 3, 2, 3)
    a, b = s
    assert (a, b) == (2, 3)
    assert (
        pickle.loads(pickle.dumps(s)) == s and type(pickle.loads(pickle.dumps(s))) is genesis.Size
    )


def test_size_is_accepted_where_sizes_are():
    s = genesis.zeros(2, 3).shape
    assert genesis.ones(s).shape == s
    assert genesis.zeros(6).view(s).shape == s
    assert genesis.zeros(1, 3).expand(s).shape == s


def test_size_refuses_non_ints():
    with pytest.raises(TypeError, match=r"^\[Size\]"):
        genesis.Size([1.5])
    with pytest.raises(TypeError, match=r"^\[Size\]"):
        genesis.Size(3)


def test_size_matches_torch():
    torch = pytest.importorskip("torch")
    t = torch.zeros(2, 3)
    g = genesis.zeros(2, 3)
    assert repr(g.shape).replace("genesis", "torch") == repr(t.shape)
    assert tuple(g.shape[1:]) == tuple(t.shape[1:]) and g.shape.numel() == t.shape.numel()


# --- default dtype and device --------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "float32"])
def test_default_dtype_reaches_every_float_default(dtype, restore_defaults):
    d = getattr(genesis, dtype)
    genesis.set_default_dtype(d)
    assert genesis.get_default_dtype() == d
    assert genesis.tensor([1.5]).dtype == d
    assert genesis.tensor(2.5).dtype == d
    assert genesis.tensor([]).dtype == d
    for made in (genesis.zeros(2), genesis.ones(2), genesis.empty(2), genesis.rand(2)):
        assert made.dtype == d
    assert genesis.randn(2).dtype == d and genesis.linspace(0, 1, 3).dtype == d
    assert genesis.eye(2).dtype == d
    assert (genesis.arange(3) / 2).dtype == d  # integer true division
    assert (genesis.arange(3) * 0.5).dtype == d  # a Python float beside integers
    assert genesis.arange(3).float().dtype == genesis.float32  # explicit dtypes stay
    assert genesis.tensor([1, 2]).dtype == genesis.int64


def test_default_dtype_refuses_non_floats(restore_defaults):
    with pytest.raises(TypeError, match=r"^\[set_default_dtype\] only floating point types"):
        genesis.set_default_dtype(genesis.int64)
    assert genesis.get_default_dtype() == genesis.float32


def test_default_dtype_as_torch(restore_defaults):
    torch = pytest.importorskip("torch")
    try:
        torch.set_default_dtype(torch.float64)
        genesis.set_default_dtype(genesis.float64)
        for code in ["L.tensor([1.5])", "L.zeros(2)", "L.arange(4) / 3", "L.tensor([1, 2]) * 0.5"]:
            t = eval(code, {"L": torch})
            g = eval(code, {"L": genesis})
            assert str(g.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], code
            np.testing.assert_array_equal(g.numpy(), t.numpy())
    finally:
        torch.set_default_dtype(torch.float32)


def test_default_device_cpu(restore_defaults):
    genesis.set_default_device("cpu")
    assert genesis.get_default_device() == genesis.device("cpu")
    assert genesis.zeros(2).device.type == "cpu"
    with pytest.raises(ValueError):
        genesis.set_default_device("tpu")
    genesis.set_default_device(None)
    assert genesis.get_default_device() == genesis.device("cpu")


@cuda
def test_default_device_cuda_reaches_the_factories(restore_defaults):
    genesis.set_default_device("cuda")
    made = [
        genesis.tensor([1.0, 2.0]),
        genesis.zeros(2),
        genesis.ones(2),
        genesis.empty(2),
        genesis.full((2,), 3.0),
        genesis.arange(3),
        genesis.linspace(0, 1, 3),
        genesis.eye(2),
        genesis.rand(2),
        genesis.randn(2),
        genesis.randint(0, 5, (2,)),
        genesis.tril_indices(3, 3),
        genesis.as_tensor([1, 2]),
    ]
    assert all(t.is_cuda for t in made), [t.device for t in made]
    cpu = genesis.zeros(2, device="cpu")
    assert genesis.zeros_like(cpu).device.type == "cpu"  # *_like keep their input's device
    assert genesis.from_numpy(np.ones(2)).device.type == "cpu"
    genesis.set_default_device(genesis.device("cpu"))
    assert genesis.zeros(2).device.type == "cpu"


# --- x in t ------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=cuda)])
def test_contains(device):
    t = genesis.tensor([[1.0, 2.0], [3.0, float("nan")]], device=device)
    assert 3 in t and 2.0 in t and 5 not in t
    assert float("nan") not in t  # nan == nan is False, as in PyTorch
    assert genesis.tensor([1.0, 2.0], device=device) in t  # a row
    assert np.float32(1.0) in t
    with pytest.raises(RuntimeError, match=r"^\[__contains__\] .* only supports Tensor or scalar"):
        "a" in t  # noqa: B015


# --- repr ----------------------------------------------------------------------------------------


def test_repr_shows_autograd_state_as_torch():
    torch = pytest.importorskip("torch")
    g = genesis.tensor([1.0, 2.0]).requires_grad_()
    t = torch.tensor([1.0, 2.0]).requires_grad_()
    assert repr(g) == repr(t)
    assert repr(g * 2) == repr(t * 2)
    assert repr((g * 2).sum()) == repr((t * 2).sum())
    with genesis.no_grad():
        assert repr(g * 2) == "tensor([2., 4.])"
    assert repr(g.detach()) == "tensor([1., 2.])"
    h = genesis.tensor([1.0], dtype=genesis.float16).requires_grad_()
    assert repr(h) == "tensor([1.], dtype=genesis.float16, requires_grad=True)"


# --- shape errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        lambda x: x + genesis.ones(4),
        lambda x: x.view(5),
        lambda x: x.reshape(7),
        lambda x: x.expand(4, 3),
        lambda x: x.permute(0),
        lambda x: genesis.ones(-1),
        lambda x: x.split([1, 5], 1),
        lambda x: x.copy_(genesis.ones(4)),
        lambda x: x.flip(0, 0),
    ],
)
def test_shape_errors_are_both_value_and_runtime_errors(bad):
    x = genesis.ones(2, 3)
    for cls in (ValueError, RuntimeError, genesis._C.ShapeError):
        with pytest.raises(cls, match=r"^\["):
            bad(x)


# --- NumPy arrays and ufuncs ---------------------------------------------------------------------


def test_arrays_in_operators_give_tensors():
    torch = pytest.importorskip("torch")
    a = np.arange(3, dtype=np.float64)
    g, t = genesis.ones(3), torch.ones(3)
    for code in ["x + a", "x * a", "x - a", "x == a", "x / a", "x ** a"]:
        gr = eval(code, {"x": g, "a": a})
        tr = eval(code, {"x": t, "a": a})
        assert isinstance(gr, genesis.Tensor), code
        assert str(gr.dtype).split(".")[-1] == str(tr.dtype).split(".")[-1], code
        np.testing.assert_array_equal(gr.numpy(), tr.numpy())
    assert (g > a).tolist() == [True, False, False]  # torch refuses < and > with an array
    # the array on the left: genesis gives a tensor too (torch raises for some of these)
    r = a + g
    assert isinstance(r, genesis.Tensor) and r.tolist() == [1.0, 2.0, 3.0]
    assert isinstance(a * g, genesis.Tensor)
    y = genesis.ones(3)
    y += np.full(3, 2.0, dtype=np.float32)
    assert y.tolist() == [3.0, 3.0, 3.0]


def test_ufuncs_on_cpu_tensors():
    torch = pytest.importorskip("torch")
    g = genesis.tensor([0.5, 1.0, 2.0])
    t = torch.tensor([0.5, 1.0, 2.0])
    for name in ["sin", "exp", "sqrt", "negative"]:
        gr, tr = getattr(np, name)(g), getattr(np, name)(t)
        assert isinstance(gr, genesis.Tensor)
        assert str(gr.dtype).split(".")[-1] == str(tr.dtype).split(".")[-1]
        np.testing.assert_allclose(gr.numpy(), tr.numpy(), rtol=1e-6)
    assert isinstance(np.add(g, 1), genesis.Tensor) and np.add(g, 1).tolist() == [1.5, 2.0, 3.0]
    assert isinstance(np.maximum(g, 0.75), genesis.Tensor)
    out = genesis.zeros(3)
    assert np.add(g, 1, out=out) is out  # writes into the tensor, as NumPy does with arrays
    assert out.tolist() == [1.5, 2.0, 3.0]
    q, r = np.divmod(genesis.tensor([7, 8]), 3)
    assert q.tolist() == [2, 2] and r.tolist() == [1, 2]


def test_ufunc_out_refuses_a_read_only_tensor():
    src = np.zeros(3)
    src.flags.writeable = False
    ro = genesis.from_numpy(src)
    with pytest.raises(RuntimeError, match=r"^\[add\] out= is a tensor NumPy may not write to"):
        np.add(genesis.ones(3, dtype=genesis.float64), 1, out=ro)


@cuda
def test_ufuncs_refuse_cuda_tensors():
    with pytest.raises(TypeError, match=r"^\[sin\] NumPy ufuncs take CPU tensors"):
        np.sin(genesis.ones(2, device="cuda"))
