"""genesis.memory_stats(): a summary object over the CUDA pool's counters (allocated, reserved,
active and peak bytes, allocation and free counts, fragmentation)."""

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
