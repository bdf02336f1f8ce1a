"""genesis.cuda's devices, streams, events and memory API, and genesis.memory_stats.

The first part runs anywhere (argument checks, formatting, and the no-GPU behaviour); the
second needs a GPU and checks the numbers against what the caching pool must do.
"""

from collections import OrderedDict

import pytest
from conftest import no_cuda, requires_cuda

import genesis
from genesis._memory_stats import MemoryStats
from genesis.cuda.devices import DeviceProperties, _index
from genesis.cuda.memory import _format_bytes

KiB, MiB = 1 << 10, 1 << 20

STAT_NAMES = [
    "allocated_bytes",
    "reserved_bytes",
    "active_bytes",
    "inactive_split_bytes",
    "requested_bytes",
    "allocation",
    "segment",
    "active",
    "inactive_split",
]
STAT_KEYS = [f"{n}.all.{c}" for n in STAT_NAMES for c in ("current", "peak", "allocated", "freed")]
STAT_KEYS += ["num_alloc_retries", "num_ooms"]

DEVICE_ARGS = [None, 0, -1, "cuda", "cuda:0", genesis.device("cuda:0")]

cuda = genesis.cuda


def check_cuda_message(excinfo):
    assert str(excinfo.value).startswith("[cuda] "), str(excinfo.value)


# --- anywhere ---


def test_api_names():
    # The genesis.cuda names that mirror torch.cuda's.
    for name in (
        "is_available device_count current_device set_device device get_device_name "
        "get_device_capability get_device_properties synchronize Stream Event stream "
        "current_stream default_stream memory_allocated memory_reserved memory_cached "
        "max_memory_allocated max_memory_reserved reset_peak_memory_stats memory_stats "
        "memory_summary memory_snapshot empty_cache set_per_process_memory_fraction "
        "set_memory_fraction OutOfMemoryError"
    ).split():
        assert hasattr(cuda, name), name
    assert cuda.memory_cached is cuda.memory_reserved
    assert cuda.set_memory_fraction is cuda.set_per_process_memory_fraction
    assert cuda.OutOfMemoryError is genesis._C.OutOfMemoryError
    assert issubclass(cuda.OutOfMemoryError, RuntimeError)
    assert isinstance(cuda.device, type)  # the context manager, not a module


@pytest.mark.parametrize(
    "arg, want",
    [(None, -1), (0, 0), (3, 3), (-1, -1), ("cuda", -1), ("cuda:2", 2),
     (genesis.device("cuda:1"), 1), (genesis.device("cuda"), -1)],
)  # fmt: skip
def test_index(arg, want):
    assert _index(arg) == want


@pytest.mark.parametrize("arg", ["cpu", genesis.device("cpu")])
def test_index_rejects_cpu(arg):
    with pytest.raises(ValueError) as e:
        _index(arg)
    check_cuda_message(e)


@pytest.mark.parametrize("arg", [True, 1.5, [0]])
def test_index_rejects_other_types(arg):
    with pytest.raises(TypeError) as e:
        _index(arg)
    check_cuda_message(e)


def test_index_rejects_bad_values():
    with pytest.raises(ValueError) as e:
        _index(-2)
    check_cuda_message(e)
    with pytest.raises(ValueError):
        _index("gpu:0")


def test_memory_functions_reject_cpu():
    with pytest.raises(ValueError):
        cuda.memory_allocated("cpu")
    with pytest.raises(ValueError):
        genesis.memory_stats("cpu")


@pytest.mark.parametrize("fraction", [-0.1, 1.5])
def test_memory_fraction_range(fraction):
    with pytest.raises(ValueError) as e:
        cuda.set_per_process_memory_fraction(fraction)
    check_cuda_message(e)


def test_format_bytes():
    assert _format_bytes(0) == "0 B"
    assert _format_bytes(1023) == "1023 B"
    assert _format_bytes(1024) == "1.0 KiB"
    assert _format_bytes(4096) == "4.0 KiB"
    assert _format_bytes(1536 * KiB) == "1.5 MiB"
    assert _format_bytes(3 << 30) == "3.0 GiB"
    assert _format_bytes(5 << 40) == "5.0 TiB"


