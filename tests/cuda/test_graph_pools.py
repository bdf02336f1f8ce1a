"""Private pools of the caching pool (Note [Graph private pools]), on the plain host backend:
routing a stream's allocations into a pool id, reuse only inside the pool, the accounting of
private blocks, what a dead pool gives back, and the rules while a capture is underway (no
event queried or recorded, nothing returned to the backend)."""

import random

import pytest
from test_memory_pool import check_consistent

import genesis
from genesis._C import _testing as T

MiB = 1 << 20
CAPTURE = 5  # the stream a test "captures"


def pool_of(pool, handle):
    for s in pool.snapshot():
        if s["address"] <= handle < s["address"] + s["total_size"]:
            return s["segment_pool_id"]
    raise AssertionError(f"no segment holds {handle:#x}")


def start_capture(pool, pid, stream=CAPTURE):
    pool.retain_pool(pid)
    pool.begin_allocate_to_pool(pid, stream)


def test_allocations_on_the_captured_stream_come_from_the_private_pool():
    pool = T.HostPool(1 << 30)
    ordinary = pool.allocate(4096, CAPTURE)
    start_capture(pool, 7)
    private = pool.allocate(4096, CAPTURE)
    other = pool.allocate(4096, 2)  # another stream is not captured
    pool.end_allocate_to_pool(7)
    after = pool.allocate(4096, CAPTURE)
    assert pool_of(pool, ordinary) == (0, 0)
    assert pool_of(pool, private) == (0, 7)
    assert pool_of(pool, other) == (0, 0)
    assert pool_of(pool, after) == (0, 0)
    assert pool.pool_use_count(7) == 1 and pool.pool_use_count(8) == 0
    live = {ordinary: 4096, private: 4096, other: 4096, after: 4096}
    check_consistent(pool, live)


def test_private_blocks_are_reused_inside_the_pool_only():
    pool = T.HostPool(1 << 30)
    start_capture(pool, 3)
    a = pool.allocate(8192, CAPTURE)
    pool.free(a)
    b = pool.allocate(8192, CAPTURE)  # same capture, same stream: reused
    assert b == a
    pool.free(b)
    pool.end_allocate_to_pool(3)
    outside = [pool.allocate(8192, CAPTURE) for _ in range(4)]
    assert a not in outside  # not handed out outside the pool ...
    assert all(pool_of(pool, h) == (0, 0) for h in outside)
    pool.begin_allocate_to_pool(3, CAPTURE)  # ... but to a later capture sharing it
    again = pool.allocate(8192, CAPTURE)
    assert again == a
    pool.end_allocate_to_pool(3)
    live = {h: 8192 for h in outside}
    live[again] = 8192
    check_consistent(pool, live)


def test_memory_stats_count_private_blocks():
    pool = T.HostPool(1 << 30)
    start_capture(pool, 11)
    handles = [pool.allocate(n, CAPTURE) for n in (1000, 3 * MiB, 512)]
    pool.end_allocate_to_pool(11)
    stats = pool.stats()
    sizes = [pool.block_size(h) for h in handles]
    assert stats["allocated_bytes.all.current"] == sum(sizes)
    assert stats["allocation.all.current"] == 3
    reserved, allocated = pool.private_pool_bytes(11)
    assert allocated == sum(sizes)
    assert reserved == stats["reserved_bytes.all.current"] == 2 * MiB + 20 * MiB
    assert pool.private_pool_bytes(12) == (0, 0)
    check_consistent(pool, dict(zip(handles, (1000, 3 * MiB, 512))))


def test_a_live_private_pool_survives_empty_cache_and_the_cache_cap():
    pool = T.HostPool(1 << 30)
    start_capture(pool, 2)
    pool.free(pool.allocate(4096, CAPTURE))  # a graph's intermediate: freed, but replayed into
    pool.end_allocate_to_pool(2)
    assert pool.empty_cache() == (0, 0)
    pool.set_max_cached_bytes(0)
    pool.free(pool.allocate(4096, 0))  # triggers a trim: only the ordinary segment goes
    assert pool.private_pool_bytes(2) == (2 * MiB, 0)
    assert pool.backend_used_bytes() == 2 * MiB


def test_a_dead_pool_returns_its_memory_and_never_hands_it_out():
    pool = T.HostPool(1 << 30)
    start_capture(pool, 9)
    kept = pool.allocate(4096, CAPTURE)  # a graph output the caller still holds
    pool.free(pool.allocate(3 * MiB, CAPTURE))  # a freed intermediate: its segment is whole
    pool.end_allocate_to_pool(9)
    assert pool.stats()["segment.all.current"] == 2
    pool.release_pool(9)  # the graph was reset
    assert pool.pool_use_count(9) == 0
    assert pool.stats()["segment.all.current"] == 1  # the whole free one went back at once
    assert pool.backend_used_bytes() == 2 * MiB
    other = pool.allocate(4096, CAPTURE)  # the dead segment's free part is not reused
    assert pool_of(pool, other) == (0, 0)
    assert pool_of(pool, kept) == (0, 9)
    assert pool.backend_used_bytes() == 4 * MiB
    pool.free(kept)  # the last block: the segment goes back
    assert pool.backend_used_bytes() == 2 * MiB
    check_consistent(pool, {other: 4096})


