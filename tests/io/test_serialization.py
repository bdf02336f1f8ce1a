"""Pickling, copying, genesis.save and genesis.load (genesis/serialization.py, issue 17).

Semantics follow PyTorch: pickle rebuilds a tensor from its storage and layout (views of one
storage in one pickle stay views), copy.copy shares memory, copy.deepcopy copies leaves (views
in one deepcopy share one new storage), and genesis.save writes a zip archive that
genesis.load reads back, with weights_only=True refusing anything but tensors, dtypes, devices
and plain values, and every layout checked against its storage.
"""

import builtins
import collections
import copy
import io
import math
import operator
import os
import pickle
import struct
import subprocess
import tempfile
import zipfile

import numpy as np
import pytest
from conftest import (
    DTYPES,
    HAS_CUDA,
    check_message,
    dtype_id,
    make_tensor,
    requires_cuda,
    to_numpy,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import genesis
from genesis.serialization import _rebuild_tensor

PROTOCOLS = [2, 3, 4, 5]


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def sid(t):
    """The identity of a tensor's storage."""
    return t.untyped_storage()._cdata


def assert_same_tensor(got, want):
    """got is a tensor like want: dtype, device, shape, strides, offset and values."""
    assert isinstance(got, genesis.Tensor), type(got)
    assert got.dtype is want.dtype, (got.dtype, want.dtype)
    assert str(got.device) == str(want.device), (got.device, want.device)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.stride() == want.stride(), (got.stride(), want.stride())
    assert got.storage_offset() == want.storage_offset()
    np.testing.assert_array_equal(to_numpy(got), to_numpy(want))


def assert_same_obj(got, want):
    """got equals want, tensors compared with assert_same_tensor, containers' types kept."""
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, genesis.Tensor):
        assert_same_tensor(got, want)
    elif isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            assert_same_obj(got[k], want[k])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same_obj(g, w)
    elif isinstance(want, genesis.dtype):
        assert got is want
    elif isinstance(want, float) and math.isnan(want):
        assert math.isnan(got)
    else:
        assert got == want, (got, want)


def layouts(dtype, device):
    """Tensors of many layouts over a few storages: name -> tensor."""
    base, _ = make_tensor((4, 6), dtype, device, seed=1)
    row, _ = make_tensor((6,), dtype, device, seed=2)
    return {
        "contiguous": base,
        "0-d": make_tensor((), dtype, device, seed=3)[0],
        "zero-size": make_tensor((0, 3), dtype, device)[0],
        "zero-size view at the end": base.reshape(-1)[24:],
        "transpose": base.t(),
        "step slices": base[::2, 1::3],
        "storage offset": base[1:, 2:],
        "offset row": base[3],
        "element": base[2, 5],
        "expanded": row.expand(3, 6),
        "expanded 0-d": row[4].expand(2, 3),
        "transposed slice": base[1:3, ::2].t(),
    }


def saved(obj, **kwargs):
    buf = io.BytesIO()
    genesis.save(obj, buf, **kwargs)
    return buf.getvalue()


def loaded(raw, **kwargs):
    return genesis.load(io.BytesIO(raw), **kwargs)


def entries(raw):
    """name -> bytes of an archive's entries."""
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def data_entries(raw):
    return {n: b for n, b in entries(raw).items() if "/data/" in n}


