"""DLPack on CUDA: genesis <-> PyTorch, CuPy and JAX on the GPU, the stream handshake,
dl_device / copy, device memory that must return to its baseline, and several GPUs.

Skipped without a GPU. Each library is imported by its own fixture (pytest.importorskip), so a
missing or CPU-only CuPy or JAX skips only its own tests. Stream tests keep a producer's stream
busy (torch.cuda._sleep, or many large fills) and read the consumer's view at once, with no
explicit synchronize: only the DLPack stream handshake orders the two.
"""

import gc
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import HAS_CUDA, assert_equal, dtype_id, make_tensor, to_numpy
from test_dlpack import (
    IS_COPIED,
    KDL_CPU,
    KDL_CUDA,
    VERSIONED,
    HandMade,
    Recorder,
    capsule_name,
    dl_fields,
    managed,
)

import genesis

pytestmark = pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device available")

# JAX takes most of the GPU's memory at its first use unless told not to (before it imports).
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

BIG = 1 << 26  # float32 elements (256 MiB): kernels long enough to overlap the consumer

LIB_DTYPES = {
    "torch": [genesis.float32, genesis.float16, genesis.bfloat16, genesis.int64, genesis.bool],
    "cupy": [genesis.float32, genesis.float16, genesis.int64, genesis.bool],
    "jax": [genesis.float32, genesis.float16, genesis.bfloat16, genesis.int64, genesis.bool],
}
LIB_CASES = [(lib, d) for lib, dts in LIB_DTYPES.items() for d in dts]
LIB_IDS = [f"{lib}-{dtype_id(d)}" for lib, d in LIB_CASES]


# --- the libraries, each behind its own fixture ---


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    return torch


@pytest.fixture(scope="module")
def cupy():
    cp = pytest.importorskip("cupy")
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as exc:  # a CuPy without a usable CUDA runtime
        pytest.skip(f"cupy has no CUDA: {exc}")
    if count == 0:
        pytest.skip("cupy sees no GPU")
    return cp


@pytest.fixture(scope="module")
def jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)  # int64 stays int64
    # Starting JAX's GPU backend leaves the thread's CUDA current device at the last GPU, which
    # genesis, torch and cupy all follow ("cuda" would mean cuda:1 in the tests after this one).
    previous = genesis.cuda.current_device()
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        gpus = []
    finally:
        genesis.cuda.set_device(previous)
    if not gpus:
        pytest.skip("jax has no GPU backend")
    return jax


class Torch:
    name = "torch"

    def __init__(self, torch):
        self.m = torch

    def dtype(self, d):
        return getattr(self.m, dtype_id(d))

    def make(self, a, d):
        """A CUDA tensor of genesis dtype ``d`` holding a's values."""
        # np.array(order="C"), not np.ascontiguousarray, which turns 0-d arrays into 1-d ones.
        t = self.m.from_numpy(np.array(a, order="C")).to(self.dtype(d))
        return t.to("cuda")

    def from_dlpack(self, x):
        return self.m.from_dlpack(x)

    def values(self, t):
        t = t.detach().cpu()
        return (t.float() if t.dtype is self.m.bfloat16 else t).numpy()

    def ptr(self, t):
        return t.data_ptr()

    def is_cuda(self, t):
        return t.is_cuda


class CuPy:
    name = "cupy"

    def __init__(self, cp):
        self.m = cp

    def make(self, a, d):
        return self.m.asarray(np.array(a, order="C"))

    def from_dlpack(self, x):
        return self.m.from_dlpack(x)

    def values(self, c):
        return self.m.asnumpy(c)

    def ptr(self, c):
        return c.data.ptr

    def is_cuda(self, c):
        return True


class Jax:
    name = "jax"

    def __init__(self, jax):
        self.m = jax
        self.gpu = jax.devices("gpu")[0]

    def make(self, a, d):
        jnp = self.m.numpy
        return self.m.device_put(jnp.asarray(a, dtype=getattr(jnp, dtype_id(d))), self.gpu)

    def from_dlpack(self, x):
        return self.m.dlpack.from_dlpack(x)

    def values(self, j):
        v = np.asarray(j)
        return v.astype(np.float32) if v.dtype.name == "bfloat16" else v

    def ptr(self, j):
        return None  # JAX may copy on import and keeps its buffers to itself

    def is_cuda(self, j):
        return all(d.platform == "gpu" for d in j.devices())


