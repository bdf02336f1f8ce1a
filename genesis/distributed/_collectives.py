"""The collectives and point-to-point operations, with torch.distributed's signatures.

CUDA tensors go over NCCL where the group has it: each runs on the group's NCCL stream after
the work already queued on the caller's current stream (Note [Collectives and stream order] in
csrc/cuda/nccl.cpp). Without ``async_op`` the caller's current stream then waits for it before
the call returns, so the next op on that stream sees the result, and the host never waits; with
``async_op=True`` a Work is returned and ``work.wait()`` does that wait. CPU tensors (and CUDA
tensors of a group without NCCL) go through the store, the "gloo" backend (Note [Collectives
through the store] in _store_comm.py), and are done when the call returns. Tensors must be
contiguous, on the group's device for NCCL.
"""

import genesis

from ._group import Work, reduction_name
from ._world import group_of

_Tensor = genesis.Tensor


def _check_tensor(t, name, what="tensor", like=None):
    if not isinstance(t, _Tensor):
        raise TypeError(f"[{name}] {what} must be a genesis.Tensor, got {type(t).__name__}")
    if like is not None and t.device != like.device:
        raise ValueError(f"[{name}] {what} is on {t.device}, the other tensor on {like.device}")
    if not t.is_contiguous():
        raise ValueError(f"[{name}] {what} must be contiguous (call .contiguous() first)")
    return t


def _signature(*tensors):
    return " ".join(f"{t.dtype} {list(t.shape)}" for t in tensors)


def _finish(handle, group, async_op, after=None, result=None):
    work = Work(handle, after, group, result)
    if async_op:
        return work
    work.wait()
    return None


def _group(group, name):
    g = group_of(group, name)
    g._member(name)
    return g


def _comm(g, name, tensor):
    return g._communicator_for(tensor, name)


def all_reduce(tensor, op="sum", group=None, async_op=False):
    """Reduces a tensor across the ranks of a group, in place: every rank gets the result.

    Args:
        tensor (Tensor): a contiguous CUDA tensor, the same shape and dtype on every rank.
        op (str): a ReduceOp: ``"sum"``, ``"product"``, ``"min"``, ``"max"`` or ``"avg"``.
            Default: "sum".
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        async_op (bool): return a Work instead of ordering the current stream after it.
            Default: False.

    Returns:
        Work or None: a Work when ``async_op``, else None.

    Example::

        >>> x = genesis.ones(4, device="cuda")  # doctest: +SKIP
        >>> genesis.distributed.all_reduce(x)  # doctest: +SKIP
        >>> x  # on each of 2 ranks  # doctest: +SKIP
        tensor([2., 2., 2., 2.], device='cuda:0')
    """
    name = "all_reduce"
    _check_tensor(tensor, name)
    op = reduction_name(op, name)
    g = _group(group, name)
    g._check_agreement(name, f"{op} {_signature(tensor)}")
    handle = _comm(g, name, tensor).all_reduce(tensor, tensor, op)
    return _finish(handle, g, async_op, result=[tensor])


def broadcast(tensor, src, group=None, async_op=False):
    """Copies a tensor from rank ``src`` to every rank of a group, in place.

    Args:
        tensor (Tensor): the data on ``src``; where it lands on the others (same shape and dtype).
        src (int): the global rank that sends. Default: None (raises ValueError).
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        async_op (bool): return a Work. Default: False.

    Returns:
        Work or None: a Work when ``async_op``, else None.

    Example::

        >>> x = genesis.full((3,), float(rank), device="cuda")  # doctest: +SKIP
        >>> genesis.distributed.broadcast(x, src=0)  # doctest: +SKIP
        >>> x  # doctest: +SKIP
        tensor([0., 0., 0.], device='cuda:1')
    """
    name = "broadcast"
    _check_tensor(tensor, name)
    g = _group(group, name)
    root = g._group_rank(src, name)
    g._check_agreement(name, f"{src} {_signature(tensor)}")
    handle = _comm(g, name, tensor).broadcast(tensor, tensor, root)
    return _finish(handle, g, async_op, result=[tensor])