def zip_of(files, compression=zipfile.ZIP_STORED):
    """An archive of (name, bytes) pairs (a list: names may repeat)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as zf:
        for name, data in files:
            zf.writestr(name, data)
    return buf.getvalue()


class StorageRef:
    """Stands for a storage in a crafted data.pkl: pickled as the persistent id `pid`."""

    def __init__(self, pid):
        self.pid = pid


class Layout:
    """Pickles as genesis.serialization._rebuild_tensor(storage, offset, size, stride, ...)."""

    def __init__(self, ref, offset, size, stride, dtype=genesis.float32, requires_grad=False):
        self.args = (ref, offset, tuple(size), tuple(stride), dtype, requires_grad)

    def __reduce__(self):
        return (_rebuild_tensor, self.args)


class CraftPickler(pickle.Pickler):
    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, StorageRef) else None


def crafted(obj, storages, stem="archive", protocol=2):
    """An archive whose data.pkl pickles obj (StorageRef -> persistent ids) next to storages
    (key -> bytes)."""
    buf = io.BytesIO()
    CraftPickler(buf, protocol=protocol).dump(obj)
    files = [(f"{stem}/data.pkl", buf.getvalue()), (f"{stem}/version", b"1\n")]
    files += [(f"{stem}/data/{k}", v) for k, v in storages.items()]
    return zip_of(files)


def crafted_tensor(offset, size, stride, nbytes=16, dtype=genesis.float32):
    """One tensor of the given layout over a storage of nbytes bytes."""
    ref = StorageRef(("storage", "0", "cpu", nbytes))
    return crafted(Layout(ref, offset, size, stride, dtype), {"0": bytes(range(nbytes))})


# Module level so that pickle can name them (a file that runs them must be refused).
class Reduces:
    """Pickles as func(*args): what a malicious (or a trusted) file runs on load."""

    def __init__(self, func, args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


RAN = []


def record_call(value):
    RAN.append(value)
    return value


# ---------------------------------------------------------------------------------------------
# 1. pickle round trips
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_pickle_round_trip_layouts(device, dtype, protocol):
    for name, t in layouts(dtype, device).items():
        got = pickle.loads(pickle.dumps(t, protocol=protocol))
        assert got is not t
        try:
            assert_same_tensor(got, t)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None
        assert sid(got) != sid(t), name


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_pickle_dtypes_and_devices(protocol):
    for d in DTYPES:
        assert pickle.loads(pickle.dumps(d, protocol=protocol)) is d
        # Pickled by name, as the global genesis._C.<name>.
        assert f"{d}".replace("genesis.", "").encode() in pickle.dumps(d, protocol=protocol)
    for name in ["cpu", "cuda", "cuda:1"]:
        dev = genesis.device(name)
        got = pickle.loads(pickle.dumps(dev, protocol=protocol))
        assert type(got) is type(dev) and got == dev and str(got) == name
    assert pickle.dumps(genesis.float32, protocol=2) == b"\x80\x02cgenesis._C\nfloat32\nq\x00."


def test_pickle_whole_storage_is_kept(device):
    # A view pickles its whole storage (as in PyTorch): the storage outside the view survives.
    base, a = make_tensor((10,), genesis.float32, device)
    got = pickle.loads(pickle.dumps(base[3:5]))
    assert got.storage_offset() == 3
    assert got.untyped_storage().nbytes() == 40
    assert got.untyped_storage()._to_bytes() == a.tobytes()


# ---------------------------------------------------------------------------------------------
# 2. views stay views within one pickle
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_pickle_views_share_one_storage(device, protocol):
    x = genesis.arange(6.0, device=device).reshape(2, 3)
    a, b, c = pickle.loads(pickle.dumps([x, x[1:], x.t()], protocol=protocol))
    assert sid(a) == sid(b) == sid(c) != sid(x)
    assert a.untyped_storage().nbytes() == 24
    b[0, 0] = 100.0
    assert a[1, 0].item() == 100.0 and c[0, 1].item() == 100.0
    assert x[1, 0].item() == 3.0  # the original is untouched
    # The same tensor twice in one pickle: one object.
    p, q = pickle.loads(pickle.dumps([x, x], protocol=protocol))
    assert p is q


def test_pickle_views_in_separate_pickles_do_not_share(device):
    x = genesis.arange(6.0, device=device).reshape(2, 3)
    a = pickle.loads(pickle.dumps(x))
    b = pickle.loads(pickle.dumps(x[1:]))
    assert sid(a) != sid(b)
    b[0, 0] = 100.0
    assert a[1, 0].item() == 3.0


def test_pickle_storage_written_once():
    x = genesis.zeros(1000, dtype=genesis.uint8)
    one = len(pickle.dumps(x))
    many = len(pickle.dumps([x[i : i + 10] for i in range(0, 1000, 10)]))
    assert one >= 1000
    assert many < one + 100 * 60  # the 1000 bytes are written once, not 100 times


# ---------------------------------------------------------------------------------------------
# 3. copy.copy and copy.deepcopy
# ---------------------------------------------------------------------------------------------


def test_copy_shares_memory(device):
    x = genesis.arange(4.0, device=device)
    x.foo = [1]
    c = copy.copy(x)
    assert c is not x and sid(c) == sid(x)
    c[0] = 10.0
    assert x[0].item() == 10.0
    assert c.foo is x.foo  # a shallow copy of the attributes
    v = copy.copy(x[1::2])
    assert v.storage_offset() == 1 and v.stride() == (2,) and sid(v) == sid(x)


def test_deepcopy_copies(device):
    x = genesis.arange(6.0, device=device).reshape(2, 3)
    d = copy.deepcopy(x)
    assert_same_tensor(d, x)
    assert sid(d) != sid(x)
    d[0, 0] = 10.0
    assert x[0, 0].item() == 0.0


def test_deepcopy_keeps_views_within_one_call(device):
    x = genesis.arange(6.0, device=device).reshape(2, 3)
    y = genesis.ones(2, device=device)
    a, b, c, d, a2 = copy.deepcopy([x, x[1:], x.t(), y, x])
    assert sid(a) == sid(b) == sid(c) != sid(x)
    assert sid(d) != sid(a)
    assert a2 is a
    assert_same_tensor(b, x[1:])
    assert_same_tensor(c, x.t())
    b[0, 0] = 100.0
    assert a[1, 0].item() == 100.0 and c[0, 1].item() == 100.0
    assert x[1, 0].item() == 3.0
    # Two deepcopy calls: two storages.
    assert sid(copy.deepcopy(x)) != sid(copy.deepcopy(x[1:]))


def test_deepcopy_nested_containers(device):
    x = genesis.arange(4.0, device=device)
    obj = {"a": [x, (x[1:], {"b": x[::2]})], "n": 3, "s": "str"}
    got = copy.deepcopy(obj)
    assert_same_obj(got, obj)
    ts = [got["a"][0], got["a"][1][0], got["a"][1][1]["b"]]
    assert len({sid(t) for t in ts}) == 1 and sid(ts[0]) != sid(x)


def test_deepcopy_non_leaf_raises():
    x = genesis.ones(3, requires_grad=True)
    for t in [x * 2, x[1:], x.reshape(3, 1)]:
        with pytest.raises(RuntimeError, match="graph leaves") as e:
            copy.deepcopy(t)
        check_message(e, "deepcopy")
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy({"w": x, "y": x * 2})
    # A result without grad is a leaf: copied.
    assert copy.deepcopy(genesis.ones(3) * 2).tolist() == [2.0, 2.0, 2.0]
    assert copy.deepcopy(x.detach() * 2).tolist() == [2.0, 2.0, 2.0]


def test_requires_grad_and_grad_copied(device):
    x = genesis.ones(3, device=device, requires_grad=True)
    (x * x * 3).sum().backward()
    for got in [pickle.loads(pickle.dumps(x)), copy.deepcopy(x)]:
        assert got.requires_grad and got.is_leaf
    assert pickle.loads(pickle.dumps(x)).grad is None  # pickle does not carry .grad
    d = copy.deepcopy(x)
    assert d.grad is not None
    assert_same_tensor(d.grad, x.grad)
    assert sid(d.grad) != sid(x.grad)
    # Gradients keep flowing into the copy.
    (d * 2).sum().backward()
    assert d.grad.tolist() == [8.0, 8.0, 8.0] and x.grad.tolist() == [6.0, 6.0, 6.0]
    plain = genesis.ones(2, device=device)
    assert not pickle.loads(pickle.dumps(plain)).requires_grad
    assert not copy.deepcopy(plain).requires_grad


def test_python_attributes_survive(device):
    x = genesis.arange(3.0, device=device)
    x.foo = 3
    x.bar = {"k": [1, 2]}
    for got in [pickle.loads(pickle.dumps(x)), copy.deepcopy(x), copy.copy(x)]:
        assert got.foo == 3 and got.bar == {"k": [1, 2]}
    d = copy.deepcopy(x)
    assert d.bar is not x.bar and d.bar["k"] is not x.bar["k"]
    assert not hasattr(pickle.loads(pickle.dumps(genesis.ones(1))), "foo")


def test_deepcopy_tensor_and_its_storage_share(device):
    # As in PyTorch: a storage and a tensor over it, deep-copied together, stay together.
    x = genesis.arange(4.0, device=device)
    t, s = copy.deepcopy([x, x.untyped_storage()])
    assert t.untyped_storage()._cdata == s._cdata != sid(x)
    s2, t2 = copy.deepcopy([x.untyped_storage(), x[1:]])
    assert t2.untyped_storage()._cdata == s2._cdata


# ---------------------------------------------------------------------------------------------
# 4. matplotlib copies its input
# ---------------------------------------------------------------------------------------------


def test_matplotlib_plots_a_tensor():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        (line,) = ax.plot(genesis.arange(5.0))
        (line2,) = plt.plot(genesis.arange(3.0), genesis.arange(3.0) * 2)
        fig.canvas.draw()
        np.testing.assert_array_equal(np.asarray(line.get_ydata(), float), np.arange(5.0))
        np.testing.assert_array_equal(np.asarray(line2.get_ydata(), float), [0.0, 2.0, 4.0])
    finally:
        plt.close("all")


def test_matplotlib_like_steps():
    # What matplotlib's plot does with an array-like (runs without matplotlib too): it checks
    # it is iterable, adds an axis, copies a column (copy.copy) and converts it to floats.
    y = genesis.arange(5.0)
    assert np.iterable(y) and y.ndim == 1
    col = y[:, np.newaxis][:, 0]
    kept = copy.copy(col)
    np.testing.assert_array_equal(np.asarray(kept, float).ravel(), np.arange(5.0))
    assert math.isfinite(y[0])
    np.testing.assert_array_equal(np.atleast_1d(genesis.tensor(3.0)), [3.0])


# ---------------------------------------------------------------------------------------------
# 5. genesis.save / genesis.load round trips
# ---------------------------------------------------------------------------------------------


def nested_object(device):
    f32, _ = make_tensor((3, 4), genesis.float32, device, seed=1)
    i64, _ = make_tensor((5,), genesis.int64, device, seed=2)
    flag, _ = make_tensor((2, 2), genesis.bool, device, seed=3)
    bf, _ = make_tensor((4,), genesis.bfloat16, device, seed=4)
    half, _ = make_tensor((2, 3), genesis.float16, device, seed=5)
    u8, _ = make_tensor((7,), genesis.uint8, device, seed=6)
    return {
        "weights": [f32, f32.t(), (i64, i64[1:3])],
        "state": collections.OrderedDict(
            [("bf", bf), ("half", half[:, 1:]), ("flag", flag), ("u8", u8[::3])]
        ),
        "scalar": make_tensor((), genesis.float64, device, seed=7)[0],
        "empty": genesis.zeros(0, 5, device=device),
        "plain": {
            "int": 7,
            "big": 2**70,
            "neg": -3,
            "float": 2.5,
            "nan": float("nan"),
            "inf": -math.inf,
            "str": "héllo",
            "none": None,
            "bools": (True, False),
            "bytes": b"\x00\xff ab",
            "empty bytes": b"",
            "bytearray": bytearray(b"\x01\x02"),
            "complex": 1.5 - 2j,
            "set": {1, 2, 3},
            "frozenset": frozenset({"a"}),
            "slice": slice(1, None, 2),
            "range": range(2, 9, 3),
            "nested": [[], {}, ()],
            3: "int key",
            (1, 2): "tuple key",
        },
        "dtypes": [genesis.float16, genesis.bfloat16, genesis.int8, genesis.bool],
        "device": genesis.device("cpu"),
        "cuda device": genesis.device("cuda:1"),
    }


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_save_load_nested_bytesio(device, protocol):
    obj = nested_object(device)
    got = loaded(saved(obj, pickle_protocol=protocol))
    assert_same_obj(got, obj)
    # Views of one storage come back as views of one storage.
    w = got["weights"]
    assert sid(w[0]) == sid(w[1]) and sid(w[2][0]) == sid(w[2][1]) != sid(w[0])
    assert sid(w[0]) != sid(obj["weights"][0])


def test_save_load_path_and_file_objects(tmp_path, device):
    obj = nested_object(device)
    path = tmp_path / "model.pt"
    genesis.save(obj, path)
    assert_same_obj(genesis.load(path), obj)
    assert_same_obj(genesis.load(str(path)), obj)
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert all(n.startswith("model/") for n in names), names
        assert "model/data.pkl" in names and "model/version" in names
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
    other = tmp_path / "other.bin"
    with open(other, "wb") as f:
        genesis.save(obj, f)
    with open(other, "rb") as f:
        assert_same_obj(genesis.load(f), obj)
    # The same object saved to a path or a buffer holds the same bytes.
    assert sorted(data_entries(saved(obj)).values()) == sorted(
        data_entries(path.read_bytes()).values()
    )


def test_save_is_deterministic():
    x = genesis.arange(6.0)
    obj = {"a": x, "b": x[2:], "c": genesis.ones(3, dtype=genesis.int16)}
    assert saved(obj) == saved(obj)
    # Keys do not leak storage addresses.
    for name in data_entries(saved(obj)):
        assert int(name.rsplit("/", 1)[1]) < 2, name


def test_shared_views_saved_once(device):
    x = genesis.arange(12.0, device=device).reshape(3, 4)
    y = genesis.arange(3, dtype=genesis.int32, device=device)
    obj = [x, x[1:], x.t(), x[:, ::2], y, y[2], x.untyped_storage()]
    raw = saved(obj)
    data = data_entries(raw)
    assert len(data) == 2, list(data)
    assert sorted(data.values()) == sorted(
        [x.untyped_storage()._to_bytes(), y.untyped_storage()._to_bytes()]
    )
    got = loaded(raw)
    assert len({sid(t) for t in got[:4]}) == 1
    assert sid(got[4]) == sid(got[5]) != sid(got[0])
    assert got[6]._cdata == sid(got[0])
    for g, w in zip(got[:6], obj[:6]):
        assert_same_tensor(g, w)
    got[1][0, 0] = -1.0
    assert got[0][1, 0].item() == -1.0 and got[2][0, 1].item() == -1.0


def test_save_whole_storage_of_a_view():
    base = genesis.arange(100, dtype=genesis.int64)
    raw = saved(base[10:12])
    (blob,) = data_entries(raw).values()
    assert blob == base.untyped_storage()._to_bytes()
    got = loaded(raw)
    assert got.tolist() == [10, 11] and got.storage_offset() == 10


def test_save_load_requires_grad_leaves(device):
    w = genesis.ones(2, 3, device=device, requires_grad=True)
    w.sum().backward()
    got = loaded(saved({"w": w, "frozen": genesis.ones(2, device=device)}))
    assert got["w"].requires_grad and got["w"].is_leaf and got["w"].grad is None
    assert not got["frozen"].requires_grad
    assert_same_tensor(got["w"].detach(), w.detach())


def test_save_load_python_attributes():
    x = genesis.arange(3.0)
    x.name = "weights"
    got = loaded(saved(x))
    assert got.name == "weights"


@pytest.mark.parametrize(
    "map_location",
    ["cpu", genesis.device("cpu"), {"cpu": "cpu"}, {"cuda:0": "cpu"}, {}],
    ids=["str", "device", "dict", "dict-other", "dict-empty"],
)
def test_map_location_cpu(map_location):
    obj = nested_object("cpu")
    assert_same_obj(loaded(saved(obj), map_location=map_location), obj)


def test_map_location_callable():
    x = genesis.arange(4.0)
    calls = []

    def place(storage, location):
        calls.append((storage.nbytes(), location, str(storage.device)))
        return storage

    got = loaded(saved([x, x[1:], genesis.ones(2, dtype=genesis.int8)]), map_location=place)
    assert calls == [(16, "cpu", "cpu"), (2, "cpu", "cpu")]
    assert got[1].tolist() == [1.0, 2.0, 3.0] and sid(got[0]) == sid(got[1])


@requires_cuda
def test_map_location_cuda_to_cpu_and_back():
    x = genesis.arange(6.0, device="cuda").reshape(2, 3)
    where = str(x.untyped_storage().device)  # the saved location ("cuda:0")
    assert where.startswith("cuda")
    raw = saved([x, x.t()])
    assert where.encode() in entries(raw)["archive/data.pkl"]
    for loc in ["cpu", genesis.device("cpu"), {where: "cpu"}]:
        a, b = loaded(raw, map_location=loc)
        assert str(a.device) == "cpu" and sid(a) == sid(b)
        assert a.tolist() == x.tolist() and b.tolist() == x.t().tolist()
    a, b = loaded(raw)
    assert str(a.device).startswith("cuda")
    seen = []
    a, _ = loaded(raw, map_location=lambda s, loc: seen.append(loc) or s)
    assert seen == [where] and str(a.device) == "cpu"
    c = loaded(saved(genesis.ones(2)), map_location="cuda")
    assert str(c.device).startswith("cuda")


def _data_starts(path):
    """{entry name: where its bytes start in the file} for a zip archive's entries."""
    starts = {}
    with zipfile.ZipFile(path) as zf, open(path, "rb") as raw:
        for info in zf.infolist():
            raw.seek(info.header_offset)
            fields = struct.unpack("<IHHHHHIIIHH", raw.read(30))
            starts[info.filename] = info.header_offset + 30 + fields[9] + fields[10]
    return starts


