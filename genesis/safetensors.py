"""The safetensors format: ``save_file``, ``load_file``, ``safe_open`` (the ``safetensors``
package's API, with ``framework="genesis"``).

A file is an 8-byte little-endian header length N, N bytes of JSON (per tensor: dtype, shape,
data_offsets into the byte buffer that follows; an optional ``__metadata__`` of strings), then
the buffer. Files written here load in the ``safetensors`` package (NumPy and PyTorch front
ends) and theirs load here. Every header is checked before any tensor is built: its length
against the file, the JSON, each dtype, shape and byte range (inside the buffer, the right
length, no overlaps, no holes), so a crafted file raises ``ValueError`` instead of reading out
of bounds or allocating without bound. On the CPU, ``safe_open`` lays each tensor over a
copy-on-write map of the file when it is asked for (no copy; pages are read when touched);
for another device it reads the tensor's bytes then.
"""

from __future__ import annotations

import io
import json
import mmap
import os
import struct
from typing import Any, Union

from genesis._C import (
    Tensor,
    UntypedStorage,
    _storage_from_bytes,
    _storage_over_buffer,
    _tensor_on_storage,
)

__all__ = ["save_file", "load_file", "save", "load", "safe_open"]

# safetensors' dtype codes and the genesis dtype names they map to.
_CODES = {
    "BOOL": "bool",
    "U8": "uint8",
    "I8": "int8",
    "I16": "int16",
    "I32": "int32",
    "I64": "int64",
    "F16": "float16",
    "BF16": "bfloat16",
    "F32": "float32",
    "F64": "float64",
}
_NAMES = {v: k for k, v in _CODES.items()}
_ITEMSIZE = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "I32": 4, "I64": 8}
_ITEMSIZE.update({"F16": 2, "BF16": 2, "F32": 4, "F64": 8})
_MAX_HEADER = 100_000_000  # the safetensors package's limit
_MAX_DIMS = 64  # a genesis tensor's (csrc kMaxDims); NumPy's limit too
_Path = Union[str, "os.PathLike[str]"]


def _dtype_name(t: Tensor) -> str:
    return str(t.dtype).rsplit(".", 1)[-1]