@pytest.fixture
def lib(request):
    name = request.param
    module = request.getfixturevalue(name)
    return {"torch": Torch, "cupy": CuPy, "jax": Jax}[name](module)


def settle():
    """Collects garbage and waits for every library's queued work on the GPU."""
    gc.collect()
    genesis.cuda.synchronize()


def busy(torch):
    """Keeps torch's current stream busy for tens of milliseconds."""
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is not None:
        sleep(100_000_000)  # GPU cycles: about 50 ms
        return
    x = torch.empty(1 << 27, device="cuda")
    for i in range(30):
        x.fill_(float(i))


def genesis_busy_fill(x, value, rounds=20):
    """Queues ``rounds`` full writes of x (other values) and then ``value``, on genesis's
    current stream; the last write lands milliseconds after this returns."""
    for i in range(rounds):
        x.fill_(-1.0 - i)
    x.fill_(value)


# --- round trips, every dtype each library has ---


@pytest.mark.parametrize("lib,dtype", LIB_CASES, ids=LIB_IDS, indirect=["lib"])
def test_genesis_to_library(lib, dtype):
    x, a = make_tensor((3, 5), dtype, device="cuda")
    o = lib.from_dlpack(x)
    assert lib.is_cuda(o)
    np.testing.assert_array_equal(lib.values(o), a)
    if lib.ptr(o) is not None:
        assert lib.ptr(o) == x.data_ptr()


@pytest.mark.parametrize("lib,dtype", LIB_CASES, ids=LIB_IDS, indirect=["lib"])
def test_library_to_genesis(lib, dtype):
    _, a = make_tensor((3, 5), dtype)
    o = lib.make(a, dtype)
    g = genesis.from_dlpack(o)
    assert g.is_cuda and g.device.index == 0
    assert_equal(g, a, dtype)
    if lib.ptr(o) is not None:
        assert g.data_ptr() == lib.ptr(o)


@pytest.mark.parametrize("lib", ["torch", "cupy", "jax"], indirect=True)
def test_0d_and_zero_size(lib):
    x = genesis.tensor(3.5, device="cuda")
    o = lib.from_dlpack(x)
    assert lib.values(o).shape == () and lib.values(o) == 3.5
    z = genesis.zeros(0, 3, device="cuda")
    assert lib.values(lib.from_dlpack(z)).shape == (0, 3)

    g = genesis.from_dlpack(lib.make(np.array(-2.0, dtype=np.float32), genesis.float32))
    assert g.is_cuda and g.shape == () and g.item() == -2.0
    g = genesis.from_dlpack(lib.make(np.zeros((4, 0), dtype=np.float32), genesis.float32))
    assert g.is_cuda and g.shape == (4, 0)


@pytest.mark.parametrize(
    "view",
    [lambda x: x.t(), lambda x: x[::2, 1::3], lambda x: x[1:, 2:3]],
    ids=["transposed", "stepped", "column"],
)
@pytest.mark.parametrize("lib", ["torch", "cupy"], indirect=True)
def test_strided_genesis_to_library(lib, view):
    x, a = make_tensor((6, 8), genesis.float32, device="cuda")
    xv = view(x)
    o = lib.from_dlpack(xv)
    np.testing.assert_array_equal(lib.values(o), to_numpy(xv))
    assert lib.ptr(o) == xv.data_ptr()


def test_strided_genesis_to_jax(jax):
    j = Jax(jax)
    x, a = make_tensor((6, 8), genesis.float32, device="cuda")
    np.testing.assert_array_equal(j.values(j.from_dlpack(x.t())), a.T)
    try:
        o = j.from_dlpack(x[::2, 1::3])
    except Exception as exc:  # JAX takes only dense layouts (permuted or not)
        pytest.skip(f"jax rejects a stepped DLPack tensor: {exc}")
    np.testing.assert_array_equal(j.values(o), a[::2, 1::3])


def test_strided_torch_to_genesis(torch):
    _, a = make_tensor((6, 8), genesis.float32)
    t = torch.from_numpy(a).cuda()
    for view, ref in [
        (t.t(), a.T),
        (t[::2, 1::3], a[::2, 1::3]),
        (t[3:4].expand(5, 8), np.broadcast_to(a[3:4], (5, 8))),
        (t.as_strided((1, 4), (999, 2), 1), a.reshape(-1)[1:9:2].reshape(1, 4)),
    ]:
        g = genesis.from_dlpack(view)
        assert g.stride() == view.stride() and g.data_ptr() == view.data_ptr()
        assert_equal(g, ref)