def test_saved_data_entries_are_aligned(tmp_path):
    path = tmp_path / "a.pt"
    big = genesis.arange(float(1 << 16))  # past a page: alignment must hold for any size
    genesis.save([genesis.ones(3), genesis.tensor([1, 2, 3], dtype=genesis.int8), big], path)
    starts = _data_starts(path)
    data = [n for n in starts if "/data/" in n]
    assert len(data) == 3 and all(starts[n] % 64 == 0 for n in data)


def test_load_mmap_lays_storages_over_the_file(tmp_path):
    path = tmp_path / "m.pt"
    x = genesis.arange(12.0).reshape(3, 4)
    obj = {"x": x, "xt": x.t(), "y": genesis.tensor([1, 2, 3], dtype=genesis.int16)}
    obj["empty"] = genesis.ones(0)
    genesis.save(obj, path)
    got = genesis.load(path, mmap=True)
    assert got["x"].tolist() == x.tolist() and got["xt"].tolist() == x.t().tolist()
    assert sid(got["x"]) == sid(got["xt"]) and got["y"].tolist() == [1, 2, 3]
    assert got["empty"].shape == (0,)
    # No copy: the storages sit in one map of the file, as far apart as their entries.
    starts = _data_starts(path)
    entry = {n.split("/")[-1]: s for n, s in starts.items() if "/data/" in n}
    keys = sorted(entry)
    ptrs = {"0": got["x"].data_ptr(), "1": got["y"].data_ptr()}
    assert ptrs["1"] - ptrs["0"] == entry["1"] - entry["0"], (ptrs, entry, keys)
    assert ptrs["0"] % 64 == 0
    # Copy-on-write: the tensors are writable, the file is unchanged.
    before = path.read_bytes()
    got["x"].add_(1.0)
    assert got["x"][0, 0].item() == 1.0 and path.read_bytes() == before
    assert genesis.load(path)["x"].tolist() == x.tolist()


