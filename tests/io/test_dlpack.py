"""DLPack on the CPU: genesis <-> NumPy and PyTorch, capsules, copies, errors, leaks.

Tensor.__dlpack__ / __dlpack_device__ and genesis.from_dlpack (csrc/python/dlpack.cpp,
csrc/dlpack/convert.cpp). NumPy's and PyTorch's producers only make well-formed capsules, so the
consumer's checks (a major version 2, a read-only flag, a byte_offset, NULL strides, vector
dtypes, unknown devices) are fed capsules built by hand with ctypes (``HandMade``). PyTorch
tests are skipped when torch does not import.
"""

import ctypes
import gc
import sys
import threading
import weakref

import numpy as np
import pytest
from conftest import DTYPES, NP_DTYPE, assert_equal, dtype_id, make_tensor, no_cuda, to_numpy

import genesis

NP_DTYPES = [d for d in DTYPES if d is not genesis.bfloat16]  # NumPy has no bfloat16


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def torch_dtype(torch, dtype):
    return getattr(torch, dtype_id(dtype))


def torch_values(t):
    """A NumPy copy of a CPU torch tensor (bfloat16 as float32)."""
    import torch

    if t.dtype is torch.bfloat16:
        t = t.float()
    return t.numpy().copy()


def torch_from_numpy(torch, a, dtype):
    """A torch tensor of ``dtype`` holding a's values (bfloat16 values come in float32)."""
    t = torch.from_numpy(np.ascontiguousarray(a))
    return t.to(torch.bfloat16) if dtype is genesis.bfloat16 else t


# --- the DLPack ABI through ctypes ---

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_ROCM, KDL_CUDA_MANAGED = 1, 2, 3, 10, 13
KDL_INT, KDL_UINT, KDL_FLOAT, KDL_BFLOAT, KDL_COMPLEX, KDL_BOOL = 0, 1, 2, 4, 5, 6
READ_ONLY, IS_COPIED = 1, 2

# (type code, bits) that genesis exports for each dtype.
DL_DTYPE = {
    genesis.bool: (KDL_BOOL, 8),
    genesis.uint8: (KDL_UINT, 8),
    genesis.int8: (KDL_INT, 8),
    genesis.int16: (KDL_INT, 16),
    genesis.int32: (KDL_INT, 32),
    genesis.int64: (KDL_INT, 64),
    genesis.float16: (KDL_FLOAT, 16),
    genesis.bfloat16: (KDL_BFLOAT, 16),
    genesis.float32: (KDL_FLOAT, 32),
    genesis.float64: (KDL_FLOAT, 64),
}

LEGACY, VERSIONED = b"dltensor", b"dltensor_versioned"
USED_LEGACY, USED_VERSIONED = b"used_dltensor", b"used_dltensor_versioned"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", DELETER),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# Our own handle on the C API: setting argtypes on ctypes.pythonapi would change them for
# every other user of it in this process.
_capi = ctypes.PyDLL(None)
_capi.PyCapsule_GetName.restype = ctypes.c_char_p
_capi.PyCapsule_GetName.argtypes = [ctypes.py_object]
_capi.PyCapsule_IsValid.restype = ctypes.c_int
_capi.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_capi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capi.PyCapsule_New.restype = ctypes.py_object
_capi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def capsule_name(cap):
    return _capi.PyCapsule_GetName(cap)


def managed(cap):
    """The (legacy or versioned) managed tensor inside an unconsumed capsule."""
    name = capsule_name(cap)
    assert _capi.PyCapsule_IsValid(cap, name)
    kind = DLManagedTensorVersioned if name == VERSIONED else DLManagedTensor
    return kind.from_address(_capi.PyCapsule_GetPointer(cap, name))


def dl_fields(cap):
    """(data, device, dtype (code, bits, lanes), shape, strides, byte_offset) of a capsule."""
    t = managed(cap).dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else None
    return (
        t.data or 0,
        (t.device.device_type, t.device.device_id),
        (t.dtype.code, t.dtype.bits, t.dtype.lanes),
        shape,
        strides,
        t.byte_offset,
    )


# Hand-made producers stay alive for the whole session: a genesis tensor may outlive the test's
# local variables (locals are released in no guaranteed order), and its release calls back into
# the producer's ctypes deleter.
_ALIVE = []


