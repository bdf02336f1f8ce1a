"""DistributedDataParallel: one model replica per process, gradients averaged over the ranks.

Note [Gradient buckets]
The parameters that require grad are put into buckets in reverse registration order (roughly
the order backward produces their gradients), each bucket one flat buffer of one dtype and
device holding up to ``bucket_cap_mb`` (the first bucket 1 MiB, so communication starts early),
as torch's DDP does. A post-accumulate-grad hook on each parameter copies its gradient into its
bucket slot (nothing to copy when ``.grad`` already is that slot: ``gradient_as_bucket_view``)
and marks it ready; a bucket whose parameters are all ready is divided by the world size and
all-reduced asynchronously, so communication overlaps the rest of backward. Buckets are started
strictly in bucket order (a ready bucket waits for the ones before it), because every rank must
issue its collectives in the same order. When the last bucket has started, the reduction is
finished within backward: the works are waited for and the averaged values land in ``.grad``.
After the first iteration the buckets are rebuilt once in the order the gradients really came
(rank 0's order, broadcast, so all ranks agree), unless the graph may change
(``find_unused_parameters``) or uneven inputs are being joined.

Note [Unused parameters]
A parameter that took no part in the loss gets no gradient, so its bucket would never be ready.
With ``find_unused_parameters=True`` the forward pass walks the autograd graph of its outputs,
and every parameter it does not reach is marked ready at once with a zero slot; a count of the
ranks that used each parameter is all-reduced with the last bucket, and a parameter no rank used
keeps its ``.grad`` as it was (None), as in torch. ``static_graph=True`` walks the graph in the
first iteration only and reuses what it found. Without either, the next forward after an
incomplete reduction raises RuntimeError naming the parameters that got no gradient.

Note [Communication hooks]
``register_comm_hook(state, hook)`` replaces how a ready bucket is averaged: instead of dividing
it by the world size and all-reducing it, DDP calls ``hook(state, bucket)`` with a GradBucket
(its index, flat buffer, gradients and parameters) and keeps the genesis.futures.Future it
returns; when the reduction finishes, the future's tensor (the bucket's own buffer, or another
flat tensor of its size) is what lands in ``.grad``. The hook must average (torch's default
hooks in genesis.distributed.algorithms.ddp_comm_hooks do: an all-reduce, or one of a float16
or bfloat16 copy), and every rank must register the same hook.

Note [Joining uneven inputs]
Inside ``with ddp.join():`` every forward pass first all-reduces which ranks are still active.
A rank whose inputs ran out leaves the ``with`` body and, on exit, keeps answering the others'
collectives (the activity vote, the buffer broadcast, each bucket with zeros, the unused count)
until no rank is active, so the ranks that still have data never wait for one that stopped.
Gradients are divided by the initial world size (or by the active ranks' count when
``divide_by_initial_world_size=False``), and buffers come from the highest active rank.
"""

import contextlib
import zlib

import genesis
import genesis.distributed as dist

from ...distributed._collectives import _broadcast_coalesced
from ..modules.module import Module

_FIRST_BUCKET_BYTES = 1 << 20


def _key(t):
    """An identity of a tensor's memory that does not export its address (data_ptr() would mark
    the storage shared: Note [Write versions])."""
    return (t.untyped_storage()._cdata, t.storage_offset())


class _Bucket:
    """One flat buffer of one dtype and device and the parameters whose slots it holds."""

    def __init__(self, indices, params):
        self.indices = list(indices)
        first = params[self.indices[0]]
        numels = [params[i].numel() for i in self.indices]
        self.buffer = genesis.zeros(sum(numels), dtype=first.dtype, device=first.device)
        self.views = []
        offset = 0
        for i, n in zip(self.indices, numels):
            self.views.append(self.buffer[offset : offset + n].view(params[i].shape))
            offset += n
        self.pending = 0
        self.work = None


