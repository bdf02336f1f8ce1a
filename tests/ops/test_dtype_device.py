"""genesis dtypes (attributes, aliases, promotion) and genesis.device."""

import pickle

import numpy as np
import pytest
from conftest import DTYPES, check_message, dtype_id

import genesis

EXPECTED = {
    # name: (itemsize, is_floating_point)
    "bool": (1, False),
    "uint8": (1, False),
    "int8": (1, False),
    "int16": (2, False),
    "int32": (4, False),
    "int64": (8, False),
    "float16": (2, True),
    "bfloat16": (2, True),
    "float32": (4, True),
    "float64": (8, True),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_dtype_attributes(name):
    d = getattr(genesis, name)
    itemsize, is_float = EXPECTED[name]
    assert d.itemsize == itemsize
    assert d.is_floating_point is is_float
    assert repr(d) == f"genesis.{name}"
    assert isinstance(d, genesis.dtype)


def test_ten_distinct_dtypes():
    assert len(DTYPES) == 10
    assert len(set(DTYPES)) == 10
    for a in DTYPES:
        for b in DTYPES:
            assert (a == b) == (a is b)


@pytest.mark.parametrize(
    "alias, target",
    [
        ("half", "float16"),
        ("float", "float32"),
        ("double", "float64"),
        ("long", "int64"),
        ("int", "int32"),
        ("short", "int16"),
    ],
)
def test_aliases(alias, target):
    assert getattr(genesis, alias) is getattr(genesis, target)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_tensor_dtype_identity(dtype):
    t = genesis.zeros(2, dtype=dtype)
    assert t.dtype is dtype
    assert t.itemsize == dtype.itemsize
    assert t.is_floating_point() is dtype.is_floating_point


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_dtype_pickles_to_the_same_object(dtype):
    assert pickle.loads(pickle.dumps(dtype)) is dtype


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("float32", genesis.float32),
        ("float", genesis.float32),
        ("half", genesis.float16),
        ("bfloat16", genesis.bfloat16),
        ("long", genesis.int64),
        ("bool", genesis.bool),
        (np.float64, genesis.float64),
        (np.dtype("int16"), genesis.int16),
        (np.uint8, genesis.uint8),
        (float, genesis.float32),
        (int, genesis.int64),
        (bool, genesis.bool),
    ],
)
def test_dtype_arguments_accept_names_and_numpy_types(spec, expected):
    assert genesis.zeros(1, dtype=spec).dtype is expected


@pytest.mark.parametrize("bad", ["float33", "complex64", "", "Float32", "int128"])
def test_bad_dtype_string_raises_type_error(bad):
    with pytest.raises(TypeError) as e:
        genesis.zeros(2, dtype=bad)
    check_message(e)
    with pytest.raises(TypeError):
        genesis.promote_types(bad, genesis.float32)


@pytest.mark.parametrize("bad", [np.complex64, np.uint16, object, 3, 1.5])
def test_bad_dtype_object_raises_type_error(bad):
    with pytest.raises(TypeError) as e:
        genesis.zeros(2, dtype=bad)
    check_message(e)


# --- type promotion (PyTorch rules: category first bool < int < float) ---

_PROMOTION_TABLE = """
      b    u8   i8   i16  i32  i64  f16  bf16 f32  f64
b     b    u8   i8   i16  i32  i64  f16  bf16 f32  f64
u8    u8   u8   i16  i16  i32  i64  f16  bf16 f32  f64
i8    i8   i16  i8   i16  i32  i64  f16  bf16 f32  f64
i16   i16  i16  i16  i16  i32  i64  f16  bf16 f32  f64
i32   i32  i32  i32  i32  i32  i64  f16  bf16 f32  f64
i64   i64  i64  i64  i64  i64  i64  f16  bf16 f32  f64
f16   f16  f16  f16  f16  f16  f16  f16  f32  f32  f64
bf16  bf16 bf16 bf16 bf16 bf16 bf16 f32  bf16 f32  f64
f32   f32  f32  f32  f32  f32  f32  f32  f32  f32  f64
f64   f64  f64  f64  f64  f64  f64  f64  f64  f64  f64
"""
_SHORT = {
    "b": "bool",
    "u8": "uint8",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
}