class HandMade:
    """A DLPack producer written with ctypes over a NumPy buffer: every field is set by hand.

    ``capsule`` is a raw capsule (no destructor: the buffers here outlive it); ``deleted`` lists
    the pointers the consumer passed to the deleter. Keep the object alive until the consumer
    has released the memory. As a producer object it hands out its one capsule.
    """

    def __init__(
        self,
        buf,
        shape=None,
        strides=None,
        dtype=(KDL_FLOAT, 32, 1),
        device=(KDL_CPU, 0),
        byte_offset=0,
        version=(1, 1),
        flags=0,
        versioned=True,
        ndim=None,
    ):
        _ALIVE.append(self)
        self.buf = buf
        self.deleted = []
        shape = buf.shape if shape is None else tuple(shape)
        self._shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self._strides = None
        if strides is not None:
            self._strides = (ctypes.c_int64 * max(len(strides), 1))(*strides)
        self._deleter = DELETER(self.deleted.append)
        m = DLManagedTensorVersioned() if versioned else DLManagedTensor()
        if versioned:
            m.version = DLPackVersion(*version)
            m.flags = flags
        m.deleter = self._deleter
        t = m.dl_tensor
        t.data = buf.ctypes.data
        t.device = DLDevice(*device)
        t.ndim = len(shape) if ndim is None else ndim
        t.dtype = DLDataType(*dtype)
        t.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        if self._strides is not None:
            t.strides = ctypes.cast(self._strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = byte_offset
        self.managed = m
        self.address = ctypes.addressof(m)
        self.capsule = _capi.PyCapsule_New(self.address, VERSIONED if versioned else LEGACY, None)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return self.capsule

    def __dlpack_device__(self):
        return (self.managed.dl_tensor.device.device_type, self.managed.dl_tensor.device.device_id)


class Recorder:
    """A producer that forwards to ``inner`` (NumPy, torch, genesis) and records the calls."""

    def __init__(self, inner):
        self.inner = inner
        self.calls = []
        self.names = []

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        cap = self.inner.__dlpack__(**kwargs)
        self.names.append(capsule_name(cap))
        return cap

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()


class LegacyProducer:
    """A producer from before DLPack 1.0: __dlpack__ takes only ``stream``."""

    def __init__(self, inner):
        self.inner = inner
        self.calls = []

    def __dlpack__(self, stream=None):
        self.calls.append(stream)
        return self.inner.__dlpack__()  # a legacy capsule

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()


def refcount_settled(obj):
    gc.collect()
    return sys.getrefcount(obj)


# --- round trips, every dtype ---


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=dtype_id)
def test_genesis_to_numpy(dtype):
    x, a = make_tensor((3, 4), dtype)
    n = np.from_dlpack(x)
    assert n.dtype == NP_DTYPE[dtype]
    np.testing.assert_array_equal(n, a)
    assert n.ctypes.data == x.data_ptr()  # shared, not copied
    assert n.strides == tuple(s * x.itemsize for s in x.stride())


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=dtype_id)
def test_numpy_to_genesis(dtype):
    x, a = make_tensor((3, 4), dtype)
    a = a.copy()
    g = genesis.from_dlpack(a)
    assert_equal(g, a)
    assert g.data_ptr() == a.ctypes.data
    assert g.stride() == (4, 1)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_genesis_to_torch(torch, dtype):
    x, a = make_tensor((3, 4), dtype)
    t = torch.from_dlpack(x)
    assert t.dtype == torch_dtype(torch, dtype)
    np.testing.assert_array_equal(torch_values(t), a)
    assert t.data_ptr() == x.data_ptr()
    assert t.stride() == x.stride()


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_torch_to_genesis(torch, dtype):
    _, a = make_tensor((3, 4), dtype)
    t = torch_from_numpy(torch, a, dtype)
    g = genesis.from_dlpack(t)
    assert_equal(g, a, dtype)
    assert g.data_ptr() == t.data_ptr()


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_genesis_to_genesis_shares(dtype):
    x, a = make_tensor((3, 4), dtype)
    g = genesis.from_dlpack(x)
    assert_equal(g, a, dtype)
    assert g.data_ptr() == x.data_ptr()


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_genesis_to_torch_to_genesis(torch, dtype):
    x, a = make_tensor((2, 5), dtype)
    back = genesis.from_dlpack(torch.from_dlpack(x.t()))
    assert_equal(back, a.T, dtype)
    assert back.data_ptr() == x.data_ptr()
    assert back.stride() == (1, 5)


# --- layouts: 0-d, zero-size, strided, negative strides, size-1 dims ---

# (name, genesis view, the same view in NumPy) of a (6, 8) tensor.
VIEWS = [
    ("contiguous", lambda x: x, lambda a: a),
    ("transposed", lambda x: x.t(), lambda a: a.T),
    ("stepped", lambda x: x[::2, 1::3], lambda a: a[::2, 1::3]),
    ("offset-column", lambda x: x[1:5, 3], lambda a: a[1:5, 3]),
    (
        "permuted-3d",
        lambda x: x.reshape(2, 3, 8).permute(2, 0, 1),
        lambda a: a.reshape(2, 3, 8).transpose(2, 0, 1),
    ),
    ("size-1-row", lambda x: x[2:3, 1:7:2], lambda a: a[2:3, 1:7:2]),
    ("unsqueezed", lambda x: x[:, 2].unsqueeze(1), lambda a: a[:, 2][:, None]),
    ("expanded", lambda x: x[1:2].expand(4, 8), lambda a: np.broadcast_to(a[1:2], (4, 8))),
    ("zero-size-rows", lambda x: x[3:3], lambda a: a[3:3]),
    ("zero-size-cols", lambda x: x[:, 5:2], lambda a: a[:, 5:2]),
    ("0-d", lambda x: x[4, 5], lambda a: a[4, 5]),
]
NEGATIVE = [
    ("flipped-rows", lambda x: x[::-1], lambda a: a[::-1]),
    ("flipped-both-stepped", lambda x: x[::-2, ::-3], lambda a: a[::-2, ::-3]),
    ("flipped-transposed", lambda x: x.t()[::-1, 1::2], lambda a: a.T[::-1, 1::2]),
]


def _ids(views):
    return [v[0] for v in views]


@pytest.mark.parametrize("name,gview,nview", VIEWS + NEGATIVE, ids=_ids(VIEWS + NEGATIVE))
def test_genesis_view_to_numpy(name, gview, nview):
    x, a = make_tensor((6, 8), genesis.float32)
    xv, av = gview(x), nview(a)
    n = np.from_dlpack(xv)
    assert n.shape == av.shape
    np.testing.assert_array_equal(n, av)
    if n.size:
        assert n.ctypes.data == xv.data_ptr()
        if n.ndim:
            assert n.strides == tuple(s * 4 for s in xv.stride())
    if n.size:  # a write through NumPy shows in genesis
        idx = (n.shape[0] - 1,) + (0,) * (n.ndim - 1) if n.ndim else ()
        n[idx] = 1234.5
        assert xv[idx].item() == 1234.5


@pytest.mark.parametrize("name,gview,nview", VIEWS, ids=_ids(VIEWS))
def test_genesis_view_to_torch(torch, name, gview, nview):
    x, a = make_tensor((6, 8), genesis.float32)
    xv, av = gview(x), nview(a)
    t = torch.from_dlpack(xv)
    assert tuple(t.shape) == av.shape
    np.testing.assert_array_equal(t.numpy(), av)
    if t.numel():
        assert t.data_ptr() == xv.data_ptr()
        assert t.stride() == xv.stride()


# (name, view of a (6, 8) NumPy array); NumPy views are writable, so nothing is copied.
NP_VIEWS = [
    ("transposed", lambda a: a.T),
    ("stepped", lambda a: a[::2, 1::3]),
    ("flip", lambda a: np.flip(a)),
    ("flip-rows-stepped", lambda a: np.flip(a, 0)[:, ::3]),
    ("negative-step-cols", lambda a: a[1:, ::-3]),
    ("size-1-row", lambda a: a[4:5, ::2]),
    ("0-d", lambda a: a[2:3, 3:4].reshape(())),  # a 0-d view (a[2, 3] is a NumPy scalar)
    ("zero-size", lambda a: a[:0, 2:]),
    ("zero-size-flipped", lambda a: a[::-1, 3:3]),
]


