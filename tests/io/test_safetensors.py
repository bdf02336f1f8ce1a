"""genesis.safetensors: the safetensors format (save/load, save_file/load_file, safe_open).

Round trips for every dtype and layout; files exchanged with the ``safetensors`` package (its
NumPy and PyTorch front ends; those tests are skipped without it); safe_open's lazy reads and
slices; crafted headers that must raise ``ValueError("[safetensors] ...")``; and Hypothesis
fuzzing of mutated files, alone and against the package.

Where genesis is stricter than safetensors 0.7 (whose Rust reader checks the header length,
UTF-8, the JSON against its schema, and that the sorted byte ranges tile the buffer exactly):
entries with extra keys (the package ignores them) and dtypes genesis lacks (U16, U32, U64,
F8_*) are rejected here, and shapes whose dims multiply (zeros counted as one) past int64, or
with more than 64 dims, are rejected when read rather than when a tensor is built.
"""

import functools
import json
import os
import struct

import numpy as np
import pytest
from conftest import (
    DTYPES,
    FROM_NP,
    NP_DTYPE,
    assert_equal,
    check_message,
    dtype_id,
    make_tensor,
    to_numpy,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import genesis
import genesis.safetensors as gst

CODE = {
    genesis.bool: "BOOL",
    genesis.uint8: "U8",
    genesis.int8: "I8",
    genesis.int16: "I16",
    genesis.int32: "I32",
    genesis.int64: "I64",
    genesis.float16: "F16",
    genesis.bfloat16: "BF16",
    genesis.float32: "F32",
    genesis.float64: "F64",
}
ITEMSIZE = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "I32": 4, "I64": 8}
ITEMSIZE.update({"F16": 2, "BF16": 2, "F32": 4, "F64": 8})
NP_DTYPES = [d for d in DTYPES if d is not genesis.bfloat16]  # NumPy has no bfloat16
SHAPES = [(3, 4), (), (0,), (2, 0, 3), (1,)]
NAMES = ["α", "重み.bias", "emoji🙂", "with space", 'quo"te', "back\\slash", "tab\t", "", "a/b:0"]


# The safetensors package (a test extra): fixtures, so that only the tests using them skip.
@pytest.fixture(scope="module")
def sf():
    return pytest.importorskip("safetensors")


@pytest.fixture(scope="module")
def sf_numpy():
    return pytest.importorskip("safetensors.numpy")


@pytest.fixture(scope="module")
def sf_torch():
    return pytest.importorskip("safetensors.torch")  # imports torch too


def raw(header, buffer=b""):
    """The bytes of a file with this header (a dict, or bytes taken as they are) and buffer."""
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + buffer


def entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": list(shape), "data_offsets": [begin, end]}


def read_header(data):
    """(header dict, offset of the buffer) of safetensors bytes."""
    (n,) = struct.unpack("<Q", data[:8])
    return json.loads(bytes(data[8 : 8 + n]).decode("utf-8")), 8 + n


def raw_bytes(t):
    """A genesis tensor's elements as little-endian bytes, in row-major order."""
    h = t.cpu().contiguous()
    return h.clone().untyped_storage()._to_bytes() if h.numel() else b""


def torch_bytes(t):
    """A torch tensor's elements as bytes, in row-major order."""
    import torch

    same_size = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    return t.contiguous().view(same_size[t.element_size()]).numpy().tobytes()


def torch_values(t):
    import torch

    return (t.float() if t.dtype is torch.bfloat16 else t).numpy()


def assert_on(t, device):
    assert t.device.type == device, (t.device, device)


# ---------------------------------------------------------------------------------------------
# 1. genesis -> genesis
# ---------------------------------------------------------------------------------------------


def test_round_trip_every_dtype_and_shape(dtype, device):
    tensors, arrays = {}, {}
    for i, shape in enumerate(SHAPES):
        tensors[f"t{i}"], arrays[f"t{i}"] = make_tensor(shape, dtype, device, seed=i)
    data = gst.save(tensors)
    assert isinstance(data, bytes)
    header, start = read_header(data)
    assert start % 8 == 0  # the buffer is 8-byte aligned
    assert len(data) == start + sum(a.size for a in arrays.values()) * ITEMSIZE[CODE[dtype]]
    for name, a in arrays.items():
        assert header[name]["dtype"] == CODE[dtype]
        assert header[name]["shape"] == list(a.shape)
    for where in (device, "cpu"):
        out = gst.load(data, device=where)
        assert sorted(out) == sorted(arrays)
        for name, a in arrays.items():
            assert_on(out[name], where)
            assert out[name].is_contiguous()
            assert not out[name].requires_grad
            assert_equal(out[name], a, dtype)


