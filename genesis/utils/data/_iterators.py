"""The iterators of DataLoader: ``_SingleProcessIter`` loads each batch in the main process
when asked; ``_MultiProcessIter`` hands the sampler's keys to worker processes (``_Workers``)
and gives their batches back in order (Note [DataLoader workers] in _worker.py).

Note [DataLoader shutdown]
~~~~~~~~~~~~~~~~~~~~~~~~~~
The workers, their pipes and the shared stop flag belong to a ``_Workers`` object that holds no
reference to the iterator, and the iterator registers ``_Workers.shutdown`` with
``weakref.finalize``: it runs once, when the epoch ends (unless the workers persist), when the
iterator is garbage collected (a ``break`` out of a loop drops the last reference at once), at
interpreter exit, or on a fatal error. Shutdown sets the flag to "stop", closes the main
process's pipe ends (a worker waiting for a task sees end of file; one blocked sending sees a
broken pipe), gives them up to ``_JOIN_S`` seconds to exit (an idle worker exits at once; a busy
one finishes its item), then terminates (SIGTERM) and finally kills (SIGKILL) what is left, and
reaps every process: no worker outlives it. It does nothing in a process other than the one
that started the workers (a forked child that garbage-collects an inherited iterator must not
stop its parent's workers).

A worker's death is seen at once (its sentinel wakes the wait) and raised as RuntimeError naming
the worker, its pid and the signal or exit code; the other workers are then shut down without
the grace period. Workers ignore SIGINT: a KeyboardInterrupt is the main process's, which
terminates them at once when it arrives while waiting for a batch, and otherwise stops them as
above when the iterator goes.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import time
import warnings
import weakref
from typing import TYPE_CHECKING, Any

from ... import cuda
from ... import multiprocessing as genesis_multiprocessing
from ..._C import empty, int64
from ._fetch import make_fetcher
from ._pin_memory import pin_memory as _pin
from ._worker import _Ended, _parent_conns, _worker_loop, _WorkerError

if TYPE_CHECKING:
    from .dataloader import DataLoader

_JOIN_S = 2.0  # how long shutdown waits for workers to exit by themselves
_WAIT_S = 5.0  # the longest single wait for the workers (a worker's death ends it at once)


class _LoaderIter:
    """What both iterators share: the sampler's keys, the seed, the length check, pinning."""

    def __init__(self, loader: DataLoader[Any]) -> None:
        self._dataset = loader.dataset
        self._iterable = loader._iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._collate_fn = loader.collate_fn
        self._timeout = loader.timeout
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(
                f"[DataLoader] pin_memory_device is deprecated, the current CUDA device is "
                f"used; ignoring pin_memory_device={loader.pin_memory_device!r}",
                stacklevel=3,
            )
        if loader.pin_memory and not cuda.is_available():
            warnings.warn(
                "[DataLoader] 'pin_memory' argument is set as true but no CUDA device is "
                "available, so pinned memory won't be used",
                stacklevel=3,
            )
        self._pin = loader.pin_memory and cuda.is_available()
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = int(empty((), dtype=int64).random_(generator=loader.generator).item())
        self._len_reported = loader._len_reported
        self._num_yielded = 0

    def __iter__(self) -> _LoaderIter:
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self) -> Any:
        raise NotImplementedError(f"[DataLoader] {type(self).__name__} cannot be pickled")

    def _reset(self, loader: DataLoader[Any]) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._len_reported = loader._len_reported

    def _next_data(self) -> Any:
        raise NotImplementedError

    def _finish(self, batch: Any) -> Any:
        return _pin(batch) if self._pin else batch

    def __next__(self) -> Any:
        data = self._next_data()
        self._num_yielded += 1
        reported = self._len_reported
        if self._iterable and reported is not None and self._num_yielded > reported:
            hint = (
                " With workers, this could be caused by not splitting the IterableDataset "
                "among them (see genesis.utils.data.get_worker_info)."
                if self._num_workers > 0
                else ""
            )
            warnings.warn(
                f"[DataLoader] length of IterableDataset {self._dataset} was reported to be "
                f"{reported} (when accessing len(dataloader)), but {self._num_yielded} samples "
                f"have been fetched.{hint}",
                stacklevel=2,
            )
        return data


