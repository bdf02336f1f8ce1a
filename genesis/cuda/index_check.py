"""genesis.cuda.set_index_check and get_index_check: when an out-of-range index of a CUDA index
op is raised (Note [Deferred index errors] in csrc/core/index_check.h)."""

from .. import _C

_MODES = ("deferred", "immediate")


def set_index_check(mode):
    """Chooses when CUDA index ops raise IndexError for an out-of-range index.

    ``"deferred"`` (the default): an op that indexes through index tensors on the GPU
    (``x[idx]``, ``x[idx] = v``, ``gather``, ``scatter_*``, ``index_*``, ``take``, ``put_``, ...)
    never waits for the GPU. Out-of-range indices are never read or written; the first one is
    recorded on the device and raised at the host's next wait for that device: ``synchronize()``,
    ``Stream.synchronize``, ``Event.synchronize``, ``item()``, ``tolist()``, ``cpu()``,
    ``numpy()``, a copy to the host (a DLPack export to the CPU) or the count of a mask. Each
    error is raised once; the device stays usable. ``"immediate"``: each such op waits for its
    bounds check and raises before returning, as the CPU always does. The mode holds for the
    whole process.

    Args:
        mode (str): ``"deferred"`` or ``"immediate"``.

    Returns:
        None

    Example::

        >>> genesis.cuda.set_index_check("immediate")
        >>> genesis.cuda.get_index_check()
        'immediate'
        >>> genesis.cuda.set_index_check("deferred")
    """
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValueError(f"[set_index_check] expected 'deferred' or 'immediate', got {mode!r}")
    _C._cuda.set_index_check(mode == "immediate")


def get_index_check():
    """Returns the mode ``set_index_check`` set: ``"deferred"`` or ``"immediate"``.

    Returns:
        str: the mode.

    Example::

        >>> genesis.cuda.get_index_check()
        'deferred'
    """
    return "immediate" if _C._cuda.get_index_check() else "deferred"
