"""genesis.cuda.set_sync_debug_mode and get_sync_debug_mode: find the operations that make the
host wait for the GPU (Note [Sync debug mode] in csrc/core/sync_debug.h)."""

from .. import _C

_MODES = {"default": 0, "warn": 1, "error": 2}


def set_sync_debug_mode(debug_mode):
    """Reports every operation that makes the host wait for a CUDA device, as PyTorch's does.

    In ``"warn"`` mode each such wait issues a UserWarning; in ``"error"`` mode it raises
    RuntimeError before waiting; ``"default"`` reports nothing. The waits reported are the ones
    an operation makes on the caller's behalf: copies to the host (``item()``, ``tolist()``,
    ``cpu()``, ``numpy()``), copies from pinned memory, counting a mask (``x[mask]``,
    ``nonzero``, ``masked_select``) and reading back an index bounds check. An explicit
    ``synchronize()`` of the device, a stream or an event is never reported. The mode holds for
    the whole process, every thread and device.

    Args:
        debug_mode (str or int): ``"default"`` (0), ``"warn"`` (1) or ``"error"`` (2).

    Returns:
        None

    Example::

        >>> genesis.cuda.set_sync_debug_mode("warn")
        >>> genesis.cuda.get_sync_debug_mode()
        1
        >>> genesis.cuda.set_sync_debug_mode("default")
    """
    if isinstance(debug_mode, str) and debug_mode in _MODES:
        mode = _MODES[debug_mode]
    elif isinstance(debug_mode, int) and not isinstance(debug_mode, bool) and 0 <= debug_mode <= 2:
        mode = debug_mode
    else:
        raise ValueError(
            "[set_sync_debug_mode] expected 'default', 'warn' or 'error' (or 0, 1, 2), "
            f"got {debug_mode!r}"
        )
    _C._cuda.set_sync_debug_mode(mode)


def get_sync_debug_mode():
    """Returns the mode ``set_sync_debug_mode`` set: 0 (default), 1 (warn) or 2 (error).

    Returns:
        int: the mode.

    Example::

        >>> genesis.cuda.get_sync_debug_mode()
        0
    """
    return _C._cuda.get_sync_debug_mode()
