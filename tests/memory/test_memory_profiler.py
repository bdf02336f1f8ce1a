"""genesis.memory_profiler: the event recorder, stacks, timeline, report, export and leak checks."""

import gc
import inspect
import pickle
import threading

import numpy as np
import pytest

import genesis
from genesis import memory_profiler as mp
from genesis._C import _memory_profiler as recorder

THIS_FILE = __file__


def _line():
    """The line of the caller."""
    return inspect.currentframe().f_back.f_lineno


def _device_name(device):
    return "cuda:0" if device == "cuda" else device


def _allocs(timeline, device):
    return [e for e in timeline.events if e.kind == "alloc" and e.device == _device_name(device)]


def _frees(timeline, device):
    return [e for e in timeline.events if e.kind == "free" and e.device == _device_name(device)]


@pytest.fixture(autouse=True)
def _recorder_off():
    gc.collect()  # garbage of earlier tests, freed inside a recording, would add free events
    yield
    genesis.enable_memory_profiling(False)
    genesis.enable_memory_debugging(False)


def test_events_of_a_tensor(device):
    with mp.record(stacks=None):
        x = genesis.empty(1000, device=device)
        address = x.data_ptr()
        del x
    timeline = mp.get_timeline()
    (alloc,) = _allocs(timeline, device)
    (free,) = [e for e in _frees(timeline, device) if e.address == address]
    assert alloc.address == address and free.address == address
    assert alloc.requested == 4000
    assert alloc.size >= 4000 and free.size == alloc.size
    assert alloc.time_ns <= free.time_ns and alloc.sequence < free.sequence
    assert alloc.stack == ()  # stacks=None


@pytest.mark.parametrize("nbytes", [1 << 20, (1 << 20) + 1, 3 << 20, (8 << 20) - 4096])
def test_large_cpu_tensors_hold_their_pages_not_a_huge_page_more(nbytes):
    # Note [Large host allocations]: mapped buffers round to small pages, not to 2 MiB.
    import mmap

    with mp.record(stacks=None):
        x = genesis.empty(nbytes, dtype=genesis.uint8)
        x.fill_(7)  # touched: every page is backed
    (alloc,) = _allocs(mp.get_timeline(), "cpu")
    page = mmap.PAGESIZE
    assert alloc.requested == nbytes
    assert alloc.size == (nbytes + page - 1) // page * page
    assert x.data_ptr() % (2 << 20) == 0  # still aligned for huge pages
    assert int(x[-1]) == 7 and int(x[0]) == 7


def test_stacks_point_at_the_callers_line(device):
    with mp.record(stacks="python"):
        x = genesis.ones(3, 4, device=device)
        line = _line() - 1
    (alloc,) = _allocs(mp.get_timeline(), device)
    top = alloc.stack[0]
    assert (top.filename, top.line, top.name) == (
        THIS_FILE,
        line,
        inspect.currentframe().f_code.co_name,
    )
    package = genesis.__file__.rsplit("__init__.py", 1)[0]
    assert not any(f.filename.startswith(package) for f in alloc.stack)
    del x


def test_stacks_all_keep_cpp_frames():
    with mp.record(stacks="all"):
        x = genesis.empty(16)
        line = _line() - 1
    (alloc,) = _allocs(mp.get_timeline(), "cpu")
    python = [f for f in alloc.stack if f.filename == THIS_FILE]
    assert python[0].line == line
    assert alloc.stack.index(python[0]) > 0  # C++ frames come first, innermost first
    del x


def test_nothing_recorded_when_off(device):
    with mp.record(stacks=None):
        pass
    x = genesis.empty(100, device=device)
    del x
    assert len(mp.get_timeline()) == 0
    assert mp.get_report().summary() == "genesis memory report: nothing was recorded"
    assert "nothing was recorded" in mp.get_report()._repr_html_()


def test_enable_memory_profiling():
    genesis.enable_memory_profiling(True, stacks=None)
    x = genesis.empty(5)
    genesis.enable_memory_profiling(False)
    y = genesis.empty(5)
    assert [e.kind for e in mp.get_timeline().events] == ["alloc"]
    del x, y


def test_ring_buffer_wraps():
    with mp.record(stacks=None, max_events=10):
        for _ in range(20):
            genesis.empty(8)  # an alloc and a free each
    timeline = mp.get_timeline()
    assert len(timeline) == 10 and timeline.dropped == 30
    seq = timeline.to_numpy()["sequence"]
    assert (np.diff(seq.astype(np.int64)) == 1).all()  # the newest ten, oldest first
    assert [e.kind for e in timeline.events] == ["alloc", "free"] * 5


def test_threads_record_at_once():
    with mp.record(stacks="python", max_events=100_000):
        n = recorder._allocate_from_threads(threads=4, iterations=2000, nbytes=256)

        def work():
            for _ in range(500):
                genesis.empty(32)

        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    data = mp.get_timeline().to_numpy()
    assert len(data) == 2 * n + 2 * 1500
    assert len(np.unique(data["sequence"])) == len(data)
    assert (data["kind"] == 0).sum() == (data["kind"] == 1).sum()


