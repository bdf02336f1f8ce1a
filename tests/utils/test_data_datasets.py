"""genesis.utils.data's datasets: Dataset, IterableDataset, TensorDataset, StackDataset,
ConcatDataset, ChainDataset, Subset and random_split, against torch.utils.data where the two
are comparable (lengths, items, errors), and random_split's split properties."""

import pytest

import genesis
from genesis.utils.data import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i * i


class Stream(IterableDataset):
    def __init__(self, items):
        self.items = list(items)

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)


def test_dataset_base_class_needs_getitem():
    with pytest.raises(NotImplementedError, match="__getitem__"):
        Dataset()[0]


def test_adding_datasets():
    both = Squares(3) + Squares(2)
    assert isinstance(both, ConcatDataset)
    assert [both[i] for i in range(len(both))] == [0, 1, 4, 0, 1]
    chain = Stream([1, 2]) + Stream([3])
    assert isinstance(chain, ChainDataset)
    assert list(chain) == [1, 2, 3] and len(chain) == 3


def test_tensor_dataset_rows():
    x = genesis.arange(12.0).reshape(4, 3)
    y = genesis.tensor([0, 1, 2, 3])
    ds = TensorDataset(x, y)
    assert len(ds) == 4
    row, label = ds[2]
    assert row.tolist() == [6.0, 7.0, 8.0] and label.item() == 2
    a, b = ds[[0, 3]]
    assert a.tolist() == [[0.0, 1.0, 2.0], [9.0, 10.0, 11.0]] and b.tolist() == [0, 3]


def test_tensor_dataset_size_mismatch_is_an_assertion_error_as_torch():
    with pytest.raises(AssertionError, match="Size mismatch"):
        TensorDataset(genesis.zeros(3), genesis.zeros(4))


def test_stack_dataset_tuple_and_dict():
    t = StackDataset([1, 2, 3], "abc")
    assert t[1] == (2, "b") and len(t) == 3
    assert t.__getitems__([0, 2]) == [(1, "a"), (3, "c")]
    d = StackDataset(x=[1, 2], y=Squares(2))
    assert d[1] == {"x": 2, "y": 1}
    assert d.__getitems__([1, 0]) == [{"x": 2, "y": 1}, {"x": 1, "y": 0}]
    with pytest.raises(ValueError, match="not both"):
        StackDataset([1], y=[2])
    with pytest.raises(ValueError, match="at least one"):
        StackDataset()
    with pytest.raises(ValueError, match="size mismatch"):
        StackDataset([1, 2], [3])


def test_concat_dataset_indexing_as_torch():
    torch_data = pytest.importorskip("torch.utils.data")
    parts = [[0, 1, 2], [], [10, 11], [20]]
    mine, theirs = ConcatDataset(parts), torch_data.ConcatDataset(parts)
    assert len(mine) == len(theirs) == 6
    assert mine.cumulative_sizes == theirs.cumulative_sizes == [3, 3, 5, 6]
    for i in range(-6, 6):
        assert mine[i] == theirs[i]
    with pytest.raises(ValueError, match="absolute value"):
        mine[-7]
    with pytest.raises(IndexError):
        mine[6]
    with pytest.raises(AssertionError):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="IterableDataset"):
        ConcatDataset([[1], Stream([2])])
    assert ConcatDataset.cumsum([[1], [2, 3]]) == [1, 3]


def test_chain_dataset_rejects_map_style_datasets():
    chain = ChainDataset([Stream([1]), [2, 3]])
    with pytest.raises(AssertionError, match="only supports IterableDataset"):
        list(chain)
    with pytest.raises(AssertionError, match="only supports IterableDataset"):
        len(chain)


def test_subset_items_and_getitems():
    base = Squares(6)
    sub = Subset(base, [5, 1, 3])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [25, 1, 9]
    assert sub.__getitems__([2, 0]) == [9, 25]
    nested = Subset(Subset(base, [4, 5]), [1])
    assert nested.__getitems__([0]) == [25]  # delegates to the inner Subset's __getitems__


def test_subset_subclass_overriding_getitem_alone_raises_as_torch():
    class Doubled(Subset):
        def __getitem__(self, i):
            return 2 * super().__getitem__(i)

    with pytest.raises(NotImplementedError, match="__getitems__"):
        Doubled([1, 2], [0])

    class Fine(Doubled):
        def __getitems__(self, indices):
            return [self[i] for i in indices]

    assert Fine([1, 2], [1, 0]).__getitems__([0, 1]) == [4, 2]


def _parts(splits):
    return [list(s) for s in splits]


def test_random_split_lengths_disjoint_and_seeded():
    g1, g2 = genesis.Generator(), genesis.Generator()
    g1.manual_seed(7)
    g2.manual_seed(7)
    a = random_split(range(20), [5, 15], generator=g1)
    b = random_split(range(20), [5, 15], generator=g2)
    assert _parts(a) == _parts(b)
    assert [len(s) for s in a] == [5, 15]
    assert sorted(a[0].indices + a[1].indices) == list(range(20))
    assert isinstance(a[0], Subset)
    genesis.manual_seed(3)
    c = _parts(random_split(range(20), [10, 10]))  # the default generator
    genesis.manual_seed(3)
    assert _parts(random_split(range(20), [10, 10])) == c


@pytest.mark.parametrize(
    "n, fractions",
    [(10, [0.5, 0.5]), (11, [0.3, 0.3, 0.4]), (7, [0.1, 0.9]), (5, [1.0]), (30, [0.25] * 4)],
)
def test_random_split_fraction_lengths_as_torch(n, fractions):
    torch = pytest.importorskip("torch")
    theirs = torch.utils.data.random_split(range(n), fractions)
    mine = random_split(range(n), fractions)
    assert [len(s) for s in mine] == [len(s) for s in theirs]
    assert sorted(sum(_parts(mine), [])) == list(range(n))


def test_random_split_errors_and_warnings():
    with pytest.raises(ValueError, match="does not equal"):
        random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="between 0 and 1"):
        random_split(range(10), [1.5, -0.5])
    with pytest.warns(UserWarning) as caught:
        random_split(range(2), [0.9, 0.05, 0.05])  # lengths [2, 0, 0]
    messages = [str(w.message) for w in caught]
    assert any("index 1 is 0" in m for m in messages) and any("index 2 is 0" in m for m in messages)


def test_datasets_are_generic_like_torch():
    assert Dataset[int] is not None and Subset[str] is not None
