"""``genesis.nn``: torch.nn's modules, layers, losses, initialization and utilities, so model code
written for ``torch.nn`` runs by swapping the module. The classes are Python, as in PyTorch and
MLX; their math is genesis's compiled ops.

Example::

    >>> model = genesis.nn.Sequential(genesis.nn.Linear(4, 8), genesis.nn.ReLU(),
    ...                               genesis.nn.Linear(8, 2))
    >>> model(genesis.zeros(3, 4)).shape
    genesis.Size([3, 2])
"""

from . import attention, functional, init, modules, utils
from .modules import *
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    "Buffer",
    "Parameter",
    "UninitializedBuffer",
    "UninitializedParameter",
    "attention",
    "functional",
    "init",
    "parallel",  # noqa: F405 (imported at first use: __getattr__ below)
    "utils",
]
__all__ += modules.__all__


def __getattr__(name):
    # genesis.nn.parallel needs genesis.distributed, which needs the genesis module that imports
    # this one: it is imported at first use (import genesis.nn.parallel works too).
    if name == "parallel":
        import importlib

        return importlib.import_module(".parallel", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