def test_load_mmap_reads_entries_it_cannot_map(tmp_path):
    # An archive written without the padding (stock zipfile): its entries are read instead.
    path = tmp_path / "plain.pt"
    buf = io.BytesIO()
    genesis.save([genesis.arange(5.0), genesis.ones(2, dtype=genesis.float64)], buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as dst:
            dst.writestr("plain/data.pkl", src.read("archive/data.pkl"))
            dst.writestr("plain/x", b"1")  # shifts the data entries off alignment
            for n in src.namelist():
                if "/data/" in n:
                    dst.writestr("plain/data/" + n.split("/")[-1], src.read(n))
    a, b = genesis.load(path, mmap=True)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and b.tolist() == [1.0, 1.0]


def test_load_mmap_with_map_location_and_errors(tmp_path):
    path = tmp_path / "w.pt"
    genesis.save({"w": genesis.ones(2)}, path)
    seen = []
    got = genesis.load(path, mmap=True, map_location=lambda s, loc: seen.append(loc) or s)
    assert got["w"].tolist() == [1.0, 1.0] and seen == ["cpu"]
    with pytest.raises(ValueError) as e:
        genesis.load(io.BytesIO(path.read_bytes()), mmap=True)
    check_message(e, "load")
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    with pytest.raises(ValueError) as e:
        genesis.load(empty, mmap=True)
    check_message(e, "load")


@requires_cuda
def test_load_mmap_to_cuda_copies(tmp_path):
    path = tmp_path / "c.pt"
    genesis.save(genesis.arange(4.0), path)
    got = genesis.load(path, mmap=True, map_location="cuda")
    assert str(got.device).startswith("cuda") and got.tolist() == [0.0, 1.0, 2.0, 3.0]


@requires_cuda
def test_load_to_cuda_through_pinned_memory(tmp_path):
    """Storages sent to CUDA are read into pinned memory and copied without waiting (Note
    [Loading onto CUDA]): many storages, views of one storage, an empty one, every dtype's bytes,
    used at once on the device and read back equal."""
    rng = np.random.default_rng(5)
    big = genesis.tensor(rng.standard_normal((1 << 20) + 3).astype(np.float32))
    state = {
        "big": big,
        "view": big[7:1000:3],
        "empty": genesis.zeros(0),
        "half": genesis.tensor(rng.standard_normal(1001).astype(np.float16)),
        "ints": genesis.arange(-50, 50, dtype=genesis.int64).reshape(10, 10).t(),
        "flags": genesis.tensor(rng.random(77) < 0.5),
    }
    path = tmp_path / "pinned.pt"
    genesis.save(state, path)
    for where in ("cuda", {"cpu": "cuda:0"}):
        for source in (path, io.BytesIO(path.read_bytes())):
            got = genesis.load(source, map_location=where)
            assert all(str(v.device).startswith("cuda") for v in got.values())
            doubled = got["big"] * 2  # queued right behind the copies
            assert np.array_equal(doubled.cpu().numpy(), big.numpy() * 2)
            assert got["view"].untyped_storage()._cdata == got["big"].untyped_storage()._cdata
            for key, value in state.items():
                assert got[key].dtype == value.dtype and got[key].shape == value.shape
                assert np.array_equal(got[key].cpu().numpy(), value.numpy()), key


@requires_cuda
def test_load_to_cuda_while_the_device_is_busy(tmp_path):
    """Each storage's pinned block waits for its copy before the next entry is read into it
    (Note [Pinned blocks wait for their copies]): equal sizes, the stream a second behind."""
    state = {f"t{i}": genesis.full((1 << 18,), float(i)) for i in range(8)}
    genesis.save(state, tmp_path / "same_sizes.pt")
    a = genesis.randn(8192, 8192, device="cuda")
    busy = [a @ a for _ in range(40)]
    got = genesis.load(tmp_path / "same_sizes.pt", map_location="cuda")
    for i in range(8):
        assert bool((got[f"t{i}"] == float(i)).all()), i
    del busy


# ---------------------------------------------------------------------------------------------
# 6. compared with PyTorch
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_storage_bytes_match_torch(dtype):
    torch = pytest.importorskip("torch")
    t, a = make_tensor((3, 5), dtype, seed=11)
    ref = torch.from_numpy(np.ascontiguousarray(a))
    ref = ref.to(getattr(torch, dtype_id(dtype)))
    buf = io.BytesIO()
    torch.save([ref, ref.t()[1:]], buf)
    (torch_blob,) = data_entries(buf.getvalue()).values()
    raw = saved([t, t.t()[1:]])
    (blob,) = data_entries(raw).values()
    assert blob == torch_blob  # the same bytes, one storage, as torch writes them
    got = loaded(raw)
    buf.seek(0)
    want = torch.load(buf)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape) and g.stride() == w.stride()
        assert g.storage_offset() == w.storage_offset()
        np.testing.assert_array_equal(
            to_numpy(g), w.float().numpy() if dtype_id(dtype) == "bfloat16" else w.numpy()
        )
    assert_same_tensor(got[0], t)


def test_archive_layout_like_torch():
    torch = pytest.importorskip("torch")
    buf = io.BytesIO()
    torch.save({"a": torch.ones(2)}, buf)
    torch_names = set(entries(buf.getvalue()))
    names = set(entries(saved({"a": genesis.ones(2)})))
    assert {"archive/data.pkl", "archive/version"} <= names & torch_names
    assert {n for n in names if n.startswith("archive/data/")} == {"archive/data/0"}
    assert "archive/data/0" in torch_names


# ---------------------------------------------------------------------------------------------
# 7. security and bad input
# ---------------------------------------------------------------------------------------------