def test_file_round_trip_across_devices(tmp_path, device):
    tensors, arrays = {}, {}
    for i, d in enumerate(DTYPES):
        tensors[dtype_id(d)], arrays[dtype_id(d)] = make_tensor((2, 3), d, device, seed=i)
    path = tmp_path / "all.safetensors"  # a pathlib.Path; str below
    gst.save_file(tensors, path)
    assert path.read_bytes() == gst.save(tensors)
    for where in ("cpu", device):
        out = gst.load_file(str(path), device=where)
        assert list(out) == sorted(arrays)
        for d in DTYPES:
            assert_on(out[dtype_id(d)], where)
            assert_equal(out[dtype_id(d)], arrays[dtype_id(d)], d)


def test_non_contiguous_inputs_are_written_in_order(dtype, device):
    t, a = make_tensor((4, 6), dtype, device, seed=5)
    cube, c = t.reshape(2, 3, 4), a.reshape(2, 3, 4)
    views = {
        "transposed": (t.t(), a.T),
        "stepped": (t[::2, 1::3], a[::2, 1::3]),
        "offset": (t[1:3], a[1:3]),
        "column": (t[:, 2], a[:, 2]),
        "expanded": (t[1].expand(3, 6), np.broadcast_to(a[1], (3, 6))),
        "permuted": (cube.permute(2, 0, 1), c.transpose(2, 0, 1)),
        "empty": (t[2:2, ::2], a[2:2, ::2]),
    }
    assert not views["transposed"][0].is_contiguous()
    data = gst.save({k: v for k, (v, _) in views.items()})
    header, start = read_header(data)
    out = gst.load(data, device=device)
    for name, (_, want) in views.items():
        begin, end = header[name]["data_offsets"]
        assert end - begin == want.size * ITEMSIZE[CODE[dtype]]  # only the view's elements
        assert_equal(out[name], want, dtype)
    assert_equal(t, a, dtype)  # the source is unchanged


def test_requires_grad_tensors_are_saved_detached():
    w = genesis.ones(3, requires_grad=True)
    out = gst.load(gst.save({"w": w * 2}))["w"]
    assert not out.requires_grad
    assert out.tolist() == [2.0, 2.0, 2.0]


def test_metadata_round_trip(tmp_path):
    meta = {"format": "pt", "step": "7", "ключ": "значение", "empty": "", "json": '{"a": [1]}'}
    path = tmp_path / "m.safetensors"
    gst.save_file({"w": genesis.ones(2)}, path, metadata=meta)
    with gst.safe_open(path) as f:
        got = f.metadata()
        assert got == meta
        got["step"] = "8"  # a copy
        assert f.metadata() == meta
    # Without metadata, or with an empty dict (not written), there is none.
    for none in (None, {}):
        with open(path, "wb") as out:
            out.write(gst.save({"w": genesis.ones(2)}, metadata=none))
        with gst.safe_open(path) as f:
            assert f.metadata() is None
    # Metadata with no tensors.
    gst.save_file({}, path, metadata=meta)
    assert gst.load_file(path) == {}
    with gst.safe_open(path) as f:
        assert f.keys() == [] and f.metadata() == meta


def test_many_tensors_of_mixed_dtypes_are_aligned():
    rng = np.random.default_rng(0)
    tensors, arrays = {}, {}
    for i in range(200):
        d = DTYPES[i % len(DTYPES)]
        shape = tuple(int(s) for s in rng.integers(0, 4, size=int(rng.integers(0, 4))))
        tensors[f"layer{i}.{dtype_id(d)}"], arrays[f"layer{i}.{dtype_id(d)}"] = make_tensor(
            shape, d, seed=i
        )
    data = gst.save(tensors)
    header, start = read_header(data)
    assert start % 8 == 0
    end = 0
    for info in sorted(header.values(), key=lambda i: i["data_offsets"]):
        begin, stop = info["data_offsets"]
        assert begin == end and begin % ITEMSIZE[info["dtype"]] == 0  # tiled and aligned
        end = stop
    assert end == len(data) - start
    out = gst.load(data)
    assert sorted(out) == sorted(arrays)
    for name, t in tensors.items():
        assert_equal(out[name], arrays[name], t.dtype)


def test_unicode_and_odd_names(tmp_path):
    tensors = {n: genesis.full((2,), float(i)) for i, n in enumerate(NAMES)}
    path = tmp_path / "names.safetensors"
    gst.save_file(tensors, path)
    out = gst.load_file(path)
    assert sorted(out) == sorted(NAMES)
    for i, n in enumerate(NAMES):
        assert out[n].tolist() == [float(i), float(i)]
    with gst.safe_open(path) as f:
        assert f.keys() == sorted(NAMES)
        assert f.get_tensor("重み.bias").tolist() == [1.0, 1.0]


