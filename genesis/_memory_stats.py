"""genesis.memory_stats(): a summary object over the CUDA pool's counters (allocated, reserved,
active and peak bytes, allocation and free counts, fragmentation)."""

from .cuda.memory import memory_stats as _cuda_memory_stats


class MemoryStats:
    """A snapshot of one device's pool counters, taken when memory_stats() was called.

    ``raw`` keeps every counter of genesis.cuda.memory_stats() for anything not named here.
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
        """Share of reserved memory not held by tensors: 1 - allocated / reserved (0 if none)."""
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
    """The CUDA pool's usage on ``device`` (None, 'cuda', 'cuda:N' or an index) as MemoryStats.

    Without a GPU every field is 0.
    """
    return MemoryStats(_cuda_memory_stats(device), device)
