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
    """A CUDA stream: a queue of GPU work that runs in order, concurrently with other streams.

    Work goes to the current stream (see ``genesis.cuda.stream``). A Stream reuses the CUDA
    stream of a collected Stream of the same device and priority when there is one, else
    creates one; CUDA streams are never destroyed (genesis differs from PyTorch, which takes
    them round-robin from a fixed pool). Raises RuntimeError without a GPU.

    Args:
        device (int, str or genesis.device, optional): the device. Default: None (the current
            device).
        priority (int): a lower number is more urgent (CUDA's convention). Default: 0.

    Attributes: ``cuda_stream`` (the integer handle), ``device_index``, ``priority``.

    Example::

        >>> s = genesis.cuda.Stream()  # doctest: +SKIP
        >>> with genesis.cuda.stream(s):  # doctest: +SKIP
        ...     y = genesis.ones(1000, device="cuda") * 2
        >>> s.synchronize()  # doctest: +SKIP
        >>> s.query()  # doctest: +SKIP
        True
    """

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
        """The stream's device, a ``genesis.device`` with an index.

        Example::

            >>> genesis.cuda.Stream(0).device  # doctest: +SKIP
            device(type='cuda', index=0)
        """
        return _C.device("cuda", self.device_index)

    def synchronize(self):
        """Waits until all work queued on this stream so far has finished.

        Then raises IndexError for an out-of-range index recorded on the stream's device by an
        earlier index op (``set_index_check``).

        Returns:
            None

        Example::

            >>> s = genesis.cuda.current_stream()  # doctest: +SKIP
            >>> s.synchronize()  # doctest: +SKIP
        """
        _C._cuda.synchronize_stream(self.device_index, self.cuda_stream)

    def query(self):
        """Returns True when all work queued on this stream has finished (without waiting).

        Returns:
            bool: whether the stream is idle.

        Example::

            >>> s = genesis.cuda.Stream()  # doctest: +SKIP
            >>> s.query()  # nothing queued yet  # doctest: +SKIP
            True
        """
        return _C._cuda.query_stream(self.device_index, self.cuda_stream)

    def wait_event(self, event):
        """Makes work queued on this stream from now on wait for ``event``.

        The host does not wait. An event never recorded is ignored.

        Args:
            event (Event): the event to wait for.

        Returns:
            None

        Example::

            >>> e = genesis.cuda.Event()  # doctest: +SKIP
            >>> e.record()  # on the current stream  # doctest: +SKIP
            >>> genesis.cuda.Stream().wait_event(e)  # doctest: +SKIP
        """
        event.wait(self)

    def wait_stream(self, stream):
        """Makes work queued on this stream from now on wait for the work queued on ``stream``.

        An event is recorded on ``stream`` and waited for; the host does not wait.

        Args:
            stream (Stream): the stream whose work so far must finish first.

        Returns:
            None

        Example::

            >>> with genesis.cuda.stream() as s:  # doctest: +SKIP
            ...     y = genesis.full((1000,), 7.0, device="cuda")
            >>> genesis.cuda.current_stream().wait_stream(s)  # doctest: +SKIP
            >>> y.tolist()[0]  # doctest: +SKIP
            7.0
        """
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Records ``event`` on this stream and returns it.

        Args:
            event (Event, optional): the event. Default: None (a new Event).

        Returns:
            Event: the recorded event.

        Example::

            >>> e = genesis.cuda.current_stream().record_event()  # doctest: +SKIP
            >>> e.synchronize()  # doctest: +SKIP
        """
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

    The CUDA event is created at the first ``record()``, on the recording stream's device (as
    in PyTorch); before that ``query()`` is True and ``synchronize()`` / ``wait()`` do nothing.
    Making an Event raises RuntimeError without a GPU.

    Args:
        enable_timing (bool): allow ``elapsed_time``. Default: False.
        blocking (bool): ``synchronize()`` blocks the thread instead of spinning.
            Default: False.

    Example::

        >>> start = genesis.cuda.Event(enable_timing=True)  # doctest: +SKIP
        >>> end = genesis.cuda.Event(enable_timing=True)  # doctest: +SKIP
        >>> start.record()  # doctest: +SKIP
        >>> y = genesis.ones(1 << 20, device="cuda") * 2  # doctest: +SKIP
        >>> end.record()  # doctest: +SKIP
        >>> end.synchronize()  # doctest: +SKIP
        >>> start.elapsed_time(end) >= 0  # doctest: +SKIP
        True
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
        """Marks the point that the work queued on ``stream`` has reached.

        The event completes when that work has run. Recording again moves the mark; an event
        stays on the device of its first recording (ValueError for another device).

        Args:
            stream (Stream, optional): the stream. Default: None (the current stream).

        Returns:
            None

        Example::

            >>> e = genesis.cuda.Event()  # doctest: +SKIP
            >>> e.record()  # doctest: +SKIP
            >>> e.synchronize()  # doctest: +SKIP
        """
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
        """Returns True when the work before the last ``record()`` has finished.

        Returns:
            bool: whether the event has completed (True when never recorded).

        Example::

            >>> genesis.cuda.Event().query()  # doctest: +SKIP
            True
        """
        return _C._cuda.query_event(self.cuda_event) if self.cuda_event else True

    def synchronize(self):
        """Waits until the work before the last ``record()`` has finished.

        Then raises IndexError for an out-of-range index recorded by an earlier index op on any
        device (``set_index_check``).

        Returns:
            None

        Example::

            >>> e = genesis.cuda.current_stream().record_event()  # doctest: +SKIP
            >>> e.synchronize()  # doctest: +SKIP
        """
        if self.cuda_event:
            _C._cuda.synchronize_event(self.cuda_event)

    def wait(self, stream=None):
        """Makes work queued on ``stream`` from now on wait for this event.

        The host does not wait; an event never recorded is ignored.

        Args:
            stream (Stream, optional): the stream that waits. Default: None (the current
                stream).

        Returns:
            None

        Example::

            >>> e = genesis.cuda.Stream().record_event()  # doctest: +SKIP
            >>> e.wait()  # the current stream waits for it  # doctest: +SKIP
        """
        if stream is None:
            stream = current_stream()
        if self.cuda_event:
            _C._cuda.stream_wait_event(stream.cuda_stream, self.cuda_event, stream.device_index)

    def elapsed_time(self, end_event):
        """Returns the milliseconds between this event and ``end_event``.

        Both events must be made with ``enable_timing=True``, recorded, and completed
        (RuntimeError otherwise).

        Args:
            end_event (Event): the later event.

        Returns:
            float: the time in milliseconds.

        Example::

            >>> a = genesis.cuda.Event(enable_timing=True)  # doctest: +SKIP
            >>> b = genesis.cuda.Event(enable_timing=True)  # doctest: +SKIP
            >>> a.record(); b.record(); b.synchronize()  # doctest: +SKIP
            >>> a.elapsed_time(b) >= 0  # doctest: +SKIP
            True
        """
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("[cuda] elapsed_time needs events made with enable_timing=True")
        if not (self.cuda_event and end_event.cuda_event):
            raise RuntimeError("[cuda] both events must be recorded before elapsed_time")
        return _C._cuda.elapsed_time(self.cuda_event, end_event.cuda_event)

    def __repr__(self):
        state = f"cuda_event={self.cuda_event:#x}" if self.cuda_event else "not recorded"
        return f"<genesis.cuda.Event {state}>"


def current_stream(device=None):
    """Returns the stream that work on a device goes to in this thread.

    The default stream until ``set_stream`` or ``with genesis.cuda.stream(s):`` changes it.
    Raises RuntimeError without a GPU.

    Args:
        device (int, str or genesis.device, optional): the device. Default: None (the current
            device).

    Returns:
        Stream: the current stream.

    Example::

        >>> genesis.cuda.current_stream() == genesis.cuda.default_stream()  # doctest: +SKIP
        True
    """
    idx = _resolve(device)
    handle = _C._cuda.current_stream(idx)
    s = _current_objects().get(idx)
    return s if s is not None and s.cuda_stream == handle else Stream._wrap(handle, idx)


def default_stream(device=None):
    """Returns the default (legacy) stream of a device, whose ``cuda_stream`` handle is 0.

    Args:
        device (int, str or genesis.device, optional): the device. Default: None (the current
            device).

    Returns:
        Stream: the default stream.

    Example::

        >>> genesis.cuda.default_stream().cuda_stream  # doctest: +SKIP
        0
    """
    return Stream._wrap(0, device)


def set_stream(stream):
    """Makes ``stream`` the current stream of its device for this thread.

    Prefer ``with genesis.cuda.stream(s):``, which restores the previous stream.

    Args:
        stream (Stream): the stream; None does nothing, as in PyTorch.

    Returns:
        None

    Example::

        >>> s = genesis.cuda.Stream()  # doctest: +SKIP
        >>> genesis.cuda.set_stream(s)  # doctest: +SKIP
        >>> genesis.cuda.current_stream() == s  # doctest: +SKIP
        True
        >>> genesis.cuda.set_stream(genesis.cuda.default_stream())  # doctest: +SKIP
    """
    if stream is None:
        return
    _C._cuda.set_current_stream(stream.device_index, stream.cuda_stream)
    _current_objects()[stream.device_index] = stream


@contextmanager
def stream(s=None):
    """Context manager that makes ``s`` the current stream inside a ``with`` block.

    The previous stream is current again on exit. Unlike ``torch.cuda.stream(None)``, which
    does nothing, ``stream()`` without a stream creates a new Stream on the current device; it
    is yielded, so ``with genesis.cuda.stream() as s:`` names it. A stream of another device
    also makes that device current for the block. Raises RuntimeError without a GPU.

    Args:
        s (Stream, optional): the stream. Default: None (a new Stream).

    Yields:
        Stream: the stream made current.

    Example::

        >>> with genesis.cuda.stream() as s:  # doctest: +SKIP
        ...     y = genesis.ones(1000, device="cuda")  # queued on s
        >>> genesis.cuda.current_stream().wait_stream(s)  # doctest: +SKIP
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
