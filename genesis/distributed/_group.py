"""Process groups: who takes part, their store, and their communicators (NCCL, the store's).

Note [Process groups]
A process group is a set of global ranks with a store (the rendezvous's, under a prefix of the
group's own) and, once a collective needs it, one NCCL communicator on one CUDA device: the
device of the first tensor the group communicates (or ``rank % device_count()`` for a barrier
before any). The communicator is made lazily, as PyTorch does, so ``init_process_group`` never
touches a GPU: the group's rank 0 asks NCCL for a unique id, publishes it in the store, and
every member builds its communicator from it (NCCL blocks until all have). Groups are named by
creation order, which is why every rank must call ``new_group`` in the same order, with the
same ranks, even the ranks left out (PyTorch's rule too).

With ``GENESIS_DISTRIBUTED_DEBUG=DETAIL`` in the environment at ``init_process_group``, every
collective first exchanges its name, shape and dtype through the store and raises on every rank
when they disagree, instead of hanging inside NCCL; a rank that does not arrive within the
group's timeout raises too. This costs a store round trip per collective, so it is off by
default.
"""

import datetime
import os
import threading

from .. import _C
from . import _nccl
from ._store import DistStoreError, PrefixStore
from ._store_comm import StoreCommunicator


class ReduceOp:
    """The reductions of all_reduce, reduce and reduce_scatter_tensor, as torch.distributed's.

    ``SUM``, ``PRODUCT``, ``MIN``, ``MAX`` and ``AVG`` (floating-point tensors only). The
    collectives also take the lower-case names as strings. On bool tensors SUM is a logical or
    and PRODUCT a logical and.

    Example::

        >>> genesis.distributed.ReduceOp.SUM
        'sum'
    """

    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    AVG = "avg"


_REDUCTIONS = {"sum", "product", "min", "max", "avg"}


def reduction_name(op, name):
    if isinstance(op, str) and op.lower() in _REDUCTIONS:
        return op.lower()
    raise ValueError(f"[{name}] unknown reduction {op!r}; expected a genesis.distributed.ReduceOp")


class Work:
    """The handle of a collective started with ``async_op=True``.

    ``wait()`` makes the caller's current CUDA stream wait for the collective (the host does not
    block, as with torch.distributed's NCCL work); ``synchronize()`` blocks the host until it
    finished; ``is_completed()`` asks without waiting. Made by the collectives, not by users.

    Args:
        handle (genesis._C._distributed.NcclWork): the collective's completion (None: done).
        after (callable, optional): what ``wait()`` does next, such as filling all_gather's list.
            Default: None.
        group (ProcessGroup, optional): the group, for ``is_success()``. Default: None.
        result (list of Tensor, optional): the output tensors, for ``get_future()``. Default:
            None.

    Example::

        >>> work = genesis.distributed.all_reduce(x, async_op=True)  # doctest: +SKIP
        >>> work.wait()  # doctest: +SKIP
        True
    """

    def __init__(self, handle, after=None, group=None, result=None):
        self._handle = handle
        self._after = after
        self._group = group
        self._result = result

    def get_future(self):
        """A genesis.futures.Future of the collective's output tensors (``[tensor]`` for
        all_reduce and broadcast), set by its ``wait()``.

        Returns:
            genesis.futures.Future: the future.

        Example::

            >>> genesis.distributed.Work(None, result=[1]).get_future().wait()
            [1]
        """
        from ..futures import Future

        fut = Future()
        fut._waiter = lambda: (self.wait(), self._result)[1]
        return fut

    def wait(self, timeout=None):
        """Orders the caller's current stream after the collective; finishes its results.

        Args:
            timeout (datetime.timedelta, optional): unused, for torch's signature. Default: None.

        Returns:
            bool: True.

        Example::

            >>> genesis.distributed.Work(None).wait()
            True
        """
        if self._handle is not None:
            self._handle.wait()
        if self._after is not None:
            after, self._after = self._after, None
            after()
        return True

    def synchronize(self):
        """Blocks the host until the collective finished on the GPU.

        Returns:
            None

        Example::

            >>> genesis.distributed.Work(None).synchronize()
        """
        self.wait()
        if self._handle is not None:
            self._handle.synchronize()

    def is_completed(self):
        """Tells, without waiting, whether the collective finished on the GPU.

        Returns:
            bool: True once it finished.

        Example::

            >>> genesis.distributed.Work(None).is_completed()
            True
        """
        return self._handle is None or self._handle.completed()

    def is_success(self):
        """True unless NCCL reported an asynchronous error (a peer failed).

        Returns:
            bool: whether the group's communicator is healthy.

        Example::

            >>> genesis.distributed.Work(None).is_success()
            True
        """
        return self._group is None or self._group._async_error() == ""


