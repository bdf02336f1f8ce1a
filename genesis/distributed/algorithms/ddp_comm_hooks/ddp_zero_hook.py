"""Communication hooks that overlap ZeroRedundancyOptimizer's step with DistributedDataParallel's
backward, as torch.distributed.algorithms.ddp_comm_hooks.ddp_zero_hook.

Each wraps a hook (``allreduce_hook``, say) and a ZeroRedundancyOptimizer made with
``overlap_with_ddp=True``: once a bucket's gradients are averaged, the rank that owns the
bucket's parameters steps them and broadcasts them, so the model is updated when ``backward()``
returns and the training loop calls no ``step()``. The first two iterations (three with
``static_graph=True``) are a warm-up that updates nothing, as torch's (Note [Overlapping the
step with DDP] in genesis/distributed/optim/zero_redundancy_optimizer.py).

Example::

    >>> from genesis.distributed.algorithms.ddp_comm_hooks import ddp_zero_hook
    >>> ddp_zero_hook.__all__
    ['hook_with_zero_step', 'hook_with_zero_step_interleaved']
"""

import weakref

from ....nn.parallel.distributed import DistributedDataParallel
from ...optim.zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["hook_with_zero_step", "hook_with_zero_step_interleaved"]


def _check(name, hook, ddp, zero, shard_buckets):
    """The arguments' checks; marks ``zero`` as sharding buckets when asked."""
    if not callable(hook):
        raise TypeError(f"[{name}] hook must be callable, got {type(hook).__name__}")
    if not isinstance(ddp, DistributedDataParallel):
        raise TypeError(f"[{name}] ddp must be a DistributedDataParallel, got {type(ddp).__name__}")
    if not isinstance(zero, ZeroRedundancyOptimizer):
        raise TypeError(
            f"[{name}] zero must be a ZeroRedundancyOptimizer, got {type(zero).__name__}"
        )
    if not zero._overlap_with_ddp:
        raise ValueError(
            f"[{name}] ZeroRedundancyOptimizer must be constructed with `overlap_with_ddp=True` "
            "to use this hook properly"
        )
    given = {id(p) for g in zero.param_groups for p in g["params"]}
    if any(id(p) not in given for p in ddp._params):
        raise ValueError(
            f"[{name}] the ZeroRedundancyOptimizer must be given every parameter of the DDP "
            "model that requires grad"
        )
    if shard_buckets:
        zero._overlap.shard_buckets = True


def hook_with_zero_step(hook, ddp, zero, shard_buckets=False):
    """``hook`` with ZeroRedundancyOptimizer's step after it: when the last bucket's hook is
    called, each bucket in turn is waited for, its owner steps its parameters, and they are
    broadcast (Note [Overlapping the step with DDP]). Backward computes on uninterrupted; the
    step overlaps the reductions still under way. Register the result with
    ``ddp.register_comm_hook(state, ...)`` before the first backward, on every rank.

    The first two iterations (three with ``static_graph=True``) update nothing: DDP's buckets
    are final only then, as torch documents.

    Args:
        hook (Callable): the hook that averages a bucket, ``hook(state, bucket)`` returning a
            genesis.futures.Future (``default_hooks.allreduce_hook``, say).
        ddp (DistributedDataParallel): the model the hook is registered on.
        zero (ZeroRedundancyOptimizer): made with ``overlap_with_ddp=True`` over the model's
            parameters.
        shard_buckets (bool): cut each bucket over possibly several ranks, to even out the
            ranks' shares; else each bucket goes whole to one rank. Default: False.

    Returns:
        Callable: the hook ``hook_with_zero_fn(state, bucket)``.

    Example::

        >>> import genesis.distributed as dist
        >>> from genesis.distributed.optim import ZeroRedundancyOptimizer
        >>> from genesis.distributed.algorithms.ddp_comm_hooks import default_hooks, ddp_zero_hook
        >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        >>> ddp = genesis.nn.parallel.DistributedDataParallel(genesis.nn.Linear(2, 1))
        >>> zero = ZeroRedundancyOptimizer(
        ...     ddp.parameters(), genesis.optim.Adam, overlap_with_ddp=True, lr=0.1
        ... )
        >>> ddp.register_comm_hook(
        ...     None, ddp_zero_hook.hook_with_zero_step(default_hooks.allreduce_hook, ddp, zero)
        ... )
        >>> before = ddp.module.weight.detach().clone()
        >>> for _ in range(3):  # the third backward is the first to update
        ...     zero.zero_grad()
        ...     ddp(genesis.ones(1, 2)).sum().backward()
        >>> [round(v, 4) for v in (before - ddp.module.weight).flatten().tolist()]  # lr * sign
        [0.1, 0.1]
        >>> dist.destroy_process_group()
    """
    _check("hook_with_zero_step", hook, ddp, zero, shard_buckets)
    ddp_ref = weakref.ref(ddp)  # ddp keeps the hook: a weak reference makes no cycle

    def hook_with_zero_fn(state, bucket):
        fut = hook(state, bucket)
        if not zero._overlap_ready(ddp_ref(), bucket):
            return fut
        overlap = zero._overlap
        overlap.pending[bucket.index()] = (bucket, fut)
        if bucket.index() < len(overlap.runs) - 1:
            return fut
        for index in range(len(overlap.runs)):  # the last bucket: step them all, in order
            done_bucket, done = overlap.pending.pop(index)
            zero._overlap_step(done_bucket, done.wait())
        return fut

    return hook_with_zero_fn


