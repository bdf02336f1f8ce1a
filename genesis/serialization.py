"""Tensors that outlive the process: pickling and copying, ``genesis.save`` and ``genesis.load``.

Pickling (``pickle``, ``copy.copy``, ``copy.deepcopy``): a tensor is rebuilt from its storage
and layout (offset, sizes, strides, dtype), and the storage from its bytes, so tensors that
share a storage in one pickle (views) share one in the copy too. The storage's bytes come from
the core (``UntypedStorage._to_bytes``) and go back through it (``_storage_from_bytes``); every
layout read back is checked against its storage in C++ (``_tensor_on_storage``), so a crafted
pickle cannot make a tensor that reaches past its memory.

``genesis.save(obj, f)`` writes PyTorch's zip archive (entries stored, not compressed):
``data.pkl``, the object pickled with each storage replaced by a reference, ``data/<key>`` with
each storage's bytes once, ``byteorder`` and ``version``; ``torch.load`` reads it.
``genesis.load(f)`` reads it back, and reads PyTorch's checkpoints (zip and legacy) and
genesis's older archives, without importing torch; with ``weights_only=True`` (the default) its
unpickler (genesis/_restricted_unpickler.py) only builds tensors, dtypes, devices and sizes, and
plain Python containers and values: nothing in the file can run code, nor take memory or time
out of proportion to the file's size (Note [Load budget]). Note [Saved archives] describes the
archive, Note [PyTorch checkpoints] (genesis/_torch_checkpoint.py) its pickle and the legacy
format.
"""

from __future__ import annotations

import contextlib
import copy
import io
import mmap as _mmap
import os
import pickle
import struct
import sys
import weakref
import zipfile
import zlib
from typing import IO, Any, Callable, Union, cast

from genesis import _torch_legacy
from genesis._C import (
    Tensor,
    UntypedStorage,
    _storage_from_bytes,
    _storage_over_buffer,
    _tensor_on_storage,
)
from genesis._C import device as _device
from genesis._restricted_unpickler import RestrictedUnpickler, describe
from genesis._torch_checkpoint import StorageType, TorchNames, byteswap, storage_reference
from genesis._torch_pickler import TorchPickler

__all__ = ["save", "load"]

FORMAT_VERSION = "3"  # the `version` entry: PyTorch's (genesis's own archives wrote "1")

# Note [Storage handles]
# ~~~~~~~~~~~~~~~~~~~~~~
# t.untyped_storage() makes a new Python handle each call; pickle's memo (and deepcopy's) work by
# object identity. While a handle of a storage is alive, _storage_handle gives every tensor of
# that storage the same handle, so a pickle (whose memo keeps the handles alive) writes each
# storage once and rebuilds views of one storage over one copy.
_handles: weakref.WeakValueDictionary[int, UntypedStorage] = weakref.WeakValueDictionary()


def _storage_handle(t: Tensor) -> UntypedStorage:
    s = t.untyped_storage()
    return _handles.setdefault(s._cdata, s)


def _rebuild_tensor(
    storage: UntypedStorage,
    offset: int,
    size: tuple[int, ...],
    stride: tuple[int, ...],
    dtype: Any,
    requires_grad: bool,
) -> Tensor:
    t = _tensor_on_storage(storage, offset, list(size), list(stride), dtype)
    if requires_grad:
        t.requires_grad_()
    return t


def _rebuild_storage(data: bytes, device: str) -> UntypedStorage:
    return _storage_from_bytes(data, device)