# ---------------------------------------------------------------------------------------------
# 2. The safetensors package
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=dtype_id)
def test_genesis_files_load_in_numpy(tmp_path, dtype, device, sf_numpy):
    tensors, arrays = {}, {}
    for i, shape in enumerate(SHAPES):
        tensors[f"t{i}"], arrays[f"t{i}"] = make_tensor(shape, dtype, device, seed=i)
    tensors["t"], arrays["t"] = tensors["t0"].t(), arrays["t0"].T
    path = tmp_path / "g.safetensors"
    gst.save_file(tensors, path)
    for got in (sf_numpy.load_file(str(path)), sf_numpy.load(gst.save(tensors))):
        assert sorted(got) == sorted(arrays)
        for name, a in arrays.items():
            assert got[name].dtype == NP_DTYPE[dtype] and got[name].shape == a.shape
            np.testing.assert_array_equal(got[name], a)


def test_genesis_files_load_in_torch(tmp_path, dtype, device, sf_torch):
    import torch

    tensors, arrays = {}, {}
    for i, shape in enumerate(SHAPES):
        tensors[f"t{i}"], arrays[f"t{i}"] = make_tensor(shape, dtype, device, seed=i)
    path = tmp_path / "g.safetensors"
    gst.save_file(tensors, path, metadata={"format": "pt"})
    got = sf_torch.load_file(str(path))
    assert sorted(got) == sorted(arrays)
    for name, a in arrays.items():
        assert got[name].dtype is getattr(torch, dtype_id(dtype))
        assert tuple(got[name].shape) == a.shape
        np.testing.assert_array_equal(torch_values(got[name]), a)
        assert torch_bytes(got[name]) == raw_bytes(tensors[name])


def test_numpy_files_load_in_genesis(tmp_path, device, sf_numpy):
    arrays = {}
    for i, d in enumerate(NP_DTYPES):
        for j, shape in enumerate(SHAPES):
            arrays[f"{dtype_id(d)}.{j}"] = make_tensor(shape, d, seed=i * 10 + j)[1]
    for i, n in enumerate(NAMES):
        arrays[n] = np.full((1, 2), i, dtype=np.int32)
    meta = {"k": "v", "ключ": "ж"}
    path = tmp_path / "np.safetensors"
    sf_numpy.save_file(arrays, str(path), metadata=meta)
    for got in (gst.load_file(path, device=device), gst.load(path.read_bytes(), device=device)):
        assert sorted(got) == sorted(arrays)
        for name, a in arrays.items():
            assert_on(got[name], device)
            assert_equal(got[name], a, FROM_NP[a.dtype])
    with gst.safe_open(path) as f:
        assert f.metadata() == meta


def test_torch_files_load_in_genesis(tmp_path, dtype, device, sf_torch):
    import torch

    tensors, arrays = {}, {}
    for i, shape in enumerate(SHAPES):
        a = make_tensor(shape, dtype, seed=i)[1]
        tensors[f"t{i}"] = torch.from_numpy(np.array(a)).to(getattr(torch, dtype_id(dtype)))
        arrays[f"t{i}"] = a
    path = tmp_path / "pt.safetensors"
    sf_torch.save_file(tensors, str(path), metadata={"format": "pt", "n": "5"})
    got = gst.load_file(path, device=device)
    assert sorted(got) == sorted(arrays)
    for name, a in arrays.items():
        assert_on(got[name], device)
        assert_equal(got[name], a, dtype)
        assert raw_bytes(got[name]) == torch_bytes(tensors[name])
    assert gst.load(sf_torch.save(tensors))["t0"].dtype is dtype
    with gst.safe_open(path, framework="pt") as f:
        assert f.metadata() == {"format": "pt", "n": "5"}


def test_keys_and_metadata_match_the_package(tmp_path, sf, sf_numpy):
    names = ["zeta", "alpha", "mid.1", "mid.10", "mid.2", "Upper", "ä"]
    kinds = [np.float32, np.int8, np.float64]
    arrays = {n: np.full(i + 2, i, dtype=kinds[i % 3]) for i, n in enumerate(names)}
    meta = {"b": "2", "a": "1", "unicode": "✓"}
    ours, theirs = tmp_path / "ours.safetensors", tmp_path / "theirs.safetensors"
    gst.save_file({n: genesis.tensor(a) for n, a in arrays.items()}, ours, metadata=meta)
    sf_numpy.save_file(arrays, str(theirs), metadata=meta)
    for path in (ours, theirs):
        with gst.safe_open(path) as mine, sf.safe_open(str(path), "np") as pkg:
            assert mine.keys() == pkg.keys() == sorted(names)
            assert mine.metadata() == pkg.metadata() == meta
            for n in names:
                assert mine.get_slice(n).get_shape() == list(pkg.get_slice(n).get_shape())
                assert mine.get_slice(n).get_dtype() == pkg.get_slice(n).get_dtype()
                np.testing.assert_array_equal(
                    to_numpy(mine.get_slice(n)[1:]), pkg.get_slice(n)[1:], strict=True
                )


