"""PyTorch's checkpoints: genesis.load reads what torch.save writes (its zip archive and its
legacy format), and torch.load(weights_only=True) reads what genesis.save writes, each without
the other library (Note [PyTorch checkpoints] in genesis/_torch_checkpoint.py).

1. torch.save -> genesis.load: every dtype, layouts, shared storages, values, Parameters,
   state_dicts, map_location, mmap, byte order
2. the legacy format
3. genesis.save -> torch.load(weights_only=True)
4. each without the other library installed (child processes)
5. hostile files: refused, nothing runs
6. damaged files: a "[load]" error, never a crash
"""

import builtins
import collections
import io
import json
import os
import pickle
import random
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from conftest import DTYPES, HAS_CUDA, dtype_id, make_tensor, requires_cuda, to_numpy

import genesis
from genesis._C import _storage_from_bytes, _tensor_on_storage

torch = pytest.importorskip("torch")

# What genesis.load raises for a file it refuses (Note [Load budget]); the message starts "[load]".
LOAD_ERRORS = (pickle.UnpicklingError, ValueError, TypeError, OverflowError, RuntimeError)
# PyTorch's dtypes that genesis has no dtype for.
MISSING_DTYPES = [
    "complex64",
    "complex128",
    "complex32",
    "uint16",
    "uint32",
    "uint64",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
]
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def torch_dtype(d):
    return getattr(torch, dtype_id(d))


def torch_saved(obj, legacy=False):
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=not legacy)
    return buf.getvalue()


def genesis_saved(obj, **kwargs):
    buf = io.BytesIO()
    genesis.save(obj, buf, **kwargs)
    return buf.getvalue()


def gload(raw, **kwargs):
    return genesis.load(io.BytesIO(raw), **kwargs)


def tload(raw, **kwargs):
    return torch.load(io.BytesIO(raw), weights_only=True, **kwargs)


def sid(t):
    return t.untyped_storage()._cdata


def torch_values(t):
    """A NumPy copy of a torch tensor (bfloat16 as float32, as to_numpy does genesis's)."""
    t = t.detach()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy().copy()


def assert_like_torch(got, want):
    """A genesis tensor with a torch tensor's dtype, layout and values."""
    assert isinstance(got, genesis.Tensor), type(got)
    assert dtype_id(got.dtype) == str(want.dtype).replace("torch.", "")
    assert got.shape == tuple(want.shape)
    assert got.stride() == want.stride()
    assert got.storage_offset() == want.storage_offset()
    assert got.requires_grad == want.requires_grad
    np.testing.assert_array_equal(to_numpy(got.detach()), torch_values(want))


def assert_like_genesis(got, want):
    """A torch tensor with a genesis tensor's dtype, layout and values."""
    assert isinstance(got, torch.Tensor), type(got)
    assert_like_torch(want, got)


def torch_layouts(d):
    """Torch tensors of many layouts over two storages: name -> tensor."""
    base = torch.from_numpy(np.ascontiguousarray(make_tensor((4, 6), d, seed=1)[1]))
    row = torch.from_numpy(np.ascontiguousarray(make_tensor((6,), d, seed=2)[1]))
    base, row = base.to(torch_dtype(d)), row.to(torch_dtype(d))
    return {
        "contiguous": base,
        "0-d": base[2, 3],
        "zero-size": base[:0],
        "zero-size view at the end": base.reshape(-1)[24:],
        "transpose": base.t(),
        "step slices": base[::2, 1::3],
        "storage offset": base[1:, 2:],
        "expanded": row.expand(3, 6),
        "expanded 0-d": row[4].expand(2, 3),
        "transposed slice": base[1:3, ::2].t(),
        "row": row,
    }


def genesis_layouts(d):
    base, _ = make_tensor((4, 6), d, seed=1)
    row, _ = make_tensor((6,), d, seed=2)
    return {
        "contiguous": base,
        "0-d": base[2, 3],
        "zero-size": base[:0],
        "zero-size view at the end": base.reshape(-1)[24:],
        "transpose": base.t(),
        "step slices": base[::2, 1::3],
        "storage offset": base[1:, 2:],
        "expanded": row.expand(3, 6),
        "expanded 0-d": row[4].expand(2, 3),
        "transposed slice": base[1:3, ::2].t(),
        "row": row,
        "alone 0-d": make_tensor((), d, seed=3)[0],
        "alone empty": genesis.zeros(0, 3, dtype=d),
    }


