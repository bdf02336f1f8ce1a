"""genesis.memory_stats() and genesis.detailed_memory_stats(): summary objects over the CUDA
pool's counters (allocated, reserved, active and peak bytes, allocation and free counts,
fragmentation, cache hit rate) and its large live blocks."""

from typing import NamedTuple, Optional

from . import _C
from .cuda.devices import _index
from .cuda.memory import memory_stats as _cuda_memory_stats


class MemoryStats:
    """A snapshot of one device's CUDA pool counters, as ``genesis.memory_stats()`` returns it.

    The counters are read when ``memory_stats()`` is called and do not change afterwards.
    Attributes: ``allocated_bytes`` (held by live tensors), ``reserved_bytes`` (held by the pool
    from the driver; also ``cached_bytes``, PyTorch's old name), ``active_bytes``,
    ``peak_allocated``, ``num_allocs`` and ``num_frees`` (since start or the last reset), the
    ``device`` asked for, and ``raw``: every counter of ``genesis.cuda.memory_stats()``. Without
    a GPU every counter is 0.

    Example::

        >>> stats = genesis.memory_stats()
        >>> stats.allocated_bytes <= stats.reserved_bytes
        True
        >>> stats.raw["allocated_bytes.all.current"] == stats.allocated_bytes
        True
    """

    def __init__(self, raw, device=None):
        self.raw = raw
        self.device = device
        self.allocated_bytes = raw["allocated_bytes.all.current"]
        self.reserved_bytes = raw["reserved_bytes.all.current"]
        self.cached_bytes = self.reserved_bytes  # PyTorch's old name for reserved
        self.active_bytes = raw["active_bytes.all.current"]
        self.peak_allocated = raw["allocated_bytes.all.peak"]
        self.num_allocs = raw["allocation.all.allocated"]
        self.num_frees = raw["allocation.all.freed"]

    def fragmentation_ratio(self):
        """Returns the share of reserved memory that no tensor holds: 1 - allocated / reserved.

        Cached free blocks and the unused ends of split blocks count as fragmentation.

        Returns:
            float: a value in [0, 1]; 0.0 when nothing is reserved.

        Example::

            >>> 0.0 <= genesis.memory_stats().fragmentation_ratio() <= 1.0
            True
        """
        if self.reserved_bytes == 0:
            return 0.0
        return 1.0 - self.allocated_bytes / self.reserved_bytes

    def __repr__(self):
        return (
            f"MemoryStats(allocated_bytes={self.allocated_bytes}, "
            f"reserved_bytes={self.reserved_bytes}, active_bytes={self.active_bytes}, "
            f"peak_allocated={self.peak_allocated}, num_allocs={self.num_allocs}, "
            f"num_frees={self.num_frees}, fragmentation_ratio={self.fragmentation_ratio():.3f})"
        )


def memory_stats(device=None):
    """Returns a summary of the CUDA caching pool's usage on ``device``.

    A convenience over ``genesis.cuda.memory_stats()``, whose flat dict of PyTorch-named
    counters it wraps. Without a GPU every field is 0, so code that logs memory use runs
    unchanged on a CPU-only machine.

    Args:
        device (int, str or genesis.device, optional): a CUDA device: an index, ``"cuda"``,
            ``"cuda:N"`` or a genesis.device. Default: None (the current device).

    Returns:
        MemoryStats: the counters, with ``fragmentation_ratio()``.

    Example::

        >>> stats = genesis.memory_stats()
        >>> isinstance(stats.allocated_bytes, int), stats.peak_allocated >= stats.allocated_bytes
        (True, True)
        >>> x = genesis.ones(1 << 20, device="cuda")  # doctest: +SKIP
        >>> genesis.memory_stats().allocated_bytes >= 4 << 20  # doctest: +SKIP
        True
    """
    return MemoryStats(_cuda_memory_stats(device), device)


class LargeAllocation(NamedTuple):
    """A live allocation that ``DetailedMemoryStats.get_large_allocations`` lists.

    ``size`` is the bytes set aside (the pool's block), ``requested`` the bytes asked for,
    ``device`` 'cuda:N' or 'cpu', ``stream`` the CUDA stream handle (0 on the CPU). ``location``
    ('file:line' of the innermost frame outside genesis), ``stack``, ``shape`` and ``dtype`` are
    known when memory debugging was on when it was allocated, or a recording with stacks is
    running; else None (an empty stack).

    Example::

        >>> genesis.enable_memory_debugging(True)
        >>> big = genesis.zeros(3, 1 << 18)  # 3 MiB
        >>> (a,) = genesis.detailed_memory_stats("cpu").get_large_allocations(3 << 20)
        >>> a.shape, a.dtype, a.location is not None
        ((3, 262144), genesis.float32, True)
        >>> genesis.enable_memory_debugging(False)
    """

    size: int
    requested: int
    address: int
    device: str
    stream: int
    location: Optional[str] = None
    stack: tuple = ()
    shape: Optional[tuple] = None
    dtype: Optional[object] = None


class _Ratio(float):
    # Note [fragmentation_ratio, a value and a method]: the design document reads
    # detailed_memory_stats().fragmentation_ratio as a value and memory_stats() has it as a
    # method; a float that returns itself when called serves both.
    def __call__(self):
        return float(self)


