"""genesis.memory_manager: whole-process memory controls over every caching pool.

The pools are each CUDA device's and the pinned host pool's; CPU tensors come from the heap,
which keeps freed blocks of 1 MiB and more (up to 2 GiB of them, or an eighth of the machine's
memory if less) for reuse by tensors of the same size (Note [Host block cache] in
csrc/core/cpu_allocator.cpp). ``empty_cache()`` (also ``genesis.empty_cache()``) returns the
pools' wholly free segments and the heap's kept blocks, ``collect_garbage()`` runs Python's
garbage collector and completes the frees that wait for other streams, and ``compact()``
returns every free segment and reports what it released. None of them moves live memory: a
tensor's address never changes, so a segment that holds a live block stays, free parts and all.
Without a GPU there are no pools: the calls report zeros (``empty_cache()`` still releases the
heap's blocks, ``collect_garbage()`` still runs the collector).

Example::

    >>> report = genesis.memory_manager.compact()
    >>> report.total_bytes >= 0
    True
"""

import gc
from typing import NamedTuple

from . import _C

__all__ = [
    "CompactReport",
    "GarbageReport",
    "Released",
    "collect_garbage",
    "compact",
    "empty_cache",
]


def _pools():
    """The pools that can exist: 'cuda:N' -> N for each device, then 'pinned' -> None."""
    if not _C._cuda.is_available():
        return []
    return [(f"cuda:{i}", i) for i in range(_C._cuda.device_count())] + [("pinned", None)]


def _active_bytes(index):
    stats = _C._cuda.memory_stats(index) if index is not None else _C._cuda.host_memory_stats()
    return stats["active_bytes.all.current"]


def _release(index):
    return _C._cuda.empty_cache(index) if index is not None else _C._cuda.host_empty_cache()


def empty_cache():
    """Gives every caching pool's wholly free segments back: all CUDA devices and pinned memory,
    and the CPU heap's kept blocks.

    ``genesis.cuda.empty_cache(device)`` does one device; this does every device, the pinned
    host pool and the CPU heap. Live tensors are untouched.

    Returns:
        None

    Example::

        >>> genesis.empty_cache()
        >>> genesis.cuda.memory_reserved() >= genesis.cuda.memory_allocated()
        True
    """
    for _, index in _pools():
        _release(index)
    _C._host_heap.empty_cache()


class GarbageReport(NamedTuple):
    """What ``collect_garbage()`` freed.

    ``objects`` is what Python's collector found unreachable (``gc.collect()``'s count);
    ``freed`` maps each pool ('cuda:N', 'pinned') to the bytes that became free in it: tensors
    the collector freed, and blocks whose frees waited for other streams' work and could
    complete. It is the drop in the pool's active bytes, so another thread allocating meanwhile
    can hide part of it. Memory of CPU tensors goes back to the heap and is not counted.

    Example::

        >>> report = genesis.memory_manager.collect_garbage()
        >>> report.objects >= 0 and report.total_bytes >= 0
        True
    """

    objects: int
    freed: dict

    @property
    def total_bytes(self):
        """The bytes freed in all pools together.

        Example::

            >>> genesis.memory_manager.GarbageReport(0, {"cuda:0": 512}).total_bytes
            512
        """
        return sum(self.freed.values())


def collect_garbage():
    """Runs Python's garbage collector, then completes the pools' pending cross-stream frees.

    Tensors kept alive only by reference cycles are freed by the collector. A tensor used on
    another stream (``Tensor.record_stream``) goes back to its pool only once that stream's work
    is done; the pools check that at their next allocation, and this checks now. Nothing waits
    for the device.

    Returns:
        GarbageReport: ``objects`` collected and the bytes ``freed`` per pool.

    Example::

        >>> class Node:
        ...     pass
        >>> n = Node()
        >>> n.self, n.t = n, genesis.empty(1000)  # a cycle holding a tensor
        >>> del n
        >>> genesis.memory_manager.collect_garbage().objects > 0
        True
    """
    pools = _pools()
    before = {name: _active_bytes(index) for name, index in pools}
    objects = gc.collect()
    for _, index in pools:
        if index is None:
            _C._cuda.host_process_pending_frees()
        else:
            _C._cuda.process_pending_frees(index)
    freed = {name: max(0, before[name] - _active_bytes(index)) for name, index in pools}
    return GarbageReport(objects, freed)


class Released(NamedTuple):
    """Bytes and whole segments one pool gave back to the driver in ``compact()``.

    Example::

        >>> genesis.memory_manager.Released(2 << 20, 1)
        Released(bytes=2097152, segments=1)
    """

    bytes: int
    segments: int


class CompactReport(NamedTuple):
    """What ``compact()`` gave back: ``released`` maps each pool ('cuda:N', 'pinned') to a
    ``Released(bytes, segments)``; empty without a GPU.

    Example::

        >>> report = genesis.memory_manager.compact()
        >>> report.total_bytes == sum(r.bytes for r in report.released.values())
        True
    """

    released: dict

    @property
    def total_bytes(self):
        """The bytes given back by all pools together.

        Example::

            >>> genesis.memory_manager.compact().total_bytes >= 0
            True
        """
        return sum(r.bytes for r in self.released.values())

    @property
    def total_segments(self):
        """The segments given back by all pools together.

        Example::

            >>> genesis.memory_manager.compact().total_segments >= 0
            True
        """
        return sum(r.segments for r in self.released.values())


def compact():
    """Returns every free segment of every pool to the driver and reports what that released.

    Each CUDA device's pool and the pinned host pool first complete the frees that waited for
    other streams, then give back every segment with no live block. Live blocks never move:
    genesis cannot relocate a tensor, so a segment that still holds one stays, with its free
    parts, and the report says only what could go. Follow ``collect_garbage()`` with this to
    release tensors that only reference cycles kept.

    Returns:
        CompactReport: ``released`` per pool, ``total_bytes`` and ``total_segments``.

    Example::

        >>> report = genesis.memory_manager.compact()
        >>> report.total_bytes >= 0
        True
        >>> genesis.cuda.memory_reserved() >= genesis.cuda.memory_allocated()
        True
    """
    released = {}
    for name, index in _pools():
        nbytes, segments = _release(index)
        released[name] = Released(nbytes, segments)
    return CompactReport(released)