def zip_like_torch(pkl, storages=(), stem="archive", byteorder=b"little"):
    """An archive laid out as torch.save lays it out around a data.pkl."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(f"{stem}/data.pkl", pkl)
        if byteorder is not None:
            zf.writestr(f"{stem}/byteorder", byteorder)
        for key, data in storages:
            zf.writestr(f"{stem}/data/{key}", data)
        zf.writestr(f"{stem}/version", b"3\n")
    return buf.getvalue()


def entries(raw):
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def rewritten(raw, change):
    """The archive with change(name, data) -> data for each entry (order kept)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for name, data in entries(raw).items():
            zf.writestr(name, change(name, data))
    return buf.getvalue()


class StorageRef:
    """Stands for a storage in a crafted data.pkl: pickled as torch's persistent id."""

    def __init__(self, storage_class, key, location, numel, legacy=False):
        self.pid = ("storage", storage_class, key, location, numel)
        if legacy:
            self.pid += (None,)


class RefPickler(pickle.Pickler):
    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, StorageRef) else None


def crafted_pickle(obj):
    buf = io.BytesIO()
    RefPickler(buf, protocol=2).dump(obj)
    return buf.getvalue()


class Reduces:
    """Pickles as func(*args): what a hostile file asks the loader to run."""

    def __init__(self, func, args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


def v2(ref, offset, size, stride, requires_grad=False):
    """Pickles as torch._utils._rebuild_tensor_v2 over a crafted storage reference."""
    args = (ref, offset, tuple(size), tuple(stride), requires_grad, collections.OrderedDict())
    return Reduces(torch._utils._rebuild_tensor_v2, args)


def legacy_stream(obj_pickle, keys=(), records=b"", magic=MAGIC_NUMBER):
    """A legacy file around an object's pickle."""
    info = {"protocol_version": 1001, "little_endian": True, "type_sizes": {"short": 2}}
    parts = [pickle.dumps(magic, 2), pickle.dumps(1001, 2), pickle.dumps(info, 2)]
    return b"".join(parts) + obj_pickle + pickle.dumps(list(keys), 2) + records


# ---------------------------------------------------------------------------------------------
# 1. torch.save -> genesis.load
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_torch_tensors_of_every_dtype_and_layout(dtype, legacy):
    want = torch_layouts(dtype)
    got = gload(torch_saved(want, legacy=legacy))
    assert list(got) == list(want)
    for name, t in want.items():
        try:
            assert_like_torch(got[name], t)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None
    # Views of one torch storage are views of one genesis storage, and only those.
    base_views = [k for k in want if k not in ("expanded", "expanded 0-d", "row")]
    assert len({sid(got[k]) for k in base_views}) == 1
    assert sid(got["row"]) == sid(got["expanded"]) == sid(got["expanded 0-d"])
    assert sid(got["row"]) != sid(got["contiguous"])
    # Writing one writes the other.
    one = genesis.ones((), dtype=dtype)
    got["storage offset"][0, 0] = one
    assert got["contiguous"][1, 2].item() == one.item()
    got["row"][4] = genesis.zeros((), dtype=dtype)
    assert got["expanded 0-d"][1, 2].item() == genesis.zeros((), dtype=dtype).item()


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.parametrize("name", MISSING_DTYPES)
def test_torch_dtypes_genesis_lacks_say_so(name):
    t = torch.zeros(3, dtype=getattr(torch, name))
    for raw in [torch_saved({"w": t}), torch_saved({"dtype": getattr(torch, name)})]:
        with pytest.raises(pickle.UnpicklingError, match=rf"^\[load\] .*no dtype {name}"):
            gload(raw)
    # Its storage saved alone is bytes, and loads as such.
    s = gload(torch_saved(t.untyped_storage()))
    assert isinstance(s, genesis.UntypedStorage) and s.nbytes() == t.untyped_storage().nbytes()


def test_torch_plain_values_dtypes_devices_and_sizes():
    obj = collections.OrderedDict(
        dtypes=[torch_dtype(d) for d in DTYPES],
        devices=[torch.device("cpu"), torch.device("cuda", 1), torch.device("cuda")],
        size=torch.Size([2, 3]),
        empty_size=torch.Size([]),
        plain={
            "int": 7,
            "big": 2**70,
            "neg": -3,
            "float": 2.5,
            "str": "h\u00e9llo",
            "none": None,
            "bools": (True, False),
            "bytes": b"\x00\xff ab",
            "bytearray": bytearray(b"\x01\x02"),
            "complex": 1.5 - 2j,
            "set": {1, 2, 3},
            "nested": [[], {}, (), [{"k": (1, [2])}]],
            3: "int key",
            (1, 2): "tuple key",
        },
        counter=collections.Counter("abracadabra"),
    )
    got = gload(torch_saved(obj))
    assert type(got) is collections.OrderedDict and list(got) == list(obj)
    assert got["dtypes"] == DTYPES and all(a is b for a, b in zip(got["dtypes"], DTYPES))
    assert [str(d) for d in got["devices"]] == ["cpu", "cuda:1", "cuda"]
    assert all(isinstance(d, genesis.device) for d in got["devices"])
    assert type(got["size"]) is genesis.Size and got["size"] == (2, 3)
    assert type(got["empty_size"]) is genesis.Size and got["empty_size"] == ()
    assert got["plain"] == obj["plain"]
    for k, v in obj["plain"].items():
        assert type(got["plain"][k]) is type(v), k
    assert type(got["counter"]) is collections.Counter and got["counter"] == obj["counter"]


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_torch_parameters_and_attributes(legacy):
    p = torch.nn.Parameter(torch.arange(4.0))
    frozen = torch.nn.Parameter(torch.ones(2), requires_grad=False)
    with_attr = torch.nn.Parameter(torch.zeros(3))
    with_attr.tag = "kept"
    leaf = torch.ones(2, requires_grad=True)
    plain = torch.arange(3.0)
    plain.note = {"k": [1, 2]}
    got = gload(torch_saved([p, frozen, with_attr, leaf, plain, p], legacy=legacy))
    assert type(got[0]) is genesis.nn.Parameter and got[0].requires_grad
    assert got[0].tolist() == [0.0, 1.0, 2.0, 3.0] and got[5] is got[0]
    assert type(got[1]) is genesis.nn.Parameter and not got[1].requires_grad
    assert type(got[2]) is genesis.nn.Parameter and got[2].tag == "kept"
    assert type(got[3]) is genesis.Tensor and got[3].requires_grad and got[3].is_leaf
    assert type(got[4]) is genesis.Tensor and got[4].note == {"k": [1, 2]}
    assert not got[4].requires_grad


def test_torch_storages_saved_alone():
    x = torch.arange(6.0)
    a, b = gload(torch_saved([x.untyped_storage(), torch.ones(3, dtype=torch.int16)]))
    assert isinstance(a, genesis.UntypedStorage) and a._to_bytes() == x.numpy().tobytes()
    assert b.dtype is genesis.int16 and b.tolist() == [1, 1, 1]
    with pytest.warns(UserWarning, match="TypedStorage"):
        typed = x.storage()
    t, s = gload(torch_saved([x, typed]))
    assert isinstance(s, genesis.UntypedStorage) and s._cdata == sid(t)
    assert s._to_bytes() == x.numpy().tobytes()


def small_models():
    def build(nn):
        return nn.Sequential(
            nn.Conv2d(3, 4, 3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(4 * 5 * 5, 3),
        )

    torch.manual_seed(0)
    return build(torch.nn), build(genesis.nn)


def compare_models(torch_model, genesis_model):
    torch_model.eval()
    genesis_model.eval()
    x = np.random.default_rng(3).standard_normal((2, 3, 5, 5)).astype(np.float32)
    with torch.no_grad():
        want = torch_model(torch.from_numpy(x)).numpy()
    got = genesis_model(genesis.tensor(x)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_torch_state_dict_into_a_genesis_model(legacy):
    torch_model, genesis_model = small_models()
    with torch.no_grad():  # running statistics that are not the defaults
        torch_model[1].running_mean.uniform_(-1, 1)
        torch_model[1].running_var.uniform_(0.5, 2)
        torch_model[1].num_batches_tracked.fill_(7)
    state = gload(torch_saved(torch_model.state_dict(), legacy=legacy))
    assert list(state) == list(torch_model.state_dict())
    assert state["1.num_batches_tracked"].shape == () and state["1.num_batches_tracked"].item() == 7
    genesis_model.load_state_dict(state)
    compare_models(torch_model, genesis_model)


def with_location(raw, location):
    """A torch archive of CPU tensors whose references name another location (protocol 2: the
    pickle's BINUNICODE 'cpu' strings rewritten, lengths and all)."""
    old = b"X\x03\x00\x00\x00cpu"
    new = b"X" + struct.pack("<I", len(location)) + location.encode()
    return rewritten(raw, lambda n, d: d.replace(old, new) if n.endswith("data.pkl") else d)


def test_torch_map_location():
    x = torch.arange(6.0).reshape(2, 3)
    raw = with_location(torch_saved([x, x.t()]), "cuda:0")
    for where in ["cpu", genesis.device("cpu"), {"cuda:0": "cpu"}]:
        a, b = gload(raw, map_location=where)
        assert str(a.device) == "cpu" and sid(a) == sid(b)
        assert a.tolist() == x.tolist() and b.tolist() == x.t().tolist()
    seen = []
    a, _ = gload(raw, map_location=lambda s, loc: seen.append(loc) or s)
    assert seen == ["cuda:0"] and a.tolist() == x.tolist()
    if HAS_CUDA:
        a, b = gload(raw)
        assert str(a.device).startswith("cuda") and sid(a) == sid(b)
    else:
        with pytest.raises((RuntimeError, ValueError), match=r"^\[load\]"):
            gload(raw)


@requires_cuda
@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_torch_file_to_cuda(legacy):
    x = torch.arange(6.0).reshape(2, 3)
    for where in ["cuda", {"cpu": "cuda:0"}]:
        a, b = gload(torch_saved([x, x.t()], legacy=legacy), map_location=where)
        assert str(a.device).startswith("cuda") and sid(a) == sid(b)
        assert b.cpu().tolist() == x.t().tolist()


def test_torch_file_mmap(tmp_path):
    path = tmp_path / "t.pt"
    x = torch.arange(12.0).reshape(3, 4)
    torch.save({"x": x, "xt": x.t(), "i": torch.arange(5, dtype=torch.int16)}, path)
    got = genesis.load(path, mmap=True)
    assert_like_torch(got["xt"], x.t())
    assert sid(got["x"]) == sid(got["xt"]) and got["i"].tolist() == list(range(5))
    with zipfile.ZipFile(path) as zf, open(path, "rb") as f:
        starts = {}
        for info in zf.infolist():
            f.seek(info.header_offset)
            fields = struct.unpack("<IHHHHHIIIHH", f.read(30))
            starts[info.filename] = info.header_offset + 30 + fields[9] + fields[10]
    # Laid over one map of the file (torch aligns its entries to 64 bytes, as genesis does).
    gap = starts["t/data/1"] - starts["t/data/0"]
    assert got["i"].data_ptr() - got["x"].data_ptr() == gap
    before = path.read_bytes()
    got["x"].add_(1.0)
    assert path.read_bytes() == before  # copy-on-write


def big_endian(raw, itemsizes):
    """The torch archive as a big-endian machine writes it: byteorder "big", each storage's
    items reversed (itemsizes: key -> item size)."""

    def change(name, data):
        if name.endswith("/byteorder"):
            return b"big"
        key = name.rsplit("/", 1)[1]
        if "/data/" in name and itemsizes[key] > 1:
            return np.frombuffer(data, f"u{itemsizes[key]}").byteswap().tobytes()
        return data

    return rewritten(raw, change)


def test_torch_big_endian_archive(tmp_path):
    obj = [
        torch.arange(6.0).reshape(2, 3).t(),
        torch.arange(-3, 3, dtype=torch.int16),
        torch.tensor([1.5, -2.25], dtype=torch.float64),
        torch.tensor([True, False]),
        torch.tensor([0.5, 3.0], dtype=torch.bfloat16),
    ]
    raw = big_endian(torch_saved(obj), {"0": 4, "1": 2, "2": 8, "3": 1, "4": 2})
    assert all(a.equal(b) for a, b in zip(tload(raw), obj))  # as torch reads it
    for got in [gload(raw), gload(raw, map_location="cpu")]:
        for g, w in zip(got, obj):
            assert_like_torch(g, w)
    path = tmp_path / "big.pt"
    path.write_bytes(raw)
    for g, w in zip(genesis.load(path, mmap=True), obj):  # read, never mapped
        assert_like_torch(g, w)
    with pytest.raises(ValueError, match=r"^\[load\] entry 'archive/byteorder'"):
        gload(rewritten(raw, lambda n, d: b"middle" if n.endswith("byteorder") else d))


def test_torch_archive_without_byteorder_is_little():
    files = entries(torch_saved(torch.arange(3.0)))
    storages = [(n.rsplit("/", 1)[1], d) for n, d in files.items() if "/data/" in n]
    raw = zip_like_torch(files["archive/data.pkl"], storages, byteorder=None)
    assert "archive/byteorder" not in entries(raw)
    assert gload(raw).tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize(
    "make, what",
    [
        (lambda: torch.eye(2).to_sparse(), "sparse"),
        (lambda: torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.quint8), "quantized"),
        (lambda: torch.empty(2, device="meta"), "meta"),
        (lambda: torch._neg_view(torch.tensor([1.0, 2.0])), "neg"),
        (lambda: torch.strided, "layout"),
    ],
    ids=["sparse", "quantized", "meta", "neg bit", "layout"],
)
@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor")
def test_torch_objects_genesis_cannot_hold(make, what):
    with pytest.raises(pickle.UnpicklingError, match=rf"^\[load\] genesis cannot load .*{what}"):
        gload(torch_saved(make()))


# ---------------------------------------------------------------------------------------------
# 2. the legacy format
# ---------------------------------------------------------------------------------------------


def test_legacy_file_layout_is_what_genesis_expects():
    raw = torch_saved(torch.arange(3, dtype=torch.int16), legacy=True)
    assert pickle.loads(raw) == MAGIC_NUMBER
    assert raw.endswith(struct.pack("<q", 3) + struct.pack("<3h", 0, 1, 2))


def test_legacy_from_a_path_and_options(tmp_path):
    path = tmp_path / "old.pt"
    x = torch.arange(10.0)
    obj = {"x": x, "v": x[2:5], "m": torch.nn.Parameter(x[:2].clone())}
    torch.save(obj, path, _use_new_zipfile_serialization=False)
    for got in [genesis.load(path), genesis.load(str(path), weights_only=False)]:
        assert_like_torch(got["v"], x[2:5])
        assert sid(got["x"]) == sid(got["v"]) and type(got["m"]) is genesis.nn.Parameter
    seen = []
    got = genesis.load(path, map_location=lambda s, loc: seen.append((s.nbytes(), loc)) or s)
    assert sorted(seen) == [(8, "cpu"), (40, "cpu")] and got["v"].tolist() == [2.0, 3.0, 4.0]
    assert genesis.load(path, map_location={"cpu": "cpu"})["x"].tolist() == x.tolist()
    with pytest.raises(ValueError, match=r"^\[load\] mmap=True needs a zip archive"):
        genesis.load(path, mmap=True)


def test_legacy_full_model_refused_under_weights_only():
    raw = torch_saved(torch.nn.Linear(2, 2), legacy=True)
    with pytest.raises(pickle.UnpicklingError, match=r"^\[load\] .*torch\.nn\.modules"):
        gload(raw)


# ---------------------------------------------------------------------------------------------
# 3. genesis.save -> torch.load(weights_only=True)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_genesis_tensors_of_every_dtype_and_layout_in_torch(dtype):
    want = genesis_layouts(dtype)
    got = tload(genesis_saved(want))
    assert list(got) == list(want)
    for name, t in want.items():
        try:
            assert_like_genesis(got[name], t)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None

    def ptr(k):
        return got[k].untyped_storage().data_ptr()

    base_views = [k for k in want if k not in ("expanded", "expanded 0-d", "row", "alone 0-d")]
    base_views.remove("alone empty")
    assert len({ptr(k) for k in base_views}) == 1
    assert ptr("row") == ptr("expanded") != ptr("contiguous")
    got["storage offset"][0, 0] = 1
    assert got["contiguous"][1, 2].item() == 1
    # And genesis reads its file back the same.
    back = gload(genesis_saved(want))
    for name, t in want.items():
        assert back[name].dtype is t.dtype and back[name].stride() == t.stride()


def test_genesis_values_in_torch():
    p = genesis.nn.Parameter(genesis.arange(3.0))
    frozen = genesis.nn.Parameter(genesis.ones(2), requires_grad=False)
    tagged = genesis.arange(2.0)
    tagged.tag = "kept"
    leaf = genesis.ones(2, requires_grad=True)
    obj = {
        "params": [p, frozen, p],
        "tagged": tagged,
        "leaf": leaf,
        "dtypes": list(DTYPES),
        "devices": [genesis.device("cpu"), genesis.device("cuda:1"), genesis.device("cuda")],
        "size": genesis.Size([4, 5]),
        "od": collections.OrderedDict(a=1, b=[2.5, None, "s", b"\x00\xff", True]),
        "more": ({1, 2}, 3 - 1j, bytearray(b"ab"), collections.Counter("aab"), -(2**70)),
    }
    got = tload(genesis_saved(obj))
    a, b, c = got["params"]
    assert type(a) is torch.nn.Parameter and a.requires_grad and a.tolist() == [0.0, 1.0, 2.0]
    assert c is a
    assert type(b) is torch.nn.Parameter and not b.requires_grad
    assert got["tagged"].tag == "kept" and got["tagged"].tolist() == [0.0, 1.0]
    assert got["leaf"].requires_grad and got["leaf"].is_leaf
    assert got["dtypes"] == [torch_dtype(d) for d in DTYPES]
    assert got["devices"] == [torch.device("cpu"), torch.device("cuda", 1), torch.device("cuda")]
    assert type(got["size"]) is torch.Size and got["size"] == (4, 5)
    assert got["od"] == obj["od"] and type(got["od"]) is collections.OrderedDict
    assert got["more"] == obj["more"]


def test_genesis_archive_entries():
    raw = genesis_saved({"w": genesis.ones(2), "b": genesis.zeros(3, dtype=genesis.int8)})
    files = entries(raw)
    assert set(files) == {
        "archive/data.pkl",
        "archive/version",
        "archive/byteorder",
        "archive/data/0",
        "archive/data/1",
    }
    assert files["archive/version"] == b"3\n"
    assert files["archive/byteorder"] == sys.byteorder.encode()
    # Only PyTorch's names: torch.load needs no genesis.
    assert b"genesis" not in files["archive/data.pkl"]
    assert b"torch._utils\n_rebuild_tensor_v2" in files["archive/data.pkl"]
    assert b"torch\nFloatStorage" in files["archive/data.pkl"]


def test_genesis_storage_of_two_dtypes_in_torch():
    # A storage seen as two dtypes (or not whole items of its first) is saved as bytes, each
    # tensor with its dtype (_rebuild_tensor_v3): torch.save refuses those, torch.load reads them.
    x = genesis.arange(6.0)
    as_int = _tensor_on_storage(x.untyped_storage(), 2, [3], [1], genesis.int32)
    seventeen = _storage_from_bytes(bytes(range(17)), "cpu")
    odd = _tensor_on_storage(seventeen, 0, [2], [1], genesis.float64)
    obj = [x.untyped_storage(), x, as_int, odd]
    raw = genesis_saved(obj)
    got = tload(raw)
    assert_like_genesis(got[1], x)
    assert_like_genesis(got[2], as_int)
    assert_like_genesis(got[3], odd)
    assert got[1].untyped_storage().data_ptr() == got[2].untyped_storage().data_ptr()
    back = gload(raw)
    assert back[0]._cdata == sid(back[1]) == sid(back[2])
    assert back[2].tolist() == as_int.tolist() and back[3].tolist() == odd.tolist()


def test_genesis_state_dict_into_a_torch_model():
    torch_model, genesis_model = small_models()
    state = genesis_model.state_dict()
    state["1.running_mean"].copy_(genesis.tensor([0.5, -0.5, 0.25, 0.0]))
    state["1.num_batches_tracked"].fill_(3)
    got = tload(genesis_saved(state))
    assert list(got) == list(state)
    torch_model.load_state_dict(got)
    assert torch_model[1].num_batches_tracked.item() == 3
    compare_models(torch_model, genesis_model)


def test_genesis_file_torch_mmap(tmp_path):
    path = tmp_path / "g.pt"
    x = genesis.arange(20.0).reshape(4, 5)
    genesis.save({"x": x, "t": x.t()[1:], "i": genesis.arange(3, dtype=genesis.int64)}, path)
    got = torch.load(path, mmap=True, weights_only=True)
    assert_like_genesis(got["t"], x.t()[1:])
    assert got["i"].tolist() == [0, 1, 2]


@requires_cuda
def test_genesis_cuda_tensor_location():
    x = genesis.arange(4.0, device="cuda")
    raw = genesis_saved([x, x[1:]])
    assert b"X\x06\x00\x00\x00cuda:0" in entries(raw)["archive/data.pkl"]
    a, b = tload(raw, map_location="cpu")
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0] and b.storage_offset() == 1


# ---------------------------------------------------------------------------------------------
# 4. each without the other library
# ---------------------------------------------------------------------------------------------


def run_child(code):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_genesis_reads_torch_files_without_torch(tmp_path):
    x = torch.arange(6.0).reshape(2, 3)
    obj = {"x": x, "t": x.t(), "p": torch.nn.Parameter(torch.ones(2)), "d": torch.float16}
    torch.save(obj, tmp_path / "new.pt")
    torch.save(obj, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    code = f"""
import json, sys
sys.modules["torch"] = None  # import torch raises ImportError
import genesis
out = {{}}
for name in ["new", "old"]:
    got = genesis.load({str(tmp_path)!r} + "/" + name + ".pt")
    shared = got["x"].untyped_storage()._cdata == got["t"].untyped_storage()._cdata
    out[name] = [got["t"].tolist(), got["t"].stride(), type(got["p"]).__name__, str(got["d"]),
                 shared]
print(json.dumps(out))
"""
    out = run_child(code)
    want = [x.t().tolist(), [1, 3], "Parameter", "genesis.float16", True]
    assert out == {"new": want, "old": want}


def test_torch_reads_genesis_files_without_genesis(tmp_path):
    x = genesis.arange(6.0).reshape(2, 3)
    obj = {
        "x": x,
        "t": x.t(),
        "p": genesis.nn.Parameter(genesis.ones(2)),
        "d": genesis.bfloat16,
        "s": genesis.Size([1, 2]),
        "dev": genesis.device("cpu"),
    }
    genesis.save(obj, tmp_path / "g.pt")
    code = f"""
import json, sys
sys.modules["genesis"] = None  # import genesis raises ImportError
import torch
got = torch.load({str(tmp_path / "g.pt")!r}, weights_only=True)
print(json.dumps([got["t"].tolist(), list(got["t"].stride()), type(got["p"]).__name__,
                  str(got["d"]), str(got["s"]), str(got["dev"]),
                  got["x"].untyped_storage().data_ptr() == got["t"].untyped_storage().data_ptr()]))
"""
    out = run_child(code)
    want = [x.t().tolist(), [1, 3], "Parameter", "torch.bfloat16", "torch.Size([1, 2])", "cpu"]
    assert out == [*want, True]


# ---------------------------------------------------------------------------------------------
# 5. hostile files
# ---------------------------------------------------------------------------------------------

RAN = []


def record_call(value):
    RAN.append(value)
    return value


def hostile_calls(marker):
    return {
        "os.system": (os.system, (f"touch {marker}",)),
        "builtins.eval": (builtins.eval, (f"open({str(marker)!r}, 'w').close()",)),
        "builtins.exec": (builtins.exec, (f"open({str(marker)!r}, 'w').close()",)),
        "subprocess.Popen": (subprocess.Popen, (["touch", str(marker)],)),
        "getattr": (getattr, (str, "join")),
        "a test function": (record_call, ("ran",)),
    }


# How a hostile file would run code, and the global the refusal names.
GLOBAL_NAME = {
    "os.system": "system",
    "builtins.eval": "eval",
    "builtins.exec": "exec",
    "subprocess.Popen": "subprocess.Popen",
    "getattr": "getattr",
    "a test function": "record_call",
}


@pytest.mark.parametrize("how", list(GLOBAL_NAME))
@pytest.mark.parametrize("fmt", ["zip", "legacy"])
def test_hostile_torch_files_refused(tmp_path, how, fmt):
    marker = tmp_path / "pwned"
    func, args = hostile_calls(marker)[how]
    RAN.clear()
    tensor = v2(StorageRef(torch.FloatStorage, "0", "cpu", 4, legacy=fmt == "legacy"), 0, [4], [1])
    pkl = crafted_pickle({"w": tensor, "evil": [Reduces(func, args)]})
    if fmt == "zip":
        raw = zip_like_torch(pkl, [("0", bytes(16))])
    else:
        raw = legacy_stream(pkl, ["0"], struct.pack("<q", 4) + bytes(16))
    with pytest.raises(pickle.UnpicklingError, match=r"^\[load\] weights_only=True refuses") as e:
        gload(raw)
    assert GLOBAL_NAME[how] in str(e.value)
    assert not marker.exists() and RAN == []


def test_hostile_legacy_header_refused_even_trusted(tmp_path):
    # The pickles around the object (magic number, version, key list) are plain values: they
    # are read under weights_only whatever the caller says.
    marker = tmp_path / "pwned"
    evil = pickle.dumps(Reduces(os.system, (f"touch {marker}",)), 2)
    as_magic = evil + pickle.dumps(1001, 2)
    no_keys = legacy_stream(pickle.dumps(1, 2))
    as_keys = no_keys[: -len(pickle.dumps([], 2))] + evil
    for raw in [as_magic, as_keys]:
        for weights_only in [True, False]:
            with pytest.raises(
                pickle.UnpicklingError, match=r"^\[load\] weights_only=True refuses"
            ):
                gload(raw, weights_only=weights_only)
    assert not marker.exists()


def test_hostile_rebuild_from_type_v2():
    from torch._tensor import _rebuild_from_type_v2

    ref = StorageRef(torch.FloatStorage, "0", "cpu", 4)
    args = (ref, 0, (4,), (1,), False, collections.OrderedDict())
    cases = [
        # An allowed callable that is no tensor rebuild, as the rebuild.
        ((set, torch.Tensor, ([1],), None), "tensor rebuilds"),
        # An allowed class that is no tensor class, as the type.
        ((torch._utils._rebuild_tensor_v2, collections.OrderedDict, args, None), "torch.Tensor"),
        # Attributes that are not a dict of names; slots.
        ((torch._utils._rebuild_tensor_v2, torch.Tensor, args, [1]), "dict of names"),
        ((torch._utils._rebuild_tensor_v2, torch.Tensor, args, ({}, {"data": 1})), "slots"),
    ]
    for call, message in cases:
        raw = zip_like_torch(
            crafted_pickle(Reduces(_rebuild_from_type_v2, call)), [("0", bytes(16))]
        )
        with pytest.raises(LOAD_ERRORS, match=rf"^\[load\] .*{message}"):
            gload(raw)
    call = (torch._utils._rebuild_tensor_v2, torch.Tensor, args, {"a": 1})
    ok = zip_like_torch(crafted_pickle(Reduces(_rebuild_from_type_v2, call)), [("0", bytes(16))])
    assert gload(ok).a == 1


@pytest.mark.parametrize(
    "pid",
    [
        ("storage", "FloatStorage", "0", "cpu", 4),  # a string, not the class
        ("storage", None, "0", "cpu", 4),
        ("storage", torch.FloatStorage, 0, "cpu", 4),
        ("storage", torch.FloatStorage, "0", None, 4),
        ("storage", torch.FloatStorage, "0", "cpu", -1),
        ("storage", torch.FloatStorage, "0", "cpu", 4.0),
        ("blob", torch.FloatStorage, "0", "cpu", 4),
    ],
    ids=repr,
)
def test_malformed_torch_storage_references(pid):
    ref = StorageRef(torch.FloatStorage, "0", "cpu", 4)
    ref.pid = pid
    raw = zip_like_torch(crafted_pickle(v2(ref, 0, [4], [1])), [("0", bytes(16))])
    with pytest.raises(pickle.UnpicklingError, match="storage reference"):
        gload(raw)


def test_torch_layouts_checked_against_storages():
    cases = [(4, [5], [1], 0), (4, [2, 2], [3, 1], 0), (4, [1], [1], 4), (4, [2], [-1], 1)]
    for numel, size, stride, offset in [*cases, (2**40, [4], [1], 0)]:
        ref = StorageRef(torch.FloatStorage, "0", "cpu", numel)
        raw = zip_like_torch(crafted_pickle(v2(ref, offset, size, stride)), [("0", bytes(16))])
        with pytest.raises(LOAD_ERRORS, match=r"^\[load\]"):
            gload(raw)


def test_torch_size_budget():
    # torch.Size(range(2**40)) would iterate 2**40 items: refused (Note [Load budget]).
    class Huge:
        def __reduce__(self):
            return (torch.Size, (range(2**40),))

    with pytest.raises(pickle.UnpicklingError, match=r"^\[load\] malformed archive: torch\.Size"):
        gload(zip_like_torch(crafted_pickle(Huge())))


def test_legacy_storage_larger_than_the_file():
    ref = StorageRef(torch.FloatStorage, "0", "cpu", 2**40, legacy=True)
    raw = legacy_stream(crafted_pickle(v2(ref, 0, [4], [1])), ["0"], struct.pack("<q", 2**40))
    with pytest.raises(ValueError, match=r"^\[load\] legacy PyTorch file: .*does not fit"):
        gload(raw)


def test_legacy_keys_must_match_references():
    ref = StorageRef(torch.FloatStorage, "0", "cpu", 4, legacy=True)
    pkl = crafted_pickle(v2(ref, 0, [4], [1]))
    record = struct.pack("<q", 4) + bytes(16)
    assert gload(legacy_stream(pkl, ["0"], record)).tolist() == [0.0] * 4
    short = struct.pack("<q", 3) + bytes(12)
    cases = [([], record), (["0", "0"], record * 2), (["1"], record), (["0"], short)]
    for keys, records in [*cases, (["0"], record[:-1])]:
        with pytest.raises(ValueError, match=r"^\[load\] legacy PyTorch file"):
            gload(legacy_stream(pkl, keys, records))


# ---------------------------------------------------------------------------------------------
# 6. damaged files
# ---------------------------------------------------------------------------------------------


def damaged_sources():
    x = torch.arange(12.0).reshape(3, 4)
    obj = {"x": x, "t": x.t(), "i": torch.arange(3, dtype=torch.int16), "n": [1, "s", None]}
    return {
        "torch zip": torch_saved(obj),
        "legacy": torch_saved(obj, legacy=True),
        "genesis": genesis_saved(
            {"x": genesis.arange(6.0), "p": genesis.nn.Parameter(genesis.ones(2))}
        ),
    }


@pytest.mark.parametrize("source", ["torch zip", "legacy", "genesis"])
def test_truncated_files_say_so(source):
    raw = damaged_sources()[source]
    cuts = sorted(set(range(0, len(raw), max(1, len(raw) // 150))) | {len(raw) - 1})
    for cut in cuts:
        with pytest.raises(LOAD_ERRORS) as e:
            gload(raw[:cut])
        assert str(e.value).startswith("[load]"), (cut, e.value)


@pytest.mark.parametrize("source", ["torch zip", "legacy", "genesis"])
def test_corrupt_files_never_crash(source):
    raw = damaged_sources()[source]
    rng = random.Random(7)
    outcomes = collections.Counter()
    for _ in range(300):
        bad = bytearray(raw)
        for _ in range(rng.randint(1, 4)):
            bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
        try:
            gload(bytes(bad))
            outcomes["loaded"] += 1
        except LOAD_ERRORS as e:
            assert str(e).startswith("[load]"), e
            outcomes["refused"] += 1
    assert outcomes["refused"] > 0


def test_not_a_checkpoint():
    for raw in [b"", b"hello", b"\x80", pickle.dumps([1, 2]), pickle.dumps(MAGIC_NUMBER, 2)]:
        with pytest.raises(ValueError, match=r"^\[load\]"):
            gload(raw)
