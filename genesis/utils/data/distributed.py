"""DistributedSampler: each of ``num_replicas`` processes loads its own share of a dataset."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, TypeVar

from ..._C import Generator, randperm
from .sampler import Sampler

__all__ = ["DistributedSampler"]

T_co = TypeVar("T_co", covariant=True)


def _group_default(what: str) -> int:
    """The default process group's world size or rank (genesis.distributed, imported late)."""
    from ... import distributed

    if not distributed.is_available():
        raise RuntimeError("[DistributedSampler] requires the distributed package to be available")
    return distributed.get_world_size() if what == "num_replicas" else distributed.get_rank()


class DistributedSampler(Sampler[T_co]):
    """The keys of a dataset that belong to one of ``num_replicas`` processes.

    All replicas order the keys alike (shuffled by a generator seeded with ``seed + epoch``,
    or in order), pad the list by repeating its head until it divides evenly (or, with
    ``drop_last``, cut its tail), and replica ``rank`` takes every ``num_replicas``-th key
    from position ``rank``: the replicas' shares are disjoint (but for the padding) and cover
    the dataset. Call ``set_epoch`` before each epoch for a new order. As in torch, the shares
    for the same seed and epoch are the same on every replica; the shuffled order itself
    differs from torch's (genesis's ``randperm``).

    Args:
        dataset (Dataset): the dataset (only its length is used); of constant length.
        num_replicas (int, optional): the number of processes. Default: None, the default
            process group's world size.
        rank (int, optional): this process's rank, in ``[0, num_replicas - 1]``. Default:
            None, the rank in the default process group.
        shuffle (bool): shuffle the keys. Default: True.
        seed (int): the shuffle's seed, the same on every replica. Default: 0.
        drop_last (bool): cut the tail instead of padding. Default: False.

    Raises:
        ValueError: when ``rank`` is outside ``[0, num_replicas - 1]``.
        RuntimeError: when ``num_replicas`` or ``rank`` is left out and no process group is
            initialized.

    Example::

        >>> from genesis.utils.data import DistributedSampler
        >>> [list(DistributedSampler(range(5), 2, r, shuffle=False)) for r in range(2)]
        [[0, 2, 4], [1, 3, 0]]
        >>> s = DistributedSampler(range(5), num_replicas=2, rank=0, drop_last=True)
        >>> len(s)
        2
    """

    def __init__(
        self,
        dataset: Any,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None:
            num_replicas = _group_default("num_replicas")
        if rank is None:
            rank = _group_default("rank")
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"[DistributedSampler] invalid rank {rank}, rank should be in the interval "
                f"[0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[T_co]:
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            keys = randperm(n, generator=g).tolist()
        else:
            keys = list(range(n))
        if self.drop_last:
            keys = keys[: self.total_size]
        else:
            missing = self.total_size - len(keys)
            keys += (keys * math.ceil(missing / len(keys)))[:missing] if missing else []
        return iter(keys[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch, which with ``seed`` seeds the next shuffle.

        Call it at the start of every epoch, before iterating the ``DataLoader``, with the same
        value on every replica; otherwise each epoch repeats the same order.

        Args:
            epoch (int): the epoch number.

        Returns:
            None

        Example::

            >>> from genesis.utils.data import DistributedSampler
            >>> s = DistributedSampler(range(8), num_replicas=2, rank=1)
            >>> s.set_epoch(3)
            >>> s.epoch
            3
        """
        self.epoch = epoch