def test_load_not_a_zip(tmp_path):
    for raw in [b"", b"hello", b"PK\x03\x04 broken", pickle.dumps([1, 2])]:
        with pytest.raises(ValueError) as e:
            loaded(raw)
        check_message(e, "load")
    path = tmp_path / "x.pt"
    path.write_bytes(b"\x00" * 100)
    with pytest.raises(ValueError) as e:
        genesis.load(path)
    check_message(e, "load")


def test_load_wrong_entries():
    pkl = pickle.dumps(1, protocol=2)
    cases = [
        [],
        [("archive/version", b"1\n")],
        [("data.pkl", pkl)],  # not inside a folder
        [("a/b/data.pkl", pkl)],
        [("a/data.pkl", pkl), ("b/data.pkl", pkl)],
    ]
    for files in cases:
        with pytest.raises(ValueError, match="data.pkl") as e:
            loaded(zip_of(files))
        check_message(e, "load")
    with pytest.warns(UserWarning, match="Duplicate name"):
        raw = zip_of([("archive/data.pkl", pkl), ("archive/data.pkl", pkl)])
    with pytest.raises(ValueError, match="data.pkl") as e:
        loaded(raw)
    check_message(e, "load")
    assert loaded(zip_of([("any name/data.pkl", pkl)])) == 1


def rewritten(raw, change):
    """The archive with change(name, data) -> (name, data) or None (dropped) per entry."""
    files = []
    for name, data in entries(raw).items():
        new = change(name, data)
        if new is not None:
            files.append(new)
    return zip_of(files)


def test_load_missing_storage_entry():
    raw = saved([genesis.ones(3), genesis.zeros(2)])
    dropped = sorted(data_entries(raw))[-1]
    bad = rewritten(raw, lambda n, d: None if n == dropped else (n, d))
    with pytest.raises(ValueError, match="no entry") as e:
        loaded(bad)
    check_message(e, "load")


@pytest.mark.parametrize("delta", [-1, -4, 1])
def test_load_storage_entry_wrong_size(delta):
    raw = saved(genesis.arange(4.0))

    def change(name, data):
        if "/data/" not in name:
            return name, data
        return name, data[:delta] if delta < 0 else data + b"\x00" * delta

    with pytest.raises(ValueError, match="16 stored bytes") as e:
        loaded(rewritten(raw, change))
    check_message(e, "load")


def test_load_compressed_entries():
    raw = saved({"x": genesis.zeros(1000)})
    files = entries(raw)
    for compression in [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]:
        bad = zip_of(files.items(), compression=compression)
        with pytest.raises(ValueError, match="stored") as e:
            loaded(bad)
        check_message(e, "load")
    # Only the storage entry compressed.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data, compress_type=8 if "/data/" in name else 0)
    with pytest.raises(ValueError, match="stored") as e:
        loaded(buf.getvalue())
    check_message(e, "load")


def test_load_compressed_data_pkl():
    # A compressed data.pkl could expand far past the file (a zip bomb): refused too.
    files = entries(saved({"x": genesis.ones(3)}))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data, compress_type=8 if name.endswith("data.pkl") else 0)
    with pytest.raises(ValueError, match="stored") as e:
        loaded(buf.getvalue())
    check_message(e, "load")
    # An unknown compression method of data.pkl.
    raw = bytearray(zip_of(files.items()))
    for sig, at in [(b"PK\x03\x04", 8), (b"PK\x01\x02", 10)]:
        i = raw.find(sig)  # data.pkl is the first entry
        raw[i + at : i + at + 2] = struct.pack("<H", 99)
    with pytest.raises(ValueError) as e:
        loaded(bytes(raw))
    check_message(e, "load")


@pytest.mark.parametrize(
    "pid",
    [
        ("storage", 0, "cpu", 16),
        ("storage", "0", None, 16),
        ("storage", "0", "cpu", -1),
        ("storage", "0", "cpu", 16.0),
        ("storage", "0", "cpu", "16"),
        ("storage", "0", "cpu"),
        ("storage", "0", "cpu", 16, 0),
        ("blob", "0", "cpu", 16),
        ["storage", "0", "cpu", 16],
        "storage",
        0,
        False,
        7,
    ],
    ids=repr,
)
def test_load_malformed_persistent_id(pid):
    raw = crafted(Layout(StorageRef(pid), 0, (4,), (1,)), {"0": bytes(16)})
    with pytest.raises(pickle.UnpicklingError, match="storage reference") as e:
        loaded(raw)
    check_message(e, "load")


def test_load_storage_reference_checked():
    # A reference whose device cannot be placed, and one whose nbytes is not the entry's.
    good = crafted(Layout(StorageRef(("storage", "0", "cpu", 16)), 0, (4,), (1,)), {"0": bytes(16)})
    assert loaded(good).tolist() == [0.0] * 4
    bad = crafted(Layout(StorageRef(("storage", "0", "cpu", 8)), 0, (2,), (1,)), {"0": bytes(16)})
    with pytest.raises(ValueError) as e:
        loaded(bad)
    check_message(e, "load")
    for device in ["nowhere", "cpu:x"]:
        bad = crafted(
            Layout(StorageRef(("storage", "0", device, 16)), 0, (4,), (1,)), {"0": bytes(16)}
        )
        with pytest.raises((ValueError, RuntimeError)) as e:
            loaded(bad)
        check_message(e)
    # Keys that look like paths name no entry.
    for key in ["../0", "/0", "0/", ""]:
        bad = crafted(
            Layout(StorageRef(("storage", key, "cpu", 16)), 0, (4,), (1,)), {"0": bytes(16)}
        )
        with pytest.raises(ValueError, match="no entry") as e:
            loaded(bad)
        check_message(e, "load")


@pytest.mark.parametrize(
    "how",
    ["os.system", "builtins.eval", "builtins.exec", "subprocess.Popen", "getattr", "local"],
)
def test_weights_only_refuses_code(tmp_path, how):
    marker = tmp_path / "pwned"
    calls = {
        "os.system": (os.system, (f"touch {marker}",)),
        "builtins.eval": (builtins.eval, (f"open({str(marker)!r}, 'w').close()",)),
        "builtins.exec": (builtins.exec, (f"open({str(marker)!r}, 'w').close()",)),
        "subprocess.Popen": (subprocess.Popen, (["touch", str(marker)],)),
        "getattr": (getattr, (str, "join")),
        "local": (record_call, ("ran",)),
    }
    func, args = calls[how]
    RAN.clear()
    raw = saved({"w": genesis.ones(2), "evil": [Reduces(func, args)]})
    with pytest.raises(pickle.UnpicklingError, match="weights_only") as e:
        loaded(raw)
    check_message(e, "load")
    with pytest.raises(pickle.UnpicklingError, match="weights_only"):
        loaded(raw, map_location="cpu", weights_only=True)
    assert not marker.exists() and RAN == []


def test_weights_only_false_runs_reduce():
    RAN.clear()
    raw = saved({"sum": Reduces(operator.add, (2, 3)), "flag": Reduces(record_call, ("ran",))})
    with pytest.raises(pickle.UnpicklingError):
        loaded(raw)
    assert RAN == []
    assert loaded(raw, weights_only=False) == {"sum": 5, "flag": "ran"}
    assert RAN == ["ran"]


