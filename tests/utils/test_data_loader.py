"""The DataLoader in the main process (num_workers=0): its batches and len() against
torch.utils.data.DataLoader's for the same dataset and options, its argument checks (torch's
exception classes), shuffling from genesis's generators, iterable datasets and pin_memory."""

import pickle
import sys
import warnings

import numpy as np
import pytest

import genesis
from genesis.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    DistributedSampler,
    IterableDataset,
    SequentialSampler,
    TensorDataset,
)


class Pairs(Dataset):
    """Sample i: (a float32 array, the label i % 3)."""

    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.full(3, i, np.float32), i % 3


class StreamBody:
    """0 .. n - 1; a base of both libraries' iterable datasets."""

    def __init__(self, n=7, sized=True):
        self.n = n
        self.sized = sized

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        if not self.sized:
            raise TypeError("no len")
        return self.n


class Stream(StreamBody, IterableDataset):
    pass


def torch_stream(torch, *args):
    return type("TorchStream", (StreamBody, torch.utils.data.IterableDataset), {})(*args)


class Batched(Dataset):
    """Counts the calls of __getitems__, which the loader should prefer."""

    def __init__(self):
        self.calls = 0

    def __len__(self):
        return 6

    def __getitem__(self, i):
        raise AssertionError("__getitems__ should be used")

    def __getitems__(self, indices):
        self.calls += 1
        return [i * 10 for i in indices]


def _plain(batch):
    """Tensors (genesis or torch) as lists, containers as lists."""
    if hasattr(batch, "tolist"):
        return batch.tolist()
    if isinstance(batch, (list, tuple)):
        return [_plain(b) for b in batch]
    if isinstance(batch, dict):
        return {k: _plain(v) for k, v in batch.items()}
    return batch


LOADER_OPTIONS = [
    {},
    {"batch_size": 3},
    {"batch_size": 3, "drop_last": True},
    {"batch_size": 10},
    {"batch_size": 4, "sampler": [9, 0, 5, 5, 1]},
    {"batch_size": None},
    {"batch_sampler": [[0, 1], [7], [2, 3, 4]]},
]


@pytest.mark.parametrize("options", LOADER_OPTIONS, ids=str)
def test_batches_and_len_as_torch(options):
    torch = pytest.importorskip("torch")
    mine = DataLoader(Pairs(), **options)
    theirs = torch.utils.data.DataLoader(Pairs(), **options)
    assert len(mine) == len(theirs)
    got, want = [_plain(b) for b in mine], [_plain(b) for b in theirs]
    assert got == want


@pytest.mark.parametrize(
    "options", [{}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}]
)
def test_iterable_dataset_as_torch(options):
    torch = pytest.importorskip("torch")
    mine = DataLoader(Stream(), **options)
    theirs = torch.utils.data.DataLoader(torch_stream(torch), **options)
    assert len(mine) == len(theirs)
    assert [_plain(b) for b in mine] == [_plain(b) for b in theirs]


def test_tensor_dataset_batches():
    ds = TensorDataset(genesis.arange(8.0).reshape(4, 2), genesis.tensor([1, 0, 1, 0]))
    batches = list(DataLoader(ds, batch_size=3))
    assert [x.shape for x, _ in batches] == [(3, 2), (1, 2)]
    assert batches[0][1].tolist() == [1, 0, 1] and batches[1][0].tolist() == [[6.0, 7.0]]


def test_getitems_is_used_for_batches():
    ds = Batched()
    assert [b.tolist() for b in DataLoader(ds, batch_size=4)] == [[0, 10, 20, 30], [40, 50]]
    assert ds.calls == 2


def test_batch_size_none_converts_each_sample():
    out = list(DataLoader(Pairs(2), batch_size=None))
    assert isinstance(out[0], list) and isinstance(out[0][0], genesis.Tensor)  # tuple -> list
    assert out[1][0].tolist() == [1.0, 1.0, 1.0] and out[1][1] == 1


def test_custom_collate_and_batch_sampler():
    sampler = BatchSampler(SequentialSampler(range(5)), 2, False)
    loader = DataLoader(Pairs(5), batch_sampler=sampler, collate_fn=lambda b: len(b))
    assert list(loader) == [2, 2, 1] and len(loader) == 3
    assert loader.batch_size is None and loader.drop_last is False


def test_shuffle_follows_the_seed_and_changes_every_epoch():
    loader = DataLoader(range(20), batch_size=5, shuffle=True)
    genesis.manual_seed(11)
    first = [b.tolist() for b in loader]
    second = [b.tolist() for b in loader]
    assert first != second
    assert sorted(sum(first, [])) == list(range(20))
    genesis.manual_seed(11)
    assert [b.tolist() for b in loader] == first


def test_shuffle_with_a_generator():
    def epoch(seed):
        g = genesis.Generator()
        g.manual_seed(seed)
        return [b.tolist() for b in DataLoader(range(12), batch_size=4, shuffle=True, generator=g)]

    assert epoch(1) == epoch(1) and epoch(1) != epoch(2)