def test_memory_stats_object_from_counters():
    raw = dict.fromkeys(STAT_KEYS, 0)
    raw.update({
        "allocated_bytes.all.current": 3 * MiB,
        "allocated_bytes.all.peak": 5 * MiB,
        "reserved_bytes.all.current": 4 * MiB,
        "active_bytes.all.current": 3 * MiB + 512,
        "allocation.all.allocated": 7,
        "allocation.all.freed": 4,
    })  # fmt: skip
    s = MemoryStats(raw)
    assert (s.allocated_bytes, s.reserved_bytes, s.cached_bytes) == (3 * MiB, 4 * MiB, 4 * MiB)
    assert (s.active_bytes, s.peak_allocated) == (3 * MiB + 512, 5 * MiB)
    assert (s.num_allocs, s.num_frees) == (7, 4)
    assert s.fragmentation_ratio() == pytest.approx(0.25)
    assert "allocated_bytes=3145728" in repr(s)
    assert "fragmentation_ratio=0.250" in repr(s)


def test_device_properties_repr():
    p = DeviceProperties("NVIDIA H100", 80 << 30, 132, 9, 0)
    assert repr(p) == (
        "DeviceProperties(name='NVIDIA H100', major=9, minor=0, total_memory=81920MB, "
        "multi_processor_count=132)"
    )


def test_device_none_is_a_no_op():
    with cuda.device(None):
        pass
    with cuda.device(-1):
        pass


# --- without a GPU ---


@no_cuda
def test_not_available():
    assert cuda.is_available() is False
    assert cuda.device_count() == 0


@no_cuda
@pytest.mark.parametrize("device", DEVICE_ARGS, ids=repr)
def test_memory_queries_are_zero(device):
    for f in (
        cuda.memory_allocated,
        cuda.memory_reserved,
        cuda.memory_cached,
        cuda.max_memory_allocated,
        cuda.max_memory_reserved,
    ):
        assert f(device) == 0, f
    stats = cuda.memory_stats(device)
    assert isinstance(stats, OrderedDict)
    assert set(STAT_KEYS) <= set(stats)
    assert list(stats) == sorted(stats)
    assert all(v == 0 for v in stats.values())
    assert cuda.memory_snapshot(device) == []
    assert cuda.get_per_process_memory_fraction(device) == 1.0


@no_cuda
def test_memory_controls_do_nothing():
    cuda.empty_cache()
    cuda.empty_cache(0)
    cuda.reset_peak_memory_stats()
    cuda.reset_accumulated_memory_stats("cuda:0")
    cuda.set_per_process_memory_fraction(0.5)
    cuda.set_memory_fraction(0.9, device=0)
    cuda.host_empty_cache()
    assert all(v == 0 for v in cuda.host_memory_stats().values())
    assert cuda.memory_allocated() == 0


@no_cuda
@pytest.mark.parametrize("abbreviated", [False, True])
def test_memory_summary_without_gpu(abbreviated):
    text = cuda.memory_summary(abbreviated=abbreviated)
    assert isinstance(text, str)
    assert "no CUDA device available" in text
    for row in ("Allocated memory", "Active memory", "Requested memory", "GPU reserved memory"):
        assert row in text
    assert ("Allocations" in text) is not abbreviated
    assert "CUDA OOMs: 0" in text
    assert "0 B" in text
    lines = text.splitlines()
    assert len({len(line) for line in lines}) == 1, "the table's lines have one width"


@no_cuda
@pytest.mark.parametrize(
    "call",
    [
        lambda: cuda.current_device(),
        lambda: cuda.set_device(0),
        lambda: cuda.set_device("cuda:0"),
        lambda: cuda.device(0).__enter__(),
        lambda: cuda.synchronize(),
        lambda: cuda.get_device_properties(),
        lambda: cuda.get_device_name(0),
        lambda: cuda.get_device_capability(),
        lambda: cuda.mem_get_info(),
        lambda: cuda.Stream(),
        lambda: cuda.Event(),
        lambda: cuda.Event(enable_timing=True),
        lambda: cuda.current_stream(),
        lambda: cuda.default_stream(),
        lambda: cuda.stream().__enter__(),
    ],
)
def test_device_functions_raise_without_gpu(call):
    with pytest.raises(RuntimeError) as e:
        call()
    check_cuda_message(e)


