"""genesis.distributed's rendezvous: env://, tcp:// and file:// give each rank a store."""

import datetime
import socket
import threading

import pytest

from genesis.distributed import DistStoreError, FileStore, TCPStore
from genesis.distributed._rendezvous import rendezvous

T = datetime.timedelta(seconds=30)


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _in_threads(calls):
    """Runs each call on its own thread (rank 0's waits for the others); their results."""
    results = [None] * len(calls)

    def work(i, call):
        try:
            results[i] = call()
        except Exception as e:  # reported by the caller
            results[i] = e

    threads = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    return results


def _close(results):
    for store, _, _ in results[::-1]:  # clients first, the master last
        store.close()


@pytest.mark.parametrize("init_method", [None, "env://"])
def test_env(clean_env, init_method):
    clean_env.setenv("MASTER_ADDR", "127.0.0.1")
    clean_env.setenv("MASTER_PORT", str(_free_port()))
    clean_env.setenv("WORLD_SIZE", "2")
    results = _in_threads(
        [
            lambda: rendezvous(init_method, 0, -1, T),
            lambda: rendezvous(init_method, 1, -1, T),
        ]
    )
    assert [r[1:] for r in results] == [(0, 2), (1, 2)]
    (s0, _, _), (s1, _, _) = results
    assert isinstance(s0, TCPStore) and s0.is_master and not s1.is_master
    s1.set("x", b"1")
    assert s0.get("x") == b"1"
    assert s0.timeout == T
    _close(results)


def test_env_reads_rank_and_world_size(clean_env):
    clean_env.setenv("MASTER_ADDR", "127.0.0.1")
    clean_env.setenv("MASTER_PORT", str(_free_port()))
    clean_env.setenv("RANK", "0")
    clean_env.setenv("WORLD_SIZE", "1")
    store, rank, world = rendezvous("env://", -1, -1, T)
    assert (rank, world) == (0, 1)
    store.close()


@pytest.mark.parametrize(
    "env, rank, world, message",
    [
        (dict(MASTER_ADDR="h"), 0, 1, "env:// needs the environment variable MASTER_PORT"),
        (dict(MASTER_PORT="1"), 0, 1, "env:// needs the environment variable MASTER_ADDR"),
        (dict(MASTER_ADDR="h", MASTER_PORT="x"), 0, 1, "MASTER_PORT must be an integer"),
        (dict(MASTER_ADDR="h", MASTER_PORT="1"), -1, 1, "the environment variable RANK"),
        (dict(MASTER_ADDR="h", MASTER_PORT="1"), 0, -1, "the environment variable WORLD_SIZE"),
        (dict(RANK="a", WORLD_SIZE="2"), -1, -1, "RANK must be an integer, got 'a'"),
        (dict(RANK="2", WORLD_SIZE="2"), -1, -1, "rank must be in [0, 2), got 2"),
        (dict(), 0, 0, "world_size must be positive, got 0"),
    ],
)
def test_env_errors(clean_env, env, rank, world, message):
    for k, v in env.items():
        clean_env.setenv(k, v)
    with pytest.raises(ValueError) as info:
        rendezvous(None, rank, world, T)
    assert str(info.value).startswith("[init_process_group] ")
    assert message in str(info.value)


def test_tcp():
    port = _free_port()
    url = f"tcp://127.0.0.1:{port}"
    results = _in_threads([lambda: rendezvous(url, 0, 2, T), lambda: rendezvous(url, 1, 2, T)])
    assert [r[1:] for r in results] == [(0, 2), (1, 2)]
    (s0, _, _), (s1, _, _) = results
    assert s0.is_master and s0.port == s1.port == port
    s0.set("k", b"v")
    assert s1.get("k") == b"v"
    _close(results)


def test_tcp_rank_and_world_size_in_the_query():
    url = f"tcp://127.0.0.1:{_free_port()}?rank=0&world_size=1"
    store, rank, world = rendezvous(url, -1, -1, T)
    assert (rank, world) == (0, 1)
    store.close()


def test_tcp_nobody_there():
    url = f"tcp://127.0.0.1:{_free_port()}"
    with pytest.raises(DistStoreError, match="could not connect"):
        rendezvous(url, 1, 2, datetime.timedelta(seconds=0.5))


def test_file(tmp_path):
    url = f"file://{tmp_path / 'rdzv'}"
    results = _in_threads([lambda r=r: rendezvous(url, r, 2, T) for r in range(2)])
    (s0, r0, w0), (s1, r1, w1) = results
    assert (r0, w0, r1, w1) == (0, 2, 1, 2)
    assert isinstance(s0, FileStore) and s0.timeout == T
    s0.set("k", b"v")
    assert s1.get("k") == b"v"
    _close(results)
    assert not (tmp_path / "rdzv").exists()  # world_size stores closed: the file is gone


@pytest.mark.parametrize(
    "init_method, rank, world, error, message",
    [
        ("nccl://x", 0, 1, ValueError, "init_method must be None, 'env://', 'tcp://host:port'"),
        ("tcp://127.0.0.1", 0, 1, ValueError, "must be tcp://host:port"),
        ("tcp://:29500", 0, 1, ValueError, "must be tcp://host:port"),
        ("tcp://h:99999", 0, 1, ValueError, "must be tcp://host:port"),
        ("tcp://h:1", -1, 1, ValueError, "needs rank: pass it, or add ?rank=N"),
        ("tcp://h:1?rank=x", -1, 1, ValueError, "rank in 'tcp://h:1?rank=x' must be an integer"),
        ("tcp://h:1", 1, 1, ValueError, "rank must be in [0, 1), got 1"),
        ("file://", 0, 1, ValueError, "must be file:///path/to/file"),
        ("file:///tmp/x", 0, -1, ValueError, "needs world_size"),
        (5, 0, 1, TypeError, "init_method must be a str, got int"),
        ("env://", 0.0, 1, TypeError, "rank must be an int, got float"),
        ("env://", 0, "1", TypeError, "world_size must be an int, got str"),
    ],
)
def test_bad_arguments(clean_env, init_method, rank, world, error, message):
    with pytest.raises(error) as info:
        rendezvous(init_method, rank, world, T)
    assert str(info.value).startswith("[init_process_group] ")
    assert message in str(info.value)


def test_bad_timeout():
    with pytest.raises(TypeError, match=r"^\[init_process_group\] timeout must be a datetime"):
        rendezvous("env://", 0, 1, 30)
