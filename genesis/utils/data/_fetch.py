"""Fetchers: the samples of one batch (or one sample) from a dataset, in the main process or a
worker. Collation is left to the caller, so that an error can say which of the two failed."""

from __future__ import annotations

from typing import Any


class _MapFetcher:
    """Samples of a map-style dataset by key: ``dataset[k]`` each, or ``__getitems__``."""

    def __init__(self, dataset: Any, auto_collation: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        many = getattr(dataset, "__getitems__", None)
        self.getitems = many if callable(many) else None

    def samples(self, index: Any) -> Any:
        if not self.auto_collation:
            return self.dataset[index]
        if self.getitems is not None:
            return self.getitems(index)
        return [self.dataset[i] for i in index]


class _IterableFetcher:
    """The next samples of an iterable dataset's iterator; StopIteration once it has no more
    (or, with ``drop_last``, fewer than a whole batch)."""

    def __init__(self, dataset: Any, auto_collation: bool, drop_last: bool) -> None:
        self.iterator = iter(dataset)
        self.auto_collation = auto_collation
        self.drop_last = drop_last
        self.ended = False

    def samples(self, index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return next(self.iterator)
        batch = []
        for _ in index:
            try:
                batch.append(next(self.iterator))
            except StopIteration:
                self.ended = True
                break
        if not batch or (self.drop_last and len(batch) < len(index)):
            raise StopIteration
        return batch


def make_fetcher(iterable: bool, dataset: Any, auto_collation: bool, drop_last: bool) -> Any:
    """The fetcher for a dataset of this kind (for an iterable one this calls ``iter``)."""
    if iterable:
        return _IterableFetcher(dataset, auto_collation, drop_last)
    return _MapFetcher(dataset, auto_collation)
