"""Key-value stores for rendezvous, with ``torch.distributed``'s store semantics.

Processes that are about to talk through NCCL first need a cheaper channel to agree on things:
the communicator's unique id, "everyone is here" barriers, debug checks. A store is that channel:
a dictionary of byte strings that every process can read and write, whose ``get`` waits for a
key that another process has not written yet.

Four stores, as in PyTorch: ``HashStore`` (one process, any threads), ``TCPStore`` (a server in
the master process, clients everywhere), ``FileStore`` (one file that several processes share)
and ``PrefixStore`` (a namespace over another store).

Note [Store layers]
~~~~~~~~~~~~~~~~~~~
``Store`` checks the arguments (every message starts with ``[store.<method>]``) and turns the
timeouts into deadlines; a subclass implements a handful of primitives (``_set``, ``_get``,
``_add`` ...) on checked arguments. ``get`` and ``wait`` block: each store waits in its own way
(a condition variable in memory and on the TCP server, polling for the file). The in-memory
dictionary with its condition, ``_Table``, is shared by ``HashStore`` and the TCP server, so the
two cannot disagree on what ``add`` or ``compare_set`` does.

Note [Store counters]
~~~~~~~~~~~~~~~~~~~~~
``add`` keeps the counter as its decimal digits (``b"3"``), as PyTorch does, so ``get`` of a
counter gives bytes that ``int()`` reads, and ``add`` on a key that ``set`` wrote with digits
works. Adding to a key whose value is not an integer is a ``ValueError``.
"""

from __future__ import annotations

import datetime
import fcntl
import ipaddress
import os
import selectors
import socket
import struct
import threading
import time
import weakref

__all__ = ["DistStoreError", "FileStore", "HashStore", "PrefixStore", "Store", "TCPStore"]

_DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)


class DistStoreError(RuntimeError):
    """A store operation failed: a timeout, or a store that cannot be reached.

    ``get`` and ``wait`` raise it when the keys do not appear before the timeout, and
    ``TCPStore`` when no server answers at its address. It is a ``RuntimeError``, as PyTorch's
    ``torch.distributed.DistStoreError`` is.
    """


# ---------------------------------------------------------------------------------------------
# Argument checks, shared by every store


def _check_key(method, key, what="key"):
    if not isinstance(key, str):
        raise TypeError(f"[store.{method}] {what} must be a str, got {type(key).__name__}")
    return key


def _check_keys(method, keys):
    if isinstance(keys, (str, bytes)) or not isinstance(keys, (list, tuple)):
        raise TypeError(f"[store.{method}] keys must be a list of str, got {type(keys).__name__}")
    return [_check_key(method, k, "every key") for k in keys]


def _to_bytes(method, value, what="value"):
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise TypeError(f"[store.{method}] {what} must be bytes or str, got {type(value).__name__}")


def _check_timeout(method, timeout):
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(
            f"[store.{method}] timeout must be a datetime.timedelta, got {type(timeout).__name__}"
        )
    if timeout < datetime.timedelta(0):
        raise ValueError(f"[store.{method}] timeout must not be negative, got {timeout}")
    return timeout


def _seconds(timeout):
    return timeout.total_seconds()


def _get_timeout_error(key, timeout):
    return DistStoreError(
        f"[store.get] timed out after {_seconds(timeout)} s waiting for key {key!r}"
    )


def _wait_timeout_error(missing, timeout):
    return DistStoreError(
        f"[store.wait] timed out after {_seconds(timeout)} s waiting for keys {missing!r}"
    )


def _added(key, current, amount):
    """The new value of a counter: ``current`` (bytes or None) plus ``amount``."""
    if current is None:
        return amount
    try:
        return int(current) + amount
    except ValueError:
        raise ValueError(
            f"[store.add] the value of key {key!r} is {current[:40]!r}, not an integer"
        ) from None