def test_strided_cupy_to_genesis(cupy):
    _, a = make_tensor((6, 8), genesis.float32)
    c = cupy.asarray(a)
    # Not negative strides: CuPy 14's __dlpack__ divides negative byte strides as unsigned
    # numbers (seen on the GPU machine: -32 bytes became 2**62 - 8), so they cannot be tested.
    for view, ref in [(c.T, a.T), (c[::2, 1::3], a[::2, 1::3])]:
        g = genesis.from_dlpack(view)
        assert g.stride() == tuple(s // 4 for s in view.strides)
        assert g.data_ptr() == view.data.ptr
        assert_equal(g, ref)


def test_torch_round_trip_through_genesis(torch):
    t = torch.arange(24, dtype=torch.float16, device="cuda").reshape(4, 6)
    back = torch.from_dlpack(genesis.from_dlpack(t.t()))
    assert back.data_ptr() == t.data_ptr() and torch.equal(back, t.t())


# --- mutation is visible on both sides ---


@pytest.mark.parametrize("lib", ["torch", "cupy"], indirect=True)
def test_mutation_visible(lib):
    x, a = make_tensor((4, 5), genesis.float32, device="cuda")
    o = lib.from_dlpack(x)
    x[1, 2] = 11.0
    assert lib.values(o)[1, 2] == 11.0
    o[3, 4] = -12.0
    assert x[3, 4].item() == -12.0

    p = lib.make(a, genesis.float32)
    g = genesis.from_dlpack(p)
    p[0, 1] = 13.0
    assert g[0, 1].item() == 13.0
    g.fill_(0.5)
    assert (lib.values(p) == 0.5).all()


def test_jax_values_only(jax):
    """JAX arrays are immutable: genesis only reads them."""
    j = Jax(jax)
    _, a = make_tensor((5, 7), genesis.float32)
    g = genesis.from_dlpack(j.make(a, genesis.float32))
    assert_equal(g, a)


# --- streams: the consumer's stream waits for the producer's, nothing else ---


def test_torch_side_stream_producer_genesis_consumer(torch):
    big = torch.zeros(BIG, device="cuda")
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        busy(torch)
        big.fill_(3.0)
        g = genesis.from_dlpack(big)  # torch makes genesis's (legacy default) stream wait for s
    assert g[-1].item() == 3.0
    assert (to_numpy(g[:: 1 << 10]) == 3.0).all()
    torch.cuda.synchronize()


def test_torch_default_stream_producer_genesis_side_stream_consumer(torch):
    big = torch.zeros(BIG, device="cuda")
    torch.cuda.synchronize()
    busy(torch)
    big.fill_(5.0)
    with genesis.cuda.stream() as gs:
        g = genesis.from_dlpack(big)  # genesis passes gs: torch makes gs wait for its stream
        last = g[-1].item()
        sample = to_numpy(g[:: 1 << 10])
        assert genesis.cuda.current_stream() == gs
    assert last == 5.0 and (sample == 5.0).all()
    torch.cuda.synchronize()


def test_genesis_side_stream_producer_torch_consumer(torch):
    with genesis.cuda.stream():
        x = genesis.full((BIG,), 2.0, device="cuda")
        t = torch.from_dlpack(x)  # torch passes 1: its default stream waits for genesis's
    assert t[-1].item() == 2.0
    assert t.min().item() == 2.0 and t.max().item() == 2.0

    y = genesis.zeros(2 * BIG, device="cuda")
    settle()
    with genesis.cuda.stream():
        genesis_busy_fill(y, 2.0)
        u = torch.from_dlpack(y)
    assert u[-1].item() == 2.0
    assert u.min().item() == 2.0 and u.max().item() == 2.0
    settle()


def test_genesis_side_stream_producer_torch_side_stream_consumer(torch):
    y = genesis.zeros(2 * BIG, device="cuda")
    settle()
    s = torch.cuda.Stream()
    with genesis.cuda.stream():
        genesis_busy_fill(y, 4.0)
        with torch.cuda.stream(s):
            t = torch.from_dlpack(y)  # torch passes s
            lo, hi = t.min().item(), t.max().item()  # on s, which waited for genesis's stream
    assert lo == 4.0 and hi == 4.0
    settle()


def test_cupy_side_stream_producer_genesis_consumer(cupy):
    a = cupy.zeros(2 * BIG, dtype=cupy.float32)
    cupy.cuda.Device().synchronize()
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        for i in range(20):
            a.fill(-1.0 - i)
        a.fill(6.0)
        g = genesis.from_dlpack(a)  # genesis passes 1: cupy makes it wait for s
    assert g[-1].item() == 6.0
    assert (to_numpy(g[:: 1 << 10]) == 6.0).all()
    s.synchronize()


def test_genesis_side_stream_producer_cupy_side_stream_consumer(cupy):
    y = genesis.zeros(2 * BIG, device="cuda")
    settle()
    s = cupy.cuda.Stream(non_blocking=True)
    with genesis.cuda.stream():
        genesis_busy_fill(y, 8.0)
        with s:
            c = cupy.from_dlpack(y)  # cupy passes s
            lo, hi = float(c.min()), float(c.max())  # on s, which waited for genesis's stream
    assert lo == 8.0 and hi == 8.0
    settle()


def test_genesis_side_stream_producer_jax_consumer(jax):
    j = Jax(jax)
    y = genesis.zeros(BIG, device="cuda")
    settle()
    with genesis.cuda.stream():
        genesis_busy_fill(y, 9.0)
        o = j.from_dlpack(y)  # JAX passes its stream
    assert float(o.min()) == 9.0 and float(o.max()) == 9.0
    settle()


def test_consumer_passes_its_current_stream(torch):
    t = torch.ones(8, device="cuda")
    r = Recorder(t)
    genesis.from_dlpack(r)
    assert r.calls == [{"stream": 1, "max_version": (1, 1)}]  # the legacy default stream
    with genesis.cuda.stream() as s:
        r = Recorder(t)
        genesis.from_dlpack(r)
    assert r.calls == [{"stream": s.cuda_stream, "max_version": (1, 1)}]
    assert s.cuda_stream not in (0, 1, 2)


def test_producer_stream_values(torch):
    x = genesis.full((100,), 1.5, device="cuda")
    side = torch.cuda.Stream()
    with genesis.cuda.stream() as gs:
        streams = [None, 1, 2, -1, gs.cuda_stream, side.cuda_stream]
        for stream in streams:
            cap = x.__dlpack__(stream=stream, max_version=(1, 0))
            assert dl_fields(cap)[0] == x.data_ptr()
            g = genesis.from_dlpack(cap)
            assert g.data_ptr() == x.data_ptr()
    settle()
    assert x[-1].item() == 1.5
    torch.cuda.synchronize()


def test_stream_0_raises():
    x = genesis.ones(4, device="cuda")
    with pytest.raises(BufferError):
        x.__dlpack__(stream=0)
    with pytest.raises(BufferError):
        x.__dlpack__(stream=0, max_version=(1, 0))


def test_stream_with_a_cpu_target_raises():
    # Exported to the host (dl_device=(kDLCPU, 0)), the consumer has no stream to name.
    x = genesis.ones(4, device="cuda")
    with pytest.raises(BufferError, match="stream must be None"):
        x.__dlpack__(stream=1, dl_device=(1, 0), max_version=(1, 0))
    cap = x.__dlpack__(stream=None, dl_device=(1, 0), max_version=(1, 0))
    assert genesis.from_dlpack(cap).tolist() == [1.0] * 4


# --- capsules, copy and dl_device on CUDA ---


def test_cuda_capsule_fields_and_device():
    x = genesis.arange(12, dtype=genesis.float32, device="cuda").reshape(3, 4)[1:, ::2]
    assert x.__dlpack_device__() == (KDL_CUDA, 0)
    for max_version in [None, (1, 0)]:
        data, device, dtype, shape, strides, offset = dl_fields(
            x.__dlpack__(max_version=max_version)
        )
        assert data == x.data_ptr() and device == (KDL_CUDA, 0)
        assert dtype == (2, 32, 1) and shape == (2, 2) and strides == (4, 2) and offset == 0


def test_copy_true_on_cuda():
    x, a = make_tensor((4, 6), genesis.float32, device="cuda")
    cap = x.__dlpack__(max_version=(1, 0), copy=True)
    assert managed(cap).flags == IS_COPIED
    assert dl_fields(cap)[0] != x.data_ptr() and dl_fields(cap)[1] == (KDL_CUDA, 0)
    g = genesis.from_dlpack(cap)
    g.fill_(0.0)
    assert_equal(x, a)
    assert_equal(genesis.from_dlpack(x, copy=True), a)
    assert genesis.from_dlpack(x, copy=True).data_ptr() != x.data_ptr()


def test_dl_device_cpu_copies_to_host():
    x, a = make_tensor((4, 6), genesis.float32, device="cuda")
    xv = x.t()
    cap = xv.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0))
    data, device, _, shape, _, _ = dl_fields(cap)
    assert device == (KDL_CPU, 0) and shape == (6, 4)
    assert managed(cap).flags == IS_COPIED
    h = genesis.from_dlpack(cap)
    assert h.device == genesis.device("cpu")
    np.testing.assert_array_equal(h.numpy(), a.T)

    legacy = xv.__dlpack__(dl_device=(KDL_CPU, 0))
    assert dl_fields(legacy)[1] == (KDL_CPU, 0)
    np.testing.assert_array_equal(genesis.from_dlpack(legacy).numpy(), a.T)

    n = np.from_dlpack(xv, device="cpu")  # NumPy asks for dl_device=(1, 0)
    np.testing.assert_array_equal(n, a.T)