def test_bytes_match_the_package_for_distinct_item_sizes(sf_numpy):
    # The package orders tensors by its dtype code (descending), then by name; genesis by item
    # size, then by name: the same order when no two dtypes share an item size.
    arrays = {
        "w": np.arange(3, dtype=np.float32),
        "b": np.arange(2.0),
        "m": np.arange(3, dtype=np.uint8),
        "h": np.ones((2, 2), np.float16),
        "s": np.array(2.5, np.float32),  # 0-d (older packages take no NumPy scalar)
    }
    ours = gst.save({n: genesis.tensor(a) for n, a in arrays.items()}, metadata={"k": "v"})
    assert ours == sf_numpy.save(arrays, metadata={"k": "v"})


# ---------------------------------------------------------------------------------------------
# 3. safe_open
# ---------------------------------------------------------------------------------------------


# Files with 1 MiB between the first tensor and the last, past any read-ahead buffer: safe_open
# reads through a buffered file, so a small file's bytes may all come in with its header.
def lazy_file(path):
    tensors = {"a": genesis.arange(3), "m": genesis.zeros(2**17, dtype=genesis.float64)}
    tensors["z"] = genesis.arange(4) * 10  # int64 like the others: laid out a, m, z
    gst.save_file(tensors, path)
    header, start = read_header(path.read_bytes())
    assert [header[n]["data_offsets"][0] for n in "amz"] == [0, 24, 24 + 2**20]
    return header, start


def test_safe_open_maps_cpu_tensors(tmp_path):
    """On the CPU, tensors are laid over a copy-on-write map of the file: no copy (two tensors
    sit as far apart as their bytes in the file), writable, the file unchanged."""
    path = tmp_path / "mapped.safetensors"
    header, start = lazy_file(path)
    before = path.read_bytes()
    with gst.safe_open(path) as f:
        a, z = f.get_tensor("a"), f.get_tensor("z")
    offsets = header["z"]["data_offsets"][0] - header["a"]["data_offsets"][0]
    assert z.data_ptr() - a.data_ptr() == offsets
    assert a.tolist() == [0, 1, 2]  # still mapped after the file is closed
    a.add_(1)
    assert a.tolist() == [1, 2, 3] and path.read_bytes() == before
    state = gst.load_file(path)
    assert state["a"].tolist() == [0, 1, 2]


def test_safe_open_reads_each_tensor_when_asked(tmp_path):
    """Where tensors are read instead of mapped (another device, unaligned bytes), each is read
    when asked for, only its bytes."""
    path = tmp_path / "lazy.safetensors"
    header, start = lazy_file(path)
    with gst.safe_open(path) as f:
        f._map = None  # the read path, as for a CUDA device
        reads, real = [], f._read

        def spy(n, at):
            reads.append((n, at))
            return real(n, at)

        f._read = spy
        assert f.get_tensor("a").tolist() == [0, 1, 2]
        assert reads == [(24, start)]  # a's bytes only
        # Bytes are read when asked for, not when the file is opened: rewrite z's on disk.
        with open(path, "r+b") as w:
            w.seek(start + header["z"]["data_offsets"][0])
            w.write(np.array([7, 8, 9, 6], dtype=np.int64).tobytes())
        assert f.get_tensor("z").tolist() == [7, 8, 9, 6]
        assert f.get_slice("z")[1:3].tolist() == [8, 9]
        assert reads[1:] == [(32, start + header["z"]["data_offsets"][0])] * 2


def test_safe_open_file_truncated_after_opening(tmp_path):
    path = tmp_path / "cut.safetensors"
    header, start = lazy_file(path)
    with gst.safe_open(path) as f:
        os.truncate(path, start + header["z"]["data_offsets"][0] + 8)
        assert f.get_tensor("a").tolist() == [0, 1, 2]
        with pytest.raises(ValueError) as e:
            f.get_tensor("z")
        check_message(e, "safetensors")


def test_get_slice(tmp_path, device):
    t, a = make_tensor((4, 6), genesis.float32, seed=3)
    i, b = make_tensor((5,), genesis.int16, seed=4)
    path = tmp_path / "slice.safetensors"
    gst.save_file({"w": t, "i": i}, path)
    with gst.safe_open(path, framework="genesis", device=device) as f:
        s = f.get_slice("w")
        assert s.get_shape() == [4, 6] and s.get_dtype() == "F32"
        s.get_shape().append(1)  # a copy
        assert s.get_shape() == [4, 6]
        assert f.get_slice("i").get_shape() == [5] and f.get_slice("i").get_dtype() == "I16"
        keys = [slice(None), slice(1, 3), (slice(None), slice(None, None, 2)), 0, (1, 2)]
        keys += [(Ellipsis, 1), (slice(1, None), slice(2, 5)), slice(3, 1)]
        for key in keys:
            got = s[key]
            assert_on(got, device)
            assert_equal(got, a[key], genesis.float32)
        assert_equal(f.get_slice("i")[::2], b[::2], genesis.int16)


