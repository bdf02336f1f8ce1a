"""The CUDA caching pool's counters and controls, with PyTorch's names and keys.

Every function takes an optional device (None: the current one). Without a GPU the queries
report an empty pool (zeros, [], a table of zeros) and the controls do nothing: code that logs
memory use runs unchanged on a CPU-only machine.
"""

from collections import OrderedDict

from .. import _C
from .devices import _index, _resolve, is_available

OutOfMemoryError = _C.OutOfMemoryError


def memory_stats(device=None):
    """Returns the CUDA caching pool's counters, with ``torch.cuda.memory_stats``'s key names.

    The keys are ``allocated_bytes``, ``reserved_bytes``, ``active_bytes``,
    ``inactive_split_bytes``, ``requested_bytes``, ``allocation``, ``segment``, ``active`` and
    ``inactive_split``, each as ``<name>.all.current`` / ``.peak`` / ``.allocated`` /
    ``.freed``, plus ``num_alloc_retries`` and ``num_ooms``. Without a GPU every counter is 0.
    ``genesis.memory_stats()`` wraps the same counters in an object.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        OrderedDict: counter name -> int, sorted by name.

    Example::

        >>> stats = genesis.cuda.memory_stats()
        >>> stats["allocated_bytes.all.current"] <= stats["reserved_bytes.all.current"]
        True
        >>> "num_ooms" in stats
        True
    """
    return OrderedDict(sorted(_C._cuda.memory_stats(_index(device)).items()))


def memory_allocated(device=None):
    """Returns the bytes of CUDA memory that live tensors hold.

    Counts the pool's blocks, so each tensor's size is rounded up to a multiple of 512 bytes.
    0 without a GPU.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        int: bytes.

    Example::

        >>> base = genesis.cuda.memory_allocated()
        >>> x = genesis.empty(1000, device="cuda")  # doctest: +SKIP
        >>> genesis.cuda.memory_allocated() - base  # 4000 bytes, rounded up  # doctest: +SKIP
        4096
    """
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device=None):
    """Returns the peak of ``memory_allocated()`` since start or ``reset_peak_memory_stats()``.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        int: bytes (0 without a GPU).

    Example::

        >>> genesis.cuda.max_memory_allocated() >= genesis.cuda.memory_allocated()
        True
    """
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device=None):
    """Returns the bytes of CUDA memory the caching pool holds: live tensors plus the cache.

    Freed tensors' blocks stay reserved for reuse until ``empty_cache()``. ``memory_cached`` is
    PyTorch's old name for it.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        int: bytes (0 without a GPU).

    Example::

        >>> genesis.cuda.memory_reserved() >= genesis.cuda.memory_allocated()
        True
    """
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device=None):
    """Returns the peak of ``memory_reserved()`` since start or ``reset_peak_memory_stats()``.

    ``max_memory_cached`` is PyTorch's old name for it.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        int: bytes (0 without a GPU).

    Example::

        >>> genesis.cuda.max_memory_reserved() >= genesis.cuda.memory_reserved()
        True
    """
    return memory_stats(device)["reserved_bytes.all.peak"]


# PyTorch's old names for the reserved counters.
memory_cached = memory_reserved
max_memory_cached = max_memory_reserved


def reset_peak_memory_stats(device=None):
    """Makes every ``.peak`` counter of the pool equal to its ``.current`` value.

    Does nothing without a GPU.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        None

    Example::

        >>> genesis.cuda.reset_peak_memory_stats()
        >>> genesis.cuda.max_memory_allocated() == genesis.cuda.memory_allocated()
        True
    """
    _C._cuda.reset_peak_memory_stats(_index(device))


def reset_accumulated_memory_stats(device=None):
    """Zeroes the pool's running totals: ``.allocated`` / ``.freed``, retries and OOMs.

    The ``.current`` and ``.peak`` counters stay. Does nothing without a GPU.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        None

    Example::

        >>> genesis.cuda.reset_accumulated_memory_stats()
        >>> genesis.cuda.memory_stats()["num_ooms"]
        0
    """
    _C._cuda.reset_accumulated_memory_stats(_index(device))


def memory_snapshot(device=None):
    """Returns the caching pool's segments and their blocks, as ``torch.cuda.memory_snapshot``.

    Each segment is a dict ``{address, total_size, size (= total_size), stream, segment_type,
    allocated_size, blocks}``, each block ``{address, size, requested_size, state}``. A block's
    state is ``'active_allocated'``, ``'active_pending_free'`` (freed, waiting for the streams
    it was used on, see ``Tensor.record_stream``) or ``'inactive'`` (cached, free). The
    segments' sizes add up to ``memory_reserved()``.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        list of dict: the segments ([] without a GPU).

    Example::

        >>> seg = genesis.cuda.memory_snapshot()
        >>> sum(s["total_size"] for s in seg) == genesis.cuda.memory_reserved()
        True
    """
    return _C._cuda.memory_snapshot(_index(device))


def empty_cache(device=None):
    """Gives the caching pool's wholly free segments back to the driver.

    Live tensors are untouched; only cached memory that no tensor uses is released, so
    ``memory_reserved()`` drops and other processes can use it. Does nothing without a GPU.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        None

    Example::

        >>> genesis.cuda.empty_cache()
        >>> genesis.cuda.memory_reserved() >= genesis.cuda.memory_allocated()
        True
    """
    _C._cuda.empty_cache(_index(device))