def test_distributed_sampler_in_a_loader():
    sampler = DistributedSampler(range(10), num_replicas=2, rank=1, shuffle=False)
    assert [b.tolist() for b in DataLoader(range(10), batch_size=2, sampler=sampler)] == [
        [1, 3],
        [5, 7],
        [9],
    ]


def test_iterable_dataset_len_warning():
    loader = DataLoader(Stream(5), batch_size=None)
    assert len(loader) == 5
    loader.dataset.n = 6  # yields more than it said
    with pytest.warns(UserWarning, match="was reported to be 5"):
        assert len(list(loader)) == 6


def test_iterable_dataset_without_len():
    loader = DataLoader(Stream(3, sized=False), batch_size=2)
    assert [b.tolist() for b in loader] == [[0, 1], [2]]
    with pytest.raises(TypeError):
        len(loader)


BAD_OPTIONS = [
    ({"batch_size": 0}, ValueError),
    ({"batch_size": -2}, ValueError),
    ({"shuffle": True, "sampler": [0, 1]}, ValueError),
    ({"batch_sampler": [[0]], "batch_size": 2}, ValueError),
    ({"batch_sampler": [[0]], "shuffle": True}, ValueError),
    ({"batch_sampler": [[0]], "sampler": [0]}, ValueError),
    ({"batch_sampler": [[0]], "drop_last": True}, ValueError),
    ({"batch_size": None, "drop_last": True}, ValueError),
    ({"num_workers": -1}, ValueError),
    ({"timeout": -1}, ValueError),
    ({"prefetch_factor": 2}, ValueError),
    ({"num_workers": 1, "prefetch_factor": -1}, ValueError),
    ({"persistent_workers": True}, ValueError),
    ({"multiprocessing_context": "fork"}, ValueError),
    ({"num_workers": 1, "multiprocessing_context": "nonsense"}, ValueError),
    ({"num_workers": 1, "multiprocessing_context": 3}, TypeError),
]


@pytest.mark.parametrize("options, error", BAD_OPTIONS, ids=str)
def test_bad_options_raise_torch_classes(options, error):
    torch = pytest.importorskip("torch")
    with pytest.raises(error):
        torch.utils.data.DataLoader(Pairs(), **options)
    with pytest.raises(error, match=r"^\[DataLoader\]|\[BatchSampler\]"):
        DataLoader(Pairs(), **options)


@pytest.mark.parametrize(
    "options", [{"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}], ids=str
)
def test_iterable_dataset_refuses_samplers_as_torch(options):
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError):
        torch.utils.data.DataLoader(torch_stream(torch), **options)
    with pytest.raises(ValueError, match="IterableDataset"):
        DataLoader(Stream(), **options)


def test_stricter_than_torch():
    with pytest.raises(ValueError, match="needs num_workers > 0"):
        DataLoader(Pairs(), timeout=1)  # torch: an AssertionError at iter()
    with pytest.raises(ValueError, match="should be positive"):
        DataLoader(Pairs(), num_workers=1, prefetch_factor=0)  # torch: an AssertionError


def test_attributes_are_frozen_after_init():
    loader = DataLoader(Pairs(), batch_size=2)
    for name in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset"):
        with pytest.raises(ValueError, match="should not be set"):
            setattr(loader, name, None)
    loader.num_workers = 0  # others may change
    loader.collate_fn = len


def test_multiprocessing_context_accepts_names_and_contexts():
    import multiprocessing

    loader = DataLoader(Pairs(), num_workers=1, multiprocessing_context="spawn")
    assert loader.multiprocessing_context.get_start_method() == "spawn"
    ctx = multiprocessing.get_context("fork")
    assert (
        DataLoader(Pairs(), num_workers=1, multiprocessing_context=ctx).multiprocessing_context
        is ctx
    )
    assert DataLoader(Pairs()).multiprocessing_context is None


def test_too_many_workers_warn():
    with pytest.warns(UserWarning, match="1000 worker processes"):
        DataLoader(Pairs(), num_workers=1000)


def test_iterator_cannot_be_pickled():
    with pytest.raises(NotImplementedError):
        pickle.dumps(iter(DataLoader(Pairs())))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="notes are Python 3.11's")
def test_main_process_errors_name_the_batch():
    def collate(batch):
        if batch[0][1] == 2:
            raise ValueError("cannot collate")
        return batch

    with pytest.raises(ValueError, match="cannot collate") as info:
        list(DataLoader(Pairs(), batch_size=2, collate_fn=collate))
    assert "collating batch 1" in "".join(info.value.__notes__)


@pytest.mark.skipif(genesis.cuda.is_available(), reason="pins where CUDA is present")
def test_pin_memory_without_cuda_warns_and_does_nothing():
    with pytest.warns(UserWarning, match="pin_memory"):
        batches = list(DataLoader(Pairs(4), batch_size=2, pin_memory=True))
    assert not batches[0][0].is_pinned()


@pytest.mark.skipif(not genesis.cuda.is_available(), reason="needs CUDA")
def test_pin_memory_pins_with_cuda():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batches = list(DataLoader(Pairs(4), batch_size=2, pin_memory=True))
    assert batches[0][0].is_pinned() and batches[0][1].is_pinned()
