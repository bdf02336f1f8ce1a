"""Hostile input never crashes genesis: each case raises a clear exception naming the op.

Sizes near 2^31, 2^32, 2^62 and 2^63 (Note [Checked sizes] in csrc/core/shape.h), nested data
that changes under the walk or contains itself (Note [Nested data]), more dims than a tensor may
have, objects made without their C++ part (Note [Tensor.__new__]), and writes into read-only
memory (Note [Read-only storages]). Any new op that takes sizes, indices or nested data adds its
cases here; any new op that writes a tensor adds a row to READ_ONLY_WRITES.
"""

import re

import numpy as np
import pytest
from conftest import DEVICES, requires_cuda
from isolated import run_isolated

import genesis

HUGE = 2**62 + 1  # elements: fits int64, its bytes do not


@pytest.mark.parametrize(
    "make",
    [
        lambda: genesis.empty(HUGE, dtype=genesis.float32),
        lambda: genesis.zeros(HUGE),
        lambda: genesis.ones(HUGE),
        lambda: genesis.full((HUGE,), 1.0),
        lambda: genesis.rand(2**62),
        lambda: genesis.randn(2**62),
        lambda: genesis.randint(0, 5, (2**62,)),
        lambda: genesis.arange(0, 2**63 - 1),
        lambda: genesis.linspace(0, 1, 2**62),
        lambda: genesis.eye(2**31, dtype=genesis.float64),
        lambda: genesis.ones(1).expand(2**62).contiguous(),
        lambda: genesis.ones(1).expand(2**62).clone(),
        lambda: genesis.ones(1).expand(2**62) + 1,
        lambda: genesis.ones(1).expand(2**62).double(),
        lambda: genesis.zeros(2**31, 1).expand(2**31, 1) @ genesis.zeros(1, 1).expand(1, 2**31),
        lambda: genesis.zeros(4)[genesis.zeros(1, dtype=genesis.int64).expand(2**62)],
    ],
    ids=[
        "empty",
        "zeros",
        "ones",
        "full",
        "rand",
        "randn",
        "randint",
        "arange",
        "linspace",
        "eye",
        "expand.contiguous",
        "expand.clone",
        "expand+1",
        "expand.double",
        "mm",
        "index_expanded",
    ],
)
def test_byte_counts_beyond_int64_raise(make):
    # The byte count of these wraps in 64 bits; genesis must refuse, never allocate the wrapped
    # size. (Any RuntimeError: "more bytes than 2^63 - 1", or the allocator's own refusal.)
    with pytest.raises((RuntimeError, ValueError)) as e:
        make()
    assert str(e.value).startswith("[")


def test_empty_of_wrapping_size_names_the_overflow():
    with pytest.raises(RuntimeError, match=r"^\[empty\] .*more bytes than 2\^63 - 1"):
        genesis.empty(HUGE, dtype=genesis.float32)


def test_narrow_cannot_reach_past_the_end():
    x = genesis.arange(10.0)
    with pytest.raises(IndexError, match=r"^\[narrow\] .*exceeds dimension size"):
        x.narrow(0, 5, 2**63 - 1)
    with pytest.raises(IndexError, match=r"^\[narrow\]"):
        x.narrow(0, -3, 2**63 - 2)
    assert x.narrow(0, 5, 5).tolist() == [5.0, 6.0, 7.0, 8.0, 9.0]


@pytest.mark.parametrize(
    "source, shape",
    [
        ((1,), (274177, 67280421310721)),  # the product wraps to 1
        ((0,), (2**32, 2**32)),  # the product wraps to 0
        ((0,), (-1, 2**32, 2**32)),
        ((4,), (2**62, 2**62, 0, -1)),
    ],
)
@pytest.mark.parametrize("op", ["view", "reshape"])
def test_view_shapes_whose_product_wraps_raise(source, shape, op):
    x = genesis.zeros(*source)
    with pytest.raises(ValueError, match=rf"^\[{op}\] shape .* is invalid for input of size"):
        getattr(x, op)(*shape)


def test_expand_beyond_int64_elements_raises():
    with pytest.raises(ValueError, match=r"^\[expand\] .*too many elements"):
        genesis.ones(1, 1).expand(2**62, 2**62)
    assert genesis.ones(1, 1).expand(2**31, 2**31).numel() == 2**62  # fits: a view only


def test_arange_counts_beyond_int64_raise():
    with pytest.raises(ValueError, match=r"^\[arange\] .*too many elements"):
        genesis.arange(0.0, 1.0, 1e-300)
    with pytest.raises(ValueError, match=r"^\[arange\] .*too many elements"):
        genesis.arange(-(2**63), 2**63 - 1)
    assert genesis.arange(2**62, 2**62 + 3).tolist() == [2**62, 2**62 + 1, 2**62 + 2]
    assert genesis.arange(2**63 - 3, 2**63 - 1).tolist() == [2**63 - 3, 2**63 - 2]


# --- dims and nesting ------------------------------------------------------------------------


def test_at_most_64_dims():
    assert genesis.zeros([1] * 64).ndim == 64
    with pytest.raises(ValueError, match=r"^\[zeros\] a tensor has at most 64 dimensions"):
        genesis.zeros([1] * 65)
    with pytest.raises(ValueError, match="at most 64 dimensions"):
        genesis.zeros([1] * 100000)
    with pytest.raises(ValueError, match=r"^\[view\] a tensor has at most 64"):
        genesis.zeros(1).view([1] * 65)
    x = genesis.zeros([1] * 64)
    with pytest.raises(ValueError, match=r"^\[unsqueeze\]"):
        x.unsqueeze(0)
    with pytest.raises(IndexError, match=r"^\[index\] the result would have 65 dimensions"):
        x[None]
    with pytest.raises(IndexError):
        np.zeros([1] * 64)[None]
    assert len(x.tolist()) == 1


