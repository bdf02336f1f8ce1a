"""ZeroRedundancyOptimizer: each rank keeps the optimizer state of its share of the parameters.

Note [Sharded optimizer state]
An optimizer such as Adam keeps two tensors per parameter, twice the model's memory, on every
rank of data-parallel training. Here the parameters are partitioned over the ranks (each
group's parameters, largest first, go to the rank holding the fewest values so far, as torch's
ZeroRedundancyOptimizer does), and each rank builds the wrapped optimizer over its share only,
so the state is divided by the world size. ``step()`` steps the local optimizer (its fused
step, with the gradients DDP averaged), then each rank broadcasts the parameters it owns, one
flat tensor per rank, dtype and device, so every replica ends the step with the same values.
The options of ``param_groups`` (an LR scheduler's ``lr``) are copied to the local groups before
each step. ``state_dict()`` needs ``consolidate_state_dict(to)`` first, which gathers every
rank's shard on rank ``to`` (through the group, serialized by ``genesis.save``), as torch's.

Note [Overlapping the step with DDP]
With ``overlap_with_ddp=True`` the step runs inside backward, in the DistributedDataParallel
communication hook that ``hook_with_zero_step`` or ``hook_with_zero_step_interleaved``
(genesis.distributed.algorithms.ddp_comm_hooks.ddp_zero_hook) wrap around a hook such as
``allreduce_hook``, as torch's. The parameters are shared out by DDP bucket: bucket ``i`` to rank
``i % world_size``, or, with ``shard_buckets=True``, the buckets from the smallest up cut into
runs of consecutive parameters of about ``total / world_size`` values, each run to the rank
holding the fewest values so far (never two runs of one bucket to one rank). Once a bucket's
reduction is done (its future), its owner steps that bucket's parameters with the averaged
gradients in the bucket (``.grad`` holds them only when backward ends), and each run is
broadcast from its owner, so every replica holds the updated parameters when ``backward()``
returns. ``hook_with_zero_step`` steps every bucket when the last bucket's hook is called;
``hook_with_zero_step_interleaved`` chains each bucket's step to its future (``then``), which
runs when DDP waits for that bucket, in bucket order on every rank.
Warm-up, as torch: the bucketing is known only once DDP has rebuilt its buckets (from the
second iteration; torch's DDP with ``static_graph=True`` from the third, and genesis counts
the same). The hook records the buckets during that iteration and builds the local optimizer
at the start of the next backward, the first that updates anything: the first two iterations
(three with ``static_graph=True``) leave the parameters as they were, only averaging the
gradients. ``zero.step()`` does nothing in this mode but warn and return None (the closure is
not run); ``zero.optim`` does not exist before the first update, and ``state_dict``,
``consolidate_state_dict`` and ``load_state_dict`` raise RuntimeError until then.
Where genesis differs from torch: torch needs a functional optimizer (a list of eight); here
the local optimizer is ``optimizer_class`` itself, one group over this rank's parameters, and a
bucket's step is its ``step()`` with the group's ``params`` narrowed to the bucket's and their
``.grad`` set to the bucket's gradients for the call. Every genesis.optim optimizer keeps its
state per parameter, so stepping by buckets is one step; any of them but LBFGS (which needs a
closure) may be wrapped, and its step hooks run once per bucket. torch refuses the gloo backend
(its collectives may hang when broadcasts and all-reduces interleave); genesis issues them in
bucket order on every rank, and the CPU ones finish within the call, so gloo works. Several
parameter groups raise torch's RuntimeError at construction rather than at the first update;
the ``step()`` message is a UserWarning (torch logs it); a bucket that would be cut into more
runs than ranks keeps its rest in the last run (torch asserts); and with
``find_unused_parameters=True`` (where torch's DDP never reports rebuilt buckets, so the overlap
never starts) the warm-up is the same as without it.
"""

import io
import warnings

import genesis
import genesis.distributed as dist

from ...optim.optimizer import Optimizer, _GroupStepOptimizer
from .._collectives import _broadcast_coalesced
from .._store_comm import _from_bytes, _to_bytes


def _partition(groups, world):
    """owner[id(p)]: the rank of each parameter, torch's greedy assignment by size."""
    totals = [0] * world
    owner = {}
    for group in groups:
        for p in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
            rank = totals.index(min(totals))
            owner[id(p)] = rank
            totals[rank] += p.numel()
    return owner


