"""The caching pool's rules (Note [Caching pool]), on the plain host backend (no GPU needed):
rounding and segment sizes, best fit, split and merge, per-stream caching, record_stream,
out of memory and retries, the memory fraction, statistics, threads, and a state machine of
random allocate/free/record_stream/cache-cap sequences checked against the snapshot (the cache
cap's own tests are in test_memory_controls.py)."""

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import genesis
from genesis._C import _testing as T

MiB = 1 << 20


def check_consistent(pool, live):
    """The snapshot and the counters agree, and live blocks are where they should be."""
    stats = pool.stats()
    snap = pool.snapshot()
    assert sum(s["total_size"] for s in snap) == stats["reserved_bytes.all.current"]
    assert len(snap) == stats["segment.all.current"]
    assert pool.backend_used_bytes() == stats["reserved_bytes.all.current"]
    allocated = [b for s in snap for b in s["blocks"] if b["state"] == "active_allocated"]
    pending = [b for s in snap for b in s["blocks"] if b["state"] == "active_pending_free"]
    assert sum(b["size"] for b in allocated) == stats["allocated_bytes.all.current"]
    assert len(allocated) == stats["allocation.all.current"]
    assert sum(b["requested_size"] for b in allocated) == stats["requested_bytes.all.current"]
    active = sum(b["size"] for b in allocated + pending)
    assert active == stats["active_bytes.all.current"]
    split_free = [
        b for s in snap if len(s["blocks"]) > 1 for b in s["blocks"] if b["state"] == "inactive"
    ]
    assert sum(b["size"] for b in split_free) == stats["inactive_split_bytes.all.current"]
    for s in snap:
        # Blocks tile their segment exactly, in address order.
        addr = s["address"]
        for b in s["blocks"]:
            assert b["address"] == addr
            assert b["size"] % 512 == 0
            addr += b["size"]
        assert addr == s["address"] + s["total_size"]
        # Free neighbours are always merged.
        states = [b["state"] for b in s["blocks"]]
        assert all(not (a == b == "inactive") for a, b in zip(states, states[1:]))
    assert {b["address"] for b in allocated} == set(live)


class PoolMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.pool = T.HostPool(256 * MiB)
        # Live blocks by id, in allocation order: id -> (handle, requested size, fill byte).
        # Rules draw ids, never handles: a handle is an address, which differs between runs
        # (ASLR, the heap's history), so drawing from sorted handles made this derandomized
        # test pick different blocks, and so run different steps, from one run to the next.
        self.live = {}
        self.allocations = 0
        self.counter = 0

    @rule(
        size=st.one_of(
            st.integers(1, 4096),
            st.integers(4096, MiB),
            st.integers(MiB + 1, 12 * MiB),
            st.integers(12 * MiB, 40 * MiB),
        ),
        stream=st.sampled_from([0, 1, 2]),
    )
    def allocate(self, size, stream):
        try:
            h = self.pool.allocate(size, stream)
        except genesis.cuda.OutOfMemoryError:
            return
        assert self.pool.block_size(h) >= size
        self.counter = (self.counter % 250) + 1
        self.pool.write(h, self.counter)
        self.allocations += 1
        self.live[self.allocations] = (h, size, self.counter)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def free(self, data):
        h, _, byte = self.live.pop(data.draw(st.sampled_from(sorted(self.live))))
        assert self.pool.check(h, byte), "a block was overwritten by another block"
        self.pool.free(h)

    @precondition(lambda self: self.live)
    @rule(data=st.data(), stream=st.sampled_from([0, 1, 2, 3]))
    def record_stream(self, data, stream):
        h, _, _ = self.live[data.draw(st.sampled_from(sorted(self.live)))]
        self.pool.record_stream(h, stream)

    @rule(stream=st.sampled_from([0, 1, 2, 3]))
    def complete_stream(self, stream):
        self.pool.complete_stream(stream)

    @rule()
    def empty_cache(self):
        self.pool.empty_cache()

    @rule(cap=st.sampled_from([-1, 0, 2 * MiB, 20 * MiB, 64 * MiB]))
    def set_cache_cap(self, cap):
        self.pool.set_max_cached_bytes(cap)

    @rule()
    def process_pending_frees(self):
        self.pool.process_pending_frees()

    @invariant()
    def consistent(self):
        check_consistent(self.pool, [h for h, _, _ in self.live.values()])

    @invariant()
    def cache_within_its_cap(self):
        # Note [Cache cap]: over the cap only while no whole free segment is left to return.
        cap = self.pool.max_cached_bytes()
        stats = self.pool.stats()
        cached = stats["reserved_bytes.all.current"] - stats["active_bytes.all.current"]
        whole_free = [
            s
            for s in self.pool.snapshot()
            if len(s["blocks"]) == 1 and s["blocks"][0]["state"] == "inactive"
        ]
        assert cap < 0 or cached <= cap or not whole_free

    def teardown(self):
        for h, _, _ in self.live.values():
            self.pool.free(h)
        for s in range(4):
            self.pool.complete_stream(s)
        self.pool.empty_cache()
        stats = self.pool.stats()
        assert stats["reserved_bytes.all.current"] == 0
        assert stats["allocated_bytes.all.current"] == 0
        assert stats["active_bytes.all.current"] == 0
        assert self.pool.backend_used_bytes() == 0
        assert self.pool.live_events() == 0