def test_a_list_that_contains_itself_raises():
    a = []
    a.append(a)
    with pytest.raises(ValueError, match=r"^\[tensor\] the nested data is more than 64 levels"):
        genesis.tensor(a)


def test_deep_nesting_raises_without_recursing_far():
    deep = 0
    for _ in range(100000):
        deep = [deep]
    with pytest.raises(ValueError, match=r"^\[tensor\] .*more than 64 levels"):
        genesis.tensor(deep)
    ok = 1.5
    for _ in range(64):
        ok = [ok]
    assert genesis.tensor(ok).ndim == 64


class Shifty:
    """A sequence whose length changes after the first time it is iterated."""

    def __init__(self, n_first, n_later):
        self.sizes = [n_first, n_later]
        self.walks = 0

    def __len__(self):
        return self.sizes[min(self.walks, 1)]

    def __getitem__(self, i):
        if i >= len(self):
            self.walks += 1
            raise IndexError(i)
        return float(i)


@pytest.mark.parametrize("first, later", [(2, 1000), (1000, 2), (3, 3)])
def test_nested_data_is_walked_once(first, later):
    rows = [Shifty(first, later), Shifty(first, later)]
    t = genesis.tensor(rows)
    assert t.shape == (2, first)
    assert t.tolist() == [[float(i) for i in range(first)]] * 2


class LyingLength:
    """len() says 5, iteration yields 2."""

    def __len__(self):
        return 5

    def __getitem__(self, i):
        if i >= 2:
            raise IndexError(i)
        return 1.0


def test_sequence_whose_len_lies_raises():
    with pytest.raises(ValueError, match=r"^\[tensor\] a sequence of length 5 yielded 2 items"):
        genesis.tensor([LyingLength(), LyingLength()])


# --- objects without their C++ part ----------------------------------------------------------


def test_tensor_new_without_init_is_an_empty_tensor():
    t = genesis.Tensor.__new__(genesis.Tensor)
    assert t.shape == (0,) and t.dtype == genesis.float32 and t.device.type == "cpu"
    assert repr(t) == "tensor([])"
    assert t.sum().item() == 0.0 and t.clone().shape == (0,) and (t + 1).shape == (0,)

    class Sub(genesis.Tensor):
        pass

    s = Sub.__new__(Sub)
    assert isinstance(s, Sub) and s.numel() == 0
    with pytest.raises(TypeError):
        genesis.Tensor()  # no constructor: tensors come from factories


@pytest.mark.parametrize("device", DEVICES)
def test_sizes_near_32_bit_limits_still_work(device):
    # Views that span more than 2^32 elements address them with 64-bit arithmetic.
    x = genesis.arange(3.0, device=device).expand(2**31, 3)
    assert x.shape == (2**31, 3) and x[2**31 - 1, 2].item() == 2.0
    y = genesis.zeros(1, device=device).expand(2**33)
    assert y[2**33 - 1].item() == 0.0


# --- fork, messages --------------------------------------------------------------------------