def test_dl_device_cpu_with_copy_false_raises():
    x = genesis.ones(4, device="cuda")
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(KDL_CPU, 0), copy=False)
    with pytest.raises(BufferError):
        x.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0), copy=False)
    with pytest.raises(BufferError):
        np.from_dlpack(x, device="cpu", copy=False)


def test_dl_device_cpu_waits_for_the_producer_stream():
    y = genesis.zeros(2 * BIG, device="cuda")
    settle()
    with genesis.cuda.stream():
        genesis_busy_fill(y, 7.0)
        h = genesis.from_dlpack(y.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0)))
    assert h.device == genesis.device("cpu")
    n = h.numpy()
    assert n.min() == 7.0 and n.max() == 7.0


def test_dl_device_same_cuda_device_does_not_copy():
    x = genesis.ones(4, device="cuda")
    for copy in [None, False]:
        cap = x.__dlpack__(max_version=(1, 0), dl_device=(KDL_CUDA, 0), copy=copy)
        assert dl_fields(cap)[0] == x.data_ptr() and managed(cap).flags == 0


def test_dl_device_cuda_on_cpu_tensor_copies_to_gpu():
    x = genesis.arange(5.0)
    cap = x.__dlpack__(max_version=(1, 0), dl_device=(KDL_CUDA, 0))
    assert dl_fields(cap)[1] == (KDL_CUDA, 0) and managed(cap).flags == IS_COPIED
    g = genesis.from_dlpack(cap)
    assert g.is_cuda and g.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(KDL_CUDA, 0), copy=False)