@pytest.mark.parametrize(
    "pkl",
    [
        b"\x80\x02c__builtin__\neval\nX\x03\x00\x00\x001+1\x85R.",  # Python 2 name of eval
        b"\x80\x02cbuiltins\neval\nX\x03\x00\x00\x001+1\x85R.",
        b"\x80\x02ccopy_reg\n_reconstructor\n.",
        b"\x80\x02cposix\nsystem\n.",
        b"\x80\x04\x8c\x02os\x8c\x06system\x93.",  # STACK_GLOBAL
        b"\x80\x02cgenesis.serialization\n_rebuild_storage\n.",
        b"\x80\x02cgenesis.serialization\nload\n.",
        b"\x80\x02cgenesis._C\n_storage_from_bytes\n.",
        b"\x80\x02cgenesis._C\nTensor\n.",
        b"\x80\x02cgenesis\nfloat32\n.",  # allowed only as genesis._C.float32
        b"\x80\x02c_codecs\ndecode\n.",
    ],
)
def test_weights_only_refuses_globals(pkl):
    with pytest.raises(pickle.UnpicklingError, match="weights_only") as e:
        loaded(zip_of([("archive/data.pkl", pkl)]))
    check_message(e, "load")


def test_weights_only_python2_names():
    # Protocol 2 (genesis.save's default) names Python 2 globals: allowed ones still load.
    ok = {
        b"c__builtin__\nset\n]K\x01a\x85R": {1},
        b"c__builtin__\nxrange\nK\x03\x85R": range(3),
        b"c_codecs\nencode\nX\x03\x00\x00\x00a\xc3\xbfX\x06\x00\x00\x00latin1\x86R": b"a\xff",
        b"c__builtin__\nbytes\n)R": b"",
    }
    for body, want in ok.items():
        got = loaded(zip_of([("archive/data.pkl", b"\x80\x02" + body + b".")]))
        assert got == want and type(got) is type(want)
    # _codecs.encode makes latin1 bytes only.
    for body in [
        b"c_codecs\nencode\nX\x02\x00\x00\x00abX\x03\x00\x00\x00hex\x86R",
        b"c_codecs\nencode\nK\x01X\x06\x00\x00\x00latin1\x86R",
    ]:
        with pytest.raises(pickle.UnpicklingError) as e:
            loaded(zip_of([("archive/data.pkl", b"\x80\x02" + body + b".")]))
        check_message(e, "load")


def test_weights_only_refuses_plain_pickled_storage():
    # A tensor pickled with pickle (not genesis.save) carries its storage inline, rebuilt by a
    # function weights_only does not allow; weights_only=False loads it.
    x = genesis.arange(3.0)
    raw = zip_of([("archive/data.pkl", pickle.dumps(x, protocol=2))])
    with pytest.raises(pickle.UnpicklingError, match="_rebuild_storage") as e:
        loaded(raw)
    check_message(e, "load")
    assert loaded(raw, weights_only=False).tolist() == [0.0, 1.0, 2.0]


def test_weights_only_cannot_patch_classes():
    """Note [weights_only's BUILD]: BUILD on an allowed global would setattr on the class.
    GLOBAL genesis._C.device; (None, {name: value}); BUILD."""
    name = b"_patched_by_a_file"
    pkl = (
        b"\x80\x02cgenesis._C\ndevice\nN}X" + struct.pack("<I", len(name)) + name + b"K\x01s\x86b."
    )
    try:
        with pytest.raises(pickle.UnpicklingError):
            loaded(zip_of([("archive/data.pkl", pkl)]))
        assert not hasattr(genesis._C.device, name.decode())
    finally:
        if hasattr(genesis._C.device, name.decode()):
            delattr(genesis._C.device, name.decode())


def test_weights_only_build_only_sets_tensor_attributes():
    x = genesis.ones(2)
    x.note = "kept"
    assert loaded(saved(x)).note == "kept"
    name = b"\x04\x00\x00\x00note"
    bad = [
        # (state, slotstate) on a tensor: slot state would setattr (requires_grad, grad, data).
        b"\x80\x02cgenesis._C\ndevice\nX\x03\x00\x00\x00cpu\x85R}X" + name + b"K\x01s}\x86b.",
        b"\x80\x02ccollections\nOrderedDict\n)R}X" + name + b"K\x01sb.",  # not a tensor
        b"\x80\x02cgenesis._C\nfloat32\n}X" + name + b"K\x01sb.",
        b"\x80\x02cgenesis.serialization\n_rebuild_tensor\n}X" + name + b"K\x01sb.",
    ]
    for pkl in bad:
        with pytest.raises(pickle.UnpicklingError) as e:
            loaded(zip_of([("archive/data.pkl", pkl)]))
        check_message(e, "load")
    assert not hasattr(genesis.float32, "note")
    assert not hasattr(_rebuild_tensor, "note")


@pytest.mark.parametrize(
    "pkl",
    [
        b"\x80\x02cgenesis._C\ndevice\n)\x81.",  # NEWOBJ: device.__new__(device)
        b"\x80\x04cgenesis._C\ndevice\n)}\x92.",  # NEWOBJ_EX
    ],
    ids=["NEWOBJ", "NEWOBJ_EX"],
)
def test_weights_only_no_uninitialized_objects(pkl):
    # cls.__new__(cls) on a pybind11 class makes an object whose C++ value was never built:
    # reading it (str, ==) reads uninitialized memory (a device of a random type and index).
    with pytest.raises(pickle.UnpicklingError) as e:
        loaded(zip_of([("archive/data.pkl", pkl)]))
    check_message(e, "load")


def with_flag_bits(raw, entry_index, bits):
    """The archive with general-purpose flag bits set on its entry_index-th entry (both headers)."""
    raw = bytearray(raw)
    for sig, at in [(b"PK\x03\x04", 6), (b"PK\x01\x02", 8)]:
        i = -1
        for _ in range(entry_index + 1):
            i = raw.find(sig, i + 1)
        (flags,) = struct.unpack_from("<H", raw, i + at)
        struct.pack_into("<H", raw, i + at, flags | bits)
    return bytes(raw)


@pytest.mark.parametrize("entry_index", [0, 2], ids=["data.pkl", "storage"])
@pytest.mark.parametrize("bits", [0x20, 0x40], ids=["patched", "strong encryption"])
def test_load_zip_flags_unsupported(entry_index, bits):
    # zipfile raises NotImplementedError for these flags; load should say "[load]".
    raw = with_flag_bits(saved(genesis.ones(2)), entry_index, bits)
    with pytest.raises(ValueError) as e:
        loaded(raw)
    check_message(e, "load")


def test_load_zip_encrypted_flag():
    raw = with_flag_bits(saved(genesis.ones(2)), 0, 0x1)
    with pytest.raises((RuntimeError, ValueError), match="encrypted"):
        loaded(raw)


def test_load_malformed_pickle_opcodes():
    # APPEND onto a dict: the stock unpickler raises AttributeError.
    raw = zip_of([("archive/data.pkl", b"\x80\x02}K\x01a.")])
    with pytest.raises((ValueError, pickle.UnpicklingError)) as e:
        loaded(raw)
    check_message(e, "load")


def test_load_huge_bytearray8():
    # BYTEARRAY8 (protocol 5) allocates its length before reading it: a 14-byte pickle asks
    # for 2**62 bytes.
    raw = zip_of([("archive/data.pkl", b"\x80\x05\x96" + struct.pack("<Q", 2**62) + b".")])
    with pytest.raises(pickle.UnpicklingError, match="bytearray of 4611686018427387904 bytes"):
        loaded(raw)  # refused before the allocation (weights_only's opcode table)
    # A bytearray the pickle does hold still loads.
    good = pickle.dumps({"b": bytearray(b"genesis")}, protocol=5)
    assert b"\x96" in good  # BYTEARRAY8
    assert loaded(zip_of([("archive/data.pkl", good)])) == {"b": bytearray(b"genesis")}


