"""PyTorch's legacy checkpoints (before 1.6, or ``_use_new_zipfile_serialization=False``).

The file is one stream (Note [PyTorch checkpoints] in genesis/_torch_checkpoint.py): five
pickles, then each storage's item count and bytes. ``load_legacy`` finds where each pickle ends
without running it (Note [Legacy pickles]), unpickles it with the caller's unpickler (restricted
under weights_only), makes each storage the object refers to where it is going, empty, and fills
it from the bytes that follow once the key list says which comes where.
"""

from __future__ import annotations

import contextlib
import io
import mmap
import os
import pickle
import pickletools
import struct
from typing import IO, Any, Callable, cast

from genesis._C import UntypedStorage, _storage_from_bytes, _tensor_on_storage, empty, uint8
from genesis._restricted_unpickler import describe
from genesis._torch_checkpoint import StorageType, TorchNames

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001

# Note [Legacy pickles]
# ~~~~~~~~~~~~~~~~~~~~~
# The restricted unpickler spends a budget proportional to its pickle's size (Note [Load
# budget]), so it must be given that pickle alone, not the rest of a file of gigabytes. Where a
# pickle ends is found by reading its opcodes and their arguments' lengths (pickletools.genops)
# without building anything; every read is clipped to the file, so a length field of 2**62
# allocates nothing. Each storage the object refers to must fit in the bytes after the pickles
# (all of them together), so no storage larger than the file is made either.


class _Clipped:
    """A file over a buffer whose reads stop at its end (for pickletools.genops)."""

    def __init__(self, data: Any, pos: int) -> None:
        self._data = data
        self._pos = pos

    def read(self, n: int) -> bytes:
        n = max(0, min(n, len(self._data) - self._pos))
        self._pos += n
        return bytes(self._data[self._pos - n : self._pos])

    def readline(self) -> bytes:
        end = self._data.find(b"\n", self._pos)
        end = len(self._data) if end < 0 else end + 1
        line = bytes(self._data[self._pos : end])
        self._pos = end
        return line

    def tell(self) -> int:
        return self._pos


def _pickle_at(data: Any, start: int, what: str) -> bytes:
    """The bytes of the pickle that starts at ``start`` (Note [Legacy pickles])."""
    reader = _Clipped(data, start)
    try:
        for _ in pickletools.genops(cast(IO[bytes], reader)):
            pass
    except (ValueError, OverflowError, struct.error, IndexError, UnicodeDecodeError) as e:
        raise ValueError(
            f"[load] legacy PyTorch file: {what} at byte {start} is damaged or truncated ({e})"
        ) from None
    return bytes(data[start : reader.tell()])


