"""The rendezvous stores of genesis.distributed: every method of every store, in one process
and across processes, with torch.distributed's semantics; timeouts; bad input.

Every test that waits uses timeouts of about half a second, and every subprocess a timeout of
its own, so a broken store fails the test instead of hanging it.
"""

import datetime
import gc
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from genesis.distributed import (
    DistStoreError,
    FileStore,
    HashStore,
    PrefixStore,
    Store,
    TCPStore,
)

SHORT = datetime.timedelta(seconds=0.2)
LONG = datetime.timedelta(seconds=30)


def _store_threads():
    return [t for t in threading.enumerate() if t.name.startswith("genesis-TCPStore")]


@pytest.fixture(autouse=True)
def no_leaked_threads():
    before = set(_store_threads())
    yield
    if not set(_store_threads()) - before:
        return  # the common case: no collection (tens of ms with a large heap, every test)
    gc.collect()  # stores the test dropped close when collected
    deadline = time.monotonic() + 5
    while set(_store_threads()) - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not set(_store_threads()) - before, "a TCPStore server thread outlived its store"


def _tcp_master(**kw):
    return TCPStore("127.0.0.1", 0, is_master=True, timeout=LONG, **kw)


def _make(kind, tmp_path):
    """(store, things to close)."""
    if kind == "hash":
        return HashStore(), []
    if kind == "file":
        s = FileStore(str(tmp_path / "store"))
        return s, [s]
    if kind == "tcp":
        s = _tcp_master()
        return s, [s]
    if kind == "tcp_client":
        master = _tcp_master()
        client = TCPStore("127.0.0.1", master.port, timeout=LONG)
        return client, [client, master]
    if kind == "prefix":
        return PrefixStore("pre", HashStore()), []
    if kind == "prefix_tcp":
        master = _tcp_master()
        return PrefixStore("a/b", master), [master]
    raise AssertionError(kind)


KINDS = ["hash", "file", "tcp", "tcp_client", "prefix", "prefix_tcp"]


@pytest.fixture(params=KINDS)
def store(request, tmp_path):
    s, closers = _make(request.param, tmp_path)
    yield s
    for c in closers:
        c.close()


# ---------------------------------------------------------------------------------------------
# Every method, every store


def test_is_a_store(store):
    assert isinstance(store, Store)


def test_set_and_get(store):
    store.set("k", b"v")
    assert store.get("k") == b"v"
    store.set("k", "w")  # a str is stored as UTF-8
    assert store.get("k") == b"w"
    store.set("k", bytearray(b"\x00\xff"))
    assert store.get("k") == b"\x00\xff"
    store.set("empty", b"")
    assert store.get("empty") == b""
    store.set("ключ/ü", "värde")
    assert store.get("ключ/ü") == "värde".encode()
    big = os.urandom(1 << 20)
    store.set("big", big)
    assert store.get("big") == big
    assert type(store.get("k")) is bytes


def test_get_waits_for_a_later_set(store):
    timer = threading.Timer(0.1, store.set, ("late", b"here"))
    timer.start()
    try:
        assert store.get("late") == b"here"
    finally:
        timer.join()


def test_get_times_out(store):
    store.set_timeout(SHORT)
    start = time.monotonic()
    with pytest.raises(DistStoreError) as info:
        store.get("missing")
    took = time.monotonic() - start
    assert str(info.value).startswith("[store.get] timed out after 0.2 s waiting for key 'missing'")
    assert 0.18 <= took < 3
    assert isinstance(info.value, RuntimeError)


def test_zero_timeout_does_not_wait(store):
    store.set_timeout(datetime.timedelta(0))
    start = time.monotonic()
    with pytest.raises(DistStoreError, match="after 0.0 s"):
        store.get("missing")
    store.set("there", b"1")
    assert store.get("there") == b"1"
    assert time.monotonic() - start < 1