@no_cuda
def test_stream_block_raises_without_gpu():
    with pytest.raises(RuntimeError) as e:
        with cuda.stream():
            pass
    check_cuda_message(e)
    with pytest.raises(RuntimeError) as e:
        with cuda.device(0):
            pass
    check_cuda_message(e)


@no_cuda
@pytest.mark.parametrize("device", DEVICE_ARGS, ids=repr)
def test_genesis_memory_stats_without_gpu(device):
    s = genesis.memory_stats(device)
    assert isinstance(s, MemoryStats)
    for name in ("allocated_bytes", "reserved_bytes", "cached_bytes", "active_bytes",
                 "peak_allocated", "num_allocs", "num_frees"):  # fmt: skip
        assert getattr(s, name) == 0, name
    assert s.fragmentation_ratio() == 0
    assert repr(s).startswith("MemoryStats(")
    assert genesis.memory_stats().allocated_bytes == 0


@no_cuda
def test_cpu_tensor_is_not_pinned_without_gpu():
    assert genesis.zeros(3).is_pinned() is False


# --- with a GPU ---


def pool_blocks(snapshot, state=None):
    return [b for seg in snapshot for b in seg["blocks"] if state is None or b["state"] == state]


@requires_cuda
def test_allocated_grows_by_rounded_size():
    base = cuda.memory_allocated()
    requested = cuda.memory_stats()["requested_bytes.all.current"]
    x = genesis.empty(1000, device="cuda")  # 4000 bytes -> a 4096-byte block
    assert cuda.memory_allocated() == base + 4096
    assert cuda.memory_allocated("cuda") == cuda.memory_allocated(0) == base + 4096
    assert cuda.memory_stats()["requested_bytes.all.current"] == requested + 4000
    assert cuda.memory_reserved() >= cuda.memory_allocated()
    del x
    assert cuda.memory_allocated() == base


@requires_cuda
def test_allocation_loop_returns_to_baseline():
    base = cuda.memory_allocated()
    allocs = cuda.memory_stats()["allocation.all.allocated"]
    t = genesis.empty(1000, device="cuda")
    del t
    reserved = cuda.memory_reserved()
    for _ in range(1000):
        t = genesis.empty(1000, device="cuda")
        del t
    assert cuda.memory_allocated() == base
    assert cuda.memory_reserved() == reserved  # every round reused the cached block
    assert cuda.memory_stats()["allocation.all.allocated"] == allocs + 1001


@requires_cuda
def test_snapshot_agrees_with_stats():
    keep = [
        genesis.empty(1000, device="cuda"),
        genesis.empty(300_000, device="cuda", dtype=genesis.uint8),
        genesis.empty(3 * MiB, device="cuda", dtype=genesis.uint8),
        genesis.empty(12 * MiB, device="cuda", dtype=genesis.uint8),
    ]
    del keep[1]
    stats, snap = cuda.memory_stats(), cuda.memory_snapshot()
    assert sum(s["total_size"] for s in snap) == stats["reserved_bytes.all.current"]
    assert len(snap) == stats["segment.all.current"]
    allocated = pool_blocks(snap, "active_allocated")
    assert sum(b["size"] for b in allocated) == stats["allocated_bytes.all.current"]
    assert len(allocated) == stats["allocation.all.current"]
    ptrs = {b["address"] for b in allocated}
    assert all(t.data_ptr() in ptrs for t in keep)
    for seg in snap:
        assert seg["size"] == seg["total_size"]  # `size` is the segment's size too
        assert seg["segment_type"] in ("small", "large")
        assert seg["allocated_size"] == sum(
            b["size"] for b in seg["blocks"] if b["state"] == "active_allocated"
        )
        addr = seg["address"]
        for b in seg["blocks"]:  # blocks tile their segment in address order
            assert b["address"] == addr
            assert b["size"] % 512 == 0
            assert b["state"] in ("active_allocated", "active_pending_free", "inactive")
            addr += b["size"]
        assert addr == seg["address"] + seg["total_size"]