def test_unknown_names_raise_key_error(tmp_path):
    path = tmp_path / "k.safetensors"
    gst.save_file({"w": genesis.ones(1)}, path)
    with gst.safe_open(path) as f:
        for get in (f.get_tensor, f.get_slice):
            with pytest.raises(KeyError, match="nope"):
                get("nope")
            with pytest.raises(KeyError):
                get("__metadata__")


def test_context_manager_closes_the_file(tmp_path):
    path = tmp_path / "c.safetensors"
    gst.save_file({"w": genesis.ones(2)}, path)
    opener = gst.safe_open(path)
    with opener as f:
        assert f is opener
        assert f.get_tensor("w").tolist() == [1.0, 1.0]
    assert f._file.closed
    with pytest.raises(ValueError):  # reading a closed file
        f.get_tensor("w")


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_failed_opens_leave_no_file_open(tmp_path):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(raw({"w": entry("F32", [2], 0, 4)}, b"\0" * 8))
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        for call in (gst.safe_open, gst.load_file):
            with pytest.raises(ValueError):
                call(path)
    assert len(os.listdir("/proc/self/fd")) == before


@pytest.mark.parametrize("framework", ["genesis", "pt", "torch", "np", "numpy"])
def test_frameworks_accepted(tmp_path, framework):
    path = tmp_path / "f.safetensors"
    gst.save_file({"w": genesis.ones(2)}, path)
    with gst.safe_open(path, framework=framework) as f:
        assert isinstance(f.get_tensor("w"), genesis.Tensor)


@pytest.mark.parametrize("framework", ["tf", "flax", "jax", "mlx", "paddle", "PT", ""])
def test_unknown_framework_raises_value_error(tmp_path, framework):
    path = tmp_path / "f.safetensors"
    gst.save_file({"w": genesis.ones(2)}, path)
    for where in (path, tmp_path / "missing.safetensors"):  # checked before opening
        with pytest.raises(ValueError) as e:
            gst.safe_open(where, framework=framework)
        check_message(e, "safetensors")


def test_missing_file(tmp_path):
    for call in (gst.safe_open, gst.load_file):
        with pytest.raises(FileNotFoundError):
            call(tmp_path / "missing.safetensors")


# ---------------------------------------------------------------------------------------------
# 4. Bad input
# ---------------------------------------------------------------------------------------------

F32x2 = entry("F32", [2], 0, 8)
EIGHT = b"\x01" * 8


def _bad(name, header, buffer=b"", package_accepts=False):
    return pytest.param(raw(header, buffer), package_accepts, id=name)


