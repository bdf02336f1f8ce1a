"""The worker processes of a ``DataLoader``: what runs in them (``_worker_loop``), what they tell
the main process (batches, ``_WorkerError``, ``_Ended``), and ``get_worker_info``.

Note [DataLoader workers]
~~~~~~~~~~~~~~~~~~~~~~~~~
Each worker has two one-way pipes of its own (multiprocessing ``Pipe(duplex=False)``): tasks
``(epoch, idx, keys)`` come in, replies ``(epoch, idx, payload)`` go out, where the payload is
the collated batch, a ``_WorkerError`` or ``_Ended`` (an iterable dataset has run out). The
main process waits on all reply pipes and all workers' sentinels at once
(``multiprocessing.connection.wait``), so a batch is read as soon as it is sent and a worker
that dies is seen at once, never after a polling interval; no lock is shared between processes,
so a killed worker cannot leave one held. Batches travel as shared memory (Note [Batches in
shared memory] in collate.py). One number in shared memory (a ``RawValue``) steers the
workers without a message: the current epoch, so that a worker skips tasks of an abandoned
epoch (a persistent worker after ``break``), or -1 for "stop". A worker also stops when its
task pipe reaches end of file (the main process closed it, or died) or its parent changes.

With the ``fork`` start method a worker inherits every descriptor of the main process,
including the main-process ends of other workers' pipes (of this loader and of others); holding
them would keep those pipes open after the main process closes them. The main-process ends are
therefore remembered in ``_parent_conns`` and a forked worker closes its copies first thing.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import traceback
import weakref
from dataclasses import dataclass
from typing import Any

from ... import _C
from ._fetch import make_fetcher

_POLL_S = 1.0  # how often an idle worker checks that its parent is alive

# The main-process ends of the workers' pipes (see the Note); a forked worker closes them.
_parent_conns: weakref.WeakSet[Any] = weakref.WeakSet()


@dataclass(frozen=True)
class WorkerInfo:
    """What a ``DataLoader`` worker process knows of itself (``get_worker_info()``).

    Attributes:
        id (int): the worker's number, in ``[0, num_workers - 1]``.
        num_workers (int): how many workers the loader has.
        seed (int): the worker's seed, ``base_seed + id``; genesis's default generator and
            Python's ``random`` are seeded with it, NumPy's global generator from it.
        dataset (Dataset): this worker's copy of the dataset.

    Example::

        >>> from genesis.utils.data import get_worker_info
        >>> get_worker_info() is None  # the main process
        True
    """

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """Information about the ``DataLoader`` worker process this is called in.

    In a worker (in the dataset's methods, ``worker_init_fn`` or ``collate_fn``) it returns a
    ``WorkerInfo`` with the worker's ``id``, ``num_workers``, ``seed`` and its copy of the
    ``dataset``, for instance to give each worker its own share of an ``IterableDataset``. In
    the main process it returns None.

    Returns:
        WorkerInfo or None: the worker's information, None outside a worker.

    Example::

        >>> from genesis.utils.data import DataLoader, IterableDataset, get_worker_info
        >>> get_worker_info() is None
        True
        >>> class WorkerIds(IterableDataset):
        ...     def __iter__(self):
        ...         yield get_worker_info().id
        >>> sorted(int(b) for b in DataLoader(WorkerIds(), num_workers=2))
        [0, 1]
    """
    return _worker_info


class _KeyErrorMessage(str):
    """KeyError shows its argument's repr; this one's repr is the text itself."""

    def __repr__(self) -> str:
        return str(self)


class _WorkerError:
    """An exception caught in a worker, sent to the main process and raised there with the
    worker's traceback in its message (as torch's ExceptionWrapper)."""

    def __init__(self, where: str) -> None:
        exc_type, exc, tb = sys.exc_info()
        self.exc_type: type[BaseException] | None = exc_type
        self.text = "".join(traceback.format_exception(exc_type, exc, tb))
        self.where = where

    def reraise(self) -> None:
        name = self.exc_type.__name__ if self.exc_type is not None else "an exception"
        message = f"Caught {name} {self.where}.\nOriginal {self.text}"
        if self.exc_type is None:
            raise RuntimeError(message)
        if self.exc_type is KeyError:
            raise KeyError(_KeyErrorMessage(message))
        if issubclass(self.exc_type, StopIteration):  # it would end the loop without a word
            raise RuntimeError(message)
        try:
            exception = self.exc_type(message)
        except Exception:
            raise RuntimeError(message) from None
        raise exception


@dataclass(frozen=True)
class _Ended:
    """A worker's iterable dataset has no more samples this epoch."""


