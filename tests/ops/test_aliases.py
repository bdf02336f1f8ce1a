"""Every alias row of the op table (genesis/_op_table.py: arcsin of asin, divide of div ...)
computes what its target computes, in each form the row has, and what PyTorch's alias gives."""

import numpy as np
import pytest

import genesis
from genesis._op_table import OPS

torch = pytest.importorskip("torch")

UNIT = np.linspace(-0.9, 0.9, 12).reshape(3, 4)
ABOVE_ONE = np.linspace(1.1, 3.0, 12).reshape(3, 4)
MIXED = np.linspace(-2.5, 3.5, 12).reshape(3, 4)
NONZERO = np.linspace(0.5, 2.0, 12).reshape(3, 4)

# The arguments of each alias after the tensor: (input array, other args, keyword args).
ARGS = {
    "arccos": (UNIT, (), {}),
    "arcsin": (UNIT, (), {}),
    "arctanh": (UNIT, (), {}),
    "arccosh": (ABOVE_ONE, (), {}),
    "arcsinh": (MIXED, (), {}),
    "arctan": (MIXED, (), {}),
    "fix": (MIXED, (), {}),
    "negative": (MIXED, (), {}),
    "sgn": (MIXED, (), {}),
    "arctan2": (MIXED, ("other",), {}),
    "divide": (MIXED, ("other",), {}),
    "true_divide": (MIXED, ("other",), {}),
    "multiply": (MIXED, ("other",), {}),
    "subtract": (MIXED, ("other",), {}),
    "clip": (MIXED, (-1.0, 2.0), {}),
    "concat": (None, (), {"dim": 1}),
    "concatenate": (None, (), {"dim": 1}),
    "swapaxes": (MIXED, (0, 1), {}),
    "swapdims": (MIXED, (0, 1), {}),
    "moveaxis": (MIXED, (0, 1), {}),
    "absolute": (MIXED, (), {}),
    "greater": (MIXED, ("other",), {}),
    "greater_equal": (MIXED, ("other",), {}),
    "less": (MIXED, ("other",), {}),
    "less_equal": (MIXED, ("other",), {}),
    "not_equal": (MIXED, ("other",), {}),
}
ALIASES = [r for r in OPS if r.alias and r.module == "genesis"]


def test_every_alias_has_arguments():
    assert {r.name for r in ALIASES} == set(ARGS)


def _call(lib, name, form, array, args, kwargs):
    other = lib.tensor(NONZERO)
    args = tuple(other if a == "other" else a for a in args)
    if array is None:  # the joins take a sequence of tensors
        return getattr(lib, name)([lib.tensor(MIXED), other], **kwargs)
    x = lib.tensor(array)
    if form == "function":
        return getattr(lib, name)(x, *args, **kwargs)
    if form == "method":
        return getattr(x, name)(*args, **kwargs)
    result = getattr(x, name + "_")(*args, **kwargs)
    assert result is x
    return x


@pytest.mark.parametrize("row", ALIASES, ids=[r.name for r in ALIASES])
def test_alias_matches_its_target_and_torch(row):
    array, args, kwargs = ARGS[row.name]
    for form in ("function", "method", "inplace"):
        if form not in row.forms:
            continue
        got = _call(genesis, row.name, form, array, args, kwargs)
        target = _call(genesis, row.alias, form, array, args, kwargs)
        want = _call(torch, row.name, form, array, args, kwargs)
        np.testing.assert_array_equal(got.numpy(), target.numpy())
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