def _tensor_reduce_ex(self: Tensor, protocol: int) -> tuple[Any, ...]:
    """Pickles the tensor: its storage (once per pickle) and its layout.

    Args:
        protocol: The pickle protocol (any).

    Returns:
        The ``(rebuild, args, state)`` triple of the pickle protocol; state is the tensor's
        Python attributes.

    Example:
        >>> import pickle, genesis
        >>> x = genesis.arange(6.0).reshape(2, 3)
        >>> pickle.loads(pickle.dumps(x.t())).tolist()
        [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    """
    del protocol
    args = (
        _storage_handle(self),
        self.storage_offset(),
        tuple(self.shape),
        tuple(self.stride()),
        self.dtype,
        self.requires_grad,
    )
    state = dict(self.__dict__) or None
    return (_rebuild_tensor, args, state)


def _storage_copy(original: UntypedStorage, memo: dict[int, Any]) -> UntypedStorage:
    """The storage's copy in one deepcopy call: one per storage, whatever handle or tensor
    reaches it (as in PyTorch, whose memo is keyed by ``_cdata`` too)."""
    key = ("genesis.UntypedStorage", original._cdata)
    storage = memo.get(key)  # type: ignore[call-overload]
    if storage is None:
        storage = original.clone()
        memo[key] = storage  # type: ignore[index]
        # Keeps the original alive while the memo is (its identity must not be reused).
        memo.setdefault(id(memo), []).append(original)
    return storage


def _tensor_deepcopy(self: Tensor, memo: dict[int, Any]) -> Tensor:
    """A copy of the tensor's values with its layout, views of one storage sharing one copy.

    As in PyTorch, only leaves can be deep-copied; requires_grad, ``.grad`` and Python
    attributes are copied too.

    Args:
        memo: ``copy.deepcopy``'s memo.

    Returns:
        The copy.

    Example:
        >>> import copy, genesis
        >>> x = genesis.arange(4.0)
        >>> a, b = copy.deepcopy([x, x[1:]])
        >>> a[1] = 10.0
        >>> b.tolist(), x.tolist()
        ([10.0, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0])
    """
    if not self.is_leaf:
        raise RuntimeError(
            "[deepcopy] Only Tensors created explicitly by the user (graph leaves) support the "
            "deepcopy protocol at the moment. Use t.detach().clone() for a copy of a result."
        )
    if id(self) in memo:
        return memo[id(self)]
    storage = _storage_copy(self.untyped_storage(), memo)
    new = _tensor_on_storage(
        storage, self.storage_offset(), list(self.shape), list(self.stride()), self.dtype
    )
    memo[id(self)] = new
    if self.requires_grad:
        new.requires_grad_()
    if self.grad is not None:
        new.grad = copy.deepcopy(self.grad, memo)
    if self.__dict__:
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
    return new


def _storage_reduce(self: UntypedStorage) -> tuple[Any, ...]:
    """Pickles the storage as its bytes and device.

    Returns:
        The ``(rebuild, args)`` pair of the pickle protocol.

    Example:
        >>> import pickle, genesis
        >>> s = genesis.arange(3, dtype=genesis.uint8).untyped_storage()
        >>> pickle.loads(pickle.dumps(s)).nbytes()
        3
    """
    return (_rebuild_storage, (self._to_bytes(), str(self.device)))


def _storage_deepcopy(self: UntypedStorage, memo: dict[int, Any]) -> UntypedStorage:
    """A copy of the storage's bytes on its device (shared with the tensors over the storage
    that the same deepcopy call copies).

    Args:
        memo: ``copy.deepcopy``'s memo.

    Returns:
        The copy.

    Example:
        >>> import copy, genesis
        >>> s = genesis.ones(2).untyped_storage()
        >>> copy.deepcopy(s).nbytes()
        8
    """
    return _storage_copy(self, memo)


Tensor.__reduce_ex__ = _tensor_reduce_ex  # type: ignore[method-assign,assignment]
Tensor.__deepcopy__ = _tensor_deepcopy  # type: ignore[attr-defined]
UntypedStorage.__reduce__ = _storage_reduce  # type: ignore[method-assign,assignment]
UntypedStorage.__deepcopy__ = _storage_deepcopy  # type: ignore[attr-defined]


