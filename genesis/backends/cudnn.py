"""genesis.backends.cudnn: whether and how CUDA convolutions use cuDNN, as ``torch.backends.cudnn``.

cuDNN is loaded at the first CUDA convolution (Note [Loading cuDNN] in csrc/cuda/cudnn.cpp)
from ``$GENESIS_CUDNN_PATH``, the loader's search, the Python environment's ``nvidia-cudnn-cu13``
wheel or the CUDA toolkit; without it, convolutions run on genesis's own path (windows and a
matrix product) and nothing else changes. The settings are plain module attributes read at
each convolution:

- ``enabled`` (default ``True``): use cuDNN when it is available.
- ``benchmark`` (default ``False``): time every cuDNN algorithm at a shape's first convolution
  and keep the fastest, instead of cuDNN's heuristic pick.
- ``deterministic`` (default ``False``): only algorithms whose results do not vary between
  runs (some backward algorithms add with atomics).
- ``allow_tf32`` (default ``False``): let float32 convolutions round to TF32 on tensor cores.
  PyTorch's default is ``True``; genesis keeps float32 exact unless asked, as for matmul
  (``genesis.backends.cuda.matmul.allow_tf32``).

Example::

    >>> genesis.backends.cudnn.benchmark = True   # autotune convolutions per shape
    >>> genesis.backends.cudnn.benchmark = False
    >>> with genesis.backends.cudnn.flags(enabled=False):
    ...     pass  # convolutions here use genesis's own path
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from .. import _C

__all__ = [
    "allow_tf32",
    "benchmark",
    "deterministic",
    "enabled",
    "flags",
    "is_available",
    "version",
]

enabled: bool = True
benchmark: bool = False
deterministic: bool = False
allow_tf32: bool = False

_searched = False


def _wheel_dirs() -> list[str]:
    """The nvidia-cudnn wheels' library directories on sys.path."""
    dirs = []
    for entry in sys.path:
        lib = os.path.join(entry or ".", "nvidia", "cudnn", "lib")
        if os.path.isfile(os.path.join(lib, "libcudnn.so.9")) and lib not in dirs:
            dirs.append(lib)
    return dirs


def is_available() -> bool:
    """Whether cuDNN can be loaded (tried once; a build without CUDA answers ``False``).

    Example::

        >>> isinstance(genesis.backends.cudnn.is_available(), bool)
        True
    """
    global _searched
    if not _C._cuda.is_compiled():
        return False
    if not _searched:
        _C._cuda.set_cudnn_search_dirs(_wheel_dirs())
        _searched = True
    return bool(_C._cuda.cudnn_available())


def version() -> int | None:
    """cuDNN's version as ``major * 10000 + minor * 100 + patch`` (PyTorch's form, e.g. 92801
    for 9.28.1), or ``None`` when it is not available.

    Example::

        >>> v = genesis.backends.cudnn.version()
        >>> v is None or v >= 90000
        True
    """
    return int(_C._cuda.cudnn_version()) if is_available() else None


@contextlib.contextmanager
def flags(
    enabled: bool | None = None,
    benchmark: bool | None = None,
    deterministic: bool | None = None,
    allow_tf32: bool | None = None,
) -> Iterator[None]:
    """Sets the given settings for the ``with`` block and restores all four after it; an
    argument left ``None`` keeps its setting (PyTorch's ``torch.backends.cudnn.flags``).

    Example::

        >>> with genesis.backends.cudnn.flags(deterministic=True):
        ...     genesis.backends.cudnn.deterministic
        True
    """
    module = sys.modules[__name__]
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    saved = {name: getattr(module, name) for name in names}
    for name, value in zip(names, (enabled, benchmark, deterministic, allow_tf32)):
        if value is not None:
            if not isinstance(value, bool):
                raise TypeError(f"[cudnn.flags] {name} must be a bool, got {type(value).__name__}")
            setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