@pytest.mark.parametrize("name,view", NP_VIEWS, ids=[v[0] for v in NP_VIEWS])
def test_numpy_view_to_genesis(name, view):
    a = make_tensor((6, 8), genesis.float64)[1].copy()
    av = view(a)
    g = genesis.from_dlpack(av)
    assert g.shape == av.shape
    assert_equal(g, av)
    if av.size:
        assert g.data_ptr() == av.ctypes.data
        assert g.stride() == tuple(s // 8 for s in av.strides)
        idx = (0,) * av.ndim
        g[idx] = -77.0
        assert av[idx] == -77.0


def test_numpy_0d_and_zero_size_arrays():
    g = genesis.from_dlpack(np.array(2.5, dtype=np.float32))
    assert g.shape == () and g.dtype is genesis.float32 and g.item() == 2.5
    for shape in [(0,), (0, 3), (3, 0), (2, 0, 4)]:
        g = genesis.from_dlpack(np.zeros(shape, dtype=np.int16))
        assert g.shape == shape and g.dtype is genesis.int16 and g.numel() == 0


# torch views of a (6, 8) tensor: strides and sharing survive.
TORCH_VIEWS = [
    ("transposed", lambda t: t.t()),
    ("stepped", lambda t: t[::2, 1::3]),
    ("permuted-3d", lambda t: t.reshape(2, 3, 8).permute(1, 2, 0)),
    ("expanded", lambda t: t[3:4].expand(5, 8)),
    ("0-d", lambda t: t[1, 2]),
    ("zero-size", lambda t: t[:, 8:]),
    ("zero-size-3d", lambda t: t.reshape(6, 8, 1)[:, :, 1:]),
    ("size-1-odd-stride", lambda t: t.as_strided((1, 6), (1000, 1), 2)),
    ("size-1-dims-odd-strides", lambda t: t.as_strided((2, 1, 3, 1), (8, 7, 2, 99), 1)),
]


@pytest.mark.parametrize("name,view", TORCH_VIEWS, ids=[v[0] for v in TORCH_VIEWS])
def test_torch_view_to_genesis(torch, name, view):
    _, a = make_tensor((6, 8), genesis.float32)
    t = view(torch.from_numpy(a.copy()))
    g = genesis.from_dlpack(t)
    assert g.shape == tuple(t.shape)
    assert g.stride() == t.stride()
    assert_equal(g, t.numpy())
    if t.numel():
        assert g.data_ptr() == t.data_ptr()


def test_size_1_dim_odd_stride_round_trips(torch):
    """A size-1 dim's stride is meaningless: genesis keeps it and exports it as it came."""
    base = torch.arange(40, dtype=torch.float32)
    t = base.as_strided((1, 5, 1), (1000, 3, 77), 4)
    g = genesis.from_dlpack(t)
    assert g.stride() == (1000, 3, 77)
    assert g.tolist() == [[[4.0], [7.0], [10.0], [13.0], [16.0]]]
    n = np.from_dlpack(g)
    assert n.strides == (4000, 12, 308)
    np.testing.assert_array_equal(n, t.numpy())
    back = torch.from_dlpack(g)
    assert back.stride() == (1000, 3, 77) and back.data_ptr() == t.data_ptr()
    n[0, 4, 0] = -1.0
    assert base[16].item() == -1.0


def test_size_1_dim_negative_stride_numpy_round_trip():
    a = np.arange(20, dtype=np.float32)
    v = np.lib.stride_tricks.as_strided(a[3:], shape=(1, 4, 1), strides=(-400, 8, -12))
    g = genesis.from_dlpack(v)
    assert g.stride() == (-100, 2, -3)
    assert g.tolist() == [[[3.0], [5.0], [7.0], [9.0]]]
    n = np.from_dlpack(g)
    assert n.strides == (-400, 8, -12) and n.ctypes.data == a.ctypes.data + 12
    np.testing.assert_array_equal(n, v)


def test_genesis_negative_strides_from_imported_flip_back_to_numpy():
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    g = genesis.from_dlpack(np.flip(a, 1)[::2])
    assert g.stride() == (12, -1)
    n = np.from_dlpack(g.t())
    np.testing.assert_array_equal(n, np.flip(a, 1)[::2].T)
    assert n.ctypes.data == a.ctypes.data + 5 * 4
    n[1, 1] = 1000
    assert a[2, 4] == 1000


# --- mutation is visible on both sides ---


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.int32, genesis.bool, genesis.float16])
def test_mutation_visible_genesis_numpy(dtype):
    x, a = make_tensor((4, 5), dtype)
    new = {k: (not a[k]) if dtype is genesis.bool else v for k, v in [((1, 2), 3), ((3, 4), 7)]}
    n = np.from_dlpack(x)
    x[1, 2] = new[1, 2]
    assert n[1, 2] == new[1, 2]
    n[3, 4] = new[3, 4]
    assert x[3, 4].item() == new[3, 4]
    x.fill_(1)
    assert (n == 1).all()

    b = a.copy()
    g = genesis.from_dlpack(b)
    b[1, 2] = new[1, 2]
    assert g[1, 2].item() == new[1, 2]
    g.zero_()
    assert not b.any()


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.int64, genesis.bool, genesis.bfloat16])
def test_mutation_visible_genesis_torch(torch, dtype):
    x, a = make_tensor((4, 5), dtype)
    new = {k: (not a[k]) if dtype is genesis.bool else v for k, v in [((1, 2), 3), ((3, 4), 7)]}
    t = torch.from_dlpack(x)
    x[1, 2] = new[1, 2]
    assert t[1, 2].item() == new[1, 2]
    t[3, 4] = new[3, 4]
    assert x[3, 4].item() == new[3, 4]

    s = torch_from_numpy(torch, a, dtype)
    g = genesis.from_dlpack(s)
    s[1, 2] = new[1, 2]
    assert g[1, 2].item() == new[1, 2]
    g.fill_(0)
    assert not s.any()


def test_mutation_through_expanded_torch_view(torch):
    t = torch.arange(3.0)
    g = genesis.from_dlpack(t.expand(4, 3))
    assert g.stride() == (0, 1)
    g[2, 1] = 50.0
    assert t.tolist() == [0.0, 50.0, 2.0]


# --- capsules: names, fields, consumption ---