def _note(error: BaseException, text: str) -> None:
    if hasattr(error, "add_note"):  # Python 3.11+
        error.add_note(text)


class _SingleProcessIter(_LoaderIter):
    """Loads every batch in the main process, when it is asked for."""

    def __init__(self, loader: DataLoader[Any]) -> None:
        super().__init__(loader)
        self._fetcher = make_fetcher(
            self._iterable, self._dataset, self._auto_collation, self._drop_last
        )

    def _next_data(self) -> Any:
        index = next(self._sampler_iter)  # StopIteration ends the epoch
        try:
            samples = self._fetcher.samples(index)
        except StopIteration:
            if self._iterable:
                raise
            raise RuntimeError(
                f"[DataLoader] the dataset raised StopIteration while fetching batch "
                f"{self._num_yielded}"
            ) from None
        except Exception as e:
            _note(e, f"[DataLoader] raised while fetching batch {self._num_yielded}")
            raise
        try:
            batch = self._collate_fn(samples)
        except Exception as e:
            _note(e, f"[DataLoader] raised while collating batch {self._num_yielded}")
            raise
        return self._finish(batch)


def _open_files() -> tuple[int, int] | None:
    """(descriptors open, their soft limit) of this process, where the system says."""
    try:
        import resource

        return len(os.listdir("/proc/self/fd")), resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except Exception:
        return None


def _unpicklable_part(dataset: Any, collate_fn: Any, init_fn: Any) -> str | None:
    """Which of the worker's arguments cannot be pickled, with pickle's reason."""
    parts = (("dataset", dataset), ("collate_fn", collate_fn), ("worker_init_fn", init_fn))
    for name, obj in parts:
        try:
            pickle.dumps(obj)
        except Exception as e:
            kind = type(obj).__qualname__
            return f"the {name} (a {kind}) cannot be pickled ({type(e).__name__}: {e})"
    return None