def hook_with_zero_step_interleaved(hook, ddp, zero, shard_buckets=False):
    """``hook`` with ZeroRedundancyOptimizer's step chained to each bucket's future: as soon as
    a bucket is averaged its owner steps its parameters and they are broadcast, interleaving
    the steps' broadcasts with the reductions (Note [Overlapping the step with DDP]). Register
    the result with ``ddp.register_comm_hook(state, ...)`` before the first backward, on every
    rank.

    The first two iterations (three with ``static_graph=True``) update nothing: DDP's buckets
    are final only then, as torch documents.

    Args:
        hook (Callable): the hook that averages a bucket, ``hook(state, bucket)`` returning a
            genesis.futures.Future (``default_hooks.allreduce_hook``, say).
        ddp (DistributedDataParallel): the model the hook is registered on.
        zero (ZeroRedundancyOptimizer): made with ``overlap_with_ddp=True`` over the model's
            parameters.
        shard_buckets (bool): cut each bucket over possibly several ranks, to even out the
            ranks' shares; else each bucket goes whole to one rank. Default: False.

    Returns:
        Callable: the hook ``hook_with_zero_interleaved_fn(state, bucket)``.

    Example::

        >>> import genesis.distributed as dist
        >>> from genesis.distributed.optim import ZeroRedundancyOptimizer
        >>> from genesis.distributed.algorithms.ddp_comm_hooks import default_hooks, ddp_zero_hook
        >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        >>> ddp = genesis.nn.parallel.DistributedDataParallel(genesis.nn.Linear(2, 1))
        >>> zero = ZeroRedundancyOptimizer(
        ...     ddp.parameters(), genesis.optim.SGD, overlap_with_ddp=True, lr=0.5
        ... )
        >>> hook = ddp_zero_hook.hook_with_zero_step_interleaved(
        ...     default_hooks.allreduce_hook, ddp, zero
        ... )
        >>> ddp.register_comm_hook(None, hook)
        >>> before = ddp.module.bias.item()
        >>> for _ in range(3):  # the third backward is the first to update
        ...     zero.zero_grad()
        ...     ddp(genesis.ones(1, 2)).sum().backward()
        >>> round(before - ddp.module.bias.item(), 4)
        0.5
        >>> dist.destroy_process_group()
    """
    _check("hook_with_zero_step_interleaved", hook, ddp, zero, shard_buckets)
    ddp_ref = weakref.ref(ddp)

    def hook_with_zero_interleaved_fn(state, bucket):
        fut = hook(state, bucket)
        if not zero._overlap_ready(ddp_ref(), bucket):
            return fut

        def zero_step(done):
            zero._overlap_step(bucket, done.value())
            return bucket.buffer()

        return fut.then(zero_step)

    return hook_with_zero_interleaved_fn