def test_from_dlpack_device_moves(torch):
    t = torch.arange(6.0, device="cuda")
    g = genesis.from_dlpack(t, device="cpu")
    assert g.device == genesis.device("cpu") and g.tolist() == t.tolist()
    with pytest.raises(BufferError):
        genesis.from_dlpack(t, device="cpu", copy=False)
    a = np.arange(6.0)
    g = genesis.from_dlpack(a, device="cuda")
    assert g.is_cuda and g.tolist() == a.tolist()
    with pytest.raises(BufferError):
        genesis.from_dlpack(a, device="cuda", copy=False)
    assert genesis.from_dlpack(t, device="cuda", copy=False).data_ptr() == t.data_ptr()


def test_tensor_of_torch_cuda_copies_and_keeps_device(torch):
    _, a = make_tensor((3, 4), genesis.float32)
    t = torch.from_numpy(a).cuda()
    g = genesis.tensor(t)
    assert g.is_cuda and g.device.index == 0
    assert_equal(g, a)
    assert g.data_ptr() != t.data_ptr()
    h = genesis.tensor(t, device="cpu", dtype=genesis.float64)
    assert h.device == genesis.device("cpu")
    assert_equal(h, a.astype(np.float64))
    assert t._use_count() == 1  # the temporary import is gone


