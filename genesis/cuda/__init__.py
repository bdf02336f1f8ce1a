"""genesis.cuda: CUDA devices. Without a GPU, is_available() is False and device_count() is 0."""

from .. import _C

OutOfMemoryError = _C.OutOfMemoryError


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
    """Makes ``device`` (an index, 'cuda:N' or genesis.device) the current CUDA device."""
    if not isinstance(device, __builtins__["int"] if isinstance(__builtins__, dict) else int):
        device = _C.device(str(device)).index or 0
    _C._cuda.set_device(device)