def test_capsule_names_follow_max_version():
    x = genesis.arange(4)
    assert capsule_name(x.__dlpack__()) == LEGACY
    assert capsule_name(x.__dlpack__(max_version=None)) == LEGACY
    assert capsule_name(x.__dlpack__(max_version=(0, 8))) == LEGACY
    for v in [(1, 0), (1, 1), (1, 5), (2, 0)]:
        cap = x.__dlpack__(max_version=v)
        assert capsule_name(cap) == VERSIONED
        assert '"dltensor_versioned"' in repr(cap)
        assert managed(cap).version.major == 1  # the consumer must check; ours is 1.x
    assert '"dltensor"' in repr(x.__dlpack__())


def test_dlpack_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        genesis.arange(3).__dlpack__(None)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("versioned", [False, True], ids=["legacy", "versioned"])
def test_capsule_fields(dtype, versioned):
    x = make_tensor((5, 6), dtype)[0][1:, ::2]
    cap = x.__dlpack__(max_version=(1, 1) if versioned else None)
    data, device, dt, shape, strides, offset = dl_fields(cap)
    assert data == x.data_ptr()  # storage offset folded into data
    assert offset == 0
    assert device == (KDL_CPU, 0)
    assert dt == DL_DTYPE[dtype] + (1,)
    assert shape == (4, 3)
    assert strides == (6, 2)
    if versioned:
        m = managed(cap)
        assert (m.version.major, m.version.minor) == (1, 1)
        assert m.flags == 0


def test_capsule_fields_0d():
    x = genesis.tensor(5, dtype=genesis.int64)
    data, _, _, shape, strides, _ = dl_fields(x.__dlpack__(max_version=(1, 0)))
    assert data == x.data_ptr() and shape == () and strides in ((), None)


def test_dlpack_device():
    assert genesis.zeros(2).__dlpack_device__() == (KDL_CPU, 0)
    assert genesis.zeros(()).__dlpack_device__() == (1, 0)


def test_raw_capsules_accepted():
    a = np.arange(6, dtype=np.float32)
    for cap in [a.__dlpack__(), a.__dlpack__(max_version=(1, 0))]:
        g = genesis.from_dlpack(cap)
        assert g.data_ptr() == a.ctypes.data
        assert g.tolist() == a.tolist()
    x = genesis.arange(5)
    for cap in [x.__dlpack__(), x.__dlpack__(max_version=(1, 1))]:
        g = genesis.from_dlpack(cap)
        assert g.data_ptr() == x.data_ptr()


def test_raw_torch_capsules_accepted(torch):
    t = torch.arange(6, dtype=torch.int16)
    for cap in [t.__dlpack__(), t.__dlpack__(max_version=(1, 0))]:
        g = genesis.from_dlpack(cap)
        assert g.dtype is genesis.int16 and g.data_ptr() == t.data_ptr()


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_consumed_capsule_is_renamed_and_raises_again(max_version):
    x = genesis.arange(4.0)
    cap = x.__dlpack__(max_version=max_version)
    name = capsule_name(cap)
    genesis.from_dlpack(cap)
    assert capsule_name(cap) == b"used_" + name
    assert not _capi.PyCapsule_IsValid(cap, name)
    with pytest.raises(BufferError, match="already consumed"):
        genesis.from_dlpack(cap)


def test_capsule_consumed_by_torch_raises_in_genesis(torch):
    cap = genesis.arange(3).__dlpack__()
    torch.from_dlpack(cap)
    assert capsule_name(cap) == USED_LEGACY
    with pytest.raises(BufferError):
        genesis.from_dlpack(cap)


def test_numpy_capsule_consumed_twice():
    cap = np.ones(3).__dlpack__(max_version=(1, 0))
    genesis.from_dlpack(cap)
    assert capsule_name(cap) == USED_VERSIONED
    with pytest.raises(BufferError):
        genesis.from_dlpack(cap)


def test_not_a_dlpack_capsule():
    target = ctypes.c_int(1)
    other = _capi.PyCapsule_New(ctypes.addressof(target), b"something_else", None)
    with pytest.raises(BufferError, match="not a DLPack capsule"):
        genesis.from_dlpack(other)
    with pytest.raises(TypeError):
        genesis.from_dlpack(3)
    with pytest.raises(TypeError):
        genesis.from_dlpack([1.0, 2.0])


def test_producer_returning_garbage():
    class Bad:
        def __dlpack__(self, **kwargs):
            return "not a capsule"

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(BufferError):
        genesis.from_dlpack(Bad())


# --- copy and dl_device on the producer side ---


def test_copy_true_exports_an_independent_copy():
    x = genesis.arange(6.0).reshape(2, 3).t()
    cap = x.__dlpack__(max_version=(1, 0), copy=True)
    m = managed(cap)
    assert m.flags & IS_COPIED
    assert not m.flags & READ_ONLY
    assert m.dl_tensor.data != x.data_ptr()
    g = genesis.from_dlpack(cap)
    assert g.tolist() == x.tolist()
    g.fill_(-1.0)
    assert x.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]

    legacy = x.__dlpack__(copy=True)  # no flags field, still a copy
    assert dl_fields(legacy)[0] != x.data_ptr()


def test_copy_false_and_none_share():
    x = genesis.arange(6.0)
    for copy in [False, None]:
        cap = x.__dlpack__(max_version=(1, 0), copy=copy)
        assert managed(cap).flags == 0
        assert dl_fields(cap)[0] == x.data_ptr()


def test_read_only_tensor_exports_the_read_only_flag():
    """Note [Read-only storages]: versioned capsules say read-only; legacy ones cannot, so they
    hold a copy (and copy=False refuses)."""
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    x = genesis.from_numpy(a)
    cap = x.__dlpack__(max_version=(1, 0))
    assert managed(cap).flags == READ_ONLY and dl_fields(cap)[0] == x.data_ptr()
    copied = x.__dlpack__(max_version=(1, 0), copy=True)
    assert managed(copied).flags == IS_COPIED and dl_fields(copied)[0] != x.data_ptr()
    for copy in [None, True]:
        assert dl_fields(x.__dlpack__(copy=copy))[0] != x.data_ptr()
    with pytest.raises(BufferError, match="read-only"):
        x.__dlpack__(copy=False)