def _compared(current, expected, desired):
    """(value to store or None, value to return) of compare_set, as PyTorch defines it: a
    missing key counts as matching an empty ``expected``, and a missing key that does not match
    returns ``expected``."""
    if current is None:
        return (desired, desired) if expected == b"" else (None, expected)
    return (desired, desired) if current == expected else (None, current)


class Store:
    """The interface every store has: a dictionary of byte strings shared between processes.

    ``torch.distributed.Store``'s methods: ``set``, ``get`` (which waits for the key),
    ``add`` (an atomic counter), ``wait``, ``check``, ``delete_key``, ``num_keys``,
    ``compare_set`` and the ``timeout`` that ``get`` and ``wait`` use. Use one of the
    subclasses: ``HashStore``, ``TCPStore``, ``FileStore`` or ``PrefixStore``.

    Args:
        timeout (datetime.timedelta): how long ``get`` and ``wait`` wait. Default 300 seconds.

    Example::

        >>> store = genesis.distributed.HashStore()
        >>> isinstance(store, genesis.distributed.Store)
        True
    """

    def __init__(self, timeout=_DEFAULT_TIMEOUT):
        self._timeout = _check_timeout("__init__", timeout)

    # -- the public methods: checks, then the primitives --------------------------------------

    def set(self, key, value):
        """Writes ``value`` under ``key``, replacing what was there, and wakes its waiters.

        Args:
            key (str): the key.
            value (bytes or str): the value; a str is stored as its UTF-8 bytes.

        Returns:
            None.

        Example::

            >>> store = genesis.distributed.HashStore()
            >>> store.set("name", "genesis")
            >>> store.get("name")
            b'genesis'
        """
        self._set(_check_key("set", key), _to_bytes("set", value))

    def get(self, key):
        """The value of ``key``, waiting up to the store's timeout for another process to
        write it.

        Args:
            key (str): the key.

        Returns:
            bytes: the value.

        Raises:
            DistStoreError: when the key does not appear before the timeout.

        Example::

            >>> store = genesis.distributed.HashStore()
            >>> store.set("x", b"1")
            >>> store.get("x")
            b'1'
        """
        _check_key("get", key)
        timeout = self.timeout
        value = self._get(key, timeout)
        if value is None:
            raise _get_timeout_error(key, timeout)
        return value

    def add(self, key, amount):
        """Adds ``amount`` to the counter ``key`` atomically and gives the new value.

        A missing key starts at 0. The counter is stored as its decimal digits, so ``get``
        gives ``b"5"`` for 5.

        Args:
            key (str): the counter's key.
            amount (int): what to add; may be negative or 0 (which reads the counter).

        Returns:
            int: the counter after the addition.

        Example::

            >>> store = genesis.distributed.HashStore()
            >>> store.add("n", 2)
            2
            >>> store.add("n", 3)
            5
        """
        _check_key("add", key)
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise TypeError(f"[store.add] amount must be an int, got {type(amount).__name__}")
        return self._add(key, amount)

    def wait(self, keys, timeout=None):
        """Waits until every key in ``keys`` exists.

        Args:
            keys (list of str): the keys.
            timeout (datetime.timedelta or None): how long to wait. Default None: the store's
                timeout.

        Returns:
            None.

        Raises:
            DistStoreError: when some key is still missing after the timeout.

        Example::

            >>> import datetime
            >>> store = genesis.distributed.HashStore()
            >>> store.set("ready", b"")
            >>> store.wait(["ready"], datetime.timedelta(seconds=1))
        """
        keys = _check_keys("wait", keys)
        timeout = self.timeout if timeout is None else _check_timeout("wait", timeout)
        missing = self._wait(keys, timeout)
        if missing:
            raise _wait_timeout_error(missing, timeout)

    def check(self, keys):
        """Whether every key in ``keys`` exists now; does not wait.

        Args:
            keys (list of str): the keys.

        Returns:
            bool: True when all of them exist.

        Example::

            >>> store = genesis.distributed.HashStore()
            >>> store.set("a", b"1")
            >>> store.check(["a"]), store.check(["a", "b"])
            (True, False)
        """
        return self._check(_check_keys("check", keys))

    def delete_key(self, key):
        """Removes ``key``.

        Args:
            key (str): the key.

        Returns:
            bool: True when the key existed.

        Example::

            >>> store = genesis.distributed.HashStore()
            >>> store.set("a", b"1")
            >>> store.delete_key("a"), store.delete_key("a")
            (True, False)
        """
        return self._delete_key(_check_key("delete_key", key))

    def num_keys(self):
        """The number of keys in the store.

        Only keys that users wrote count (PyTorch's ``TCPStore`` also counts a key of its own).

        Returns:
            int: the number of keys.

        Example::

            >>> store = genesis.distributed.HashStore()
            >>> store.set("a", b"1")
            >>> store.num_keys()
            1
        """
        return self._num_keys()

    def compare_set(self, key, expected_value, desired_value):
        """Writes ``desired_value`` under ``key`` if its value is ``expected_value``, atomically.

        A missing key matches an empty ``expected_value``. As in PyTorch, the result is what
        the key holds afterwards, except for a missing key that did not match, which gives
        ``expected_value``.

        Args:
            key (str): the key.
            expected_value (bytes or str): the value the key must have.
            desired_value (bytes or str): the value to write.

        Returns:
            bytes: ``desired_value`` when it was written; the current value otherwise.

        Example::

            >>> store = genesis.distributed.HashStore()
            >>> store.compare_set("k", "", "first")
            b'first'
            >>> store.compare_set("k", "other", "second")
            b'first'
        """
        _check_key("compare_set", key)
        expected = _to_bytes("compare_set", expected_value, "expected_value")
        desired = _to_bytes("compare_set", desired_value, "desired_value")
        return self._compare_set(key, expected, desired)

    def set_timeout(self, timeout):
        """Changes how long ``get`` and ``wait`` wait.

        Args:
            timeout (datetime.timedelta): the new timeout; 0 means do not wait.

        Returns:
            None.

        Example::

            >>> import datetime
            >>> store = genesis.distributed.HashStore()
            >>> store.set_timeout(datetime.timedelta(seconds=10))
            >>> store.timeout
            datetime.timedelta(seconds=10)
        """
        self._timeout = _check_timeout("set_timeout", timeout)

    @property
    def timeout(self):
        """How long ``get`` and ``wait`` wait, a ``datetime.timedelta``.

        Example::

            >>> genesis.distributed.HashStore().timeout
            datetime.timedelta(seconds=300)
        """
        return self._timeout

    # -- the primitives a store implements (arguments already checked) ------------------------

    def _set(self, key, value):
        raise NotImplementedError(f"[store.set] {type(self).__name__} does not implement set")

    def _get(self, key, timeout):
        """The value, or None when the key did not appear within ``timeout``."""
        raise NotImplementedError(f"[store.get] {type(self).__name__} does not implement get")

    def _add(self, key, amount):
        raise NotImplementedError(f"[store.add] {type(self).__name__} does not implement add")

    def _wait(self, keys, timeout):
        """The keys still missing after waiting up to ``timeout`` (empty: all there)."""
        raise NotImplementedError(f"[store.wait] {type(self).__name__} does not implement wait")

    def _check(self, keys):
        raise NotImplementedError(f"[store.check] {type(self).__name__} does not implement check")

    def _delete_key(self, key):
        raise NotImplementedError(
            f"[store.delete_key] {type(self).__name__} does not implement delete_key"
        )

    def _num_keys(self):
        raise NotImplementedError(
            f"[store.num_keys] {type(self).__name__} does not implement num_keys"
        )

    def _compare_set(self, key, expected, desired):
        raise NotImplementedError(
            f"[store.compare_set] {type(self).__name__} does not implement compare_set"
        )


