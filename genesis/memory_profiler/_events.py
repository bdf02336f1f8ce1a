"""The recorder's events as NumPy columns and small records, with their stacks resolved."""

from typing import NamedTuple, Optional

import numpy as np

from .. import _C
from .._C import _memory_profiler as _recorder

KINDS = ("alloc", "free", "segment_map", "segment_unmap", "oom", "empty_cache")
_POOLS = ("cpu", "cuda", "pinned", "host")


def _dtype(layout):
    return np.dtype(
        {
            "names": layout["names"],
            "formats": layout["formats"],
            "offsets": layout["offsets"],
            "itemsize": layout["itemsize"],
        }
    )


EVENT_DTYPE = _dtype(_recorder.event_layout())
LIVE_DTYPE = _dtype(_recorder.live_layout())


class Frame(NamedTuple):
    """One frame of a recorded stack: ``filename``, ``line`` and function ``name``.

    Example::

        >>> with genesis.memory_profiler.record():
        ...     x = genesis.empty(2)
        >>> frame = genesis.memory_profiler.get_timeline().events[0].stack[0]
        >>> isinstance(frame.line, int), frame.name
        (True, '<module>')
    """

    filename: str
    line: int
    name: str


class MemoryEvent(NamedTuple):
    """One recorded event; ``stack`` lists frames innermost first (empty without stacks).

    Fields: ``time_ns``, ``kind``, ``device``, ``stream``, ``size``, ``requested``,
    ``address``, ``stack``, ``sequence``, and ``shape`` (a tuple) and ``dtype`` (a
    genesis.dtype) of the tensor the memory is for, None where unknown (see
    ``Timeline.events``).

    Example::

        >>> with genesis.memory_profiler.record(stacks=None):
        ...     x = genesis.empty(2)
        >>> event = genesis.memory_profiler.get_timeline().events[0]
        >>> event.kind, event.device, event.address == x.data_ptr()
        ('alloc', 'cpu', True)
        >>> event.shape, event.dtype
        ((2,), genesis.float32)
    """

    time_ns: int
    kind: str
    device: str
    stream: int
    size: int
    requested: int
    address: int
    stack: tuple
    sequence: int
    shape: Optional[tuple] = None
    dtype: Optional[object] = None


def device_name(pool, index):
    """'cpu', 'cuda:N', 'pinned' or 'host' (the tests' pool) for a pool code and device."""
    name = _POOLS[int(pool)]
    return f"cuda:{int(index)}" if name == "cuda" else name


class StackTable:
    """The interned frames and stacks, read once; ``stack(id)`` is a tuple of Frames."""

    def __init__(self):
        frames = [Frame(*f) for f in _recorder.frames()]
        self._stacks = [tuple(frames[i] for i in ids) for ids in _recorder.stacks()]

    def stack(self, stack_id):
        stack_id = int(stack_id)
        return self._stacks[stack_id] if stack_id < len(self._stacks) else ()


_DTYPE_NAMES = list(_recorder.dtype_names())


class ShapeTable:
    """Note [Recorded shapes] (csrc/memory/event_recorder.h): shape ids and dtype codes of the
    recorder's events as tuples and dtypes, each None where unknown."""

    def __init__(self):
        shapes = _recorder.shapes()
        self.shapes = np.empty(len(shapes), dtype=object)
        for i, shape in enumerate(shapes):  # element by element: NumPy would unpack tuples
            self.shapes[i] = shape
        names = np.empty(len(_DTYPE_NAMES) + 1, dtype=object)  # code -1 reads the last: None
        names[: len(_DTYPE_NAMES)] = _DTYPE_NAMES
        self.dtype_names = names

    def shape(self, shape_id):
        shape_id = int(shape_id)
        return self.shapes[shape_id] if shape_id < len(self.shapes) else None

    def dtype(self, code):
        code = int(code)
        return _C._dtype_from_name(_DTYPE_NAMES[code]) if 0 <= code < len(_DTYPE_NAMES) else None

    def shape_column(self, ids):
        ids = np.asarray(ids, dtype=np.int64)
        ids = np.where(ids < len(self.shapes), ids, 0)
        return self.shapes[ids]

    def dtype_column(self, codes):
        return self.dtype_names[np.asarray(codes, dtype=np.int64)]


def location(stack):
    """'file:line' of a stack's innermost frame, or '<unknown>' without one."""
    return f"{stack[0].filename}:{stack[0].line}" if stack else "<unknown>"


def read_events():
    """(structured array of the recorded events, number overwritten)."""
    raw, dropped = _recorder.events()
    return np.frombuffer(raw, dtype=EVENT_DTYPE).copy(), int(dropped)


def read_live(since):
    return np.frombuffer(_recorder.live_allocations(since), dtype=LIVE_DTYPE).copy()


# The groupings a timeline sums memory by (memory_over_time, plot, save).
_BY = ("category", "stack", "size")


def check_by(by, op):
    if not isinstance(by, str) or by not in _BY:
        raise ValueError(f"[{op}] by must be 'category', 'stack' or 'size', got {by!r}")