class ProcessGroup:
    """A set of ranks that run collectives together, made by init_process_group or new_group.

    ``rank()`` is this process's rank inside the group (-1 for a process that is not a
    member) and ``size()`` the number of members. Made by genesis, not by users.

    Args:
        store (Store): the rendezvous store; the group uses its own prefix of it.
        ranks (list of int): the global ranks of the members, in group-rank order.
        global_rank (int): this process's global rank.
        name (str): the group's name (its creation number).
        timeout (datetime.timedelta): how long its store operations wait.
        debug (bool): whether collectives first check that every rank agrees.
        backends (tuple of str): ``"nccl"`` (CUDA tensors) and/or ``"gloo"`` (the store's).
            Default: ``("nccl",)``.

    Example::

        >>> group = genesis.distributed.new_group([0])  # doctest: +SKIP
        >>> group.size()  # doctest: +SKIP
        1
    """

    def __init__(self, store, ranks, global_rank, name, timeout, debug, backends=("nccl",)):
        self._store = PrefixStore(f"group{name}", store)
        self._backends = tuple(backends)
        self._store_comm = None
        self._ranks = list(ranks)
        self._global_rank = global_rank
        self._rank = self._ranks.index(global_rank) if global_rank in self._ranks else -1
        self._name = name
        self._timeout = timeout
        self._debug = debug
        self._comm = None
        self._sequence = 0
        self._lock = threading.Lock()

    def rank(self):
        """This process's rank in the group, -1 when it is not a member.

        Returns:
            int: the group rank.

        Example::

            >>> import genesis.distributed as dist
            >>> dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
            >>> dist.new_group([0]).rank()
            0
            >>> dist.destroy_process_group()
        """
        return self._rank

    def size(self):
        """The number of ranks in the group.

        Returns:
            int: the group's size.

        Example::

            >>> import genesis.distributed as dist
            >>> dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
            >>> dist.new_group([0]).size()
            1
            >>> dist.destroy_process_group()
        """
        return len(self._ranks)

    @property
    def ranks(self):
        """list of int: the global ranks of the members, in group-rank order.

        Example::

            >>> import genesis.distributed as dist
            >>> dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
            >>> dist.new_group([0]).ranks
            [0]
            >>> dist.destroy_process_group()
        """
        return list(self._ranks)

    def _group_rank(self, global_rank, name):
        if not isinstance(global_rank, int) or isinstance(global_rank, bool):
            raise TypeError(f"[{name}] expected an int rank, got {type(global_rank).__name__}")
        if global_rank not in self._ranks:
            raise ValueError(
                f"[{name}] rank {global_rank} is not in the group (its ranks are {self._ranks})"
            )
        return self._ranks.index(global_rank)

    def _member(self, name):
        if self._comm is False:
            raise RuntimeError(f"[{name}] the process group was destroyed")
        if self._rank < 0:
            raise RuntimeError(
                f"[{name}] this process (rank {self._global_rank}) is not a member of the group "
                f"{self._ranks}"
            )

    def _communicator(self, device, name):
        """The group's NCCL communicator, made on first use on `device` (a CUDA index)."""
        self._member(name)
        with self._lock:
            if self._comm is None:
                _nccl.load()
                key = "nccl_unique_id"
                if self._rank == 0:
                    self._store.set(key, _C._distributed.nccl_unique_id())
                unique_id = self._get(key, name, "rank 0 of the group to publish NCCL's id")
                self._comm = _C._distributed.NcclComm(unique_id, self.size(), self._rank, device)
            elif self._comm.device != device:
                raise ValueError(
                    f"[{name}] the process group communicates on cuda:{self._comm.device} (its "
                    f"first collective's device); got a tensor on cuda:{device}"
                )
            return self._comm

    def _communicator_for(self, tensor, name):
        """The communicator that carries `tensor`: NCCL for a CUDA tensor where the group has
        it, else the store's (the "gloo" backend: Note [Collectives through the store])."""
        if tensor.device.type == "cuda" and "nccl" in self._backends:
            return self._communicator(tensor.device.index, name)
        if "gloo" not in self._backends:
            raise ValueError(
                f"[{name}] NCCL communicates CUDA tensors; the tensor is on {tensor.device} "
                "(move it with .cuda(), or start the group with the 'gloo' backend for CPU "
                "tensors)"
            )
        return self._store_communicator(name)

    def _store_communicator(self, name):
        self._member(name)
        with self._lock:
            if self._store_comm is None:
                self._store_comm = StoreCommunicator(self._store, self.size(), self._rank)
            return self._store_comm

    def _async_error(self):
        comm = self._comm
        return comm.async_error() if comm else ""

    def _get(self, key, name, waiting_for):
        try:
            return self._store.get(key)
        except DistStoreError:
            seconds = self._timeout.total_seconds()
            raise RuntimeError(
                f"[{name}] timed out after {seconds:g} s waiting for {waiting_for}"
            ) from None

    def _check_agreement(self, name, signature):
        """Debug mode: every rank publishes `signature` and compares everyone's."""
        if not self._debug:
            return
        self._sequence += 1
        prefix = f"debug/{self._sequence}/"
        self._store.set(prefix + str(self._rank), f"{name} {signature}")
        seen = {}
        for r in range(self.size()):
            value = self._get(prefix + str(r), name, f"rank {self._ranks[r]} to call {name}")
            seen[self._ranks[r]] = value.decode() if isinstance(value, bytes) else value
        if len(set(seen.values())) > 1:
            detail = "; ".join(f"rank {r}: {v}" for r, v in sorted(seen.items()))
            raise RuntimeError(f"[{name}] the ranks called different collectives: {detail}")

    def _destroy(self):
        comm, self._comm = self._comm, False
        if comm:
            comm.destroy()

    def _abort(self):
        comm, self._comm = self._comm, False
        if comm:
            comm.abort()


class _State:
    """The default group and every group made from it, for this process."""

    def __init__(self):
        self.world = None
        self.groups = []
        self.store = None
        self.backend = None
        self.owned_store = None
        self.made = 0


state = _State()


def debug_from_environment():
    return os.environ.get("GENESIS_DISTRIBUTED_DEBUG", "OFF").upper() == "DETAIL"


def default_timeout():
    return datetime.timedelta(minutes=10)
