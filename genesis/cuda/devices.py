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
    """True when genesis was built with CUDA and a CUDA device is present."""
    return _C._cuda.is_available()


def device_count():
    """Number of CUDA devices genesis can use (0 without CUDA support or a GPU)."""
    return _C._cuda.device_count()


def is_compiled():
    """True when this build of genesis includes the CUDA backend."""
    return _C._cuda.is_compiled()


def current_device():
    """Index of the current CUDA device."""
    return _C._cuda.current_device()


def set_device(device):
    """Makes ``device`` (an index, 'cuda:N' or genesis.device) the current CUDA device.

    None or 'cuda' (no index) mean the current device, so they change nothing.
    """
    _C._cuda.set_device(_resolve(device))


class device:  # lower case like torch.cuda.device: it is used like a function
    """Context manager that makes ``device`` current and restores the previous device on exit.

    ``device(None)`` and ``device(-1)`` change nothing, as in PyTorch.
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
    """What get_device_properties() returns (the fields PyTorch code reads most)."""

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
    """Name, total memory, SM count and compute capability of a CUDA device."""
    return DeviceProperties(**_C._cuda.device_properties(_index(device)))


def get_device_name(device=None):
    """The device's name, e.g. 'NVIDIA H100 80GB HBM3'."""
    return get_device_properties(device).name


def get_device_capability(device=None):
    """The device's compute capability as (major, minor), e.g. (9, 0)."""
    p = get_device_properties(device)
    return (p.major, p.minor)


def synchronize(device=None):
    """Waits until all work queued on every stream of ``device`` has finished."""
    _C._cuda.synchronize(_index(device))


def mem_get_info(device=None):
    """(free, total) bytes of the device, as the driver reports them (not only genesis's)."""
    return tuple(_C._cuda.mem_get_info(_index(device)))