# Note [Saved archives]
# ~~~~~~~~~~~~~~~~~~~~~
# genesis.save writes PyTorch's zip archive (Note [PyTorch checkpoints] in
# genesis/_torch_checkpoint.py), whose entries sit under one folder (the file's stem): data.pkl
# (the object, pickled with protocol 2 by _torch_pickler.TorchPickler, each storage a persistent
# reference ("storage", storage class, key, location, numel)), data/<key> (the storage's bytes,
# stored uncompressed), byteorder and version; every entry dated 1980-01-01, so that one object
# saves to the same bytes. genesis's older archives referred to a storage as ("storage", key,
# device, nbytes); load reads both. It reads data.pkl with persistent_load building each storage
# once from its entry: the entry must be stored (not compressed: its size is bounded by the
# file's) and hold exactly nbytes bytes; every tensor's layout is checked against its storage in
# C++. A file that is no zip archive but starts as a pickle is PyTorch's legacy format
# (genesis/_torch_legacy.py). Each data entry's bytes start at a multiple of 64 bytes in the file
# (ALIGNMENT; the local header's extra field is padded, as PyTorch pads it), so load(mmap=True)
# can lay storages over a copy-on-write map of the file, aligned for every dtype; an entry that
# is not aligned (another writer's) is read.
ALIGNMENT = 64
_PAD_FIELD = 0x4246  # the extra field's id ("FB", as PyTorch's)
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")  # a zip local file header's fixed 30 bytes
_MapLocation = Union[None, str, _device, dict, Callable[[UntypedStorage, str], UntypedStorage]]


def save(obj: Any, f: str | os.PathLike | IO[bytes], pickle_protocol: int = 2) -> None:
    """Saves an object holding tensors (nested dicts, lists, tuples, plain values) to a file.

    The file is PyTorch's zip archive (Note [Saved archives] in genesis/serialization.py): each
    storage's bytes once, views of one storage saved as views, Parameters as Parameters. Read it
    back with ``genesis.load``, or with ``torch.load`` (``weights_only=True`` too, when the object
    holds only tensors, Parameters, dtypes, devices, sizes, and dicts, lists, tuples, sets and
    plain values, saved with the default protocol), without genesis.

    Args:
        obj: What to save: tensors, and containers and plain Python values holding them.
        f: A path, or a binary file object open for writing.
        pickle_protocol: The pickle protocol of the object's entry (PyTorch's weights_only
            loader reads protocol 2 only). Default: 2.

    Returns:
        None.

    Example::

        >>> import io, genesis
        >>> buf = io.BytesIO()
        >>> genesis.save({"w": genesis.ones(2, 3), "step": 7}, buf)
        >>> _ = buf.seek(0)
        >>> state = genesis.load(buf)
        >>> state["step"], state["w"].shape
        (7, genesis.Size([2, 3]))
    """
    data = io.BytesIO()
    pickler = TorchPickler(data, protocol=pickle_protocol)
    pickler.dump(obj)
    stem = "archive"
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr(_entry(f"{stem}/data.pkl"), data.getvalue())
        zf.writestr(_entry(f"{stem}/version"), FORMAT_VERSION + "\n")
        for key, s in pickler.storages.items():
            _write_aligned(zf, f"{stem}/data/{key}", s._to_bytes())
        zf.writestr(_entry(f"{stem}/byteorder"), sys.byteorder)  # (the storages' bytes: native)