def test_numpy_and_torch_consumers_copy(torch):
    x = genesis.arange(4.0)
    n = np.from_dlpack(x, copy=True)
    assert n.ctypes.data != x.data_ptr()
    n[0] = 9.0
    assert x[0].item() == 0.0
    assert np.from_dlpack(x, copy=False).ctypes.data == x.data_ptr()
    t = torch.from_dlpack(x, copy=True)
    assert t.data_ptr() != x.data_ptr()
    assert torch.from_dlpack(x, copy=False).data_ptr() == x.data_ptr()


def test_dl_device_cpu_on_cpu_tensor_does_not_copy():
    x = genesis.arange(5)
    for copy in [None, False]:
        cap = x.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0), copy=copy)
        assert dl_fields(cap)[0] == x.data_ptr()
        assert managed(cap).flags == 0
    cap = x.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0), copy=True)
    assert dl_fields(cap)[0] != x.data_ptr()
    assert managed(cap).flags == IS_COPIED
    n = np.from_dlpack(x, device="cpu")  # NumPy passes dl_device=(1, 0)
    assert n.ctypes.data == x.data_ptr()


@pytest.mark.parametrize(
    "dl_device", [(KDL_ROCM, 0), (KDL_CUDA_HOST, 0), (KDL_CUDA_MANAGED, 0), (99, 0)]
)
def test_dl_device_unsupported_raises_buffer_error(dl_device):
    with pytest.raises(BufferError):
        genesis.arange(3).__dlpack__(dl_device=dl_device)


@no_cuda
def test_dl_device_cuda_without_cuda_raises_buffer_error():
    """The spec: a dl_device the producer cannot handle raises BufferError."""
    with pytest.raises(BufferError):
        genesis.arange(3).__dlpack__(dl_device=(KDL_CUDA, 0))


@no_cuda
@pytest.mark.parametrize("via", ["capsule", "producer"])
def test_cuda_capsule_without_cuda_raises_buffer_error(via):
    """A device this build cannot handle is an unsupported device: BufferError, as for ROCm or
    managed memory, and the capsule stays the producer's."""
    p = HandMade(np.zeros(4, dtype=np.float32), device=(KDL_CUDA, 0))
    with pytest.raises(BufferError):
        genesis.from_dlpack(p.capsule if via == "capsule" else p)
    assert capsule_name(p.capsule) == VERSIONED
    assert p.deleted == []


def test_stream_none_on_cpu_tensor():
    x = genesis.arange(4.0)
    cap = x.__dlpack__(stream=None, max_version=(1, 0))
    assert dl_fields(cap)[0] == x.data_ptr()
    assert genesis.from_dlpack(cap).tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("stream", [0, 1, 2, -1, 12345])
def test_stream_on_cpu_tensor_raises(stream):
    """CPU memory has no streams: the protocol asks CPU consumers for stream=None, and anything
    else is a BufferError (NumPy refuses it too), before anything is exported."""
    x = genesis.arange(4.0)
    with pytest.raises(BufferError, match=r"^\[__dlpack__\] stream must be None"):
        x.__dlpack__(stream=stream, max_version=(1, 0))
    with pytest.raises(BufferError, match="stream must be None"):
        x.__dlpack__(stream=stream)
    with pytest.raises(BufferError, match="stream must be None"):
        x.__dlpack__(stream=stream, dl_device=(1, 0))


# --- the consumer: what it asks for, copies, fallback, errors ---


def test_consumer_asks_for_version_1_1_and_no_stream_on_cpu():
    a = np.arange(4.0)
    r = Recorder(a)
    g = genesis.from_dlpack(r)
    assert r.calls == [{"stream": None, "max_version": (1, 1)}]
    assert r.names == [VERSIONED]
    assert g.data_ptr() == a.ctypes.data


@pytest.mark.parametrize("copy", [True, False])
def test_consumer_passes_copy(copy):
    a = np.arange(4.0)
    r = Recorder(a)
    g = genesis.from_dlpack(r, copy=copy)
    assert r.calls == [{"stream": None, "max_version": (1, 1), "copy": copy}]
    assert (g.data_ptr() == a.ctypes.data) is not copy


def test_from_dlpack_copy_true_is_independent(torch):
    a = np.arange(6.0)
    g = genesis.from_dlpack(a, copy=True)
    assert g.data_ptr() != a.ctypes.data and g.tolist() == a.tolist()
    g.fill_(0.0)
    assert a[5] == 5.0
    t = torch.arange(3)
    g = genesis.from_dlpack(t, copy=True)
    assert g.data_ptr() != t.data_ptr() and g.tolist() == [0, 1, 2]
    g = genesis.from_dlpack(t.__dlpack__(), copy=True)  # raw capsule: genesis copies itself
    assert g.data_ptr() != t.data_ptr() and g.tolist() == [0, 1, 2]


def test_from_dlpack_device_cpu():
    a = np.arange(3, dtype=np.int32)
    for copy in [None, False]:
        assert genesis.from_dlpack(a, device="cpu", copy=copy).data_ptr() == a.ctypes.data
    g = genesis.from_dlpack(a, device=genesis.device("cpu"), copy=True)
    assert g.data_ptr() != a.ctypes.data


def test_legacy_producer_fallback():
    a = np.arange(5, dtype=np.int64)
    p = LegacyProducer(a)
    g = genesis.from_dlpack(p)
    assert p.calls == [None]  # one call, with the stream only, after the TypeError
    assert g.data_ptr() == a.ctypes.data
    g[0] = 42
    assert a[0] == 42
    g = genesis.from_dlpack(LegacyProducer(a), copy=True)
    assert g.data_ptr() != a.ctypes.data and g.tolist() == a.tolist()


def test_legacy_producer_fallback_genesis_and_torch(torch):
    x = genesis.arange(3.0)
    assert genesis.from_dlpack(LegacyProducer(x)).data_ptr() == x.data_ptr()
    t = torch.arange(3.0)
    assert genesis.from_dlpack(LegacyProducer(t)).data_ptr() == t.data_ptr()


