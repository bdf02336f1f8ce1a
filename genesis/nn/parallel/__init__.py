"""``genesis.nn.parallel``: data parallel training over several processes, as torch.nn.parallel.

Example::

    >>> from genesis.nn.parallel import DistributedDataParallel
"""

from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