# ---------------------------------------------------------------------------------------------
# In memory: HashStore, and the table the TCP server keeps


class _Table:
    """A dict of bytes with a condition that wakes waiters on every write (Note [Store layers]).

    ``closed`` ends every wait at once (the TCP server sets it when it shuts down)."""

    def __init__(self):
        self.data = {}
        self.cond = threading.Condition()
        self.closed = False

    def _wait_until(self, ready, timeout):
        deadline = time.monotonic() + _seconds(timeout)
        with self.cond:
            while not ready() and not self.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            return ready()

    def set(self, key, value):
        with self.cond:
            self.data[key] = value
            self.cond.notify_all()

    def get(self, key, timeout):
        self._wait_until(lambda: key in self.data, timeout)
        with self.cond:
            return self.data.get(key)

    def add(self, key, amount):
        with self.cond:
            new = _added(key, self.data.get(key), amount)
            self.data[key] = str(new).encode()
            self.cond.notify_all()
            return new

    def wait(self, keys, timeout):
        self._wait_until(lambda: all(k in self.data for k in keys), timeout)
        with self.cond:
            return [k for k in keys if k not in self.data]

    def check(self, keys):
        with self.cond:
            return all(k in self.data for k in keys)

    def delete_key(self, key):
        with self.cond:
            return self.data.pop(key, None) is not None

    def num_keys(self):
        with self.cond:
            return len(self.data)

    def compare_set(self, key, expected, desired):
        with self.cond:
            write, result = _compared(self.data.get(key), expected, desired)
            if write is not None:
                self.data[key] = write
                self.cond.notify_all()
            return result