class GradBucket:
    """A bucket of gradients as a communication hook sees it (Note [Communication hooks]), as
    torch.distributed.GradBucket.

    Args:
        index (int): the bucket's number (buckets are reduced in that order).
        bucket (_Bucket): DDP's bucket.
        params (list of Tensor): DDP's parameters.
        last (bool): whether it is the last bucket of the iteration.

    Example::

        >>> def hook(state, bucket):  # doctest: +SKIP
        ...     return default_hooks.allreduce_hook(state, bucket)
    """

    def __init__(self, index, bucket, params, last):
        self._index = index
        self._bucket = bucket
        self._params = params
        self._last = last

    def index(self):
        """The bucket's number.

        Returns:
            int: it.

        Example::

            >>> bucket.index()  # doctest: +SKIP
            0
        """
        return self._index

    def buffer(self):
        """The flat tensor of the bucket's gradients (what a hook reduces).

        Returns:
            Tensor: the buffer.

        Example::

            >>> bucket.buffer().shape  # doctest: +SKIP
            genesis.Size([1024])
        """
        return self._bucket.buffer

    def set_buffer(self, buffer):
        """Replaces the bucket's values with ``buffer``'s (same size).

        Args:
            buffer (Tensor): a flat tensor of the bucket's size.

        Returns:
            None

        Example::

            >>> bucket.set_buffer(bucket.buffer() * 2)  # doctest: +SKIP
        """
        with genesis.no_grad():
            self._bucket.buffer.copy_(buffer)

    def gradients(self):
        """The gradients in the bucket, each a view of its slot in the buffer.

        Returns:
            list of Tensor: in the bucket's order.

        Example::

            >>> len(bucket.gradients()) == len(bucket.parameters())  # doctest: +SKIP
            True
        """
        return list(self._bucket.views)

    def parameters(self):
        """The parameters whose gradients the bucket holds.

        Returns:
            list of Tensor: in the bucket's order.

        Example::

            >>> bucket.parameters()[0].shape  # doctest: +SKIP
        """
        return [self._params[i] for i in self._bucket.indices]

    def is_last(self):
        """Whether this is the last bucket of the iteration.

        Returns:
            bool: it.

        Example::

            >>> bucket.is_last()  # doctest: +SKIP
            False
        """
        return self._last


def _assign_buckets(order, params, cap_bytes):
    """Buckets of the parameters `order` lists, in that order: one per (dtype, device) run, each
    closed once it holds `cap_bytes` (the first of each kind 1 MiB)."""
    buckets, open_ = [], {}
    for i in order:
        p = params[i]
        kind = (p.dtype, str(p.device))
        entry = open_.setdefault(kind, {"indices": [], "bytes": 0, "first": True})
        entry["indices"].append(i)
        entry["bytes"] += p.numel() * p.element_size()
        limit = min(_FIRST_BUCKET_BYTES, cap_bytes) if entry["first"] else cap_bytes
        if entry["bytes"] >= limit:
            buckets.append(entry["indices"])
            open_[kind] = {"indices": [], "bytes": 0, "first": False}
    buckets.extend(e["indices"] for e in open_.values() if e["indices"])
    return buckets


