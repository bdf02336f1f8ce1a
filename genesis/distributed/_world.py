"""Starting and ending the default process group, and making subgroups."""

import datetime

from . import _nccl
from ._group import ProcessGroup, debug_from_environment, default_timeout, state
from ._rendezvous import rendezvous
from ._store import DistStoreError


def _check_timeout(timeout, name):
    if timeout is None:
        return default_timeout()
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"[{name}] timeout must be a datetime.timedelta, got {timeout!r}")
    if timeout.total_seconds() <= 0:
        raise ValueError(f"[{name}] timeout must be positive, got {timeout}")
    return timeout


def _join(store, rank, world_size, timeout):
    """Waits until every rank reached init_process_group, or raises naming how many did."""
    joined = store.add("init/joined", 1)
    if joined == world_size:
        store.set("init/everyone", b"1")
    try:
        store.wait(["init/everyone"], timeout)
    except DistStoreError:
        count = store.add("init/joined", 0)
        raise RuntimeError(
            f"[init_process_group] timed out after {timeout.total_seconds():g} s: only {count} of "
            f"{world_size} ranks joined"
        ) from None


def _backends(backend, name, default):
    """The backends a backend string names: "nccl" (CUDA tensors), "gloo" (CPU tensors through
    the store: Note [Collectives through the store]), or "cpu:gloo,cuda:nccl" (both, what None
    gives, as in torch.distributed)."""
    if backend is None:
        return default
    text = backend.lower() if isinstance(backend, str) else None
    if text in ("nccl", "gloo"):
        return (text,)
    if text is not None:
        parts = dict(p.split(":", 1) for p in text.replace(" ", "").split(",") if ":" in p)
        if parts and set(parts.items()) <= {("cpu", "gloo"), ("cuda", "nccl"), ("cuda", "gloo")}:
            return tuple(sorted(set(parts.values())))
    raise ValueError(
        f"[{name}] unsupported backend {backend!r}; genesis supports 'nccl', 'gloo' and "
        "'cpu:gloo,cuda:nccl'"
    )


def backend_name(backends):
    return backends[0] if len(backends) == 1 else "cpu:gloo,cuda:nccl"