class HashStore(Store):
    """A store in this process's memory; thread-safe, for threads of one process and tests.

    Example::

        >>> store = genesis.distributed.HashStore()
        >>> store.set("key", "value")
        >>> store.get("key")
        b'value'
    """

    def __init__(self):
        super().__init__()
        self._table = _Table()

    def _set(self, key, value):
        self._table.set(key, value)

    def _get(self, key, timeout):
        return self._table.get(key, timeout)

    def _add(self, key, amount):
        return self._table.add(key, amount)

    def _wait(self, keys, timeout):
        return self._table.wait(keys, timeout)

    def _check(self, keys):
        return self._table.check(keys)

    def _delete_key(self, key):
        return self._table.delete_key(key)

    def _num_keys(self):
        return self._table.num_keys()

    def _compare_set(self, key, expected, desired):
        return self._table.compare_set(key, expected, desired)


# ---------------------------------------------------------------------------------------------
# PrefixStore


class PrefixStore(Store):
    """A namespace in another store: every key becomes ``prefix + "/" + key``.

    The timeout and ``num_keys`` are the underlying store's (``num_keys`` counts all of its
    keys, as in PyTorch).

    Args:
        prefix (str): the namespace.
        store (Store): the store that holds the keys.

    Example::

        >>> base = genesis.distributed.HashStore()
        >>> store = genesis.distributed.PrefixStore("job1", base)
        >>> store.set("x", b"1")
        >>> base.get("job1/x")
        b'1'
    """

    def __init__(self, prefix, store):
        _check_key("PrefixStore", prefix, "prefix")
        if not isinstance(store, Store):
            raise TypeError(
                f"[store.PrefixStore] store must be a genesis.distributed.Store, got "
                f"{type(store).__name__}"
            )
        self._prefix = prefix
        self._store = store

    @property
    def underlying_store(self):
        """The store that holds the prefixed keys.

        Example::

            >>> base = genesis.distributed.HashStore()
            >>> genesis.distributed.PrefixStore("p", base).underlying_store is base
            True
        """
        return self._store

    def _k(self, key):
        return f"{self._prefix}/{key}"

    @property
    def timeout(self):
        """The underlying store's timeout, a ``datetime.timedelta``.

        Example::

            >>> base = genesis.distributed.HashStore()
            >>> genesis.distributed.PrefixStore("p", base).timeout
            datetime.timedelta(seconds=300)
        """
        return self._store.timeout

    def set_timeout(self, timeout):
        """Changes the underlying store's timeout.

        Args:
            timeout (datetime.timedelta): the new timeout.

        Returns:
            None.

        Example::

            >>> import datetime
            >>> base = genesis.distributed.HashStore()
            >>> genesis.distributed.PrefixStore("p", base).set_timeout(datetime.timedelta(0))
            >>> base.timeout
            datetime.timedelta(0)
        """
        self._store.set_timeout(_check_timeout("set_timeout", timeout))

    def _set(self, key, value):
        self._store.set(self._k(key), value)

    def _get(self, key, timeout):
        return self._store._get(self._k(key), timeout)

    def _add(self, key, amount):
        return self._store.add(self._k(key), amount)

    def _wait(self, keys, timeout):
        missing = self._store._wait([self._k(k) for k in keys], timeout)
        return [k[len(self._prefix) + 1 :] for k in missing]

    def _check(self, keys):
        return self._store.check([self._k(k) for k in keys])

    def _delete_key(self, key):
        return self._store.delete_key(self._k(key))

    def _num_keys(self):
        return self._store.num_keys()

    def _compare_set(self, key, expected, desired):
        return self._store.compare_set(self._k(key), expected, desired)


