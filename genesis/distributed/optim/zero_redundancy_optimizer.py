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
"""

import io

import genesis
import genesis.distributed as dist

from ...optim.optimizer import Optimizer
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


class ZeroRedundancyOptimizer(Optimizer):
    """Wraps an optimizer so that each rank keeps the state of its share of the parameters
    only (Note [Sharded optimizer state]), as torch.distributed.optim.ZeroRedundancyOptimizer.

    Every rank passes all the parameters; after ``step()`` every rank holds the same updated
    parameters, as with the plain optimizer on each rank, with 1/world_size of its state.

    Args:
        params (iterable): the parameters (tensors, or dicts of parameter groups).
        optimizer_class (type): the optimizer to wrap, such as ``genesis.optim.Adam``.
        process_group (ProcessGroup, optional): the ranks. Default: None (the default group).
        parameters_as_bucket_view (bool): unused (the broadcasts are flat already). Default:
            False.
        overlap_with_ddp (bool): not supported; must be False. Default: False.
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
        if overlap_with_ddp:
            raise ValueError(f"[{name}] overlap_with_ddp=True is not supported yet")
        if not isinstance(optimizer_class, type) or not issubclass(optimizer_class, Optimizer):
            raise TypeError(
                f"[{name}] optimizer_class must be a genesis.optim.Optimizer class, got "
                f"{optimizer_class!r}"
            )
        super().__init__(params, defaults)
        self.process_group = process_group
        self.world_size = dist.get_world_size(process_group)
        self.rank = dist.get_rank(process_group)
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._optim_constructor = optimizer_class
        self._owner = _partition(self.param_groups, self.world_size)
        first = self.param_groups[0]["params"]
        self._device = first[0].device if first else genesis.device("cpu")
        self.optim = optimizer_class(self._local_groups(), **defaults)
        self._consolidated = None

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
        """Steps this rank's share, then broadcasts every rank's updated parameters.

        Args:
            closure (Callable, optional): re-evaluates the model and returns the loss.
                Default: None.

        Returns:
            the closure's loss, or None.

        Example::

            >>> opt.step()  # doctest: +SKIP
        """
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
        super().add_param_group(param_group)
        if hasattr(self, "optim"):  # after construction: repartition and rebuild the local one
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


def _to_cpu(value):
    if isinstance(value, genesis.Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    return value