def _entry(name: str) -> zipfile.ZipInfo:
    """A stored entry dated 1980-01-01 (not now: the same object saves to the same bytes)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.external_attr = 0o600 << 16
    return info


def _write_aligned(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    """Writes a stored entry whose bytes start at a multiple of ALIGNMENT in the file."""
    info = _entry(name)
    start = zf.start_dir  # where zipfile writes the next local header
    # zipfile appends a 20-byte zip64 field to the local header of a large entry.
    zip64 = len(data) * 1.05 > zipfile.ZIP64_LIMIT
    fixed = _LOCAL_HEADER.size + len(name.encode()) + 4 + (20 if zip64 else 0)
    pad = -(start + fixed) % ALIGNMENT
    info.extra = struct.pack("<HH", _PAD_FIELD, pad) + b"Z" * pad
    zf.writestr(info, data)


def _aligned_data_start(mapped: _mmap.mmap, info: zipfile.ZipInfo) -> int | None:
    """Where a stored entry's bytes start in the mapped file, when that is a multiple of
    ALIGNMENT (None otherwise: the entry is read instead of mapped)."""
    at = info.header_offset
    if at + _LOCAL_HEADER.size > len(mapped):
        return None
    fields = _LOCAL_HEADER.unpack_from(mapped, at)
    if fields[0] != 0x04034B50:  # not a local file header
        return None
    start = at + _LOCAL_HEADER.size + fields[9] + fields[10]
    if start % ALIGNMENT or start + info.file_size > len(mapped):
        return None
    return start


class _CrcChecks:
    """The CRC-32 checks of entries read with positioned reads (Note [Reading stored entries]):
    a large entry's check runs in a thread while the next entries are read (zlib.crc32 releases
    the GIL); ``finish`` waits for every check and raises for the first damaged entry."""

    THREADED_FROM = 16 << 20

    def __init__(self) -> None:
        self._pool: Any = None
        self._pending: list[tuple[zipfile.ZipInfo, Any]] = []

    def add(self, info: zipfile.ZipInfo, view: memoryview) -> None:
        if info.file_size < self.THREADED_FROM:
            self._verify(info, zlib.crc32(view))
            return
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1))
        self._pending.append((info, self._pool.submit(zlib.crc32, view)))  # keeps view alive

    def finish(self) -> None:
        try:
            for info, crc in self._pending:
                self._verify(info, crc.result())
        finally:
            self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        self._pending.clear()

    @staticmethod
    def _verify(info: zipfile.ZipInfo, crc: int) -> None:
        if crc != info.CRC:
            raise ValueError(
                f"[load] entry {info.filename!r} is damaged: its CRC-32 does not match"
            )


def _read_stored_into(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, view: memoryview, checks: _CrcChecks
) -> None:
    """Reads a stored entry's bytes into ``view`` (Note [Reading stored entries]): with positioned
    reads straight from the archive's file where it is one, else through zipfile."""
    try:
        fd = zf.fp.fileno() if zf.fp is not None else -1
    except (AttributeError, OSError, io.UnsupportedOperation):
        fd = -1
    if fd < 0 or not hasattr(os, "preadv"):
        with _damaged_entry(info.filename):  # (zipfile checks the CRC-32 at the entry's end)
            with cast(io.BufferedIOBase, zf.open(info)) as entry:
                got = 0
                while got < info.file_size:
                    n = entry.readinto(view[got:])
                    if not n:
                        raise ValueError(f"[load] entry {info.filename!r} ends early")
                    got += n
        return
    header = (
        os.pread(fd, _LOCAL_HEADER.size, info.header_offset) if info.header_offset >= 0 else b""
    )
    fields = _LOCAL_HEADER.unpack(header) if len(header) == _LOCAL_HEADER.size else None
    if fields is None or fields[0] != 0x04034B50:
        raise ValueError(
            f"[load] entry {info.filename!r} has no local header where the directory says"
        )
    start = info.header_offset + _LOCAL_HEADER.size + fields[9] + fields[10]
    got = 0
    while got < info.file_size:
        n = os.preadv(fd, [view[got:]], start + got)
        if not n:
            raise ValueError(f"[load] entry {info.filename!r} ends early")
        got += n
    checks.add(info, view)