def reduce(tensor, dst, op="sum", group=None, async_op=False):
    """Reduces a tensor across a group into rank ``dst``'s tensor (the others' are unchanged).

    Args:
        tensor (Tensor): each rank's contribution; the result on ``dst``.
        dst (int): the global rank that receives the result.
        op (str): a ReduceOp. Default: "sum".
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        async_op (bool): return a Work. Default: False.

    Returns:
        Work or None: a Work when ``async_op``, else None.

    Example::

        >>> x = genesis.ones(2, device="cuda")  # doctest: +SKIP
        >>> genesis.distributed.reduce(x, dst=0)  # doctest: +SKIP
    """
    name = "reduce"
    _check_tensor(tensor, name)
    op = reduction_name(op, name)
    g = _group(group, name)
    root = g._group_rank(dst, name)
    g._check_agreement(name, f"{dst} {op} {_signature(tensor)}")
    if g.rank() == root:
        output = tensor
    else:  # NCCL writes only the root's output; the others' tensors stay as they were
        output = genesis.empty_like(tensor)
    return _finish(_comm(g, name, tensor).reduce(tensor, output, op, root), g, async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers every rank's tensor into one output, in rank order, on every rank.

    The output holds ``world_size`` times the input's elements: either concatenated along the
    first dim (shape ``[world_size * n, ...]``) or stacked (``[world_size, n, ...]``).

    Args:
        output_tensor (Tensor): where the blocks land, contiguous.
        input_tensor (Tensor): this rank's block.
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        async_op (bool): return a Work. Default: False.

    Returns:
        Work or None: a Work when ``async_op``, else None.

    Example::

        >>> out = genesis.empty(2 * 3, device="cuda")  # doctest: +SKIP
        >>> genesis.distributed.all_gather_into_tensor(out, x)  # doctest: +SKIP
    """
    name = "all_gather_into_tensor"
    _check_tensor(output_tensor, name, "output_tensor")
    _check_tensor(input_tensor, name, "input_tensor", output_tensor)
    g = _group(group, name)
    g._check_agreement(name, _signature(input_tensor))
    handle = _comm(g, name, input_tensor).all_gather(input_tensor, output_tensor)
    return _finish(handle, g, async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gathers every rank's tensor into a list, on every rank.

    Args:
        tensor_list (list of Tensor): ``world_size`` tensors shaped like ``tensor`` (any layout,
            any CUDA device); entry r receives rank r's tensor.
        tensor (Tensor): this rank's tensor, contiguous, on the group's device.
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        async_op (bool): return a Work (the list is filled by its ``wait()``). Default: False.

    Returns:
        Work or None: a Work when ``async_op``, else None.

    Example::

        >>> out = [genesis.empty(3, device="cuda") for _ in range(2)]  # doctest: +SKIP
        >>> genesis.distributed.all_gather(out, x)  # doctest: +SKIP
    """
    name = "all_gather"
    _check_tensor(tensor, name)
    g = _group(group, name)
    if not isinstance(tensor_list, (list, tuple)) or len(tensor_list) != g.size():
        raise ValueError(f"[{name}] tensor_list must hold {g.size()} tensors (one per rank)")
    for t in tensor_list:
        if not isinstance(t, _Tensor) or t.shape != tensor.shape or t.dtype != tensor.dtype:
            raise ValueError(
                f"[{name}] every entry of tensor_list must be a tensor of shape "
                f"{list(tensor.shape)} and dtype {tensor.dtype}"
            )
    g._check_agreement(name, _signature(tensor))
    gathered = genesis.empty((g.size(), *tensor.shape), dtype=tensor.dtype, device=tensor.device)
    handle = _comm(g, name, tensor).all_gather(tensor, gathered)

    def scatter_into_list():
        for r, t in enumerate(tensor_list):
            t.copy_(gathered[r])

    return _finish(handle, g, async_op, scatter_into_list)


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):
    """Reduces a tensor across a group and gives rank r block r of the result.

    ``input`` holds ``world_size`` blocks of ``output``'s size (concatenated along the first dim
    or stacked).

    Args:
        output (Tensor): this rank's block of the result, contiguous.
        input (Tensor): the whole tensor to reduce, contiguous.
        op (str): a ReduceOp. Default: "sum".
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        async_op (bool): return a Work. Default: False.

    Returns:
        Work or None: a Work when ``async_op``, else None.

    Example::

        >>> x = genesis.ones(6, device="cuda")  # doctest: +SKIP
        >>> out = genesis.empty(3, device="cuda")  # doctest: +SKIP
        >>> genesis.distributed.reduce_scatter_tensor(out, x)  # doctest: +SKIP
    """
    name = "reduce_scatter_tensor"
    _check_tensor(output, name, "output")
    _check_tensor(input, name, "input", output)
    op = reduction_name(op, name)
    g = _group(group, name)
    g._check_agreement(name, f"{op} {_signature(input, output)}")
    return _finish(_comm(g, name, input).reduce_scatter(input, output, op), g, async_op)


