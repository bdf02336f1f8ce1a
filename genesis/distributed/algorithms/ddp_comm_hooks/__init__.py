"""DistributedDataParallel's communication hooks, as torch.distributed.algorithms.ddp_comm_hooks
(``default_hooks``: all-reduce, and all-reduce of a float16 or bfloat16 copy;
``powerSGD_hook``: low-rank gradient compression, Note [PowerSGD]; ``ddp_zero_hook``:
ZeroRedundancyOptimizer's step overlapped with backward, Note [Overlapping the step with DDP]).

Example::

    >>> from genesis.distributed.algorithms.ddp_comm_hooks import default_hooks
    >>> callable(default_hooks.fp16_compress_hook)
    True
"""

from . import ddp_zero_hook, default_hooks, powerSGD_hook

__all__ = ["ddp_zero_hook", "default_hooks", "powerSGD_hook"]