# genesis.tensor() of CuPy and JAX arrays, in a fresh interpreter: both are Python sequences too,
# and test_dlpack.py's test_tensor_of_sequence* tests show genesis.tensor() walking such objects
# item by item (reading freed items) instead of using DLPack; a crash must not end this run.
FOREIGN_TENSOR_SCRIPTS = {
    "cupy": """
import cupy
import numpy as np

import genesis

a = np.arange(12, dtype=np.float32).reshape(3, 4)
c = cupy.asarray(a)
g = genesis.tensor(c)
assert g.is_cuda and g.device.index == 0, g.device
assert g.dtype is genesis.float32, g.dtype
assert g.tolist() == a.tolist()
assert g.data_ptr() != c.data.ptr
h = genesis.tensor(c, device="cpu", dtype=genesis.float64)
assert h.dtype is genesis.float64 and h.tolist() == a.tolist()
print("OK")
""",
    "jax": """
import jax
import numpy as np

import genesis

jax.config.update("jax_enable_x64", True)
a = np.arange(12, dtype=np.float32).reshape(3, 4)
j = jax.device_put(jax.numpy.asarray(a, dtype=jax.numpy.bfloat16), jax.devices("gpu")[0])
g = genesis.tensor(j)
assert g.is_cuda and g.device.index == 0, g.device
assert g.dtype is genesis.bfloat16, g.dtype
assert g.tolist() == a.tolist()
h = genesis.tensor(j, device="cpu", dtype=genesis.float64)
assert h.dtype is genesis.float64 and h.tolist() == a.tolist()
print("OK")
""",
}


@pytest.mark.parametrize("name", ["cupy", "jax"])
def test_tensor_of_cupy_and_jax_copies_and_keeps_device(request, name):
    request.getfixturevalue(name)  # skips without the library or its GPU support
    run = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", FOREIGN_TENSOR_SCRIPTS[name]],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false"),
    )
    assert run.returncode == 0 and "OK" in run.stdout, (
        f"exit status {run.returncode}\n{run.stdout}\n{run.stderr}"
    )


@pytest.mark.parametrize("via", ["capsule", "producer"])
def test_cuda_capsule_of_a_missing_device_raises_buffer_error(via):
    """A CUDA device index this machine does not have is an unsupported device: BufferError,
    and the capsule stays the producer's (host memory here: genesis must not touch it)."""
    p = HandMade(np.zeros(4, dtype=np.float32), device=(KDL_CUDA, genesis.cuda.device_count() + 3))
    with pytest.raises(BufferError):
        genesis.from_dlpack(p.capsule if via == "capsule" else p)
    assert capsule_name(p.capsule) == VERSIONED
    assert p.deleted == []


def test_unsupported_cuda_dtype(torch):
    t = torch.zeros(3, dtype=torch.complex64, device="cuda")
    with pytest.raises(BufferError):
        genesis.from_dlpack(t)


# --- device memory returns to its baseline ---


def test_genesis_memory_returns_after_capsules_and_shared_tensors(torch):
    settle()
    base = genesis.cuda.memory_allocated()
    x = genesis.full((1 << 20,), 1.0, device="cuda")  # 4 MiB
    caps = [
        x.__dlpack__(),
        x.__dlpack__(max_version=(1, 0)),
        x[::2].__dlpack__(stream=-1),
        x.__dlpack__(max_version=(1, 0), copy=True),  # a second 4 MiB
    ]
    assert genesis.cuda.memory_allocated() == base + (8 << 20)
    t = torch.from_dlpack(x)
    g = genesis.from_dlpack(x)
    del x
    settle()
    assert genesis.cuda.memory_allocated() == base + (8 << 20)
    del caps
    settle()
    assert genesis.cuda.memory_allocated() == base + (4 << 20)  # t and g still share x
    del g
    settle()
    assert genesis.cuda.memory_allocated() == base + (4 << 20)
    assert t[-1].item() == 1.0
    del t
    settle()
    assert genesis.cuda.memory_allocated() == base


def test_genesis_memory_returns_after_many_exchanges(torch):
    settle()
    base = genesis.cuda.memory_allocated()
    x = genesis.ones(1 << 16, device="cuda")
    for _ in range(200):
        torch.from_dlpack(x)
        genesis.from_dlpack(x.__dlpack__(max_version=(1, 0), copy=True))
        x.__dlpack__()
        x.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0))
    del x
    settle()
    assert genesis.cuda.memory_allocated() == base