def _promotion_cases():
    rows = [line.split() for line in _PROMOTION_TABLE.strip().splitlines()]
    header = rows[0]
    for row in rows[1:]:
        for col, result in zip(header, row[1:]):
            yield _SHORT[row[0]], _SHORT[col], _SHORT[result]


PROMOTION_CASES = list(_promotion_cases())


def test_promotion_table_is_symmetric_and_complete():
    table = {(a, b): r for a, b, r in PROMOTION_CASES}
    assert len(table) == 100
    for (a, b), r in table.items():
        assert table[(b, a)] == r


@pytest.mark.parametrize("a, b, expected", PROMOTION_CASES)
def test_promote_types(a, b, expected):
    got = genesis.promote_types(getattr(genesis, a), getattr(genesis, b))
    assert got is getattr(genesis, expected)


@pytest.mark.parametrize("a, b, expected", PROMOTION_CASES)
def test_promote_types_matches_torch(a, b, expected):
    torch = pytest.importorskip("torch")
    assert str(torch.promote_types(getattr(torch, a), getattr(torch, b))) == f"torch.{expected}"


def test_promote_types_accepts_strings():
    assert genesis.promote_types("uint8", "int8") is genesis.int16
    assert genesis.promote_types("float16", genesis.bfloat16) is genesis.float32


# --- devices ---


@pytest.mark.parametrize(
    "text, type_, index, string, rep",
    [
        ("cpu", "cpu", None, "cpu", "device(type='cpu')"),
        ("cuda", "cuda", None, "cuda", "device(type='cuda')"),
        ("cuda:0", "cuda", 0, "cuda:0", "device(type='cuda', index=0)"),
        ("cuda:1", "cuda", 1, "cuda:1", "device(type='cuda', index=1)"),
        ("cuda:12", "cuda", 12, "cuda:12", "device(type='cuda', index=12)"),
    ],
)
def test_device_parse(text, type_, index, string, rep):
    d = genesis.device(text)
    assert d.type == type_
    assert d.index == index
    assert str(d) == string
    assert repr(d) == rep
    assert d == genesis.device(text)
    assert d == text
    assert hash(d) == hash(genesis.device(text))
    assert pickle.loads(pickle.dumps(d)) == d


def test_device_type_and_index_constructor():
    assert genesis.device("cuda", 1) == genesis.device("cuda:1")
    assert genesis.device(genesis.device("cuda:1")) == genesis.device("cuda:1")


def test_device_inequality():
    assert genesis.device("cpu") != genesis.device("cuda")
    assert genesis.device("cuda:0") != genesis.device("cuda:1")
    assert genesis.device("cuda:1") != "cuda:0"
    assert genesis.device("cpu") != 0
    assert genesis.device("cpu") != "cuda"


@pytest.mark.parametrize("bad", ["gpu", "cuda:x", "cuda:-1", "", "CPU ", "cuda:", "cuda:1:2"])
def test_bad_device_string_raises_value_error(bad):
    with pytest.raises(ValueError) as e:
        genesis.device(bad)
    check_message(e)


@pytest.mark.parametrize("bad", ["gpu", "cuda:x", "cuda:-1"])
def test_bad_device_string_in_factories(bad):
    with pytest.raises(ValueError) as e:
        genesis.zeros(2, device=bad)
    check_message(e)


def test_tensor_device_attribute():
    t = genesis.zeros(3)
    assert t.device == genesis.device("cpu")
    assert t.device.type == "cpu"
    assert t.is_cpu and not t.is_cuda
    assert genesis.zeros(3, device=genesis.device("cpu")).device == "cpu"
