"""Collation: how the samples of a batch become one batch (``default_collate``), and how a
sample is converted without batching (``default_convert``), with torch.utils.data's rules.

``collate`` walks the structure of the first sample (mappings, named tuples, tuples, lists) and
hands each leaf type to a function of ``default_collate_fn_map``: genesis tensors are stacked,
NumPy arrays and numbers become genesis tensors, strings and bytes stay lists. Extend it by
adding a type to a copy of the map and passing it to ``collate``, or by updating the map.

Note [Batches in shared memory]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A batch made in a worker process travels to the main process through genesis.multiprocessing:
its CPU storages are sent as shared memory (Note [Storages between processes] in
genesis/multiprocessing/reductions.py). A storage that is not in shared memory yet is moved
there when sent, which copies it; so in a worker, ``collate_tensor_fn`` writes the stacked batch
straight into a new shared memory file (``memfd_create``, mapped by
``_C._storage_from_share_fd`` as the sender's storage), and sending it copies nothing. The stack
itself is ``genesis.stack`` into pool memory followed by one copy into the shared pages: it
measured faster than the alternatives at hand (``cat(out=)`` into the shared tensor, or a copy
per sample), the copy paying for the first touch of the new pages, which any route pays.
"""

from __future__ import annotations

import collections.abc
import copy
import os
import re
from collections.abc import Callable, Sequence
from typing import Any, Union

import numpy as np

from ... import _C
from ..._C import Tensor, as_tensor, float64, stack, tensor
from ._worker import get_worker_info

__all__ = [
    "collate",
    "collate_float_fn",
    "collate_int_fn",
    "collate_numpy_array_fn",
    "collate_numpy_scalar_fn",
    "collate_str_fn",
    "collate_tensor_fn",
    "default_collate",
    "default_collate_fn_map",
    "default_convert",
]

CollateFnMap = dict[Union[type, tuple[type, ...]], Callable[..., Any]]

# NumPy dtypes that are no numbers: bytes (S, a), str (U) and objects (O).
_NOT_NUMERIC = re.compile(r"[SaUO]")

_COLLATE_ERROR = (
    "[default_collate] batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _rebuild(sample: Any, values: list[Any]) -> Any:
    """A container like ``sample`` holding ``values`` (a Sequence or Mapping that cannot be
    rebuilt as its own type becomes a list or dict, as in torch)."""
    if isinstance(sample, collections.abc.Mapping):
        keys = list(sample)
        try:
            if isinstance(sample, collections.abc.MutableMapping):
                mapping = copy.copy(sample)
                mapping.update(zip(keys, values))
                return mapping
            return type(sample)(dict(zip(keys, values)))  # type: ignore[call-arg]
        except TypeError:
            return dict(zip(keys, values))
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):  # a named tuple
        return type(sample)(*values)
    if isinstance(sample, tuple):
        return list(values)  # torch's rule, kept for compatibility: tuples become lists
    try:
        if isinstance(sample, collections.abc.MutableSequence):
            sequence = copy.copy(sample)
            for i, value in enumerate(values):
                sequence[i] = value
            return sequence
        return type(sample)(values)  # type: ignore[call-arg]
    except TypeError:
        return list(values)