# ---------------------------------------------------------------------------------------------
# FileStore

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


# ---------------------------------------------------------------------------------------------
# TCPStore

# Note [TCPStore protocol]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# A message is a list of byte strings: a u32 count, then each field as a u32 length and its
# bytes (big-endian). A request's first field names the operation (b"set", b"get" ...), a
# reply's first field is its status (b"ok", b"timeout", b"value_error", b"error"). Numbers
# travel as decimal digits. Nothing is unpickled, and fields over _MAX_FIELD are refused, so a
# stray connection cannot make the server run code or allocate without bound.
#
# The server keeps a _Table and serves each connection on its own thread, so a blocking get
# waits on the server's condition variable, not by polling. A client keeps a small pool of
# connections: a thread that blocks in get does not hold up another thread that sets the key.
# The first connection says b"hello", which is how the master counts the workers that
# arrived (wait_for_workers); the count is not a key, so num_keys sees only the user's keys.

_U32 = struct.Struct("!I")
_MAX_FIELD = 1 << 30
_MAX_FIELDS = 1 << 20


class _Closed(Exception):
    """The peer closed the connection."""


def _recv_exact(sock, n):
    chunks, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise _Closed()
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _send_msg(sock, fields):
    parts = [_U32.pack(len(fields))]
    for f in fields:
        parts += [_U32.pack(len(f)), f]
    sock.sendall(b"".join(parts))


def _recv_msg(sock):
    (count,) = _U32.unpack(_recv_exact(sock, 4))
    if count > _MAX_FIELDS:
        raise ValueError(f"a message of {count} fields")
    fields = []
    for _ in range(count):
        (n,) = _U32.unpack(_recv_exact(sock, 4))
        if n > _MAX_FIELD:
            raise ValueError(f"a field of {n} bytes")
        fields.append(_recv_exact(sock, n))
    return fields


def _ms(timeout):
    return str(int(_seconds(timeout) * 1000)).encode()


def _from_ms(field):
    return datetime.timedelta(milliseconds=int(field))


def _listen(host, port):
    """The listening socket (Note [TCPStore listening address])."""
    try:
        loopback = ipaddress.ip_address(socket.gethostbyname(host)).is_loopback
    except (OSError, ValueError):
        loopback = False
    if loopback or host in ("::1", "localhost"):
        return socket.create_server((host, port), backlog=128)
    if socket.has_dualstack_ipv6():
        return socket.create_server(
            ("", port), family=socket.AF_INET6, dualstack_ipv6=True, backlog=128
        )
    return socket.create_server(("", port), backlog=128)


# Note [TCPStore listening address]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# As PyTorch's, the server listens on every interface, because the address the clients use
# (MASTER_ADDR) may be a name or an address that the master cannot bind as given (NAT, a
# hostname that resolves to 127.0.1.1 locally). A loopback address is the exception: a job on
# one machine keeps its store off the network.