def test_torch_memory_returns_after_genesis_drops_import(torch):
    settle()
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    t = torch.ones(1 << 20, device="cuda")  # 4 MiB
    g = genesis.from_dlpack(t)
    v = g[::2]
    del t
    settle()
    assert torch.cuda.memory_allocated() == base + (4 << 20)  # genesis still holds it
    del g
    settle()
    assert torch.cuda.memory_allocated() == base + (4 << 20)
    assert v[-1].item() == 1.0
    del v
    settle()
    assert torch.cuda.memory_allocated() == base

    t = torch.ones(1 << 20, device="cuda")
    c = genesis.tensor(t)  # a copy: the temporary import is released
    caps = [t.__dlpack__(), t.__dlpack__(max_version=(1, 0))]  # dropped unconsumed
    del caps
    assert t._use_count() == 1
    del t
    settle()
    assert torch.cuda.memory_allocated() == base
    del c

    z = torch.zeros(1 << 18, dtype=torch.complex64, device="cuda")
    with pytest.raises(BufferError):
        genesis.from_dlpack(z)
    del z
    settle()
    assert torch.cuda.memory_allocated() == base


def test_cupy_memory_returns_after_genesis_drops_import(cupy):
    pool = cupy.get_default_memory_pool()
    settle()
    base = pool.used_bytes()
    a = cupy.ones(1 << 20, dtype=cupy.float32)
    g = genesis.from_dlpack(a)
    cap = a.__dlpack__()  # dropped unconsumed
    del a, cap
    settle()
    assert pool.used_bytes() == base + (4 << 20)
    del g
    settle()
    assert pool.used_bytes() == base


# --- several GPUs ---


@pytest.fixture
def two_gpus():
    if genesis.cuda.device_count() < 2:
        pytest.skip("needs 2 GPUs")
    previous = genesis.cuda.current_device()
    genesis.cuda.set_device(0)
    yield
    genesis.cuda.set_device(previous)


def test_multi_gpu_genesis_producer(torch, two_gpus):
    x = genesis.full((1000,), 5.0, device="cuda:1")
    assert x.__dlpack_device__() == (KDL_CUDA, 1)
    t = torch.from_dlpack(x)
    assert t.device == torch.device("cuda", 1) and t.data_ptr() == x.data_ptr()
    assert t.sum().item() == 5000.0
    assert genesis.cuda.current_device() == 0 and torch.cuda.current_device() == 0

    with genesis.cuda.stream(genesis.cuda.Stream(device=1)):
        x.fill_(7.0)  # on device 1's side stream
        u = torch.from_dlpack(x)  # torch passes device 1's current stream
    assert genesis.cuda.current_device() == 0
    assert u.min().item() == 7.0 and u.max().item() == 7.0

    cap = x.__dlpack__(max_version=(1, 0), dl_device=(KDL_CUDA, 0))  # a peer copy
    assert dl_fields(cap)[1] == (KDL_CUDA, 0) and managed(cap).flags == IS_COPIED
    y = genesis.from_dlpack(cap)
    assert y.device == genesis.device("cuda", 0) and y[-1].item() == 7.0
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(KDL_CUDA, 0), copy=False)
    assert genesis.cuda.current_device() == 0


def test_multi_gpu_genesis_consumer(torch, two_gpus):
    t = torch.full((1000,), 3.0, device="cuda:1")
    r = Recorder(t)
    g = genesis.from_dlpack(r)
    assert r.calls[0]["stream"] == 1  # device 1's current stream: the default
    assert g.device == genesis.device("cuda", 1) and g.data_ptr() == t.data_ptr()
    assert g[-1].item() == 3.0
    assert genesis.cuda.current_device() == 0 and torch.cuda.current_device() == 0

    with genesis.cuda.stream(genesis.cuda.Stream(device=1)) as s:
        r = Recorder(t)
        genesis.from_dlpack(r)
    assert r.calls[0]["stream"] == s.cuda_stream

    moved = genesis.from_dlpack(t, device="cuda:0")
    assert moved.device == genesis.device("cuda", 0) and moved[-1].item() == 3.0
    with pytest.raises(BufferError):
        genesis.from_dlpack(t, device="cuda:0", copy=False)
    c = genesis.tensor(t)
    assert c.device == genesis.device("cuda", 1) and c.data_ptr() != t.data_ptr()
    assert genesis.cuda.current_device() == 0


def test_multi_gpu_memory_on_device_1(torch, two_gpus):
    settle()
    base = genesis.cuda.memory_allocated(1)
    x = genesis.ones(1 << 20, device="cuda:1")
    t = torch.from_dlpack(x)
    cap = x.__dlpack__(max_version=(1, 0))
    del x, cap
    settle()
    assert genesis.cuda.memory_allocated(1) == base + (4 << 20)
    del t
    settle()
    assert genesis.cuda.memory_allocated(1) == base