class _Workers:
    """The worker processes of one iterator, their pipes and the shared epoch/stop value
    (Note [DataLoader workers] in _worker.py, Note [DataLoader shutdown])."""

    def __init__(self, loader: DataLoader[Any], base_seed: int) -> None:
        self.owner = os.getpid()
        self.closed = False
        self.processes: list[Any] = []
        self.tasks: list[Any] = []  # the main process's ends: task writers, reply readers
        self.replies: list[Any] = []
        ctx = loader.multiprocessing_context or genesis_multiprocessing.get_context()
        self.state = ctx.RawValue("q", 0)  # the current epoch; -1: stop
        n = loader.num_workers
        for i in range(n):
            task_reader, task_writer = ctx.Pipe(duplex=False)
            reply_reader, reply_writer = ctx.Pipe(duplex=False)
            _parent_conns.add(task_writer)
            _parent_conns.add(reply_reader)
            self.tasks.append(task_writer)
            self.replies.append(reply_reader)
            args = (
                loader._iterable,
                loader.dataset,
                task_reader,
                reply_writer,
                self.state,
                loader._auto_collation,
                loader.collate_fn,
                loader.drop_last,
                base_seed,
                loader.worker_init_fn,
                i,
                n,
            )
            process = ctx.Process(
                target=_worker_loop, args=args, name=f"DataLoader worker {i}", daemon=True
            )
            try:
                process.start()
            except (pickle.PicklingError, TypeError, AttributeError) as e:
                self.shutdown()
                raise self._start_error(e, i, ctx, loader) from e
            except BaseException:
                self.shutdown()
                raise
            finally:
                task_reader.close()  # the worker's ends now live in the worker
                reply_writer.close()
            self.processes.append(process)

    def _start_error(
        self, error: Exception, i: int, ctx: Any, loader: DataLoader[Any]
    ) -> Exception:
        what = _unpicklable_part(loader.dataset, loader.collate_fn, loader.worker_init_fn)
        message = (
            f"[DataLoader] cannot start worker {i} with the {ctx.get_start_method()!r} start "
            f"method: {what or f'its arguments cannot be pickled ({error})'}. With 'spawn' and "
            "'forkserver' a worker receives the dataset, collate_fn and worker_init_fn "
            "pickled: define their classes and functions at module level (not inside a "
            "function, not a lambda), or use multiprocessing_context='fork'"
        )
        try:
            return type(error)(message)
        except Exception:
            return RuntimeError(message)

    def send(self, i: int, task: tuple[int, int, Any]) -> None:
        try:
            self.tasks[i].send(task)
        except OSError as e:  # the worker is gone (a broken pipe)
            raise self.died(i) from e

    def died(self, i: int) -> RuntimeError:
        """The error for worker ``i``'s unexpected exit; shuts the others down."""
        process = self.processes[i]
        process.join(1.0)
        code = process.exitcode
        if code is None:
            how = "closed its pipe while still running"
        elif code < 0:
            try:
                how = f"with signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"with signal {-code}"
        else:
            how = f"with exit code {code}"
        message = f"[DataLoader] worker {i} (pid {process.pid}) exited unexpectedly {how}"
        if code == -signal.SIGKILL:
            message += " (killed: if no one did, the system may have run out of memory)"
        self.shutdown(grace=0.0)
        return RuntimeError(message)

    def _read(self, i: int) -> tuple[int, int, Any]:
        try:
            return self.replies[i].recv()  # type: ignore[no-any-return]
        except Exception as e:
            self.processes[i].join(0.5)
            if not self.processes[i].is_alive():
                raise self.died(i) from e
            message = (
                f"[DataLoader] cannot read what worker {i} (pid {self.processes[i].pid}) sent: "
                f"{type(e).__name__}: {e}"
            )
            files = _open_files()
            if files is not None and files[0] >= files[1] - 32:
                message += (
                    f". This process has {files[0]} files open, near its limit of {files[1]}: "
                    "every CPU tensor received from a worker keeps the descriptor of its shared "
                    "memory while it lives. Keep fewer batches alive (.clone() what you keep) "
                    "or raise the limit (ulimit -n)"
                )
            raise RuntimeError(message) from e

    def receive(self, timeout: float) -> tuple[int, tuple[int, int, Any]]:
        """The next reply of any worker, as (worker, reply); raises on a worker's death, or
        after ``timeout`` seconds when positive."""
        deadline = time.monotonic() + timeout if timeout > 0 else None
        which = {}
        for i, (conn, process) in enumerate(zip(self.replies, self.processes)):
            which[conn] = which[process.sentinel] = i
        while True:
            remaining = None
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RuntimeError(
                        f"[DataLoader] DataLoader timed out after {timeout} seconds waiting for "
                        "a batch from the workers"
                    )
            # A bounded wait, so that nothing can block here for good.
            slice_s = _WAIT_S if remaining is None else min(remaining, _WAIT_S)
            ready = multiprocessing.connection.wait(list(which), slice_s)
            for obj in ready:  # replies first: a worker may have sent before it died
                if not isinstance(obj, int):
                    i = which[obj]
                    return i, self._read(i)
            for obj in ready:
                i = which[obj]
                if self.replies[i].poll(0):
                    return i, self._read(i)
                raise self.died(i)

    def shutdown(self, grace: float = _JOIN_S) -> None:
        """Stops and reaps every worker, waiting ``grace`` seconds for them to exit before
        terminating them (Note [DataLoader shutdown]); runs once."""
        if self.closed or os.getpid() != self.owner:
            return
        self.closed = True
        self.state.value = -1
        for conn in (*self.tasks, *self.replies):
            _parent_conns.discard(conn)
            conn.close()
        deadline = time.monotonic() + grace
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))
        for stop in ("terminate", "kill"):
            alive = [p for p in self.processes if p.exitcode is None]
            for process in alive:
                getattr(process, stop)()
            for process in alive:
                process.join(1.0 if stop == "terminate" else None)


