"""``genesis.distributed.optim``: optimizers for data-parallel training, as torch's.

Example::

    >>> from genesis.distributed.optim import ZeroRedundancyOptimizer
"""

from .zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]
