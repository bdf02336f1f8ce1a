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
    "utils",
]
__all__ += modules.__all__