class _MultiProcessIter(_LoaderIter):
    """Hands the sampler's batches of keys to the workers and yields what they send back."""

    def __init__(self, loader: DataLoader[Any]) -> None:
        super().__init__(loader)
        self._prefetch = loader.prefetch_factor or 2
        self._in_order = loader.in_order
        self._persistent = loader.persistent_workers
        self._workers = _Workers(loader, self._base_seed)
        self._shutdown = weakref.finalize(self, self._workers.shutdown)
        self._epoch = -1
        self._start_epoch()

    def _reset(self, loader: DataLoader[Any]) -> None:
        super()._reset(loader)
        self._start_epoch()

    def _start_epoch(self) -> None:
        n = self._num_workers
        self._epoch += 1
        self._workers.state.value = self._epoch  # workers skip tasks of earlier epochs
        self._send_idx = 0  # the next batch to hand out
        self._rcvd_idx = 0  # the next batch to yield (in order)
        self._tasks: dict[int, int] = {}  # batch idx -> worker, handed out and not answered
        self._results: dict[int, Any] = {}  # answered ahead of their turn (in order)
        self._active = [True] * n  # False: the worker's stream has ended this epoch
        self._outstanding = [0] * n
        self._next_worker = 0
        self._sampler_done = False
        for _ in range(self._prefetch * n):
            self._hand_out()

    def _hand_out(self) -> None:
        """Gives the sampler's next batch of keys to the next worker with room, if any."""
        if self._sampler_done:
            return
        n = self._num_workers
        for step in range(n):
            w = (self._next_worker + step) % n
            if self._active[w] and self._outstanding[w] < self._prefetch:
                break
        else:
            return
        try:
            keys = next(self._sampler_iter)
        except StopIteration:
            self._sampler_done = True
            return
        self._next_worker = (w + 1) % n
        self._workers.send(w, (self._epoch, self._send_idx, keys))
        self._tasks[self._send_idx] = w
        self._outstanding[w] += 1
        self._send_idx += 1

    def _deliver(self, payload: Any) -> Any:
        self._hand_out()
        if isinstance(payload, _WorkerError):
            payload.reraise()
        return self._finish(payload)

    def _next_data(self) -> Any:
        if self._workers.closed:
            raise StopIteration
        while True:
            if self._in_order:
                while (
                    self._rcvd_idx < self._send_idx
                    and self._rcvd_idx not in self._tasks
                    and self._rcvd_idx not in self._results
                ):
                    self._rcvd_idx += 1  # its worker's stream ended before it
                if self._rcvd_idx in self._results:
                    self._rcvd_idx += 1
                    return self._deliver(self._results.pop(self._rcvd_idx - 1))
            if not self._tasks:
                if not self._persistent:
                    self._shutdown()
                raise StopIteration
            try:
                w, (epoch, idx, payload) = self._workers.receive(self._timeout)
            except KeyboardInterrupt:
                self._shutdown.detach()
                self._workers.shutdown(grace=0.0)  # at once: the user wants to stop
                raise
            if epoch != self._epoch:
                continue  # a reply to an abandoned epoch
            del self._tasks[idx]
            self._outstanding[w] -= 1
            if isinstance(payload, _Ended):
                self._active[w] = False
                dropped = [i for i, owner in self._tasks.items() if owner == w]
                for i in dropped:  # the worker skips them: they were never fetched
                    del self._tasks[i]
                self._outstanding[w] -= len(dropped)
                for _ in range(1 + len(dropped)):
                    self._hand_out()
                continue
            if not self._in_order:
                return self._deliver(payload)
            if idx == self._rcvd_idx:
                self._rcvd_idx += 1
                return self._deliver(payload)
            self._results[idx] = payload  # yielded when its turn comes