class _Server:
    """The master's server: an accept thread and one thread per connection, all daemons."""

    def __init__(self, host, port):
        self.table = _Table()
        self.workers = 0  # connections that said hello, under table.cond
        self.listener = _listen(host, port)
        self.port = self.listener.getsockname()[1]
        self.wake_r, self.wake_w = socket.socketpair()
        self.conns = set()
        self.threads = set()
        self.lock = threading.Lock()
        self.closed = False
        self.accept_thread = threading.Thread(
            target=self._accept_loop, name=f"genesis-TCPStore-{self.port}", daemon=True
        )
        self.accept_thread.start()

    def _accept_loop(self):
        sel = selectors.DefaultSelector()
        sel.register(self.listener, selectors.EVENT_READ)
        sel.register(self.wake_r, selectors.EVENT_READ)
        try:
            while True:
                for key, _ in sel.select():
                    if key.fileobj is self.wake_r:
                        return
                    try:
                        conn, _addr = self.listener.accept()
                    except OSError:
                        continue
                    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    with self.lock:
                        if self.closed:
                            conn.close()
                            return
                        name = f"genesis-TCPStore-{self.port}-conn"
                        t = threading.Thread(target=self._serve, args=(conn,), name=name)
                        t.daemon = True
                        self.conns.add(conn)
                        self.threads.add(t)
                    t.start()
        finally:
            sel.close()

    def _serve(self, conn):
        try:
            while True:
                try:
                    request = _recv_msg(conn)
                except (_Closed, OSError, ValueError):
                    return
                try:
                    reply = self._handle(request)
                except ValueError as e:
                    reply = [b"value_error", str(e).encode()]
                except Exception as e:  # a malformed request: tell the client, keep serving
                    reply = [b"error", f"{type(e).__name__}: {e}".encode()]
                try:
                    _send_msg(conn, reply)
                except OSError:
                    return
        finally:
            with self.lock:
                self.conns.discard(conn)
                self.threads.discard(threading.current_thread())
            conn.close()

    def _handle(self, req):
        op, args = req[0], req[1:]
        t = self.table
        if op == b"set":
            t.set(args[0].decode(), args[1])
            return [b"ok"]
        if op == b"get":
            value = t.get(args[0].decode(), _from_ms(args[1]))
            return [b"timeout"] if value is None else [b"ok", value]
        if op == b"add":
            return [b"ok", str(t.add(args[0].decode(), int(args[1]))).encode()]
        if op == b"wait":
            missing = t.wait([k.decode() for k in args[1:]], _from_ms(args[0]))
            return [b"timeout", *(k.encode() for k in missing)] if missing else [b"ok"]
        if op == b"check":
            return [b"ok", b"1" if t.check([k.decode() for k in args]) else b"0"]
        if op == b"delete_key":
            return [b"ok", b"1" if t.delete_key(args[0].decode()) else b"0"]
        if op == b"num_keys":
            return [b"ok", str(t.num_keys()).encode()]
        if op == b"compare_set":
            return [b"ok", t.compare_set(args[0].decode(), args[1], args[2])]
        if op == b"hello":
            with t.cond:
                self.workers += 1
                t.cond.notify_all()
            return [b"ok"]
        raise RuntimeError(f"unknown operation {op[:40]!r}")

    def wait_for_workers(self, n, timeout):
        t = self.table
        t._wait_until(lambda: self.workers >= n, timeout)
        with t.cond:
            return self.workers

    def close(self):
        with self.lock:
            if self.closed:
                return
            self.closed = True
            conns, threads = list(self.conns), list(self.threads)
        self.wake_w.send(b"x")
        self.accept_thread.join(5)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in recv
            except OSError:
                pass
        # After the shutdowns, so that a get ended here finds its connection gone and its
        # client reports the lost server, not a timeout.
        with self.table.cond:
            self.table.closed = True
            self.table.cond.notify_all()
        for t in threads:
            t.join(5)
        self.listener.close()
        self.wake_r.close()
        self.wake_w.close()


