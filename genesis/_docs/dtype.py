"""Docstrings of genesis.dtype and genesis.promote_types (csrc/python/dtype.cpp)."""

DOCS = {
    "dtype": """\
The data type of a tensor's elements: one of genesis's ten dtype objects.

genesis.bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32 and float64, plus
PyTorch's aliases half (float16), float (float32), double (float64), short (int16), int (int32)
and long (int64). Each dtype is a single object, so ``is`` compares them. Wherever genesis takes
a dtype it also takes its name (``"float16"``), a Python type (``bool``; ``int`` means int64,
``float`` float32) or a NumPy dtype. Dtypes pickle; they cannot be made from Python.

Example::

    >>> d = genesis.bfloat16
    >>> d, d.itemsize, d.is_floating_point, d.is_signed, d.name
    (genesis.bfloat16, 2, True, True, 'bfloat16')
    >>> genesis.half is genesis.float16, genesis.int is genesis.int32
    (True, True)
    >>> genesis.zeros(2, dtype="int8").dtype is genesis.int8
    True
""",
    "dtype.itemsize": """\
The size of one element in bytes.

Example::

    >>> genesis.float64.itemsize, genesis.bool.itemsize
    (8, 1)
""",
    "dtype.is_floating_point": """\
True for float16, bfloat16, float32 and float64.

Example::

    >>> genesis.float16.is_floating_point, genesis.int32.is_floating_point
    (True, False)
""",
    "dtype.is_signed": """\
True for dtypes that hold negative values (the signed integers and the floats).

Example::

    >>> genesis.int8.is_signed, genesis.uint8.is_signed, genesis.bool.is_signed
    (True, False, False)
""",
    "dtype.name": """\
The dtype's canonical name, such as ``'float32'`` (an alias gives its dtype's name).

Example::

    >>> genesis.half.name
    'float16'
""",
    "dtype.__repr__": "repr(dtype): ``genesis.float32`` and so on.",
    "dtype.__eq__": """\
dtype == other: True only for the same dtype (not for its name or a NumPy dtype).""",
    "dtype.__hash__": "hash(dtype): one value per dtype.",
    "dtype.__reduce__": "Pickling support: unpickling gives back the same dtype object.",
    "promote_types": """\
Returns the smallest dtype that holds the values of both ``type1`` and ``type2``.

PyTorch's rules: the category decides first (bool < integer < floating point), then size and
signedness, so ``uint8`` with ``int8`` gives ``int16`` and any float beats any integer;
float16 with bfloat16 gives float32. Operators use it for tensors with dimensions (see
``result_type`` for numbers and 0-d tensors).

Args:
    type1 (genesis.dtype or str): a dtype (or a name, Python type or NumPy dtype).
    type2 (genesis.dtype or str): another.

Returns:
    genesis.dtype: the promoted dtype.

Example::

    >>> genesis.promote_types(genesis.uint8, genesis.int8)
    genesis.int16
    >>> genesis.promote_types(genesis.int64, genesis.float16)
    genesis.float16
    >>> genesis.promote_types("float16", "bfloat16")
    genesis.float32
""",
}