def test_add(store):
    assert store.add("n", 0) == 0  # created at 0
    assert store.add("n", 5) == 5
    assert store.add("n", -7) == -2
    assert store.get("n") == b"-2"  # Note [Store counters]: decimal digits
    store.set("m", "41")
    assert store.add("m", 1) == 42
    assert store.add("big", 2**62) + store.add("big", 2**62) == 3 * 2**62


def test_add_to_a_value_that_is_not_a_number(store):
    store.set("text", b"abc")
    message = r"^\[store.add\] the value of key '(.*/)?text' is b'abc', not an integer"
    with pytest.raises(ValueError, match=message):
        store.add("text", 1)
    assert store.get("text") == b"abc"


def test_wait(store):
    store.set("a", b"1")
    store.wait(["a"])
    store.wait([])  # nothing to wait for
    store.wait(["a"], SHORT)
    timer = threading.Timer(0.1, store.set, ("b", b"2"))
    timer.start()
    try:
        store.wait(["a", "b"], datetime.timedelta(seconds=20))
    finally:
        timer.join()


def test_wait_times_out(store):
    store.set("a", b"1")
    start = time.monotonic()
    with pytest.raises(DistStoreError) as info:
        store.wait(["a", "x", "y"], SHORT)
    assert str(info.value) == "[store.wait] timed out after 0.2 s waiting for keys ['x', 'y']"
    assert 0.18 <= time.monotonic() - start < 3
    store.set_timeout(datetime.timedelta(seconds=0.2))  # None: the store's timeout
    with pytest.raises(DistStoreError, match="after 0.2 s"):
        store.wait(["x"])


def test_check(store):
    assert store.check([])
    assert not store.check(["a"])
    store.set("a", b"")
    assert store.check(["a"])
    assert not store.check(["a", "b"])
    store.add("b", 1)
    assert store.check(("a", "b"))


def test_delete_key(store):
    store.set("a", b"1")
    assert store.delete_key("a") is True
    assert store.delete_key("a") is False
    assert not store.check(["a"])
    store.set("a", b"2")  # set again after a delete
    assert store.get("a") == b"2"
    assert store.add("a", 1) == 3


def test_num_keys(store):
    base = store.num_keys()  # a PrefixStore counts its underlying store's keys
    assert base == 0
    store.set("a", b"1")
    store.set("a", b"2")
    store.add("b", 1)
    assert store.num_keys() == 2
    store.delete_key("a")
    assert store.num_keys() == 1


def test_compare_set(store):
    # A missing key matches an empty expected value...
    assert store.compare_set("k", b"", b"one") == b"one"
    assert store.get("k") == b"one"
    # ... and a missing key that does not match gives the expected value, writing nothing.
    assert store.compare_set("missing", b"x", b"y") == b"x"
    assert not store.check(["missing"])
    # An existing key: written when it matches, else its current value comes back.
    assert store.compare_set("k", b"two", b"three") == b"one"
    assert store.compare_set("k", "one", "two") == b"two"
    assert store.get("k") == b"two"
    assert store.compare_set("k", b"", b"z") == b"two"


def test_compare_set_wakes_a_waiter(store):
    timer = threading.Timer(0.1, store.compare_set, ("cs", b"", b"v"))
    timer.start()
    try:
        assert store.get("cs") == b"v"
    finally:
        timer.join()


def test_timeout_property(store):
    store.set_timeout(datetime.timedelta(seconds=7))
    assert store.timeout == datetime.timedelta(seconds=7)


def test_concurrent_adds_from_threads(store):
    def work():
        for _ in range(50):
            store.add("counter", 1)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert store.get("counter") == b"300"


def test_concurrent_compare_set_has_one_winner(store):
    winners = []

    def work(i):
        if store.compare_set("leader", b"", str(i)) == str(i).encode():
            winners.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(winners) == 1
    assert store.get("leader") == str(winners[0]).encode()


def test_a_thread_blocked_in_get_does_not_block_others(store):
    # The TCP client keeps several connections (Note [TCPStore protocol]).
    got = []
    t = threading.Thread(target=lambda: got.append(store.get("later")))
    t.start()
    time.sleep(0.1)
    store.set("other", b"1")
    assert store.get("other") == b"1"
    store.set("later", b"2")
    t.join(30)
    assert got == [b"2"]


