"""CUDA graphs with torch.cuda's names: CUDAGraph, graph, graph_pool_handle.

A graph records the GPU work of a block of code once and replays all of it with one launch, so a
chain of small ops costs one launch of host time instead of one per op (Note [CUDA graphs] in
csrc/cuda/graph.h). A replay runs the same kernels on the same memory: new inputs are copied
into the tensors the capture read, and results are read from the tensors it wrote. Memory the
capture allocates comes from a private pool that the graph owns (Note [Graph private pools] in
csrc/memory/caching_pool.h), and anything that would make the host wait during a capture raises
(Note [Syncs during capture] in csrc/core/graph_capture.h). Random ops draw new numbers at each
replay (Note [Random ops in graphs] in csrc/cuda/graph_random.h).
"""

import gc

from .. import _C
from .devices import current_device, synchronize
from .memory import empty_cache as _empty_cache
from .streams import Stream
from .streams import stream as _stream_scope

_CAPTURE_MODES = ("global", "thread_local", "relaxed")
_capture_streams: dict[int, Stream] = {}  # device -> the side stream graphs capture on


def _pool_id(pool, op):
    """The private pool id of a pool handle (None: 0, a new pool)."""
    if pool is None:
        return 0
    if (
        isinstance(pool, tuple)
        and len(pool) == 2
        and all(isinstance(p, int) and not isinstance(p, bool) for p in pool)
        and pool[0] == 0
        and pool[1] > 0
    ):
        return pool[1]
    raise TypeError(
        f"[{op}] pool must be a handle from genesis.cuda.graph_pool_handle() or another "
        f"graph's pool(), got {pool!r}"
    )


def _check_mode(mode, op):
    if mode not in _CAPTURE_MODES:
        raise ValueError(
            f"[{op}] capture_error_mode must be 'global', 'thread_local' or 'relaxed', got {mode!r}"
        )


def graph_pool_handle():
    """Returns a new private memory pool handle that several graphs can share.

    Pass it as ``pool=`` to ``genesis.cuda.graph`` or ``CUDAGraph.capture_begin``: the graphs
    captured into it allocate from the same private pool (Note [Graph private pools]). Sharing
    is safe when the graphs are replayed in the order they were captured, as in PyTorch.
    Raises RuntimeError without a GPU.

    Returns:
        tuple[int, int]: an opaque handle, ``(0, id)`` as ``torch.cuda.graph_pool_handle()``.

    Example::

        >>> pool = genesis.cuda.graph_pool_handle()  # doctest: +SKIP
        >>> g1, g2 = genesis.cuda.CUDAGraph(), genesis.cuda.CUDAGraph()  # doctest: +SKIP
        >>> with genesis.cuda.graph(g1, pool=pool):  # doctest: +SKIP
        ...     y = x * 2
        >>> with genesis.cuda.graph(g2, pool=pool):  # doctest: +SKIP
        ...     z = y + 1
    """
    return (0, _C._cuda.graph_pool_id())


def is_current_stream_capturing():
    """Says whether the current stream of the current device is being captured into a graph.

    Returns:
        bool: True inside ``with genesis.cuda.graph(g):``; False without a GPU.

    Example::

        >>> genesis.cuda.is_current_stream_capturing()
        False
    """
    return _C._cuda.is_current_stream_capturing()


