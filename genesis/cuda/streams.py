"""CUDA streams and events over the integer handles of genesis._C._cuda (0 = default stream).

Streams that a Stream() created are recycled, never destroyed: when the object is collected its
handle goes back to a free list and a later Stream() on the same device and priority reuses it.
Destroying a stream would leave dangling handles behind in C++ (a block marked with
record_stream records an event on that stream when it is freed, possibly long after the Python
object is gone), and recycling also makes ``with genesis.cuda.stream():`` inside a loop, a new
stream per iteration, cheap. Sharing a recycled stream is always safe: it only orders work that
would otherwise overlap.
"""

import threading
from contextlib import contextmanager

from .. import _C
from .devices import _resolve
from .devices import device as _device_scope

# (device index, priority) -> handles of streams created here that no Stream object holds now.
_free_streams: dict[tuple[int, int], list[int]] = {}
_free_lock = threading.Lock()

# The Stream object made current on each device, per thread (the C++ current stream is per
# thread too): it keeps the object alive while current, and current_stream() returns it.
_local = threading.local()


def _current_objects():
    if not hasattr(_local, "streams"):
        _local.streams = {}
    return _local.streams


class Stream:
    """A CUDA stream on ``device`` (None: the current device); lower priority = more urgent."""

    def __init__(self, device=None, priority=0):
        self._owned = False  # set first: __del__ runs even when creation below raises
        self.device_index = _resolve(device)
        self.priority = priority
        with _free_lock:
            handles = _free_streams.get((self.device_index, priority))
            handle = handles.pop() if handles else None
        if handle is None:
            handle = _C._cuda.create_stream(self.device_index, priority)
        self.cuda_stream = handle
        self._owned = True

    @classmethod
    def _wrap(cls, handle, device):
        """A Stream for an existing handle (the default stream, the current one); not recycled."""
        s = cls.__new__(cls)
        s._owned = False
        s.device_index = _resolve(device)
        s.priority = 0
        s.cuda_stream = handle
        return s

    def __del__(self):
        if self._owned:
            with _free_lock:
                _free_streams.setdefault((self.device_index, self.priority), []).append(
                    self.cuda_stream
                )

    @property
    def device(self):
        return _C.device("cuda", self.device_index)

    def synchronize(self):
        """Waits until all work queued on this stream has finished."""
        _C._cuda.synchronize_stream(self.device_index, self.cuda_stream)

    def query(self):
        """True when all work queued on this stream has finished."""
        return _C._cuda.query_stream(self.device_index, self.cuda_stream)

    def wait_event(self, event):
        """Makes later work on this stream wait for ``event`` (the host does not wait)."""
        event.wait(self)

    def wait_stream(self, stream):
        """Makes later work on this stream wait for the work queued on ``stream`` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Records ``event`` (a new Event when None) on this stream and returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __eq__(self, other):
        if not isinstance(other, Stream):
            return NotImplemented
        return (self.device_index, self.cuda_stream) == (other.device_index, other.cuda_stream)

    def __hash__(self):
        return hash((self.device_index, self.cuda_stream))

    def __repr__(self):
        return (
            f"<genesis.cuda.Stream device=cuda:{self.device_index} "
            f"cuda_stream={self.cuda_stream:#x}>"
        )


class Event:
    """A CUDA event: a marker in a stream's work, to wait on or to time with.

    The CUDA event is created at the first record(), on the recording stream's device (as in
    PyTorch); before that query() is True and synchronize()/wait() do nothing.
    """

    def __init__(self, enable_timing=False, blocking=False):
        self.cuda_event = 0
        self.device_index = None
        self.enable_timing = enable_timing
        self.blocking = blocking
        _C._cuda.current_device()  # without a GPU, fail here rather than at record()

    def __del__(self):
        if self.cuda_event:
            _C._cuda.destroy_event(self.cuda_event)

    def record(self, stream=None):
        """Marks the point reached by the work queued on ``stream`` (default: current stream)."""
        if stream is None:
            stream = current_stream()
        if not self.cuda_event:
            self.cuda_event = _C._cuda.create_event(
                stream.device_index, self.enable_timing, self.blocking
            )
            self.device_index = stream.device_index
        elif stream.device_index != self.device_index:
            raise ValueError(
                f"[cuda] this event belongs to cuda:{self.device_index} and cannot be recorded "
                f"on a stream of cuda:{stream.device_index}"
            )
        _C._cuda.record_event(self.cuda_event, stream.cuda_stream, stream.device_index)

    def query(self):
        """True when the work before the last record() has finished."""
        return _C._cuda.query_event(self.cuda_event) if self.cuda_event else True

    def synchronize(self):
        """Waits until the work before the last record() has finished."""
        if self.cuda_event:
            _C._cuda.synchronize_event(self.cuda_event)

    def wait(self, stream=None):
        """Makes later work on ``stream`` (default: current stream) wait for this event."""
        if stream is None:
            stream = current_stream()
        if self.cuda_event:
            _C._cuda.stream_wait_event(stream.cuda_stream, self.cuda_event, stream.device_index)

    def elapsed_time(self, end_event):
        """Milliseconds between this event and ``end_event``; both must have completed."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("[cuda] elapsed_time needs events made with enable_timing=True")
        if not (self.cuda_event and end_event.cuda_event):
            raise RuntimeError("[cuda] both events must be recorded before elapsed_time")
        return _C._cuda.elapsed_time(self.cuda_event, end_event.cuda_event)

    def __repr__(self):
        state = f"cuda_event={self.cuda_event:#x}" if self.cuda_event else "not recorded"
        return f"<genesis.cuda.Event {state}>"


def current_stream(device=None):
    """The stream that work on ``device`` (None: the current device) goes to in this thread."""
    idx = _resolve(device)
    handle = _C._cuda.current_stream(idx)
    s = _current_objects().get(idx)
    return s if s is not None and s.cuda_stream == handle else Stream._wrap(handle, idx)


def default_stream(device=None):
    """The default (legacy) stream of ``device``."""
    return Stream._wrap(0, device)


def set_stream(stream):
    """Makes ``stream`` current on its device for this thread (None does nothing, as in PyTorch)."""
    if stream is None:
        return
    _C._cuda.set_current_stream(stream.device_index, stream.cuda_stream)
    _current_objects()[stream.device_index] = stream


@contextmanager
def stream(s=None):
    """Makes ``s`` the current stream inside the block and restores the previous one on exit.

    Unlike torch.cuda.stream(None), which does nothing, ``stream()`` without a stream creates a
    new Stream on the current device (``with genesis.cuda.stream():``); it is yielded,
    so ``with genesis.cuda.stream() as s:`` names it. A stream of another device also makes that
    device current for the block.
    """
    if s is None:
        s = Stream()
    with _device_scope(s.device_index):
        prev = current_stream(s.device_index)
        set_stream(s)
        try:
            yield s
        finally:
            set_stream(prev)