@contextlib.contextmanager
def _damaged_entry(name: str) -> Any:
    """What zipfile raises while reading a damaged entry, as ValueError("[load] ...")."""
    try:
        yield
    except zipfile.BadZipFile as e:
        raise ValueError(f"[load] entry {name!r} is damaged: {e}") from None
    except EOFError:
        raise ValueError(f"[load] entry {name!r} ends early (a truncated archive)") from None
    except RuntimeError as e:  # zipfile: "File ... is encrypted, password required ..."
        if "encrypted" not in str(e):
            raise
        raise ValueError(f"[load] entry {name!r} is encrypted: {e}") from None
    except (struct.error, UnicodeDecodeError, zlib.error, OverflowError) as e:
        raise ValueError(f"[load] entry {name!r} is damaged ({type(e).__name__}: {e})") from None
    except ValueError as e:  # io.BytesIO: a negative offset
        if str(e).startswith("[load]"):
            raise
        raise ValueError(f"[load] entry {name!r} is damaged ({e})") from None


def _archive_size(zf: zipfile.ZipFile) -> int | None:
    """The archive's size in bytes (None where its file cannot tell)."""
    try:
        fp = cast(IO[bytes], zf.fp)
        at = fp.tell()
        end = fp.seek(0, io.SEEK_END)
        fp.seek(at)
        return end
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def _check_entry_size(info: zipfile.ZipInfo, archive_size: int | None) -> None:
    """A stored entry whose sizes agree and fit in the archive: nothing larger than the file is
    allocated for it."""
    if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
        raise ValueError(
            f"[load] entry {info.filename!r} is damaged: stored, its sizes differ "
            f"({info.compress_size} and {info.file_size} bytes)"
        )
    fixed = _LOCAL_HEADER.size
    if info.header_offset < 0 or (
        archive_size is not None and info.header_offset + fixed + info.file_size > archive_size
    ):
        raise ValueError(
            f"[load] entry {info.filename!r} is damaged: {info.file_size} bytes at offset "
            f"{info.header_offset} do not fit in the archive's {archive_size} bytes"
        )


def _read_pickle_entry(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, archive_size: int | None
) -> bytes:
    """The bytes of the archive's data.pkl (stored: its size is bounded by the file's)."""
    _check_entry_size(info, archive_size)
    with _damaged_entry(info.filename), zf.open(info) as entry:
        payload = entry.read()
    if len(payload) != info.file_size:
        raise ValueError(f"[load] entry {info.filename!r} ends early (a truncated archive)")
    return payload


def _placed(what: str, place: Callable[[], UntypedStorage]) -> UntypedStorage:
    """place(), its errors (a device the file names that does not exist, or is not available)
    said as load's."""
    try:
        return place()
    except (ValueError, RuntimeError, TypeError) as e:
        if str(e).startswith("[load]"):
            raise
        kind = next(k for k in (TypeError, ValueError, RuntimeError) if isinstance(e, k))
        raise kind(f"[load] {what}: {e}") from None


def _read_to_host(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, checks: _CrcChecks, pinned: bool
) -> Tensor:
    """A stored entry's bytes in a new uint8 CPU tensor (page-locked when ``pinned``), read into
    it directly."""
    from genesis._C import empty, uint8

    host = empty(info.file_size, dtype=uint8, pin_memory=pinned)
    view = host.numpy().data.cast("B") if info.file_size else memoryview(bytearray())
    _read_stored_into(zf, info, view, checks)
    return host


def _read_to_cpu(zf: zipfile.ZipFile, info: zipfile.ZipInfo, checks: _CrcChecks) -> UntypedStorage:
    """A stored entry's bytes as a new CPU storage."""
    return _read_to_host(zf, info, checks, pinned=False).untyped_storage()


def _read_to_cuda(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, device: str, checks: _CrcChecks
) -> UntypedStorage:
    """A stored entry's bytes on a CUDA device, read into pinned host memory and copied from there
    without waiting (Note [Loading onto CUDA])."""
    host = _read_to_host(zf, info, checks, pinned=True)
    return host.to(device, non_blocking=True).untyped_storage()