@requires_cuda
def test_empty_cache_keeps_only_what_live_tensors_need():
    cuda.empty_cache()
    r0 = cuda.memory_reserved()
    keep = genesis.empty(1000, device="cuda")
    a = genesis.empty(64 * MiB, device="cuda", dtype=genesis.uint8)
    r1 = cuda.memory_reserved()
    assert r1 >= r0  # a new segment, unless a cached free block fitted
    del a
    assert cuda.memory_reserved() == r1  # freeing caches, it does not give back
    cuda.empty_cache()
    assert cuda.memory_reserved() <= r1
    snap = cuda.memory_snapshot()
    assert sum(s["total_size"] for s in snap) == cuda.memory_reserved()
    for seg in snap:  # no wholly free segment is left
        assert any(b["state"] != "inactive" for b in seg["blocks"]), seg
    assert keep.data_ptr() in {b["address"] for b in pool_blocks(snap, "active_allocated")}


@requires_cuda
def test_out_of_memory_is_recoverable():
    base = cuda.memory_allocated()
    before = cuda.memory_stats()
    with pytest.raises(cuda.OutOfMemoryError) as e:
        genesis.empty(2**50, device="cuda", dtype=genesis.uint8)
    assert isinstance(e.value, RuntimeError)
    assert "out of memory" in str(e.value)
    after = cuda.memory_stats()
    assert after["num_ooms"] == before["num_ooms"] + 1
    assert after["num_alloc_retries"] >= before["num_alloc_retries"] + 1
    assert cuda.memory_allocated() == base
    x = genesis.full((1000,), 2.0, device="cuda")
    assert x.tolist()[:3] == [2.0, 2.0, 2.0]
    del x
    assert cuda.memory_allocated() == base


@requires_cuda
def test_memory_fraction_caps_the_pool():
    total = cuda.get_device_properties().total_memory
    n = int(total * 0.02)  # twice the cap below
    try:
        cuda.set_per_process_memory_fraction(0.01)
        assert cuda.get_per_process_memory_fraction() == pytest.approx(0.01)
        with pytest.raises(cuda.OutOfMemoryError) as e:
            genesis.empty(n, device="cuda", dtype=genesis.uint8)
        assert "out of memory" in str(e.value)
    finally:
        cuda.set_per_process_memory_fraction(1.0)
    assert cuda.get_per_process_memory_fraction() == 1.0
    y = genesis.empty(n, device="cuda", dtype=genesis.uint8)  # fine again without the cap
    del y
    cuda.empty_cache()


@requires_cuda
def test_reset_peak_and_accumulated_stats():
    x = genesis.empty(4 * MiB, device="cuda", dtype=genesis.uint8)
    del x
    assert cuda.max_memory_allocated() >= cuda.memory_allocated() + 4 * MiB
    cuda.reset_peak_memory_stats()
    assert cuda.max_memory_allocated() == cuda.memory_allocated()
    assert cuda.max_memory_reserved() == cuda.memory_reserved()
    cuda.reset_accumulated_memory_stats()
    stats = cuda.memory_stats()
    assert stats["allocation.all.allocated"] == stats["allocation.all.freed"] == 0
    assert stats["num_ooms"] == stats["num_alloc_retries"] == 0
    y = genesis.empty(10, device="cuda")
    del y
    stats = cuda.memory_stats()
    assert stats["allocation.all.allocated"] == stats["allocation.all.freed"] == 1


@requires_cuda
def test_memory_summary_with_gpu():
    x = genesis.empty(1000, device="cuda")
    text = cuda.memory_summary()
    assert f"cuda:{cuda.current_device()}" in text
    assert "Allocated memory" in text and "GPU reserved segments" in text
    assert "KiB" in text or "MiB" in text or "GiB" in text
    assert len(cuda.memory_summary(abbreviated=True)) < len(text)
    del x


@requires_cuda
def test_stream_context_switches_and_restores():
    prev = cuda.current_stream()
    assert cuda.default_stream().cuda_stream == 0
    with cuda.stream() as s:
        assert isinstance(s, cuda.Stream)
        assert cuda.current_stream() == s
        assert s != cuda.default_stream()
        assert s.device == genesis.device(f"cuda:{cuda.current_device()}")
        x = genesis.full((1000,), 3.0, device="cuda")  # runs on s
        s.synchronize()
        assert s.query()
        assert x.tolist()[0] == 3.0
        with cuda.stream(cuda.default_stream()):  # nesting restores the outer stream
            assert cuda.current_stream().cuda_stream == 0
        assert cuda.current_stream() == s
    assert cuda.current_stream() == prev
    s2 = cuda.Stream(priority=-1)
    with pytest.raises(KeyError):
        with cuda.stream(s2):
            assert cuda.current_stream() == s2
            raise KeyError("restored also on exceptions")
    assert cuda.current_stream() == prev
    assert len({s, s2, cuda.Stream._wrap(s.cuda_stream, s.device_index)}) == 2  # __hash__/__eq__
    assert "genesis.cuda.Stream" in repr(s)


