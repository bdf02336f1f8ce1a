"""Several processes computing together: process groups and collectives (NCCL, or the store).

The names and semantics are torch.distributed's. Start one process per GPU with the launcher
(``python -m genesis.distributed.run --nproc-per-node 2 train.py``), call
``init_process_group("nccl")`` in each, and communicate CUDA tensors: ``all_reduce``,
``broadcast``, ``reduce``, ``all_gather``, ``all_gather_into_tensor``,
``reduce_scatter_tensor``, ``all_to_all_single``, ``send``/``recv`` (and ``isend``/``irecv``),
``barrier``, on the default group or on groups from ``new_group``. Every collective takes
``async_op=True`` and then returns a ``Work``. The ranks meet through a store (``TCPStore``,
``FileStore``, ``HashStore``), which programs may also use directly.

Example::

    >>> import genesis.distributed as dist
    >>> dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    >>> dist.get_rank(), dist.get_world_size()
    (0, 1)
    >>> dist.destroy_process_group()
"""

from ._collectives import (
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    all_to_all_single,
    barrier,
    broadcast,
    irecv,
    isend,
    recv,
    reduce,
    reduce_scatter_tensor,
    send,
)
from ._group import ProcessGroup, ReduceOp, Work
from ._store import DistStoreError, FileStore, HashStore, PrefixStore, Store, TCPStore
from ._world import (
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_rank,
    get_world_size,
    init_process_group,
    is_available,
    is_initialized,
    is_nccl_available,
    new_group,
)

__all__ = [
    "DistStoreError",
    "FileStore",
    "HashStore",
    "PrefixStore",
    "ProcessGroup",
    "ReduceOp",
    "Store",
    "TCPStore",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_reduce",
    "all_to_all_single",
    "barrier",
    "broadcast",
    "destroy_process_group",
    "get_backend",
    "get_global_rank",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "irecv",
    "is_available",
    "is_initialized",
    "is_nccl_available",
    "isend",
    "new_group",
    "recv",
    "reduce",
    "reduce_scatter_tensor",
    "send",
]


def __getattr__(name):
    # GradBucket lives with DistributedDataParallel (genesis.nn.parallel), which imports this
    # package: it is imported at first use.
    if name == "GradBucket":
        from genesis.nn.parallel.distributed import GradBucket

        return GradBucket
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
