"""DistributedDataParallel's communication hooks, as torch.distributed.algorithms.ddp_comm_hooks
(``default_hooks``: all-reduce, and all-reduce of a float16 or bfloat16 copy).

Example::

    >>> from genesis.distributed.algorithms.ddp_comm_hooks import default_hooks
    >>> callable(default_hooks.fp16_compress_hook)
    True
"""

from . import default_hooks

__all__ = ["default_hooks"]
