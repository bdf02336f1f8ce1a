"""Samplers: the order in which a ``DataLoader`` asks a map-style dataset for its items
(``SequentialSampler``, ``RandomSampler``, ``SubsetRandomSampler``, ``WeightedRandomSampler``)
and how it groups them into batches (``BatchSampler``), with torch.utils.data's names and
behaviour.

Random samplers draw from genesis's generators (``genesis.randperm``, ``genesis.randint``,
``genesis.multinomial``), in the main process: the same seed (``genesis.manual_seed`` or a
``generator=``) gives the same order whatever the number of workers. The numbers differ from
torch's for the same seed (genesis's generator is Philox, Note [Generators] in
csrc/ops/generator.h); the distributions are the same.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

from ..._C import Generator, empty, float64, int64, multinomial, randint, randperm, tensor

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]

T_co = TypeVar("T_co", covariant=True)

_CHUNK = 32  # indices drawn at a time with replacement, so a partly used epoch draws few


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Sampler(Generic[T_co]):
    """The base class of samplers: an iterable of dataset keys (or of lists of keys).

    A subclass defines ``__iter__`` and, where it can, ``__len__`` (which ``len(DataLoader)``
    uses).

    Example::

        >>> from genesis.utils.data import Sampler
        >>> class EvenFirst(Sampler):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter([*range(0, self.n, 2), *range(1, self.n, 2)])
        ...     def __len__(self):
        ...         return self.n
        >>> list(EvenFirst(5))
        [0, 2, 4, 1, 3]
    """

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError("[Sampler] subclasses of Sampler should implement __iter__")


class SequentialSampler(Sampler[int]):
    """The keys ``0, 1, ..., len(data_source) - 1``, in order.

    Args:
        data_source (Sized): the dataset (only its length is used).

    Example::

        >>> from genesis.utils.data import SequentialSampler
        >>> list(SequentialSampler(range(4)))
        [0, 1, 2, 3]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _seeded_generator(generator: Generator | None) -> Generator:
    """``generator``, or a new one seeded from the default generator (as torch's samplers)."""
    if generator is not None:
        return generator
    fresh = Generator()
    fresh.manual_seed(int(empty((), dtype=int64).random_().item()))
    return fresh


class RandomSampler(Sampler[int]):
    """The keys of ``data_source`` in random order.

    Without replacement, each pass is a permutation of ``range(len(data_source))``
    (``num_samples`` beyond the length starts further permutations); with replacement, each key
    is drawn uniformly and independently. Without a ``generator``, each ``iter()`` seeds a new
    generator from the default one (``genesis.manual_seed`` fixes the sequence of epochs).

    Args:
        data_source (Sized): the dataset (only its length is used).
        replacement (bool): draw with replacement. Default: False.
        num_samples (int, optional): how many keys one pass yields. Default: None, the
            length of ``data_source``.
        generator (genesis.Generator, optional): the source of the randomness. Default: None.

    Raises:
        TypeError: when ``replacement`` is not a bool.
        ValueError: when ``num_samples`` is not a positive int.

    Example::

        >>> from genesis.utils.data import RandomSampler
        >>> g = genesis.Generator()
        >>> _ = g.manual_seed(0)
        >>> sorted(RandomSampler(range(5), generator=g))
        [0, 1, 2, 3, 4]
        >>> len(RandomSampler(range(5), replacement=True, num_samples=12))
        12
    """

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"[RandomSampler] replacement should be a boolean value, but got "
                f"replacement={replacement!r}"
            )
        if not _is_int(self.num_samples) or self.num_samples <= 0:
            raise ValueError(
                f"[RandomSampler] num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples!r}"
            )

    @property
    def num_samples(self) -> int:
        """How many keys one pass yields: ``num_samples`` if given, else the dataset's length.

        Example::

            >>> from genesis.utils.data import RandomSampler
            >>> RandomSampler(range(7)).num_samples
            7
        """
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = _seeded_generator(self.generator)
        if self.replacement:
            for start in range(0, self.num_samples, _CHUNK):
                size = min(_CHUNK, self.num_samples - start)
                yield from randint(high=n, size=(size,), dtype=int64, generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=generator).tolist()
        yield from randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given keys in a random order, each once per pass.

    Args:
        indices (sequence of int): the keys.
        generator (genesis.Generator, optional): the source of the randomness. Default: None
            (the default generator).

    Example::

        >>> from genesis.utils.data import SubsetRandomSampler
        >>> sorted(SubsetRandomSampler([10, 20, 30]))
        [10, 20, 30]
    """

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """Keys ``0 .. len(weights) - 1`` drawn with probabilities proportional to ``weights``.

    One pass is one ``genesis.multinomial`` draw of ``num_samples`` keys; without replacement a
    key is drawn at most once per pass.

    Args:
        weights (sequence of float): the keys' weights (need not sum to 1), one dimension.
        num_samples (int): how many keys one pass yields.
        replacement (bool): draw with replacement. Default: True.
        generator (genesis.Generator, optional): the source of the randomness. Default: None
            (the default generator).

    Raises:
        ValueError: when ``num_samples`` is not a positive int, ``replacement`` not a bool, or
            ``weights`` not one-dimensional.

    Example::

        >>> from genesis.utils.data import WeightedRandomSampler
        >>> keys = list(WeightedRandomSampler([0.0, 1.0, 0.0], 4))
        >>> keys
        [1, 1, 1, 1]
    """

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:
        if not _is_int(num_samples) or num_samples <= 0:
            raise ValueError(
                f"[WeightedRandomSampler] num_samples should be a positive integer value, but "
                f"got num_samples={num_samples!r}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"[WeightedRandomSampler] replacement should be a boolean value, but got "
                f"replacement={replacement!r}"
            )
        weights_tensor = tensor(weights, dtype=float64)
        if weights_tensor.dim() != 1:
            raise ValueError(
                f"[WeightedRandomSampler] weights should be a 1d sequence but given weights "
                f"have shape {tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups the keys of ``sampler`` into lists of ``batch_size``.

    The last list is shorter when the keys run out, or left out with ``drop_last``.

    Args:
        sampler (Sampler or iterable): the keys, in order.
        batch_size (int): the length of a batch, positive.
        drop_last (bool): leave out a last batch shorter than ``batch_size``.

    Raises:
        ValueError: when ``batch_size`` is not a positive int or ``drop_last`` not a bool.

    Example::

        >>> from genesis.utils.data import BatchSampler, SequentialSampler
        >>> list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False))
        [[0, 1, 2], [3, 4, 5], [6]]
        >>> len(BatchSampler(range(7), batch_size=3, drop_last=True))
        2
    """

    def __init__(
        self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool
    ) -> None:
        if not _is_int(batch_size) or batch_size <= 0:
            raise ValueError(
                f"[BatchSampler] batch_size should be a positive integer value, but got "
                f"batch_size={batch_size!r}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(
                f"[BatchSampler] drop_last should be a boolean value, but got "
                f"drop_last={drop_last!r}"
            )
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        keys = iter(self.sampler)
        while batch := list(itertools.islice(keys, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