TestPoolMachine = PoolMachine.TestCase
TestPoolMachine.settings = settings(
    max_examples=60, stateful_step_count=40, deadline=None, derandomize=True
)


def test_rounding_and_segment_sizes():
    assert T.round_size(1) == 512
    assert T.round_size(512) == 512
    assert T.round_size(513) == 1024
    assert T.segment_size(512) == 2 * MiB
    assert T.segment_size(MiB) == 2 * MiB
    assert T.segment_size(MiB + 512) == 20 * MiB
    assert T.segment_size(10 * MiB - 512) == 20 * MiB
    assert T.segment_size(10 * MiB) == 10 * MiB
    assert T.segment_size(11 * MiB) == 12 * MiB


def test_small_requests_share_a_segment_and_reuse_freed_blocks():
    pool = T.HostPool(64 * MiB)
    a = pool.allocate(1000)
    b = pool.allocate(1000)
    assert b == a + 1024  # split from the same 2 MiB segment
    assert len(pool.snapshot()) == 1
    pool.free(a)
    assert pool.allocate(900) == a  # best fit: the freed 1024-byte block
    check_consistent(pool, {a, b})


def test_a_freed_small_block_goes_straight_back_to_the_same_request():
    # Note [Parked block]: the last small block freed is handed back to the next request of its
    # size and stream, and every report shows the pool as if the block had been merged at once.
    pool = T.HostPool(64 * MiB)
    keep = pool.allocate(4096)
    a = pool.allocate(1000)
    pool.free(a)
    stats = pool.stats()
    assert stats["active_bytes.all.current"] == 4096
    assert stats["inactive_split_bytes.all.current"] == 2 * MiB - 4096
    check_consistent(pool, {keep})
    assert pool.allocate(1000) == a
    check_consistent(pool, {keep, a})
    pool.free(a)
    b = pool.allocate(1000, 1)  # another stream: not the parked block
    assert b != a
    check_consistent(pool, {keep, b})


def test_a_parked_block_merges_with_both_neighbours():
    # The parked block is not merged yet: freeing the block before it must merge through it
    # into the free rest of the segment.
    pool = T.HostPool(64 * MiB)
    a = pool.allocate(512)
    b = pool.allocate(512)
    pool.record_stream(a, 1)
    pool.free(a)  # waits for stream 1
    pool.free(b)  # parked
    pool.complete_stream(1)
    pool.empty_cache()  # a's event completes: a, b and the rest become one segment, released
    assert pool.snapshot() == [] and pool.backend_used_bytes() == 0


def test_best_fit_picks_the_smallest_block_that_fits():
    pool = T.HostPool(64 * MiB)
    hs = [pool.allocate(n) for n in (4096, 512, 8192, 512, 2048, 512)]
    for h in hs[0:5:2]:  # free 4096, 8192, 2048 (separated by live blocks)
        pool.free(h)
    assert pool.allocate(1500) == hs[4]  # the 2048 block, not the larger ones


