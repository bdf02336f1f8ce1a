"""genesis.utils.data: datasets, samplers and the DataLoader, with torch.utils.data's names,
signatures, defaults and behaviour.

One concept per module: ``dataset.py`` (Dataset, IterableDataset and their combinations),
``sampler.py`` (the orders of keys and BatchSampler), ``distributed.py`` (DistributedSampler),
``collate.py`` (default_collate and default_convert, Note [Batches in shared memory]),
``dataloader.py`` (DataLoader), ``_iterators.py`` (its iterators and worker processes, Note
[DataLoader shutdown]) and ``_worker.py`` (what runs in a worker process, get_worker_info, Note
[DataLoader workers]).

Example::

    >>> from genesis.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(genesis.arange(6.0).reshape(3, 2), genesis.tensor([0, 1, 0]))
    >>> for x, y in DataLoader(ds, batch_size=2):
    ...     print(tuple(x.shape), y.tolist())
    (2, 2) [0, 1]
    (1, 2) [0]
"""

from ._worker import get_worker_info
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