def test_host_pool_counters_equal_live_events():
    pool = genesis._C._testing.HostPool(1 << 30)
    rng = np.random.default_rng(0)
    handles = []
    with mp.record(stacks=None):
        for _ in range(300):
            if handles and rng.random() < 0.4:
                pool.free(handles.pop(int(rng.integers(len(handles)))))
            else:
                handles.append(pool.allocate(int(rng.integers(1, 3 << 20))))
        pool.empty_cache()
    events = [e for e in mp.get_timeline().events if e.device == "host"]
    live, segments = {}, {}
    for e in events:
        if e.kind == "alloc":
            live[e.address] = e.size
        elif e.kind == "free":
            del live[e.address]
        elif e.kind == "segment_map":
            segments[e.address] = e.size
        elif e.kind == "segment_unmap":
            del segments[e.address]
    stats = pool.stats()
    assert sum(live.values()) == stats["allocated_bytes.all.current"]
    assert len(live) == stats["allocation.all.current"]
    assert sum(segments.values()) == stats["reserved_bytes.all.current"]
    assert [e.kind for e in events].count("empty_cache") == 1
    for h in handles:
        pool.free(h)


def test_device_pool_counters_equal_live_events(device):
    if device == "cpu":
        pytest.skip("the CPU heap keeps no counters")
    before = genesis.cuda.memory_allocated()
    with mp.record(stacks=None):
        xs = [genesis.empty(n, device=device) for n in (10, 1000, 300_000, 5_000_000)]
        del xs[1]
    allocs = {e.address: e.size for e in _allocs(mp.get_timeline(), device)}
    for e in _frees(mp.get_timeline(), device):
        allocs.pop(e.address, None)  # None: an older tensor the block's garbage collection freed
    assert genesis.cuda.memory_allocated() - before == sum(allocs.values())


def test_planted_leak_is_reported_on_its_line(device):
    genesis.enable_memory_debugging(True)
    kept = genesis.empty(10, device=device)
    mark = mp.mark_baseline()
    temp = genesis.empty(50, device=device)
    del temp
    leaked = [genesis.empty(1000, device=device) for _ in range(3)]
    line = _line() - 1
    leaks = genesis.check_memory_leaks()
    assert [(leak.location, leak.count, leak.device) for leak in leaks] == [
        (f"{THIS_FILE}:{line}", 3, _device_name(device))
    ]
    assert leaks[0].size >= 12000 and leaks[0].stack[0].line == line
    assert len(genesis.check_memory_leaks(since=0)) == 2  # the kept one too
    assert [leak.location for leak in genesis.check_memory_leaks(since=mark)] == [leaks[0].location]
    del leaked
    assert genesis.check_memory_leaks() == []
    del kept


def test_leak_in_a_cycle_is_collected_first():
    genesis.enable_memory_debugging(True)

    class Holder:
        pass

    h = Holder()
    h.me = h
    h.t = genesis.empty(64)
    del h
    assert genesis.check_memory_leaks() == []


def test_report_tables():
    with mp.record():
        big = genesis.empty(1 << 18)
        line = _line() - 1
        small = [genesis.empty(4) for _ in range(5)]
    report = mp.get_report()
    assert report.largest[0]["requested"] == 1 << 20 and report.largest[0]["size"] >= 1 << 20
    assert report.largest[0]["location"] == f"{THIS_FILE}:{line}"
    assert report.call_sites[0]["count"] == 1 and report.call_sites[1]["count"] == 5
    text = report.summary()
    assert "1.0 MiB" in text and f"{THIS_FILE}:{line}" in text and str(report) == text
    assert "<table>" in report._repr_html_()
    del big, small


def test_to_dict_and_numpy():
    with mp.record():
        x = genesis.empty(3)
        line = _line() - 1
    d = mp.get_timeline().to_dict()
    assert d["kind"] == ["alloc"] and d["device"] == ["cpu"] and d["requested"] == [12]
    assert d["location"] == [f"{THIS_FILE}:{line}"]
    a = mp.get_timeline().to_numpy()
    assert a["address"][0] == x.data_ptr() and a.dtype.names[0] == "time_ns"


@pytest.mark.parametrize("by", ["category", "stack", "size"])
def test_memory_over_time(by):
    with mp.record():
        a = genesis.empty(1 << 10)
        b = genesis.empty(1 << 20)
        del a
    times, labels, held = mp.get_timeline().memory_over_time(by=by)
    assert held.shape == (len(labels), 3) and (np.diff(times) >= 0).all()
    assert held.sum(axis=0).tolist() == [4096, 4096 + (4 << 20), 4 << 20]
    del b


