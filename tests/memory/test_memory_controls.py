"""Memory controls: the cache cap, detailed stats, empty_cache / collect_garbage / compact, pinned
CPU tensors, the HTML memory summary and the shapes of memory events.

The pool rules run on the caching pool over the tests' host backend (genesis._C._testing.HostPool)
so they are checked without a GPU; the CUDA tests run where a device is present.
"""

import gc
import pickle
import threading

import numpy as np
import pytest
from conftest import requires_cuda

import genesis
from genesis import memory_profiler as mp
from genesis._C import _memory_profiler as recorder
from genesis._C import _testing

MiB = 1 << 20


@pytest.fixture(autouse=True)
def _clean():
    gc.collect()
    yield
    genesis.enable_memory_profiling(False)
    genesis.enable_memory_debugging(False)
    genesis.cpu.enable_pinned_memory(False)
    genesis.cuda.set_cache_size(None)


def _cached(pool):
    s = pool.stats()
    return s["reserved_bytes.all.current"] - s["active_bytes.all.current"]


def _whole_free_segments(pool):
    return [
        seg
        for seg in pool.snapshot()
        if len(seg["blocks"]) == 1 and seg["blocks"][0]["state"] == "inactive"
    ]


def _check_invariants(pool):
    """The snapshot agrees with the counters."""
    s, segs = pool.stats(), pool.snapshot()
    blocks = [b for seg in segs for b in seg["blocks"]]
    allocated = [b for b in blocks if b["state"] == "active_allocated"]
    assert sum(seg["total_size"] for seg in segs) == s["reserved_bytes.all.current"]
    assert len(segs) == s["segment.all.current"]
    assert sum(b["size"] for b in allocated) == s["allocated_bytes.all.current"]
    assert len(allocated) == s["allocation.all.current"]
    assert sum(b["requested_size"] for b in allocated) == s["requested_bytes.all.current"]


# ---- the cache cap, on the pool over the host backend --------------------------------------


def test_cap_returns_whole_segments_largest_first():
    pool = _testing.HostPool(1 << 30)
    handles = [pool.allocate(n * MiB) for n in (12, 30, 22)]  # one segment each
    for h in handles:
        pool.free(h)
    assert pool.max_cached_bytes() == -1  # no cap
    assert _cached(pool) == 64 * MiB
    with mp.record(stacks=None):
        pool.set_max_cached_bytes(25 * MiB)
    unmapped = [e.size for e in mp.get_timeline().events if e.kind == "segment_unmap"]
    assert unmapped == [30 * MiB, 22 * MiB]  # largest first, until under the cap
    assert pool.stats()["reserved_bytes.all.current"] == 12 * MiB
    assert pool.backend_used_bytes() == 12 * MiB
    assert pool.max_cached_bytes() == 25 * MiB
    _check_invariants(pool)


def test_cap_applies_when_a_free_goes_over_it():
    pool = _testing.HostPool(1 << 30)
    pool.set_max_cached_bytes(20 * MiB)
    a, b = pool.allocate(16 * MiB), pool.allocate(14 * MiB)
    pool.free(a)  # 16 MiB cached: under the cap
    assert pool.stats()["reserved_bytes.all.current"] == 30 * MiB
    pool.free(b)  # 30 MiB cached: the 16 MiB segment goes, 14 MiB stay
    assert pool.stats()["reserved_bytes.all.current"] == 14 * MiB
    assert _cached(pool) <= 20 * MiB
    _check_invariants(pool)


def test_cap_zero_caches_nothing_but_keeps_live_segments():
    pool = _testing.HostPool(1 << 30)
    pool.set_max_cached_bytes(0)
    h = pool.allocate(100)
    pool.free(h)
    assert pool.stats()["reserved_bytes.all.current"] == 0  # the segment went at once
    keep, drop = pool.allocate(100), pool.allocate(100)  # one 2 MiB segment
    pool.free(drop)
    # The segment holds a live block, so its free part stays although it is over the cap.
    assert pool.stats()["reserved_bytes.all.current"] == 2 * MiB
    pool.free(keep)
    assert pool.stats()["reserved_bytes.all.current"] == 0
    assert pool.backend_used_bytes() == 0


