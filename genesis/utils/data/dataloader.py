"""DataLoader: batches of a dataset, loaded in the main process or in worker processes, with
torch.utils.data.DataLoader's arguments, defaults and behaviour.

The main process owns the order: the sampler (or the batch sampler) runs there, and the
``idx``-th batch of an epoch is made of the same keys whatever the number of workers. Workers
only fetch and collate (Note [DataLoader workers] in _worker.py). With ``in_order=True`` (the
default) batches come out in the sampler's order; up to ``prefetch_factor`` tasks per worker
are in flight.

The iterators that ``iter(loader)`` returns, and the worker processes they run, are in
_iterators.py (Note [DataLoader shutdown] there).
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.connection
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

from ... import multiprocessing as genesis_multiprocessing
from ..._C import Generator
from ._iterators import _LoaderIter, _MultiProcessIter, _SingleProcessIter
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

T_co = TypeVar("T_co", covariant=True)


class _InfiniteConstantSampler(Sampler[None]):
    """``None`` forever: the keys of an iterable dataset, which ignores them."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


def _cpu_count() -> int | None:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count()


class DataLoader(Generic[T_co]):
    """Iterates over a dataset in batches, in the main process or in worker processes.

    A map-style ``dataset`` is read in the order of ``sampler`` (sequential, or shuffled with
    ``shuffle=True``), ``batch_size`` keys at a time, each batch merged by ``collate_fn``
    (``default_collate``: tensors stacked, numbers and NumPy arrays made tensors); or in the
    batches of ``batch_sampler``. With ``batch_size=None`` samples come one by one, converted by
    ``default_convert``. An ``IterableDataset`` is read in the order it yields, in batches
    of ``batch_size``.

    With ``num_workers > 0`` the batches are made in that many worker processes (started with
    ``multiprocessing_context``: fork, spawn or forkserver), each with its own copy of the
    dataset, and reach the main process as shared memory without a copy. The sampler runs in
    the main process, so the same seed (``genesis.manual_seed``, or ``generator``) gives the same
    batches whatever the number of workers. Worker ``i`` seeds genesis's default generator and
    Python's ``random`` with ``base_seed + i`` (``base_seed`` drawn from ``generator`` for each
    iterator), and NumPy's global generator from them, as torch does; ``get_worker_info()``
    tells it its ``id``, ``num_workers``, ``seed`` and dataset copy. A worker's exception is
    raised in the main process, with the worker's traceback in the message; a worker killed by
    a signal raises RuntimeError at once; ending the loop early, an exception or garbage
    collection of the iterator stops the workers (Note [DataLoader shutdown] in _iterators.py).

    Args:
        dataset (Dataset): the dataset (map-style or ``IterableDataset``).
        batch_size (int, optional): samples per batch; None turns batching off.
            Default: 1.
        shuffle (bool, optional): reshuffle the keys every epoch (map-style only).
            Default: None (False).
        sampler (Sampler or iterable, optional): the keys' order; excludes ``shuffle``.
            Default: None.
        batch_sampler (Sampler or iterable, optional): yields lists of keys; excludes
            ``batch_size``, ``shuffle``, ``sampler`` and ``drop_last``. Default: None.
        num_workers (int): how many worker processes; 0 loads in the main process.
            Default: 0.
        collate_fn (callable, optional): merges a list of samples into a batch.
            Default: None (``default_collate``, or ``default_convert`` without batching).
        pin_memory (bool): copy batches into pinned memory (on CUDA machines; without CUDA
            it warns and does nothing). Default: False.
        drop_last (bool): drop the last batch when it is incomplete. Default: False.
        timeout (float): if positive, seconds to wait for a batch from the workers before a
            RuntimeError; needs ``num_workers > 0``. Default: 0.
        worker_init_fn (callable, optional): called as ``worker_init_fn(worker_id)`` in each
            worker after seeding, before loading. Default: None.
        multiprocessing_context (str or multiprocessing context, optional): how workers
            start ("fork", "spawn", "forkserver"). Default: None (Python's default).
        generator (genesis.Generator, optional): the randomness of ``RandomSampler`` and of
            the workers' ``base_seed``. Default: None (the default generator).
        prefetch_factor (int, optional): tasks in flight per worker. Default: None (2 with
            workers; must be None without).
        persistent_workers (bool): keep the workers (and their dataset copies) between
            epochs. Default: False.
        pin_memory_device (str): deprecated in torch, accepted and ignored with a warning.
            Default: "".
        in_order (bool): yield batches in the sampler's order; False yields each as soon as
            it is ready. Default: True.

    Raises:
        ValueError: for contradictory or out-of-range options, as torch (``batch_size <= 0``,
            ``shuffle`` with a ``sampler``, a ``prefetch_factor`` without workers, ...).

    Example::

        >>> from genesis.utils.data import DataLoader, TensorDataset
        >>> ds = TensorDataset(genesis.arange(10.0), genesis.arange(10) % 2)
        >>> loader = DataLoader(ds, batch_size=4)
        >>> len(loader)
        3
        >>> x, y = next(iter(loader))
        >>> x, y
        (tensor([0., 1., 2., 3.]), tensor([0, 1, 0, 1]))
        >>> [len(x) for x, _ in DataLoader(ds, batch_size=4, num_workers=2, drop_last=True)]
        [4, 4]
    """

    __initialized = False

    def __init__(
        self,
        dataset: Dataset[T_co],
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler[Any] | Iterable[Any] | None = None,
        batch_sampler: Sampler[list[Any]] | Iterable[list[Any]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "[DataLoader] num_workers option should be non-negative; use num_workers=0 to "
                "disable multiprocessing"
            )
        if timeout < 0:
            raise ValueError("[DataLoader] timeout option should be non-negative")
        if timeout > 0 and num_workers == 0:
            raise ValueError(
                "[DataLoader] timeout applies to batches from worker processes: it needs "
                "num_workers > 0"
            )
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "[DataLoader] prefetch_factor option could only be specified in "
                "multiprocessing: let num_workers > 0 to enable multiprocessing, otherwise set "
                "prefetch_factor to None"
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor <= 0:
            raise ValueError(
                f"[DataLoader] prefetch_factor option should be positive, got {prefetch_factor}"
            )
        if persistent_workers and num_workers == 0:
            raise ValueError("[DataLoader] persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            # As torch: a stream has no keys to sample or shuffle (a custom sampler would only
            # repeat or lose its samples across workers); the dummy sampler is infinite.
            if shuffle not in (False, None):
                raise ValueError(
                    f"[DataLoader] DataLoader with IterableDataset: expected unspecified shuffle "
                    f"option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"[DataLoader] DataLoader with IterableDataset: expected unspecified sampler "
                    f"option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    f"[DataLoader] DataLoader with IterableDataset: expected unspecified "
                    f"batch_sampler option, but got batch_sampler={batch_sampler}"
                )
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("[DataLoader] sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "[DataLoader] batch_sampler option is mutually exclusive with batch_size, "
                    "shuffle, sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "[DataLoader] batch_size=None option disables auto-batching and is mutually "
                "exclusive with drop_last"
            )
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
            else:
                sampler = SequentialSampler(dataset)  # type: ignore[arg-type]
        if batch_size is not None and batch_sampler is None:
            # BatchSampler is typed for int keys but groups keys of any type: an
            # IterableDataset's are None (_InfiniteConstantSampler's), as in torch.
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)  # type: ignore[arg-type]

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._len_reported: int | None = None  # len(loader) of an IterableDataset, to check
        self._iterator: _MultiProcessIter | None = None
        self.__initialized = True
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self) -> Any:
        """The multiprocessing context workers start with, None for Python's default.

        Set it to a start method's name ("fork", "spawn", "forkserver") or a context object;
        only with ``num_workers > 0``.

        Example::

            >>> from genesis.utils.data import DataLoader
            >>> loader = DataLoader(range(4), num_workers=1, multiprocessing_context="fork")
            >>> loader.multiprocessing_context.get_start_method()
            'fork'
        """
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context: Any) -> None:
        if context is not None:
            if self.num_workers == 0:
                raise ValueError(
                    f"[DataLoader] multiprocessing_context can only be used with multi-process "
                    f"loading (num_workers > 0), but got num_workers={self.num_workers}"
                )
            if isinstance(context, str):
                methods = genesis_multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(
                        f"[DataLoader] multiprocessing_context option should specify a valid "
                        f"start method in {methods!r}, but got "
                        f"multiprocessing_context={context!r}"
                    )
                context = genesis_multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(
                    f"[DataLoader] multiprocessing_context option should be a valid context "
                    f"object or a string specifying the start method, but got "
                    f"multiprocessing_context={context!r}"
                )
        self.__multiprocessing_context = context

    def __setattr__(self, name: str, value: Any) -> None:
        frozen = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset")
        if self.__initialized and name in (*frozen, "persistent_workers"):
            raise ValueError(
                f"[DataLoader] {name} attribute should not be set after "
                f"{type(self).__name__} is initialized"
            )
        super().__setattr__(name, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> _LoaderIter:
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if not self.persistent_workers:
            return _MultiProcessIter(self)
        if self._iterator is None or self._iterator._workers.closed:
            self._iterator = _MultiProcessIter(self)
        else:
            self._iterator._reset(self)
        return self._iterator

    def __len__(self) -> int:
        if not self._iterable:
            return len(self._index_sampler)
        # As torch: the dataset's own length in batches, trusting it to split itself among
        # the workers (more batches than this gives a warning).
        length = self._len_reported = len(self.dataset)  # type: ignore[arg-type]
        if self.batch_size is not None:
            if self.drop_last:
                return length // self.batch_size
            return math.ceil(length / self.batch_size)
        return length

    def check_worker_number_rationality(self) -> None:
        """Warns when ``num_workers`` exceeds the CPUs this process may run on.

        More workers than CPUs rarely load faster and may slow everything down; the count
        honours the CPU affinity mask where the system has one.

        Returns:
            None

        Example::

            >>> from genesis.utils.data import DataLoader
            >>> DataLoader(range(4)).check_worker_number_rationality()  # no workers: silent
        """
        if self.num_workers == 0:
            return
        cpus = _cpu_count()
        if cpus is None or self.num_workers > cpus:
            suggestion = (
                f"the suggested maximum on this system is {cpus}"
                if cpus is not None
                else "the number of CPUs is unknown"
            )
            warnings.warn(
                f"[DataLoader] this DataLoader will create {self.num_workers} worker processes "
                f"and {suggestion}; excessive worker creation might get DataLoader running slow "
                "or even freeze, lower the worker number to avoid potential slowness/freeze if "
                "necessary",
                stacklevel=2,
            )
