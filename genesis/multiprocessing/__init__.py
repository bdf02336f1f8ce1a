"""genesis.multiprocessing: Python's ``multiprocessing``, with genesis tensors passed between
processes as shared memory instead of copies (as ``torch.multiprocessing``).

Everything in ``multiprocessing`` is here under the same name. A CPU tensor put on a
``Queue``, sent through a ``Pipe``, given to a ``Pool`` or to a spawned ``Process`` arrives as
the same memory: its storage moves into shared memory the first time it is sent
(``share_memory_()``), and writes on either side are seen by the other. With the ``fork`` start
method a child also shares what was in shared memory before it was forked (other tensors are
copied on write, as any memory of a forked process). The sender must stay alive until the
receiver has taken the tensor. CUDA tensors travel by CUDA IPC handle (use a start method other
than ``fork`` once CUDA is in use): the receiver works on the sender's memory, and the sender
keeps it from its pool until the receiver has dropped it or died (``release_sent_cuda()``).
Note [Storages between processes] in reductions.py says how.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions, release_sent_cuda

__all__ = list(multiprocessing.__all__) + [
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "release_sent_cuda",
    "set_sharing_strategy",
]

_STRATEGIES = {"file_descriptor"}


def get_all_sharing_strategies() -> set[str]:
    """The ways CPU tensors can be shared: ``{"file_descriptor"}``.

    Returns:
        The set of strategy names.

    Example::

        >>> import genesis.multiprocessing as mp
        >>> mp.get_all_sharing_strategies()
        {'file_descriptor'}
    """
    return set(_STRATEGIES)


def get_sharing_strategy() -> str:
    """The way CPU tensors are shared: always ``"file_descriptor"`` (anonymous shared memory
    whose descriptor is sent to the receiver; nothing to clean up in ``/dev/shm``).

    Returns:
        The strategy's name.

    Example::

        >>> import genesis.multiprocessing as mp
        >>> mp.get_sharing_strategy()
        'file_descriptor'
    """
    return "file_descriptor"


def set_sharing_strategy(new_strategy: str) -> None:
    """Sets the sharing strategy; only ``"file_descriptor"`` exists.

    Args:
        new_strategy: The strategy's name.

    Raises:
        ValueError: For any other name.

    Example::

        >>> import genesis.multiprocessing as mp
        >>> mp.set_sharing_strategy("file_descriptor")
    """
    if new_strategy not in _STRATEGIES:
        raise ValueError(
            f"[set_sharing_strategy] unknown strategy {new_strategy!r}; genesis shares through "
            "'file_descriptor' only"
        )


init_reductions()
