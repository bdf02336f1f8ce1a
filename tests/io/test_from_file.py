"""genesis.from_file against torch.from_file: a 1-D tensor over a memory map of a file, shared
(writes reach the file; the file is created or extended) or private (copy-on-write), for
several dtypes, size 0, and its errors."""

import os

import numpy as np
import pytest
from conftest import check_message, requires_cuda

import genesis

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(
    "dtype", [genesis.float32, genesis.float64, genesis.int8, genesis.int64, genesis.bool]
)
def test_private_map_reads_the_file_like_torch(tmp_path, dtype):
    path = tmp_path / "data.bin"
    raw = np.random.default_rng(0).integers(0, 2, 64, dtype=np.uint8).tobytes()
    path.write_bytes(raw)
    n = 64 // dtype.itemsize
    got = genesis.from_file(path, size=n, dtype=dtype)
    want = torch.from_file(str(path), size=n, dtype=getattr(torch, str(dtype).split(".")[1]))
    assert got.shape == (n,) and got.dtype == dtype
    assert got.tolist() == want.tolist()
    # Copy-on-write: the tensor is writable, the file does not change.
    got.zero_()
    assert path.read_bytes() == raw and not got.any().item()


def test_shared_map_writes_the_file(tmp_path):
    path = tmp_path / "shared.bin"
    t = genesis.from_file(path, shared=True, size=5, dtype=genesis.int16)  # created: zeros
    assert os.path.getsize(path) == 10 and t.tolist() == [0] * 5
    t[1:3] = genesis.tensor([7, -2], dtype=genesis.int16)
    assert np.frombuffer(path.read_bytes(), np.int16).tolist() == [0, 7, -2, 0, 0]
    # Extending a shorter file keeps its bytes and adds zeros; torch agrees.
    again = genesis.from_file(path, shared=True, size=8, dtype=genesis.int16)
    assert again.tolist() == [0, 7, -2, 0, 0, 0, 0, 0] and os.path.getsize(path) == 16
    assert torch.from_file(str(path), shared=True, size=8, dtype=torch.int16).tolist() == (
        again.tolist()
    )


def test_size_zero_and_default_dtype(tmp_path):
    path = tmp_path / "z.bin"
    path.write_bytes(b"\x00" * 8)
    empty = genesis.from_file(path)
    assert empty.shape == (0,) and empty.dtype == genesis.float32
    assert genesis.from_file(path, size=2).tolist() == [0.0, 0.0]


def test_errors(tmp_path):
    path = tmp_path / "small.bin"
    path.write_bytes(b"\x01\x02\x03")
    for kwargs in [{"size": 1}, {"size": 4, "dtype": genesis.uint8}]:  # 4 bytes needed, 3 there
        with pytest.raises(ValueError) as e:
            genesis.from_file(path, **kwargs)
        check_message(e, "from_file")
        assert path.read_bytes() == b"\x01\x02\x03"
    for size in [-1, 1.5, True]:
        with pytest.raises(ValueError) as e:
            genesis.from_file(path, size=size)
        check_message(e, "from_file")
    with pytest.raises(FileNotFoundError):
        genesis.from_file(tmp_path / "missing.bin", size=1)


@requires_cuda
def test_only_the_cpu_maps_a_file(tmp_path):
    path = tmp_path / "c.bin"
    path.write_bytes(b"\x00" * 4)
    with pytest.raises(ValueError) as e:
        genesis.from_file(path, size=1, device="cuda")
    check_message(e, "from_file")


def test_cuda_device_is_refused_without_a_gpu_too(tmp_path):
    path = tmp_path / "d.bin"
    path.write_bytes(b"\x00" * 4)
    with pytest.raises(ValueError) as e:
        genesis.from_file(path, size=1, device="cuda:0")
    check_message(e, "from_file")