# Note [Loading onto CUDA]
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# A storage that load() sends to a CUDA device is read straight into page-locked host memory
# (from genesis's pinned pool) and copied to the device with non_blocking=True: the copy runs at
# the link's full speed, overlapping the reading of the next entry, and the pinned block goes back
# to its pool only once the copy is done (the pool records an event on the stream). Pageable
# memory would be copied through a driver staging buffer, synchronously.
#
# Note [Reading stored entries]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# zipfile reads an entry through its own buffers: every byte is copied into a new bytes object
# and then again into the storage, at about a tenth of the page cache's speed. When the archive
# is a file, load() finds the entry's bytes after its local header and reads them with
# os.preadv straight into the storage (or the pinned block), then checks them against the
# directory's CRC-32 as zipfile does: a damaged file raises ValueError before load() returns.
# The check of an entry of 16 MiB or more runs in a thread (zlib.crc32 releases the GIL) while
# the next entries are read and copied, so a checkpoint of large tensors loads at the speed of
# the reads rather than of one thread's CRC (about 2 GB/s). Positioned reads leave zipfile's
# own file position alone. Archives in memory (io.BytesIO) go through zipfile.


class _Unpickler(pickle.Unpickler):
    """load's unpickler with weights_only=False (files the caller trusts): any global, storages
    through ``persistent_load``; PyTorch's tensor, storage, dtype and device names are genesis's
    (``names``), so a PyTorch checkpoint's tensors load as genesis tensors."""

    def __init__(
        self, file: IO[bytes], persistent_load: Callable[[Any], Any], names: TorchNames
    ) -> None:
        super().__init__(file)
        self._storage_of = persistent_load
        self._names = names

    def persistent_load(self, pid: Any) -> Any:
        return self._storage_of(pid)

    def find_class(self, module: str, name: str) -> Any:
        found = self._names.lookup(module, name)
        if found is not None:
            return found[0]
        return super().find_class(module, name)


def _unpickle(
    payload: bytes, persistent_load: Callable[[Any], Any], names: TorchNames, weights_only: bool
) -> Any:
    """The object of a pickle, under weights_only (Note [weights_only's BUILD], Note [Load
    budget]) or not."""
    if weights_only:
        return RestrictedUnpickler(payload, persistent_load, names.lookup).load()
    return _Unpickler(io.BytesIO(payload), persistent_load, names).load()


def _target_device(map_location: _MapLocation, saved: str) -> str | None:
    if map_location is None:
        return saved
    if isinstance(map_location, (str, _device)):
        return str(map_location)
    if isinstance(map_location, dict):
        return str(map_location.get(saved, saved))
    return None  # a callable: applied to the CPU storage


def _byte_order(zf: zipfile.ZipFile, stem: str, archive_size: int | None) -> str:
    """The archive's `byteorder` entry: the byte order of its storages (little when absent)."""
    name = f"{stem}/byteorder"
    try:
        info = zf.getinfo(name)
    except KeyError:
        return "little"
    value = _read_pickle_entry(zf, info, archive_size) if info.file_size <= 16 else b"?"
    if value not in (b"little", b"big"):
        raise ValueError(
            f"[load] entry {name!r} says {describe(value[:16])}: a byte order is little or big"
        )
    return value.decode()


def _read_swapped(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: str | None, unit: int, where: str
) -> UntypedStorage:
    """A stored entry of the other byte order, read to the host, swapped, and sent to target
    (None: the CPU, where a callable map_location takes it)."""
    cuda = target is not None and target.startswith("cuda")
    checks = _CrcChecks()
    try:
        host = _read_to_host(zf, info, checks, pinned=cuda)
        checks.finish()  # (the check reads the bytes as written: before they change)
    finally:
        checks.close()
    byteswap(host, unit, info.filename)
    if target in (None, "cpu"):
        return host.untyped_storage()
    return _placed(where, lambda: host.to(target, non_blocking=cuda).untyped_storage())