def test_producer_errors_propagate_without_fallback():
    calls = []

    class Refuses:
        def __dlpack__(self, **kwargs):
            calls.append(kwargs)
            raise BufferError("cannot export")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(BufferError, match="cannot export"):
        genesis.from_dlpack(Refuses())
    assert len(calls) == 1

    class AlwaysTypeError:
        def __dlpack__(self, *args, **kwargs):
            calls.append(kwargs)
            raise TypeError("nope")

        def __dlpack_device__(self):
            return (1, 0)

    calls.clear()
    with pytest.raises(TypeError, match="nope"):
        genesis.from_dlpack(AlwaysTypeError())
    assert calls == [{"stream": None, "max_version": (1, 1)}, {"stream": None}]


@pytest.mark.parametrize(
    "dtype",
    [np.complex64, np.complex128, np.uint16, np.uint32, np.uint64],
    ids=lambda d: d.__name__,
)
def test_unsupported_numpy_dtypes_raise_and_do_not_leak(dtype):
    a = np.zeros(3, dtype)
    base = refcount_settled(a)
    with pytest.raises(BufferError, match="unsupported DLPack dtype"):
        genesis.from_dlpack(a)
    cap = a.__dlpack__(max_version=(1, 0))
    with pytest.raises(BufferError):
        genesis.from_dlpack(cap)
    assert capsule_name(cap) == VERSIONED  # not consumed: still the producer's to free
    del cap
    assert refcount_settled(a) == base


@pytest.mark.parametrize("name", ["complex64", "uint16", "uint32", "uint64", "float8_e4m3fn"])
def test_unsupported_torch_dtypes_raise(torch, name):
    if not hasattr(torch, name):
        pytest.skip(f"torch has no {name}")
    t = torch.zeros(3, dtype=getattr(torch, name))
    with pytest.raises(BufferError):
        genesis.from_dlpack(t)
    assert t._use_count() == 1


def test_read_only_numpy_array_is_shared_read_only():
    """Note [Read-only storages]: a read-only export is shared, and genesis refuses to write it."""
    a = np.arange(4.0)
    a.flags.writeable = False
    for g in (genesis.from_dlpack(a), genesis.from_dlpack(a, copy=False)):
        assert g.data_ptr() == a.ctypes.data and not g.is_writable
        assert g.tolist() == [0.0, 1.0, 2.0, 3.0]
        with pytest.raises(ValueError, match=r"^\[fill_\] cannot write into a read-only"):
            g.fill_(7.0)
    assert a[0] == 0.0


def test_read_only_with_copy_true_is_a_writable_copy():
    a = np.arange(4.0)
    a.flags.writeable = False
    g = genesis.from_dlpack(a, copy=True)
    assert g.data_ptr() != a.ctypes.data and g.is_writable
    g.fill_(7.0)  # writing the copy leaves the read-only array alone
    assert a[0] == 0.0


# --- hand-made capsules (ctypes): what NumPy and PyTorch never export ---


def test_handmade_capsule_imports_and_deleter_runs_once():
    buf = np.arange(12, dtype=np.float32)
    p = HandMade(buf, shape=(3, 4), strides=(4, 1))
    g = genesis.from_dlpack(p.capsule)
    assert capsule_name(p.capsule) == USED_VERSIONED
    assert g.tolist() == buf.reshape(3, 4).tolist()
    assert g.data_ptr() == buf.ctypes.data
    assert p.deleted == []
    view = g[1:, ::2]
    del g
    gc.collect()
    assert p.deleted == []  # a view still holds the memory
    assert view.tolist() == [[4.0, 6.0], [8.0, 10.0]]
    del view
    gc.collect()
    assert p.deleted == [p.address]


@pytest.mark.parametrize("versioned", [False, True], ids=["legacy", "versioned"])
def test_handmade_null_strides_are_row_major(versioned):
    buf = np.arange(24, dtype=np.int32)
    p = HandMade(buf, shape=(2, 3, 4), dtype=(KDL_INT, 32, 1), versioned=versioned)
    g = genesis.from_dlpack(p)
    assert g.stride() == (12, 4, 1)
    assert g.tolist() == buf.reshape(2, 3, 4).tolist()
    del g
    gc.collect()
    assert p.deleted == [p.address]


def test_handmade_byte_offset():
    buf = np.arange(10, dtype=np.float32)
    p = HandMade(buf, shape=(2, 3), strides=(3, 1), byte_offset=8)
    g = genesis.from_dlpack(p.capsule)
    assert g.tolist() == [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]
    assert g.data_ptr() == buf.ctypes.data + 8
    g[0, 0] = -2.0
    assert buf[2] == -2.0


def test_handmade_negative_strides_and_byte_offset():
    buf = np.arange(12, dtype=np.int64)
    # element [0, 0] is buf[11]; rows go down by 4, columns by 1
    p = HandMade(buf, shape=(3, 4), strides=(-4, -1), dtype=(KDL_INT, 64, 1), byte_offset=88)
    g = genesis.from_dlpack(p.capsule)
    assert g.tolist() == buf[::-1].reshape(3, 4).tolist()
    np.testing.assert_array_equal(np.from_dlpack(g.t()), buf[::-1].reshape(3, 4).T)


def test_handmade_newer_minor_version_accepted():
    buf = np.ones(3, dtype=np.float32)
    p = HandMade(buf, version=(1, 9))
    assert genesis.from_dlpack(p.capsule).tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("via", ["capsule", "producer"])
def test_handmade_major_version_2_raises(via):
    buf = np.ones(3, dtype=np.float32)
    p = HandMade(buf, version=(2, 0))
    with pytest.raises(BufferError, match="major version"):
        genesis.from_dlpack(p.capsule if via == "capsule" else p)
    assert capsule_name(p.capsule) == VERSIONED  # not consumed
    assert p.deleted == []  # still the producer's


def test_handmade_read_only_flag_shares_read_only():
    buf = np.arange(4, dtype=np.float32)
    p = HandMade(buf, flags=READ_ONLY)
    g = genesis.from_dlpack(p.capsule)
    assert g.data_ptr() == buf.ctypes.data and not g.is_writable
    assert g.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert capsule_name(p.capsule) == USED_VERSIONED
    with pytest.raises(ValueError, match=r"^\[setitem\]"):
        g[0] = 5.0
    assert buf[0] == 0.0
    del g
    gc.collect()
    assert p.deleted == [p.address]  # released with the last view


def test_handmade_read_only_flag_with_copy_false_shares():
    """copy=False never copies; a read-only capsule needs no copy."""
    buf = np.arange(4, dtype=np.float32)
    p = HandMade(buf, flags=READ_ONLY)
    g = genesis.from_dlpack(p, copy=False)
    assert g.data_ptr() == buf.ctypes.data and not g.is_writable