def save(tensors: dict[str, Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """The safetensors bytes of a dict of tensors (what ``save_file`` writes).

    Args:
        tensors: Names to tensors (any device, any layout: written contiguous, little-endian).
        metadata: Extra string pairs stored in the header. Default: None.

    Returns:
        The file's bytes.

    Example::

        >>> import genesis
        >>> from genesis.safetensors import load, save
        >>> load(save({"w": genesis.ones(2)}))["w"].tolist()
        [1.0, 1.0]
    """
    if not isinstance(tensors, dict):
        raise TypeError(f"[safetensors] expected a dict of tensors, got {type(tensors).__name__}")
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        raise TypeError("[safetensors] metadata must be a dict of str to str")
    entries = []
    for name, t in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"[safetensors] tensor names must be str, got {type(name).__name__}")
        if not isinstance(t, Tensor):
            raise TypeError(f"[safetensors] {name!r} is a {type(t).__name__}, not a tensor")
        if name == "__metadata__":
            raise ValueError("[safetensors] '__metadata__' is reserved for the metadata")
        entries.append((name, t))
    # Wider dtypes first, then by name, as the safetensors package orders them (alignment).
    entries.sort(key=lambda e: (-_ITEMSIZE[_NAMES[_dtype_name(e[1])]], e[0]))
    header: dict[str, Any] = {}
    if metadata:
        header["__metadata__"] = metadata
    chunks, offset = [], 0
    for name, t in entries:
        host = t.detach().to("cpu").contiguous()
        data = host.clone().untyped_storage()._to_bytes() if host.numel() else b""
        header[name] = {
            "dtype": _NAMES[_dtype_name(t)],
            "shape": list(t.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the buffer starts 8-byte aligned
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def save_file(
    tensors: dict[str, Tensor], filename: _Path, metadata: dict[str, str] | None = None
) -> None:
    """Writes a dict of tensors to a safetensors file.

    Args:
        tensors: Names to tensors (any device, any layout).
        filename: The file to write.
        metadata: Extra string pairs stored in the header. Default: None.

    Returns:
        None.

    Example::

        >>> import os, tempfile, genesis
        >>> from genesis.safetensors import load_file, save_file
        >>> path = os.path.join(tempfile.mkdtemp(), "w.safetensors")
        >>> save_file({"w": genesis.arange(3.0)}, path, metadata={"step": "7"})
        >>> load_file(path)["w"].tolist()
        [0.0, 1.0, 2.0]
    """
    data = save(tensors, metadata)
    with open(filename, "wb") as f:
        f.write(data)


def _parse_header(read: Any, file_size: int) -> tuple[dict[str, Any], dict[str, str] | None, int]:
    """(tensor entries, metadata, offset of the buffer) of a file of file_size bytes; read(n, at)
    reads n bytes at offset at."""
    if file_size < 8:
        raise ValueError(f"[safetensors] a file of {file_size} bytes has no header")
    (n,) = struct.unpack("<Q", read(8, 0))
    if n > min(_MAX_HEADER, file_size - 8):
        raise ValueError(
            f"[safetensors] header length {n} is larger than the file ({file_size} bytes) "
            f"or the limit ({_MAX_HEADER})"
        )
    try:
        header = json.loads(read(n, 8).decode("utf-8"))
    except (ValueError, RecursionError) as e:  # bad UTF-8 or JSON, too deep, too many digits
        raise ValueError(f"[safetensors] the header is not valid JSON: {e}") from None
    if not isinstance(header, dict):
        raise ValueError("[safetensors] the header is not a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        raise ValueError("[safetensors] __metadata__ must map strings to strings")
    buffer_size = file_size - 8 - n
    ranges = []
    for name, info in header.items():
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            raise ValueError(f"[safetensors] bad entry for {name!r}: {info!r}")
        code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if not isinstance(code, str) or code not in _CODES:
            raise ValueError(f"[safetensors] {name!r}: dtype {code!r} is not supported by genesis")
        if not (
            isinstance(shape, list)
            and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)
        ):
            raise ValueError(f"[safetensors] {name!r}: bad shape {shape!r}")
        if not (
            isinstance(offsets, list)
            and len(offsets) == 2
            and all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
            and 0 <= offsets[0] <= offsets[1] <= buffer_size
        ):
            raise ValueError(
                f"[safetensors] {name!r}: data_offsets {offsets!r} outside the buffer of "
                f"{buffer_size} bytes"
            )
        if len(shape) > _MAX_DIMS:
            raise ValueError(f"[safetensors] {name!r}: {len(shape)} dims, at most {_MAX_DIMS}")
        span = 1
        for s in shape:
            span *= max(s, 1)
        if span >= 2**63:  # sizes and strides are int64 (also for zero-size tensors)
            raise ValueError(f"[safetensors] {name!r}: shape {shape!r} is too large")
        nbytes = _ITEMSIZE[code]
        for s in shape:
            nbytes *= s  # Python ints: no overflow; compared with a range of the file
        if nbytes != offsets[1] - offsets[0]:
            raise ValueError(
                f"[safetensors] {name!r}: shape {shape} of {code} needs {nbytes} bytes, "
                f"data_offsets give {offsets[1] - offsets[0]}"
            )
        ranges.append((offsets[0], offsets[1], name))
    ranges.sort()
    end = 0
    for begin, stop, name in ranges:
        if begin != end:
            what = "overlaps the previous tensor" if begin < end else "leaves a hole before it"
            raise ValueError(f"[safetensors] {name!r}: data_offsets {what}")
        end = stop
    if end != buffer_size:
        raise ValueError(
            f"[safetensors] the tensors cover {end} of the buffer's {buffer_size} bytes"
        )
    return header, metadata, 8 + n


def _build(info: dict[str, Any], data: bytes | bytearray, device: Any) -> Tensor:
    return _over(info, _storage_from_bytes(data, str(device)))


def _over(info: dict[str, Any], storage: UntypedStorage) -> Tensor:
    """The header entry's tensor (C order) laid over a storage of its bytes."""
    shape = list(info["shape"])
    strides, step = [0] * len(shape), 1
    for d in reversed(range(len(shape))):
        strides[d] = step
        step *= max(shape[d], 1)
    return _tensor_on_storage(storage, 0, shape, strides, _CODES[info["dtype"]])


def load(data: bytes, device: Any = "cpu") -> dict[str, Tensor]:
    """The tensors of safetensors bytes (what ``load_file`` reads).

    Args:
        data: The bytes of a safetensors file.
        device: Where the tensors go. Default: "cpu".

    Returns:
        A dict of names to tensors.

    Example::

        >>> import genesis
        >>> from genesis.safetensors import load, save
        >>> load(save({"i": genesis.arange(3)}))["i"].dtype
        genesis.int64
    """
    view = memoryview(data)
    header, _, start = _parse_header(lambda n, at: bytes(view[at : at + n]), len(view))
    return {
        name: _build(
            info,
            bytes(view[start + info["data_offsets"][0] : start + info["data_offsets"][1]]),
            device,
        )
        for name, info in header.items()
    }


def load_file(filename: _Path, device: Any = "cpu") -> dict[str, Tensor]:
    """Reads every tensor of a safetensors file.

    Args:
        filename: The file to read.
        device: Where the tensors go. Default: "cpu".

    Returns:
        A dict of names to tensors.

    Example::

        >>> import os, tempfile, genesis
        >>> from genesis.safetensors import load_file, save_file
        >>> path = os.path.join(tempfile.mkdtemp(), "m.safetensors")
        >>> save_file({"a": genesis.ones(2), "b": genesis.zeros(1, dtype=genesis.int32)}, path)
        >>> sorted(load_file(path))
        ['a', 'b']
    """
    with safe_open(filename, framework="genesis", device=device) as f:
        return {name: f.get_tensor(name) for name in f.keys()}


class _Slice:
    """A tensor of an open file, read when indexed (``safe_open(...).get_slice(name)``)."""

    def __init__(self, owner: safe_open, name: str) -> None:
        self._owner, self._name = owner, name

    def get_shape(self) -> list[int]:
        """The tensor's shape.

        Returns:
            The shape as a list.

        Example::

            >>> import os, tempfile, genesis
            >>> from genesis.safetensors import safe_open, save_file
            >>> path = os.path.join(tempfile.mkdtemp(), "s.safetensors")
            >>> save_file({"w": genesis.ones(4, 2)}, path)
            >>> with safe_open(path, framework="genesis") as f:
            ...     f.get_slice("w").get_shape()
            [4, 2]
        """
        return list(self._owner._header[self._name]["shape"])

    def get_dtype(self) -> str:
        """The tensor's safetensors dtype code ("F32", "I64", ...).

        Returns:
            The code.

        Example::

            >>> import os, tempfile, genesis
            >>> from genesis.safetensors import safe_open, save_file
            >>> path = os.path.join(tempfile.mkdtemp(), "d.safetensors")
            >>> save_file({"w": genesis.ones(2)}, path)
            >>> with safe_open(path, framework="genesis") as f:
            ...     f.get_slice("w").get_dtype()
            'F32'
        """
        return str(self._owner._header[self._name]["dtype"])

    def __getitem__(self, key: Any) -> Tensor:
        """The tensor indexed by key (read whole, then indexed).

        Args:
            key: A NumPy-style index.

        Returns:
            The indexed tensor.

        Example::

            >>> import os, tempfile, genesis
            >>> from genesis.safetensors import safe_open, save_file
            >>> path = os.path.join(tempfile.mkdtemp(), "k.safetensors")
            >>> save_file({"w": genesis.arange(6.0).reshape(3, 2)}, path)
            >>> with safe_open(path, framework="genesis") as f:
            ...     f.get_slice("w")[1:].tolist()
            [[2.0, 3.0], [4.0, 5.0]]
        """
        return self._owner.get_tensor(self._name)[key]


class safe_open:  # noqa: N801  (the safetensors package's name)
    """An open safetensors file whose tensors are read one at a time, when asked for.

    Args:
        filename: The file.
        framework: "genesis" (also "pt"/"torch"/"np"/"numpy" for code written for the
            safetensors package: the tensors are genesis tensors either way). Default:
            "genesis".
        device: Where the tensors go. Default: "cpu".

    Example::

        >>> import os, tempfile, genesis
        >>> from genesis.safetensors import safe_open, save_file
        >>> path = os.path.join(tempfile.mkdtemp(), "o.safetensors")
        >>> save_file({"a": genesis.ones(2), "b": genesis.zeros(3)}, path, {"k": "v"})
        >>> with safe_open(path, framework="genesis") as f:
        ...     sorted(f.keys()), f.metadata(), f.get_tensor("b").shape
        (['a', 'b'], {'k': 'v'}, genesis.Size([3]))
    """

    def __init__(self, filename: _Path, framework: str = "genesis", device: Any = "cpu") -> None:
        if framework not in ("genesis", "pt", "torch", "np", "numpy"):
            raise ValueError(f"[safetensors] unknown framework {framework!r}")
        # Unbuffered: each read takes exactly the bytes asked for (a tensor read on demand).
        self._file: io.FileIO = open(filename, "rb", buffering=0)  # noqa: SIM115  (closed by __exit__)
        try:
            size = os.fstat(self._file.fileno()).st_size
            self._header, self._metadata, self._start = _parse_header(self._read, size)
        except BaseException:
            self._file.close()
            raise
        self._device = device
        # CPU tensors are laid over a copy-on-write map of the file, as the safetensors package
        # maps it: nothing is read until touched, and writes stay in this process. The map
        # lives while any tensor over it does (closing the file does not unmap it). As with any
        # map, the file must not shrink under a tensor already built (a read past its end is
        # SIGBUS); get_tensor checks the file's size first.
        self._map: mmap.mmap | None = None
        if str(device) == "cpu" and size > 0:
            self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_COPY)

    def _read(self, n: int, at: int) -> bytearray:
        # An unbuffered read may return less than asked (a large tensor): read until done.
        self._file.seek(at)
        data = bytearray(n)
        view, got = memoryview(data), 0
        while got < n:
            chunk = self._file.readinto(view[got:])
            if not chunk:
                raise ValueError("[safetensors] the file is shorter than its header says")
            got += chunk
        return data  # a buffer: _storage_from_bytes copies it once, into the storage

    def __enter__(self) -> safe_open:
        return self

    def __exit__(self, *exc: object) -> None:
        self._map = None  # (tensors over it keep it mapped)
        self._file.close()

    def keys(self) -> list[str]:
        """The tensors' names, sorted (as the safetensors package lists them).

        Returns:
            The names.

        Example::

            >>> import os, tempfile, genesis
            >>> from genesis.safetensors import safe_open, save_file
            >>> path = os.path.join(tempfile.mkdtemp(), "n.safetensors")
            >>> save_file({"x": genesis.ones(1)}, path)
            >>> with safe_open(path, framework="genesis") as f:
            ...     f.keys()
            ['x']
        """
        return sorted(self._header)

    def metadata(self) -> dict[str, str] | None:
        """The header's ``__metadata__`` (None when the file has none).

        Returns:
            The metadata.

        Example::

            >>> import os, tempfile, genesis
            >>> from genesis.safetensors import safe_open, save_file
            >>> path = os.path.join(tempfile.mkdtemp(), "m.safetensors")
            >>> save_file({"x": genesis.ones(1)}, path)
            >>> with safe_open(path, framework="genesis") as f:
            ...     print(f.metadata())
            None
        """
        return None if self._metadata is None else dict(self._metadata)

    def get_tensor(self, name: str) -> Tensor:
        """One tensor: laid over the file's map (CPU), or its bytes read (another device).

        Args:
            name: The tensor's name.

        Returns:
            The tensor, on the file's device.

        Example::

            >>> import os, tempfile, genesis
            >>> from genesis.safetensors import safe_open, save_file
            >>> path = os.path.join(tempfile.mkdtemp(), "t.safetensors")
            >>> save_file({"x": genesis.arange(2.0)}, path)
            >>> with safe_open(path, framework="genesis") as f:
            ...     f.get_tensor("x").tolist()
            [0.0, 1.0]
        """
        if name not in self._header:
            raise KeyError(f"[safetensors] no tensor named {name!r}")
        info = self._header[name]
        begin, end = info["data_offsets"]
        at, stop = self._start + begin, self._start + end
        if self._map is not None and at % _ITEMSIZE[info["dtype"]] == 0:
            if os.fstat(self._file.fileno()).st_size < stop:
                raise ValueError("[safetensors] the file is shorter than its header says")
            return _over(info, _storage_over_buffer(memoryview(self._map)[at:stop]))
        # Another device, or bytes not aligned to their item size: read them.
        return _build(info, self._read(end - begin, at), self._device)

    def get_slice(self, name: str) -> _Slice:
        """A handle on one tensor, read when indexed.

        Args:
            name: The tensor's name.

        Returns:
            The handle (``get_shape``, ``get_dtype``, ``[key]``).

        Example::

            >>> import os, tempfile, genesis
            >>> from genesis.safetensors import safe_open, save_file
            >>> path = os.path.join(tempfile.mkdtemp(), "g.safetensors")
            >>> save_file({"x": genesis.arange(4.0)}, path)
            >>> with safe_open(path, framework="genesis") as f:
            ...     f.get_slice("x")[::2].tolist()
            [0.0, 2.0]
        """
        if name not in self._header:
            raise KeyError(f"[safetensors] no tensor named {name!r}")
        return _Slice(self, name)
