"""Docstring of the CUDA graph handle's replay (csrc/python/cuda_graph.cpp)."""

DOCS = {
    "_cuda._CUDAGraph.replay": """\
Runs the captured work again, on the current stream.

Captured random ops draw new numbers at each replay: the generators they drew from
advance by what the capture drew, so replay k gives what the k-th eager run of the
captured code would give from the same generator state (Note [Random ops in graphs]).

Returns:
    None

Example::

    >>> g.replay()  # doctest: +SKIP
""",
}