class CUDAGraph(_C._cuda._CUDAGraph):
    """A CUDA graph: GPU work captured once and replayed with one launch.

    Most code captures with the ``genesis.cuda.graph`` context manager, which captures on a side
    stream; ``capture_begin``/``capture_end`` are the low-level calls it makes. Warm up the code
    first (run it once or a few times on a side stream), as in PyTorch. ``replay()`` launches
    the graph on the current stream; ``reset()`` drops it and releases its private pool. A
    graph can be made without a GPU, but capturing raises RuntimeError then.

    Example::

        >>> g = genesis.cuda.CUDAGraph()
        >>> x = genesis.ones(4, device="cuda")  # doctest: +SKIP
        >>> with genesis.cuda.graph(g):  # doctest: +SKIP
        ...     y = x * 2 + 1
        >>> x.fill_(3.0)  # doctest: +SKIP
        >>> g.replay()  # doctest: +SKIP
        >>> y.tolist()  # doctest: +SKIP
        [7.0, 7.0, 7.0, 7.0]
    """

    def capture_begin(self, pool=None, capture_error_mode="global"):
        """Starts capturing the current stream (which must not be the default stream).

        Until ``capture_end``, the work queued on the stream is recorded instead of run, and
        what it allocates comes from the graph's private pool. Prefer ``genesis.cuda.graph``.

        Args:
            pool (tuple, optional): a pool handle from ``graph_pool_handle()`` or another
                graph's ``pool()``, to share its private pool. Default: None (a new pool).
            capture_error_mode (str): CUDA's capture mode, ``"global"``, ``"thread_local"`` or
                ``"relaxed"``: which threads' capture-unsafe calls CUDA refuses. Default:
                ``"global"``.

        Returns:
            None

        Example::

            >>> g = genesis.cuda.CUDAGraph()  # doctest: +SKIP
            >>> with genesis.cuda.stream():  # doctest: +SKIP
            ...     g.capture_begin()
            ...     y = x + 1
            ...     g.capture_end()
        """
        _check_mode(capture_error_mode, "CUDAGraph.capture_begin")
        self._capture_begin(_pool_id(pool, "CUDAGraph.capture_begin"), capture_error_mode)

    def capture_end(self):
        """Ends the capture that ``capture_begin`` started and makes the graph replayable.

        Returns:
            None

        Example::

            >>> g.capture_end()  # doctest: +SKIP
        """
        self._capture_end()

    # The C++ handle's own method, docstring included: a replay is host cost and little else,
    # and a Python wrapper would add a frame to each (Note [Driver graph launches]).
    replay = _C._cuda._CUDAGraph.replay

    def register_generator_state(self, generator):
        """Accepted for PyTorch's API: genesis registers generators by itself.

        PyTorch asks for every generator other than the default one to be registered before a
        capture draws from it; in genesis the first captured draw of a generator registers it
        with the graph (Note [Random ops in graphs]), so this only checks the argument.

        Args:
            generator (Generator): the generator the capture will draw from.

        Returns:
            None

        Example::

            >>> g = genesis.cuda.CUDAGraph()
            >>> g.register_generator_state(genesis.Generator())
        """
        if not isinstance(generator, _C.Generator):
            raise TypeError(
                "[CUDAGraph.register_generator_state] expected a genesis.Generator, got "
                f"{type(generator).__name__}"
            )

    def reset(self):
        """Drops the captured graph and its hold on the private pool.

        When no other graph shares the pool, its memory goes back to the device (Note [Graph
        private pools]); tensors the capture made stay valid. The graph can capture again.

        Returns:
            None

        Example::

            >>> g = genesis.cuda.CUDAGraph()
            >>> g.reset()
        """
        self._reset()

    def pool(self):
        """Returns the handle of this graph's private pool, to share it with another graph.

        Returns:
            tuple[int, int]: the handle, as ``graph_pool_handle()`` returns.

        Raises:
            RuntimeError: before ``capture_begin`` or after ``reset``.

        Example::

            >>> with genesis.cuda.graph(g2, pool=g1.pool()):  # doctest: +SKIP
            ...     z = y + 1
        """
        pool = self._pool()
        if pool == 0:
            raise RuntimeError(
                "[CUDAGraph.pool] this graph has no pool: it is made by capture_begin and "
                "released by reset"
            )
        return (0, pool)

    def __repr__(self):
        state = "capturing" if self._capturing() else "captured" if self._captured() else "empty"
        return f"<genesis.cuda.CUDAGraph {state}>"


class graph:
    """Context manager that captures the GPU work of its block into a ``CUDAGraph``.

    On entry it waits for the device, collects garbage and empties the cache (so the capture
    starts from a tidy pool), makes ``stream`` current and begins the capture; on exit it ends
    the capture and restores the stream. The block's work is recorded, not run: replay it with
    ``cuda_graph.replay()``. Tensors made inside the block keep their memory (from the graph's
    private pool) and hold the results of each replay. An error inside the block ends the
    capture and resets the graph before it propagates; anything that would make the host wait
    (``item()``, ``.cpu()``, ``synchronize()``, a boolean mask index) raises RuntimeError.

    Args:
        cuda_graph (CUDAGraph): the graph to capture into.
        pool (tuple, optional): a pool handle to share (``graph_pool_handle()``, another
            graph's ``pool()``). Default: None (a new private pool).
        stream (Stream, optional): the stream to capture on. Default: None (a side stream of
            the current device that every ``graph`` shares).
        capture_error_mode (str): ``"global"``, ``"thread_local"`` or ``"relaxed"``, as in
            ``CUDAGraph.capture_begin``. Default: ``"global"``.

    Example::

        >>> g = genesis.cuda.CUDAGraph()  # doctest: +SKIP
        >>> x = genesis.randn(1000, device="cuda")  # doctest: +SKIP
        >>> with genesis.cuda.graph(g):  # doctest: +SKIP
        ...     y = (x * 2).relu().sum()
        >>> g.replay()  # doctest: +SKIP
    """

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        if not isinstance(cuda_graph, CUDAGraph):
            raise TypeError(
                f"[graph] expected a genesis.cuda.CUDAGraph, got {type(cuda_graph).__name__}"
            )
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"[graph] stream must be a genesis.cuda.Stream, got {stream!r}")
        _check_mode(capture_error_mode, "graph")
        self.cuda_graph = cuda_graph
        _pool_id(pool, "graph")  # checked now, not at entry
        self.pool = pool
        self.capture_error_mode = capture_error_mode
        self.capture_stream = stream
        self._stream_scope = None

    def __enter__(self):
        if self.capture_stream is None:
            device = current_device()
            if device not in _capture_streams:
                _capture_streams[device] = Stream(device)
            self.capture_stream = _capture_streams[device]
        synchronize()
        gc.collect()
        _empty_cache()
        self._stream_scope = _stream_scope(self.capture_stream)
        self._stream_scope.__enter__()
        try:
            self.cuda_graph.capture_begin(self.pool, self.capture_error_mode)
        except BaseException:
            self._stream_scope.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.cuda_graph.capture_end()
            else:
                try:
                    self.cuda_graph.capture_end()
                except RuntimeError:
                    pass  # the block's own error says more
                self.cuda_graph.reset()
        finally:
            self._stream_scope.__exit__(None, None, None)
        return False
