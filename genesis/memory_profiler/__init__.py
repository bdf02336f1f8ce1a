"""genesis.memory_profiler: what allocated memory, when, from which line, and what is still live.

Every allocator reports to a recorder in C++: the CPU heap, each CUDA device's caching pool and
the pinned host pool. ``record()`` (or ``genesis.enable_memory_profiling(True)``) keeps their
allocations, frees, segment maps and unmaps, out-of-memory errors and empty_cache calls in a
preallocated ring buffer, each with time, device, stream, sizes, address, the shape and dtype of
the tensor it is for where known and, when asked, the Python stack that caused it.
``get_timeline()`` reads them (events, NumPy columns, a plot, an export for PyTorch's memory
viewer) and ``get_report()`` summarises them.
``genesis.enable_memory_debugging(True)`` tracks live allocations by call site, for
``genesis.check_memory_leaks()``; ``mark_baseline()`` hides what is live at that point.

Nothing is recorded while both are off, and then an allocation pays one load and a branch.
Reading with nothing recorded gives an empty Timeline and a Report that says so; drawing or
exporting nothing raises RuntimeError.

Example::

    >>> with genesis.memory_profiler.record():
    ...     x = genesis.empty(1024)
    ...     del x
    >>> [e.kind for e in genesis.memory_profiler.get_timeline().events]
    ['alloc', 'free']
"""

import contextlib
import gc
import os

from .._C import _memory_profiler as _recorder
from ._events import (
    Frame,
    MemoryEvent,
    ShapeTable,
    StackTable,
    location,
    read_events,
    read_live,
)
from ._report import Report
from ._timeline import Timeline

__all__ = [
    "Frame",
    "MemoryEvent",
    "MemoryLeak",
    "Report",
    "Timeline",
    "check_memory_leaks",
    "enable_memory_debugging",
    "enable_memory_profiling",
    "get_report",
    "get_timeline",
    "mark_baseline",
    "record",
]

# Note [Stacks captured in C++] (csrc/python/memory_profiler.cpp): frames under the package
# directory are genesis's own and left out of stacks="python".
_recorder.set_package_dir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep)

_DEFAULT_MAX_EVENTS = 1 << 20
_state = {"owner": None, "baseline": 0}  # owner: None, "record" or "enable"


def _stacks_arg(stacks, op):
    if stacks is None:
        return "none"
    if isinstance(stacks, str) and stacks in ("python", "all"):
        return stacks
    raise ValueError(f"[{op}] stacks must be 'python', 'all' or None, got {stacks!r}")


def _max_events_arg(max_events, op):
    if isinstance(max_events, bool) or not isinstance(max_events, int) or max_events <= 0:
        raise ValueError(f"[{op}] max_events must be a positive integer, got {max_events!r}")
    return max_events


def enable_memory_profiling(enabled=True, stacks="python", max_events=_DEFAULT_MAX_EVENTS):
    """Starts or stops recording memory events, for code that cannot sit in a ``with`` block.

    Starting clears the previous recording. ``record()`` is the same as a context manager; the
    two do not nest.

    Args:
        enabled (bool): start (True) or stop (False). Default: ``True``.
        stacks (str): 'python' (the Python stack of each event, without genesis's own frames),
            'all' (genesis's frames and C++ frames too) or None (no stacks, cheapest).
            Default: ``'python'``.
        max_events (int): the ring buffer's size; older events are overwritten beyond it.
            Default: ``1 << 20``.

    Returns:
        None

    Example::

        >>> genesis.enable_memory_profiling(True, stacks=None)
        >>> x = genesis.empty(8)
        >>> genesis.enable_memory_profiling(False)
        >>> len(genesis.memory_profiler.get_timeline())
        1
    """
    op = "enable_memory_profiling"
    if not enabled:
        if _state["owner"] == "record":
            raise RuntimeError(f"[{op}] a record() block is recording; leave it instead")
        if _state["owner"] == "enable":
            _recorder.stop()
            _state["owner"] = None
        return
    mode = _stacks_arg(stacks, op)
    n = _max_events_arg(max_events, op)
    if _state["owner"] == "record":
        raise RuntimeError(f"[{op}] a record() block is recording already")
    if _state["owner"] == "enable":
        _recorder.stop()
    _recorder.start(n, mode)
    _state["owner"] = "enable"


@contextlib.contextmanager
def record(stacks="python", max_events=_DEFAULT_MAX_EVENTS):
    """Records every memory event of the block, for ``get_timeline()`` and ``get_report()``.

    Events of all threads and devices are recorded: CPU tensors, each CUDA device's pool and
    pinned host memory. Blocks do not nest (RuntimeError), nor run inside
    ``enable_memory_profiling(True)``. The recording stays readable after the block.

    Args:
        stacks (str): 'python', 'all' or None, as for ``enable_memory_profiling``.
            Default: ``'python'``.
        max_events (int): the ring buffer's size. Default: ``1 << 20``.

    Yields:
        None

    Example::

        >>> with genesis.memory_profiler.record(stacks=None, max_events=1000):
        ...     y = genesis.ones(3) + 1
        >>> [e.kind for e in genesis.memory_profiler.get_timeline().events]
        ['alloc', 'alloc', 'free']
    """
    mode = _stacks_arg(stacks, "record")
    n = _max_events_arg(max_events, "record")
    if _state["owner"] is not None:
        raise RuntimeError(
            "[record] memory is being recorded already (a record() block or "
            "enable_memory_profiling); record() blocks do not nest"
        )
    _recorder.start(n, mode)
    _state["owner"] = "record"
    try:
        yield
    finally:
        _recorder.stop()
        _state["owner"] = None