def default_convert(data: Any) -> Any:
    """Converts the NumPy arrays and NumPy scalars in ``data`` into genesis tensors.

    The ``DataLoader`` applies it to each sample when batching is off (``batch_size=None``).
    Mappings, named tuples and sequences are converted item by item and keep their type where
    they can (a tuple becomes a list, as in torch); arrays of strings or objects, strings,
    bytes, tensors and everything else are left as they are.

    Args:
        data: one sample.

    Returns:
        ``data`` with its NumPy arrays as genesis tensors (sharing their memory).

    Example::

        >>> from genesis.utils.data import default_convert
        >>> default_convert({"x": np.array([1, 2]), "y": "label"})
        {'x': tensor([1, 2]), 'y': 'label'}
        >>> default_convert((np.float32(1.5), 3))
        [tensor(1.5000), 3]
    """
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if _NOT_NUMERIC.search(data.dtype.str) else as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return as_tensor(data)
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, [default_convert(data[k]) for k in data])
    if isinstance(data, (tuple, collections.abc.Sequence)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


def _shared_empty(like: Tensor, shape: tuple[int, ...]) -> Tensor | None:
    """An uninitialized contiguous CPU tensor of ``like``'s dtype in a new shared memory file,
    or None where ``memfd_create`` is missing (Note [Batches in shared memory])."""
    if not hasattr(os, "memfd_create"):
        return None
    nbytes = like.element_size()
    for n in shape:
        nbytes *= n
    fd = os.memfd_create("genesis-batch", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, max(nbytes, 1))
        storage = _C._storage_from_share_fd(fd, nbytes)
    finally:
        os.close(fd)  # the storage holds a descriptor of its own
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return _C._tensor_on_storage(storage, 0, list(shape), strides[::-1], like.dtype)


def collate_tensor_fn(batch: list[Tensor], *, collate_fn_map: CollateFnMap | None = None) -> Tensor:
    """Stacks the tensors of a batch along a new first dimension (``genesis.stack``).

    In a ``DataLoader`` worker the result of CPU tensors is made in shared memory, so that
    it reaches the main process without a copy (Note [Batches in shared memory]).

    Args:
        batch (list of Tensor): the samples, of one shape.
        collate_fn_map (dict, optional): the map ``collate`` was given. Default: None.

    Returns:
        Tensor: a tensor of shape ``(len(batch), *batch[0].shape)``.

    Example::

        >>> from genesis.utils.data.collate import collate_tensor_fn
        >>> collate_tensor_fn([genesis.tensor([1, 2]), genesis.tensor([3, 4])])
        tensor([[1, 2],
                [3, 4]])
    """
    stacked = stack(batch, 0)
    if get_worker_info() is None or stacked.device.type != "cpu" or stacked.requires_grad:
        return stacked
    out = _shared_empty(stacked, tuple(stacked.shape))
    if out is None:
        return stacked.share_memory_()
    return out.copy_(stacked)


def collate_numpy_array_fn(
    batch: list[np.ndarray], *, collate_fn_map: CollateFnMap | None = None
) -> Any:
    """Turns the NumPy arrays of a batch into genesis tensors and collates those.

    Args:
        batch (list of numpy.ndarray): the samples, of one shape and a numeric dtype.
        collate_fn_map (dict, optional): the map the tensors are collated with. Default: None
            (``default_collate_fn_map``).

    Returns:
        Tensor: the arrays stacked along a new first dimension.

    Raises:
        TypeError: for arrays of strings, bytes or objects.

    Example::

        >>> from genesis.utils.data.collate import collate_numpy_array_fn
        >>> collate_numpy_array_fn([np.zeros(2, np.float32), np.ones(2, np.float32)])
        tensor([[0., 0.],
                [1., 1.]])
    """
    if _NOT_NUMERIC.search(batch[0].dtype.str):
        raise TypeError(_COLLATE_ERROR.format(batch[0].dtype))
    rules = default_collate_fn_map if collate_fn_map is None else collate_fn_map
    return collate([as_tensor(b) for b in batch], collate_fn_map=rules)


def collate_numpy_scalar_fn(
    batch: list[Any], *, collate_fn_map: CollateFnMap | None = None
) -> Tensor:
    """Turns the NumPy scalars of a batch into one genesis tensor of their dtype.

    Args:
        batch (list of numpy scalars): the samples.
        collate_fn_map (dict, optional): unused, for the common signature. Default: None.

    Returns:
        Tensor: a 1-D tensor.

    Example::

        >>> from genesis.utils.data.collate import collate_numpy_scalar_fn
        >>> collate_numpy_scalar_fn([np.int32(1), np.int32(2)]).dtype
        genesis.int32
    """
    return as_tensor(np.asarray(batch))


def collate_float_fn(batch: list[float], *, collate_fn_map: CollateFnMap | None = None) -> Tensor:
    """Turns the Python floats of a batch into a float64 tensor (as torch).

    Args:
        batch (list of float): the samples.
        collate_fn_map (dict, optional): unused, for the common signature. Default: None.

    Returns:
        Tensor: a 1-D float64 tensor.

    Example::

        >>> from genesis.utils.data.collate import collate_float_fn
        >>> collate_float_fn([0.5, 1.5])
        tensor([0.5000, 1.5000], dtype=genesis.float64)
    """
    return tensor(batch, dtype=float64)


def collate_int_fn(batch: list[int], *, collate_fn_map: CollateFnMap | None = None) -> Tensor:
    """Turns the Python ints (or bools) of a batch into an int64 (or bool) tensor.

    Args:
        batch (list of int): the samples.
        collate_fn_map (dict, optional): unused, for the common signature. Default: None.

    Returns:
        Tensor: a 1-D tensor.

    Example::

        >>> from genesis.utils.data.collate import collate_int_fn
        >>> collate_int_fn([3, 4])
        tensor([3, 4])
    """
    return tensor(batch)


def collate_str_fn(batch: list[Any], *, collate_fn_map: CollateFnMap | None = None) -> list[Any]:
    """Leaves the strings (or bytes) of a batch as they are: the list, or the tuple of one
    position of a sequence (as in torch).

    Args:
        batch (list of str or bytes): the samples.
        collate_fn_map (dict, optional): unused, for the common signature. Default: None.

    Returns:
        list or tuple: ``batch`` itself.

    Example::

        >>> from genesis.utils.data.collate import collate_str_fn
        >>> collate_str_fn(["a", "b"])
        ['a', 'b']
    """
    return batch


default_collate_fn_map: CollateFnMap = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def collate(batch: Sequence[Any], *, collate_fn_map: CollateFnMap | None = None) -> Any:
    """Collates a batch by the structure of its first sample, leaves by ``collate_fn_map``.

    The first sample's type is looked up in ``collate_fn_map`` (exactly, then by
    ``isinstance`` in the map's order) and its function collates the batch. Otherwise a
    mapping collates key by key, a named tuple field by field, and a sequence position by
    position (its samples must have one length; a tuple gives a list, as in torch).

    Args:
        batch (list or tuple): the samples.
        collate_fn_map (dict, optional): type (or tuple of types) to a function
            ``fn(batch, *, collate_fn_map)``. Default: None.

    Returns:
        The batch, with the structure of a sample.

    Raises:
        TypeError: for a sample type no rule handles.
        RuntimeError: for sequences of different lengths.

    Example::

        >>> from genesis.utils.data.collate import collate
        >>> rules = {int: lambda b, **kw: sum(b), str: lambda b, **kw: "".join(b)}
        >>> collate([(1, "a"), (2, "b")], collate_fn_map=rules)
        [3, 'ab']
    """
    elem = batch[0]
    if collate_fn_map is not None:
        fn = collate_fn_map.get(type(elem))
        if fn is None:
            fn = next((f for t, f in collate_fn_map.items() if isinstance(elem, t)), None)
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(
            elem, [collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem]
        )
    if isinstance(elem, collections.abc.Sequence) and not isinstance(elem, (str, bytes)):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            sizes = sorted({len(sample) for sample in batch})
            raise RuntimeError(
                f"[default_collate] each element in list of batch should be of equal size; "
                f"found lengths {sizes}"
            )
        columns = [
            collate(c, collate_fn_map=collate_fn_map) for c in zip(*batch)
        ]  # tuples, as torch
        return _rebuild(elem, columns)
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def default_collate(batch: list[Any]) -> Any:
    """Merges a list of samples into a batch with an added first dimension.

    The ``DataLoader``'s collation when batching is on. By the type of the samples:

    * genesis ``Tensor`` -> the tensors stacked (``genesis.stack``); in a worker process the
      result is in shared memory (Note [Batches in shared memory] in this module)
    * NumPy array -> genesis tensor, stacked; NumPy scalar -> genesis tensor of its dtype
    * ``float`` -> float64 tensor; ``int`` -> int64 tensor (``bool`` -> bool tensor)
    * ``str``, ``bytes`` -> unchanged: the list (a tuple inside a sequence, as in torch)
    * ``Mapping[K, V_i]`` -> ``Mapping[K, default_collate([V_1, V_2, ...])]``
    * named tuple -> the named tuple of the collated fields
    * ``Sequence[V1_i, V2_i, ...]`` -> ``[default_collate([V1_1, V1_2, ...]), ...]`` (of the
      sequence's type where it can be rebuilt; tuples become lists)

    Args:
        batch (list): the samples.

    Returns:
        The batch, with the structure of a sample and tensors at the leaves.

    Raises:
        TypeError: for a sample type no rule handles.
        RuntimeError: for tensors of different shapes, or sequences of different lengths.

    Example::

        >>> from genesis.utils.data import default_collate
        >>> default_collate([0, 1, 2])
        tensor([0, 1, 2])
        >>> default_collate([{"x": 0.5, "name": "a"}, {"x": 1.5, "name": "b"}])
        {'x': tensor([0.5000, 1.5000], dtype=genesis.float64), 'name': ['a', 'b']}
        >>> default_collate([(genesis.ones(2), 0), (genesis.zeros(2), 1)])
        [tensor([[1., 1.],
                [0., 0.]]), tensor([0, 1])]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