@requires_cuda
def test_set_stream_and_current_stream():
    s = cuda.Stream()
    try:
        cuda.set_stream(s)
        assert cuda.current_stream() is s
        cuda.set_stream(None)  # does nothing, as in PyTorch
        assert cuda.current_stream() is s
    finally:
        cuda.set_stream(cuda.default_stream())
    assert cuda.current_stream().cuda_stream == 0


@requires_cuda
def test_events_time_and_order_work():
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    assert start.query()  # nothing recorded yet
    start.record()
    x = genesis.full((1 << 24,), 1.0, device="cuda")
    end.record()
    end.synchronize()
    assert end.query() and start.query()
    ms = start.elapsed_time(end)
    assert isinstance(ms, float) and ms >= 0
    with pytest.raises(RuntimeError):
        cuda.Event().elapsed_time(end)  # not made with enable_timing
    # A side stream's result, handed over through an event.
    s = cuda.Stream()
    with cuda.stream(s):
        y = genesis.full((1000,), 7.0, device="cuda")
    e = s.record_event()
    assert isinstance(e, cuda.Event)
    cuda.current_stream().wait_event(e)
    cuda.current_stream().wait_stream(s)
    e.wait()
    e.synchronize()
    assert e.query()
    assert y.tolist()[-1] == 7.0
    del x


@requires_cuda
def test_record_stream_delays_reuse():
    s = cuda.Stream()
    # Keep s busy for milliseconds, so the event recorded on it when x is freed is pending.
    with cuda.stream(s):
        busy = genesis.empty(1 << 28, device="cuda")  # 1 GiB
        for _ in range(20):
            busy.fill_(1.0)
    base = cuda.memory_allocated()
    x = genesis.empty(1 << 20, dtype=genesis.uint8, device="cuda")  # on the default stream
    x.record_stream(s)
    ptr = x.data_ptr()
    del x
    assert cuda.memory_allocated() == base  # freed for the counters at once...
    states = {b["address"]: b["state"] for b in pool_blocks(cuda.memory_snapshot())}
    assert states[ptr] == "active_pending_free"  # ...but not reusable while s may use it
    y = genesis.empty(1 << 20, dtype=genesis.uint8, device="cuda")
    assert y.data_ptr() != ptr
    s.synchronize()
    z = genesis.empty(1 << 20, dtype=genesis.uint8, device="cuda")  # processes the events
    assert not pool_blocks(cuda.memory_snapshot(), "active_pending_free")
    # An int handle works too; recording the tensor's own stream changes nothing.
    w = genesis.empty(10, device="cuda")
    w.record_stream(s.cuda_stream)
    w.record_stream(cuda.current_stream())
    del busy, y, z, w


@requires_cuda
def test_pinned_memory():
    t = genesis.full((100,), 1.5)
    assert not t.is_pinned()
    p = t.pin_memory()
    assert p.is_pinned()
    assert p.device == genesis.device("cpu")
    assert p.tolist() == t.tolist()
    e = genesis.empty(100, pin_memory=True)
    assert e.is_pinned()
    assert cuda.host_memory_stats()["allocated_bytes.all.current"] > 0
    assert genesis.full((4,), 2.0).cuda().cpu().tolist() == [2.0] * 4


def _keep_the_device_busy():
    """About a second of matrix products queued on the current stream (returned, so that they
    are not freed early): work for an asynchronous copy to wait behind."""
    a = genesis.randn(8192, 8192, device="cuda")
    return [a @ a for _ in range(40)]


