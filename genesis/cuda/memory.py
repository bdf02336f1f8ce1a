"""The CUDA caching pool's counters and controls, with PyTorch's names and keys.

Every function takes an optional device (None: the current one). Without a GPU the queries
report an empty pool (zeros, [], a table of zeros) and the controls do nothing: code that logs
memory use runs unchanged on a CPU-only machine.
"""

import html
import math
import re
from collections import OrderedDict
from fractions import Fraction

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
    segment_pool_id, allocated_size, blocks}``, each block ``{address, size, requested_size,
    state}``; ``segment_pool_id`` is ``(0, 0)`` for the ordinary pool and a CUDA graph's pool
    handle for its private pool (see ``genesis.cuda.graph``). A block's
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
    _C._cuda.empty_cache(_index(device))  # (bytes, segments) released: for memory_manager


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


# Note [Cache size strings]: decimal units are powers of 1000, binary (IEC) ones of 1024, as the
# SI and IEC define them; "2GB" is 2 * 10**9 bytes and "2GiB" 2 * 2**30. Units are
# case-insensitive and may follow the number after spaces; a bare number counts bytes.
_UNITS = {
    "": 1,
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
    "tib": 1 << 40,
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)\s*$", re.IGNORECASE)


def _parse_size(size, op):
    """Bytes of a size given as an int, a float or a string such as "512MB" or "1.5 GiB"."""
    if isinstance(size, bool) or not isinstance(size, (int, float, str)):
        raise TypeError(
            f"[{op}] size must be an int of bytes, a string such as '512MB' or '2GiB', or None;"
            f" got {type(size).__name__}"
        )
    if isinstance(size, float):
        if not math.isfinite(size) or size < 0:
            raise ValueError(
                f"[{op}] size must be a finite, non-negative number of bytes, got {size}"
            )
        size = int(size)
    if isinstance(size, str):
        m = _SIZE.match(size)
        unit = m.group(2).lower() if m else None
        if m is None or unit not in _UNITS:
            raise ValueError(
                f"[{op}] cannot read {size!r} as a size: expected a number and a unit among"
                " B, KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers of 1024),"
                " such as '512MB' or '2GiB'"
            )
        size = int(Fraction(m.group(1)) * _UNITS[unit])
    if size < 0:
        raise ValueError(f"[{op}] size must not be negative, got {size}")
    return size


def set_cache_size(size, device=None):
    """Caps the bytes the caching pool keeps cached; frees beyond the cap go back to the driver.

    The pool keeps a freed tensor's memory cached for the next allocation. With a cap, when a
    free takes the cached (reserved but unused) bytes over it, the pool returns wholly free
    segments to the driver, largest first, until the cache is under the cap again. A segment
    that still holds a live tensor is never returned (live memory never moves), so its free part
    can keep the cache above the cap until that tensor goes. The cap applies at once, to what
    is cached now. It does not limit what live tensors use (see
    ``set_per_process_memory_fraction``). Giving memory back to the driver waits for the device
    (``cudaFree`` does), so a small cap makes the frees that cross it slow. Without a GPU the
    size is checked and nothing else happens.

    Args:
        size (int, float, str or None): bytes, or a string: a number and a unit among B, KB,
            MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers of 1024), such as
            ``"512MB"``, ``"2GiB"`` or ``"1.5 GB"``. 0 caches nothing; None removes the cap.
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        None

    Example::

        >>> genesis.cuda.set_cache_size("2GiB")
        >>> genesis.cuda.get_cache_size() == (2 << 30 if genesis.cuda.is_available() else None)
        True
        >>> genesis.cuda.set_cache_size(None)  # no cap: keep everything cached
    """
    op = "set_cache_size"
    nbytes = -1 if size is None else _parse_size(size, op)
    index = _index(device)
    if is_available():
        _C._cuda.set_cache_size(nbytes, index)


def get_cache_size(device=None):
    """Returns the cap that ``set_cache_size`` set on a device's caching pool.

    Args:
        device (int, str or genesis.device, optional): the CUDA device. Default: None (the
            current device).

    Returns:
        int or None: bytes; None when there is no cap (the default, and always without a GPU).

    Example::

        >>> genesis.cuda.set_cache_size(None)
        >>> genesis.cuda.get_cache_size() is None
        True
    """
    nbytes = _C._cuda.get_cache_size(_index(device))
    return None if nbytes < 0 else nbytes


class MemorySummary(str):
    """The text of ``memory_summary()``, which Jupyter shows as an HTML table.

    It is the str itself (printing, comparing and slicing behave as for the text);
    ``_repr_html_`` gives the same rows as an HTML table.

    Example::

        >>> summary = genesis.cuda.memory_summary()
        >>> isinstance(summary, str), "<table" in summary._repr_html_()
        (True, True)
    """

    def __new__(cls, text, html_text=""):
        obj = super().__new__(cls, text)
        obj._html = html_text
        return obj

    def _repr_html_(self):
        return self._html


def _html_table(title, subtitle, header, rows):
    def cells(tag, values):
        return "<tr>" + "".join(f"<{tag}>{html.escape(v)}</{tag}>" for v in values) + "</tr>"

    out = [f"<p><b>{html.escape(title)}</b><br>{html.escape(subtitle)}</p>", "<table>"]
    out.append(cells("th", header))
    out.extend(cells("td", row) for row in rows)
    out.append("</table>")
    return "\n".join(out)


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
        MemorySummary: the table as a str (lines ending with a newline), shown as an HTML table
        in Jupyter.

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
    rows = [
        [label, *[_format_bytes(stats[f"{key}.all.{c}"]) for _, c in _COLUMNS]]
        for label, key in _BYTE_ROWS
    ]
    out.extend(_row(r[0], r[1:]) for r in rows)
    if not abbreviated:
        counts = [
            [label, *[str(stats[f"{key}.all.{c}"]) for _, c in _COLUMNS]]
            for label, key in _COUNT_ROWS
        ]
        out.append(line)
        out.extend(_row(r[0], r[1:]) for r in counts)
        rows += counts
    out.append(double)
    subtitle = f"CUDA OOMs: {stats['num_ooms']}, cudaMalloc retries: {stats['num_alloc_retries']}"
    table = _html_table(
        f"genesis CUDA memory summary, {where}",
        subtitle,
        ["Metric", *[title for title, _ in _COLUMNS]],
        rows,
    )
    return MemorySummary("\n".join(out) + "\n", table)
