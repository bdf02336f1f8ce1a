"""How ``multiprocessing`` sends genesis storages: CPU storages through shared memory.

Note [Storages between processes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
multiprocessing pickles what goes through a Queue, a Pipe, a Pool's tasks and results, and a
spawned Process's arguments with its ForkingPickler, whose dispatch table this module extends
(at ``import genesis``, as ``import torch`` does for torch). A tensor pickles as its storage and
layout (genesis/serialization.py); a CPU storage sent this way first moves into shared memory
(``share_memory_()``, in place: the sender's tensors keep their values and now use the shared
pages) and travels as the descriptor of that memory (multiprocessing's ``DupFd``, passed over a
Unix socket, or inherited by a spawned child), never as its bytes. The receiver maps the same
pages, once per process whatever descriptor reaches it (Note [Shared memory storages] in
csrc/cpu/shared_memory.cpp), so a tensor arrives as the same memory and views of one storage stay
views of one storage. The sender must stay alive until the receiver has the descriptor, as with
torch's ``file_descriptor`` strategy.

CUDA storages travel by CUDA IPC handle (Note [CUDA storages between processes] in
csrc/cuda/ipc.cpp): the sender keeps each sent storage, so its pool cannot reuse the block, until
the release counter sent along (two int64 in shared memory: pending, receiver's pid) says the
receiver's storage is gone or the receiver's process has died; the counters are checked at each
CUDA send and by ``genesis.multiprocessing.release_sent_cuda()``. A storage sent to its own
process (a Pipe within one process) arrives as itself.
"""

from __future__ import annotations

import itertools
import os
import threading
from multiprocessing.reduction import DupFd, ForkingPickler
from typing import Any, cast

from genesis._C import UntypedStorage, _cuda, _storage_from_share_fd, int64, tensor


def _rebuild_shared_storage(fd_holder: Any, nbytes: int) -> UntypedStorage:
    fd = fd_holder.detach()
    try:
        return _storage_from_share_fd(fd, nbytes)
    finally:
        os.close(fd)


class _Sent:
    """A CUDA storage sent to another process, kept until the receiver is done with it."""

    __slots__ = ("storage", "event", "counter")

    def __init__(self, storage: UntypedStorage, event: int, counter: Any) -> None:
        self.storage, self.event, self.counter = storage, event, counter

    def done(self) -> bool:
        pending, pid = self.counter.tolist()
        return pending == 0 or (pid != 0 and not _alive(pid))


_sent: dict[int, _Sent] = {}
_sent_lock = threading.Lock()
_sent_ids = itertools.count()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def release_sent_cuda() -> int:
    """Lets go of the CUDA storages sent to other processes that their receivers are done with
    (or whose receivers have died), so their blocks go back to the pool.

    Returns:
        How many were let go.

    Example::

        >>> import genesis.multiprocessing as mp
        >>> mp.release_sent_cuda()  # nothing was sent
        0
    """
    with _sent_lock:
        finished = [key for key, sent in _sent.items() if sent.done()]
        for key in finished:
            _cuda._ipc_destroy_event(_sent.pop(key).event)
    return len(finished)


def _rebuild_cuda_storage(
    pid: int,
    key: int,
    memory: bytes,
    offset: int,
    nbytes: int,
    device: int,
    event: bytes,
    fd_holder: Any,
) -> UntypedStorage:
    fd = fd_holder.detach()
    try:
        counter = _storage_from_share_fd(fd, 16)
    finally:
        os.close(fd)
    if pid == os.getpid():  # sent to itself: no IPC within one process
        with _sent_lock:
            sent = _sent.pop(key)
        _cuda._ipc_destroy_event(sent.event)
        return sent.storage
    return _cuda._ipc_import(memory, offset, nbytes, device, event, counter)


def _reduce_cuda_storage(storage: UntypedStorage) -> tuple[Any, ...]:
    release_sent_cuda()
    if storage.nbytes() == 0:
        return cast(tuple[Any, ...], storage.__reduce__())  # nothing to share
    memory, offset, event, event_id = _cuda._ipc_export(storage)
    counter = tensor([1, 0], dtype=int64).share_memory_()
    with _sent_lock:
        key = next(_sent_ids)
        _sent[key] = _Sent(storage, event_id, counter)
    fd, _ = counter.untyped_storage()._share_fd_cpu_()
    args = (os.getpid(), key, memory, offset, storage.nbytes(), storage.device.index, event)
    return (_rebuild_cuda_storage, (*args, DupFd(fd)))


def _reduce_storage(storage: UntypedStorage) -> tuple[Any, ...]:
    if storage.device.type != "cpu":
        return _reduce_cuda_storage(storage)
    fd, nbytes = storage._share_fd_cpu_()
    return (_rebuild_shared_storage, (DupFd(fd), nbytes))


def init_reductions() -> None:
    """Registers genesis's storages with multiprocessing's pickler (done at ``import genesis``)."""
    ForkingPickler.register(UntypedStorage, _reduce_storage)
