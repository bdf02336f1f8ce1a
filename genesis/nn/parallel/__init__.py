"""``genesis.nn.parallel``: data parallel training over several processes (and DataParallel's
GPUs of one process), as torch.nn.parallel.

Example::

    >>> from genesis.nn.parallel import DistributedDataParallel
"""

from ..modules.data_parallel import (
    DataParallel,
    data_parallel,
    gather,
    parallel_apply,
    replicate,
    scatter,
    scatter_kwargs,
)
from .distributed import DistributedDataParallel

__all__ = [
    "DataParallel",
    "DistributedDataParallel",
    "data_parallel",
    "gather",
    "parallel_apply",
    "replicate",
    "scatter",
    "scatter_kwargs",
]
