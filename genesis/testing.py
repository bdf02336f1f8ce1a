"""Checks for tests: ``assert_close``, torch.testing.assert_close for genesis tensors.

It checks that two results agree: tensors (their shape, dtype and device, then their values
within a tolerance chosen by dtype), Python numbers, and lists, tuples and dicts of them,
compared item by item. A failure is an ``AssertionError`` whose message is PyTorch's, with
genesis's names, so tests ported from PyTorch keep working and read the same.

Example::

    >>> genesis.testing.assert_close(genesis.tensor([1.0, 2.0]), genesis.tensor([1.0, 2.0]))
    >>> genesis.testing.assert_close({"w": [1, 2.5]}, {"w": [1, 2.5]})
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from . import _C
from ._C import Tensor as _Tensor
from .autograd.grad_mode import no_grad as _no_grad

__all__ = ["assert_close"]

# Default (rtol, atol) by dtype: PyTorch's table. Other dtypes (the integers, bool) compare
# exactly; two inputs of different dtypes use the looser of their two tolerances.
_DTYPE_PRECISIONS = {
    _C.float16: (1e-3, 1e-5),
    _C.bfloat16: (1.6e-2, 1e-5),
    _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7),
}
# The dtype whose tolerances a Python number gets. genesis has no complex dtype; complex128's
# tolerances are float64's. A bool beside an int counts as an int (PyTorch fails on it).
_NUMBER_DTYPES = {bool: _C.int64, int: _C.int64, float: _C.float64, complex: _C.float64}


class _Failure(Exception):
    """A failed check, carried until assert_close raises it: the exception type to raise, the
    message and the path to the failing item (``[0]['a']``)."""

    def __init__(self, type_: type[Exception], msg: str, path: tuple[Any, ...] = ()):
        super().__init__(msg)
        self.type = type_
        self.msg = msg
        self.path = path

    def to_error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        if isinstance(msg, str):
            return self.type(msg)  # a string replaces the whole message, path included
        generated = self.msg
        if self.path:
            where = "".join(str([item]) for item in self.path)
            generated += f"\n\nThe failure occurred for item {where}"
        return self.type(msg(generated) if callable(msg) else generated)


class _Unsupported(Exception):
    """The inputs are not of the kind a comparison handles; the next kind is tried."""


def _tolerances(dtypes, rtol, atol, path):
    # Both or neither: atol=0 alone would still pass values within the default rtol.
    if (rtol is None) != (atol is None):
        raise _Failure(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, "
            f"but got no {'rtol' if rtol is None else 'atol'}.",
            path,
        )
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*(_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes))
    return max(rtols), max(atols)


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    # Zero tolerances make it an equality check, and the message says "equal" and no limits.
    equality = rtol == 0 and atol == 0

    def line(kind, diff, idx, tol):
        if idx is None:
            text = f"{kind.title()} difference: {diff}"
        else:
            text = f"Greatest {kind} difference: {diff} at index {idx}"
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra.strip()}\n"
    msg += line("absolute", abs_diff, abs_idx, atol)
    msg += line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    extra = f"Expected {expected} but got {actual}."
    return _mismatch_msg("Scalars", extra, abs_diff, None, atol, rel_diff, None, rtol)


def _unravel(flat_index, shape):
    index = []
    for size in reversed(shape):
        flat_index, rest = divmod(flat_index, size)
        index.append(rest)
    return tuple(reversed(index))


def _tensor_mismatch_msg(actual, expected, matches, rtol, atol):
    total = matches.numel()
    mismatched = total - int(matches.sum().item())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    actual_flat, expected_flat = actual.flatten(), expected.flatten()
    matches_flat = matches.flatten()
    if not actual.dtype.is_floating_point:
        # Integer differences can overflow the dtype (and bool has no subtraction).
        actual_flat, expected_flat = actual_flat.to(_C.int64), expected_flat.to(_C.int64)
    # Only the mismatched elements compete for the greatest differences. The maxima are the
    # first occurrence, NaN counting as the greatest, as PyTorch's max(dim=0).
    abs_diff = _C.abs(actual_flat - expected_flat).masked_fill(matches_flat, 0)
    max_abs, abs_at = abs_diff.max(0)
    rel_diff = (abs_diff / _C.abs(expected_flat)).masked_fill(matches_flat, 0)
    max_rel, rel_at = rel_diff.max(0)
    shape = tuple(matches.shape)
    return _mismatch_msg(
        "Tensor-likes",
        extra,
        max_abs.item(),
        _unravel(int(abs_at.item()), shape),
        atol,
        max_rel.item(),
        _unravel(int(rel_at.item()), shape),
        rtol,
    )


def _shape_repr(shape):
    # Printed as genesis.Size, as PyTorch prints torch.Size; a plain tuple where genesis has no
    # Size. Looked up when called: this module is imported while genesis is being built.
    import genesis

    size = getattr(genesis, "Size", None)
    return repr(size(shape) if size is not None else tuple(shape))


def _pair_none(actual, expected, path, **_):
    if not (actual is None or expected is None):
        raise _Unsupported

    def compare():
        if not (actual is None and expected is None):
            raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", path)

    return compare


def _to_bool(x):
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    raise _Unsupported


def _pair_bool(actual, expected, path, **_):
    actual, expected = _to_bool(actual), _to_bool(expected)

    def compare():
        if actual is not expected:
            raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}", path)

    return compare


def _to_number(x):
    if isinstance(x, np.number):
        return x.item()  # a NumPy scalar counts as its Python value: np.float32 is a float
    if isinstance(x, (int, float, complex)):
        return x
    raise _Unsupported


def _pair_number(actual, expected, path, *, rtol, atol, equal_nan, check_dtype, **_):
    actual, expected = _to_number(actual), _to_number(expected)
    rtol, atol = _tolerances(
        [_NUMBER_DTYPES[type(x)] for x in (actual, expected)], rtol, atol, path
    )

    def compare():
        if check_dtype and type(actual) is not type(expected):
            raise _Failure(
                AssertionError,
                f"The (d)types do not match: {type(actual)} != {type(expected)}.",
                path,
            )
        if actual == expected:
            return
        if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        abs_diff = abs(actual - expected)
        if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
            return
        raise _Failure(AssertionError, _scalar_mismatch_msg(actual, expected, rtol, atol), path)

    return compare


def _to_tensor(x):
    if isinstance(x, _Tensor):
        return x
    # A NumPy array (or another tensor-like) becomes a tensor as torch.as_tensor makes one:
    # sharing the array's memory. What genesis cannot hold (a str, a uint16 or complex array)
    # is left to the next kind of comparison, and in the end is a TypeError.
    try:
        return _C.as_tensor(x)
    except Exception:
        raise _Unsupported from None


def _pair_tensor(actual, expected, path, *, allow_subclasses, rtol, atol, **options):
    # Related types only (a tensor and its subclass, two arrays): never a tensor and a list.
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not allow_subclasses and type(actual) is not type(expected):
        raise _Unsupported
    actual, expected = _to_tensor(actual), _to_tensor(expected)
    rtol, atol = _tolerances([actual.dtype, expected.dtype], rtol, atol, path)

    def compare():
        with _no_grad():
            _compare_tensors(actual, expected, path, rtol=rtol, atol=atol, **options)

    return compare


def _compare_tensors(
    actual,
    expected,
    path,
    *,
    rtol,
    atol,
    equal_nan,
    check_device,
    check_dtype,
    check_layout,
    check_stride,
):
    def mismatch(attribute: str, a: Any, e: Any) -> NoReturn:
        raise _Failure(
            AssertionError,
            f"The values for attribute '{attribute}' do not match: {a} != {e}.",
            path,
        )

    if tuple(actual.shape) != tuple(expected.shape):
        mismatch("shape", _shape_repr(actual.shape), _shape_repr(expected.shape))
    # genesis tensors are all strided today; a layout, where a tensor has one, is compared.
    layouts = getattr(actual, "layout", None), getattr(expected, "layout", None)
    if layouts[0] != layouts[1]:
        if check_layout:
            mismatch("layout", *layouts)
    elif check_stride and actual.stride() != expected.stride():
        mismatch("stride()", actual.stride(), expected.stride())
    if check_device and actual.device != expected.device:
        mismatch("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        mismatch("dtype", actual.dtype, expected.dtype)

    # What was not checked is made equal: values on two devices meet on the CPU, two dtypes
    # meet in the dtype they promote to.
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        dtype = _C.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(dtype), expected.to(dtype)

    if actual.dtype == _C.bool and (rtol != 0 or atol != 0):
        # A tolerance on bools is measured on 0 and 1 in the default float dtype, as PyTorch's
        # isclose does; genesis.isclose compares bools only for equality.
        matches = _C.isclose(actual.to(_C.float32), expected.to(_C.float32), rtol=rtol, atol=atol)
    else:
        matches = _C.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(matches.all().item()):
        return
    if actual.shape == ():
        msg = _scalar_mismatch_msg(actual.item(), expected.item(), rtol, atol)
    else:
        msg = _tensor_mismatch_msg(actual, expected, matches, rtol, atol)
    raise _Failure(AssertionError, msg, path)


_PAIRS = (_pair_none, _pair_bool, _pair_number, _pair_tensor)


def _originate(actual, expected, path, options):
    """The comparisons of two inputs, one per pair of leaves; raises _Failure on a mismatch of
    structure (lengths, keys), on inputs no comparison takes and on bad tolerances."""
    # str is a Sequence whose items are strs again: it is a leaf (and no comparison takes it).
    if (
        isinstance(actual, collections.abc.Sequence)
        and not isinstance(actual, str)
        and isinstance(expected, collections.abc.Sequence)
        and not isinstance(expected, str)
    ):
        if len(actual) != len(expected):
            raise _Failure(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                path,
            )
        return [
            c
            for i in range(len(actual))
            for c in _originate(actual[i], expected[i], (*path, i), options)
        ]
    if isinstance(actual, collections.abc.Mapping) and isinstance(
        expected, collections.abc.Mapping
    ):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _Failure(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}",
                path,
            )
        keys = list(actual_keys)
        with contextlib.suppress(Exception):  # sorted, so the first failure is reproducible
            keys = sorted(keys)
        return [c for k in keys for c in _originate(actual[k], expected[k], (*path, k), options)]
    for pair in _PAIRS:
        try:
            return [pair(actual, expected, path, **options)]
        except _Unsupported:
            continue
    raise _Failure(
        TypeError,
        "No comparison pair was able to handle inputs of type "
        f"{type(actual)} and {type(expected)}.",
        path,
    )


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | Callable[[str], str] | None = None,
) -> None:
    """Asserts that ``actual`` and ``expected`` are close, as ``torch.testing.assert_close``.

    Two tensors are close when they have the same shape, device (if ``check_device``), dtype
    (if ``check_dtype``) and strides (if ``check_stride``), and every pair of elements is close:
    ``abs(actual - expected) <= atol + rtol * abs(expected)``, where infinities are close only
    to the same infinity and NaN only to NaN (if ``equal_nan``). Python numbers (and NumPy
    scalars) are compared alike; ``None`` equals ``None`` and bools must be the same bool.
    Sequences (lists, tuples) and mappings (dicts) are compared item by item, at any depth,
    after their lengths or keys are checked. A NumPy array is converted to a tensor (sharing
    its memory where it can); inputs of unrelated types (a tensor and a list, a tensor and a
    number) are a ``TypeError``.

    When ``rtol`` and ``atol`` are omitted they depend on the dtype (the looser of the two):

    ==================  =========  ========
    dtype               rtol       atol
    ==================  =========  ========
    float16             1e-3       1e-5
    bfloat16            1.6e-2     1e-5
    float32             1.3e-6     1e-5
    float64, float      1e-7       1e-7
    integers, bool      0          0
    ==================  =========  ========

    With ``check_device=False`` tensors on different devices are compared on the CPU; with
    ``check_dtype=False`` tensors of different dtypes are compared in the dtype they promote to
    (``genesis.promote_types``). The values are compared with genesis's own ops
    (``genesis.isclose``), on the tensors' device.

    Args:
        actual: the value to check: a tensor, a number, a NumPy array or scalar, ``None``, or
            a sequence or mapping of them.
        expected: the value it should be close to, of the same structure.
        allow_subclasses (bool): whether a tensor may be compared with an instance of a
            subclass (or an array with an array subclass); if False the types must be the
            same. Default: True.
        rtol (float, optional): relative tolerance; given together with ``atol``. Default:
            None (by dtype, the table above).
        atol (float, optional): absolute tolerance; given together with ``rtol``. Default:
            None (by dtype).
        equal_nan (bool): whether two NaNs are close. Default: False.
        check_device (bool): whether tensors must be on the same device. Default: True.
        check_dtype (bool): whether tensors (and numbers: ``int`` vs ``float``) must have the
            same dtype (type). Default: True.
        check_layout (bool): whether tensors must have the same layout (genesis tensors are
            all strided, so this never fails today). Default: True.
        check_stride (bool): whether tensors must have the same strides. Default: False.
        msg (str or callable, optional): the message of the error a failed comparison raises:
            a string replaces the generated message, a callable receives it and returns the
            message to use. Default: None (the generated message).

    Returns:
        None: it returns when the inputs are close.

    Raises:
        AssertionError: on a mismatch: the values, a shape, device, dtype or stride, or the
            lengths of sequences or keys of mappings.
        ValueError: when only one of ``rtol`` and ``atol`` is given.
        TypeError: when the inputs are of types that are not compared (unrelated types).

    Example::

        >>> expected = genesis.tensor([1.0, 2.0, 3.0])
        >>> genesis.testing.assert_close(expected + 1e-7, expected)
        >>> genesis.testing.assert_close(genesis.tensor([1.0, 2.5, 3.0]), expected)
        Traceback (most recent call last):
        ...
        AssertionError: Tensor-likes are not close!
        <BLANKLINE>
        Mismatched elements: 1 / 3 (33.3%)
        Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
        Greatest relative difference: 0.25 at index (1,) (up to 1.3e-06 allowed)
        >>> genesis.testing.assert_close([1, {"a": 2.0}], [1, {"a": 2.5}], rtol=0.25, atol=0.0)
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not these internals
    options = dict(
        allow_subclasses=allow_subclasses,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=check_device,
        check_dtype=check_dtype,
        check_layout=check_layout,
        check_stride=check_stride,
    )
    # As PyTorch: every pair is formed before any is compared, so an error of structure or of
    # arguments wins over a mismatch of values, and ``msg`` replaces only the latter's message.
    try:
        comparisons = _originate(actual, expected, (), options)
    except _Failure as failure:
        raise failure.to_error() from None
    for compare in comparisons:
        try:
            compare()
        except _Failure as failure:
            raise failure.to_error(msg) from None