def set_per_process_memory_fraction(fraction, device=None):
    """Caps what the caching pool may reserve at ``fraction`` of the device's memory.

    An allocation that would go over the cap raises ``OutOfMemoryError``, as if the device were
    that small. ``set_memory_fraction`` is the same function. Does nothing without a GPU (the
    value is still checked).

    Args:
        fraction (float): the share of the device's total memory, in [0, 1]; 1.0 means no cap.
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        None

    Example::

        >>> genesis.cuda.set_per_process_memory_fraction(0.5)  # doctest: +SKIP
        >>> genesis.cuda.get_per_process_memory_fraction()  # doctest: +SKIP
        0.5
        >>> genesis.cuda.set_per_process_memory_fraction(1.0)  # no cap
    """
    fraction = float(fraction)
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"[cuda] memory fraction must be in [0, 1], got {fraction}")
    if is_available():  # without a GPU there is no pool to cap
        _C._cuda.set_memory_fraction(fraction, _index(device))


set_memory_fraction = set_per_process_memory_fraction


def get_per_process_memory_fraction(device=None):
    """Returns the cap set by ``set_per_process_memory_fraction`` on a device.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        float: the fraction; 1.0 when none was set (and without a GPU).

    Example::

        >>> genesis.cuda.set_per_process_memory_fraction(1.0)
        >>> genesis.cuda.get_per_process_memory_fraction()
        1.0
    """
    return _C._cuda.get_memory_fraction(_index(device))


def host_memory_stats():
    """Returns the counters of the pinned host memory pool, keyed like ``memory_stats()``.

    The pool serves ``Tensor.pin_memory()`` and ``empty(..., pin_memory=True)``. Every counter
    is 0 without a GPU.

    Returns:
        OrderedDict: counter name -> int, sorted by name.

    Example::

        >>> stats = genesis.cuda.host_memory_stats()
        >>> stats["allocated_bytes.all.current"] <= stats["reserved_bytes.all.current"]
        True
    """
    return OrderedDict(sorted(_C._cuda.host_memory_stats().items()))


def host_empty_cache():
    """Gives the pinned host memory pool's wholly free segments back to the driver.

    Pinned tensors that are alive are untouched. Does nothing without a GPU.

    Returns:
        None

    Example::

        >>> genesis.cuda.host_empty_cache()
    """
    _C._cuda.host_empty_cache()


# memory_summary(): its rows as (label, counter name), its columns as (title, counter suffix).
_BYTE_ROWS = [
    ("Allocated memory", "allocated_bytes"),
    ("Active memory", "active_bytes"),
    ("Requested memory", "requested_bytes"),
    ("GPU reserved memory", "reserved_bytes"),
    ("Inactive split memory", "inactive_split_bytes"),
]
_COUNT_ROWS = [
    ("Allocations", "allocation"),
    ("Active allocs", "active"),
    ("GPU reserved segments", "segment"),
    ("Inactive split allocs", "inactive_split"),
]
_COLUMNS = [("Cur Usage", "current"), ("Peak Usage", "peak"), ("Tot Alloc", "allocated"),
            ("Tot Freed", "freed")]  # fmt: skip
_WIDTH = 75  # between the outer bars, as in torch.cuda.memory_summary


def _format_bytes(n):
    """1023 -> '1023 B', 4096 -> '4.0 KiB', 3 << 30 -> '3.0 GiB'."""
    if abs(n) < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.1f} {unit}"


def _row(label, cells):
    return "|" + f" {label:<21} " + "".join(f"| {c:>10} " for c in cells) + "|"


def memory_summary(device=None, abbreviated=False):
    """Returns a printable table of the caching pool's counters, like ``torch.cuda.memory_summary``.

    Rows: allocated, active, requested, reserved and inactive-split memory, then allocation,
    active, segment and inactive-split counts; columns: current, peak, total allocated and total
    freed since start (or the last reset). Without a GPU the table says so and holds zeros.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).
        abbreviated (bool): leave out the count rows. Default: False.

    Returns:
        str: the table, lines ending with a newline.

    Example::

        >>> table = genesis.cuda.memory_summary(abbreviated=True)
        >>> "Allocated memory" in table and "Allocations" not in table
        True
    """
    stats = memory_stats(device)
    if is_available():
        where = f"device cuda:{_resolve(device)}"
    else:
        where = "no CUDA device available"
    line, double = "|" + "-" * _WIDTH + "|", "|" + "=" * _WIDTH + "|"
    half = _WIDTH // 2
    out = [
        double,
        "|" + f"genesis CUDA memory summary, {where}".center(_WIDTH) + "|",
        line,
        "|"
        + f"CUDA OOMs: {stats['num_ooms']}".center(half)
        + "|"
        + f"cudaMalloc retries: {stats['num_alloc_retries']}".center(_WIDTH - half - 1)
        + "|",
        double,
        _row("Metric", [title for title, _ in _COLUMNS]),
        line,
    ]
    for label, key in _BYTE_ROWS:
        out.append(_row(label, [_format_bytes(stats[f"{key}.all.{c}"]) for _, c in _COLUMNS]))
    if not abbreviated:
        out.append(line)
        for label, key in _COUNT_ROWS:
            out.append(_row(label, [str(stats[f"{key}.all.{c}"]) for _, c in _COLUMNS]))
    out.append(double)
    return "\n".join(out) + "\n"
