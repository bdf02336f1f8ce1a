"""The communication hooks torch ships for DistributedDataParallel (Note [Communication hooks]
in genesis/nn/parallel/distributed.py): ``hook(process_group, bucket)`` averages a bucket of
gradients over the ranks and returns a genesis.futures.Future of the averaged flat tensor.

Register one with ``ddp.register_comm_hook(state, hook)`` (``state``: the process group, or
None for the default one) before the first backward.

Example::

    >>> from genesis.distributed.algorithms.ddp_comm_hooks import default_hooks
    >>> ddp.register_comm_hook(None, default_hooks.bf16_compress_hook)  # doctest: +SKIP
"""

import genesis
import genesis.distributed as dist

__all__ = ["allreduce_hook", "bf16_compress_hook", "fp16_compress_hook"]


def allreduce_hook(process_group, bucket):
    """Divides the bucket by the world size and all-reduces it (DDP's own communication).

    Args:
        process_group (ProcessGroup): the ranks (None: the default group).
        bucket (GradBucket): the bucket.

    Returns:
        genesis.futures.Future: of the averaged flat tensor.

    Example::

        >>> ddp.register_comm_hook(None, allreduce_hook)  # doctest: +SKIP
    """
    buffer = bucket.buffer()
    buffer.div_(dist.get_world_size(process_group))
    work = dist.all_reduce(buffer, group=process_group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


def _compress_hook(dtype, process_group, bucket):
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(dist.get_world_size(process_group))
    work = dist.all_reduce(compressed, group=process_group, async_op=True)

    def decompress(fut):
        with genesis.no_grad():
            buffer.copy_(fut.value()[0])
        return buffer

    return work.get_future().then(decompress)


def fp16_compress_hook(process_group, bucket):
    """All-reduces a float16 copy of the bucket (half the bytes), divided by the world size
    first, and copies the result back into the bucket.

    Args:
        process_group (ProcessGroup): the ranks (None: the default group).
        bucket (GradBucket): the bucket.

    Returns:
        genesis.futures.Future: of the bucket, averaged.

    Example::

        >>> ddp.register_comm_hook(None, fp16_compress_hook)  # doctest: +SKIP
    """
    return _compress_hook(genesis.float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """All-reduces a bfloat16 copy of the bucket, as ``fp16_compress_hook`` does.

    Args:
        process_group (ProcessGroup): the ranks (None: the default group).
        bucket (GradBucket): the bucket.

    Returns:
        genesis.futures.Future: of the bucket, averaged.

    Example::

        >>> ddp.register_comm_hook(None, bf16_compress_hook)  # doctest: +SKIP
    """
    return _compress_hook(genesis.bfloat16, process_group, bucket)