def init_process_group(
    backend=None,
    init_method=None,
    timeout=None,
    world_size=-1,
    rank=-1,
    store=None,
    group_name="",
    device_id=None,
):
    """Starts the default process group of this process, as torch.distributed's.

    Every rank calls it; it returns once all ``world_size`` ranks joined (or raises RuntimeError
    after ``timeout``). The ranks meet through a store: the one ``init_method`` names
    (``"env://"`` reads ``MASTER_ADDR``, ``MASTER_PORT``, ``RANK`` and ``WORLD_SIZE``, as set
    by ``python -m genesis.distributed.run``; ``"tcp://host:port"``; ``"file:///path"``) or
    the given ``store``. Collectives of CUDA tensors run over NCCL; the NCCL communicator is
    made at the first collective, on that tensor's device. NCCL is loaded then, from the
    ``nvidia-nccl-cu13`` package or the system (RuntimeError naming what to install otherwise).
    Collectives of CPU tensors run through the store with the ``"gloo"`` backend (correct, not
    fast: for tests and small runs).

    Args:
        backend (str, optional): ``"nccl"`` (CUDA tensors), ``"gloo"`` (CPU tensors, and CUDA
            tensors through host copies) or ``"cpu:gloo,cuda:nccl"`` (each by its device).
            Default: None (``"cpu:gloo,cuda:nccl"``, as torch.distributed).
        init_method (str, optional): where the ranks meet. Default: None (``"env://"``, unless
            ``store`` is given).
        timeout (datetime.timedelta, optional): how long to wait for the other ranks, here and
            in the store operations of the collectives. Default: None (10 minutes).
        world_size (int): the number of ranks. Default: -1 (from the environment).
        rank (int): this process's rank. Default: -1 (from the environment).
        store (genesis.distributed.Store, optional): a store to meet through instead of
            init_method (then rank and world_size are required). Default: None.
        group_name (str): unused, for torch's signature. Default: "".
        device_id (genesis.device, optional): the CUDA device of this rank's communicator.
            Default: None (the first collective's tensor's device).

    Returns:
        None

    Example::

        >>> import genesis.distributed as dist
        >>> dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
        >>> dist.get_world_size()
        1
        >>> dist.destroy_process_group()
    """
    name = "init_process_group"
    if state.world is not None:
        raise RuntimeError(f"[{name}] the default process group is already initialized")
    backends = _backends(backend, name, ("gloo", "nccl"))
    timeout = _check_timeout(timeout, name)
    for arg, value in (("rank", rank), ("world_size", world_size)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"[{name}] {arg} must be an int, got {value!r}")
    if store is not None:
        if init_method is not None:
            raise ValueError(f"[{name}] give either init_method or store, not both")
        if world_size < 1 or not 0 <= rank < world_size:
            raise ValueError(
                f"[{name}] with a store, give world_size >= 1 and 0 <= rank < world_size; got "
                f"rank={rank}, world_size={world_size}"
            )
        owned = None
    else:
        store, rank, world_size = rendezvous(init_method, rank, world_size, timeout)
        owned = store
    try:
        if hasattr(store, "set_timeout"):
            store.set_timeout(timeout)
        _join(store, rank, world_size, timeout)
    except BaseException:
        if owned is not None and hasattr(owned, "close"):
            owned.close()
        raise
    state.store = store
    state.owned_store = owned
    state.backend = backend_name(backends)
    state.world = ProcessGroup(
        store, range(world_size), rank, "0", timeout, debug_from_environment(), backends
    )
    state.groups = [state.world]
    state.made = 0
    if device_id is not None:
        index = getattr(device_id, "index", device_id)
        if index is None:
            raise ValueError(f"[{name}] device_id needs an index, such as cuda:0")
        state.world._communicator(int(index), name)


def _leave(store, rank, world_size, timeout):
    """Before the store closes: rank 0, which may host its server, waits for the others."""
    try:
        if store.add("exit/left", 1) == world_size:
            store.set("exit/everyone", b"1")
        if rank == 0:
            store.wait(["exit/everyone"], timeout)
    except (DistStoreError, OSError, RuntimeError):
        pass  # a rank that died or left without destroying: close anyway


def _world(name):
    if state.world is None:
        raise RuntimeError(
            f"[{name}] the default process group is not initialized; call "
            "genesis.distributed.init_process_group first"
        )
    return state.world


def group_of(group, name):
    """The group to use: the default one for None; checks it still exists."""
    world = _world(name)
    if group is None:
        return world
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"[{name}] group must be a ProcessGroup, got {type(group).__name__}")
    if group not in state.groups:
        raise RuntimeError(f"[{name}] the process group was destroyed")
    return group


def destroy_process_group(group=None):
    """Ends a process group (by default the default one and every group made from it).

    Waits for the group's queued collectives, then releases its NCCL communicator; afterwards
    ``init_process_group`` may be called again.

    Args:
        group (ProcessGroup, optional): the group to end. Default: None (all of them).

    Returns:
        None

    Example::

        >>> import genesis.distributed as dist
        >>> dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
        >>> dist.destroy_process_group()
        >>> dist.is_initialized()
        False
    """
    g = group_of(group, "destroy_process_group")
    if g is not state.world:
        g._destroy()
        state.groups.remove(g)
        return
    for each in state.groups:
        each._destroy()
    owned = state.owned_store
    if owned is not None and hasattr(owned, "close"):
        _leave(state.store, g.rank(), g.size(), g._timeout)
        owned.close()
    state.world, state.groups, state.store, state.owned_store = None, [], None, None