# ---------------------------------------------------------------------------------------------
# Bad input


BAD_CALLS = [
    ("set", lambda s: s.set(1, b"v"), TypeError, "key must be a str, got int"),
    ("set", lambda s: s.set(b"k", b"v"), TypeError, "key must be a str, got bytes"),
    ("set", lambda s: s.set("k", 1), TypeError, "value must be bytes or str, got int"),
    ("set", lambda s: s.set("k", None), TypeError, "value must be bytes or str"),
    ("get", lambda s: s.get(None), TypeError, "key must be a str"),
    ("add", lambda s: s.add(1, 1), TypeError, "key must be a str"),
    ("add", lambda s: s.add("k", 1.5), TypeError, "amount must be an int, got float"),
    ("add", lambda s: s.add("k", True), TypeError, "amount must be an int, got bool"),
    ("add", lambda s: s.add("k", "1"), TypeError, "amount must be an int, got str"),
    ("wait", lambda s: s.wait("k"), TypeError, "keys must be a list of str, got str"),
    ("wait", lambda s: s.wait([1]), TypeError, "every key must be a str"),
    ("wait", lambda s: s.wait(["k"], 1.0), TypeError, "timeout must be a datetime.timedelta"),
    (
        "wait",
        lambda s: s.wait(["k"], datetime.timedelta(seconds=-1)),
        ValueError,
        "timeout must not be negative",
    ),
    ("check", lambda s: s.check("k"), TypeError, "keys must be a list of str"),
    ("check", lambda s: s.check(None), TypeError, "keys must be a list of str"),
    ("delete_key", lambda s: s.delete_key(3), TypeError, "key must be a str"),
    ("compare_set", lambda s: s.compare_set(3, b"", b""), TypeError, "key must be a str"),
    (
        "compare_set",
        lambda s: s.compare_set("k", 1, b""),
        TypeError,
        "expected_value must be bytes or str",
    ),
    (
        "compare_set",
        lambda s: s.compare_set("k", b"", None),
        TypeError,
        "desired_value must be bytes or str",
    ),
    ("set_timeout", lambda s: s.set_timeout(5), TypeError, "timeout must be a datetime"),
    (
        "set_timeout",
        lambda s: s.set_timeout(datetime.timedelta(microseconds=-1)),
        ValueError,
        "timeout must not be negative",
    ),
]


@pytest.mark.parametrize(
    "method, call, error, message", BAD_CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD_CALLS)]
)
def test_bad_input(store, method, call, error, message):
    with pytest.raises(error) as info:
        call(store)
    assert str(info.value).startswith(f"[store.{method}] ")
    assert message in str(info.value)
    store.set("still", b"works")  # the store is not broken by the refusal
    assert store.get("still") == b"works"


# ---------------------------------------------------------------------------------------------
# PrefixStore


def test_prefix_store_prefixes_keys():
    base = HashStore()
    a, b = PrefixStore("a", base), PrefixStore("b", base)
    a.set("x", b"1")
    b.set("x", b"2")
    assert base.get("a/x") == b"1" and base.get("b/x") == b"2"
    assert a.get("x") == b"1" and b.get("x") == b"2"
    assert a.add("n", 3) == 3 and base.get("a/n") == b"3"
    assert not b.check(["n"])
    assert a.num_keys() == base.num_keys() == 3
    assert a.underlying_store is base
    nested = PrefixStore("c", a)
    nested.set("y", b"3")
    assert base.get("a/c/y") == b"3"


def test_prefix_store_shares_the_timeout():
    base = HashStore()
    p = PrefixStore("p", base)
    base.set_timeout(datetime.timedelta(seconds=3))
    assert p.timeout == datetime.timedelta(seconds=3)
    p.set_timeout(SHORT)
    assert base.timeout == SHORT
    with pytest.raises(DistStoreError, match=r"waiting for key 'k'$"):
        p.get("k")  # the message names the user's key, not the prefixed one