class _Client:
    """A pool of connections to one server (Note [TCPStore protocol])."""

    def __init__(self, host, port, timeout):
        self.host, self.port = host, port
        self.timeout = timeout
        self.idle = []
        self.all = set()
        self.lock = threading.Lock()
        self.closed = False

    def where(self):
        return f"{self.host}:{self.port}"

    def connect(self, timeout):
        """A new connection, retrying until ``timeout`` while nothing answers."""
        deadline = time.monotonic() + _seconds(timeout)
        delay, last = 0.01, None
        while True:
            left = deadline - time.monotonic()
            try:
                sock = socket.create_connection((self.host, self.port), timeout=max(left, 0.1))
                break
            except OSError as e:
                last = e
            if left <= 0:
                raise DistStoreError(
                    f"[store.TCPStore] could not connect to the store at {self.where()} within "
                    f"{_seconds(timeout)} s: {last}"
                )
            time.sleep(min(delay, max(left, 0)))
            delay = min(delay * 2, 0.5)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.lock:
            if self.closed:
                sock.close()
                raise DistStoreError(f"[store.TCPStore] the store at {self.where()} is closed")
            self.all.add(sock)
        return sock

    def request(self, method, fields, wait=None):
        """Sends one request and gives the reply; ``wait`` is how long the server may block."""
        with self.lock:
            if self.closed:
                raise DistStoreError(f"[store.{method}] the store at {self.where()} is closed")
            sock = self.idle.pop() if self.idle else None
        if sock is None:
            sock = self.connect(self.timeout)
        # A blocking request may take its wait and then some; others should answer at once
        # but get the store's timeout (at least 30 s) before the server counts as lost.
        limit = max(_seconds(self.timeout), 30.0) + (_seconds(wait) if wait else 0.0)
        try:
            sock.settimeout(limit)
            _send_msg(sock, fields)
            reply = _recv_msg(sock)
        except (OSError, _Closed, ValueError) as e:
            self._drop(sock)
            detail = "it closed the connection" if isinstance(e, _Closed) else str(e)
            raise DistStoreError(
                f"[store.{method}] lost the connection to the store at {self.where()}: {detail}"
            ) from None
        with self.lock:
            if self.closed:
                self.all.discard(sock)
                sock.close()
            else:
                self.idle.append(sock)
        status = reply[0]
        if status == b"value_error":
            raise ValueError(reply[1].decode())
        if status == b"error":
            raise DistStoreError(f"[store.{method}] the server failed: {reply[1].decode()}")
        return status, reply[1:]

    def _drop(self, sock):
        with self.lock:
            self.all.discard(sock)
        sock.close()

    def close(self):
        with self.lock:
            self.closed = True
            socks, self.all, self.idle = list(self.all), set(), []
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


def _close_tcp(client, server):
    client.close()
    if server is not None:
        server.close()