@pytest.mark.parametrize(
    "offset, size, stride, nbytes",
    [
        (5, (0,), (1,), 16),  # a zero-size tensor past the end
        (4, (1,), (1,), 16),  # offset at the end
        (0, (5,), (1,), 16),  # size too big
        (0, (2, 3), (3, 1), 16),
        (0, (2, 2), (3, 1), 16),  # strides reach past the end
        (1, (4,), (1,), 16),
        (0, (4,), (1,), 15),  # a partial item at the end
        (-1, (1,), (1,), 16),  # negative offset
        (0, (2,), (-1,), 16),  # negative stride
        (3, (2,), (-1,), 16),
        (0, (-1,), (1,), 16),  # negative size
        (0, (2,), (1, 1), 16),  # strides length mismatch
        (0, (2, 2), (1,), 16),
        (0, (2**62, 2**62), (0, 0), 16),  # numel overflows
        (0, (2**62,), (1,), 16),
        (0, (2, 2), (2**62, 1), 16),  # (size - 1) * stride fine, offset + ... too far
        (0, (3,), (2**62,), 16),  # (size - 1) * stride overflows
        (2**63 - 1, (2,), (1,), 16),  # offset + extent overflows
        (2**63 - 1, (1,), (1,), 16),
        (2**63, (1,), (1,), 16),  # does not fit int64
        (0, (2**63,), (1,), 16),
        (0, (2,), (2**64,), 16),
        (0, (1,) * 65, (1,) * 65, 16),  # more dims than genesis allows?
    ],
)
def test_load_crafted_layout_refused(offset, size, stride, nbytes):
    raw = crafted_tensor(offset, size, stride, nbytes)
    with pytest.raises((ValueError, TypeError, OverflowError)) as e:
        loaded(raw)
    if e.type is ValueError:
        check_message(e, "load")


@pytest.mark.parametrize(
    "offset, size, stride, nbytes, dtype, want",
    [
        (4, (0,), (1,), 16, genesis.float32, []),  # zero-size at the end
        (0, (0, 2**40), (2**40, 1), 16, genesis.float32, []),  # zero-size, huge strides
        (3, (1,), (1,), 16, genesis.float32, None),
        (0, (4, 3), (1, 0), 16, genesis.float32, None),  # stride 0
        (0, (2,), (1,), 17, genesis.float64, None),  # whole items only
        (0, (16,), (1,), 16, genesis.bool, None),
        (1, (), (), 16, genesis.int16, None),
    ],
)
def test_load_crafted_layout_accepted(offset, size, stride, nbytes, dtype, want):
    raw = crafted_tensor(offset, size, stride, nbytes, dtype)
    got = loaded(raw)
    assert got.shape == size and got.stride() == stride and got.storage_offset() == offset
    assert got.dtype is dtype
    if want is not None:
        assert got.tolist() == want
    else:
        expected = np.lib.stride_tricks.as_strided(
            np.frombuffer(bytes(range(nbytes)), dtype=np.uint8)[
                : nbytes // dtype.itemsize * dtype.itemsize
            ].view(np.bool_ if dtype is genesis.bool else np.dtype(dtype_id(dtype)))[offset:],
            shape=size,
            strides=tuple(s * dtype.itemsize for s in stride),
        )
        np.testing.assert_array_equal(to_numpy(got), expected)


def test_load_crafted_rebuild_bad_arguments():
    ref = StorageRef(("storage", "0", "cpu", 16))
    cases = [
        (ref, 0, (4,), (1,), None, False),  # not a dtype
        (ref, 0, (4,), (1,), "no such dtype", False),
        (ref, 0, 4, (1,), genesis.float32, False),  # size not a sequence
        (ref, "0", (4,), (1,), genesis.float32, False),
        (b"\x00" * 16, 0, (4,), (1,), genesis.float32, False),  # bytes, not a storage
        (None, 0, (4,), (1,), genesis.float32, False),
        (ref, 0, (4,), (1,)),  # too few arguments
    ]
    for args in cases:

        class Bad:
            def __reduce__(self, args=args):
                return (_rebuild_tensor, args)

        with pytest.raises((TypeError, ValueError)):
            loaded(crafted(Bad(), {"0": bytes(16)}))


# ---------------------------------------------------------------------------------------------
# 8. fuzzing: damaged archives raise, never crash
# ---------------------------------------------------------------------------------------------

FUZZ_ERRORS = (
    ValueError,
    RuntimeError,
    pickle.UnpicklingError,
    zipfile.BadZipFile,
    EOFError,
    KeyError,
    TypeError,
    IndexError,
    OverflowError,
    UnicodeDecodeError,
    struct.error,
)


def fuzz_object():
    x = genesis.arange(12.0).reshape(3, 4)
    return {
        "w": x,
        "t": x.t()[1:],
        "b": genesis.tensor([True, False]),
        "h": genesis.ones(2, dtype=genesis.bfloat16),
        "od": collections.OrderedDict(k=genesis.arange(3, dtype=genesis.int16)),
        "plain": [1, 2.5, "s", None, (3, {4})],
        "dt": genesis.float16,
        "dev": genesis.device("cpu"),
    }


FUZZ_ARCHIVE = saved(fuzz_object())
FUZZ_PKL = next(d for n, d in entries(FUZZ_ARCHIVE).items() if n.endswith("data.pkl"))
FUZZ_DATA = {n: d for n, d in entries(FUZZ_ARCHIVE).items() if not n.endswith("data.pkl")}


def try_load(raw):
    try:
        return genesis.load(io.BytesIO(raw))
    except FUZZ_ERRORS:
        return None


def test_fuzz_base_archive_loads():
    assert_same_obj(loaded(FUZZ_ARCHIVE), fuzz_object())


mutations = st.lists(st.tuples(st.integers(0, 2**20), st.integers(1, 255)), min_size=1, max_size=6)


@settings(max_examples=50, deadline=None, derandomize=True)
@given(flips=mutations, cut=st.none() | st.integers(0, 2**20))
def test_fuzz_archive_bytes(flips, cut):
    raw = bytearray(FUZZ_ARCHIVE)
    for at, bits in flips:
        raw[at % len(raw)] ^= bits
    if cut is not None:
        raw = raw[: cut % (len(raw) + 1)]
    try_load(bytes(raw))


@settings(max_examples=50, deadline=None, derandomize=True)
@given(flips=mutations, cut=st.none() | st.integers(0, 2**20))
def test_fuzz_data_pkl(flips, cut):
    # Damage the pickle itself inside a well-formed archive (valid CRCs).
    pkl = bytearray(FUZZ_PKL)
    for at, bits in flips:
        pkl[at % len(pkl)] ^= bits
    if cut is not None:
        pkl = pkl[: cut % (len(pkl) + 1)]
    try_load(zip_of([("archive/data.pkl", bytes(pkl)), *FUZZ_DATA.items()]))


