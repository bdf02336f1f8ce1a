"""Timeline pictures with matplotlib (an optional dependency, imported only here)."""

import html
import io
import os

import numpy as np

from ._events import check_by


def _matplotlib(op):
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise ImportError(
            f"[{op}] drawing the memory timeline needs matplotlib, which is not installed: "
            "pip install matplotlib"
        ) from None
    return matplotlib


def _unit(peak):
    for scale, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if peak >= scale:
            return scale, name
    return 1, "bytes"


def _draw(timeline, ax, by, op):
    check_by(by, op)
    if len(timeline) == 0:
        raise RuntimeError(
            f"[{op}] nothing was recorded: record with genesis.memory_profiler.record()"
        )
    times, labels, held = timeline.memory_over_time(by)
    if len(times) == 0:
        raise RuntimeError(f"[{op}] the recording has no allocations or frees to draw")
    scale, unit = _unit(held.sum(axis=0).max())
    # Steps: each value holds until the next event.
    x = np.repeat(times, 2)[1:]
    y = np.repeat(held / scale, 2, axis=1)[:, :-1]
    ax.stackplot(x, y, labels=labels)
    ax.set_xlabel("seconds since the first event")
    ax.set_ylabel(f"memory held ({unit})")
    ax.set_title(f"genesis memory timeline (by {by})")
    ax.legend(loc="upper left", fontsize="small")
    ax.margins(x=0)
    return ax


def plot(timeline, ax, by):
    check_by(by, "plot")  # the arguments first, then whether matplotlib is there
    _matplotlib("plot")
    if ax is None:
        import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]

        _, ax = plt.subplots(figsize=(10, 4))
    return _draw(timeline, ax, by, "plot")


def _figure(timeline, by, op):
    _matplotlib(op)
    from matplotlib.figure import Figure  # type: ignore[import-not-found, unused-ignore]

    fig = Figure(figsize=(10, 4))  # no pyplot: nothing opens a window
    _draw(timeline, fig.add_subplot(), by, op)
    fig.tight_layout()
    return fig


def save(timeline, path, by):
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".png", ".svg", ".html"):
        raise ValueError(f"[save] the file must end in .png, .svg or .html, got {path!r}")
    check_by(by, "save")
    fig = _figure(timeline, by, "save")
    if suffix != ".html":
        fig.savefig(path)
        return
    svg = io.StringIO()
    fig.savefig(svg, format="svg")
    body = svg.getvalue()
    body = body[body.find("<svg") :]  # drop the XML prologue inside HTML
    with open(path, "w", encoding="utf-8") as f:
        f.write(
            "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>genesis memory timeline"
            f"</title></head><body>\n<h3>{html.escape(repr(timeline))}</h3>\n{body}\n"
            "</body></html>\n"
        )
