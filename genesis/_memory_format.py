"""Memory formats: PyTorch's ``torch.memory_format`` and its four values.

Note [Memory formats]: a memory format names an order of a 4-D or 5-D tensor's dims in memory.
``channels_last`` keeps (N, C, H, W) with the channels innermost (strides (HWC, 1, WC, C)),
``channels_last_3d`` the same for (N, C, D, H, W); ``contiguous_format`` is the usual row-major
order and ``preserve_format`` asks a copy to keep its source's. The sizes never change, only the
strides, so every op computes the same values whatever the format. A tensor is in channels_last
when its strides are those of its (N, H, W, C) permutation laid out contiguously, size-1 dims
ignored (PyTorch's rule). ``contiguous``, ``is_contiguous``, ``to`` and ``clone`` take
``memory_format=``; the bindings hand every format but the default to this module, so the
everyday calls stay in C++. genesis's kernels read any strides. As PyTorch's, elementwise ops,
casts, copies and the *_like creators keep a channels_last or channels_last_3d operand's
layout, and a CUDA convolution with a channels-last input or weight runs channels-last in
cuDNN and returns channels-last results (Note [Layouts that results keep] in
csrc/ops/layout.cpp, Note [Convolution layouts] in csrc/ops/convolution.cpp); other layouts
come back row-major.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "memory_format",
    "preserve_format",
]


class memory_format:
    """The type of ``genesis.contiguous_format``, ``channels_last``, ``channels_last_3d`` and
    ``preserve_format`` (PyTorch's ``torch.memory_format``); the four are its only values.

    Args:
        name (str): the value's name, as in ``genesis.<name>``.

    Example::

        >>> genesis.channels_last
        genesis.channels_last
        >>> isinstance(genesis.channels_last, genesis.memory_format)
        True
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return "genesis." + self._name

    def __reduce__(self) -> str:
        return self._name  # pickles as the module-level value, so identity survives


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# The (N, *spatial, C) order of each channels-last format's dims, outermost first.
_ORDER = {channels_last: (0, 2, 3, 1), channels_last_3d: (0, 2, 3, 4, 1)}


def _checked(op: str, fmt: Any) -> memory_format:
    if not isinstance(fmt, memory_format):
        raise TypeError(
            f"[{op}] memory_format must be a genesis.memory_format, got {type(fmt).__name__}"
        )
    return fmt


def _rank(op: str, t: Any, fmt: memory_format) -> tuple:
    order = _ORDER[fmt]
    if t.dim() != len(order):
        raise RuntimeError(f"[{op}] required rank {len(order)} tensor to use {fmt._name} format")
    return order


def is_contiguous(t: Any, fmt: Any) -> bool:
    """Tensor.is_contiguous(memory_format=fmt) for a format given."""
    fmt = _checked("is_contiguous", fmt)
    order = _ORDER.get(fmt)
    if order is None:
        return bool(t.is_contiguous())
    if t.dim() != len(order):
        return False
    expected = 1
    sizes, strides = t.shape, t.stride()
    for d in reversed(order):
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True


def _laid_out(t: Any, order: tuple, copy: bool) -> Any:
    """t laid out in `order` (outermost first), its sizes unchanged: a new copy when `copy`,
    else t's own memory when it already is."""
    inverse = tuple(sorted(range(len(order)), key=order.__getitem__))
    dims = t.permute(order)
    return (dims.clone() if copy else dims.contiguous()).permute(inverse)


def contiguous(t: Any, fmt: Any) -> Any:
    """Tensor.contiguous(memory_format=fmt) for a format given."""
    fmt = _checked("contiguous", fmt)
    if fmt is preserve_format and not t.is_contiguous():
        raise RuntimeError(
            "[contiguous] preserve memory format is unsupported by the contiguous operator"
        )
    if fmt not in _ORDER:
        return t.contiguous()
    order = _rank("contiguous", t, fmt)
    return t if is_contiguous(t, fmt) else _laid_out(t, order, copy=False)


def to_format(source: Any, t: Any, fmt: Any) -> Any:
    """The memory_format= step of Tensor.to: t is source converted (source itself when the
    dtype and device did not change, which PyTorch then returns unless its layout is another
    format: a transposed tensor asked for contiguous_format stays transposed)."""
    fmt = _checked("to", fmt)
    if fmt is preserve_format:
        return t
    if fmt in _ORDER:
        _rank("to", t, fmt)
    if t is source and _format_of(t) is fmt:
        return t
    return contiguous(t, fmt)


def _format_of(t: Any) -> memory_format:
    """The format a preserve_format copy of t keeps."""
    for fmt, order in _ORDER.items():
        if t.dim() == len(order) and not t.is_contiguous() and is_contiguous(t, fmt):
            return fmt
    return contiguous_format


def clone(t: Any, fmt: Any) -> Any:
    """Tensor.clone(memory_format=fmt) for a format given."""
    fmt = _checked("clone", fmt)
    if fmt is preserve_format:
        fmt = _format_of(t)
    if fmt not in _ORDER:  # a row-major copy (a plain clone keeps channels-last)
        return t.clone() if t.is_contiguous() else t.contiguous()
    return _laid_out(t, _rank("clone", t, fmt), copy=True)
