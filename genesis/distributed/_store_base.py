"""The store interface and the stores in memory: ``Store``, ``HashStore``, ``PrefixStore``.

``_store.py`` says what the stores are for and gathers them; ``_file_store.py`` and
``_tcp_store.py`` build the other two on what is here.

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
import threading
import time

_DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)


class DistStoreError(RuntimeError):
    """A store operation failed: a timeout, or a store that cannot be reached.

    ``get`` and ``wait`` raise it when the keys do not appear before the timeout, and
    ``TCPStore`` when no server answers at its address. It is a ``RuntimeError``, as PyTorch's
    ``torch.distributed.DistStoreError`` is.
    """

    __module__ = "genesis.distributed"  # where users import it, as tracebacks show


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

    __module__ = "genesis.distributed"  # where users import it, as tracebacks show

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
        """Removes ``key`` from the store, if it is there.

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

    __module__ = "genesis.distributed"  # where users import it, as tracebacks show

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

    __module__ = "genesis.distributed"  # where users import it, as tracebacks show

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
