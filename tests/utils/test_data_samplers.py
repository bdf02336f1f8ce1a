"""genesis.utils.data's samplers: the seed-independent behaviour against torch.utils.data
(sequential orders, batch grouping, lengths, DistributedSampler's shares without shuffling,
errors), and the random samplers' properties: permutations, ranges, reproducibility from
genesis's generators, and a rough check of the distributions."""

import itertools

import numpy as np
import pytest

import genesis
from genesis.utils.data import (
    BatchSampler,
    DistributedSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)


def _generator(seed):
    g = genesis.Generator()
    g.manual_seed(seed)
    return g


def test_sampler_base_class_needs_iter():
    with pytest.raises(NotImplementedError):
        iter(Sampler())


def test_sequential_sampler():
    s = SequentialSampler(range(5))
    assert list(s) == [0, 1, 2, 3, 4] and len(s) == 5
    assert list(SequentialSampler([])) == []


@pytest.mark.parametrize("n, batch_size", [(10, 3), (9, 3), (1, 4), (0, 2), (7, 1)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_as_torch(n, batch_size, drop_last):
    torch_data = pytest.importorskip("torch.utils.data")
    mine = BatchSampler(SequentialSampler(range(n)), batch_size, drop_last)
    theirs = torch_data.BatchSampler(torch_data.SequentialSampler(range(n)), batch_size, drop_last)
    assert list(mine) == list(theirs)
    assert len(mine) == len(theirs)


def test_batch_sampler_over_any_iterable():
    assert list(BatchSampler(iter("abcde"), 2, False)) == [["a", "b"], ["c", "d"], ["e"]]


@pytest.mark.parametrize("batch_size", [0, -1, 1.5, True, None])
def test_batch_sampler_bad_batch_size(batch_size):
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        BatchSampler(range(3), batch_size, False)


def test_batch_sampler_bad_drop_last():
    with pytest.raises(ValueError, match="drop_last should be a boolean"):
        BatchSampler(range(3), 2, 0)


def test_random_sampler_is_a_seeded_permutation():
    a = list(RandomSampler(range(50), generator=_generator(1)))
    assert sorted(a) == list(range(50)) and a != list(range(50))
    assert a == list(RandomSampler(range(50), generator=_generator(1)))
    assert a != list(RandomSampler(range(50), generator=_generator(2)))


def test_random_sampler_without_generator_follows_manual_seed():
    sampler = RandomSampler(range(20))
    genesis.manual_seed(5)
    first, second = list(sampler), list(sampler)
    assert first != second  # each epoch draws a new seed from the default generator
    genesis.manual_seed(5)
    assert [list(sampler), list(sampler)] == [first, second]


def test_random_sampler_num_samples_without_replacement():
    s = RandomSampler(range(4), num_samples=10, generator=_generator(0))
    keys = list(s)
    assert len(keys) == len(s) == 10
    assert sorted(keys[:4]) == sorted(keys[4:8]) == [0, 1, 2, 3]  # whole permutations first
    assert len(set(keys[8:])) == 2


def test_random_sampler_with_replacement():
    s = RandomSampler(range(3), replacement=True, num_samples=3000, generator=_generator(0))
    keys = np.array(list(s))
    assert len(keys) == 3000 and keys.min() == 0 and keys.max() == 2
    counts = np.bincount(keys, minlength=3)
    assert (abs(counts - 1000) < 150).all(), counts
    assert len(list(RandomSampler(range(3), replacement=True, num_samples=70))) == 70


def test_random_sampler_lengths_and_errors_as_torch():
    torch_data = pytest.importorskip("torch.utils.data")
    for kwargs in ({}, {"num_samples": 7}, {"replacement": True, "num_samples": 3}):
        mine = RandomSampler(range(5), **kwargs)
        assert len(mine) == len(torch_data.RandomSampler(range(5), **kwargs))
        assert mine.num_samples == len(mine)
    for kwargs, error in (
        ({"replacement": 1}, TypeError),
        ({"num_samples": 0}, ValueError),
        ({"num_samples": 2.0}, ValueError),
    ):
        with pytest.raises(error):
            torch_data.RandomSampler(range(5), **kwargs)
        with pytest.raises(error):
            RandomSampler(range(5), **kwargs)
    with pytest.raises(ValueError):
        RandomSampler([])  # num_samples = 0


def test_subset_random_sampler():
    indices = [10, 30, 50, 70]
    s = SubsetRandomSampler(indices, generator=_generator(3))
    keys = list(s)
    assert sorted(keys) == indices and len(s) == 4
    assert keys == list(SubsetRandomSampler(indices, generator=_generator(3)))


def test_weighted_random_sampler_with_replacement():
    weights = [0.0, 1.0, 3.0]
    s = WeightedRandomSampler(weights, 4000, generator=_generator(0))
    keys = np.array(list(s))
    assert len(keys) == len(s) == 4000
    counts = np.bincount(keys, minlength=3)
    assert counts[0] == 0 and 2800 < counts[2] < 3200, counts
    again = WeightedRandomSampler(weights, 4000, generator=_generator(0))
    assert list(again) == keys.tolist()


def test_weighted_random_sampler_without_replacement():
    keys = list(WeightedRandomSampler([1, 1, 1, 1, 5], 5, replacement=False))
    assert sorted(keys) == [0, 1, 2, 3, 4]
    assert WeightedRandomSampler([1.0, 2.0], 1).weights.dtype == genesis.float64


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (([1.0, 2.0], 0), {}),
        (([1.0, 2.0], True), {}),
        (([1.0, 2.0], 2), {"replacement": 1}),
        (([[1.0, 2.0]], 2), {}),
    ],
)
def test_weighted_random_sampler_errors_as_torch(args, kwargs):
    torch_data = pytest.importorskip("torch.utils.data")
    with pytest.raises(ValueError):
        torch_data.WeightedRandomSampler(*args, **kwargs)
    with pytest.raises(ValueError):
        WeightedRandomSampler(*args, **kwargs)


