"""CUDA devices: selecting one, and the facts about it.

This module is ``devices`` (not ``device``) because ``genesis.cuda.device`` is the context manager
``with genesis.cuda.device(0):``; a submodule of the same name would shadow it.
"""

from dataclasses import dataclass

from .. import _C


def _index(device):
    """A CUDA device as the int the bindings take: None -> -1 (the current device).

    Accepts an int, 'cuda' / 'cuda:N', or a genesis.device; a CPU device is a ValueError.
    """
    if device is None:
        return -1
    if isinstance(device, bool):  # bool is an int, but True meaning 'cuda:1' is a bug
        raise _wrong_type(device)
    if isinstance(device, int):
        if device < -1:
            raise ValueError(f"[cuda] invalid device index {device}; expected N >= 0 or -1")
        return device
    if isinstance(device, str):
        device = _C.device(device)  # raises ValueError "[device] unknown device ..."
    if isinstance(device, _C.device):
        if device.type != "cuda":
            raise ValueError(f"[cuda] expected a CUDA device, got {device}")
        return -1 if device.index is None else device.index
    raise _wrong_type(device)


def _wrong_type(device):
    return TypeError(f"[cuda] expected a device index, 'cuda:N' or genesis.device, got {device!r}")


def _resolve(device):
    """The concrete device index (None/'cuda' -> the current one); raises without a GPU."""
    i = _index(device)
    return _C._cuda.current_device() if i < 0 else i


def is_available():
    """Returns True when genesis was built with CUDA and a CUDA device is present.

    Code that can use a GPU but need not should check this first: without one, everything that
    needs a device raises RuntimeError.

    Returns:
        bool: whether CUDA tensors can be made.

    Example::

        >>> device = "cuda" if genesis.cuda.is_available() else "cpu"
        >>> genesis.ones(2, device=device).sum().item()
        2.0
    """
    return _C._cuda.is_available()


def device_count():
    """Returns the number of CUDA devices genesis can use.

    Returns:
        int: the device count; 0 in a CPU-only build or without a GPU (no error).

    Example::

        >>> genesis.cuda.device_count() == 0 or genesis.cuda.is_available()
        True
    """
    return _C._cuda.device_count()


def is_compiled():
    """Returns True when this build of genesis includes the CUDA backend.

    A CUDA build still needs a GPU at run time; see ``is_available()``.

    Returns:
        bool: whether the CUDA backend was compiled in (``GENESIS_CUDA``).

    Example::

        >>> genesis.cuda.is_compiled() == genesis.build_info()["cuda_compiled"]
        True
    """
    return _C._cuda.is_compiled()


def current_device():
    """Returns the index of the current CUDA device of this thread.

    ``device="cuda"`` means this device. Raises RuntimeError without a GPU.

    Returns:
        int: the device index.

    Example::

        >>> genesis.cuda.current_device()  # doctest: +SKIP
        0
    """
    return _C._cuda.current_device()


def set_device(device):
    """Makes ``device`` the current CUDA device of this thread.

    Tensors made with ``device="cuda"`` go there, and work is queued there. The context
    manager ``genesis.cuda.device`` sets it for a block only. Raises RuntimeError without a GPU.

    Args:
        device (int, str or genesis.device): an index, ``"cuda:N"`` or a genesis.device; None
            or ``"cuda"`` (no index) mean the current device, so they change nothing.

    Returns:
        None

    Example::

        >>> genesis.cuda.set_device(0)  # doctest: +SKIP
        >>> genesis.zeros(1, device="cuda").device  # doctest: +SKIP
        device(type='cuda', index=0)
    """
    _C._cuda.set_device(_resolve(device))


class device:  # lower case like torch.cuda.device: it is used like a function
    """Context manager that makes ``device`` the current CUDA device inside a ``with`` block.

    The previous device is current again on exit. ``device(None)`` and ``device(-1)`` change
    nothing, as in PyTorch. Needs a GPU when it changes the device.

    Args:
        device (int, str or genesis.device): an index, ``"cuda:N"`` or a genesis.device, or
            None / -1 for no change.

    Example::

        >>> with genesis.cuda.device(1):  # doctest: +SKIP
        ...     x = genesis.zeros(2, device="cuda")
        >>> x.device  # doctest: +SKIP
        device(type='cuda', index=1)
        >>> with genesis.cuda.device(None):  # changes nothing, also without a GPU
        ...     pass
    """

    def __init__(self, device):
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = _C._cuda.current_device()
            if self.prev_idx != self.idx:
                _C._cuda.set_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.idx >= 0 and self.prev_idx != self.idx:
            _C._cuda.set_device(self.prev_idx)
        return False