def _fork_child(q):
    x = genesis.rand(1 << 21)
    q.put(((x * 2).sum().item() > 0, genesis.arange(1 << 20).sum().item()))


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_forked_child_computes_instead_of_hanging():
    # Note [Fork safety]: after parallel ops in the parent, a forked child's parallel op runs.
    import multiprocessing as mp

    (genesis.rand(1 << 21) * 2).sum()
    genesis.arange(1 << 20).sum()
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_fork_child, args=(q,))
    p.start()
    p.join(60)
    alive = p.is_alive()
    if alive:
        p.kill()
    assert not alive, "the forked child hung in its first parallel region"
    assert p.exitcode == 0
    assert q.get(timeout=10) == (True, (1 << 20) * ((1 << 20) - 1) // 2)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_int_of_a_non_finite_tensor_is_a_value_error(value):
    with pytest.raises(ValueError, match=r"^\[int\] cannot convert"):
        int(genesis.tensor(value))
    assert int(genesis.tensor(2.7)) == 2


@pytest.mark.parametrize(
    "kwargs, what",
    [
        ({"dl_device": "cpu"}, "dl_device"),
        ({"dl_device": (1,)}, "dl_device"),
        ({"dl_device": (True, 0)}, "dl_device"),
        ({"max_version": "x"}, "max_version"),
        ({"max_version": (1.0, 0)}, "max_version"),
        ({"copy": "yes"}, "copy"),
        ({"copy": 1}, "copy"),
    ],
)
def test_bad_dlpack_arguments_are_type_errors(kwargs, what):
    with pytest.raises(TypeError, match=rf"^\[__dlpack__\] {what} must be"):
        genesis.ones(2).__dlpack__(**kwargs)


def test_a_dlpack_device_of_strings_is_a_type_error():
    class Producer:
        def __dlpack__(self, **kwargs):
            raise AssertionError("not reached")

        def __dlpack_device__(self):
            return ("a", "b")

    with pytest.raises(TypeError, match=r"^\[from_dlpack\] __dlpack_device__\(\)'s result must"):
        genesis.from_dlpack(Producer())
    with pytest.raises(TypeError, match=r"^\[from_dlpack\] copy must be"):
        genesis.from_dlpack(np.arange(3), copy="no")


# --- Python protocols that raise while an argument is read ---------------------------------


class RaisingLen:
    def __len__(self):
        raise KeyError("len")

    def __getitem__(self, i):
        return 1


class RaisingItem:
    def __len__(self):
        return 2

    def __getitem__(self, i):
        raise ZeroDivisionError("item")


class EndlessItems:
    """len() says 3; [i] never raises IndexError, so iteration would never end."""

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return 2


SIZE_TAKERS = {
    "zeros": lambda s: genesis.zeros(s),
    "view": lambda s: genesis.zeros(4).view(s),
    "reshape": lambda s: genesis.zeros(4).reshape(s),
    "permute": lambda s: genesis.zeros(4).permute(s),
    "expand": lambda s: genesis.zeros(1).expand(s),
    "cat": lambda s: genesis.cat(s),
}


@pytest.mark.parametrize("op", list(SIZE_TAKERS))
def test_a_raising_len_or_item_propagates_its_own_exception(op):
    # Not SystemError ("returned a result with an exception set"): the user's exception.
    with pytest.raises(KeyError, match="len"):
        SIZE_TAKERS[op](RaisingLen())
    with pytest.raises(ZeroDivisionError, match="item"):
        SIZE_TAKERS[op](RaisingItem())


def test_sizes_are_read_by_len_not_by_endless_iteration():
    assert genesis.zeros(EndlessItems()).shape == (2, 2, 2)
    with pytest.raises(ValueError, match=r"^\[zeros\] a tensor has at most 64 dimensions, got 65"):
        genesis.zeros([1] * 65)
    too_many = r"a tensor has at most 64 dimensions, got 100000"
    with pytest.raises(ValueError, match=r"^\[view\] " + too_many):
        genesis.zeros(1).view([1] * 100000)


@pytest.mark.parametrize("device", DEVICES)
def test_in_place_arithmetic_from_an_overlapping_view(device):
    # x[1:] += x[:-1] reads every input before writing (NumPy's result), as copies do.
    for step in ("add", "sub", "mul"):
        a = np.arange(1.0, 9.0)
        x = genesis.tensor(a, device=device)
        if step == "add":
            x[1:] += x[:-1]
            a[1:] += a[:-1].copy()
        elif step == "sub":
            x[:-1] -= x[1:]
            a[:-1] -= a[1:].copy()
        else:
            x[::2] *= x[::-2]
            a[::2] *= a[::-2].copy()
        assert x.tolist() == a.tolist()
    m = np.arange(16.0).reshape(4, 4)
    t = genesis.tensor(m, device=device)
    t += t.t()
    assert t.tolist() == (m + m.T).tolist()


class RaisingIndex:
    def __index__(self):
        raise KeyError("index")


class HugeIndex:
    def __index__(self):
        return 2**70


class RaisingArray:
    def __array__(self, dtype=None, copy=None):
        raise KeyError("array")


class ObjectArray:
    def __array__(self, dtype=None, copy=None):
        return np.array([None, 1], dtype=object)


class RaisingDLPack:
    def __dlpack__(self, **kwargs):
        raise KeyError("dlpack")

    def __dlpack_device__(self):
        return (1, 0)


class NotACapsule:
    def __dlpack__(self, **kwargs):
        return 5

    def __dlpack_device__(self):
        return (1, 0)


_x = genesis.arange(10.0)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: genesis.zeros(RaisingIndex()), KeyError, "index"),
        (lambda: genesis.zeros(HugeIndex()), ValueError, r"^\[zeros\] size .* does not fit in 64"),
        (lambda: _x[RaisingIndex()], KeyError, "index"),
        (lambda: _x[HugeIndex()], ValueError, r"^\[index\] index .* does not fit in 64 bits"),
        (lambda: _x[: HugeIndex()], ValueError, r"^\[index\] slice bound .* does not fit"),
        (lambda: _x[RaisingIndex() :], KeyError, "index"),
        (lambda: _x.__setitem__(RaisingIndex(), 1.0), KeyError, "index"),
        (lambda: _x.sum(RaisingIndex()), KeyError, "index"),
        (lambda: genesis.tensor(RaisingArray()), KeyError, "array"),
        (lambda: genesis.tensor(ObjectArray()), TypeError, r"^\[tensor\] unsupported NumPy dtype"),
        (lambda: genesis.from_numpy(RaisingArray()), TypeError, r"^\[from_numpy\] expected"),
        (lambda: genesis.from_dlpack(RaisingDLPack()), KeyError, "dlpack"),
        (lambda: genesis.from_dlpack(NotACapsule()), BufferError, r"^\[from_dlpack\] not a"),
        (lambda: genesis.tensor(NotACapsule()), BufferError, r"^\[from_dlpack\] not a"),
    ],
    ids=lambda v: None,
)
def test_hostile_protocol_objects_raise_cleanly(call, exc, match):
    # __index__, __array__ and __dlpack__ that raise or answer nonsense: the user's own
    # exception, or one naming the op; never a crash or a SystemError.
    with pytest.raises(exc, match=match):
        call()
    assert _x.tolist() == [float(i) for i in range(10)]


# --- crafted DLPack capsules (Note [Checked capsules]) ---------------------------------------


