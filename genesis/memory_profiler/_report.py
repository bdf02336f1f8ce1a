"""Report: what a recording says in tables (peak, largest allocations, call sites, churn)."""

import html

from ._events import location

_TOP = 10


def _bytes(n):
    n = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{int(n)} bytes" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def _tensor(row):
    """'float32[3, 4]' where the shape and dtype are known, else '-'."""
    if row["shape"] is None or row["dtype"] is None:
        return "-"
    name = repr(row["dtype"]).replace("genesis.", "")
    return f"{name}[{', '.join(map(str, row['shape']))}]"


class Report:
    """A summary of the last recording, as ``genesis.memory_profiler.get_report()`` makes it.

    ``summary()`` is a text table; in Jupyter the report shows as HTML tables. ``devices``,
    ``largest`` (with the tensor's ``shape`` and ``dtype`` where known) and ``call_sites``
    hold the rows. Peaks count only memory allocated during the recording. The cache hit rate
    is the share of a caching pool's allocations that needed no new segment; the CPU heap has
    no cache ('n/a'). A report of an empty recording says so.

    Args:
        timeline (Timeline): the recording to summarise.

    Example::

        >>> with genesis.memory_profiler.record():
        ...     x = genesis.empty(1024)
        >>> report = genesis.memory_profiler.get_report()
        >>> report.devices[0]["device"], report.devices[0]["peak"]
        ('cpu', 4096)
    """

    def __init__(self, timeline):
        self.timeline = timeline
        events = timeline.events
        self.duration_s = (events[-1].time_ns - events[0].time_ns) / 1e9 if events else 0.0
        self.devices = self._devices(events)
        allocs = [e for e in events if e.kind == "alloc"]
        self.largest = [
            {
                "size": e.size,
                "requested": e.requested,
                "device": e.device,
                "location": location(e.stack),
                "stack": e.stack,
                "shape": e.shape,
                "dtype": e.dtype,
            }
            for e in sorted(allocs, key=lambda e: -e.size)[:_TOP]
        ]
        sites = {}
        for e in allocs:
            site = sites.setdefault(
                location(e.stack), {"location": location(e.stack), "count": 0, "bytes": 0}
            )
            site["count"] += 1
            site["bytes"] += e.size
        self.call_sites = sorted(sites.values(), key=lambda s: -s["bytes"])[:_TOP]

    def _devices(self, events):
        rows = {}
        for e in events:
            row = rows.setdefault(
                e.device,
                {"device": e.device, "held": 0, "peak": 0, "allocs": 0, "frees": 0, "segments": 0},
            )
            if e.kind == "alloc":
                row["allocs"] += 1
                row["held"] += e.size
                row["peak"] = max(row["peak"], row["held"])
            elif e.kind == "free":
                row["frees"] += 1
                row["held"] -= e.size
            elif e.kind == "segment_map":
                row["segments"] += 1
        for row in rows.values():
            row["churn"] = row["allocs"] / self.duration_s if self.duration_s > 0 else 0.0
            pooled = row["device"] != "cpu" and row["allocs"] > 0
            row["cache_hit_rate"] = 1 - row["segments"] / row["allocs"] if pooled else None
            del row["held"]
        return list(rows.values())

    def _tables(self):
        dev = [
            [
                r["device"],
                _bytes(r["peak"]),
                str(r["allocs"]),
                str(r["frees"]),
                f"{r['churn']:.0f}",
                "n/a" if r["cache_hit_rate"] is None else f"{r['cache_hit_rate']:.1%}",
            ]
            for r in self.devices
        ]
        big = [[_bytes(r["size"]), r["device"], _tensor(r), r["location"]] for r in self.largest]
        sites = [[r["location"], str(r["count"]), _bytes(r["bytes"])] for r in self.call_sites]
        return [
            ("Devices", ["device", "peak", "allocs", "frees", "allocs/s", "cache hit"], dev),
            ("Largest allocations", ["size", "device", "tensor", "call site"], big),
            ("Allocations by call site", ["call site", "count", "bytes"], sites),
        ]

    def _title(self):
        n = len(self.timeline)
        return (
            f"genesis memory report: {n} events over {self.duration_s:.3f} s"
            f" ({self.timeline.dropped} dropped)"
        )

    def summary(self):
        """Returns the report as a text table.

        Returns:
            str: the devices (peak, allocation and free counts, allocations per second, cache
            hit rate), the largest allocations and the allocations by call site.

        Example::

            >>> with genesis.memory_profiler.record():
            ...     x = genesis.empty(1024)
            >>> print(genesis.memory_profiler.get_report().summary())  # doctest: +ELLIPSIS
            genesis memory report: 1 events over 0.000 s (0 dropped)
            ...
        """
        if len(self.timeline) == 0:
            return "genesis memory report: nothing was recorded"
        lines = [self._title()]
        for title, header, rows in self._tables():
            widths = [max(len(x) for x in col) for col in zip(header, *rows)]
            lines += ["", title]
            for row in [header, *rows]:
                lines.append("  ".join(x.ljust(w) for x, w in zip(row, widths)).rstrip())
        return "\n".join(lines)

    def __str__(self):
        return self.summary()

    # A report shown at a prompt (or as a notebook's plain-text output) is its table.
    __repr__ = __str__

    def _repr_html_(self):
        if len(self.timeline) == 0:
            return "<p>genesis memory report: nothing was recorded</p>"
        out = [f"<p><b>{html.escape(self._title())}</b></p>"]
        for title, header, rows in self._tables():
            out.append(f"<p>{html.escape(title)}</p><table>")
            out.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>")
            for row in rows:
                out.append("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in row) + "</tr>")
            out.append("</table>")
        return "\n".join(out)