def get_timeline():
    """Returns the events of the current or last recording as a Timeline.

    Returns:
        Timeline: a copy of the events; empty when nothing was recorded.

    Example::

        >>> with genesis.memory_profiler.record():
        ...     x = genesis.zeros(2, 3)
        >>> genesis.memory_profiler.get_timeline().events[0].requested
        24
    """
    data, dropped = read_events()
    return Timeline(data, dropped, StackTable(), ShapeTable())


def get_report():
    """Returns a Report of the current or last recording: peak, largest allocations, call sites.

    Returns:
        Report: print ``summary()``, or show it in Jupyter; says so when nothing was recorded.

    Example::

        >>> with genesis.memory_profiler.record():
        ...     x = genesis.empty(1 << 20)
        >>> genesis.memory_profiler.get_report().largest[0]["size"]
        4194304
    """
    return Report(get_timeline())


class MemoryLeak:
    """Live allocations made at one call site while memory debugging was on.

    ``check_memory_leaks()`` returns these. ``location`` is 'file:line' of the innermost frame
    outside genesis ('<unknown>' for memory allocated without the interpreter lock), ``size``
    the bytes still held, ``count`` how many allocations, ``device`` where, and ``stack`` the
    frames (innermost first) of the largest one.

    Args:
        location (str): the call site.
        size (int): the bytes held.
        count (int): the number of allocations.
        stack (tuple): Frames, innermost first.
        device (str): 'cpu', 'cuda:N' or 'pinned'.

    Example::

        >>> genesis.memory_profiler.MemoryLeak("a.py:3", 64, 1, (), "cpu")
        MemoryLeak(location='a.py:3', size=64, count=1, device='cpu')
    """

    def __init__(self, location, size, count, stack, device):
        self.location = location
        self.size = size
        self.count = count
        self.stack = stack
        self.device = device

    def __repr__(self):
        return (
            f"MemoryLeak(location={self.location!r}, size={self.size}, count={self.count}, "
            f"device={self.device!r})"
        )


def enable_memory_debugging(enabled=True):
    """Starts or stops tracking live allocations by call site, for ``check_memory_leaks()``.

    While on, each allocation keeps its Python stack until it is freed, whatever the event
    recording does. Turning it on forgets what an earlier session tracked and resets the
    baseline.

    Args:
        enabled (bool): on or off. Default: ``True``.

    Returns:
        None

    Example::

        >>> genesis.enable_memory_debugging(True)
        >>> genesis.check_memory_leaks()
        []
        >>> genesis.enable_memory_debugging(False)
    """
    if enabled and not _recorder.is_debugging():
        _state["baseline"] = 0
    _recorder.set_debugging(bool(enabled))


def mark_baseline():
    """Marks this point: later ``check_memory_leaks()`` calls skip what is live now.

    Returns:
        int: the mark, also accepted as ``check_memory_leaks(since=...)``.

    Example::

        >>> genesis.enable_memory_debugging(True)
        >>> kept = genesis.empty(100)  # alive on purpose
        >>> mark = genesis.memory_profiler.mark_baseline()
        >>> genesis.check_memory_leaks()
        []
        >>> genesis.enable_memory_debugging(False)
    """
    _state["baseline"] = int(_recorder.sequence())
    return _state["baseline"]


def check_memory_leaks(since=None):
    """Returns the allocations made while debugging was on that are still live, by call site.

    Garbage that only Python's cycle collector frees is collected first. Needs
    ``genesis.enable_memory_debugging(True)``.

    Args:
        since (int): a mark from ``mark_baseline()``: only allocations after it count. None
            uses the last mark (or everything since debugging started). Default: ``None``.

    Returns:
        list: MemoryLeak entries, largest first; empty when nothing leaked.

    Example::

        >>> genesis.enable_memory_debugging(True)
        >>> leaked = genesis.empty(256)
        >>> [leak.size for leak in genesis.check_memory_leaks()]
        [1024]
        >>> genesis.enable_memory_debugging(False)
    """
    op = "check_memory_leaks"
    if not _recorder.is_debugging():
        raise RuntimeError(
            f"[{op}] memory debugging is off: call genesis.enable_memory_debugging(True) "
            "before the code to check"
        )
    if since is None:
        since = _state["baseline"]
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        raise ValueError(f"[{op}] since must be a mark from mark_baseline(), got {since!r}")
    gc.collect()
    live = read_live(since)
    stacks = StackTable()
    groups = {}
    from ._events import device_name

    for row in live:
        stack = stacks.stack(row["stack_id"])
        device = device_name(row["pool"], row["device_index"])
        key = (location(stack), device)
        g = groups.setdefault(key, {"size": 0, "count": 0, "largest": -1, "stack": stack})
        g["size"] += int(row["size"])
        g["count"] += 1
        if int(row["size"]) > g["largest"]:
            g["largest"], g["stack"] = int(row["size"]), stack
    leaks = [
        MemoryLeak(loc, g["size"], g["count"], g["stack"], dev) for (loc, dev), g in groups.items()
    ]
    return sorted(leaks, key=lambda leak: (-leak.size, leak.location))