@pytest.mark.parametrize(
    "fields, why",
    [
        ({"shape": [1] * 65, "strides": [1] * 65}, "ndim 65 is more than the 64 dims"),
        ({"shape": [1] * 100000, "strides": [1] * 100000}, "ndim 100000 is more than"),
        ({"shape": (2**62, 4), "strides": (4, 1)}, "more elements than fit 64 bits"),
        ({"shape": (2**31, 2**31), "strides": (2**31, 1)}, "spans more bytes than fit"),
        ({"shape": (2, 2), "strides": (2**62, 1)}, "spans more bytes than fit"),
        ({"shape": (2, 2), "strides": (-(2**63), 1)}, "spans more bytes than fit"),
        ({"shape": (3,), "strides": (2**63 - 1,)}, "spans more bytes than fit"),
        ({"shape": (2,), "strides": (1,), "byte_offset": 2**63 + 4}, "spans more bytes than fit"),
        ({"shape": (2,), "strides": (1,), "byte_offset": 2**64 - 4}, "wraps the address space"),
    ],
    ids=lambda v: str(v)[:40] if isinstance(v, dict) else None,
)
def test_crafted_capsules_raise_buffer_error_and_stay_unconsumed(fields, why):
    from test_dlpack import VERSIONED, HandMade, capsule_name

    buf = np.zeros(8, dtype=np.float32)
    p = HandMade(buf, **fields)
    with pytest.raises(BufferError, match=r"^\[from_dlpack\] .*" + why):
        genesis.from_dlpack(p.capsule)
    assert capsule_name(p.capsule) == VERSIONED
    assert p.deleted == []


def test_a_capsule_with_a_null_shape_raises():
    from test_dlpack import HandMade

    p = HandMade(np.zeros(4, dtype=np.float32), shape=(2, 2), strides=(2, 1))
    p.managed.dl_tensor.shape = None
    with pytest.raises(BufferError, match=r"^\[from_dlpack\] the shape array is NULL"):
        genesis.from_dlpack(p.capsule)


# --- CUDA in a forked child (Note [CUDA after fork]) -----------------------------------------

FORK_MESSAGE = r"^\[cuda\] cannot use CUDA in a process made by fork\(\) after the parent"


def _in_forked_child(body):
    """Runs body() in a child made by os.fork(); returns what it returned (a list of strings)."""
    import json
    import os

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 0
        try:
            os.close(read_end)
            out = body()
        except BaseException as e:  # report anything, exit cleanly
            out, code = [f"child failed: {type(e).__name__}: {e}"], 3
        with os.fdopen(write_end, "w") as f:
            json.dump(out, f)
        os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end) as f:
        result = json.load(f)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, result
    return result


def _errors_of(*calls):
    out = []
    for call in calls:
        try:
            call()
            out.append("no error")
        except Exception as e:
            out.append(f"{type(e).__name__}: {e}")
    return out


@requires_cuda
@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_that_touches_cuda_gets_a_clear_error():
    import gc
    import re

    x = genesis.arange(4.0, device="cuda") + 1  # CUDA started in this process
    genesis.cuda.synchronize()

    def body():
        errors = _errors_of(
            lambda: x + 1,
            lambda: genesis.zeros(2, device="cuda"),
            lambda: genesis.cuda.current_device(),
            lambda: genesis.cuda.synchronize(),
            lambda: x.cpu(),
        )
        held = [x]
        held.clear()  # freeing an inherited CUDA tensor drops it without calling the driver
        gc.collect()
        cpu = (genesis.arange(1 << 16) * 2).sum().item()  # the CPU still works
        return [*errors, str(cpu)]

    *errors, cpu = _in_forked_child(body)
    for e in errors:
        assert e.startswith("RuntimeError: ") and re.search(
            FORK_MESSAGE, e[len("RuntimeError: ") :]
        ), e
    assert int(cpu) == (1 << 16) * ((1 << 16) - 1)
    assert (x + 1).tolist() == [2.0, 3.0, 4.0, 5.0]  # the parent is unaffected


@requires_cuda
@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/maps"), reason="needs /proc")
def test_import_does_not_start_cuda():
    # Nothing may touch the CUDA runtime while the module loads (a static initialiser once
    # did): it would start the driver, and a child forked after `import genesis` could not
    # use CUDA.
    import subprocess
    import sys

    script = "import genesis\nprint('libcuda' in open('/proc/self/maps').read())\n"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@requires_cuda
