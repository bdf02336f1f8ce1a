"""``TCPStore``: a store served over TCP by the master process (Note [TCPStore protocol])."""

from __future__ import annotations

import datetime
import ipaddress
import selectors
import socket
import struct
import threading
import time
import weakref

from genesis.distributed._store_base import (
    _DEFAULT_TIMEOUT,
    DistStoreError,
    Store,
    _check_timeout,
    _seconds,
    _Table,
)

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
                if reply[0] == b"timeout" and self.table.closed:
                    return  # the wait was ended by close: the client should see the server gone
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
        # Note [Closing the TCPStore server]: only the reading side is shut, which wakes a
        # thread blocked in recv; a thread that is answering a request already applied (a set
        # that released the master's own wait, say) still sends its reply, so the client does
        # not see a lost server for a write that happened. A wait that close ends sends
        # nothing (see _serve): its client reports the lost server, not a timeout.
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RD)
            except OSError:
                pass
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

    __module__ = "genesis.distributed"  # where users import it, as tracebacks show

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