def is_legacy(f: str | os.PathLike | IO[bytes]) -> bool:
    """Whether a file starts as a pickle (PROTO), as a legacy file's magic number does, not as a
    zip archive (False where a file object cannot be read and rewound: zipfile will say)."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as raw:
            return raw.read(1) == b"\x80"
    try:
        at = f.tell()
        head = f.read(1)
        f.seek(at)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False
    return head == b"\x80"


class _Storages:
    """The storages the object refers to, by key: made at their first reference, filled later."""

    def __init__(
        self, place: Callable[[str, int, str], UntypedStorage], names: TorchNames, room: int
    ) -> None:
        self._place = place
        self._names = names
        self._room = room  # bytes left in the file after the pickles, for all storages
        self.by_key: dict[str, tuple[UntypedStorage, StorageType, int]] = {}

    def reference(self, pid: Any) -> Any:
        if type(pid) is tuple and len(pid) == 4 and pid[:1] in (("module",), (b"module",)):
            # ("module", class, source file, source): a whole nn.Module saved with its class;
            # the class itself was loaded by find_class (refused under weights_only).
            return pid[1]
        if not (
            type(pid) is tuple
            and len(pid) == 6
            and pid[0] in ("storage", b"storage")
            and isinstance(pid[1], StorageType)
            and type(pid[2]) is str
            and type(pid[3]) in (str, bytes)
            and type(pid[4]) is int
            and pid[4] >= 0
        ):
            raise pickle.UnpicklingError(f"[load] malformed storage reference {describe(pid)}")
        _, storage_type, key, location, numel, view = pid
        location = location.decode("ascii") if type(location) is bytes else location
        found = self.by_key.get(key)
        if found is None:
            nbytes = numel * storage_type.itemsize
            if nbytes > self._room:
                raise ValueError(
                    f"[load] legacy PyTorch file: storage {key!r} of {nbytes} bytes does not fit "
                    f"in the {self._room} bytes left in the file"
                )
            self._room -= nbytes
            storage = self._place(location, nbytes, key)
            found = self.by_key[key] = (storage, storage_type, nbytes)
            self._names.note_storage(storage, storage_type)
        if view is not None:
            # (view_key, offset, numel): a storage inside another, written before PyTorch 1.0;
            # genesis's storages have no views of others: only the whole one is taken.
            if not (type(view) is tuple and len(view) == 3 and view[1] == 0 and view[2] == numel):
                raise ValueError(
                    f"[load] legacy PyTorch file: genesis cannot load a view of storage {key!r} "
                    f"({describe(view)}): it has no storage views"
                )
        return found[0]

    def fill(self, data: Any, pos: int, keys: Any) -> int:
        """Fills the storages from the records after the pickles; returns where they end."""
        if type(keys) is not list or not all(type(k) is str for k in keys):
            raise ValueError(f"[load] legacy PyTorch file: the storage keys are {describe(keys)}")
        if len(set(keys)) != len(keys) or set(keys) != set(self.by_key):
            raise ValueError(
                f"[load] legacy PyTorch file: its storage keys {describe(sorted(keys))} are not "
                f"the storages its object refers to {describe(sorted(self.by_key))}"
            )
        view = memoryview(data)
        for key in keys:
            storage, storage_type, nbytes = self.by_key[key]
            if pos + 8 > len(data):
                raise ValueError(f"[load] legacy PyTorch file: storage {key!r} is missing")
            (numel,) = struct.unpack_from("<q", data, pos)
            if numel * storage_type.itemsize != nbytes or pos + 8 + nbytes > len(data):
                raise ValueError(
                    f"[load] legacy PyTorch file: storage {key!r} holds {numel} items of "
                    f"{storage_type.itemsize} bytes where {nbytes} bytes (of "
                    f"{len(data) - pos - 8} left) were expected"
                )
            _copy_into(storage, view[pos + 8 : pos + 8 + nbytes], key)
            pos += 8 + nbytes
        return pos


def _copy_into(storage: UntypedStorage, source: memoryview, key: str) -> None:
    """The bytes into a storage made for them, on whichever device it is."""
    n = len(source)
    if storage.nbytes() != n:
        raise ValueError(
            f"[load] legacy PyTorch file: storage {key!r} was placed as {storage.nbytes()} "
            f"bytes, not its {n}"
        )
    if n == 0:
        return
    target = _tensor_on_storage(storage, 0, [n], [1], uint8)
    if str(storage.device) == "cpu":
        target.numpy().data.cast("B")[:] = source
    else:
        host = _tensor_on_storage(_storage_from_bytes(source, "cpu"), 0, [n], [1], uint8)
        target.copy_(host)


def load_legacy(
    data: Any,
    names: TorchNames,
    unpickle: Callable[[bytes, Callable[[Any], Any]], Any],
    plain: Callable[[bytes, Callable[[Any], Any]], Any],
    place: Callable[[str, int, str], UntypedStorage],
) -> Any:
    """Reads a legacy checkpoint held in ``data`` (bytes, or a map of the file).

    Args:
        data: The file's bytes.
        names: PyTorch's names for this load (the storage classes are noted there).
        unpickle: ``(pickle, persistent_load) -> object``: the load's unpickler, for the object.
        plain: The same, restricted, for the pickles of plain values around it.
        place: ``(location, nbytes, key) -> storage``: an empty storage where the load sends
            one saved at ``location``.

    Returns:
        The saved object.
    """

    def no_reference(pid: Any) -> Any:
        raise pickle.UnpicklingError(
            f"[load] legacy PyTorch file: a header refers to a storage {describe(pid)}"
        )

    pos = 0

    def header(what: str) -> Any:
        nonlocal pos
        payload = _pickle_at(data, pos, f"its {what}")
        pos += len(payload)
        return plain(payload, no_reference)

    magic = header("magic number")
    if type(magic) is not int or magic != MAGIC_NUMBER:
        raise ValueError(
            "[load] not a genesis or PyTorch checkpoint: neither a zip archive nor a legacy "
            f"PyTorch file (its first pickle is {describe(magic)}, not PyTorch's magic number)"
        )
    version = header("protocol version")
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise ValueError(f"[load] legacy PyTorch file of protocol {describe(version)}, not 1001")
    # (the writer's byte order and type sizes: its storages' bytes are little-endian anyway)
    info = header("system info")
    if not isinstance(info, dict):
        raise ValueError(f"[load] legacy PyTorch file: its system info is {describe(info)}")
    obj_pickle = _pickle_at(data, pos, "its object")
    pos += len(obj_pickle)
    keys_pickle = _pickle_at(data, pos, "its storage keys")
    pos += len(keys_pickle)
    storages = _Storages(place, names, room=len(data) - pos)
    try:
        result = unpickle(obj_pickle, storages.reference)
        keys = plain(keys_pickle, no_reference)
        storages.fill(data, pos, keys)
        return result
    finally:
        storages.by_key.clear()  # (the storages live on in the result only)


def load_file(
    f: str | os.PathLike | IO[bytes], map_location: Any, names: TorchNames, weights_only: bool
) -> Any:
    """``genesis.load`` of a legacy checkpoint: read from a read-only map of a path, or from a
    file object's bytes.

    Args:
        f: A path, or a binary file object open for reading.
        map_location: ``genesis.load``'s.
        names: PyTorch's names for this load.
        weights_only: ``genesis.load``'s: under it, the object's pickle is read restricted (the
            pickles of plain values around it always are).

    Returns:
        The saved object.
    """
    from genesis.serialization import _placed, _target_device, _unpickle

    def place(location: str, nbytes: int, key: str) -> UntypedStorage:
        # An empty storage where the storage saved at `location` goes; filled after the pickles.
        target = _target_device(map_location, location)
        if target is None:  # a callable, given the CPU storage (empty yet, as in torch.load)
            return map_location(empty(nbytes, dtype=uint8).untyped_storage(), location)
        where = f"storage {key!r} cannot be placed on {target!r}"
        return _placed(where, lambda: empty(nbytes, dtype=uint8, device=target).untyped_storage())

    def unpickle(payload: bytes, persistent_load: Callable[[Any], Any]) -> Any:
        return _unpickle(payload, persistent_load, names, weights_only)

    def plain(payload: bytes, persistent_load: Callable[[Any], Any]) -> Any:
        return _unpickle(payload, persistent_load, names, True)

    mapped: mmap.mmap | None = None
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as raw:
            mapped = mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ)
        data: Any = mapped
    else:
        data = f.read()
    try:
        return load_legacy(data, names, unpickle, plain, place)
    finally:
        if mapped is not None:
            with contextlib.suppress(BufferError):  # (a view still alive: the map closes later)
                mapped.close()