@requires_cuda
def test_a_freed_pinned_block_waits_for_its_copy():
    # Note [Pinned blocks wait for their copies]: a pinned tensor copied to the device without
    # waiting and then freed is not handed out again (and written by the host) before the copy
    # has read it, even on the default stream and with the stream far behind the host.
    busy = _keep_the_device_busy()
    n, copies = 1 << 20, []
    for value in (1.0, 2.0, 3.0):
        src = genesis.full((n,), value).pin_memory()
        copies.append((value, src.to("cuda", non_blocking=True)))
        del src
        reused = genesis.empty(n, pin_memory=True)  # its size: the freed block, were it free
        reused.fill_(-1.0)
    for value, dst in copies:
        assert bool((dst == value).all()), value
    del busy


@requires_cuda
def test_device_properties():
    p = cuda.get_device_properties()
    assert isinstance(p.name, str) and p.name
    assert p.total_memory > 0 and p.multi_processor_count > 0
    assert p.major >= 1 and p.minor >= 0
    assert cuda.get_device_properties(0) == cuda.get_device_properties("cuda:0") == p
    assert cuda.get_device_name() == p.name
    assert cuda.get_device_capability() == (p.major, p.minor)
    assert p.name in repr(p)
    free, total = cuda.mem_get_info()
    assert 0 < free <= total


@requires_cuda
def test_device_context_and_set_device():
    prev = cuda.current_device()
    with cuda.device(0):
        assert cuda.current_device() == 0
        x = genesis.zeros(2, device="cuda")
        assert x.device == genesis.device("cuda:0")
    assert cuda.current_device() == prev
    cuda.set_device("cuda:0")
    cuda.set_device(genesis.device("cuda:0"))
    cuda.set_device(0)
    assert cuda.current_device() == 0
    cuda.synchronize()
    cuda.synchronize(0)


@requires_cuda
def test_seed_002_memory_example():
    lines = [
        f"已分配内存: {genesis.cuda.memory_allocated() / 1024**2:.1f} MB",
        f"缓存内存: {genesis.cuda.memory_cached() / 1024**2:.1f} MB",
    ]
    before = genesis.cuda.memory_allocated()
    x = genesis.full((1000, 1000), 0.5, device="cuda")
    assert genesis.cuda.memory_allocated() >= before + 4_000_000
    lines.append(f"创建张量后: {genesis.cuda.memory_allocated() / 1024**2:.1f} MB")
    del x
    genesis.cuda.empty_cache()
    assert genesis.cuda.memory_allocated() == before
    lines.append(f"清理后: {genesis.cuda.memory_allocated() / 1024**2:.1f} MB")
    snapshot = genesis.cuda.memory_snapshot()
    for entry in snapshot[:3]:
        lines.append(f"地址: {entry['address']}, 大小: {entry['size']} bytes")
    with genesis.cuda.stream():
        x = genesis.full((1000, 1000), 1.0, device="cuda")
        genesis.cuda.synchronize()
        assert x.shape == (1000, 1000)
    with genesis.cuda.device(0):
        y = genesis.full((1000, 1000), 1.0, device="cuda")
        y.fill_(0.5)
        del y
        genesis.cuda.empty_cache()
    assert len(lines) >= 4


@requires_cuda
def test_seed_003_memory_stats():
    try:
        genesis.cuda.set_memory_fraction(0.9)
        before = genesis.memory_stats("cuda")
        x = genesis.empty(1 << 20, device="cuda", dtype=genesis.uint8)
        stats = genesis.memory_stats("cuda")
        assert f"已分配：{stats.allocated_bytes / 1e9:.2f} GB"
        assert f"缓存：{stats.cached_bytes / 1e9:.2f} GB"
        assert stats.allocated_bytes == genesis.cuda.memory_allocated()
        assert stats.allocated_bytes == before.allocated_bytes + (1 << 20)
        assert stats.cached_bytes == stats.reserved_bytes == genesis.cuda.memory_reserved()
        assert stats.peak_allocated >= stats.allocated_bytes
        assert stats.active_bytes >= stats.allocated_bytes
        assert stats.num_allocs == before.num_allocs + 1
        assert 0.0 <= stats.fragmentation_ratio() < 1.0
        del x
        after = genesis.memory_stats("cuda:0")
        assert after.num_frees == before.num_frees + 1
        assert genesis.memory_stats(0).allocated_bytes == before.allocated_bytes
    finally:
        genesis.cuda.set_memory_fraction(1.0)