def test_plot_and_save(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with mp.record():
        xs = [genesis.empty(1 << k) for k in range(8, 20)]
        del xs[::2]
    timeline = mp.get_timeline()
    for by in ("category", "stack", "size"):
        ax = timeline.plot(by=by)
        assert ax.get_title().endswith(f"(by {by})") and ax.collections
        plt.close(ax.figure)
    fig, ax = plt.subplots()
    assert timeline.plot(ax=ax) is ax
    plt.close(fig)
    timeline.save(tmp_path / "t.png")
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    timeline.save(tmp_path / "t.svg", by="size")
    assert "<svg" in (tmp_path / "t.svg").read_text()
    timeline.save(tmp_path / "t.html")
    text = (tmp_path / "t.html").read_text()
    assert text.startswith("<!DOCTYPE html>") and "<svg" in text
    del xs


def test_plot_without_matplotlib(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("no matplotlib")
        return real_import(name, *args, **kwargs)

    with mp.record():
        x = genesis.empty(4)
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match=r"^\[plot\] .*matplotlib"):
        mp.get_timeline().plot()
    del x


def test_export_pytorch_round_trips(tmp_path):
    with mp.record():
        x = genesis.empty(1000)
        y = genesis.empty(10)
        del y
    path = tmp_path / "snapshot.pickle"
    snap = mp.get_timeline().export_pytorch(path)
    with open(path, "rb") as f:
        loaded = pickle.load(f)
    assert loaded == snap and set(loaded) == {"segments", "device_traces"}
    (trace,) = loaded["device_traces"]
    actions = [e["action"] for e in trace]
    assert actions == ["alloc", "alloc", "free_requested", "free_completed", "snapshot"]
    assert trace[0]["addr"] == x.data_ptr() and trace[0]["size"] == 4032
    assert set(trace[0]) >= {"action", "addr", "size", "stream", "time_us", "frames"}
    assert set(trace[0]["frames"][0]) == {"filename", "line", "name"}
    (segment,) = loaded["segments"]
    assert segment["address"] == x.data_ptr()
    assert segment["blocks"][0]["state"] == "active_allocated"
    del x


def test_export_matches_pytorch_keys():
    torch = pytest.importorskip("torch")
    doc = torch.cuda.memory._snapshot.__doc__
    for key in ("segments", "device_traces", "free_requested", "segment_alloc", "filename"):
        assert key in doc


def test_bad_inputs(tmp_path):
    with pytest.raises(ValueError, match=r"^\[record\] stacks must be"):
        with mp.record(stacks="cpp"):
            pass
    with pytest.raises(ValueError, match=r"^\[record\] max_events"):
        with mp.record(max_events=0):
            pass
    with pytest.raises(ValueError, match=r"^\[enable_memory_profiling\] stacks"):
        genesis.enable_memory_profiling(True, stacks=1)
    with mp.record():
        with pytest.raises(RuntimeError, match=r"^\[record\] .*do not nest"):
            with mp.record():
                pass
        with pytest.raises(RuntimeError, match=r"^\[enable_memory_profiling\]"):
            genesis.enable_memory_profiling(True)
    assert not recorder.is_recording()
    with mp.record():
        pass
    timeline = mp.get_timeline()
    with pytest.raises(RuntimeError, match=r"^\[export_pytorch\] nothing was recorded"):
        timeline.export_pytorch(tmp_path / "x.pickle")
    with pytest.raises(ValueError, match=r"^\[memory_over_time\] by must be"):
        timeline.memory_over_time(by="colour")
    with pytest.raises(ValueError, match=r"^\[save\] the file must end"):
        timeline.save(tmp_path / "x.jpg")
    with pytest.raises(ValueError, match=r"^\[plot\] by must be"):
        timeline.plot(by="colour")
    with pytest.raises(RuntimeError, match=r"^\[check_memory_leaks\] memory debugging is off"):
        genesis.check_memory_leaks()
    genesis.enable_memory_debugging(True)
    with pytest.raises(ValueError, match=r"^\[check_memory_leaks\] since"):
        genesis.check_memory_leaks(since="yesterday")


def test_recording_survives_gc_during_capture():
    # Objects in cycles holding tensors, freed by collections that frame walks could start.
    class Node:
        pass

    with mp.record(stacks="python", max_events=1 << 16):
        for _ in range(2000):
            n = Node()
            n.self = n
            n.t = genesis.empty(16)
        del n
        gc.collect()
    kinds = mp.get_timeline().to_numpy()["kind"]
    assert (kinds == 0).sum() == (kinds == 1).sum() == 2000


def test_a_report_shown_at_a_prompt_is_its_table():
    with genesis.memory_profiler.record(stacks=None):
        x = genesis.empty(1024)
        del x
    report = genesis.memory_profiler.get_report()
    assert repr(report) == str(report) == report.summary()
    assert repr(report).startswith("genesis memory report: 2 events")