def _assign_whole_buckets(bucket_params, world):
    """Per bucket, its runs ``(rank, offset, params)``: each bucket whole to rank i % world."""
    return [[(i % world, 0, list(params))] for i, params in enumerate(bucket_params)]


def _assign_sharded_buckets(bucket_params, world):
    """Per bucket, its runs ``(rank, offset, params)``, each run consecutive parameters of one
    bucket (Note [Overlapping the step with DDP]): buckets from the smallest, cut where a run
    would reach total / world values, each run to the least loaded rank not yet in the bucket."""
    sizes = [sum(p.numel() for p in params) for params in bucket_params]
    threshold = sum(sizes) / world
    load = [0] * world
    runs = [[] for _ in bucket_params]

    def give(b, start, stop, numel):
        used = {r for r, _, _ in runs[b]}
        rank = min((r for r in range(world) if r not in used), key=lambda r: load[r])
        runs[b].append((rank, start, list(bucket_params[b][start:stop])))
        load[rank] += numel

    for b in sorted(range(len(bucket_params)), key=lambda b: sizes[b]):
        start, numel = 0, 0
        for i, p in enumerate(bucket_params[b]):
            if i > start and numel + p.numel() >= threshold and len(runs[b]) < world - 1:
                give(b, start, i, numel)
                start, numel = i, 0
            numel += p.numel()
        give(b, start, len(bucket_params[b]), numel)
    return runs


class _Overlap:
    """What the optimizer keeps to step in DDP's hook (Note [Overlapping the step with DDP])."""

    def __init__(self):
        self.shard_buckets = False
        self.passes = 0  # the synchronized backward passes the hook has seen
        self.bucket_params = []  # DDP's buckets' parameters, recorded in the last warm-up pass
        self.runs = None  # per bucket its runs (rank, offset, params); None during the warm-up
        self.pending = {}  # bucket index -> (GradBucket, Future) of this pass, for the last one


