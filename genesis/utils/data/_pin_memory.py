"""Copies the CPU tensors of a batch into page-locked (pinned) memory, keeping its structure."""

from __future__ import annotations

import collections.abc
from typing import Any

from ..._C import Tensor
from .collate import _rebuild


def pin_memory(data: Any) -> Any:
    """``data`` with every CPU tensor replaced by its pinned copy (``Tensor.pin_memory()``);
    objects with a ``pin_memory`` method of their own are asked to pin themselves."""
    if isinstance(data, Tensor):
        return data.pin_memory() if data.device.type == "cpu" else data
    if isinstance(data, (str, bytes)):
        return data
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, [pin_memory(data[k]) for k in data])
    if isinstance(data, tuple) and not hasattr(data, "_fields"):
        return tuple(pin_memory(d) for d in data)  # tuples stay tuples here, as in torch
    if isinstance(data, (tuple, collections.abc.Sequence)):
        return _rebuild(data, [pin_memory(d) for d in data])
    return data
