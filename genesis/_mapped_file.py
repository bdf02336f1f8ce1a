"""genesis.from_file: a tensor over a memory map of a file (torch.from_file's semantics)."""

from __future__ import annotations

import mmap
import os
from typing import Any

from genesis._C import _storage_over_buffer, _tensor_on_storage, empty, float32


def from_file(
    filename: str | os.PathLike,
    shared: bool | None = None,
    size: int = 0,
    *,
    dtype: Any = None,
    device: Any = None,
) -> Any:
    """A 1-D tensor of ``size`` elements over a memory map of a file.

    With ``shared=True`` the map is shared: writes to the tensor go to the file (and other
    processes mapping it see them); the file is created, or extended with zeros, to hold
    ``size`` elements. Otherwise the map is private (copy-on-write): the file must hold them,
    and writes stay in this process. As with any map, the file must not shrink while the tensor
    lives.

    Args:
        filename: The file to map.
        shared: Whether writes go to the file. Default: None (False).
        size: The number of elements. Default: 0.
        dtype: The elements' dtype. Default: None (float32).
        device: Only the CPU can map a file. Default: None (the CPU).

    Returns:
        The tensor.

    Example::

        >>> import os, tempfile, genesis
        >>> path = os.path.join(tempfile.mkdtemp(), "w.bin")
        >>> t = genesis.from_file(path, shared=True, size=3, dtype=genesis.int32)
        >>> t.fill_(7).tolist(), os.path.getsize(path)
        ([7, 7, 7], 12)
        >>> genesis.from_file(path, size=3, dtype=genesis.int32).tolist()
        [7, 7, 7]
    """
    if device is not None and str(device) != "cpu":
        raise ValueError(f"[from_file] only the CPU can map a file, not {device}")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError(f"[from_file] size must be a non-negative int, got {size!r}")
    dtype = float32 if dtype is None else dtype
    nbytes = size * dtype.itemsize
    if shared:
        fd = os.open(filename, os.O_RDWR | os.O_CREAT, 0o644)
    else:
        fd = os.open(filename, os.O_RDONLY)
    try:
        have = os.fstat(fd).st_size
        if have < nbytes:
            if not shared:
                raise ValueError(
                    f"[from_file] {os.fspath(filename)!r} holds {have} bytes, fewer than the "
                    f"{nbytes} of {size} {dtype} elements"
                )
            os.ftruncate(fd, nbytes)  # extended with zeros
        if nbytes == 0:
            return empty(0, dtype=dtype)
        access = mmap.ACCESS_WRITE if shared else mmap.ACCESS_COPY
        mapped = mmap.mmap(fd, nbytes, access=access)
    finally:
        os.close(fd)
    storage = _storage_over_buffer(memoryview(mapped))
    return _tensor_on_storage(storage, 0, [size], [1], dtype)
