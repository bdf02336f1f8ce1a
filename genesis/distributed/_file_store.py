"""``FileStore``: a store in one file that several processes open together."""

from __future__ import annotations

import fcntl
import os
import struct
import threading
import time
import weakref

from genesis.distributed._store_base import (
    DistStoreError,
    Store,
    _added,
    _compared,
    _seconds,
)

# Note [FileStore records]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# The file is a log that only grows: each record is a kind byte (b"S" set, b"D" delete), the
# key's and the value's lengths (two big-endian u32) and their bytes. A writer takes an
# exclusive fcntl lock and appends a whole record with one write; a reader takes a shared lock,
# so it never sees half a record. Each FileStore replays the log from where it last stopped
# into a dict, so a read costs only the records written since. Keys that start with "\0" are
# the store's own (the count of users that closed, for world_size) and not the user's.

_RECORD_HEAD = struct.Struct("!cII")
_CLOSED_USERS = "\0genesis/closed_users"


class _FileLog:
    def __init__(self, path):
        self.path = path
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        self.data = {}
        self.offset = 0
        self.pending = b""
        self.lock = threading.Lock()  # threads of one process share the fd and the replay

    def close(self):
        with self.lock:
            if self.fd >= 0:
                os.close(self.fd)
                self.fd = -1

    def _replay(self):
        """Reads the records appended since the last replay (the caller holds a file lock)."""
        size = os.fstat(self.fd).st_size
        if size < self.offset + len(self.pending):  # the file was truncated: start over
            self.data, self.offset, self.pending = {}, 0, b""
        start = self.offset + len(self.pending)
        if size > start:
            buf = self.pending + os.pread(self.fd, size - start, start)
        else:
            buf = self.pending
        pos = 0
        while len(buf) - pos >= _RECORD_HEAD.size:
            kind, klen, vlen = _RECORD_HEAD.unpack_from(buf, pos)
            end = pos + _RECORD_HEAD.size + klen + vlen
            if end > len(buf):
                break
            kstart = pos + _RECORD_HEAD.size
            key = buf[kstart : kstart + klen].decode("utf-8")
            if kind == b"S":
                self.data[key] = buf[kstart + klen : end]
            else:
                self.data.pop(key, None)
            pos = end
        self.offset += pos
        self.pending = buf[pos:]

    def _append(self, kind, key, value=b""):
        k = key.encode("utf-8")
        os.write(self.fd, _RECORD_HEAD.pack(kind, len(k), len(value)) + k + value)

    def locked(self, exclusive):
        return _Locked(self, exclusive)


class _Locked:
    """``with log.locked(exclusive):`` holds the thread lock and the file lock, replayed."""

    def __init__(self, log, exclusive):
        self.log, self.exclusive = log, exclusive

    def __enter__(self):
        self.log.lock.acquire()
        try:
            if self.log.fd < 0:
                raise DistStoreError("[store.FileStore] the store is closed")
            fcntl.flock(self.log.fd, fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH)
        except BaseException:
            self.log.lock.release()
            raise
        try:
            self.log._replay()
        except BaseException:
            self.__exit__()
            raise
        return self.log

    def __exit__(self, *exc):
        fcntl.flock(self.log.fd, fcntl.LOCK_UN)
        self.log.lock.release()


def _close_file(log, world_size, path):
    """Closes a FileStore's file, counting the users that closed when world_size is known:
    the last one deletes the file. Runs once, from close() or when the store is collected."""
    if log.fd < 0:
        return
    try:
        if world_size > 0:
            with log.locked(True):
                closed = _added(_CLOSED_USERS, log.data.get(_CLOSED_USERS), 1)
                log._append(b"S", _CLOSED_USERS, str(closed).encode())
                if closed >= world_size:
                    try:
                        os.unlink(path)
                    except FileNotFoundError:
                        pass
    finally:
        log.close()


class FileStore(Store):
    """A store in a file that processes on one machine (or a shared file system) open together.

    Writes append records under an ``fcntl`` lock; ``get`` and ``wait`` poll the file with a
    short sleep until the timeout. With a positive ``world_size`` the last of that many stores
    to close deletes the file, as in PyTorch. Reusing a file of an earlier run keeps its keys,
    so use a fresh name per job.

    Args:
        file_name (str or os.PathLike): the file; created when missing.
        world_size (int): how many processes use the file, or -1 for any number (the file
            then stays). Default -1.

    Example::

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "store")
        >>> store = genesis.distributed.FileStore(path, 1)
        >>> store.set("x", b"1")
        >>> genesis.distributed.FileStore(path).get("x")
        b'1'
        >>> store.close()
        >>> os.path.exists(path)
        False
    """

    __module__ = "genesis.distributed"  # where users import it, as tracebacks show

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        if not isinstance(file_name, (str, os.PathLike)):
            raise TypeError(
                f"[store.FileStore] file_name must be a str or a path, got "
                f"{type(file_name).__name__}"
            )
        if isinstance(world_size, bool) or not isinstance(world_size, int):
            raise TypeError(
                f"[store.FileStore] world_size must be an int, got {type(world_size).__name__}"
            )
        if world_size == 0 or world_size < -1:
            raise ValueError(
                f"[store.FileStore] world_size must be positive or -1, got {world_size}"
            )
        self.path = os.fspath(file_name)
        self.world_size = world_size
        try:
            self._log = _FileLog(self.path)
        except OSError as e:
            raise DistStoreError(f"[store.FileStore] cannot open {self.path!r}: {e}") from e
        self._finalizer = weakref.finalize(self, _close_file, self._log, world_size, self.path)

    def close(self):
        """Closes the file; the last of ``world_size`` stores to close deletes it.

        Returns:
            None.

        Example::

            >>> import os, tempfile
            >>> store = genesis.distributed.FileStore(os.path.join(tempfile.mkdtemp(), "s"))
            >>> store.close()
        """
        self._finalizer()

    def _poll(self, ready, timeout):
        """Polls ``ready(data)`` under a shared lock until it holds or ``timeout`` passes."""
        deadline = time.monotonic() + _seconds(timeout)
        sleep = 0.001
        while True:
            with self._log.locked(False) as log:
                if ready(log.data):
                    return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(sleep, left))
            sleep = min(sleep * 2, 0.05)

    def _set(self, key, value):
        with self._log.locked(True) as log:
            log._append(b"S", key, value)

    def _get(self, key, timeout):
        if not self._poll(lambda data: key in data, timeout):
            return None
        with self._log.locked(False) as log:
            return log.data.get(key)

    def _add(self, key, amount):
        with self._log.locked(True) as log:
            new = _added(key, log.data.get(key), amount)
            log._append(b"S", key, str(new).encode())
            return new

    def _wait(self, keys, timeout):
        self._poll(lambda data: all(k in data for k in keys), timeout)
        with self._log.locked(False) as log:
            return [k for k in keys if k not in log.data]

    def _check(self, keys):
        with self._log.locked(False) as log:
            return all(k in log.data for k in keys)

    def _delete_key(self, key):
        with self._log.locked(True) as log:
            if key not in log.data:
                return False
            log._append(b"D", key)
            return True

    def _num_keys(self):
        with self._log.locked(False) as log:
            return sum(1 for k in log.data if not k.startswith("\0"))

    def _compare_set(self, key, expected, desired):
        with self._log.locked(True) as log:
            write, result = _compared(log.data.get(key), expected, desired)
            if write is not None:
                log._append(b"S", key, write)
            return result