def load(
    f: str | os.PathLike | IO[bytes],
    map_location: _MapLocation = None,
    mmap: bool = False,
    weights_only: bool = True,
) -> Any:
    """Loads an object that ``genesis.save`` or ``torch.save`` wrote.

    Reads genesis's archives and PyTorch's checkpoints, the zip archive ``torch.save`` writes and
    its legacy format (before PyTorch 1.6, or ``_use_new_zipfile_serialization=False``), without
    importing torch: a PyTorch tensor becomes a genesis tensor of the same dtype, shape, strides
    and offset, tensors that shared a storage share one, ``nn.Parameter`` becomes
    ``genesis.nn.Parameter``, and PyTorch's dtypes, devices and ``torch.Size`` become genesis's
    (Note [PyTorch checkpoints] in genesis/_torch_checkpoint.py).

    With ``weights_only=True`` only tensors, dtypes, devices, sizes, and plain Python containers
    and values are built: a file cannot make the loader import or run anything
    (``pickle.UnpicklingError`` naming the global instead), nor build more than a budget
    proportional to its size (Note [Load budget] in genesis/_restricted_unpickler.py). A damaged
    or hostile file raises ``pickle.UnpicklingError`` (its pickle) or ``ValueError`` (its
    archive), or the error of the check that refused a tensor's layout or a device it names,
    with a ``[load]`` message; so does a PyTorch tensor genesis has no dtype for (complex,
    float8, ...).

    Args:
        f: A path, or a binary file object open for reading.
        map_location: Where storages go: None (where they were saved), a device or its name
            (all of them there), a dict from saved device names to devices, or a function
            ``(cpu_storage, saved_device_name) -> storage``. Default: None.
        mmap: Lay CPU storages over a copy-on-write map of the file instead of reading them
            (``f`` must be a path, and a zip archive): loading costs no copy, pages are read
            when touched, and writes to the tensors stay in this process. Storages bound
            elsewhere than the CPU, or written in the other byte order, are read and copied as
            usual. Default: False.
        weights_only: Refuse anything but tensors, dtypes, devices, sizes and plain values.
            Default: True.

    Returns:
        The saved object.

    Example::

        >>> import io, genesis
        >>> buf = io.BytesIO()
        >>> x = genesis.arange(6.0)
        >>> genesis.save([x, x[2:4]], buf)
        >>> _ = buf.seek(0)
        >>> a, b = genesis.load(buf, map_location="cpu")
        >>> b.tolist(), a.untyped_storage()._cdata == b.untyped_storage()._cdata
        ([2.0, 3.0], True)
    """
    names = TorchNames(lambda saved: _target_device(map_location, saved))
    if _torch_legacy.is_legacy(f):
        if mmap:
            raise ValueError(
                "[load] mmap=True needs a zip archive: this is PyTorch's legacy format, whose "
                "storages are read"
            )
        return _torch_legacy.load_file(f, map_location, names, weights_only)
    mapped: _mmap.mmap | None = None
    if mmap:
        if not isinstance(f, (str, os.PathLike)):
            raise ValueError("[load] mmap=True needs a file path (a file object cannot be mapped)")
        with open(f, "rb") as raw:
            size = os.fstat(raw.fileno()).st_size
            if size > 0:  # (an empty file is refused below, as not a zip archive)
                mapped = _mmap.mmap(raw.fileno(), 0, access=_mmap.ACCESS_COPY)
    try:
        zf = zipfile.ZipFile(f, "r")
    except (zipfile.BadZipFile, EOFError, struct.error, UnicodeDecodeError, OverflowError) as e:
        raise ValueError(
            f"[load] not a genesis or PyTorch checkpoint (a zip archive, or PyTorch's legacy "
            f"format, expected): {e}"
        ) from None
    except ValueError as e:  # io.BytesIO: a directory at a negative offset
        raise ValueError(f"[load] not a checkpoint (a damaged zip file): {e}") from None
    except NotImplementedError as e:  # a zip feature zipfile lacks (a later zip version, ...)
        raise ValueError(f"[load] unsupported archive: {e}") from None
    with zf:
        archive_size = _archive_size(zf)
        names_in_zip = zf.namelist()
        pickles = [n for n in names_in_zip if n.endswith("/data.pkl") and n.count("/") == 1]
        if len(pickles) != 1:
            raise ValueError("[load] not a checkpoint archive: no single '<name>/data.pkl' entry")
        stem = pickles[0].split("/")[0]
        if zf.getinfo(pickles[0]).compress_type != zipfile.ZIP_STORED:
            raise ValueError(f"[load] entry {pickles[0]!r} is compressed: it must be stored")
        try:
            swap = _byte_order(zf, stem, archive_size) != sys.byteorder
        except NotImplementedError as e:
            raise ValueError(f"[load] unsupported archive: {e}") from None
        built: dict[str, UntypedStorage] = {}
        checks = _CrcChecks()

        def storage_of(pid: Any) -> UntypedStorage:
            key, saved_device, nbytes, storage_type = storage_reference(pid)
            storage = built.get(key)
            if storage is None:
                storage = built[key] = read_storage(key, saved_device, nbytes, storage_type)
            if storage_type is not None:
                names.note_storage(storage, storage_type)  # (the first reference's class counts)
            return storage

        def read_storage(
            key: str, saved_device: str, nbytes: int, storage_type: StorageType | None
        ) -> UntypedStorage:
            name = f"{stem}/data/{key}"
            try:
                info = zf.getinfo(name)
            except KeyError:
                raise ValueError(f"[load] the archive has no entry {name!r}") from None
            if info.compress_type != zipfile.ZIP_STORED or info.file_size != nbytes:
                raise ValueError(
                    f"[load] entry {name!r} is not {nbytes} stored bytes "
                    f"({info.file_size} bytes, compression {info.compress_type})"
                )
            _check_entry_size(info, archive_size)
            target = _target_device(map_location, saved_device)  # None: a callable places it
            where = f"storage {key!r} cannot be placed on {target!r}"
            unit = storage_type.swap_unit if swap and storage_type is not None else 1
            start = None
            if mapped is not None and target in (None, "cpu") and unit == 1:
                start = _aligned_data_start(mapped, info)
            if mapped is not None and start is not None:
                # Over the file's copy-on-write map: writes reach this process's pages only.
                storage = _storage_over_buffer(memoryview(mapped)[start : start + nbytes])
            elif unit > 1:
                storage = _read_swapped(zf, info, target, unit, where)
            elif target is not None and target.startswith("cuda"):
                storage = _placed(where, lambda: _read_to_cuda(zf, info, target, checks))
            elif target in (None, "cpu"):
                storage = _read_to_cpu(zf, info, checks)
            else:
                with _damaged_entry(name):
                    data = zf.read(name)
                storage = _placed(where, lambda: _storage_from_bytes(data, target))
            if target is None:
                place = cast(Callable[[UntypedStorage, str], UntypedStorage], map_location)
                storage = place(storage, saved_device)
            return storage

        try:
            payload = _read_pickle_entry(zf, zf.getinfo(pickles[0]), archive_size)
            result = _unpickle(payload, storage_of, names, weights_only)
            checks.finish()
            return result
        except NotImplementedError as e:  # a zip feature zipfile lacks (patched data, ...)
            raise ValueError(f"[load] unsupported archive: {e}") from None
        finally:
            # storage_of's closure and the unpickler that holds it may sit in a reference cycle
            # with an exception's traceback: without this, the loaded storages (gigabytes on a
            # GPU) could stay alive until the garbage collector ran.
            built.clear()
            checks.close()