def new_group(ranks=None, timeout=None, backend=None):
    """Makes a process group of some of the ranks of the default group.

    Every rank of the default group must call it, in the same order and with the same ranks,
    including the ranks left out (they get a group whose ``rank()`` is -1 and whose collectives
    raise RuntimeError).

    Args:
        ranks (list of int, optional): the global ranks of the members. Default: None (all).
        timeout (datetime.timedelta, optional): its store timeout. Default: None (the default
            group's).
        backend (str, optional): ``"nccl"``, ``"gloo"`` or ``"cpu:gloo,cuda:nccl"``. Default:
            None (the default group's).

    Returns:
        ProcessGroup: the new group.

    Example::

        >>> import genesis.distributed as dist
        >>> dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
        >>> dist.new_group([0]).size()
        1
        >>> dist.destroy_process_group()
    """
    name = "new_group"
    world = _world(name)
    backends = _backends(backend, name, world._backends)
    size = world.size()
    if ranks is None:
        ranks = list(range(size))
    ranks = list(ranks)
    for r in ranks:
        if not isinstance(r, int) or isinstance(r, bool) or not 0 <= r < size:
            raise ValueError(f"[{name}] ranks must be ints in [0, {size}), got {ranks}")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"[{name}] ranks has duplicates: {ranks}")
    timeout = world._timeout if timeout is None else _check_timeout(timeout, name)
    state.made += 1  # names never repeat, so a new group never reads an old group's keys
    group = ProcessGroup(
        state.store, ranks, world.rank(), str(state.made), timeout, world._debug, backends
    )
    state.groups.append(group)
    return group


def is_initialized():
    """Tells whether the default process group exists.

    Returns:
        bool: True between init_process_group and destroy_process_group.

    Example::

        >>> genesis.distributed.is_initialized()
        False
    """
    return state.world is not None


def is_available():
    """Tells whether genesis.distributed can be used in this build (it always can be imported).

    Returns:
        bool: True.

    Example::

        >>> genesis.distributed.is_available()
        True
    """
    return True


def is_nccl_available():
    """Tells whether NCCL can be loaded (a CUDA build, and NCCL installed).

    Returns:
        bool: True when collectives over NCCL can run.

    Example::

        >>> isinstance(genesis.distributed.is_nccl_available(), bool)
        True
    """
    try:
        _nccl.load()
    except RuntimeError:
        return False
    return True


def get_rank(group=None):
    """This process's rank in a group.

    Args:
        group (ProcessGroup, optional): the group. Default: None (the default group).

    Returns:
        int: the rank, or -1 when this process is not a member of ``group``.

    Example::

        >>> import genesis.distributed as dist
        >>> dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
        >>> dist.get_rank()
        0
        >>> dist.destroy_process_group()
    """
    return group_of(group, "get_rank").rank()


def get_world_size(group=None):
    """The number of ranks in a group.

    Args:
        group (ProcessGroup, optional): the group. Default: None (the default group).

    Returns:
        int: the group's size.

    Example::

        >>> import genesis.distributed as dist
        >>> dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
        >>> dist.get_world_size()
        1
        >>> dist.destroy_process_group()
    """
    return group_of(group, "get_world_size").size()


def get_global_rank(group, group_rank):
    """The global rank of a group's rank ``group_rank``.

    Args:
        group (ProcessGroup): the group (None: the default group).
        group_rank (int): a rank inside the group.

    Returns:
        int: its rank in the default group.

    Example::

        >>> import genesis.distributed as dist
        >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        >>> dist.get_global_rank(dist.new_group([0]), 0)
        0
        >>> dist.destroy_process_group()
    """
    name = "get_global_rank"
    g = group_of(group, name)
    if not isinstance(group_rank, int) or not 0 <= group_rank < g.size():
        raise ValueError(f"[{name}] group_rank must be in [0, {g.size()}), got {group_rank!r}")
    return g.ranks[group_rank]


def get_backend(group=None):
    """The backend of a group.

    Args:
        group (ProcessGroup, optional): the group. Default: None (the default group).

    Returns:
        str: ``"nccl"``, ``"gloo"`` or ``"cpu:gloo,cuda:nccl"``.

    Example::

        >>> import genesis.distributed as dist
        >>> dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
        >>> dist.get_backend()
        'nccl'
        >>> dist.destroy_process_group()
    """
    return backend_name(group_of(group, "get_backend")._backends)