@pytest.mark.parametrize("n", [0, 1, 5, 10, 11, 13])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_without_shuffle_as_torch(n, replicas, drop_last):
    torch_data = pytest.importorskip("torch.utils.data")
    if n == 0 and not drop_last:
        pytest.skip("torch pads an empty dataset by dividing by zero")
    for rank in range(replicas):
        mine = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = torch_data.DistributedSampler(
            range(n), replicas, rank, shuffle=False, drop_last=drop_last
        )
        assert list(mine) == list(theirs)
        assert len(mine) == len(theirs)
        assert (mine.num_samples, mine.total_size) == (theirs.num_samples, theirs.total_size)


@pytest.mark.parametrize("n, replicas", [(10, 3), (12, 4), (5, 8)])
def test_distributed_sampler_shuffled_shares(n, replicas):
    def shares(epoch, seed=0, drop_last=False):
        out = []
        for rank in range(replicas):
            s = DistributedSampler(range(n), replicas, rank, seed=seed, drop_last=drop_last)
            s.set_epoch(epoch)
            out.append(list(s))
        return out

    first = shares(0)
    assert first == shares(0)  # every replica orders alike for one seed and epoch
    assert shares(1) != first and shares(0, seed=1) != first
    flat = list(itertools.chain(*first))
    assert set(flat) == set(range(n)) and len(flat) == len(first[0]) * replicas
    dropped = list(itertools.chain(*shares(0, drop_last=True)))
    assert len(dropped) == len(set(dropped)) == (n // replicas) * replicas


def test_distributed_sampler_bad_rank_and_missing_group():
    with pytest.raises(ValueError, match="Invalid rank|invalid rank"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="invalid rank"):
        DistributedSampler(range(4), num_replicas=2, rank=-1)
    with pytest.raises(RuntimeError, match="not initialized"):
        DistributedSampler(range(4))
