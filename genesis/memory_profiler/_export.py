"""A timeline as the snapshot pickle that PyTorch's memory viewer (memory_viz) opens.

Note [PyTorch snapshot export]
torch.cuda.memory._snapshot() returns {"segments": [...], "device_traces": [[...] per device]}.
A trace entry is {"action", "addr", "size", "stream", "time_us", "frames": [{"filename",
"line", "name"}]} with actions alloc, free_requested, free_completed, segment_alloc,
segment_free, oom and snapshot. genesis reports a free when the caller frees (the pool's
counters drop then), so each free becomes free_requested and free_completed at once. The
segments describe the end of the trace: for a caching pool the segments mapped during the
recording and not unmapped, with their live blocks; CPU memory has no segments, so each live
CPU allocation is a segment of its own. memory_viz replays the trace against those segments.
The format has no shape or dtype; where genesis knows them (Note [Recorded shapes]) they go into
the "user_metadata" string of the trace entry and the block ("float32[3, 4]"), the field newer
PyTorch versions fill from torch.cuda.memory._set_memory_metadata and the viewer shows.
"""

import os
import pickle

from .._C import _memory_profiler as _recorder

_ACTIONS = {
    "alloc": ("alloc",),
    "free": ("free_requested", "free_completed"),
    "segment_map": ("segment_alloc",),
    "segment_unmap": ("segment_free",),
    "oom": ("oom",),
}


def _frames(stack):
    return [{"filename": f.filename, "line": f.line, "name": f.name} for f in stack]


def _metadata(e):
    """'float32[3, 4]' for an event of known shape and dtype, else None."""
    if e.shape is None or e.dtype is None:
        return None
    return repr(e.dtype).replace("genesis.", "") + "[" + ", ".join(map(str, e.shape)) + "]"


def _pick_device(events, device):
    seen = []
    for e in events:
        if e.device not in seen:
            seen.append(e.device)
    if device is None:
        cuda = sorted(d for d in seen if d.startswith("cuda"))
        return cuda[0] if cuda else seen[0]
    name = str(device)
    if name == "cuda":
        name = "cuda:0"
    if name not in ("cpu", "pinned", "host") and not name.startswith("cuda:"):
        raise ValueError(
            f"[export_pytorch] device must be 'cpu', 'pinned' or 'cuda:N', got {name!r}"
        )
    return name


def snapshot(timeline, device=None):
    events = timeline.events
    if not events:
        raise RuntimeError(
            "[export_pytorch] nothing was recorded: record with genesis.memory_profiler.record()"
        )
    device = _pick_device(events, device)
    events = [e for e in events if e.device == device]
    trace, live, segments = [], {}, {}
    for e in events:
        frames = _frames(e.stack)
        for action in _ACTIONS.get(e.kind, ()):
            entry = {
                "action": action,
                "addr": e.address,
                "size": e.requested if e.kind == "oom" else e.size,
                "stream": e.stream,
                "time_us": e.time_ns // 1000,
                "frames": frames,
            }
            if e.kind == "oom":
                entry["device_free"] = 0
            if _metadata(e) is not None:
                entry["user_metadata"] = _metadata(e)
            trace.append(entry)
        if e.kind == "alloc":
            live[e.address] = e
        elif e.kind == "free":
            live.pop(e.address, None)
        elif e.kind == "segment_map":
            segments[e.address] = e
        elif e.kind == "segment_unmap":
            segments.pop(e.address, None)
    end_us = _recorder.now_ns() // 1000
    trace.append(
        {"action": "snapshot", "addr": 0, "size": 0, "stream": 0, "time_us": end_us, "frames": []}
    )
    index = int(device.split(":")[1]) if device.startswith("cuda:") else 0
    traces = [[] for _ in range(index)] + [trace]
    return {"segments": _segments(segments, live, index), "device_traces": traces}


def _block(address, size, requested, state, frames, event=None):
    block = {
        "address": address,
        "size": size,
        "requested_size": requested,
        "state": state,
        "frames": frames,
    }
    if event is not None and _metadata(event) is not None:
        block["user_metadata"] = _metadata(event)
    return block


def _segments(mapped, live, index):
    out = []
    unplaced = dict(live)
    for base, seg in sorted(mapped.items()):
        blocks, cursor, end = [], base, base + seg.size
        inside = sorted(a for a in unplaced if base <= a < end)
        for a in inside:
            e = unplaced.pop(a)
            if a > cursor:
                blocks.append(_block(cursor, a - cursor, 0, "inactive", []))
            blocks.append(_block(a, e.size, e.requested, "active_allocated", _frames(e.stack), e))
            cursor = a + e.size
        if cursor < end:
            blocks.append(_block(cursor, end - cursor, 0, "inactive", []))
        out.append(_segment(index, base, seg.size, seg.stream, blocks, _frames(seg.stack)))
    for a, e in sorted(unplaced.items()):  # CPU memory, or segments mapped before recording
        block = _block(a, e.size, e.requested, "active_allocated", _frames(e.stack), e)
        out.append(_segment(index, a, e.size, e.stream, [block], _frames(e.stack)))
    return out


def _segment(index, address, size, stream, blocks, frames):
    allocated = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
    return {
        "device": index,
        "address": address,
        "total_size": size,
        "stream": stream,
        "segment_type": "small" if size <= (2 << 20) else "large",
        "segment_pool_id": (0, 0),
        "allocated_size": allocated,
        "active_size": allocated,
        "requested_size": sum(b["requested_size"] for b in blocks),
        "blocks": blocks,
        "frames": frames,
    }


def export_pytorch(timeline, path, device):
    snap = snapshot(timeline, device)
    with open(os.fspath(path), "wb") as f:
        pickle.dump(snap, f)
    return snap
