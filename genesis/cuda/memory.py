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
    """The pool's counters as an OrderedDict sorted by key, with PyTorch's flat key names.

    ``allocated_bytes``, ``reserved_bytes``, ``active_bytes``, ``inactive_split_bytes``,
    ``requested_bytes``, ``allocation``, ``segment``, ``active`` and ``inactive_split``, each as
    ``<name>.all.current`` / ``.peak`` / ``.allocated`` / ``.freed``; plus ``num_alloc_retries``
    and ``num_ooms``.
    """
    return OrderedDict(sorted(_C._cuda.memory_stats(_index(device)).items()))


def memory_allocated(device=None):
    """Bytes held by live tensors (block sizes, so requests rounded up to 512)."""
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device=None):
    """Peak of memory_allocated() since start or reset_peak_memory_stats()."""
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device=None):
    """Bytes the pool holds from the driver: live tensors plus the cache."""
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device=None):
    """Peak of memory_reserved() since start or reset_peak_memory_stats()."""
    return memory_stats(device)["reserved_bytes.all.peak"]


# PyTorch's old names for the reserved counters.
memory_cached = memory_reserved
max_memory_cached = max_memory_reserved


def reset_peak_memory_stats(device=None):
    """Makes every ``.peak`` counter equal to its ``.current`` value."""
    _C._cuda.reset_peak_memory_stats(_index(device))


def reset_accumulated_memory_stats(device=None):
    """Zeroes the ``.allocated`` / ``.freed`` totals, num_alloc_retries and num_ooms."""
    _C._cuda.reset_accumulated_memory_stats(_index(device))


def memory_snapshot(device=None):
    """The pool's segments: a list of dicts {address, total_size, size (= total_size), stream,
    segment_type, allocated_size, blocks: [{address, size, requested_size, state}]}.

    A block's state is 'active_allocated', 'active_pending_free' (freed, waiting for streams
    it was used on, see Tensor.record_stream) or 'inactive' (cached, free).
    """
    return _C._cuda.memory_snapshot(_index(device))


def empty_cache(device=None):
    """Returns the pool's wholly free segments to the driver (live tensors are untouched)."""
    _C._cuda.empty_cache(_index(device))


def set_per_process_memory_fraction(fraction, device=None):
    """Caps what the pool may reserve at ``fraction`` of the device's memory (1.0: no cap).

    Going over the cap raises OutOfMemoryError, as if the device were that small.
    """
    fraction = float(fraction)
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"[cuda] memory fraction must be in [0, 1], got {fraction}")
    if is_available():  # without a GPU there is no pool to cap
        _C._cuda.set_memory_fraction(fraction, _index(device))


set_memory_fraction = set_per_process_memory_fraction


def get_per_process_memory_fraction(device=None):
    """The cap set by set_per_process_memory_fraction (1.0 when none was set)."""
    return _C._cuda.get_memory_fraction(_index(device))


def host_memory_stats():
    """Counters of the pinned host memory pool (pin_memory()), keyed like memory_stats()."""
    return OrderedDict(sorted(_C._cuda.host_memory_stats().items()))


def host_empty_cache():
    """Returns the pinned pool's wholly free segments to the driver."""
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
    """A table of the pool's counters, like torch.cuda.memory_summary().

    Rows: allocated, active, requested, reserved and inactive-split memory, then allocation,
    active, segment and inactive-split counts; columns: current, peak, total allocated and total
    freed since start (or the last reset). ``abbreviated=True`` leaves out the count rows.
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