@settings(max_examples=50, deadline=None, derandomize=True)
@given(
    offset=st.integers(-(2**63), 2**63 - 1),
    size=st.lists(st.integers(-2, 2**62), max_size=4),
    stride=st.lists(st.integers(-2, 2**62), max_size=4),
    nbytes=st.integers(0, 64),
    dtype=st.sampled_from(DTYPES),
)
def test_fuzz_crafted_layouts(offset, size, stride, nbytes, dtype):
    raw = crafted_tensor(offset, size, stride, nbytes, dtype)
    got = try_load(raw)
    if got is None:
        return
    # Accepted: every element lies inside the storage, so reading them all is safe.
    assert got.shape == tuple(size)
    if got.numel() > 0:
        last = offset + sum((n - 1) * s for n, s in zip(size, stride))
        assert (last + 1) * dtype.itemsize <= nbytes
        assert len(to_numpy(got).reshape(-1)) == got.numel()


# ---------------------------------------------------------------------------------------------
# 9. UntypedStorage
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_storage_pickle(device, protocol):
    x, a = make_tensor((5,), genesis.int32, device, seed=3)
    s = x.untyped_storage()
    got = pickle.loads(pickle.dumps(s, protocol=protocol))
    assert type(got) is type(s)
    assert got.nbytes() == 20 and str(got.device) == str(s.device)
    assert got._to_bytes() == s._to_bytes() == a.tobytes()
    assert got._cdata != s._cdata
    p, q = pickle.loads(pickle.dumps([s, s], protocol=protocol))
    assert p is q
    empty = genesis.zeros(0, device=device).untyped_storage()
    assert pickle.loads(pickle.dumps(empty, protocol=protocol)).nbytes() == 0


def test_storage_copies(device):
    x = genesis.arange(4, dtype=genesis.uint8, device=device)
    s = x.untyped_storage()
    assert s._cdata == x[1:].untyped_storage()._cdata  # one identity for every handle
    for got in [copy.deepcopy(s), copy.copy(s)]:
        assert got._to_bytes() == bytes([0, 1, 2, 3]) and got._cdata != s._cdata
        assert str(got.device) == str(s.device)
    d = copy.deepcopy(s)
    x[0] = 9
    assert d._to_bytes() == bytes([0, 1, 2, 3])
    p, q = copy.deepcopy([s, s])
    assert p is q


def test_storage_save_load(device):
    x = genesis.arange(4, dtype=genesis.int16, device=device)
    got = loaded(saved({"s": x.untyped_storage(), "x": x}))
    assert got["s"]._to_bytes() == x.untyped_storage()._to_bytes()
    assert got["s"]._cdata == sid(got["x"])
    assert str(got["s"].device) == str(x.device)


@pytest.mark.skipif(HAS_CUDA, reason="checks the error without a CUDA device")
def test_load_cuda_archive_without_cuda():
    raw = crafted(
        Layout(StorageRef(("storage", "0", "cuda:0", 16)), 0, (4,), (1,)), {"0": bytes(16)}
    )
    with pytest.raises((RuntimeError, ValueError)) as e:
        loaded(raw)
    check_message(e)
    assert loaded(raw, map_location="cpu").tolist() == [0.0] * 4
    assert loaded(raw, map_location={"cuda:0": "cpu"}).tolist() == [0.0] * 4


def test_storage_from_bytes_takes_c_contiguous_buffers_only():
    from genesis._C import _storage_from_bytes

    data = np.arange(12, dtype=np.uint8).reshape(3, 4)
    for buf in [data.tobytes(), bytearray(data.tobytes()), memoryview(data), data]:
        s = _storage_from_bytes(buf, "cpu")
        assert s.nbytes() == 12 and s._to_bytes() == data.tobytes()
    wide = np.arange(3, dtype=np.float32)  # items of 4 bytes: their bytes, in order
    assert _storage_from_bytes(wide, "cpu")._to_bytes() == wide.tobytes()
    for strided in [data.T, data[:, ::2], memoryview(data.T)]:
        with pytest.raises(ValueError) as e:
            _storage_from_bytes(strided, "cpu")
        check_message(e, "load")
        assert "C-contiguous" in str(e.value)
    with pytest.raises(TypeError) as e:
        _storage_from_bytes([1, 2, 3], "cpu")
    check_message(e, "load")


def test_loaded_tensors_are_freed_without_the_garbage_collector(tmp_path, device):
    # load()'s unpickler sits in a reference cycle; the storages it built must not (a 4 GiB
    # checkpoint loaded in a loop onto a GPU held 36 GiB until the collector ran).
    import gc

    import genesis.memory_profiler as mp

    path = str(tmp_path / "c.pt")
    genesis.save({f"w{i}": genesis.ones(1000, device=device) for i in range(3)}, path)
    gc.collect()
    gc.disable()
    try:
        with mp.record(stacks=None):
            x = genesis.load(path)["w0"]
            del x
        where = "cpu" if device == "cpu" else "cuda:0"
        events = mp.get_timeline().events
        kinds = [e.kind for e in events if e.device == where and e.size >= 4000]
    finally:
        gc.enable()
    assert kinds.count("alloc") == 3 and kinds.count("free") == 3, kinds


@settings(max_examples=50, deadline=None, derandomize=True)
@given(flips=mutations, cut=st.none() | st.integers(0, 2**20))
def test_fuzz_archive_file(flips, cut):
    # The same damage through a file: entries are read with positioned reads there (Note
    # [Reading stored entries]), not through zipfile.
    raw = bytearray(FUZZ_ARCHIVE)
    for at, bits in flips:
        raw[at % len(raw)] ^= bits
    if cut is not None:
        raw = raw[: cut % (len(raw) + 1)]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "damaged.pt")
        with open(path, "wb") as f:
            f.write(raw)
        try:
            genesis.load(path)
        except FUZZ_ERRORS:
            pass


@pytest.mark.parametrize("threaded", [False, True])
@pytest.mark.parametrize("source", ["path", "bytesio"])
def test_a_damaged_data_entry_fails_its_crc(tmp_path, monkeypatch, source, threaded):
    if threaded:  # the check of large entries runs in a thread (Note [Reading stored entries])
        monkeypatch.setattr(genesis.serialization._CrcChecks, "THREADED_FROM", 0)
    path = tmp_path / "a.pt"
    genesis.save({"w": genesis.arange(1000.0)}, path)
    (name,) = [n for n in _data_starts(path) if "/data/" in n]
    raw = bytearray(path.read_bytes())
    raw[_data_starts(path)[name] + 123] ^= 0x10  # one bit of one float
    path.write_bytes(raw)
    with pytest.raises(ValueError, match=r"\[load\] entry .* is damaged"):
        genesis.load(path if source == "path" else io.BytesIO(bytes(raw)))


def test_reading_from_a_file_and_from_memory_agree(tmp_path, device):
    path = tmp_path / "a.pt"
    rng = np.random.default_rng(5)
    obj = {
        "big": genesis.from_numpy(rng.standard_normal(300_000).astype(np.float32)),
        "small": genesis.tensor([1, 2, 3], dtype=genesis.int8),
        "empty": genesis.empty(0),
        "half": genesis.from_numpy(rng.standard_normal((7, 9)).astype(np.float16)),
    }
    genesis.save(obj, path)
    a = genesis.load(path, map_location=device)
    b = genesis.load(io.BytesIO(path.read_bytes()), map_location=device)
    for k, v in obj.items():
        assert str(a[k].device).startswith(device) and str(b[k].device).startswith(device)
        np.testing.assert_array_equal(a[k].cpu().numpy(), v.numpy())
        np.testing.assert_array_equal(b[k].cpu().numpy(), v.numpy())