BAD = [
    pytest.param(b"", False, id="empty"),
    pytest.param(b"\x02\x00\x00\x00\x00\x00\x00", False, id="7 bytes"),
    pytest.param(struct.pack("<Q", 100) + b"{}", False, id="length past the end"),
    pytest.param(struct.pack("<Q", 2**64 - 1) + b"{}", False, id="length 2**64-1"),
    pytest.param(struct.pack("<Q", 1) + b"{}", False, id="length short of the JSON"),
    _bad("not utf-8", b'{"\xff\xfe": 1}'),
    _bad("utf-8 surrogate", b'{"\xed\xa0\x80": {}}'),
    _bad("invalid json", b'{"w": '),
    _bad("trailing garbage", b"{} x"),
    _bad("nul padding", b"{}\0\0"),
    _bad("utf-8 bom", b"\xef\xbb\xbf{}"),
    _bad("header array", b"[]"),
    _bad("header string", b'"x"'),
    _bad("header number", b"8"),
    _bad("header null", b"null"),
    _bad("deep nesting", b"[" * 50_000 + b"]" * 50_000),
    _bad("deep nesting in an entry", b'{"w": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"),
    _bad("5000-digit shape", b'{"w": {"dtype": "U8", "shape": [' + b"1" * 5000 + b"]}}"),
    _bad("entry not an object", {"w": [1, 2]}),
    _bad("entry a string", {"w": "F32"}),
    _bad("missing dtype", {"w": {"shape": [2], "data_offsets": [0, 8]}}, EIGHT),
    _bad("missing shape", {"w": {"dtype": "F32", "data_offsets": [0, 8]}}, EIGHT),
    _bad("missing data_offsets", {"w": {"dtype": "F32", "shape": [2]}}, EIGHT),
    _bad("extra key", {"w": {**F32x2, "extra": 1}}, EIGHT, package_accepts=True),
    _bad("F8_E4M3", {"w": entry("F8_E4M3", [8], 0, 8)}, EIGHT, package_accepts=True),
    _bad("U16", {"w": entry("U16", [4], 0, 8)}, EIGHT, package_accepts=True),
    _bad("U32", {"w": entry("U32", [2], 0, 8)}, EIGHT, package_accepts=True),
    _bad("U64", {"w": entry("U64", [1], 0, 8)}, EIGHT, package_accepts=True),
    _bad("lower-case dtype", {"w": entry("f32", [2], 0, 8)}, EIGHT),
    _bad("unknown dtype", {"w": entry("F128", [2], 0, 8)}, EIGHT),
    _bad("dtype a number", {"w": entry(4, [2], 0, 8)}, EIGHT),
    _bad("dtype a list", {"w": entry(["F32"], [2], 0, 8)}, EIGHT),
    _bad("dtype an object", {"w": entry({"F32": 1}, [2], 0, 8)}, EIGHT),
    _bad("dtype null", {"w": entry(None, [2], 0, 8)}, EIGHT),
    _bad("negative shape", {"w": entry("F32", [-2], 0, 8)}, EIGHT),
    _bad("negative dims", {"w": entry("F32", [-1, -2], 0, 8)}, EIGHT),
    _bad("float shape", {"w": entry("F32", [2.0], 0, 8)}, EIGHT),
    _bad("bool shape", {"w": entry("U8", [True], 0, 1)}, b"\x01"),
    _bad("string shape", {"w": {**F32x2, "shape": "2"}}, EIGHT),
    _bad("int shape", {"w": {**F32x2, "shape": 2}}, EIGHT),
    _bad("nested shape", {"w": entry("F32", [[2]], 0, 8)}, EIGHT),
    _bad("null shape", {"w": {**F32x2, "shape": None}}, EIGHT),
    _bad("offsets past the buffer", {"w": entry("F32", [2], 0, 8)}, b"\x01" * 4),
    _bad("offsets far past the buffer", {"w": entry("F32", [2], 2**40, 2**40 + 8)}, EIGHT),
    _bad("offsets reversed", {"w": entry("F32", [2], 8, 0)}, EIGHT),
    _bad("offsets negative", {"w": entry("F32", [2], -8, 0)}, EIGHT),
    _bad("offsets too long for the shape", {"w": entry("F32", [1], 0, 8)}, EIGHT),
    _bad("offsets too short for the shape", {"w": entry("F32", [3], 0, 8)}, EIGHT),
    _bad("one offset", {"w": {**F32x2, "data_offsets": [8]}}, EIGHT),
    _bad("three offsets", {"w": {**F32x2, "data_offsets": [0, 8, 8]}}, EIGHT),
    _bad("float offsets", {"w": {**F32x2, "data_offsets": [0.0, 8]}}, EIGHT),
    _bad("bool offsets", {"w": entry("U8", [1], False, True)}, b"\x01"),
    _bad("string offsets", {"w": {**F32x2, "data_offsets": "0,8"}}, EIGHT),
    _bad("overlap", {"a": entry("F32", [2], 0, 8), "b": entry("F32", [1], 4, 8)}, EIGHT),
    _bad("same range", {"a": entry("F32", [2], 0, 8), "b": entry("F32", [2], 0, 8)}, EIGHT),
    _bad("hole", {"a": entry("F32", [1], 0, 4), "b": entry("F32", [1], 8, 12)}, EIGHT + b"1234"),
    _bad("leading hole", {"w": entry("F32", [1], 4, 8)}, EIGHT),
    _bad("trailing bytes", {"w": entry("F32", [1], 0, 4)}, EIGHT),
    _bad("bytes but no tensors", {}, EIGHT),
    _bad("metadata int value", {"__metadata__": {"k": 1}}),
    _bad("metadata null value", {"__metadata__": {"k": None}}),
    _bad("metadata nested", {"__metadata__": {"k": {"a": "b"}}}),
    _bad("metadata a list", {"__metadata__": ["k", "v"]}),
    _bad("metadata a string", {"__metadata__": "k=v"}),
    _bad("shape 2**62, 1 byte", {"w": entry("U8", [2**62], 0, 1)}, b"\x01"),
    _bad("shape 2**62 x 4, 4 bytes", {"w": entry("F32", [2**62, 4], 0, 4)}, b"\x01" * 4),
    _bad("shape 2**31 x 2**31 x 4", {"w": entry("F32", [2**31, 2**31, 4], 0, 8)}, EIGHT),
    _bad("shape 2**64, no bytes", {"w": entry("U8", [2**64], 0, 0)}),
    _bad("shape 2**62 x 2**62 x 0", {"w": entry("U8", [2**62, 2**62, 0], 0, 0)}),
    _bad("shape 0 x 2**70", {"w": entry("U8", [0, 2**70], 0, 0)}),
    # The package's reader accepts these two (0 * anything); NumPy and genesis cannot hold them.
    _bad("shape 0 x 2**62 x 2**62", {"w": entry("U8", [0, 2**62, 2**62], 0, 0)}, b"", True),
    _bad("shape 2**63 x 0", {"w": entry("U8", [2**63, 0], 0, 0)}, b"", True),
    _bad("65 dims", {"w": entry("U8", [1] * 65, 0, 1)}, b"\x01", package_accepts=True),
]


@pytest.mark.parametrize("data, package_accepts", BAD)
def test_bad_files_raise_value_error(tmp_path, data, package_accepts):
    with pytest.raises(ValueError) as e:
        gst.load(data)
    check_message(e, "safetensors")
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    for call in (gst.load_file, gst.safe_open):
        with pytest.raises(ValueError) as e:
            call(path)
        check_message(e, "safetensors")


@pytest.mark.parametrize("data, package_accepts", BAD)
def test_bad_files_and_the_package(data, package_accepts, sf):
    try:
        sf.deserialize(data)  # the Rust reader only: dtypes NumPy or torch lack are fine
    except Exception:
        accepted = False
    else:
        accepted = True
    assert accepted == package_accepts


def test_header_length_over_the_limit(tmp_path):
    n = 100_000_008  # over 100_000_000, and the file is long enough
    data = struct.pack("<Q", n) + b"{}" + b" " * (n - 2)
    with pytest.raises(ValueError, match="limit") as e:
        gst.load(data)
    check_message(e, "safetensors")
    path = tmp_path / "big.safetensors"
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", n))
        f.truncate(8 + n)  # sparse: nothing past the length is read
    with pytest.raises(ValueError, match="limit") as e:
        gst.safe_open(path)
    check_message(e, "safetensors")


W = genesis.ones(1)
SAVE_ERRORS = [
    pytest.param([W], None, TypeError, id="a list"),
    pytest.param(None, None, TypeError, id="None"),
    pytest.param((("w", W),), None, TypeError, id="pairs"),
    pytest.param({1: W}, None, TypeError, id="int name"),
    pytest.param({b"w": W}, None, TypeError, id="bytes name"),
    pytest.param({None: W}, None, TypeError, id="None name"),
    pytest.param({"w": np.ones(1)}, None, TypeError, id="ndarray"),
    pytest.param({"w": [1.0]}, None, TypeError, id="list value"),
    pytest.param({"w": 1.0}, None, TypeError, id="float value"),
    pytest.param({"w": None}, None, TypeError, id="None value"),
    pytest.param({"__metadata__": W}, None, ValueError, id="__metadata__ name"),
    pytest.param({"w": W}, ["k", "v"], TypeError, id="metadata a list"),
    pytest.param({"w": W}, {"k": 1}, TypeError, id="metadata int value"),
    pytest.param({"w": W}, {1: "v"}, TypeError, id="metadata int key"),
    pytest.param({"w": W}, {"k": None}, TypeError, id="metadata None value"),
    pytest.param({"w": W}, "k=v", TypeError, id="metadata a string"),
]


@pytest.mark.parametrize("tensors, metadata, error", SAVE_ERRORS)
def test_save_errors(tmp_path, tensors, metadata, error):
    with pytest.raises(error) as e:
        gst.save(tensors, metadata)
    check_message(e, "safetensors")
    path = tmp_path / "never.safetensors"
    with pytest.raises(error):
        gst.save_file(tensors, path, metadata)
    assert not path.exists()  # checked before the file is created


# ---------------------------------------------------------------------------------------------
# 5. Fuzzing
# ---------------------------------------------------------------------------------------------


@functools.cache
def valid_files():
    def tensors(specs):
        return {n: make_tensor(s, d, seed=i)[0] for i, (n, d, s) in enumerate(specs)}

    f32, i64, u8, f16 = genesis.float32, genesis.int64, genesis.uint8, genesis.float16
    return (
        gst.save(
            tensors(
                [("w", f32, (2, 3)), ("b", i64, (3,)), ("m", u8, (4,)), ("h", f16, (2, 2))]
                + [("z", genesis.bool, ()), ("e", f32, (0, 2))]
            ),
            metadata={"k": "v"},
        ),
        gst.save(
            tensors(
                [("x", genesis.bfloat16, (5,)), ("y", genesis.int16, (2,))]
                + [("q", genesis.int8, (3, 1)), ("r", genesis.int32, (2,))]
            )
        ),
        gst.save(tensors([("s", genesis.float64, ())])),
        gst.save({}, metadata={"only": "metadata"}),
    )


# Bytes that make JSON, numbers and dtype codes out of JSON, numbers and dtype codes.
HEADER_BYTES = b'{}[]",: 0123468-eE.tfnFUIBLO\x00\xff'
BUFFER_XOR = st.tuples(st.just("buffer"), st.integers(0, 2**16), st.integers(1, 255))
ANY_MUTATION = st.one_of(
    st.tuples(st.just("xor"), st.integers(0, 2**16), st.integers(1, 255)),
    BUFFER_XOR,
    st.tuples(st.just("header"), st.integers(0, 2**16), st.sampled_from(HEADER_BYTES)),
    st.tuples(st.just("length"), st.integers(0, 7), st.integers(1, 255)),
    st.tuples(st.just("truncate"), st.integers(0, 2**16), st.just(0)),
    st.tuples(st.just("append"), st.integers(1, 16), st.integers(0, 255)),
)
# Buffer-only mutations keep files valid (their tensors are then compared); the rest mostly not.
MUTATIONS = st.one_of(
    st.lists(BUFFER_XOR, min_size=1, max_size=4),
    st.lists(ANY_MUTATION, min_size=1, max_size=4),
)


def mutate(data, ops):
    b = bytearray(data)
    start = read_header(data)[1]
    for kind, pos, value in ops:
        if kind == "xor" and b:
            b[pos % len(b)] ^= value
        elif kind == "buffer" and len(b) > start:
            b[start + pos % (len(b) - start)] ^= value
        elif kind == "header" and len(b) > 8:
            b[8 + pos % min(start - 8, len(b) - 8)] = value
        elif kind == "length" and len(b) > pos:
            b[pos] ^= value
        elif kind == "truncate":
            del b[pos % (len(b) + 1) :]
        elif kind == "append":
            b += bytes([value]) * pos
    return bytes(b)


def check_accepted(out, data):
    """out (what genesis.safetensors.load made of data) is what the header describes."""
    header, start = read_header(data)
    header.pop("__metadata__", None)
    assert sorted(out) == sorted(header)
    for name, info in header.items():
        t = out[name]
        assert list(t.shape) == info["shape"] and CODE[t.dtype] == info["dtype"]
        begin, end = info["data_offsets"]
        assert raw_bytes(t) == data[start + begin : start + end]


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(which=st.integers(0, 3), ops=MUTATIONS)
def test_fuzz_mutated_files_load_or_raise_value_error(which, ops):
    data = mutate(valid_files()[which], ops)
    try:
        out = gst.load(data)
    except ValueError as e:
        assert str(e).startswith("[safetensors]"), e
        return
    check_accepted(out, data)
    assert gst.load(gst.save(out)).keys() == out.keys()


def package_load(sf_torch, data):
    """The package's tensors of data (torch), or None where it rejects the file."""
    try:
        return sf_torch.load(data)
    except Exception:  # SafetensorError, or torch refusing what the reader accepted
        return None


def compare_with_package(data, sf_torch):
    theirs = package_load(sf_torch, data)
    try:
        ours = gst.load(data)
    except ValueError as e:
        # Where the package accepts a file, genesis rejects it only for a dtype it lacks.
        assert theirs is None or "not supported by genesis" in str(e), (data, e)
        return
    assert theirs is not None, ("genesis accepts a file the package rejects", data)
    assert sorted(ours) == sorted(theirs)
    for name, t in ours.items():
        assert list(t.shape) == list(theirs[name].shape)
        assert raw_bytes(t) == torch_bytes(theirs[name])
    check_accepted(ours, data)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(which=st.integers(0, 3), ops=MUTATIONS)
def test_fuzz_mutated_files_agree_with_package(which, ops, sf_torch):
    compare_with_package(mutate(valid_files()[which], ops), sf_torch)


SIZES = {**ITEMSIZE, "U16": 2, "U32": 4, "F8_E5M2": 1, "X": 2}  # dtypes genesis lacks, too
ENTRIES = st.lists(
    st.tuples(
        st.text(max_size=3),
        st.sampled_from(sorted(SIZES)),
        st.lists(st.integers(0, 3), max_size=3),
        st.sampled_from([(0, 0)] * 4 + [(0, 1), (1, 0), (-1, 0), (0, -1), (2, 2), (-2, -2)]),
    ),
    max_size=4,
)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    entries=ENTRIES,
    extra=st.sampled_from([0, 0, 0, 1, -1]),
    metadata=st.one_of(
        st.none(),
        st.dictionaries(st.text(max_size=2), st.one_of(st.text(max_size=2), st.integers(0, 2))),
    ),
)
def test_fuzz_headers_agree_with_package(entries, extra, metadata, sf_torch):
    """Headers laid out as writers lay them out, then nudged: offsets moved by a byte or two,
    a byte more or less in the buffer, metadata values that are not strings."""
    header, end = {}, 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, code, shape, (db, de) in entries:
        size = int(np.prod(shape, dtype=np.int64)) * SIZES[code]
        header[name] = entry(code, shape, end + db, end + size + de)
        end += size
    buffer = bytes(range(256)) * (max(end + extra, 0) // 256 + 1)
    compare_with_package(raw(header, buffer[: max(end + extra, 0)]), sf_torch)