@dataclass(frozen=True)
class DeviceProperties:
    """The facts about a CUDA device that ``get_device_properties()`` returns.

    A frozen dataclass with the fields PyTorch code reads most: ``name``, ``total_memory``
    (bytes), ``multi_processor_count`` (SMs), and the compute capability ``major`` and
    ``minor``.

    Example::

        >>> p = genesis.cuda.get_device_properties(0)  # doctest: +SKIP
        >>> p.name, p.major, p.minor  # doctest: +SKIP
        ('NVIDIA H100 80GB HBM3', 9, 0)
    """

    name: str
    total_memory: int
    multi_processor_count: int
    major: int
    minor: int

    def __repr__(self):
        return (
            f"DeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // (1 << 20)}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def get_device_properties(device=None):
    """Returns the name, total memory, SM count and compute capability of a CUDA device.

    Raises RuntimeError without a GPU.

    Args:
        device (int, str or genesis.device, optional): the device. Default: None (the current
            device).

    Returns:
        DeviceProperties: the device's facts.

    Example::

        >>> p = genesis.cuda.get_device_properties()  # doctest: +SKIP
        >>> p.total_memory > 0, (p.major, p.minor) >= (5, 0)  # doctest: +SKIP
        (True, True)
    """
    return DeviceProperties(**_C._cuda.device_properties(_index(device)))


def get_device_name(device=None):
    """Returns the name of a CUDA device.

    Args:
        device (int, str or genesis.device, optional): the device. Default: None (the current
            device).

    Returns:
        str: the name the driver reports, such as ``'NVIDIA H100 80GB HBM3'``.

    Example::

        >>> genesis.cuda.get_device_name(0)  # doctest: +SKIP
        'NVIDIA H100 80GB HBM3'
    """
    return get_device_properties(device).name


def get_device_capability(device=None):
    """Returns the compute capability of a CUDA device.

    Args:
        device (int, str or genesis.device, optional): the device. Default: None (the current
            device).

    Returns:
        tuple of int: ``(major, minor)``, such as ``(9, 0)`` for an H100.

    Example::

        >>> genesis.cuda.get_device_capability()  # doctest: +SKIP
        (9, 0)
    """
    p = get_device_properties(device)
    return (p.major, p.minor)


def synchronize(device=None):
    """Waits until all work queued on every stream of a CUDA device has finished.

    genesis queues GPU work without waiting for it; reading a result (``item()``, ``tolist()``,
    ``cpu()``) waits for what it needs, so an explicit synchronize is mainly for timing and for
    non-blocking copies. Raises RuntimeError without a GPU, and IndexError for an out-of-range
    index that an earlier index op of the device recorded (``set_index_check``).

    Args:
        device (int, str or genesis.device, optional): the device. Default: None (the current
            device).

    Returns:
        None

    Example::

        >>> y = genesis.ones(1 << 20, device="cuda") * 2  # doctest: +SKIP
        >>> genesis.cuda.synchronize()  # doctest: +SKIP
    """
    _C._cuda.synchronize(_index(device))


def mem_get_info(device=None):
    """Returns the free and total memory of a CUDA device, as the driver reports them.

    The free memory counts every process's use, not only genesis's; memory that genesis's
    caching pool holds but no tensor uses counts as used (see ``memory_reserved()``). Raises
    RuntimeError without a GPU.

    Args:
        device (int, str or genesis.device, optional): the device. Default: None (the current
            device).

    Returns:
        tuple of int: ``(free, total)`` in bytes.

    Example::

        >>> free, total = genesis.cuda.mem_get_info()  # doctest: +SKIP
        >>> 0 <= free <= total  # doctest: +SKIP
        True
    """
    return tuple(_C._cuda.mem_get_info(_index(device)))


def can_device_access_peer(device, peer_device):
    """Tells whether one CUDA device can read and write another's memory directly.

    Where it can (NVLink, or PCIe peer-to-peer), genesis turns peer access on the first time a
    tensor is copied between the two, and the copy goes straight from one GPU to the other;
    otherwise the CUDA runtime stages the bytes through host memory. Raises RuntimeError without
    a GPU.

    Args:
        device (int, str or genesis.device): the device that would access.
        peer_device (int, str or genesis.device): the device whose memory it would access.

    Returns:
        bool: True when direct access is possible (False for a device and itself).

    Example::

        >>> genesis.cuda.can_device_access_peer(0, 1)  # doctest: +SKIP
        True
    """
    return _C._cuda.can_access_peer(_index(device), _index(peer_device))
