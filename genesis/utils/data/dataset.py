"""Datasets: the map-style ``Dataset`` and the stream-style ``IterableDataset``, and the ways of
combining them (``TensorDataset``, ``StackDataset``, ``ConcatDataset``, ``ChainDataset``,
``Subset``, ``random_split``), with torch.utils.data's names and behaviour.

A map-style dataset answers ``dataset[i]`` (and usually ``len(dataset)``); a sampler chooses the
keys. An iterable dataset is a stream: the ``DataLoader`` takes what ``iter(dataset)`` yields,
and in a worker process each worker iterates its own copy (``get_worker_info`` tells a copy
which part of the stream is its own).
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from ..._C import Generator, Tensor, default_generator, randperm

__all__ = [
    "ChainDataset",
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "StackDataset",
    "Subset",
    "TensorDataset",
    "random_split",
]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map from keys to samples: the base class of map-style datasets.

    A subclass defines ``__getitem__`` (a sample for a key, usually an ``int`` in
    ``range(len(dataset))``) and usually ``__len__``, which the default samplers and
    ``len(DataLoader)`` need. It may also define ``__getitems__(indices)``, returning the
    list of samples of a whole batch at once, which the ``DataLoader`` then calls instead of
    ``__getitem__`` once per key. ``a + b`` is ``ConcatDataset([a, b])``.

    Example::

        >>> from genesis.utils.data import Dataset
        >>> class Squares(Dataset):
        ...     def __len__(self):
        ...         return 4
        ...     def __getitem__(self, i):
        ...         return i * i
        >>> [Squares()[i] for i in range(4)]
        [0, 1, 4, 9]
        >>> len(Squares() + Squares())
        8
    """

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("[Dataset] subclasses of Dataset should implement __getitem__")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A stream of samples: the base class of iterable-style datasets.

    A subclass defines ``__iter__``. With ``num_workers > 0`` every worker process iterates
    its own copy of the dataset, so a dataset that should not repeat itself splits the
    stream: ``genesis.utils.data.get_worker_info()`` (None in the main process) gives the
    worker's ``id`` and ``num_workers``, in ``__iter__`` or in the loader's
    ``worker_init_fn``. ``a + b`` is ``ChainDataset([a, b])``.

    Example::

        >>> from genesis.utils.data import IterableDataset, get_worker_info
        >>> class Range(IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         info = get_worker_info()
        ...         if info is None:  # the main process: the whole stream
        ...             return iter(range(self.n))
        ...         return iter(range(info.id, self.n, info.num_workers))
        >>> list(Range(3) + Range(2))
        [0, 1, 2, 0, 1]
    """

    def __add__(self, other: Dataset[T_co]) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples that are rows of tensors: item ``i`` is ``(t[i] for t in tensors)``.

    Args:
        *tensors (Tensor): tensors of one size along dimension 0.

    Raises:
        AssertionError: when the tensors' first dimensions differ (as torch).

    Example::

        >>> from genesis.utils.data import TensorDataset
        >>> ds = TensorDataset(genesis.arange(6.0).reshape(3, 2), genesis.tensor([0, 1, 0]))
        >>> len(ds)
        3
        >>> ds[1]
        (tensor([2., 3.]), tensor(1))
    """

    def __init__(self, *tensors: Tensor) -> None:
        if tensors and any(t.size(0) != tensors[0].size(0) for t in tensors):
            sizes = [t.size(0) for t in tensors]
            raise AssertionError(f"Size mismatch between tensors: first dimensions {sizes}")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset[Any]):
    """Datasets of one length side by side: item ``i`` is the tuple (or dict) of their items.

    Give the datasets either by position (items are tuples) or by keyword (items are dicts).

    Args:
        *args (Dataset): datasets whose items go into a tuple.
        **kwargs (Dataset): datasets whose items go into a dict under these names.

    Raises:
        ValueError: when both or neither are given, or the lengths differ.

    Example::

        >>> from genesis.utils.data import StackDataset
        >>> StackDataset([1, 2], ["a", "b"])[1]
        (2, 'b')
        >>> StackDataset(x=[1, 2], y=["a", "b"])[0]
        {'x': 1, 'y': 'a'}
    """

    def __init__(self, *args: Dataset[Any], **kwargs: Dataset[Any]) -> None:
        if args and kwargs:
            raise ValueError(
                "[StackDataset] give the datasets either by position (tuple items) or by "
                "keyword (dict items), not both"
            )
        if not args and not kwargs:
            raise ValueError("[StackDataset] at least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        lengths = [len(d) for d in parts]  # type: ignore[arg-type]
        if any(n != lengths[0] for n in lengths):
            raise ValueError(f"[StackDataset] size mismatch between datasets: {lengths}")
        self._length = lengths[0]
        self.datasets: tuple[Any, ...] | dict[str, Any] = args if args else kwargs

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list[Any]) -> list[Any]:
        named = isinstance(self.datasets, dict)
        items = self.datasets.items() if named else enumerate(self.datasets)  # type: ignore[union-attr]
        columns = {}
        for key, d in items:
            many = getattr(d, "__getitems__", None)
            column = many(indices) if callable(many) else [d[i] for i in indices]
            if len(column) != len(indices):
                raise ValueError(
                    f"[StackDataset] nested dataset's output size mismatch: expected "
                    f"{len(indices)}, got {len(column)}"
                )
            columns[key] = column
        if named:
            return [{k: c[j] for k, c in columns.items()} for j in range(len(indices))]
        return [tuple(c[j] for c in columns.values()) for j in range(len(indices))]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """Map-style datasets one after the other: keys ``0 .. len(a) - 1`` are ``a``'s, the next
    ``len(b)`` are ``b``'s, and so on; negative keys count from the end.

    Args:
        datasets (iterable of Dataset): the map-style datasets, at least one.

    Raises:
        AssertionError: for no dataset or an ``IterableDataset`` among them (as torch).

    Example::

        >>> from genesis.utils.data import ConcatDataset
        >>> ds = ConcatDataset([[0, 1, 2], [10, 11]])
        >>> len(ds), ds[3], ds[-1], ds.cumulative_sizes
        (5, 10, 11, [3, 5])
    """

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        """The running totals of the lengths of ``sequence``'s items.

        Args:
            sequence (iterable of sized objects): the datasets.

        Returns:
            list of int: ``[len(s0), len(s0) + len(s1), ...]``.

        Example::

            >>> from genesis.utils.data import ConcatDataset
            >>> ConcatDataset.cumsum([[1, 2], [3], [4, 5, 6]])
            [2, 3, 6]
        """
        return list(itertools.accumulate(len(s) for s in sequence))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += n
        if idx >= n:
            raise IndexError(f"[ConcatDataset] index {idx} is out of range for length {n}")
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other, chained as they are iterated.

    Args:
        datasets (iterable of IterableDataset): the streams, iterated in order.

    Raises:
        AssertionError: while iterating or taking the length, for a dataset that is not an
            ``IterableDataset`` (as torch).

    Example::

        >>> from genesis.utils.data import ChainDataset, IterableDataset
        >>> class Count(IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n))
        ...     def __len__(self):
        ...         return self.n
        >>> chain = ChainDataset([Count(2), Count(3)])
        >>> list(chain), len(chain)
        ([0, 1, 0, 1, 2], 5)
    """

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = datasets

    def _each(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield d

    def __iter__(self) -> Iterator[Any]:
        for d in self._each():
            yield from d

    def __len__(self) -> int:
        return sum(len(d) for d in self._each())  # type: ignore[arg-type]


class Subset(Dataset[T_co]):
    """The items of ``dataset`` at ``indices``: item ``i`` is ``dataset[indices[i]]``.

    As in torch 2.13, a subclass that overrides ``__getitem__`` must override
    ``__getitems__`` too (the ``DataLoader`` calls the latter).

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence of int): the keys of ``dataset`` in the subset, in order.

    Raises:
        NotImplementedError: for a subclass overriding ``__getitem__`` alone.

    Example::

        >>> from genesis.utils.data import Subset
        >>> sub = Subset(["a", "b", "c", "d"], [3, 0])
        >>> len(sub), sub[0], sub.__getitems__([1, 0])
        (2, 'd', ['a', 'd'])
    """

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        cls = type(self)
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"[Subset] {cls.__name__} overrides __getitem__ but not __getitems__, which the "
                "DataLoader calls; add\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]"
            )
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> T_co:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[T_co]:
        keys = [self.indices[i] for i in indices]
        many = getattr(self.dataset, "__getitems__", None)
        if callable(many):
            return many(keys)  # type: ignore[no-any-return]
        return [self.dataset[k] for k in keys]

    def __len__(self) -> int:
        return len(self.indices)


def _lengths_from_fractions(fractions: Sequence[float], n: int) -> list[int]:
    """floor(f * n) each, then the remainder handed out one by one from the first (torch's)."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"[random_split] fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(
                f"[random_split] length of split at index {i} is 0; this split is an empty dataset",
                stacklevel=3,
            )
    return lengths


