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
torch's ``file_descriptor`` strategy. CUDA storages are still sent as their bytes (a copy made on
the receiver's device): CUDA IPC is not built yet.
"""

from __future__ import annotations

import os
from multiprocessing.reduction import DupFd, ForkingPickler
from typing import Any

from genesis._C import UntypedStorage, _storage_from_share_fd


def _rebuild_shared_storage(fd_holder: Any, nbytes: int) -> UntypedStorage:
    fd = fd_holder.detach()
    try:
        return _storage_from_share_fd(fd, nbytes)
    finally:
        os.close(fd)


def _reduce_storage(storage: UntypedStorage) -> tuple[Any, ...]:
    if storage.device.type != "cpu":
        return storage.__reduce__()
    fd, nbytes = storage._share_fd_cpu_()
    return (_rebuild_shared_storage, (DupFd(fd), nbytes))


def init_reductions() -> None:
    """Registers genesis's storages with multiprocessing's pickler (done at ``import genesis``)."""
    ForkingPickler.register(UntypedStorage, _reduce_storage)