def test_merge_on_free_restores_a_whole_segment():
    pool = T.HostPool(64 * MiB)
    hs = [pool.allocate(100_000) for _ in range(5)]
    for h in (hs[1], hs[3], hs[2], hs[0], hs[4]):
        pool.free(h)
    (seg,) = pool.snapshot()
    assert len(seg["blocks"]) == 1 and seg["blocks"][0]["state"] == "inactive"
    assert pool.stats()["inactive_split_bytes.all.current"] == 0
    pool.empty_cache()
    assert pool.snapshot() == [] and pool.backend_used_bytes() == 0


def test_blocks_are_cached_per_stream():
    pool = T.HostPool(64 * MiB)
    a = pool.allocate(4096, 1)
    pool.free(a)
    b = pool.allocate(4096, 2)
    assert b != a  # stream 1's cached block is not handed to stream 2
    assert {s["stream"] for s in pool.snapshot()} == {1, 2}


def test_record_stream_delays_reuse_until_the_event_completes():
    pool = T.HostPool(64 * MiB)
    a = pool.allocate(4096, 0)
    pool.record_stream(a, 7)
    pool.free(a)
    states = [b["state"] for s in pool.snapshot() for b in s["blocks"]]
    assert "active_pending_free" in states
    b = pool.allocate(4096, 0)
    assert b != a  # still in use by stream 7
    pool.complete_stream(7)
    c = pool.allocate(4096, 0)
    assert c == a
    assert pool.live_events() == 0


def test_out_of_memory_raises_and_the_pool_keeps_working():
    pool = T.HostPool(16 * MiB)
    a = pool.allocate(12 * MiB)
    with pytest.raises(genesis.cuda.OutOfMemoryError) as info:
        pool.allocate(12 * MiB)
    msg = str(info.value)
    assert msg.startswith("[allocate] host out of memory: tried to allocate 12 MiB")
    assert "in total" in msg and "allocated" in msg and "reserved" in msg
    assert isinstance(info.value, RuntimeError)
    stats = pool.stats()
    assert stats["num_ooms"] == 1 and stats["allocated_bytes.all.current"] == 12 * MiB
    pool.free(a)
    b = pool.allocate(12 * MiB)  # works again
    pool.free(b)
    check_consistent(pool, {})


def test_failed_growth_releases_the_cache_and_retries():
    pool = T.HostPool(24 * MiB)
    pool.free(pool.allocate(12 * MiB))  # a cached 12 MiB segment
    h = pool.allocate(14 * MiB)  # needs 14 MiB more: only after the cache is released
    stats = pool.stats()
    assert stats["num_alloc_retries"] == 1 and stats["num_ooms"] == 0
    assert stats["reserved_bytes.all.current"] == 14 * MiB
    pool.free(h)


def test_memory_fraction_caps_reserved_bytes():
    pool = T.HostPool(40 * MiB)
    pool.set_memory_fraction(0.5)
    a = pool.allocate(12 * MiB)
    with pytest.raises(genesis.cuda.OutOfMemoryError, match="memory fraction"):
        pool.allocate(12 * MiB)
    pool.set_memory_fraction(1.0)
    b = pool.allocate(12 * MiB)
    for h in (a, b):
        pool.free(h)
    with pytest.raises(ValueError, match=r"^\[set_per_process_memory_fraction\]"):
        pool.set_memory_fraction(1.5)


def test_peak_statistics():
    pool = T.HostPool(64 * MiB)
    a = pool.allocate(3 * MiB)
    pool.free(a)
    stats = pool.stats()
    assert stats["allocated_bytes.all.peak"] == 3 * MiB
    assert stats["allocated_bytes.all.allocated"] == 3 * MiB
    assert stats["allocated_bytes.all.freed"] == 3 * MiB
    pool.reset_peak_stats()
    assert pool.stats()["allocated_bytes.all.peak"] == 0


def test_threads_allocating_and_freeing_at_once():
    corrupted, allocated, reserved = T.pool_thread_stress(threads=8, iterations=3000)
    assert corrupted == 0
    assert allocated == 0
    assert reserved > 0


def test_bad_handles_raise():
    pool = T.HostPool(8 * MiB)
    with pytest.raises(ValueError):
        pool.free(12345)
    with pytest.raises(ValueError):
        pool.allocate(0)