def test_cap_removed_keeps_the_cache():
    pool = _testing.HostPool(1 << 30)
    pool.set_max_cached_bytes(0)
    pool.set_max_cached_bytes(-1)
    pool.free(pool.allocate(12 * MiB))
    assert pool.stats()["reserved_bytes.all.current"] == 12 * MiB


def test_cap_holds_over_a_random_workload():
    rng = np.random.default_rng(7)
    for cap in (0, 3 * MiB, 25 * MiB):
        pool = _testing.HostPool(1 << 31)
        pool.set_max_cached_bytes(cap)
        live = []
        for step in range(400):
            if live and rng.random() < 0.45:
                pool.free(live.pop(int(rng.integers(len(live)))))
            else:
                size = (
                    int(rng.integers(1, 4 * MiB))
                    if rng.random() < 0.7
                    else int(rng.integers(4 * MiB, 24 * MiB))
                )
                live.append(pool.allocate(size))
            # Over the cap only when no whole free segment is left to give back.
            assert _cached(pool) <= cap or not _whole_free_segments(pool), (cap, step)
            if step % 25 == 0:
                _check_invariants(pool)
        for h in live:
            pool.free(h)
        assert _cached(pool) <= cap or not _whole_free_segments(pool)
        _check_invariants(pool)


def test_cap_and_cross_stream_frees():
    pool = _testing.HostPool(1 << 30)
    pool.set_max_cached_bytes(0)
    h = pool.allocate(12 * MiB, stream=0)
    pool.record_stream(h, 1)
    pool.free(h)  # waits for stream 1: still active, nothing to give back
    assert pool.stats()["reserved_bytes.all.current"] == 12 * MiB
    assert pool.process_pending_frees() == 0
    pool.complete_stream(1)
    assert pool.process_pending_frees() == 12 * MiB  # free now, and over the cap: returned
    assert pool.stats()["reserved_bytes.all.current"] == 0
    assert pool.live_events() == 0


def test_empty_cache_reports_what_it_released():
    pool = _testing.HostPool(1 << 30)
    keep = pool.allocate(100)
    for h in [pool.allocate(12 * MiB), pool.allocate(14 * MiB)]:
        pool.free(h)
    assert pool.empty_cache() == (26 * MiB, 2)
    assert pool.empty_cache() == (0, 0)
    pool.free(keep)
    assert pool.empty_cache() == (2 * MiB, 1)


def test_cache_hits_are_counted():
    pool = _testing.HostPool(1 << 30)
    for _ in range(50):
        pool.free(pool.allocate(4096))
    for _ in range(10):
        pool.free(pool.allocate(12 * MiB))
    s = pool.stats()
    assert s["allocation.all.allocated"] == 60
    assert s["segment.all.allocated"] == 2  # one small, one large segment
    assert s["num_cache_hits"] == 58
    pool.reset_peak_stats()  # peaks only: the running totals stay
    assert pool.stats()["num_cache_hits"] == 58


def test_pool_invariants_while_recording_from_threads():
    # Four C++ threads hammer one pool (recorded without stacks: they hold no interpreter lock)
    # while this thread checks another pool's snapshot against its counters after each step.
    result = {}

    def stress():
        result["stress"] = _testing.pool_thread_stress(threads=4, iterations=1500)

    with mp.record(stacks="python", max_events=1 << 18):
        worker = threading.Thread(target=stress)
        worker.start()
        pool = _testing.HostPool(1 << 30)
        pool.set_max_cached_bytes(4 * MiB)
        rng = np.random.default_rng(3)
        live = []
        for _ in range(300):
            if live and rng.random() < 0.5:
                pool.free(live.pop(int(rng.integers(len(live)))))
            else:
                live.append(pool.allocate(int(rng.integers(1, 13 * MiB))))
            _check_invariants(pool)
        worker.join()
    corrupted, allocated, _ = result["stress"]
    assert corrupted == 0 and allocated == 0
    events = [e for e in mp.get_timeline().events if e.device == "host"]
    sequences = [e.sequence for e in events]
    assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences)
    for h in live:
        pool.free(h)


