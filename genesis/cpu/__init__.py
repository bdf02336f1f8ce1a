"""genesis.cpu: controls of CPU tensors' memory.

``enable_pinned_memory(True)`` makes new CPU tensors come from the pinned (page-locked) host
memory pool, so that their copies to a GPU with ``non_blocking=True`` run asynchronously
without a ``pin_memory()`` copy first. Without CUDA the setting is accepted and changes nothing.

Example::

    >>> genesis.cpu.enable_pinned_memory(True)
    >>> x = genesis.ones(1024)  # pinned where a GPU is present
    >>> x.is_pinned() == genesis.cuda.is_available()
    True
    >>> genesis.cpu.enable_pinned_memory(False)
"""

from .. import _C

__all__ = ["enable_pinned_memory", "is_pinned_memory_enabled"]

_state = {"enabled": False}


def enable_pinned_memory(enabled=True):
    """Makes new CPU tensors come from the pinned host memory pool (True) or the heap (False).

    While on and a GPU is present, every CPU tensor made from then on (factories, op results,
    copies to the CPU) is page-locked memory from the pool that ``pin_memory()`` uses, so
    ``to("cuda", non_blocking=True)`` is asynchronous. Tensors that exist already stay where
    they are. Page-locked memory is a limited resource: a tensor the pool cannot serve, and
    every tensor of a child process forked after CUDA started, comes from the heap instead.
    Memory that genesis shares with NumPy or other owners is theirs and never pinned. Without
    CUDA the setting is remembered and has no effect.

    Args:
        enabled (bool): on or off. Default: ``True``.

    Returns:
        None

    Example::

        >>> genesis.cpu.enable_pinned_memory(True)
        >>> genesis.cpu.is_pinned_memory_enabled()
        True
        >>> genesis.cpu.enable_pinned_memory(False)
    """
    if not isinstance(enabled, bool):
        raise TypeError(
            f"[enable_pinned_memory] enabled must be a bool, got {type(enabled).__name__}"
        )
    _C._cuda.set_pinned_cpu_tensors(enabled)
    _state["enabled"] = enabled


def is_pinned_memory_enabled():
    """Returns whether ``enable_pinned_memory(True)`` is in force.

    This is the setting; it has an effect only where a GPU is present
    (``genesis.cuda.is_available()``).

    Returns:
        bool: the setting. Default setting: False.

    Example::

        >>> genesis.cpu.is_pinned_memory_enabled()
        False
    """
    return _state["enabled"]