def test_pool_shared_by_two_graphs_lives_until_both_reset():
    pool = T.HostPool(1 << 30)
    start_capture(pool, 4)
    pool.free(pool.allocate(4096, CAPTURE))
    pool.end_allocate_to_pool(4)
    start_capture(pool, 4)  # the second graph shares the pool
    pool.free(pool.allocate(4096, CAPTURE))
    pool.end_allocate_to_pool(4)
    assert pool.pool_use_count(4) == 2
    assert pool.stats()["segment.all.current"] == 1  # the second capture reused the first's
    pool.release_pool(4)
    assert pool.backend_used_bytes() == 2 * MiB
    pool.release_pool(4)
    assert pool.backend_used_bytes() == 0


def test_no_events_during_a_capture():
    pool = T.HostPool(1 << 30)
    start_capture(pool, 6)
    h = pool.allocate(4096, CAPTURE)
    pool.record_stream(h, 1)
    pool.free(h)  # a cross-stream free: its event waits for the end of the capture
    assert pool.live_events() == 0
    assert pool.process_pending_frees() == 0
    states = [b["state"] for s in pool.snapshot() for b in s["blocks"]]
    assert "active_pending_free" in states
    pool.end_allocate_to_pool(6)
    assert pool.process_pending_frees() == 0  # the event is recorded now, not yet complete
    assert pool.live_events() == 1
    pool.complete_stream(1)
    assert pool.process_pending_frees() == 4096
    assert pool.live_events() == 0
    check_consistent(pool, {})


def test_nothing_is_returned_during_a_capture():
    pool = T.HostPool(8 * MiB)
    pool.free(pool.allocate(4096, 0))  # an ordinary cached segment
    start_capture(pool, 1)
    with pytest.raises(RuntimeError, match=r"^\[empty_cache\] cannot return cached memory while"):
        pool.empty_cache()
    pool.set_max_cached_bytes(0)  # a cap does not trim during the capture either
    assert pool.backend_used_bytes() == 2 * MiB
    # Out of memory is not retried by releasing the cache (that would be a cudaFree).
    with pytest.raises(genesis.cuda.OutOfMemoryError):
        pool.allocate(7 * MiB, CAPTURE)
    assert pool.backend_used_bytes() == 2 * MiB
    pool.end_allocate_to_pool(1)
    pool.free(pool.allocate(4096, 0))  # after the capture the cap applies again
    assert pool.backend_used_bytes() == 0


def test_pool_id_errors():
    pool = T.HostPool(1 << 30)
    with pytest.raises(ValueError, match=r"^\[graph pool\] pool id 0 is the ordinary pool"):
        pool.retain_pool(0)
    with pytest.raises(RuntimeError, match=r"^\[graph pool\] private pool 5 is not in use"):
        pool.release_pool(5)
    with pytest.raises(RuntimeError, match=r"^\[graph pool\] private pool 5 must be retained"):
        pool.begin_allocate_to_pool(5, 1)
    start_capture(pool, 5, stream=1)
    pool.retain_pool(6)
    with pytest.raises(RuntimeError, match=r"already allocates into private pool 5"):
        pool.begin_allocate_to_pool(6, 1)


@pytest.mark.parametrize("seed", range(5))
def test_random_sequences_keep_pools_apart(seed):
    """Random allocations and frees across captures: the snapshot stays consistent, and a
    block is only ever handed to the pool its segment belongs to."""
    rng = random.Random(seed)
    pool = T.HostPool(1 << 32)
    live = {}  # handle -> (size, pool id it was allocated for)
    users = {}
    for _ in range(300):
        action = rng.random()
        if action < 0.1:
            pid = rng.randint(1, 3)
            start_capture(pool, pid, stream=pid + 10)
            users[pid] = users.get(pid, 0) + 1
            for _ in range(rng.randint(1, 6)):
                n = rng.choice([512, 4096, 100000, 2 * MiB, 12 * MiB])
                h = pool.allocate(n, pid + 10)
                assert pool_of(pool, h) == (0, pid)
                live[h] = (n, pid)
                if rng.random() < 0.5:
                    pool.free(h)
                    del live[h]
            pool.end_allocate_to_pool(pid)
        elif action < 0.15 and users:
            pid = rng.choice(sorted(users))
            pool.release_pool(pid)
            users[pid] -= 1
            if users[pid] == 0:
                del users[pid]
        elif action < 0.6:
            n = rng.choice([512, 4096, 100000, 2 * MiB, 12 * MiB])
            stream = rng.choice([0, 11, 12, 13])
            h = pool.allocate(n, stream)
            assert pool_of(pool, h) == (0, 0)
            live[h] = (n, 0)
        elif live:
            h = rng.choice(list(live))  # allocation order: the same steps on every run
            pool.free(h)
            del live[h]
        check_consistent(pool, {h: n for h, (n, _) in live.items()})
    for h in list(live):
        pool.free(h)
    for pid, count in users.items():
        for _ in range(count):
            pool.release_pool(pid)
    pool.empty_cache()
    assert pool.backend_used_bytes() == 0
