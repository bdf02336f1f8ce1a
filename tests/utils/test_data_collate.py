"""default_collate and default_convert against torch.utils.data's: the same structure (container
types, keys, named tuples, tuples made lists), the same dtypes and values, the same error
classes; a worker's tensor batches are made in shared memory; pin_memory keeps structures."""

import collections
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import genesis
from genesis.utils.data import collate as collate_module
from genesis.utils.data import default_collate, default_convert
from genesis.utils.data._pin_memory import pin_memory
from genesis.utils.data.collate import collate, collate_str_fn, default_collate_fn_map

Point = namedtuple("Point", ["x", "y"])


class ReadOnlyMapping(collections.abc.Mapping):
    """A Mapping that cannot be rebuilt from a dict (collate then gives a plain dict)."""

    def __init__(self, **items):
        self._items = items

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


def describe(value):
    """A library-neutral picture of a collated value: containers by type, tensors by dtype
    name, shape and values."""
    kind = type(value).__name__
    if kind == "Tensor":
        dtype = str(value.dtype).rsplit(".", 1)[-1]
        return ("tensor", dtype, tuple(value.shape), value.tolist())
    if isinstance(value, collections.abc.Mapping):
        return (kind, {k: describe(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return (kind, [describe(v) for v in value])
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.tolist())
    return (kind, value)


def to_torch(sample, torch):
    """The same sample with genesis tensors made torch tensors."""
    if isinstance(sample, genesis.Tensor):
        return torch.from_numpy(sample.numpy().copy())
    if isinstance(sample, Point):
        return Point(*(to_torch(v, torch) for v in sample))
    if isinstance(sample, dict):
        return type(sample)((k, to_torch(v, torch)) for k, v in sample.items())
    if isinstance(sample, (list, tuple)):
        return type(sample)(to_torch(v, torch) for v in sample)
    return sample


BATCHES = {
    "ints": [0, 1, 2],
    "bools": [True, False],
    "floats": [0.5, 1.5],
    "strings": ["a", "bc"],
    "bytes": [b"a", b"b"],
    "numpy float32": [np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)],
    "numpy int16": [np.arange(3, dtype=np.int16), np.arange(3, dtype=np.int16)],
    "numpy bool": [np.array([True]), np.array([False])],
    "numpy scalars f32": [np.float32(1.5), np.float32(2.5)],
    "numpy scalars i64": [np.int64(3), np.int64(4)],
    "numpy 0-d": [np.array(1.0), np.array(2.0)],
    "tensors": [genesis.arange(6.0).reshape(2, 3), genesis.ones(2, 3)],
    "int tensors": [genesis.tensor([1, 2]), genesis.tensor([3, 4])],
    "0-d tensors": [genesis.tensor(1.0), genesis.tensor(2.0)],
    "dicts": [{"x": 1, "name": "a"}, {"x": 2, "name": "b"}],
    "ordered dicts": [OrderedDict(b=1.0, a=2), OrderedDict(b=3.0, a=4)],
    "named tuples": [Point(1, 2.0), Point(3, 4.0)],
    "tuples": [(genesis.zeros(2), 1), (genesis.ones(2), 0)],
    "lists": [[1, "a"], [2, "b"]],
    "nested": [
        {"img": np.zeros((2, 2), np.uint8), "meta": {"id": 1, "tags": ["p", "q"]}},
        {"img": np.ones((2, 2), np.uint8), "meta": {"id": 2, "tags": ["r", "s"]}},
    ],
}


@pytest.mark.parametrize("name", list(BATCHES))
def test_default_collate_as_torch(name):
    torch = pytest.importorskip("torch")
    batch = BATCHES[name]
    mine = default_collate(batch)
    theirs = torch.utils.data.default_collate([to_torch(s, torch) for s in batch])
    assert describe(mine) == describe(theirs)


@pytest.mark.parametrize(
    "sample",
    [
        np.arange(3),
        np.array(["a", "b"]),
        np.float64(2.5),
        (np.arange(2), "s"),
        Point(np.array(1), 2),
        {"a": np.zeros(2, np.float32), "b": [np.int32(1), b"x"]},
        "text",
        7,
        genesis.ones(2),
    ],
)
def test_default_convert_as_torch(sample):
    torch = pytest.importorskip("torch")
    mine = default_convert(sample)
    theirs = torch.utils.data.default_convert(to_torch(sample, torch))
    assert describe(mine) == describe(theirs)


def test_default_convert_shares_numpy_memory():
    a = np.zeros(3, np.float32)
    t = default_convert(a)
    a[0] = 5
    assert t.tolist() == [5.0, 0.0, 0.0]


def test_mapping_that_cannot_be_rebuilt_becomes_a_dict():
    out = default_collate([ReadOnlyMapping(a=1), ReadOnlyMapping(a=2)])
    assert type(out) is dict and out["a"].tolist() == [1, 2]


@pytest.mark.parametrize(
    "batch, error, match",
    [
        ([object(), object()], TypeError, "batch must contain"),
        ([np.array(["a"]), np.array(["b"])], TypeError, "batch must contain"),
        ([[1, 2], [3]], RuntimeError, "equal size"),
        ([genesis.zeros(2), genesis.zeros(3)], RuntimeError, None),
    ],
)
def test_collate_errors_have_torch_classes(batch, error, match):
    torch = pytest.importorskip("torch")
    with pytest.raises(error, match=match):
        default_collate(batch)
    with pytest.raises(error):
        torch.utils.data.default_collate([to_torch(s, torch) for s in batch])


def test_collate_with_a_custom_map():
    rules = {**default_collate_fn_map, int: lambda batch, **kw: max(batch)}
    assert collate([(1, "a"), (5, "b")], collate_fn_map=rules) == [5, ("a", "b")]
    assert collate(["x", "y"], collate_fn_map={str: collate_str_fn}) == ["x", "y"]
    with pytest.raises(TypeError):
        collate(["x", "y"])  # no map: a string is no container to walk


def test_worker_batches_are_made_in_shared_memory(monkeypatch):
    monkeypatch.setattr(collate_module, "get_worker_info", lambda: object())
    base = genesis.arange(24.0).reshape(4, 6)
    cases = [
        [base[0], base[1]],
        [base[:, 0], base[:, 1]],  # non-contiguous samples
        [genesis.tensor(True), genesis.tensor(False)],
        [genesis.zeros(0, 3), genesis.zeros(0, 3)],
        [genesis.ones(2, dtype=genesis.float16), genesis.zeros(2, dtype=genesis.float16)],
    ]
    for batch in cases:
        out = default_collate(batch)
        want = genesis.stack(batch)
        assert out.is_shared() and out.is_contiguous()
        assert out.dtype == want.dtype and out.shape == want.shape
        assert out.tolist() == want.tolist()


def test_main_process_batches_are_not_moved():
    out = default_collate([genesis.ones(2), genesis.zeros(2)])
    assert not out.is_shared()


def test_pin_memory_keeps_structure_without_tensors():
    batch = {"s": "x", "t": (1, 2), "p": Point(1, [2, "b"]), "l": [b"z"]}
    assert pin_memory(batch) == batch
    assert type(pin_memory(batch)["t"]) is tuple