def random_split(
    dataset: Dataset[T],
    lengths: Sequence[int | float],
    generator: Generator | None = default_generator,
) -> list[Subset[T]]:
    """Splits ``dataset`` at random into non-overlapping subsets of the given lengths.

    ``lengths`` are item counts summing to ``len(dataset)``, or fractions summing to 1: then
    each split gets ``floor(fraction * len(dataset))`` items, and the items left over go one
    each to the splits in order (a split of length 0 warns). The permutation comes from
    ``genesis.randperm`` with ``generator``, so the same seed gives the same splits.

    Args:
        dataset (Dataset): the dataset to split.
        lengths (sequence of int or float): the splits' lengths, or fractions of the dataset.
        generator (genesis.Generator, optional): the source of the permutation.
            Default: ``genesis.default_generator``.

    Returns:
        list of Subset: one per length, in the order given.

    Raises:
        ValueError: when the lengths do not add up to the dataset's length, or a fraction is
            outside [0, 1].

    Example::

        >>> from genesis.utils.data import random_split
        >>> g = genesis.Generator()
        >>> _ = g.manual_seed(0)
        >>> train, test = random_split(range(10), [0.8, 0.2], generator=g)
        >>> len(train), len(test), sorted(list(train) + list(test)) == list(range(10))
        (8, 2, True)
    """
    n = len(dataset)  # type: ignore[arg-type]
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        lengths = _lengths_from_fractions(lengths, n)
    if sum(lengths) != n:
        raise ValueError(
            f"[random_split] sum of input lengths ({sum(lengths)}) does not equal the length of "
            f"the input dataset ({n})"
        )
    order = randperm(n, generator=generator).tolist()
    ends = itertools.accumulate(int(k) for k in lengths)
    return [Subset(dataset, order[end - int(k) : end]) for end, k in zip(ends, lengths)]
