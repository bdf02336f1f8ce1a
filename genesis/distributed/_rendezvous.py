"""From ``init_method`` to a store: how the processes of a job find each other.

``rendezvous`` understands PyTorch's three forms: ``env://`` (the default; the launcher's
environment variables), ``tcp://host:port`` and ``file:///path``. Rank 0 hosts the
``TCPStore``; every rank gets a store, its rank and the world size.
"""

from __future__ import annotations

import datetime
import os
import urllib.parse

from genesis.distributed._store import FileStore, Store, TCPStore

_WHO = "[init_process_group]"


def _env_int(name, needed_for):
    text = os.environ.get(name)
    if text is None or text == "":
        raise ValueError(
            f"{_WHO} {needed_for} needs the environment variable {name} (the launcher, "
            f"python -m genesis.distributed.run, sets it), or pass it as an argument"
        )
    try:
        return int(text)
    except ValueError:
        raise ValueError(
            f"{_WHO} the environment variable {name} must be an integer, got {text!r}"
        ) from None


def _query_int(query, name, value, init_method):
    """``value``, or the ``?name=`` of the URL when ``value`` is -1 (PyTorch's tcp:// and
    file:// take rank and world_size from the query too)."""
    if value != -1:
        return value
    if name not in query:
        raise ValueError(
            f"{_WHO} {init_method!r} needs {name}: pass it, or add ?{name}=N to the URL"
        )
    try:
        return int(query[name][-1])
    except ValueError:
        raise ValueError(
            f"{_WHO} {name} in {init_method!r} must be an integer, got {query[name][-1]!r}"
        ) from None


def _check_rank(rank, world_size):
    if world_size < 1:
        raise ValueError(f"{_WHO} world_size must be positive, got {world_size}")
    if not 0 <= rank < world_size:
        raise ValueError(f"{_WHO} rank must be in [0, {world_size}), got {rank}")


def _tcp_store(host, port, rank, world_size, timeout):
    # Under a launcher on several nodes the launcher of node 0 serves the store (Note
    # [Launchers on several nodes] in run.py), and rank 0 connects to it as the others do.
    hosted = os.environ.get("GENESIS_LAUNCHER_STORE") == "1"
    return TCPStore(host, port, world_size, is_master=rank == 0 and not hosted, timeout=timeout)


def rendezvous(
    init_method: str | None, rank: int, world_size: int, timeout: datetime.timedelta
) -> tuple[Store, int, int]:
    """The store through which this process meets the others, with its rank and world size.

    Args:
        init_method: ``None`` or ``"env://"`` (``MASTER_ADDR`` and ``MASTER_PORT`` from the
            environment, and ``RANK``/``WORLD_SIZE`` where the arguments are -1),
            ``"tcp://host:port"`` (rank 0 serves the TCPStore there) or ``"file:///path"``
            (a FileStore shared through that file).
        rank: this process's rank in [0, world_size), or -1 to read it.
        world_size: the number of processes, or -1 to read it.
        timeout: how long connecting and the store's waits take before they fail.

    Returns:
        (store, rank, world_size).

    Raises:
        ValueError: an unknown ``init_method``, a missing variable or a rank out of range.
        DistStoreError: when the master cannot be reached or the others do not arrive.
    """
    if isinstance(rank, bool) or not isinstance(rank, int):
        raise TypeError(f"{_WHO} rank must be an int, got {type(rank).__name__}")
    if isinstance(world_size, bool) or not isinstance(world_size, int):
        raise TypeError(f"{_WHO} world_size must be an int, got {type(world_size).__name__}")
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(
            f"{_WHO} timeout must be a datetime.timedelta, got {type(timeout).__name__}"
        )
    if init_method is None or init_method == "env://":
        if rank == -1:
            rank = _env_int("RANK", "env:// with rank=-1")
        if world_size == -1:
            world_size = _env_int("WORLD_SIZE", "env:// with world_size=-1")
        _check_rank(rank, world_size)
        addr = os.environ.get("MASTER_ADDR")
        if not addr:
            raise ValueError(
                f"{_WHO} env:// needs the environment variable MASTER_ADDR (the launcher, "
                f"python -m genesis.distributed.run, sets it)"
            )
        port = _env_int("MASTER_PORT", "env://")
        return _tcp_store(addr, port, rank, world_size, timeout), rank, world_size
    if not isinstance(init_method, str):
        raise TypeError(f"{_WHO} init_method must be a str, got {type(init_method).__name__}")
    url = urllib.parse.urlparse(init_method)
    query = urllib.parse.parse_qs(url.query)
    if url.scheme == "tcp":
        try:
            host, port = url.hostname, url.port
        except ValueError:
            host, port = None, None
        if not host or port is None:
            raise ValueError(f"{_WHO} {init_method!r} must be tcp://host:port")
        rank = _query_int(query, "rank", rank, init_method)
        world_size = _query_int(query, "world_size", world_size, init_method)
        _check_rank(rank, world_size)
        return _tcp_store(host, port, rank, world_size, timeout), rank, world_size
    if url.scheme == "file":
        path = urllib.parse.unquote(url.path)
        if not path:
            raise ValueError(f"{_WHO} {init_method!r} must be file:///path/to/file")
        rank = _query_int(query, "rank", rank, init_method)
        world_size = _query_int(query, "world_size", world_size, init_method)
        _check_rank(rank, world_size)
        store = FileStore(path, world_size)
        store.set_timeout(timeout)
        return store, rank, world_size
    raise ValueError(
        f"{_WHO} init_method must be None, 'env://', 'tcp://host:port' or 'file:///path', "
        f"got {init_method!r}"
    )
