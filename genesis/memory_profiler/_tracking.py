"""What the recorder knows of live allocations, for detailed_memory_stats().get_large_allocations:
the memory debugger's live map and the running recording's events, by address."""

from .. import _C
from .._C import _memory_profiler as _recorder
from ._events import KINDS, ShapeTable, StackTable, location, read_events, read_live

_POOL_CPU, _POOL_CUDA = 0, 1
_ALLOC, _FREE = KINDS.index("alloc"), KINDS.index("free")


def _known(pool, device_index):
    """address -> (size, requested, stack id, shape id, dtype code) of the allocations of one
    pool that the recorder knows to be live: the running recording's allocations not freed
    since, then (taking precedence) what memory debugging tracks."""
    known = {}
    if _recorder.is_recording():
        data, _ = read_events()
        mine = data[(data["pool"] == pool) & (data["device_index"] == device_index)]
        for row in mine[(mine["kind"] == _ALLOC) | (mine["kind"] == _FREE)]:
            address = int(row["address"])
            if row["kind"] == _ALLOC:
                known[address] = row
            else:
                known.pop(address, None)
    if _recorder.is_debugging():
        live = read_live(0)
        for row in live[(live["pool"] == pool) & (live["device_index"] == device_index)]:
            known[int(row["address"])] = row
    return known


def large_allocations(device, min_size, make):
    """The allocations of DetailedMemoryStats.get_large_allocations, each made by
    make(size, requested, address, device, stream[, location, stack, shape, dtype]) (its
    LargeAllocation: passed in, so that this module does not import the one above it)."""
    if device == "cpu":
        known = _known(_POOL_CPU, -1)
        blocks = [
            (int(r["size"]), int(r["requested"]), a, 0)
            for a, r in known.items()
            if int(r["size"]) >= min_size
        ]
    else:
        index = int(device.split(":")[1])
        blocks = []
        if _C._cuda.is_available():
            for seg in _C._cuda.memory_snapshot(index):
                for b in seg["blocks"]:
                    if b["state"] == "active_allocated" and b["size"] >= min_size:
                        blocks.append((b["size"], b["requested_size"], b["address"], seg["stream"]))
        known = _known(_POOL_CUDA, index) if blocks else {}
    stacks = StackTable() if known else None
    shapes = ShapeTable() if known else None
    out = []
    for size, requested, address, stream in sorted(blocks, key=lambda b: (-b[0], b[2])):
        row = known.get(address)
        if row is None or int(row["size"]) != size:  # not tracked, or a stale entry
            out.append(make(size, requested, address, device, stream))
            continue
        stack = stacks.stack(row["stack_id"])
        out.append(
            make(
                size,
                requested,
                address,
                device,
                stream,
                location(stack) if stack else None,
                stack,
                shapes.shape(row["shape_id"]),
                shapes.dtype(row["dtype_code"]),
            )
        )
    return out
