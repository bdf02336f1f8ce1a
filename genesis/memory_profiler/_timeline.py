"""Timeline: the recorded events, as records, NumPy columns, memory over time, plots and files."""

import numpy as np

from ._events import KINDS, MemoryEvent, check_by, device_name, location

_SIZE_BUCKETS = ((4 << 10, "< 4 KiB"), (1 << 20, "4 KiB - 1 MiB"), (64 << 20, "1 MiB - 64 MiB"))
_MAX_STACK_BANDS = 8


def _dtype_name(dtype):
    return repr(dtype).replace("genesis.", "")


class Timeline:
    """The events of the last recording: allocations, frees, segments, OOMs and empty_cache.

    ``genesis.memory_profiler.get_timeline()`` makes one; it is a copy, so later events do not
    change it. ``events`` lists the records oldest first, ``dropped`` counts the events the ring
    buffer overwrote (raise ``max_events`` to keep them), ``to_numpy()`` and ``to_dict()`` give
    columns, ``plot()`` draws memory over time and ``save()``/``export_pytorch()`` write files.

    Args:
        data (numpy.ndarray): the recorder's events, a structured array.
        dropped (int): events overwritten before these. Default: ``0``.
        stacks (object): the table resolving stack ids, or None for none. Default: ``None``.
        shapes (object): the table resolving shape ids and dtype codes, or None for none.
            Default: ``None``.

    Example::

        >>> with genesis.memory_profiler.record():
        ...     x = genesis.empty(1024)
        >>> timeline = genesis.memory_profiler.get_timeline()
        >>> [e.kind for e in timeline.events][:1], timeline.events[0].size
        (['alloc'], 4096)
    """

    def __init__(self, data, dropped=0, stacks=None, shapes=None):
        self._data = data
        self.dropped = int(dropped)
        self._stacks = stacks
        self._shapes = shapes
        self._events = None

    def __len__(self):
        """The number of events kept."""
        return len(self._data)

    def __repr__(self):
        return f"Timeline({len(self._data)} events, {self.dropped} dropped)"

    def _stack(self, stack_id):
        return self._stacks.stack(stack_id) if self._stacks is not None else ()

    def _shape(self, shape_id):
        return self._shapes.shape(shape_id) if self._shapes is not None else None

    def _dtype(self, code):
        return self._shapes.dtype(code) if self._shapes is not None else None

    @property
    def events(self):
        """The events as a list of ``MemoryEvent`` records, oldest first.

        Each has ``time_ns`` (steady clock), ``kind`` ('alloc', 'free', 'segment_map',
        'segment_unmap', 'oom', 'empty_cache'), ``device`` ('cpu', 'cuda:N', 'pinned'),
        ``stream``, ``size`` (bytes set aside), ``requested`` (bytes asked for), ``address``,
        ``stack`` (frames innermost first), ``sequence``, and ``shape`` (a tuple) and ``dtype``
        (a genesis.dtype) of the tensor the memory is for. Shape and dtype are known for
        allocations of tensor storage made by factories and ops (and for the frees of those
        allocations while the allocation is in the recording); they are None for other memory
        (a copy's staging buffer, segments, memory from NumPy) and for non-allocation events.

        Example::

            >>> with genesis.memory_profiler.record():
            ...     x = genesis.empty(10)
            >>> genesis.memory_profiler.get_timeline().events[0].requested
            40
        """
        if self._events is None:
            d = self._data
            self._events = [
                MemoryEvent(
                    int(d["time_ns"][i]),
                    KINDS[d["kind"][i]],
                    device_name(d["pool"][i], d["device_index"][i]),
                    int(d["stream"][i]),
                    int(d["size"][i]),
                    int(d["requested"][i]),
                    int(d["address"][i]),
                    self._stack(d["stack_id"][i]),
                    int(d["sequence"][i]),
                    self._shape(d["shape_id"][i]),
                    self._dtype(d["dtype_code"][i]),
                )
                for i in range(len(d))
            ]
        return self._events

    def to_numpy(self):
        """Returns the events as a NumPy structured array, one row per event.

        Its fields: ``time_ns``, ``sequence``, ``address``, ``size``, ``requested``,
        ``stream``, ``stack_id``, ``shape_id`` (0: unknown), ``kind`` (an index into
        ``KINDS``), ``pool``, ``device_index`` and ``dtype_code`` (-1: unknown), the recorder's
        own columns, then two object columns: ``shape`` (a tuple) and ``dtype`` (a name such as
        'float32'), None where unknown.

        Returns:
            numpy.ndarray: a copy of the columns.

        Example::

            >>> with genesis.memory_profiler.record():
            ...     x = genesis.empty(256)
            >>> int(genesis.memory_profiler.get_timeline().to_numpy()["size"][0])
            1024
        """
        d = self._data
        fields = [(name, d.dtype.fields[name][0]) for name in d.dtype.names]
        out = np.empty(len(d), dtype=fields + [("shape", object), ("dtype", object)])
        for name in d.dtype.names:
            out[name] = d[name]
        if self._shapes is not None:
            out["shape"] = self._shapes.shape_column(d["shape_id"])
            out["dtype"] = self._shapes.dtype_column(d["dtype_code"])
        return out

    def to_dict(self):
        """Returns the events as columns of plain Python values, ready for JSON or pandas.

        Returns:
            dict: lists under ``time_ns``, ``kind``, ``device``, ``stream``, ``size``,
            ``requested``, ``address``, ``sequence``, ``location`` ('file:line' of the
            innermost frame, or '<unknown>'), ``shape`` (a tuple or None) and ``dtype`` (a
            name such as 'float32', or None).

        Example::

            >>> with genesis.memory_profiler.record():
            ...     x = genesis.empty(4)
            >>> genesis.memory_profiler.get_timeline().to_dict()["kind"]
            ['alloc']
        """
        columns = {
            k: []
            for k in (
                "time_ns",
                "kind",
                "device",
                "stream",
                "size",
                "requested",
                "address",
                "sequence",
                "location",
                "shape",
                "dtype",
            )
        }
        for e in self.events:
            for k in columns:
                if k == "location":
                    columns[k].append(location(e.stack))
                elif k == "dtype":
                    columns[k].append(None if e.dtype is None else _dtype_name(e.dtype))
                else:
                    columns[k].append(getattr(e, k))
        return columns

    def memory_over_time(self, by="category"):
        """Returns the bytes held by live allocations over time, one band per group.

        Only allocations made during the recording count (what was live before it is not
        known). ``by='category'`` groups by where the memory lives (cpu, cuda:N, pinned),
        ``'stack'`` by call site (the innermost frame; the largest eight, the rest as
        'other'), ``'size'`` by allocation size.

        Args:
            by (str): 'category', 'stack' or 'size'. Default: ``'category'``.

        Returns:
            tuple: (seconds since the first event, a NumPy array of shape (n,); the band
            labels, a list; bytes, a NumPy array of shape (len(labels), n)).

        Example::

            >>> with genesis.memory_profiler.record():
            ...     x = genesis.empty(1024)
            ...     del x
            >>> t, labels, held = genesis.memory_profiler.get_timeline().memory_over_time()
            >>> labels, held.tolist()
            (['cpu'], [[4096.0, 0.0]])
        """
        check_by(by, "memory_over_time")
        d = self._data
        kinds = d["kind"]
        keep = np.nonzero((kinds == KINDS.index("alloc")) | (kinds == KINDS.index("free")))[0]
        labels, index, live = [], {}, {}
        band = np.zeros(len(keep), dtype=np.int64)
        delta = np.zeros(len(keep), dtype=np.float64)
        for j, i in enumerate(keep):
            key = (int(d["pool"][i]), int(d["device_index"][i]), int(d["address"][i]))
            if kinds[i] == 0:
                label = self._label(by, i)
                if label not in index:
                    index[label] = len(labels)
                    labels.append(label)
                live[key] = (index[label], float(d["size"][i]))
                band[j], delta[j] = live[key][0], live[key][1]
            elif key in live:
                b, size = live.pop(key)
                band[j], delta[j] = b, -size
        held = np.zeros((len(labels), len(keep)))
        for b in range(len(labels)):
            held[b] = np.cumsum(np.where(band == b, delta, 0.0))
        times = (d["time_ns"][keep] - (d["time_ns"][0] if len(d) else 0)) / 1e9
        if by == "stack" and len(labels) > _MAX_STACK_BANDS:
            order = np.argsort(-held.max(axis=1), kind="stable")
            top = sorted(order[:_MAX_STACK_BANDS])
            rest = held[sorted(order[_MAX_STACK_BANDS:])].sum(axis=0)
            labels = [labels[b] for b in top] + ["other"]
            held = np.vstack([held[top], rest[None, :]])
        return times, labels, held

    def _label(self, by, i):
        d = self._data
        if by == "category":
            return device_name(d["pool"][i], d["device_index"][i])
        if by == "stack":
            stack = self._stack(d["stack_id"][i])
            return f"{location(stack)} ({stack[0].name})" if stack else "<no stack>"
        size = int(d["size"][i])
        for limit, name in _SIZE_BUCKETS:
            if size < limit:
                return name
        return ">= 64 MiB"

    def plot(self, ax=None, by="category"):
        """Draws memory held over time as stacked bands, with matplotlib.

        In Jupyter the picture shows inline. matplotlib is optional: without it this raises
        ImportError saying so.

        Args:
            ax (matplotlib.axes.Axes): where to draw; a new figure when None. Default: ``None``.
            by (str): the bands: 'category' (where the memory lives), 'stack' (call site) or
                'size'. Default: ``'category'``.

        Returns:
            matplotlib.axes.Axes: the axes drawn on.

        Example::

            >>> with genesis.memory_profiler.record():
            ...     x = genesis.empty(1 << 20)
            >>> ax = genesis.memory_profiler.get_timeline().plot(by="size")  # doctest: +SKIP
        """
        from ._plot import plot

        return plot(self, ax, by)

    def save(self, path, by="category"):
        """Writes the memory-over-time picture to a file: .png, .svg, or .html (an SVG inside).

        Args:
            path (str or os.PathLike): the file; its suffix picks the format.
            by (str): the bands, as for ``plot``. Default: ``'category'``.

        Returns:
            None

        Example::

            >>> with genesis.memory_profiler.record():
            ...     x = genesis.empty(1 << 20)
            >>> genesis.memory_profiler.get_timeline().save("memory.html")  # doctest: +SKIP
        """
        from ._plot import save

        save(self, path, by)

    def export_pytorch(self, path, device=None):
        """Writes the events as a snapshot pickle that PyTorch's memory viewer opens.

        The file is what ``torch.cuda.memory._dump_snapshot`` writes: ``segments`` (what is
        live at the end, per segment) and ``device_traces`` (every event with its frames).
        Drag it onto https://pytorch.org/memory_viz. One device is exported.

        Args:
            path (str or os.PathLike): the file to write.
            device (str or genesis.device): 'cpu', 'pinned' or 'cuda:N'; None picks the first
                CUDA device with events, else the first device seen. Default: ``None``.

        Returns:
            dict: the snapshot that was pickled.

        Example::

            >>> with genesis.memory_profiler.record():
            ...     x = genesis.empty(1024)
            >>> timeline = genesis.memory_profiler.get_timeline()
            >>> snapshot = timeline.export_pytorch("snapshot.pickle")  # doctest: +SKIP
        """
        from ._export import export_pytorch

        return export_pytorch(self, path, device)