def test_prefix_store_bad_arguments():
    with pytest.raises(TypeError, match=r"^\[store.PrefixStore\] prefix must be a str"):
        PrefixStore(1, HashStore())
    with pytest.raises(TypeError, match=r"^\[store.PrefixStore\] store must be a genesis"):
        PrefixStore("p", {})


# ---------------------------------------------------------------------------------------------
# HashStore and Store


def test_hash_stores_are_separate():
    a, b = HashStore(), HashStore()
    a.set("k", b"1")
    assert not b.check(["k"])
    assert a.timeout == datetime.timedelta(seconds=300)


def test_the_base_class_has_no_storage():
    s = Store()
    with pytest.raises(NotImplementedError, match=r"^\[store.set\] Store does not implement"):
        s.set("k", b"v")
    with pytest.raises(TypeError, match=r"^\[store.__init__\] timeout must be"):
        Store(timeout=3)


# ---------------------------------------------------------------------------------------------
# FileStore


def test_file_store_shared_by_two_objects(tmp_path):
    path = str(tmp_path / "f")
    a, b = FileStore(path), FileStore(path)
    try:
        a.set("k", b"1")
        assert b.get("k") == b"1"
        assert b.add("n", 2) == 2 and a.add("n", 3) == 5
        assert b.delete_key("k") and not a.check(["k"])
        assert a.num_keys() == b.num_keys() == 1
    finally:
        a.close()
        b.close()
    assert os.path.exists(path)  # world_size -1: the file stays, and so do its keys
    c = FileStore(path)
    assert c.get("n") == b"5" and c.num_keys() == 1
    c.close()


def test_file_store_world_size_deletes_the_file(tmp_path):
    path = tmp_path / "f"  # a path object works too
    a, b = FileStore(path, 2), FileStore(path, 2)
    a.set("k", b"1")
    a.close()
    assert os.path.exists(path)
    assert b.get("k") == b"1"
    assert b.num_keys() == 1  # the count of closed users is the store's own key
    b.close()
    assert not os.path.exists(path)
    b.close()  # twice is fine


def test_file_store_closed(tmp_path):
    s = FileStore(str(tmp_path / "f"))
    s.close()
    with pytest.raises(DistStoreError, match="closed"):
        s.set("k", b"v")


def test_file_store_collected_closes_its_file(tmp_path):
    s = FileStore(str(tmp_path / "f"))
    fd = s._log.fd
    del s
    gc.collect()
    with pytest.raises(OSError):
        os.fstat(fd)


def test_file_store_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match=r"^\[store.FileStore\] file_name must be"):
        FileStore(3)
    with pytest.raises(TypeError, match=r"^\[store.FileStore\] world_size must be an int"):
        FileStore(str(tmp_path / "f"), 2.0)
    for bad in (0, -2):
        with pytest.raises(ValueError, match=r"^\[store.FileStore\] world_size must be positive"):
            FileStore(str(tmp_path / "f"), bad)
    with pytest.raises(DistStoreError, match=r"^\[store.FileStore\] cannot open"):
        FileStore(str(tmp_path))  # a directory


def test_file_store_ignores_a_torn_tail(tmp_path):
    # A record is appended in one write under the lock; should a file end in half of one
    # (a writer killed mid-write on some file system), readers wait for the rest.
    path = str(tmp_path / "f")
    s = FileStore(path)
    s.set("a", b"1")
    with open(path, "ab") as f:
        f.write(b"S\x00\x00")
    s.set_timeout(datetime.timedelta(0))
    assert s.get("a") == b"1"
    s.close()


# ---------------------------------------------------------------------------------------------
# TCPStore