class ZeroRedundancyOptimizer(Optimizer):
    """Wraps an optimizer so that each rank keeps the state of its share of the parameters
    only (Note [Sharded optimizer state]), as torch.distributed.optim.ZeroRedundancyOptimizer.

    Every rank passes all the parameters; after ``step()`` every rank holds the same updated
    parameters, as with the plain optimizer on each rank, with 1/world_size of its state. With
    ``overlap_with_ddp=True`` the step runs instead in DistributedDataParallel's backward,
    bucket by bucket, through a hook of ``ddp_comm_hooks.ddp_zero_hook``, after two warm-up
    iterations (three with ``static_graph=True``) that update nothing, as torch's (Note
    [Overlapping the step with DDP]).

    Args:
        params (iterable): the parameters (tensors, or dicts of parameter groups).
        optimizer_class (type): the optimizer to wrap, such as ``genesis.optim.Adam``.
        process_group (ProcessGroup, optional): the ranks. Default: None (the default group).
        parameters_as_bucket_view (bool): unused (the broadcasts are flat already). Default:
            False.
        overlap_with_ddp (bool): step inside DDP's backward through the hook that
            ``ddp_zero_hook.hook_with_zero_step`` (or ``_interleaved``) makes, sharing the
            parameters out by DDP bucket; ``step()`` then only warns. One parameter group, and
            any genesis.optim optimizer but LBFGS. Default: False.
        **defaults: the wrapped optimizer's options, such as ``lr``.

    Example::

        >>> import genesis.distributed as dist
        >>> from genesis.distributed.optim import ZeroRedundancyOptimizer
        >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        >>> w = genesis.nn.Parameter(genesis.ones(3))
        >>> opt = ZeroRedundancyOptimizer([w], genesis.optim.SGD, lr=0.5)
        >>> w.grad = genesis.ones(3)
        >>> opt.step()
        >>> w.tolist()
        [0.5, 0.5, 0.5]
        >>> dist.destroy_process_group()

    Overlapping the step with DDP's backward::

        >>> from genesis.distributed.algorithms.ddp_comm_hooks import ddp_zero_hook
        >>> from genesis.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
        >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        >>> ddp = genesis.nn.parallel.DistributedDataParallel(genesis.nn.Linear(2, 1))
        >>> zero = ZeroRedundancyOptimizer(
        ...     ddp.parameters(), genesis.optim.SGD, overlap_with_ddp=True, lr=0.5
        ... )
        >>> hook = ddp_zero_hook.hook_with_zero_step(allreduce_hook, ddp, zero)
        >>> ddp.register_comm_hook(None, hook)
        >>> before = ddp.module.bias.item()
        >>> for i in range(3):  # two warm-up iterations, then each backward steps
        ...     zero.zero_grad()
        ...     ddp(genesis.ones(1, 2)).sum().backward()
        ...     print(i, round(ddp.module.bias.item() - before, 4))
        0 0.0
        1 0.0
        2 -0.5
        >>> dist.destroy_process_group()
    """

    def __init__(
        self,
        params,
        optimizer_class,
        process_group=None,
        parameters_as_bucket_view=False,
        overlap_with_ddp=False,
        **defaults,
    ):
        name = "ZeroRedundancyOptimizer"
        if not isinstance(optimizer_class, type) or not issubclass(optimizer_class, Optimizer):
            raise TypeError(
                f"[{name}] optimizer_class must be a genesis.optim.Optimizer class, got "
                f"{optimizer_class!r}"
            )
        if overlap_with_ddp and not issubclass(optimizer_class, _GroupStepOptimizer):
            raise ValueError(
                f"[{name}] overlap_with_ddp=True steps the parameters bucket by bucket without "
                "a closure, which every genesis.optim optimizer but LBFGS can; got "
                f"{optimizer_class.__name__}"
            )
        self._overlap_with_ddp = bool(overlap_with_ddp)
        self._initialized = False  # add_param_group: Optimizer.__init__'s calls, or later ones
        super().__init__(params, defaults)
        self.process_group = process_group
        self.world_size = dist.get_world_size(process_group)
        self.rank = dist.get_rank(process_group)
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._optim_constructor = optimizer_class
        first = self.param_groups[0]["params"]
        self._device = first[0].device if first else genesis.device("cpu")
        if self._overlap_with_ddp:
            if len(self.param_groups) != 1:
                raise RuntimeError(
                    f"[{name}] overlap_with_ddp=True supports a single parameter group, got "
                    f"{len(self.param_groups)}"
                )
            self._overlap = _Overlap()  # the local optimizer comes after the warm-up
            self._owner = {}
        else:
            self._owner = _partition(self.param_groups, self.world_size)
            self.optim = optimizer_class(self._local_groups(), **defaults)
        self._consolidated = None
        self._initialized = True

    def _local_groups(self):
        return [
            {**{k: v for k, v in g.items() if k not in ("params", "param_names")},
             "params": [p for p in g["params"] if self._owner[id(p)] == self.rank]}
            for g in self.param_groups
        ]  # fmt: skip

    def _sync_options(self, source, target):
        for s, t in zip(source, target):
            for k, v in s.items():
                if k not in ("params", "param_names"):
                    t[k] = v

    def step(self, closure=None):
        """Steps this rank's share, then broadcasts every rank's updated parameters. With
        ``overlap_with_ddp=True`` DDP's hook steps instead, and this only warns and returns None
        (the closure is not run), as torch's (Note [Overlapping the step with DDP]).

        Args:
            closure (Callable, optional): re-evaluates the model and returns the loss.
                Default: None.

        Returns:
            the closure's loss, or None.

        Example::

            >>> opt.step()  # doctest: +SKIP
        """
        if self._overlap_with_ddp:
            warnings.warn(
                "[ZeroRedundancyOptimizer.step] `step()` should not be included in the training "
                "loop when `overlap_with_ddp=True`: DDP's hook steps the parameters",
                UserWarning,
                stacklevel=2,
            )
            return None
        self._sync_options(self.param_groups, self.optim.param_groups)
        loss = self.optim.step(closure) if closure is not None else self.optim.step()
        self._sync_options(self.optim.param_groups, self.param_groups)
        self._broadcast_parameters()
        return loss

    def _broadcast_parameters(self):
        for r in range(self.world_size):
            owned = [p for g in self.param_groups for p in g["params"] if self._owner[id(p)] == r]
            src = dist.get_global_rank(self.process_group, r)
            _broadcast_coalesced(owned, src, self.process_group)

    def add_param_group(self, param_group):
        """Adds a parameter group (every rank must add the same), repartitioning the shares.

        Args:
            param_group (dict): ``params`` and the options that differ from the defaults.

        Returns:
            None

        Example::

            >>> opt.add_param_group({"params": [b], "lr": 0.1})  # doctest: +SKIP
        """
        if self._initialized and self._overlap_with_ddp:
            raise RuntimeError(
                "[ZeroRedundancyOptimizer.add_param_group] overlap_with_ddp=True supports a "
                "single parameter group"
            )
        super().add_param_group(param_group)
        if self._initialized:  # after construction: repartition and rebuild the local one
            state = self.optim.state
            self._owner = _partition(self.param_groups, self.world_size)
            self.optim = self._optim_constructor(self._local_groups(), **self.defaults)
            for g in self.optim.param_groups:
                for p in g["params"]:
                    if p in state:
                        self.optim.state[p] = state[p]

    def _global_numbers(self):
        numbers, i = {}, 0
        for g in self.param_groups:
            for p in g["params"]:
                numbers.setdefault(id(p), i)
                i += 1
        return numbers

    def consolidate_state_dict(self, to=0):
        """Gathers every rank's share of the optimizer state on rank ``to`` (call it on every
        rank; then ``state_dict()`` on ``to`` returns the whole state).

        Args:
            to (int): the global rank that receives it. Default: 0.

        Returns:
            None

        Example::

            >>> opt.consolidate_state_dict(0)  # doctest: +SKIP
        """
        self._check_overlap_initialized("consolidate_state_dict")
        numbers = self._global_numbers()
        local = self.optim.state_dict()
        local_to_global = [
            numbers[id(p)] for g in self.optim.param_groups for p in g["params"]
        ]  # the local optimizer's numbering is its groups' order
        mine = {local_to_global[k]: v for k, v in local["state"].items()}
        shards = []
        for r in range(self.world_size):
            src = dist.get_global_rank(self.process_group, r)
            if r == self.rank:
                buffer = io.BytesIO()
                genesis.save({k: _to_cpu(v) for k, v in mine.items()}, buffer)
                raw = buffer.getvalue()
                payload = _from_bytes(raw, [len(raw)], genesis.uint8)
                size = genesis.tensor([payload.numel()], dtype=genesis.int64)
            else:
                size = genesis.zeros(1, dtype=genesis.int64)
            size = size.to(self._device)
            dist.broadcast(size, src, group=self.process_group)
            n = int(size.item())
            data = payload if r == self.rank else genesis.empty(n, dtype=genesis.uint8)
            data = data.to(self._device)
            dist.broadcast(data, src, group=self.process_group)
            if dist.get_rank() == to:
                shards.append(genesis.load(io.BytesIO(_to_bytes(data))))
        self._consolidated = None
        if dist.get_rank() == to:
            state = {}
            for shard in shards:
                state.update(shard)
            self._consolidated = dict(sorted(state.items()))

    def state_dict(self):
        """The whole optimizer state in the plain optimizer's layout (parameters numbered
        through the groups in order), on the rank that ``consolidate_state_dict`` gathered it
        on; RuntimeError elsewhere or before it.

        Returns:
            dict: ``{"state": ..., "param_groups": [...]}``.

        Example::

            >>> opt.consolidate_state_dict(0)  # doctest: +SKIP
            >>> opt.state_dict()  # doctest: +SKIP
        """
        self._check_overlap_initialized("state_dict")
        if self._consolidated is None:
            raise RuntimeError(
                "[ZeroRedundancyOptimizer.state_dict] call consolidate_state_dict(to) on every "
                f"rank first; then state_dict() on rank `to` (this is rank {dist.get_rank()})"
            )
        numbers = self._global_numbers()
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            packed["params"] = [numbers[id(p)] for p in g["params"]]
            groups.append(packed)
        return {"state": dict(self._consolidated), "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Loads a whole optimizer state (``state_dict()``'s, or the plain optimizer's): each
        rank keeps its share's.

        Args:
            state_dict (dict): the state.

        Returns:
            None

        Example::

            >>> opt.load_state_dict(saved)  # doctest: +SKIP
        """
        self._check_overlap_initialized("load_state_dict")
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(
                "[ZeroRedundancyOptimizer.load_state_dict] the state has "
                f"{len(saved_groups)} parameter groups, the optimizer {len(self.param_groups)}"
            )
        for g, s in zip(self.param_groups, saved_groups):
            for k, v in s.items():
                if k not in ("params", "param_names"):
                    g[k] = v
        numbers = self._global_numbers()
        saved_number = {}  # global number in this optimizer -> the state dict's key
        for g, s in zip(self.param_groups, saved_groups):
            for p, key in zip(g["params"], s["params"]):
                saved_number[numbers[id(p)]] = key
        local_state, local_groups, k = {}, [], 0
        for g in self.optim.param_groups:
            packed = {key: v for key, v in g.items() if key != "params"}
            packed["params"] = []
            for p in g["params"]:
                key = saved_number[numbers[id(p)]]
                if key in state_dict["state"]:
                    local_state[k] = state_dict["state"][key]
                packed["params"].append(k)
                k += 1
            local_groups.append(packed)
        self._sync_options(self.param_groups, local_groups)
        self.optim.load_state_dict({"state": local_state, "param_groups": local_groups})

    # --- overlapping with DDP (Note [Overlapping the step with DDP]) ---------------------------

    def _check_overlap_initialized(self, name):
        if self._overlap_with_ddp and self._overlap.runs is None:
            raise RuntimeError(
                f"[ZeroRedundancyOptimizer.{name}] with overlap_with_ddp=True the local optimizer "
                "is built in DDP's hook after the warm-up iterations (two, three with "
                "static_graph=True); this was called before"
            )

    def _overlap_ready(self, ddp, bucket):
        """Called by the hook for each bucket: whether this pass steps. Counts the passes,
        records DDP's final buckets in the last warm-up pass and builds the local optimizer at
        the first bucket of the next."""
        state = self._overlap
        index = bucket.index()
        if index == 0:
            state.passes += 1
        if state.runs is not None:
            return True
        final_from = 3 if ddp.static_graph else 2  # the pass from which torch's DDP has rebuilt
        if not ddp._rebuilt or state.passes < final_from:
            return False
        if index == 0 and state.bucket_params:
            self._build_overlap()
            return True
        state.bucket_params.append(bucket.parameters())
        return False

    def _build_overlap(self):
        state = self._overlap
        mine = {id(p) for p in self.param_groups[0]["params"]}
        for i, params in enumerate(state.bucket_params):
            if any(id(p) not in mine for p in params):
                raise ValueError(
                    f"[ZeroRedundancyOptimizer] DDP's bucket {i} holds a parameter that this "
                    "optimizer was not given"
                )
        assign = _assign_sharded_buckets if state.shard_buckets else _assign_whole_buckets
        state.runs = assign(state.bucket_params, self.world_size)
        self._owner = {id(p): r for runs in state.runs for r, _, ps in runs for p in ps}
        local = [p for runs in state.runs for r, _, ps in runs if r == self.rank for p in ps]
        options = {
            k: v for k, v in self.param_groups[0].items() if k not in ("params", "param_names")
        }
        self.optim = self._optim_constructor([{**options, "params": local}], **self.defaults)

    def _overlap_step(self, bucket, reduced):
        """Once a bucket's reduction is done (``reduced``: its future's value): this rank steps
        its runs of the bucket with the averaged gradients, then each run is broadcast from its
        owner."""
        runs = self._overlap.runs[bucket.index()]
        if isinstance(reduced, genesis.Tensor) and reduced is not bucket.buffer():
            bucket.set_buffer(reduced)  # a hook's own flat result
        gradients = bucket.gradients()
        for rank, offset, params in runs:
            if rank == self.rank:
                self._step_some(params, gradients[offset : offset + len(params)])
        for rank, _, params in sorted(runs, key=lambda run: run[0]):
            src = dist.get_global_rank(self.process_group, rank)
            _broadcast_coalesced(params, src, self.process_group)

    def _step_some(self, params, gradients):
        """The local optimizer's step over ``params`` only, with ``gradients`` as their grads."""
        group = self.optim.param_groups[0]
        everything, grads = group["params"], [p.grad for p in params]
        self._sync_options(self.param_groups, self.optim.param_groups)
        try:
            group["params"] = list(params)
            for p, g in zip(params, gradients):
                p.grad = g
            self.optim.step()
        finally:
            group["params"] = everything
            for p, g in zip(params, grads):
                p.grad = g
        self._sync_options(self.optim.param_groups, self.param_groups)


def _to_cpu(value):
    if isinstance(value, genesis.Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    return value