def _splits(sizes, tensor, world, name, what):
    rows = tensor.shape[0] if tensor.dim() > 0 else 1
    row = tensor.numel() // rows if rows else 0
    if sizes is None:
        if rows % world:
            raise ValueError(
                f"[{name}] {what} has {rows} rows, which do not split evenly over {world} ranks; "
                "give the split sizes"
            )
        sizes = [rows // world] * world
    sizes = [int(s) for s in sizes]
    if len(sizes) != world or any(s < 0 for s in sizes) or sum(sizes) != rows:
        raise ValueError(
            f"[{name}] {what} split sizes {sizes} must be {world} non-negative numbers adding up "
            f"to its {rows} rows"
        )
    if tensor.numel() == 0:
        return [0] * world
    return [s * row for s in sizes]


def all_to_all_single(
    output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False
):
    """Sends block r of the input's rows to rank r and receives rank r's block into block r.

    Without split sizes every rank sends and receives equal blocks of the first dim.

    Args:
        output (Tensor): where the received rows land, contiguous.
        input (Tensor): the rows to send, contiguous.
        output_split_sizes (list of int, optional): rows received from each rank. Default: None
            (equal blocks).
        input_split_sizes (list of int, optional): rows sent to each rank. Default: None (equal
            blocks).
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        async_op (bool): return a Work. Default: False.

    Returns:
        Work or None: a Work when ``async_op``, else None.

    Example::

        >>> out = genesis.empty(4, device="cuda")  # doctest: +SKIP
        >>> genesis.distributed.all_to_all_single(out, x)  # doctest: +SKIP
    """
    name = "all_to_all_single"
    _check_tensor(output, name, "output")
    _check_tensor(input, name, "input", output)
    g = _group(group, name)
    send = _splits(input_split_sizes, input, g.size(), name, "input")
    recv = _splits(output_split_sizes, output, g.size(), name, "output")
    g._check_agreement(name, str(input.dtype))
    return _finish(_comm(g, name, input).all_to_all(input, output, send, recv), g, async_op)


def _peer(group, peer, name, tensor):
    g = _group(group, name)
    peer_rank = g._group_rank(peer, name)
    if peer_rank == g.rank():
        raise ValueError(f"[{name}] a rank cannot {name} to or from itself (rank {peer})")
    return g, _comm(g, name, tensor), peer_rank


def isend(tensor, dst, group=None, tag=0):
    """Starts sending a tensor to rank ``dst``, which must post a matching recv.

    Args:
        tensor (Tensor): the data, contiguous, on the group's device.
        dst (int): the global rank that receives.
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        tag (int): unused (NCCL matches sends and receives in order). Default: 0.

    Returns:
        Work: the send's handle.

    Example::

        >>> work = genesis.distributed.isend(x, dst=1)  # doctest: +SKIP
        >>> work.wait()  # doctest: +SKIP
        True
    """
    name = "send"
    _check_tensor(tensor, name)
    g, comm, peer = _peer(group, dst, name, tensor)
    return _finish(comm.send(tensor, peer), g, True)


def irecv(tensor, src=None, group=None, tag=0):
    """Starts receiving a tensor from rank ``src`` into ``tensor``.

    Args:
        tensor (Tensor): where the data lands, contiguous, the sender's shape and dtype.
        src (int): the global rank that sends (NCCL cannot receive from any rank). Default:
            None (raises ValueError).
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        tag (int): unused. Default: 0.

    Returns:
        Work: the receive's handle.

    Example::

        >>> work = genesis.distributed.irecv(x, src=0)  # doctest: +SKIP
        >>> work.wait()  # doctest: +SKIP
        True
    """
    name = "recv"
    _check_tensor(tensor, name)
    if src is None:
        raise ValueError(f"[{name}] NCCL needs the sending rank: give src")
    g, comm, peer = _peer(group, src, name, tensor)
    return _finish(comm.recv(tensor, peer), g, True)


def send(tensor, dst, group=None, tag=0):
    """Sends a tensor to rank ``dst``; the current stream is ordered after the send.

    Args:
        tensor (Tensor): the data, contiguous, on the group's device.
        dst (int): the global rank that receives.
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        tag (int): unused. Default: 0.

    Returns:
        None

    Example::

        >>> genesis.distributed.send(x, dst=1)  # doctest: +SKIP
    """
    isend(tensor, dst, group, tag).wait()


def recv(tensor, src=None, group=None, tag=0):
    """Receives a tensor from rank ``src`` into ``tensor``.

    Args:
        tensor (Tensor): where the data lands, contiguous, the sender's shape and dtype.
        src (int): the global rank that sends. Default: None (raises ValueError).
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        tag (int): unused. Default: 0.

    Returns:
        int: the sender's rank.

    Example::

        >>> genesis.distributed.recv(x, src=0)  # doctest: +SKIP
        0
    """
    irecv(tensor, src, group, tag).wait()
    return src


def barrier(group=None, async_op=False, device_ids=None):
    """Waits until every rank of a group reached the barrier (the host blocks).

    It is an all_reduce of one element on the group's device (``device_ids[0]``, else the
    device of the group's collectives so far, else ``rank % device_count()``), or through the
    store for a group without NCCL or a machine without a GPU ("gloo").

    Args:
        group (ProcessGroup, optional): the ranks. Default: None (the default group).
        async_op (bool): return a Work instead of blocking. Default: False.
        device_ids (list of int, optional): the device to use. Default: None.

    Returns:
        Work or None: a Work when ``async_op``, else None.

    Example::

        >>> genesis.distributed.barrier()  # doctest: +SKIP
    """
    name = "barrier"
    g = _group(group, name)
    if "gloo" in g._backends and ("nccl" not in g._backends or not genesis.cuda.device_count()):
        g._check_agreement(name, "")
        g._store_communicator(name).all_reduce(genesis.zeros(1), genesis.zeros(1), "sum")
        return Work(None, None, g) if async_op else None
    if device_ids:
        device = int(device_ids[0])
    elif g._comm:
        device = g._comm.device
    else:
        device = g.rank() % max(genesis.cuda.device_count(), 1)
    token = genesis.zeros(1, device=f"cuda:{device}")
    g._check_agreement(name, "")
    handle = g._communicator(device, name).all_reduce(token, token, "sum")
    work = Work(handle, None, g)
    if async_op:
        return work
    work.synchronize()
    return None


def _broadcast_coalesced(tensors, src, group=None):
    """Broadcasts tensors from global rank ``src``: one flat collective per dtype and device,
    copied back into each tensor (on ``src`` too, which is a copy of its own values). What
    DistributedDataParallel and ZeroRedundancyOptimizer use to sync parameters and buffers."""
    kinds = {}
    for t in tensors:
        kinds.setdefault((t.dtype, str(t.device)), []).append(t)
    with genesis.no_grad():
        for same in kinds.values():
            flat = genesis.cat([t.detach().reshape(-1) for t in same])
            broadcast(flat, src, group=group)
            offset = 0
            for t in same:
                t.copy_(flat[offset : offset + t.numel()].view(t.shape))
                offset += t.numel()