def test_tcp_store_port_zero_picks_a_port():
    s = TCPStore("127.0.0.1", 0, is_master=True, timeout=LONG)
    try:
        assert isinstance(s.port, int) and 0 < s.port < 65536
        assert s.host == "127.0.0.1" and s.is_master
        c = TCPStore("127.0.0.1", s.port, is_master=False, timeout=LONG)
        c.set("from client", b"1")
        assert s.get("from client") == b"1"
        c.close()
    finally:
        s.close()
    s.close()  # twice is fine


def test_tcp_store_client_before_master():
    # The client retries while nothing listens, so the ranks may start in any order.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = []

    def client():
        try:
            c = TCPStore("127.0.0.1", port, timeout=LONG)
            result.append(c.get("hello"))
            c.close()
        except Exception as e:  # reported below
            result.append(e)

    t = threading.Thread(target=client)
    t.start()
    time.sleep(0.3)
    master = TCPStore("127.0.0.1", port, world_size=2, is_master=True, timeout=LONG)
    master.set("hello", b"world")
    t.join(30)
    master.close()
    assert result == [b"world"]


def test_tcp_store_nothing_answers():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(DistStoreError) as info:
        TCPStore("127.0.0.1", port, timeout=SHORT)
    assert str(info.value).startswith(
        f"[store.TCPStore] could not connect to the store at 127.0.0.1:{port} within 0.2 s"
    )
    assert time.monotonic() - start < 5


def test_tcp_store_waits_for_workers():
    # The master's constructor returns only once 3 stores (itself included) connected, so it
    # runs on a thread, at a port chosen here.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    masters = []
    master_done = threading.Event()

    def master_at_port():
        masters.append(TCPStore("127.0.0.1", port, world_size=3, is_master=True, timeout=LONG))
        master_done.set()

    t = threading.Thread(target=master_at_port)
    t.start()
    c1 = TCPStore("127.0.0.1", port, timeout=LONG)
    time.sleep(0.2)
    assert not master_done.is_set()  # two of three
    c2 = TCPStore("127.0.0.1", port, timeout=LONG)
    assert master_done.wait(30)
    t.join(30)
    (m,) = masters
    c1.close()
    c2.close()
    m.close()


def test_tcp_store_workers_that_do_not_come():
    start = time.monotonic()
    with pytest.raises(DistStoreError) as info:
        TCPStore("127.0.0.1", 0, world_size=3, is_master=True, timeout=SHORT)
    message = str(info.value)
    assert message.startswith("[store.TCPStore] timed out after 0.2 s waiting for 3 stores")
    assert message.endswith("(1 did)")
    assert time.monotonic() - start < 5
    # wait_for_workers=False: the constructor returns at once.
    s = TCPStore("127.0.0.1", 0, world_size=3, is_master=True, wait_for_workers=False)
    s.close()


def test_tcp_store_server_gone():
    master = _tcp_master()
    client = TCPStore("127.0.0.1", master.port, timeout=SHORT)
    client.set("k", b"1")
    master.close()
    with pytest.raises(DistStoreError, match=r"^\[store.get\] (lost the connection|could not)"):
        client.get("k")
    client.close()
    with pytest.raises(
        DistStoreError, match=r"^\[store.set\] the store at 127.0.0.1:\d+ is closed"
    ):
        client.set("k", b"1")


def test_tcp_store_close_wakes_a_blocked_get():
    master = _tcp_master()
    client = TCPStore("127.0.0.1", master.port, timeout=LONG)
    errors = []

    def blocked():
        try:
            client.get("never")
        except DistStoreError as e:
            errors.append(e)

    t = threading.Thread(target=blocked)
    t.start()
    time.sleep(0.2)
    start = time.monotonic()
    master.close()
    t.join(10)
    assert not t.is_alive() and time.monotonic() - start < 10
    assert len(errors) == 1 and "lost the connection" in str(errors[0])
    client.close()