def test_handmade_is_copied_flag_is_accepted():
    buf = np.arange(3, dtype=np.float32)
    p = HandMade(buf, flags=IS_COPIED)
    assert genesis.from_dlpack(p.capsule).data_ptr() == buf.ctypes.data


def test_handmade_cuda_host_memory_is_cpu():
    buf = np.arange(3, dtype=np.float32)
    p = HandMade(buf, device=(KDL_CUDA_HOST, 0))
    g = genesis.from_dlpack(p.capsule)
    assert g.device == genesis.device("cpu")
    assert g.data_ptr() == buf.ctypes.data


@pytest.mark.parametrize(
    "kwargs",
    [
        {"dtype": (KDL_FLOAT, 32, 4)},  # a vector dtype
        {"dtype": (KDL_FLOAT, 8, 1)},
        {"dtype": (KDL_COMPLEX, 64, 1)},
        {"dtype": (KDL_BOOL, 1, 1)},
        {"dtype": (KDL_UINT, 16, 1)},
        {"dtype": (3, 64, 1)},  # opaque handle
        {"device": (KDL_CUDA_MANAGED, 0)},
        {"device": (KDL_ROCM, 0)},
        {"device": (4, 0)},  # OpenCL
        {"shape": (2, -1), "strides": (1, 1)},
        {"byte_offset": 2},  # not a multiple of 4
        {"ndim": -1},
    ],
    ids=lambda k: "-".join(f"{key}={val}" for key, val in k.items()),
)
def test_handmade_invalid_raises_and_leaves_capsule(kwargs):
    buf = np.zeros(8, dtype=np.float32)
    args = {"shape": (2, 2), "strides": (2, 1)}
    args.update(kwargs)
    p = HandMade(buf, **args)
    with pytest.raises(BufferError):
        genesis.from_dlpack(p.capsule)
    assert capsule_name(p.capsule) == VERSIONED
    assert p.deleted == []


def test_handmade_zero_size_with_null_data():
    p = HandMade(np.zeros(0, dtype=np.float32), shape=(0, 5), strides=(5, 1))
    p.managed.dl_tensor.data = None  # producers may hand out NULL for empty tensors
    g = genesis.from_dlpack(p.capsule)
    assert g.shape == (0, 5) and g.numel() == 0
    assert np.from_dlpack(g).shape == (0, 5)
    del g
    gc.collect()
    assert p.deleted == [p.address]


# --- genesis.tensor() of foreign tensors copies ---


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_tensor_of_torch_copies_and_keeps_dtype(torch, dtype):
    _, a = make_tensor((3, 4), dtype)
    t = torch_from_numpy(torch, a, dtype)
    g = genesis.tensor(t)
    assert g.dtype is dtype
    assert g.device == genesis.device("cpu")
    assert_equal(g, a, dtype)
    assert g.data_ptr() != t.data_ptr()
    g.zero_()
    np.testing.assert_array_equal(torch_values(t), a)  # t untouched
    assert t._use_count() == 1  # the temporary import is gone


def test_tensor_of_torch_views_0d_and_zero_size(torch):
    t = torch.arange(12, dtype=torch.int16).reshape(3, 4)
    assert genesis.tensor(t.t()[::2]).tolist() == t.t()[::2].tolist()
    g = genesis.tensor(torch.tensor(7, dtype=torch.int64))
    assert g.shape == () and g.dtype is genesis.int64 and g.item() == 7
    g = genesis.tensor(torch.tensor(2.5, dtype=torch.bfloat16))
    assert g.shape == () and g.dtype is genesis.bfloat16 and g.item() == 2.5
    g = genesis.tensor(torch.zeros(0, 3, dtype=torch.float16))
    assert g.shape == (0, 3) and g.dtype is genesis.float16


def test_tensor_of_torch_with_dtype(torch):
    t = torch.tensor([1.5, -2.5], dtype=torch.bfloat16)
    g = genesis.tensor(t, dtype=genesis.float64)
    assert g.dtype is genesis.float64 and g.tolist() == [1.5, -2.5]
    g = genesis.tensor(torch.tensor([1, 0, 3]), dtype=genesis.bool)
    assert g.tolist() == [True, False, True]


def test_tensor_of_dlpack_only_object_copies():
    a = np.arange(6, dtype=np.uint8).reshape(2, 3)
    r = Recorder(a)
    g = genesis.tensor(r)
    assert r.calls  # read through DLPack
    assert g.dtype is genesis.uint8 and g.tolist() == a.tolist()
    assert g.data_ptr() != a.ctypes.data
    g = genesis.tensor(LegacyProducer(a))
    assert g.tolist() == a.tolist() and g.data_ptr() != a.ctypes.data


def test_tensor_of_genesis_and_numpy_still_copy():
    a = np.arange(3.0)
    assert genesis.tensor(a).data_ptr() != a.ctypes.data
    x = genesis.arange(3.0)
    assert genesis.tensor(x).data_ptr() != x.data_ptr()


class SequenceArray:
    """A foreign array that is also a Python sequence, as jax.Array and cupy.ndarray are
    (PySequence_Check is true for them): indexing gives 0-d arrays, not numbers, and len() of a
    0-d array raises. Items are made once and kept alive, so a walk over them cannot touch freed
    objects (that crash is test_tensor_of_sequences_with_fresh_items_does_not_crash)."""

    def __init__(self, a):
        self.a = a
        self.items = [SequenceArray(np.asarray(v)) for v in a] if a.ndim else None
        self.dlpack_calls = 0

    def __dlpack__(self, **kwargs):
        self.dlpack_calls += 1
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()

    def __len__(self):
        if self.a.ndim == 0:
            raise TypeError("len() of a 0-d array")
        return len(self.a)

    def __getitem__(self, i):
        if self.a.ndim == 0:
            raise IndexError("too many indices for a 0-d array")
        return self.items[i]

    def __float__(self):
        return float(self.a)