@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_child_forked_before_cuda_started_may_use_it():
    import subprocess
    import sys

    script = (
        "import os, genesis\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    ok = (genesis.ones(3, device='cuda') * 2).sum().item() == 6.0\n"
        "    os._exit(0 if ok else 1)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "assert os.waitstatus_to_exitcode(status) == 0, status\n"
        "print((genesis.ones(2, device='cuda') + 1).tolist())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[2.0, 2.0]"


@pytest.mark.parametrize("step", [2**63 - 1, 2**62, -(2**63), -(2**63) + 1, -(2**62)])
@pytest.mark.parametrize("device", DEVICES)
def test_slice_steps_near_int64_limits(step, device):
    # Note [Checked sizes]: the slice length and the view's stride never wrap.
    a = np.arange(10.0)
    x = genesis.tensor(a, device=device)
    for key in (slice(None, None, step), slice(3, None, step), slice(None, 4, step)):
        got = x[key]
        assert got.tolist() == a[key].tolist()
        assert got.shape == a[key].shape


# --- overlapping copies (Note [Overlapping copies]) -------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_copies_between_overlapping_views_give_numpys_result(device):
    a = np.arange(6.0)
    x = genesis.tensor(a, device=device)
    x[:] = x[::-1]
    b = a.copy()
    b[:] = b[::-1]
    assert x.tolist() == b.tolist() == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
    for src, dst in ((slice(None, -1), slice(1, None)), (slice(1, None), slice(None, -1))):
        y = genesis.tensor(a, device=device)
        c = a.copy()
        y[dst] = y[src]
        c[dst] = c[src]
        assert y.tolist() == c.tolist()
    m = np.arange(16.0).reshape(4, 4)
    t = genesis.tensor(m, device=device)
    t.copy_(t.t())
    assert t.tolist() == m.T.tolist()
    u = genesis.tensor(m, device=device)
    u[1:3, 1:3] = u[0:2, 0:2]
    n = m.copy()
    n[1:3, 1:3] = n[0:2, 0:2]
    assert u.tolist() == n.tolist()
    v = genesis.tensor(m, device=device)
    v.copy_(v)  # onto itself: unchanged
    assert v.tolist() == m.tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_copy_into_shared_elements_is_refused(device):
    x = genesis.zeros(1, device=device).expand(3)
    with pytest.raises(RuntimeError, match=r"^\[copy_\] unsupported operation: more than one"):
        x.copy_(genesis.arange(3.0, device=device))
    assert x.tolist() == [0.0, 0.0, 0.0]
    y = genesis.zeros(2, 1, device=device).expand(2, 3)
    with pytest.raises(RuntimeError, match=r"^\[copy_\]"):
        y[:] = genesis.ones(2, 3, device=device)


# --- read-only storages (Note [Read-only storages] in csrc/core/storage.h) --------------------

RO_VALUES = [1.0, 2.0, 3.0, 4.0]
RO_BYTES = np.array(RO_VALUES, dtype=np.float32).tobytes()


def _read_only():
    """A tensor over an immutable bytes object (np.frombuffer gives a read-only array)."""
    buf = bytes(bytearray(RO_BYTES))  # a bytes object of its own, not the shared constant
    return buf, genesis.from_numpy(np.frombuffer(buf, dtype=np.float32))


def _iadd(t):
    t += 1


def _imul(t):
    t *= 2


def _isetitem(t):
    t[0] += 1  # getitem gives a view, whose in-place add is refused


# (op named in the message, the write)
READ_ONLY_WRITES = [
    ("fill_", lambda t: t.fill_(0.0)),
    ("zero_", lambda t: t.zero_()),
    ("copy_", lambda t: t.copy_(genesis.zeros(4))),
    ("copy_", lambda t: t.copy_([0.0, 0.0, 0.0, 0.0])),
    ("copy_", lambda t: t.untyped_storage().copy_(genesis.zeros(4).untyped_storage())),
    ("setitem", lambda t: t.__setitem__(0, 9.0)),
    ("setitem", lambda t: t.__setitem__(slice(1, 3), 9.0)),
    ("setitem", lambda t: t.__setitem__(Ellipsis, 9.0)),
    ("setitem", lambda t: t.__setitem__(slice(None), genesis.zeros(4))),
    ("setitem", lambda t: t.__setitem__(slice(None), [0.0, 0.0, 0.0, 0.0])),
    ("setitem", lambda t: t.__setitem__(genesis.tensor([0, 2]), 9.0)),
    ("setitem", lambda t: t.__setitem__(genesis.tensor([0, 2]), genesis.zeros(2))),
    ("setitem", lambda t: t.__setitem__([1, 3], 9.0)),
    ("setitem", lambda t: t.__setitem__(t > 2, 0.0)),
    ("setitem", lambda t: t.__setitem__(t > 2, genesis.zeros(2))),
    ("add_", lambda t: t.add_(1)),
    ("sub_", lambda t: t.sub_(genesis.ones(4), alpha=2)),
    ("mul_", lambda t: t.mul_(2)),
    ("div_", lambda t: t.div_(2)),
    ("div_", lambda t: t.div_(2, rounding_mode="floor")),
    ("pow_", lambda t: t.pow_(2)),
    ("__iadd__", _iadd),
    ("__imul__", _imul),
    ("__iadd__", _isetitem),
    ("__isub__", lambda t: t.__isub__(1)),
    ("neg_", lambda t: t.neg_()),
    ("exp_", lambda t: t.exp_()),
    ("sqrt_", lambda t: t.sqrt_()),
    ("clamp_", lambda t: t.clamp_(min=2.5)),
    ("clip_", lambda t: t.clip_(max=2.5)),
    ("fill_", lambda t: t[1:].fill_(0.0)),
    ("zero_", lambda t: t[::2].zero_()),
    ("add_", lambda t: t.view(2, 2).t().add_(1)),
    ("setitem", lambda t: t.reshape(2, 2).__setitem__((0, 1), 9.0)),
    ("fill_", lambda t: t.unsqueeze(0).expand(3, 4).fill_(0.0)),
    ("copy_", lambda t: t.contiguous().copy_(genesis.zeros(4))),  # contiguous: t itself
    ("fill_", lambda t: t.to(genesis.float32).fill_(0.0)),  # no change: t itself
    # issue 15's writers
    ("masked_fill_", lambda t: t.masked_fill_(t > 2, 0.0)),
    ("masked_fill_", lambda t: t.masked_fill_(t > 2, genesis.tensor(0.0))),
    ("masked_scatter_", lambda t: t.masked_scatter_(t > 2, genesis.zeros(4))),
    ("index_fill_", lambda t: t.index_fill_(0, genesis.tensor([1]), 9.0)),
    ("index_copy_", lambda t: t.index_copy_(0, genesis.tensor([1]), genesis.zeros(1))),
    ("scatter_", lambda t: t.scatter_(0, genesis.tensor([1]), 9.0)),
    ("scatter_", lambda t: t.scatter_(0, genesis.tensor([1]), genesis.zeros(1))),
    # the accumulating index family
    ("scatter_add_", lambda t: t.scatter_add_(0, genesis.tensor([1]), genesis.zeros(1))),
    ("scatter_", lambda t: t.scatter_(0, genesis.tensor([1]), genesis.zeros(1), reduce="add")),
    ("scatter_", lambda t: t.scatter_(0, genesis.tensor([1]), 2.0, reduce="multiply")),
    ("scatter_reduce_", lambda t: t.scatter_reduce_(0, genesis.tensor([1]), t, "amax")),
    ("scatter_reduce_", lambda t: t.scatter_reduce_(0, genesis.tensor([1]), t, "mean")),
    ("index_add_", lambda t: t.index_add_(0, genesis.tensor([1]), genesis.zeros(1))),
    ("index_add_", lambda t: t.index_add_(0, genesis.tensor([1]), genesis.zeros(1), alpha=2)),
    ("index_reduce_", lambda t: t.index_reduce_(0, genesis.tensor([1]), genesis.ones(1), "prod")),
    ("put_", lambda t: t.put_(genesis.tensor([1]), genesis.zeros(1))),
    ("put_", lambda t: t.put_(genesis.tensor([1]), genesis.zeros(1), accumulate=True)),
    ("put_", lambda t: t[::2].put_(genesis.tensor([1]), genesis.zeros(1))),
    ("index_put_", lambda t: t.index_put_((genesis.tensor([1]),), genesis.zeros(1), True)),
    ("lerp_", lambda t: t.lerp_(genesis.zeros(4), 0.5)),
    ("addcmul_", lambda t: t.addcmul_(genesis.ones(4), genesis.ones(4))),
    ("addcdiv_", lambda t: t.addcdiv_(genesis.ones(4), genesis.ones(4))),
    ("clamp_min_", lambda t: t.clamp_min_(2.5)),
    ("clamp_max_", lambda t: t.clamp_max_(2.5)),
    ("nan_to_num_", lambda t: t.nan_to_num_()),
    ("silu", lambda t: genesis.nn.functional.silu(t, inplace=True)),
    ("relu", lambda t: genesis.nn.functional.relu(t, inplace=True)),
    ("elu_", lambda t: genesis.nn.functional.elu_(t)),
    ("leaky_relu_", lambda t: genesis.nn.functional.leaky_relu_(t)),
    ("hardtanh_", lambda t: genesis.nn.functional.hardtanh_(t)),
    ("logical_not_", lambda t: t.logical_not_()),
    ("uniform_", lambda t: t.uniform_()),
    ("normal_", lambda t: t.normal_()),
    ("random_", lambda t: t.random_(0, 5)),
    ("exponential_", lambda t: t.exponential_()),
    ("geometric_", lambda t: t.geometric_(0.5)),
    ("log_normal_", lambda t: t.log_normal_()),
    ("cauchy_", lambda t: t.cauchy_()),
    ("bernoulli_", lambda t: t.bernoulli_(0.5)),
    ("bernoulli_", lambda t: t.bernoulli_(genesis.full((4,), 0.5))),
    (
        "sort",
        lambda t: genesis.sort(genesis.zeros(4), out=(t, genesis.zeros(4, dtype=genesis.int64))),
    ),
    ("searchsorted", lambda t: genesis.searchsorted(genesis.zeros(4), genesis.zeros(4), out=t)),
    ("cumsum_", lambda t: t.cumsum_(0)),
    ("cumprod_", lambda t: t.cumprod_(-1)),
    ("cumsum", lambda t: genesis.cumsum(genesis.ones(4), 0, out=t)),
    ("logcumsumexp", lambda t: genesis.logcumsumexp(genesis.ones(4), 0, out=t)),
    ("histc", lambda t: genesis.histc(genesis.ones(4), 4, out=t)),
    ("cummax", lambda t: genesis.cummax(genesis.ones(4), 0, out=(t, genesis.empty(4).long()))),
    ("addmm_", lambda t: t.view(2, 2).addmm_(genesis.ones(2, 3), genesis.ones(3, 2))),
    ("addbmm_", lambda t: t.view(2, 2).addbmm_(genesis.ones(2, 2, 3), genesis.ones(2, 3, 2))),
    ("baddbmm_", lambda t: t.view(1, 2, 2).baddbmm_(genesis.ones(1, 2, 3), genesis.ones(1, 3, 2))),
    ("addmv_", lambda t: t.addmv_(genesis.ones(4, 3), genesis.ones(3))),
    ("outer", lambda t: genesis.outer(genesis.ones(2), genesis.ones(2), out=t.view(2, 2))),
    ("kron", lambda t: genesis.kron(genesis.ones(2), genesis.ones(2), out=t)),
    ("mv", lambda t: genesis.mv(genesis.ones(4, 3), genesis.ones(3), out=t)),
    ("linalg.cross", lambda t: genesis.linalg.cross(genesis.ones(3), genesis.ones(3), out=t[:3])),
    # out= of the older functions (Note [Call habits]) and resize_
    ("exp", lambda t: genesis.exp(genesis.ones(4), out=t)),
    ("add", lambda t: genesis.add(genesis.ones(4), 1, out=t)),
    ("sum", lambda t: genesis.sum(genesis.ones(2, 4), 0, out=t)),
    ("max", lambda t: genesis.max(genesis.ones(4, 4), 0, out=(t, genesis.empty(4).long()))),
    ("matmul", lambda t: genesis.matmul(genesis.ones(4, 3), genesis.ones(3), out=t)),
    ("cat", lambda t: genesis.cat([genesis.ones(2), genesis.ones(2)], out=t)),
    ("exp", lambda t: genesis.exp(genesis.ones(2, 2), out=t)),  # would resize
    ("resize_", lambda t: t.resize_(2, 2)),
    ("resize_", lambda t: t.resize_(8)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "op, call",
    [
        ("index_select", lambda x, i: genesis.index_select(x, 0, i)),
        ("gather", lambda x, i: genesis.gather(x, 0, i)),
        ("take", lambda x, i: genesis.take(x, i)),
        ("take_along_dim", lambda x, i: genesis.take_along_dim(x, i, 0)),
        ("index_fill_", lambda x, i: x.index_fill_(0, i, 1.0)),
        ("index_copy_", lambda x, i: x.index_copy_(0, i, genesis.ones(1, device=x.device))),
        ("scatter_", lambda x, i: x.scatter_(0, i, 1.0)),
        ("scatter_", lambda x, i: x.scatter_(0, i, 1.0, reduce="add")),
        ("scatter_add_", lambda x, i: x.scatter_add_(0, i, genesis.ones(1, device=x.device))),
        (
            "scatter_add",
            lambda x, i: x.copy_(x.scatter_add(0, i, genesis.ones(1, device=x.device))),
        ),
        (
            "scatter_reduce_",
            lambda x, i: x.scatter_reduce_(0, i, genesis.ones(1, device=x.device), "sum"),
        ),
        (
            "scatter_reduce_",
            lambda x, i: x.scatter_reduce_(
                0, i, genesis.ones(1, device=x.device), "mean", include_self=False
            ),
        ),
        ("index_add_", lambda x, i: x.index_add_(0, i, genesis.ones(1, device=x.device))),
        (
            "index_reduce_",
            lambda x, i: x.index_reduce_(0, i, genesis.ones(1, device=x.device), "amax"),
        ),
        ("put_", lambda x, i: x.put_(i, genesis.ones(1, device=x.device), accumulate=True)),
        ("put_", lambda x, i: x.put_(i, genesis.ones(1, device=x.device))),
        ("index_put_", lambda x, i: x.index_put_((i,), genesis.ones(1, device=x.device), True)),
    ],
)
@pytest.mark.parametrize("bad", [4, -5, 2**31, 2**32, 2**62, -(2**63), 2**63 - 1])
def test_index_family_refuses_out_of_range_indices(device, op, call, bad):
    x = genesis.zeros(4, device=device)
    with pytest.raises(IndexError, match=rf"^\[{re.escape(op)}\] index"):
        call(x, genesis.tensor([bad], device=device))
        genesis.cuda.synchronize() if device == "cuda" else None
    assert x.tolist() == [0.0] * 4  # nothing written
    assert (x + 1).tolist() == [1.0] * 4  # the device is still usable


@pytest.mark.parametrize("op, write", READ_ONLY_WRITES)
def test_every_write_into_read_only_memory_is_refused(op, write):
    # The issue: fill_ used to mutate an immutable bytes object.
    buf, t = _read_only()
    assert not t.is_writable
    with pytest.raises(ValueError, match=rf"^\[{re.escape(op)}\] cannot write into a read-only"):
        write(t)
    assert buf == RO_BYTES
    assert t.tolist() == RO_VALUES


def test_the_issues_zero_bytes_case():
    buf = bytes(16)
    t = genesis.from_numpy(np.frombuffer(buf, np.float32))
    with pytest.raises(ValueError, match=r"^\[fill_\]"):
        t.fill_(1.0)
    assert buf == bytes(16) and t.tolist() == [0.0] * 4
    empty = genesis.from_numpy(np.frombuffer(b"", np.float32))
    assert not empty.is_writable
    with pytest.raises(ValueError, match=r"^\[fill_\]"):  # as NumPy: refused even when empty
        empty.fill_(1.0)


def test_the_backstop_refuses_a_write_without_its_own_check():
    # mutable_data() itself refuses, so a write path that forgot check_writable cannot write.
    from genesis._C import _testing as T

    buf, t = _read_only()
    with pytest.raises(ValueError, match=r"^\[write\] cannot write into a read-only"):
        T.mutable_data_ptr(t[1:])
    assert T.mutable_data_ptr(genesis.zeros(2)) != 0


def test_read_only_memmap_refuses_writes_instead_of_crashing(tmp_path):
    # The issue: a write into a memory map opened with mode='r' was a segfault.
    path = tmp_path / "data.bin"
    np.arange(8, dtype=np.float32).tofile(path)
    m = np.memmap(path, dtype=np.float32, mode="r", shape=(2, 4))
    for t in (genesis.from_numpy(m), genesis.from_dlpack(m)):
        assert not t.is_writable and t.data_ptr() == m.ctypes.data  # shared, not copied
        for op, write in READ_ONLY_WRITES:
            with pytest.raises(ValueError, match=rf"^\[{re.escape(op)}\] cannot write into"):
                write(t.flatten()[:4])
        with pytest.raises(ValueError, match=r"^\[setitem\]"):
            t[1] = 0.0
        assert t.sum().item() == 28.0 and (t * 2)[1, 3].item() == 14.0
    del t, m
    assert np.fromfile(path, dtype=np.float32).tolist() == list(range(8))


def test_read_only_tensors_still_read_compute_print_and_clone():
    buf, t = _read_only()
    assert t.sum().item() == 10.0 and t[2].item() == 3.0
    assert t[genesis.tensor([3, 0])].tolist() == [4.0, 1.0] and t[t > 2].tolist() == [3.0, 4.0]
    assert repr(t) == "tensor([1., 2., 3., 4.])" and str(t[1:]) == "tensor([2., 3., 4.])"
    for view in (t[1:], t.view(2, 2).t(), t.unsqueeze(0), t.expand(2, 4), t[None, ::-1]):
        assert not view.is_writable  # views share the read-only storage
    for fresh in (t.clone(), t + 1, -t, t.double(), t.view(2, 2).t().contiguous(), t[[0, 1]]):
        assert fresh.is_writable  # new memory, as NumPy's copies
        fresh.fill_(0.0)
    c = t.clone()
    c += 1
    assert c.tolist() == [2.0, 3.0, 4.0, 5.0]
    assert genesis.tensor(np.frombuffer(buf, np.float32)).is_writable  # tensor() copies
    assert buf == RO_BYTES


def test_read_only_tensors_export_read_only():
    buf, t = _read_only()
    a = t.numpy()
    assert not a.flags.writeable and a.tolist() == RO_VALUES
    assert a.ctypes.data == t.data_ptr()  # shared
    assert not np.asarray(t).flags.writeable
    assert np.asarray(t, copy=True).flags.writeable
    with pytest.raises(ValueError):
        a[0] = 0.0  # NumPy's own refusal
    b = np.from_dlpack(t[1:])  # versioned capsule, READ_ONLY flag
    assert not b.flags.writeable and b.ctypes.data == t.data_ptr() + 4
    again = genesis.from_dlpack(t)
    assert not again.is_writable and again.data_ptr() == t.data_ptr()
    # A legacy capsule cannot say read-only: it holds a copy, or refuses under copy=False.
    legacy = genesis.from_dlpack(t.__dlpack__())
    assert legacy.is_writable and legacy.data_ptr() != t.data_ptr()
    assert legacy.tolist() == RO_VALUES
    with pytest.raises(BufferError, match=r"^\[__dlpack__\] the tensor is read-only"):
        t.__dlpack__(copy=False)
    assert not genesis.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=False)).is_writable
    assert buf == RO_BYTES