def test_tcp_store_close_answers_the_request_it_already_applied():
    # The master closes as soon as the client's set releases its wait: the set happened, so
    # the client must get its reply, not a lost connection (Note [Closing the TCPStore server]).
    for _ in range(5):
        master = _tcp_master()
        client = TCPStore("127.0.0.1", master.port, timeout=LONG)
        handle = master._server._handle

        def slow_set(request, handle=handle):
            reply = handle(request)
            if request[0] == b"set":
                time.sleep(0.05)  # widens the window in which the close lands
            return reply

        master._server._handle = slow_set

        def close_when_set(master=master):
            master.wait(["bye"])
            master.close()

        t = threading.Thread(target=close_when_set)
        t.start()
        client.set("bye", b"1")
        t.join(10)
        assert not t.is_alive()
        client.close()


def test_tcp_store_collected_stops_its_server():
    master = _tcp_master()
    port = master.port
    del master
    gc.collect()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_tcp_store_survives_garbage():
    master = _tcp_master()
    try:
        for junk in (b"\xff\xff\xff\xff", b"\x00\x00\x00\x01\x00\x00\x00\x03bad", b"hello"):
            with socket.create_connection(("127.0.0.1", master.port), timeout=5) as s:
                # The server answers or hangs up, at any point of this exchange: once it
                # has hung up, send, shutdown and recv may each fail (EPIPE, ENOTCONN,
                # ECONNRESET). What matters is that the server survives (checked below).
                try:
                    s.sendall(junk)
                    s.shutdown(socket.SHUT_WR)
                    while s.recv(1024):
                        pass
                except OSError as e:
                    assert not isinstance(e, TimeoutError), "no answer, no hang-up"
        master.set("k", b"still")
        assert master.get("k") == b"still"
    finally:
        master.close()


def test_tcp_store_set_timeout_applies_to_the_server_wait():
    master = _tcp_master()
    try:
        master.set_timeout(datetime.timedelta(seconds=0.3))
        start = time.monotonic()
        with pytest.raises(DistStoreError, match="after 0.3 s"):
            master.get("k")
        assert time.monotonic() - start < 3
    finally:
        master.close()


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(host_name=1, port=0, is_master=True), TypeError, "host_name must be a str"),
        (dict(host_name="127.0.0.1", port="1"), TypeError, "port must be an int"),
        (dict(host_name="127.0.0.1", port=-1), ValueError, "port must be in [0, 65535]"),
        (dict(host_name="127.0.0.1", port=70000), ValueError, "port must be in [0, 65535]"),
        (dict(host_name="127.0.0.1", port=0), ValueError, "a client needs the master's port"),
        (
            dict(host_name="127.0.0.1", port=0, is_master=True, world_size=0),
            ValueError,
            "world_size must be a positive int or None",
        ),
        (
            dict(host_name="127.0.0.1", port=0, is_master=True, timeout=5),
            TypeError,
            "timeout must be a datetime.timedelta",
        ),
    ],
)
def test_tcp_store_bad_arguments(kwargs, error, message):
    with pytest.raises(error) as info:
        TCPStore(**kwargs)
    assert str(info.value).startswith("[store.TCPStore] ")
    assert message in str(info.value)


def test_tcp_store_port_taken():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(DistStoreError, match=r"^\[store.TCPStore\] cannot listen at"):
            TCPStore("127.0.0.1", taken.getsockname()[1], is_master=True, timeout=SHORT)


# ---------------------------------------------------------------------------------------------
# Across processes


def _python(code, *args, timeout=60):
    """Runs ``code`` in a fresh interpreter, started at once; the caller waits for it."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(procs, timeout=60):
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=timeout)
            assert p.returncode == 0, err
            outs.append(out)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    return outs


TCP_WORKER = """
    import datetime, sys
    from genesis.distributed import TCPStore
    port, rank = int(sys.argv[1]), int(sys.argv[2])
    s = TCPStore("127.0.0.1", port, timeout=datetime.timedelta(seconds=30))
    s.set(f"rank{rank}", str(rank))
    for _ in range(200):
        s.add("counter", 1)
    assert s.compare_set("cas", b"", f"w{rank}".encode()) in (b"w1", b"w2")
    s.add("done", 1)
    s.wait(["go"])  # the master says when
    print(s.get("go").decode(), s.get("rank1").decode(), s.get("rank2").decode())
    s.close()