def test_tensor_of_sequence_like_foreign_array_goes_through_dlpack():
    """genesis.tensor() reads objects with __dlpack__ through DLPack (csrc/python/creation.cpp:
    'Other libraries' tensors (PyTorch, CuPy, JAX) on any device: read through DLPack'), also
    when they are sequences too; walking them element by element fails on 0-d items (and on
    CUDA would read device memory one element at a time)."""
    a = np.arange(6, dtype=np.float16).reshape(2, 3)
    w = SequenceArray(a)
    g = genesis.tensor(w)
    assert w.dlpack_calls == 1
    assert g.dtype is genesis.float16 and g.tolist() == a.tolist()
    assert g.data_ptr() != a.ctypes.data


# Sequences whose __getitem__ makes a new object each time (range, array.array, jax.Array,
# cupy.ndarray): the item must stay alive while genesis reads it. Run in a fresh interpreter with
# Python's debug allocator (-X dev), so reading a freed item crashes there, not in this run.
FRESH_ITEMS_SCRIPT = """
import array

import numpy as np

import genesis


class Fresh:
    def __init__(self, a):
        self.a = a

    def __len__(self):
        return len(self.a)

    def __getitem__(self, i):
        v = self.a[i]
        return Fresh(v) if v.ndim else float(v)


print(genesis.tensor(range(100000, 100004)).tolist())
print(genesis.tensor(array.array("d", [1.5, 2.5, 3.25])).tolist())
print(genesis.tensor(Fresh(np.arange(6.0).reshape(2, 3) + 0.5)).tolist())
"""


def test_tensor_of_sequences_with_fresh_items_does_not_crash():
    import subprocess

    run = subprocess.run(
        [sys.executable, "-X", "dev", "-c", FRESH_ITEMS_SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, f"exit status {run.returncode}\n{run.stdout}\n{run.stderr}"
    assert run.stdout.split("\n")[:3] == [
        "[100000, 100001, 100002, 100003]",
        "[1.5, 2.5, 3.25]",
        "[[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]]",
    ]


# --- lifetimes and leaks ---


def test_numpy_refcount_returns_after_import():
    a = np.arange(10.0)
    base = refcount_settled(a)
    g = genesis.from_dlpack(a)
    assert refcount_settled(a) > base  # the capsule's owner keeps a alive
    v = g[2:5]
    del g
    assert refcount_settled(a) > base
    del v
    assert refcount_settled(a) == base


def test_numpy_unconsumed_capsules_do_not_leak():
    a = np.arange(10.0)
    base = refcount_settled(a)
    caps = [a.__dlpack__(), a.__dlpack__(max_version=(1, 0))]
    del caps
    assert refcount_settled(a) == base


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_genesis_unconsumed_capsule_keeps_memory_and_frees_it(max_version):
    """numpy -> genesis -> capsule: the capsule alone keeps the chain alive, and dropping it
    unconsumed releases everything down to the NumPy array."""
    a = np.arange(10.0)
    base = refcount_settled(a)
    g = genesis.from_dlpack(a)
    cap = g.__dlpack__(max_version=max_version)
    del g
    assert refcount_settled(a) > base
    assert dl_fields(cap)[0] == a.ctypes.data
    del cap
    assert refcount_settled(a) == base


def test_genesis_chain_consumed_by_numpy_and_torch(torch):
    a = np.arange(10.0)
    base = refcount_settled(a)
    g = genesis.from_dlpack(a)
    n = np.from_dlpack(g)
    t = torch.from_dlpack(g[::2])
    del g
    assert refcount_settled(a) > base
    n[2] = -5.0
    assert a[2] == -5.0 and t[1].item() == -5.0
    del n
    assert refcount_settled(a) > base
    del t
    assert refcount_settled(a) == base


def test_genesis_storage_use_count_returns():
    count = genesis._C._testing.storage_use_count
    x = genesis.arange(8.0)
    assert count(x) == 1
    caps = [x.__dlpack__(), x.__dlpack__(max_version=(1, 0)), x[::2].__dlpack__()]
    assert count(x) == 4
    del caps
    gc.collect()
    assert count(x) == 1
    n, y = np.from_dlpack(x), genesis.from_dlpack(x)
    assert count(x) == 3
    del n, y
    gc.collect()
    assert count(x) == 1
    c = x.__dlpack__(copy=True)  # a copy holds its own storage
    assert count(x) == 1
    del c


def test_torch_use_count_returns(torch):
    t = torch.arange(8.0)
    g = genesis.from_dlpack(t)
    assert t._use_count() == 2
    del g
    gc.collect()
    assert t._use_count() == 1
    caps = [t.__dlpack__(), t.__dlpack__(max_version=(1, 0))]
    del caps
    assert t._use_count() == 1
    back = torch.from_dlpack(genesis.from_dlpack(t))  # torch -> genesis -> torch
    del back
    gc.collect()
    assert t._use_count() == 1


def test_failed_imports_do_not_leak():
    a = np.zeros(4, dtype=np.complex64)
    b = np.arange(4.0)
    base_a, base_b = refcount_settled(a), refcount_settled(b)
    for _ in range(50):
        with pytest.raises(BufferError):
            genesis.from_dlpack(a)
        with pytest.raises(ValueError):  # after the capsule was consumed
            genesis.from_dlpack(b.__dlpack__(), device="nowhere")
    assert refcount_settled(a) == base_a
    assert refcount_settled(b) == base_b


def test_many_round_trips_do_not_leak(torch):
    a = np.arange(16.0)
    t = torch.arange(16.0)
    base = refcount_settled(a)
    for _ in range(500):
        g = genesis.from_dlpack(a)
        genesis.from_dlpack(np.from_dlpack(g))
        torch.from_dlpack(genesis.from_dlpack(t))
        genesis.from_dlpack(g.__dlpack__(max_version=(1, 0)))
        g.__dlpack__()
    del g
    assert refcount_settled(a) == base
    assert t._use_count() == 1


def test_release_from_another_thread():
    a = np.arange(5.0)
    base = refcount_settled(a)
    holder = [genesis.from_dlpack(a)]

    def drop():
        holder.clear()
        gc.collect()

    th = threading.Thread(target=drop)
    th.start()
    th.join()
    assert refcount_settled(a) == base


def test_values_survive_producer_deletion():
    a = np.arange(6.0)
    alive = weakref.ref(a)
    g = genesis.from_dlpack(a)
    del a
    gc.collect()
    assert alive() is not None  # genesis keeps the NumPy array alive
    assert g.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert to_numpy(g[::-1]).tolist() == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
    del g
    gc.collect()
    assert alive() is None