class DistributedDataParallel(Module):
    """Runs a module on each rank and averages its gradients over the ranks in backward, as
    torch.nn.parallel.DistributedDataParallel.

    Every rank builds the same model; at construction the parameters and buffers of rank 0 are
    broadcast to all. In backward the gradients are all-reduced in buckets as they become ready,
    overlapping the rest of backward (Note [Gradient buckets]), so after ``loss.backward()``
    every rank holds the same averaged ``.grad`` and the same optimizer step keeps the replicas
    equal. ``no_sync()`` accumulates gradients locally (gradient accumulation), ``join()`` lets
    ranks run out of inputs at different times (Note [Joining uneven inputs]), and
    ``find_unused_parameters`` handles parameters the loss does not reach (Note [Unused
    parameters]). ``state_dict()`` has the keys of the module under ``module.``, as torch's
    (``genesis.nn.modules.utils.consume_prefix_in_state_dict_if_present`` strips them).

    Args:
        module (Module): the model, its parameters on this rank's device.
        device_ids (list of int, optional): ``[i]`` for a model on cuda:i, None for the CPU.
            Default: None.
        output_device (int, optional): unused (the outputs stay where the module puts them).
            Default: None.
        dim (int): unused (each rank runs its own batch). Default: 0.
        broadcast_buffers (bool): broadcast the buffers (such as batch norm's running stats)
            from rank 0 before each forward. Default: True.
        init_sync (bool): broadcast the parameters and buffers at construction. Default: True.
        process_group (ProcessGroup, optional): the ranks. Default: None (the default group).
        bucket_cap_mb (float, optional): the bucket size in MiB. Default: None (25).
        find_unused_parameters (bool): find the parameters each forward does not use. Default:
            False.
        check_reduction (bool): unused, for torch's signature. Default: False.
        gradient_as_bucket_view (bool): make each ``.grad`` a view of its bucket slot, which
            saves the copies in and out of the buckets and the memory of a second copy of the
            gradients. Default: False.
        static_graph (bool): the set of used parameters is the same every iteration. Default:
            False.

    Example::

        >>> import genesis.distributed as dist
        >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        >>> model = genesis.nn.parallel.DistributedDataParallel(genesis.nn.Linear(4, 2))
        >>> model(genesis.ones(3, 4)).sum().backward()
        >>> model.module.weight.grad.shape
        genesis.Size([2, 4])
        >>> dist.destroy_process_group()
    """

    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=True,
        init_sync=True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
    ):
        super().__init__()
        name = "DistributedDataParallel"
        if not isinstance(module, Module):
            raise TypeError(f"[{name}] module must be a genesis.nn.Module, got {type(module)}")
        if not dist.is_initialized():
            raise RuntimeError(
                f"[{name}] the default process group is not initialized; call "
                "genesis.distributed.init_process_group first"
            )
        self.module = module
        self.process_group = process_group
        self._world = dist.get_world_size(process_group)
        self._rank = dist.get_rank(process_group)
        self._global_src = dist.get_global_rank(process_group, 0)
        params = [p for p in module.parameters() if p.requires_grad]
        devices = {str(p.device) for p in params}
        if len(devices) > 1:
            raise ValueError(
                f"[{name}] the module's parameters are on several devices {sorted(devices)}; "
                "DistributedDataParallel takes a module on one device"
            )
        if device_ids is not None:
            device_ids = [getattr(d, "index", d) for d in device_ids]
            if len(device_ids) != 1 or devices - {f"cuda:{device_ids[0]}"}:
                raise ValueError(
                    f"[{name}] device_ids must be [i] for a module on cuda:i (or None for the "
                    f"CPU); got {device_ids} for parameters on {sorted(devices)}"
                )
        self.device_ids = device_ids
        # the device of the small tensors of votes and counts (NCCL needs them on the GPU)
        self._device = params[0].device if params else genesis.device("cpu")
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = bool(find_unused_parameters)
        self.gradient_as_bucket_view = bool(gradient_as_bucket_view)
        self.static_graph = bool(static_graph)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        cap = 25.0 if bucket_cap_mb is None else float(bucket_cap_mb)
        if cap <= 0:
            raise ValueError(f"[{name}] bucket_cap_mb must be positive, got {bucket_cap_mb}")
        self._cap_bytes = int(cap * (1 << 20))
        self._params = params
        self._param_names = {_key(p): n for n, p in module.named_parameters() if p.requires_grad}
        self._verify_same_model(name)
        if init_sync:
            self._sync_module_states()
        self._build_buckets(list(reversed(range(len(params)))))
        self._hooks = [
            p.register_post_accumulate_grad_hook(self._make_hook(i)) for i, p in enumerate(params)
        ]
        self._expect_reduction = False  # a forward prepared backward, whose reduction is due
        self._ready_order = []  # the first iteration's order, for the rebuild
        self._rebuilt = False
        self._static_unused = None
        self._join = None  # the join state while a join() context is entered
        self._comm_hook = None  # (state, hook): Note [Communication hooks]

    # --- construction -------------------------------------------------------------------------

    def _group(self):
        return self.process_group

    def _verify_same_model(self, name):
        """Every rank must hold the same parameters: counts and shapes are compared at once."""
        if self._world == 1:
            return
        shapes = [tuple(p.shape) for p in self._params]
        numel = sum(p.numel() for p in self._params)
        signature = [len(shapes), numel, zlib.crc32(repr(shapes).encode())]
        low = genesis.tensor(signature, dtype=genesis.int64, device=self._device)
        high = low.clone()
        dist.all_reduce(low, op="min", group=self._group())
        dist.all_reduce(high, op="max", group=self._group())
        if not genesis.equal(low, high):
            raise RuntimeError(
                f"[{name}] the ranks hold different models: this rank (rank {self._rank}) has "
                f"{signature[0]} parameters with {signature[1]} values, and the ranks' counts "
                f"range over {low.tolist()[:2]}..{high.tolist()[:2]}"
            )

    def _sync_module_states(self):
        if self._world == 1:
            return
        states = list(self.module.parameters()) + list(self.module.buffers())
        _broadcast_coalesced([t for t in states if t.numel() > 0], self._global_src, self._group())

    def _build_buckets(self, order):
        self._buckets = [_Bucket(b, self._params) for b in _assign_buckets(
            order, self._params, self._cap_bytes)]  # fmt: skip
        self._bucket_of = {}
        for b, bucket in enumerate(self._buckets):
            for slot, i in enumerate(bucket.indices):
                self._bucket_of[i] = (b, slot)
        if self.gradient_as_bucket_view:
            with genesis.no_grad():
                for bucket in self._buckets:
                    for i, view in zip(bucket.indices, bucket.views):
                        p = self._params[i]
                        if p.grad is not None:
                            view.copy_(p.grad)
                            p.grad = view

    # --- forward ------------------------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        sync = genesis.is_grad_enabled() and self.require_backward_grad_sync
        if sync:
            self._check_previous_reduction()
            self._rebuild_buckets()
        active = self._join_vote(True) if self._join is not None else None
        if self.broadcast_buffers and self.require_forward_param_sync:
            self._sync_buffers(active)
        out = self.module(*inputs, **kwargs)
        if sync:
            self._prepare_for_backward(out)
        return out

    def _sync_buffers(self, active):
        buffers = [b for b in self.module.buffers() if b.numel() > 0]
        if not buffers or self._world == 1:
            return
        src = self._global_src if active is None else dist.get_global_rank(
            self._group(), max(active))  # fmt: skip
        _broadcast_coalesced(buffers, src, self._group())

    def _check_previous_reduction(self):
        if not self._expect_reduction:
            return
        missing = [i for i, p in enumerate(self._params) if not self._ready[i]]
        self._expect_reduction = False
        if missing:
            names = ", ".join(self._param_names.get(_key(self._params[i]), "?") for i in missing)
            raise RuntimeError(
                "[DistributedDataParallel] Expected to have finished reduction in the prior "
                "iteration before starting a new one. This error indicates that your module has "
                "parameters that were not used in producing loss. You can enable unused "
                "parameter detection by passing the keyword argument "
                "`find_unused_parameters=True` to DistributedDataParallel. Parameter indices "
                f"which did not receive grad for rank {self._rank}: "
                f"{' '.join(str(i) for i in missing)} ({names})"
            )

    def _rebuild_buckets(self):
        """Once, after the first iteration: buckets in the order gradients came (rank 0's)."""
        if self._rebuilt or not self._ready_order:
            return
        self._rebuilt = True
        if self.find_unused_parameters or self._join is not None:
            return
        order = genesis.tensor(self._ready_order, dtype=genesis.int64, device=self._device)
        if order.numel() != len(self._params):
            return  # every rank sees the same count: all return here together
        if self._world > 1:
            dist.broadcast(order, self._global_src, group=self._group())
        order = order.tolist()
        if order != [i for b in self._buckets for i in b.indices]:
            self._build_buckets(order)

    def _prepare_for_backward(self, out):
        self._ready = [False] * len(self._params)
        self._used = [True] * len(self._params)
        for bucket in self._buckets:
            bucket.pending = len(bucket.indices)
            bucket.work = None
        self._next_bucket = 0
        self._expect_reduction = True
        self._divisor = self._world
        if self._join is not None and not self._join["initial"]:
            self._divisor = max(1, self._join["active_count"])
        unused = self._unused_parameters(out)
        for i in unused:
            self._used[i] = False
        for i in unused:
            self._mark_ready(i)

    def _unused_parameters(self, out):
        if not (self.find_unused_parameters or self.static_graph):
            return []
        if self.static_graph and self._static_unused is not None:
            return self._static_unused
        reached, seen, stack = set(), {}, []  # seen holds the nodes: their ids stay theirs
        for t in _tensors_in(out):
            if t.grad_fn is not None:
                stack.append(t.grad_fn)
            elif t.requires_grad:
                reached.add(_key(t))
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen[id(node)] = node
            leaf = node.variable
            if leaf is not None:
                reached.add(_key(leaf))
            stack.extend(n for n, _ in node.next_functions if n is not None)
        unused = [i for i, p in enumerate(self._params) if _key(p) not in reached]
        if self.static_graph:
            self._static_unused = unused
        return unused

    # --- backward -----------------------------------------------------------------------------

    def _make_hook(self, i):
        def hook(_):
            if self.require_backward_grad_sync and self._expect_reduction:
                self._mark_ready(i)

        return hook

    def _mark_ready(self, i):
        if self._ready[i]:
            return  # a second gradient in one backward (a parameter used twice is one call)
        self._ready[i] = True
        if not self._rebuilt:
            self._ready_order.append(i)
        b, slot = self._bucket_of[i]
        bucket = self._buckets[b]
        p, view = self._params[i], bucket.views[slot]
        with genesis.no_grad():
            if not self._used[i] or p.grad is None:
                view.zero_()
            elif not _same_memory(p.grad, view):
                view.copy_(p.grad)
                if self.gradient_as_bucket_view:
                    p.grad = view
        bucket.pending -= 1
        while self._next_bucket < len(self._buckets):
            bucket = self._buckets[self._next_bucket]
            if bucket.pending > 0:
                return
            if self._comm_hook is not None:
                state, hook = self._comm_hook
                last = self._next_bucket == len(self._buckets) - 1
                bucket.work = hook(state, GradBucket(self._next_bucket, bucket, self._params, last))
            else:
                bucket.buffer.div_(self._divisor)
                bucket.work = dist.all_reduce(bucket.buffer, group=self._group(), async_op=True)
            self._next_bucket += 1
        self._finish_reduction()

    def _finish_reduction(self):
        """Every bucket started: wait for them and put the averages into .grad."""
        used = None
        if self.find_unused_parameters or self.static_graph:
            used = _used_counts(self._used, self._device, self._group())
        with genesis.no_grad():
            for bucket in self._buckets:
                reduced = bucket.work.wait()
                bucket.work = None
                if self._comm_hook is not None and reduced is not bucket.buffer:
                    bucket.buffer.copy_(reduced)  # a hook's own flat result
                for i, view in zip(bucket.indices, bucket.views):
                    p = self._params[i]
                    if used is not None and used[i] == 0:
                        continue  # no rank used it: its .grad stays as it was
                    if self.gradient_as_bucket_view:
                        p.grad = view
                    elif p.grad is None or _same_memory(p.grad, view):
                        p.grad = view.clone()
                    else:
                        p.grad.copy_(view)
        self._expect_reduction = False

    def register_comm_hook(self, state, hook):
        """Replaces how a ready bucket of gradients is averaged (Note [Communication hooks]).

        Args:
            state: passed to the hook as its first argument (torch's default hooks take the
                process group, None for the default one).
            hook (callable): ``hook(state, bucket)`` taking a GradBucket and returning a
                genesis.futures.Future of the averaged flat tensor.

        Returns:
            None

        Example::

            >>> import genesis.distributed as dist
            >>> from genesis.distributed.algorithms.ddp_comm_hooks import default_hooks
            >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
            >>> ddp = genesis.nn.parallel.DistributedDataParallel(genesis.nn.Linear(2, 1))
            >>> ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
            >>> ddp(genesis.ones(1, 2)).sum().backward()
            >>> ddp.module.bias.grad.tolist()
            [1.0]
            >>> dist.destroy_process_group()
        """
        name = "DistributedDataParallel.register_comm_hook"
        if not callable(hook):
            raise TypeError(f"[{name}] hook must be callable, got {type(hook).__name__}")
        if self._comm_hook is not None:
            raise RuntimeError(f"[{name}] a communication hook is registered already")
        if self._ready_order or self._expect_reduction:
            raise RuntimeError(f"[{name}] register the hook before the first backward")
        self._comm_hook = (state, hook)

    # --- gradient accumulation and uneven inputs ----------------------------------------------

    @contextlib.contextmanager
    def no_sync(self):
        """A context in which backward accumulates gradients locally, without communication.

        The first backward after it (outside) all-reduces the accumulated gradients.

        Returns:
            a context manager.

        Example::

            >>> import genesis.distributed as dist
            >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
            >>> ddp = genesis.nn.parallel.DistributedDataParallel(genesis.nn.Linear(2, 1))
            >>> with ddp.no_sync():
            ...     ddp(genesis.ones(1, 2)).sum().backward()
            >>> ddp(genesis.ones(1, 2)).sum().backward()  # synchronizes both
            >>> ddp.module.bias.grad.tolist()
            [2.0]
            >>> dist.destroy_process_group()
        """
        before = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = before

    @contextlib.contextmanager
    def join(
        self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False
    ):
        """A context for training loops whose ranks have different numbers of inputs.

        Each rank runs its own loop inside it; a rank that finished keeps answering the others'
        collectives until every rank finished (Note [Joining uneven inputs]).

        Args:
            divide_by_initial_world_size (bool): average gradients over the initial world size
                even when fewer ranks are active; else over the active ranks. Default: True.
            enable (bool): False makes the context do nothing. Default: True.
            throw_on_early_termination (bool): raise RuntimeError on every rank as soon as one
                rank ran out of inputs, instead of going on. Default: False.

        Returns:
            a context manager.

        Example::

            >>> import genesis.distributed as dist
            >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
            >>> ddp = genesis.nn.parallel.DistributedDataParallel(genesis.nn.Linear(2, 1))
            >>> with ddp.join():
            ...     for _ in range(3):
            ...         ddp(genesis.ones(1, 2)).sum().backward()
            >>> dist.destroy_process_group()
        """
        if not enable:
            yield
            return
        self._join = {
            "initial": bool(divide_by_initial_world_size),
            "throw": bool(throw_on_early_termination),
            "active_count": self._world,
        }
        try:
            yield
            self._join_shadow()
        finally:
            self._join = None

    def _join_vote(self, active):
        """One round of the activity vote: the group ranks still active."""
        vote = genesis.zeros(self._world, dtype=genesis.int64, device=self._device)
        if active:
            vote[self._rank] = 1
        dist.all_reduce(vote, group=self._group())
        ranks = [r for r, v in enumerate(vote.tolist()) if v]
        self._join["active_count"] = len(ranks)
        if self._join["throw"] and 0 < len(ranks) < self._world:
            raise RuntimeError(
                f"[DistributedDataParallel.join] rank {self._rank}: ranks "
                f"{sorted(set(range(self._world)) - set(ranks))} ran out of inputs "
                "(throw_on_early_termination=True)"
            )
        return ranks

    def _join_shadow(self):
        """After this rank's inputs ran out: answer the active ranks' collectives until none
        is left."""
        while True:
            active = self._join_vote(False)
            if not active:
                return
            if self.broadcast_buffers and self.require_forward_param_sync:
                self._sync_buffers(active)
            self._shadow_backward(active)

    def _shadow_backward(self, active):
        for b, bucket in enumerate(self._buckets):
            bucket.buffer.zero_()
            if self._comm_hook is not None:  # the same collectives as the active ranks'
                state, hook = self._comm_hook
                last = b == len(self._buckets) - 1
                hook(state, GradBucket(b, bucket, self._params, last)).wait()
            else:
                dist.all_reduce(bucket.buffer, group=self._group())
        if self.find_unused_parameters or self.static_graph:
            _used_counts([False] * len(self._params), self._device, self._group())


def _same_memory(a, b):
    return _key(a) == _key(b) and a.shape == b.shape and a.stride() == b.stride()


def _used_counts(used, device, group):
    counts = genesis.tensor([1 if u else 0 for u in used], dtype=genesis.int32, device=device)
    dist.all_reduce(counts, group=group)
    return counts.tolist()


def _tensors_in(value):
    """The tensors in a forward's output (nested tuples, lists and dicts)."""
    if isinstance(value, genesis.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors_in(v)