"""


def test_tcp_store_across_processes():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    procs = [_python(TCP_WORKER, port, r) for r in (1, 2)]
    try:
        master = TCPStore("127.0.0.1", port, world_size=3, is_master=True, timeout=LONG)
    except BaseException:
        _finish(procs)
        raise
    try:
        master.wait(["rank1", "rank2"])
        for _ in range(200):
            master.add("counter", 1)
        master.wait(["done"])
        while master.get("done") != b"2":
            time.sleep(0.01)
        assert master.get("counter") == b"600"  # atomic across processes
        assert master.get("cas") in (b"w1", b"w2")
        master.set("go", "go")
        assert _finish(procs) == ["go 1 2\n", "go 1 2\n"]
    finally:
        master.close()


TCP_MASTER = """
    import datetime, sys
    from genesis.distributed import TCPStore
    s = TCPStore("127.0.0.1", 0, is_master=True, timeout=datetime.timedelta(seconds=30))
    print(s.port, flush=True)
    s.set("from master", b"hi")
    s.wait(["bye"])
    print(s.get("bye").decode(), flush=True)
    s.close()
"""


def test_tcp_store_master_in_another_process():
    p = _python(TCP_MASTER)
    try:
        port = int(p.stdout.readline())
        c = TCPStore("127.0.0.1", port, timeout=LONG)
        try:
            assert c.get("from master") == b"hi"
            c.set("bye", "client")
        except Exception as e:
            p.kill()
            raise AssertionError(f"{e}; the master said: {p.communicate()}") from None
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        assert out == "client\n"
        c.close()
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()


FILE_WORKER = """
    import datetime, sys, time
    from genesis.distributed import FileStore
    path, rank = sys.argv[1], int(sys.argv[2])
    s = FileStore(path, 3)
    s.set_timeout(datetime.timedelta(seconds=30))
    for _ in range(100):
        s.add("counter", 1)
    s.set(f"rank{rank}", str(rank))
    s.wait(["rank0", "rank1", "rank2"])
    print(s.get("counter").decode() if rank == 0 else "", end="")
    s.add("read", 1)
    s.wait(["read"])
    while int(s.get("read")) < 3:  # everyone has read before anyone closes
        time.sleep(0.01)
    s.close()
"""


def test_file_store_across_processes(tmp_path):
    path = str(tmp_path / "shared")
    procs = [_python(FILE_WORKER, path, r) for r in range(3)]
    outs = _finish(procs)
    # The three counted to 300 before any read it: rank 0 read after all three ranks' keys.
    assert outs[0] == "300"
    assert not os.path.exists(path)  # the last of world_size=3 deleted it


def _open_fds():
    return len(os.listdir(f"/proc/{os.getpid()}/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts /proc/self/fd")
@pytest.mark.parametrize("how", ["close", "collect"])
def test_tcp_store_leaves_no_sockets(how):
    gc.collect()
    before = _open_fds()
    master = _tcp_master()
    client = TCPStore("127.0.0.1", master.port, timeout=LONG)
    timer = threading.Timer(0.2, master.set, ("k", b"1"))
    timer.start()
    threads = [threading.Thread(target=client.get, args=("k",)) for _ in range(3)]
    for t in threads:  # three blocked gets: the client opens more connections
        t.start()
    for t in threads:
        t.join(30)
    timer.join()
    assert _open_fds() > before
    if how == "close":
        client.close()
        master.close()
    else:
        del client, master, timer, threads, t  # the threads' targets held the stores
        gc.collect()
    deadline = time.monotonic() + 5
    while _open_fds() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _open_fds() == before


def test_file_store_leaves_no_file_descriptors(tmp_path):
    gc.collect()
    before = _open_fds()
    stores = [FileStore(str(tmp_path / "f")) for _ in range(3)]
    stores[0].set("k", b"1")
    assert _open_fds() == before + 3
    stores[0].close()
    del stores
    gc.collect()
    assert _open_fds() == before