def test_read_only_tensors_export_to_torch():
    torch = pytest.importorskip("torch")
    buf, t = _read_only()
    assert torch.from_dlpack(t).tolist() == RO_VALUES
    assert torch.from_dlpack(t[::2]).tolist() == [1.0, 3.0]
    assert buf == RO_BYTES


def test_read_only_numpy_view_of_writable_memory_sees_other_writes():
    # The storage is read-only for genesis, but NumPy may still write through another view.
    a = np.zeros(4, dtype=np.float32)
    v = a.view()
    v.flags.writeable = False
    t = genesis.from_numpy(v)
    assert not t.is_writable
    a[1] = 5.0
    assert t[1].item() == 5.0 and t.sum().item() == 5.0


def test_writable_arrays_still_share_and_propagate_writes():
    a = np.zeros(4, dtype=np.float32)
    t = genesis.from_numpy(a)
    assert t.is_writable and t.numpy().flags.writeable
    t.fill_(2.0)
    t[1] = 7.0
    t += 1
    assert a.tolist() == [3.0, 8.0, 3.0, 3.0]
    a[0] = -1.0
    assert t[0].item() == -1.0
    g = genesis.from_dlpack(a)
    assert g.is_writable and g.data_ptr() == a.ctypes.data
    g.zero_()
    assert a.tolist() == [0.0] * 4


