"""CUDA devices, streams, events and the memory pool, with torch.cuda's names.

Devices: ``is_available``, ``is_compiled``, ``device_count``, ``current_device``,
``set_device``, ``device`` (a context manager), ``get_device_name``, ``get_device_capability``,
``get_device_properties``, ``mem_get_info``, ``synchronize``, ``can_device_access_peer``.
Streams and events: ``Stream``, ``Event``, ``stream`` (a context manager),
``current_stream``, ``default_stream``, ``set_stream``. Finding waits for the GPU:
``set_sync_debug_mode``, ``get_sync_debug_mode``; when index errors are raised:
``set_index_check``, ``get_index_check``. Memory: ``memory_allocated``,
``memory_reserved``, their maxima,
``memory_stats``, ``memory_summary`` (a ``MemorySummary``: text, an HTML table in Jupyter),
``memory_snapshot``, ``empty_cache``, the reset and fraction controls, the cache cap
``set_cache_size`` / ``get_cache_size``, the pinned host pool's ``host_memory_stats`` and
``host_empty_cache``, and ``OutOfMemoryError``. CUDA graphs: ``CUDAGraph``, ``graph`` (a
context manager), ``graph_pool_handle``, ``make_graphed_callables``,
``is_current_stream_capturing``.

Without a GPU, ``is_available()`` is False, ``device_count()`` is 0, the memory queries report an
empty pool and the memory controls do nothing, so code that logs memory use runs unchanged on a
CPU; everything that needs a device raises RuntimeError("[cuda] no CUDA device ...").

Example::

    >>> device = "cuda" if genesis.cuda.is_available() else "cpu"
    >>> x = genesis.ones(1000, device=device)
    >>> genesis.cuda.memory_allocated() >= (4000 if device == "cuda" else 0)
    True
"""

from .._C import manual_seed as _manual_seed
from .devices import (
    DeviceProperties,
    can_device_access_peer,
    current_device,
    device,
    device_count,
    get_device_capability,
    get_device_name,
    get_device_properties,
    is_available,
    is_compiled,
    mem_get_info,
    set_device,
    synchronize,
)
from .graphed_callables import make_graphed_callables
from .graphs import (
    CUDAGraph,
    graph,
    graph_pool_handle,
    is_current_stream_capturing,
)
from .index_check import get_index_check, set_index_check
from .memory import (
    MemorySummary,
    OutOfMemoryError,
    empty_cache,
    get_cache_size,
    get_per_process_memory_fraction,
    host_empty_cache,
    host_memory_stats,
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    memory_allocated,
    memory_cached,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_summary,
    reset_accumulated_memory_stats,
    reset_peak_memory_stats,
    set_cache_size,
    set_memory_fraction,
    set_per_process_memory_fraction,
)
from .streams import Event, Stream, current_stream, default_stream, set_stream, stream
from .sync_debug import get_sync_debug_mode, set_sync_debug_mode


def manual_seed(seed):
    """Seeds the random number generator that every device shares: ``genesis.manual_seed``.

    genesis has one generator for the CPU and all GPUs, so this and ``manual_seed_all`` are
    the same as ``genesis.manual_seed`` (works without a GPU too).

    Args:
        seed (int): any integer in [-2**63, 2**64).

    Returns:
        None

    Example::

        >>> genesis.cuda.manual_seed(3)
        >>> genesis.initial_seed()
        3
    """
    _manual_seed(seed)


manual_seed_all = manual_seed

__all__ = [
    "CUDAGraph",
    "DeviceProperties",
    "Event",
    "MemorySummary",
    "OutOfMemoryError",
    "Stream",
    "can_device_access_peer",
    "get_sync_debug_mode",
    "set_sync_debug_mode",
    "get_index_check",
    "set_index_check",
    "current_device",
    "current_stream",
    "default_stream",
    "device",
    "device_count",
    "empty_cache",
    "get_cache_size",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "get_per_process_memory_fraction",
    "graph",
    "graph_pool_handle",
    "host_empty_cache",
    "host_memory_stats",
    "is_available",
    "is_compiled",
    "is_current_stream_capturing",
    "make_graphed_callables",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_cached",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_cached",
    "memory_reserved",
    "memory_snapshot",
    "memory_stats",
    "memory_summary",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "set_cache_size",
    "set_device",
    "set_memory_fraction",
    "set_per_process_memory_fraction",
    "set_stream",
    "stream",
    "synchronize",
]
