"""skip_init: a module built without running its initialization."""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["skip_init"]


def skip_init(module_cls: Any, *args: Any, **kwargs: Any) -> Any:
    """Builds ``module_cls(*args, **kwargs)`` with uninitialized parameters and buffers (its
    initialization functions do not run), as PyTorch's ``skip_init``; the class must take a
    ``device`` argument.

    Example::

        >>> layer = genesis.nn.utils.skip_init(genesis.nn.Linear, 3, 2)
        >>> layer.weight.shape
        genesis.Size([2, 3])
    """
    from ..modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    if not hasattr(module_cls, "reset_parameters"):
        return module_cls(*args, **kwargs)
    # reset_parameters is where every layer initializes; a subclass that skips it leaves the
    # parameters as empty() made them.
    skipping = type(module_cls.__name__, (module_cls,), {"reset_parameters": lambda self: None})
    module = skipping(*args, **kwargs)
    module.__class__ = module_cls
    return module