@pytest.mark.parametrize("device", DEVICES)
def test_indexing_a_dim_of_size_zero_raises_before_any_kernel(device):
    # Every index into a dim of size 0 is out of range; on CUDA the gather kernels used to read
    # outside the (empty) source (an illegal memory access that broke the context).
    e = genesis.zeros(0, 3, device=device)
    i = genesis.tensor([0], device=device)
    for call in (
        lambda: e[i],  # the first-dim fast path
        lambda: e[i, 1:],
        lambda: e[:, :2][i],
        lambda: genesis.zeros(2, 0, device=device)[:, genesis.tensor([1], device=device)],
        lambda: genesis.index_select(e, 0, i),
        lambda: genesis.take(e, i),
        lambda: e.__setitem__(i, 1.0),
        lambda: e.__setitem__(i, genesis.ones(1, 3, device=device)),
    ):
        with pytest.raises(
            IndexError, match=r"index (0|1) is out of bounds for dimension \d with size 0"
        ):
            call()
    assert (genesis.ones(2, device=device) + 1).tolist() == [2.0, 2.0]  # the device still works


# resize_ (Note [Resizing]): checked arithmetic, and no silent detachment from foreign memory.
@pytest.mark.parametrize(
    "sizes",
    [(2**62,), (2**61, 4), (2**32, 2**32), (2**31, 2**31, 4), (0, 2**62, 2**62), (2**63 - 1,)],
    ids=["2^62", "2^61x4", "2^32x2^32", "2^31x2^31x4", "0x2^62x2^62", "int64max"],
)
def test_resize_to_sizes_whose_bytes_overflow_raises(sizes):
    # Each in a process of its own: a wrapped byte count would let reads and writes past the
    # 16-byte storage follow, which may crash.
    out = run_isolated(
        f"""
        import genesis
        t = genesis.zeros(4)
        try:
            t.resize_({sizes!r})
        except (RuntimeError, ValueError) as e:
            assert str(e).startswith("[resize_]"), e
            assert t.shape == (4,) and t.untyped_storage().nbytes() == 16, t.shape
            print("refused")
        """
    )
    # (0, 2^62, 2^62) has no elements, but its strides do not fit int64 (PyTorch: "Stride
    # calculation overflowed").
    assert out.strip() == "refused"


def test_resize_of_a_file_map_raises_instead_of_detaching(tmp_path):
    path = tmp_path / "w.bin"
    t = genesis.from_file(str(path), shared=True, size=4, dtype=genesis.float32)
    with pytest.raises(RuntimeError, match=r"^\[resize_\] .*not resizable"):
        t.resize_(1000)
    t.resize_(2, 2)  # within the map: allowed, still the file's memory
    t.fill_(3.0)
    del t
    assert np.fromfile(path, dtype=np.float32).tolist() == [3.0] * 4


def test_resize_of_shared_memory_raises():
    t = genesis.zeros(4).share_memory_()
    with pytest.raises(RuntimeError, match=r"^\[resize_\]"):
        t.resize_(100)
    t.resize_(3)
    assert t.is_shared()