class TCPStore(Store):
    """A store served over TCP by the master process, which every process connects to.

    The master (``is_master=True``) starts a small server on a daemon thread; every store,
    the master's included, is a client of it. Clients retry connecting until the timeout, so
    they may start before the master. The server stops when the master's store is closed or
    garbage collected.

    Args:
        host_name (str): the master's address, as the clients reach it.
        port (int): the port; on the master, 0 picks a free one (see ``port``).
        world_size (int or None): how many stores (the master's included) will connect.
            Default None: not known.
        is_master (bool): whether this store runs the server. Default False.
        timeout (datetime.timedelta): how long connecting, ``get`` and ``wait`` wait.
            Default 300 seconds.
        wait_for_workers (bool): on the master with a ``world_size``, whether the constructor
            waits until ``world_size`` stores connected (raising ``DistStoreError`` after the
            timeout). Default True.

    Example::

        >>> store = genesis.distributed.TCPStore("127.0.0.1", 0, is_master=True)
        >>> store.set("x", b"1")
        >>> client = genesis.distributed.TCPStore("127.0.0.1", store.port)
        >>> client.get("x")
        b'1'
        >>> client.close(); store.close()
    """

    def __init__(
        self,
        host_name,
        port,
        world_size=None,
        is_master=False,
        timeout=_DEFAULT_TIMEOUT,
        wait_for_workers=True,
    ):
        super().__init__(_check_timeout("TCPStore", timeout))
        if not isinstance(host_name, str):
            raise TypeError(
                f"[store.TCPStore] host_name must be a str, got {type(host_name).__name__}"
            )
        if isinstance(port, bool) or not isinstance(port, int):
            raise TypeError(f"[store.TCPStore] port must be an int, got {type(port).__name__}")
        if not 0 <= port <= 65535:
            raise ValueError(f"[store.TCPStore] port must be in [0, 65535], got {port}")
        if world_size is not None and (
            isinstance(world_size, bool) or not isinstance(world_size, int) or world_size < 1
        ):
            raise ValueError(
                f"[store.TCPStore] world_size must be a positive int or None, got {world_size!r}"
            )
        if port == 0 and not is_master:
            raise ValueError("[store.TCPStore] a client needs the master's port, not 0")
        self.host = host_name
        self.world_size = world_size
        self.is_master = bool(is_master)
        server = None
        if is_master:
            try:
                server = _Server(host_name, port)
            except OSError as e:
                raise DistStoreError(
                    f"[store.TCPStore] cannot listen at {host_name}:{port}: {e}"
                ) from e
            port = server.port
        self.port = port
        self._server = server
        self._client = _Client(host_name, port, timeout)
        self._finalizer = weakref.finalize(self, _close_tcp, self._client, server)
        try:
            self._client.request("TCPStore", [b"hello"])
            if server is not None and world_size is not None and wait_for_workers:
                arrived = server.wait_for_workers(world_size, timeout)
                if arrived < world_size:
                    raise DistStoreError(
                        f"[store.TCPStore] timed out after {_seconds(timeout)} s waiting for "
                        f"{world_size} stores to connect to {host_name}:{port} "
                        f"({arrived} did)"
                    )
        except BaseException:
            self.close()
            raise

    def close(self):
        """Closes the connections and, on the master, stops the server.

        Returns:
            None.

        Example::

            >>> store = genesis.distributed.TCPStore("127.0.0.1", 0, is_master=True)
            >>> store.close()
        """
        self._finalizer()

    def set_timeout(self, timeout):
        """Changes how long ``get``, ``wait`` and new connections wait.

        Args:
            timeout (datetime.timedelta): the new timeout.

        Returns:
            None.

        Example::

            >>> import datetime
            >>> store = genesis.distributed.TCPStore("127.0.0.1", 0, is_master=True)
            >>> store.set_timeout(datetime.timedelta(seconds=5))
            >>> store.timeout
            datetime.timedelta(seconds=5)
            >>> store.close()
        """
        super().set_timeout(timeout)
        self._client.timeout = self._timeout

    def _set(self, key, value):
        self._client.request("set", [b"set", key.encode(), value])

    def _get(self, key, timeout):
        status, rest = self._client.request("get", [b"get", key.encode(), _ms(timeout)], timeout)
        return rest[0] if status == b"ok" else None

    def _add(self, key, amount):
        _, rest = self._client.request("add", [b"add", key.encode(), str(amount).encode()])
        return int(rest[0])

    def _wait(self, keys, timeout):
        fields = [b"wait", _ms(timeout), *(k.encode() for k in keys)]
        status, rest = self._client.request("wait", fields, timeout)
        return [] if status == b"ok" else [k.decode() for k in rest]

    def _check(self, keys):
        _, rest = self._client.request("check", [b"check", *(k.encode() for k in keys)])
        return rest[0] == b"1"

    def _delete_key(self, key):
        _, rest = self._client.request("delete_key", [b"delete_key", key.encode()])
        return rest[0] == b"1"

    def _num_keys(self):
        _, rest = self._client.request("num_keys", [b"num_keys"])
        return int(rest[0])

    def _compare_set(self, key, expected, desired):
        fields = [b"compare_set", key.encode(), expected, desired]
        _, rest = self._client.request("compare_set", fields)
        return rest[0]