# ---- cache sizes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "size, nbytes",
    [
        ("512MB", 512 * 10**6),
        ("2GB", 2 * 10**9),
        ("2GiB", 2 << 30),
        ("1.5 GB", 1_500_000_000),
        (" 3 kib ", 3072),
        ("1.5KiB", 1536),
        ("100", 100),
        ("100 bytes", 100),
        ("0", 0),
        (".5MiB", MiB // 2),
        (4096, 4096),
        (0, 0),
        (1e9, 10**9),
    ],
)
def test_cache_size_strings(size, nbytes):
    from genesis.cuda.memory import _parse_size

    assert _parse_size(size, "set_cache_size") == nbytes
    genesis.cuda.set_cache_size(size)
    expected = nbytes if genesis.cuda.is_available() else None
    assert genesis.cuda.get_cache_size() == expected


@pytest.mark.parametrize(
    "size, error",
    [
        ("2 parsecs", ValueError),
        ("", ValueError),
        ("GB", ValueError),
        ("-1GB", ValueError),
        ("1e9", ValueError),
        ("2 G B", ValueError),
        (-1, ValueError),
        (-0.5, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (True, TypeError),
        ([1], TypeError),
        (b"2GB", TypeError),
    ],
)
def test_bad_cache_sizes(size, error):
    with pytest.raises(error, match=r"^\[set_cache_size\] "):
        genesis.cuda.set_cache_size(size)
    assert genesis.cuda.get_cache_size() is None


def test_cache_size_without_gpu_does_nothing():
    if genesis.cuda.is_available():
        pytest.skip("a CUDA device is available")
    genesis.cuda.set_cache_size("1GB")
    assert genesis.cuda.get_cache_size() is None
    with pytest.raises(ValueError, match=r"^\[cuda\] expected a CUDA device"):
        genesis.cuda.set_cache_size("1GB", device="cpu")


@requires_cuda
def test_cache_size_caps_a_device_pool():
    cuda = genesis.cuda
    cuda.empty_cache()
    cap = 24 * MiB
    cuda.set_cache_size(cap)
    assert cuda.get_cache_size() == cap
    keep = []
    for n in (12, 30, 22, 16, 40):  # each its own segment
        x = genesis.empty(n * MiB // 4, device="cuda")
        keep.append(x)
    base_allocated = cuda.memory_allocated()
    for i in range(len(keep)):
        keep[i] = None
        cached = cuda.memory_reserved() - cuda.memory_allocated()
        whole_free = [
            s for s in cuda.memory_snapshot() if all(b["state"] == "inactive" for b in s["blocks"])
        ]
        assert cached <= cap or not whole_free
    assert cuda.memory_allocated() < base_allocated
    cuda.set_cache_size(0)
    seg = cuda.memory_snapshot()
    assert not [s for s in seg if all(b["state"] == "inactive" for b in s["blocks"])]
    cuda.set_cache_size(None)
    assert cuda.get_cache_size() is None


# ---- detailed_memory_stats ----------------------------------------------------------------


def test_detailed_stats_on_the_cpu():
    stats = genesis.detailed_memory_stats("cpu")
    assert stats.device == "cpu"
    assert stats.allocated_bytes == stats.reserved_bytes == stats.total_allocated == 0
    assert stats.cache_hit_rate == 0.0 and stats.fragmentation_ratio == 0.0
    assert stats.fragmentation_ratio() == 0.0  # memory_stats()'s method form works too
    assert f"{stats.fragmentation_ratio:.2%}" == "0.00%"
    assert stats.get_large_allocations(0) == []  # nothing tracked
    assert "cache_hit_rate" in repr(stats)
    if not genesis.cuda.is_available():
        assert genesis.detailed_memory_stats().device == "cpu"


def test_large_allocations_with_debugging():
    genesis.enable_memory_debugging(True)
    small = genesis.empty(10)
    big = genesis.zeros(2, MiB // 2)  # 4 MiB, float32
    big_line = _line() - 1
    bigger = genesis.empty(3 * MiB, dtype=genesis.float64)  # 24 MiB
    found = genesis.detailed_memory_stats("cpu").get_large_allocations(MiB)
    assert [a.size for a in found] == [24 * MiB, 4 * MiB]
    assert found[0].address == bigger.data_ptr() and found[1].address == big.data_ptr()
    assert found[1].shape == (2, MiB // 2) and found[1].dtype == genesis.float32
    assert found[0].shape == (3 * MiB,) and found[0].dtype == genesis.float64
    assert found[1].location == f"{__file__}:{big_line}"
    assert found[1].device == "cpu" and found[1].stream == 0 and found[1].requested == 4 * MiB
    assert found[1].stack[0].line == big_line
    del big
    assert [a.size for a in genesis.detailed_memory_stats("cpu").get_large_allocations(MiB)] == [
        24 * MiB
    ]
    assert small.numel() == 10


def test_large_allocations_from_a_recording():
    with mp.record(stacks="python"):
        big = genesis.empty(MiB)
        line = _line() - 1
        (a,) = genesis.detailed_memory_stats("cpu").get_large_allocations(4 * MiB)
        assert a.location == f"{__file__}:{line}" and a.shape == (MiB,)
        del big
        assert genesis.detailed_memory_stats("cpu").get_large_allocations(4 * MiB) == []
    assert genesis.detailed_memory_stats("cpu").get_large_allocations(0) == []  # stopped


def test_large_allocations_bad_min_size():
    stats = genesis.detailed_memory_stats("cpu")
    for bad in (-1, 1.5, "1MB", True):
        with pytest.raises(ValueError, match=r"^\[get_large_allocations\] min_size"):
            stats.get_large_allocations(bad)


@requires_cuda
def test_detailed_stats_on_a_device():
    genesis.cuda.reset_accumulated_memory_stats()
    for _ in range(100):
        x = genesis.empty(1000, device="cuda")
        del x
    stats = genesis.detailed_memory_stats()
    assert stats.device == f"cuda:{genesis.cuda.current_device()}"
    assert stats.cache_hit_rate >= 0.98  # one new segment at most
    assert stats.total_allocated >= 100 * 4096
    assert 0.0 <= stats.fragmentation_ratio <= 1.0
    genesis.enable_memory_debugging(True)
    big = genesis.empty(3 * MiB, device="cuda")
    line = _line() - 1
    found = genesis.detailed_memory_stats("cuda").get_large_allocations(12 * MiB)
    (a,) = [f for f in found if f.address == big.data_ptr()]
    assert a.size == 12 * MiB and a.location == f"{__file__}:{line}"
    assert a.device == stats.device and a.shape == (3 * MiB,) and a.dtype == genesis.float32
    assert a.stream == genesis.cuda.current_stream().cuda_stream
    genesis.enable_memory_debugging(False)
    (untracked,) = [
        f
        for f in genesis.detailed_memory_stats("cuda").get_large_allocations(12 * MiB)
        if f.address == big.data_ptr()
    ]
    assert untracked.location is None and untracked.stack == ()


def _line():
    import inspect

    return inspect.currentframe().f_back.f_lineno


# ---- empty_cache, collect_garbage, compact --------------------------------------------------


def test_controls_without_gpu():
    if genesis.cuda.is_available():
        pytest.skip("a CUDA device is available")
    assert genesis.empty_cache() is None
    report = genesis.memory_manager.compact()
    assert report.released == {} and report.total_bytes == 0 and report.total_segments == 0
    garbage = genesis.memory_manager.collect_garbage()
    assert garbage.freed == {} and garbage.total_bytes == 0


def test_collect_garbage_collects_cycles():
    class Node:
        pass

    with mp.record(stacks=None):
        for _ in range(5):
            n = Node()
            n.self, n.t = n, genesis.empty(100)
        del n
        report = genesis.memory_manager.collect_garbage()
    assert report.objects >= 5
    frees = [e for e in mp.get_timeline().events if e.kind == "free"]
    assert len(frees) == 5


@requires_cuda
def test_collect_garbage_on_a_device():
    class Node:
        pass

    n = Node()
    n.self, n.t = n, genesis.empty(3 * MiB, device="cuda")
    del n
    report = genesis.memory_manager.collect_garbage()
    assert report.freed[f"cuda:{genesis.cuda.current_device()}"] >= 12 * MiB
    # A block used on another stream waits for it, then collect_garbage returns it.
    s = genesis.cuda.Stream()
    x = genesis.empty(3 * MiB, device="cuda")
    x.record_stream(s)
    del x
    s.synchronize()
    report = genesis.memory_manager.collect_garbage()
    assert report.total_bytes >= 12 * MiB


@requires_cuda
def test_compact_and_empty_cache_on_devices():
    cuda = genesis.cuda
    genesis.memory_manager.collect_garbage()
    xs = [genesis.empty(n, device="cuda") for n in (10, 1000, 3 * MiB)]
    pinned = genesis.empty(1000, pin_memory=True)
    del xs, pinned
    assert cuda.memory_reserved() > 0
    report = genesis.memory_manager.compact()
    name = f"cuda:{cuda.current_device()}"
    assert set(report.released) == {f"cuda:{i}" for i in range(cuda.device_count())} | {"pinned"}
    assert report.released[name].bytes > 0 and report.released[name].segments > 0
    assert isinstance(report.released["pinned"], genesis.memory_manager.Released)
    # With nothing live (nor waiting for another stream), nothing stays reserved.
    for stats in (cuda.memory_stats(), cuda.host_memory_stats()):
        if stats["active_bytes.all.current"] == 0:
            assert stats["reserved_bytes.all.current"] == 0
    ys = [genesis.empty(3 * MiB, device="cuda") for _ in range(2)]
    del ys
    before = cuda.memory_reserved()
    assert genesis.empty_cache() is None
    assert cuda.memory_reserved() <= before - 24 * MiB


# ---- pinned CPU tensors -------------------------------------------------------------------


def test_enable_pinned_memory_without_cuda():
    if genesis.cuda.is_available():
        pytest.skip("a CUDA device is available")
    assert genesis.cpu.is_pinned_memory_enabled() is False
    genesis.cpu.enable_pinned_memory(True)
    assert genesis.cpu.is_pinned_memory_enabled() is True
    x = genesis.ones(1000) + 1  # accepted, no effect
    assert not x.is_pinned() and x.sum().item() == 2000.0
    assert genesis.zeros(MiB).sum().item() == 0.0
    genesis.cpu.enable_pinned_memory(False)
    assert genesis.cpu.is_pinned_memory_enabled() is False


def test_enable_pinned_memory_bad_input():
    with pytest.raises(TypeError, match=r"^\[enable_pinned_memory\] enabled must be a bool"):
        genesis.cpu.enable_pinned_memory("yes")
    assert genesis.cpu.is_pinned_memory_enabled() is False


@requires_cuda
def test_enable_pinned_memory_with_cuda():
    genesis.cpu.enable_pinned_memory(True)
    before = genesis.cuda.host_memory_stats()["allocation.all.allocated"]
    x = genesis.arange(1000, dtype=genesis.float32)
    z = genesis.zeros(MiB)  # the zeroed-map shortcut is skipped: pinned memory is filled
    y = x * 2
    assert x.is_pinned() and y.is_pinned() and z.is_pinned()
    assert z.sum().item() == 0.0
    assert genesis.cuda.host_memory_stats()["allocation.all.allocated"] >= before + 3
    g = y.to("cuda", non_blocking=True)
    genesis.cuda.current_stream().synchronize()
    assert g.cpu().tolist() == (np.arange(1000, dtype=np.float32) * 2).tolist()
    genesis.cpu.enable_pinned_memory(False)
    assert not genesis.ones(10).is_pinned()


# ---- memory_summary -----------------------------------------------------------------------


def test_memory_summary_is_text_and_html():
    summary = genesis.cuda.memory_summary()
    assert isinstance(summary, str) and isinstance(summary, genesis.cuda.MemorySummary)
    text = str(summary)
    assert summary == text and summary.splitlines() == text.splitlines()
    assert repr(summary) == repr(text) and len(summary) == len(text)
    page = summary._repr_html_()
    assert page.count("<table>") == 1 and page.count("<tr>") == 10  # header + 9 rows
    for label in ("Allocated memory", "GPU reserved segments", "Cur Usage", "Tot Freed"):
        assert label in page
    short = genesis.cuda.memory_summary(abbreviated=True)._repr_html_()
    assert short.count("<tr>") == 6
    again = pickle.loads(pickle.dumps(summary))
    assert again == summary and again._repr_html_() == page


# ---- shapes and dtypes of memory events ---------------------------------------------------


def test_events_carry_shape_and_dtype():
    with mp.record(stacks=None):
        a = genesis.zeros(3, 4)
        b = genesis.arange(5)
        c = a.sum()  # 0-d result
        d = genesis.ones(2, 3, dtype=genesis.float16) + 1
        del a
    events = mp.get_timeline().events
    allocs = [e for e in events if e.kind == "alloc"]
    assert (allocs[0].shape, allocs[0].dtype) == ((3, 4), genesis.float32)
    assert (allocs[1].shape, allocs[1].dtype) == ((5,), genesis.int64)
    assert ((), genesis.float32) in [(e.shape, e.dtype) for e in allocs]
    assert ((2, 3), genesis.float16) in [(e.shape, e.dtype) for e in allocs]
    (free_a,) = [e for e in events if e.kind == "free" and e.address == allocs[0].address]
    assert (free_a.shape, free_a.dtype) == ((3, 4), genesis.float32)
    for e in allocs:  # every known shape agrees with the bytes asked for
        if e.shape is not None:
            assert e.requested == int(np.prod(e.shape)) * e.dtype.itemsize
    assert b.numel() == 5 and c.ndim == 0 and d.shape == (2, 3)


def test_shape_columns():
    with mp.record(stacks=None):
        x = genesis.empty(2, 5, dtype=genesis.int32)
        del x
    timeline = mp.get_timeline()
    data = timeline.to_numpy()
    assert data["shape"].tolist() == [(2, 5), (2, 5)]
    assert data["dtype"].tolist() == ["int32", "int32"]
    assert (data["shape_id"] > 0).all() and (data["dtype_code"] >= 0).all()
    columns = timeline.to_dict()
    assert columns["shape"] == [(2, 5), (2, 5)] and columns["dtype"] == ["int32", "int32"]


def test_unknown_shapes_are_none():
    pool = _testing.HostPool(1 << 30)
    with mp.record(stacks=None):
        pool.free(pool.allocate(1000))  # raw pool memory: no tensor
        pool.empty_cache()
    events = mp.get_timeline().events
    assert {e.kind for e in events} == {"alloc", "free", "segment_map", "segment_unmap",
                                        "empty_cache"}  # fmt: skip
    assert all(e.shape is None and e.dtype is None for e in events)
    data = mp.get_timeline().to_numpy()
    assert (data["shape_id"] == 0).all() and (data["dtype_code"] == -1).all()
    assert all(s is None for s in data["shape"]) and all(d is None for d in data["dtype"])


def test_shape_of_an_allocation_does_not_leak_to_the_next():
    # A tensor allocation inside a recording, then raw memory: the second has no shape.
    pool = _testing.HostPool(1 << 30)
    with mp.record(stacks=None):
        genesis.empty(7)
        h = pool.allocate(64)
    pool.free(h)
    allocs = [e for e in mp.get_timeline().events if e.kind == "alloc"]
    assert allocs[0].shape == (7,) and allocs[1].shape is None


def test_free_of_an_allocation_before_the_recording_has_no_shape():
    x = genesis.empty(9)
    with mp.record(stacks=None):
        del x
    (free,) = mp.get_timeline().events
    assert free.kind == "free" and free.shape is None


def test_threads_record_their_own_shapes():
    def work(n):
        for _ in range(200):
            genesis.empty(n, 3)

    with mp.record(stacks="python", max_events=1 << 16):
        threads = [threading.Thread(target=work, args=(n,)) for n in (1, 2, 3, 4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    allocs = [e for e in mp.get_timeline().events if e.kind == "alloc"]
    assert len(allocs) == 800
    assert sorted({e.shape for e in allocs}) == [(1, 3), (2, 3), (3, 3), (4, 3)]
    assert all(e.requested == e.shape[0] * 3 * 4 for e in allocs)


def test_export_carries_shapes(tmp_path):
    with mp.record():
        x = genesis.ones(4, 8, dtype=genesis.float64)
    snap = mp.get_timeline().export_pytorch(tmp_path / "s.pickle")
    (alloc,) = [t for t in snap["device_traces"][0] if t["action"] == "alloc"]
    assert alloc["user_metadata"] == "float64[4, 8]"
    (block,) = [b for s in snap["segments"] for b in s["blocks"]]
    assert block["user_metadata"] == "float64[4, 8]"
    with open(tmp_path / "s.pickle", "rb") as f:
        assert pickle.load(f) == snap
    assert x.shape == (4, 8)


def test_report_names_the_tensors():
    with mp.record():
        big = genesis.empty(2, 1 << 17, dtype=genesis.float64)
    report = mp.get_report()
    assert (report.largest[0]["shape"], report.largest[0]["dtype"]) == (
        (2, 1 << 17),
        genesis.float64,
    )
    assert "float64[2, 131072]" in report.summary() and "float64[2, 131072]" in report._repr_html_()
    assert big.numel() == 1 << 18


def test_no_shape_bookkeeping_when_off():
    # While nothing listens, allocating leaves the recorder untouched.
    seq = recorder.sequence()
    for _ in range(10):
        genesis.empty(3, 3)
    assert recorder.sequence() == seq


# ---- the examples of classes no public module lists ----------------------------------------


@pytest.mark.parametrize(
    "obj",
    [
        genesis._memory_stats.DetailedMemoryStats,
        genesis._memory_stats.DetailedMemoryStats.get_large_allocations,
        genesis._memory_stats.LargeAllocation,
        mp.MemoryEvent,
        mp.Timeline.events,
        mp.Timeline.to_numpy,
        mp.Timeline.to_dict,
    ],
    ids=lambda o: getattr(o, "__qualname__", None) or o.fget.__qualname__,
)
def test_examples_run(obj):
    import doctest

    test = doctest.DocTestParser().get_doctest(obj.__doc__, {}, "example", None, 0)
    assert test.examples
    test.globs = {"genesis": genesis, "np": np}
    runner = doctest.DocTestRunner()
    report = []
    runner.run(test, out=report.append)
    assert not runner.failures, "".join(report)