class DetailedMemoryStats(MemoryStats):
    """``genesis.memory_stats()``'s counters plus totals, rates and the large live allocations.

    ``genesis.detailed_memory_stats()`` makes one. Besides every ``MemoryStats`` attribute it
    has ``total_allocated`` (bytes allocated since start or the last
    ``reset_accumulated_memory_stats``, freed or not), ``peak_allocated``,
    ``fragmentation_ratio`` (1 - allocated / reserved, a float that can also be called like
    ``MemoryStats.fragmentation_ratio()``), ``cache_hit_rate`` (the share of allocations
    served from cached blocks rather than new segments from the driver; 0.0 before any) and
    ``get_large_allocations(min_size)``. For the CPU (``device="cpu"``, or None without a GPU)
    every counter is 0: CPU tensors come from the heap, which is not a pool (it only keeps
    freed large blocks for reuse, Note [Host block cache]).

    Args:
        raw (dict): the counters, as ``genesis.cuda.memory_stats()`` returns them.
        device (str): 'cuda:N' or 'cpu'. Default: ``"cpu"``.

    Example::

        >>> stats = genesis.detailed_memory_stats()
        >>> 0.0 <= stats.cache_hit_rate <= 1.0 and 0.0 <= stats.fragmentation_ratio <= 1.0
        True
        >>> stats.total_allocated >= stats.allocated_bytes
        True
    """

    def __init__(self, raw, device="cpu"):
        super().__init__(raw, device)
        self.total_allocated = raw["allocated_bytes.all.allocated"]
        allocs = raw["allocation.all.allocated"]
        self.cache_hit_rate = raw.get("num_cache_hits", 0) / allocs if allocs > 0 else 0.0
        self.fragmentation_ratio = _Ratio(MemoryStats.fragmentation_ratio(self))

    def get_large_allocations(self, min_size=1 << 20):
        """Returns the live allocations of at least ``min_size`` bytes, largest first.

        On a CUDA device these are the pool's allocated blocks now (read when called). Where
        each was allocated (``location``, ``stack``, ``shape``, ``dtype``) is known when memory
        debugging (``genesis.enable_memory_debugging``) was on at the time, or from the running
        recording (``genesis.memory_profiler.record``) when it saw the allocation; else None.
        The CPU heap keeps no list of its blocks, so for the CPU only what debugging or the
        running recording tracked is listed (nothing while both are off).

        Args:
            min_size (int): the smallest size in bytes (the pool's block size) to list.
                Default: ``1 << 20``.

        Returns:
            list of LargeAllocation: largest first.

        Example::

            >>> genesis.enable_memory_debugging(True)
            >>> big = genesis.empty(1 << 20)  # 4 MiB
            >>> found = genesis.detailed_memory_stats("cpu").get_large_allocations(4 << 20)
            >>> [(a.size, a.shape) for a in found]
            [(4194304, (1048576,))]
            >>> genesis.enable_memory_debugging(False)
        """
        if isinstance(min_size, bool) or not isinstance(min_size, int) or min_size < 0:
            raise ValueError(
                f"[get_large_allocations] min_size must be a non-negative int, got {min_size!r}"
            )
        from .memory_profiler._tracking import large_allocations

        return large_allocations(self.device, min_size, LargeAllocation)

    def __repr__(self):
        return (
            f"DetailedMemoryStats(device={self.device!r}, allocated_bytes={self.allocated_bytes},"
            f" reserved_bytes={self.reserved_bytes}, peak_allocated={self.peak_allocated}, "
            f"total_allocated={self.total_allocated}, "
            f"fragmentation_ratio={float(self.fragmentation_ratio):.3f}, "
            f"cache_hit_rate={self.cache_hit_rate:.3f})"
        )


def _is_cpu(device):
    if isinstance(device, str):
        return device == "cpu"
    return isinstance(device, _C.device) and device.type == "cpu"


def detailed_memory_stats(device=None):
    """Returns ``memory_stats()``'s summary plus totals, cache hit rate and large allocations.

    Args:
        device (int, str or genesis.device, optional): a CUDA device (an index, ``"cuda"``,
            ``"cuda:N"``, a genesis.device) or ``"cpu"``. Default: None (the current CUDA
            device, or the CPU without a GPU).

    Returns:
        DetailedMemoryStats: ``total_allocated``, ``peak_allocated``, ``fragmentation_ratio``,
        ``cache_hit_rate``, ``get_large_allocations(min_size)`` and every ``MemoryStats``
        attribute. Without a GPU (and for the CPU) the counters are 0.

    Example::

        >>> stats = genesis.detailed_memory_stats()
        >>> hits, frag = stats.cache_hit_rate, stats.fragmentation_ratio
        >>> print(f"hit rate {hits:.0%}, fragmentation {frag:.0%}")  # doctest: +ELLIPSIS
        hit rate ...%, fragmentation ...%
    """
    available = _C._cuda.is_available()
    if _is_cpu(device) or (device is None and not available):
        zeros = {k: 0 for k in _cuda_memory_stats(None)}
        return DetailedMemoryStats(zeros, "cpu")
    index = _index(device)
    if available and index < 0:
        index = _C._cuda.current_device()
    name = f"cuda:{max(index, 0)}"
    return DetailedMemoryStats(_cuda_memory_stats(index), name)