def _seed_everything(seed: int, base_seed: int, worker_id: int) -> None:
    """Seeds genesis's default generator and Python's ``random`` with ``seed``, and NumPy's
    global generator (when NumPy is imported) from a SeedSequence of (worker_id, base_seed):
    the same states as torch's workers get from the same base seed."""
    random.seed(seed)
    _C.manual_seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        entropy = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
        np.random.seed(np.random.SeedSequence(entropy).generate_state(4))


def _send(conn: Any, message: tuple[int, int, Any], where: str) -> bool:
    """Sends a reply; a payload that cannot be pickled is replaced by the error saying so.
    False when the main process is gone."""
    try:
        conn.send(message)
    except (BrokenPipeError, ConnectionResetError, EOFError):
        return False
    except Exception:
        error = _WorkerError(f"{where} while sending it to the main process")
        try:
            conn.send((message[0], message[1], error))
        except (BrokenPipeError, ConnectionResetError, EOFError):
            return False
        except Exception:  # the exception's class itself cannot be pickled
            error.exc_type = None
            conn.send((message[0], message[1], error))
    return True


def _worker_loop(
    iterable: bool,
    dataset: Any,
    tasks: Any,
    replies: Any,
    state: Any,
    auto_collation: bool,
    collate_fn: Any,
    drop_last: bool,
    base_seed: int,
    init_fn: Any,
    worker_id: int,
    num_workers: int,
) -> None:
    """The body of a worker process (Note [DataLoader workers])."""
    global _worker_info
    for conn in list(_parent_conns):  # inherited through fork: not this worker's
        conn.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides when to stop
    parent = os.getppid()
    here = f"in DataLoader worker {worker_id} (pid {os.getpid()})"
    seed = base_seed + worker_id
    setup_error = None
    try:
        _seed_everything(seed, base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        if init_fn is not None:
            init_fn(worker_id)
    except Exception:
        setup_error = _WorkerError(f"{here} in worker_init_fn")

    fetcher, epoch, ended = None, None, False
    try:
        while True:
            if not tasks.poll(_POLL_S):
                if state.value < 0 or os.getppid() != parent:
                    break
                continue
            try:
                task_epoch, idx, keys = tasks.recv()
            except (EOFError, OSError):
                break
            if state.value < 0:
                break
            if task_epoch != state.value:
                continue  # a task of an abandoned epoch
            if task_epoch != epoch:
                fetcher, epoch, ended = None, task_epoch, False
            if ended:
                continue  # this epoch's stream has run out; the main process knows
            payload: Any
            samples = None
            if setup_error is not None:
                payload = setup_error
            else:
                stage = "fetching"
                try:
                    if fetcher is None:
                        stage = "creating the dataset iterator for"
                        fetcher = make_fetcher(iterable, dataset, auto_collation, drop_last)
                        stage = "fetching"
                    samples = fetcher.samples(keys)
                    stage = "collating"
                    payload = collate_fn(samples)
                except StopIteration:
                    if not iterable or stage != "fetching":
                        payload = _WorkerError(f"{here} while {stage} batch {idx}")
                    else:
                        payload, ended = _Ended(), True
                except Exception:
                    payload = _WorkerError(f"{here} while {stage} batch {idx}")
            del samples  # the samples' memory goes before the next task's
            if not _send(replies, (task_epoch, idx, payload), f"{here} with batch {idx}"):
                break
            del payload, keys
    finally:
        tasks.close()
        replies.close()
