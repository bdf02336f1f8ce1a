#pragma once
// Docstrings of csrc/python/index_reduce.cpp, looked up by name (kIndexReduceDocs);
// tests/project/test_docstrings.py runs their examples.
#include "python/docs/lookup.h"

namespace genesis::python::docs {

inline constexpr const char* kScatterAdd =
    R"doc(A copy of ``input`` with every value of ``src`` added at ``index`` along ``dim``:
``out[index[i][j]][j] += src[i][j]`` for ``dim=0``. Unlike ``scatter``, duplicate indices all
count. ``index`` has ``input``'s number of dims and is no larger than ``src`` in any dim, nor
than ``input`` in any dim but ``dim``; only the leading block of ``src`` of ``index``'s shape is
read. Negative indices count from the end; out-of-range ones raise IndexError (on CUDA at the
next wait, the tensor unchanged). On the CPU the values are added in row-major order; on CUDA
with atomic additions, so float sums may differ in their last bits between runs, as PyTorch
documents.

Args:
    input (Tensor): the destination (``self`` for the method).
    dim (int): the dim to scatter along.
    index (Tensor): int64 indices.
    src (Tensor): the values, of ``input``'s dtype.
    out (Tensor, optional): keyword-only tensor to write the result into (same device and
        shape; the result dtype must cast to its dtype). Default: None (a new tensor).

Returns:
    Tensor: a new tensor.

Example::

    >>> genesis.zeros(3).scatter_add(0, genesis.tensor([0, 2, 0]), genesis.tensor([1.0, 2.0, 3.0]))
    tensor([4., 0., 2.])
)doc";

inline constexpr const char* kScatterAddInplace =
    R"doc(The in-place ``scatter_add``: adds every value of ``src`` into this tensor at ``index``
along ``dim``; returns this tensor.

Args:
    dim (int): the dim to scatter along.
    index (Tensor): int64 indices.
    src (Tensor): the values, of this tensor's dtype.

Returns:
    Tensor: this tensor.

Example::

    >>> x = genesis.ones(2, 2)
    >>> x.scatter_add_(1, genesis.tensor([[1, 1], [0, 1]]), genesis.ones(2, 2))
    tensor([[1., 3.],
            [2., 2.]])
)doc";

inline constexpr const char* kScatterReduce =
    R"doc(A copy of ``input`` with the values of ``src`` reduced into it at ``index`` along ``dim``, with
``reduce`` one of ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``. Every value counts,
duplicates included. With ``include_self`` the element's own value takes part; without, only
the values scattered to it (elements no index names keep their value). ``"mean"`` divides by
the count (with floor for integer tensors, as PyTorch); ``"amax"``/``"amin"`` propagate NaN.
Shapes and indices are checked as in ``scatter_add``.

Args:
    input (Tensor): the destination (``self`` for the method).
    dim (int): the dim to scatter along.
    index (Tensor): int64 indices.
    src (Tensor): the values, of ``input``'s dtype.
    reduce (str): ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
    include_self (bool, optional): keyword-only; whether ``input``'s values take part.
        Default: True.
    out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

Returns:
    Tensor: a new tensor.

Example::

    >>> x = genesis.tensor([1.0, 2.0, 3.0])
    >>> i = genesis.tensor([0, 0, 2, 2])
    >>> s = genesis.tensor([5.0, 6.0, 7.0, 8.0])
    >>> x.scatter_reduce(0, i, s, "amax")
    tensor([6., 2., 8.])
    >>> x.scatter_reduce(0, i, s, "mean", include_self=False)
    tensor([5.5000, 2.0000, 7.5000])
)doc";

inline constexpr const char* kScatterReduceInplace =
    R"doc(The in-place ``scatter_reduce``; returns this tensor.

Args:
    dim (int): the dim to scatter along.
    index (Tensor): int64 indices.
    src (Tensor): the values, of this tensor's dtype.
    reduce (str): ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
    include_self (bool, optional): keyword-only; whether this tensor's values take part.
        Default: True.

Returns:
    Tensor: this tensor.

Example::

    >>> x = genesis.tensor([2, 3])
    >>> x.scatter_reduce_(0, genesis.tensor([1, 1]), genesis.tensor([4, 5]), "prod")
    tensor([ 2, 60])
)doc";

inline constexpr const char* kIndexAdd =
    R"doc(A copy of ``input`` with ``alpha * source`` added at ``index`` along ``dim``: for ``dim=0``,
``out[index[i]] += alpha * source[i]``. Duplicate indices all count. ``source`` has
``input``'s shape except at ``dim``, where it has ``len(index)`` entries. Out-of-range indices
raise IndexError; negative ones count from the end. On CUDA float sums may differ in their last
bits between runs (atomic additions), as PyTorch documents.

Args:
    input (Tensor): the destination (``self`` for the method).
    dim (int): the dim to add along.
    index (Tensor): a 1-d (or 0-d) int32 or int64 tensor.
    source (Tensor): the slices to add, of ``input``'s dtype.
    alpha (Number, optional): keyword-only factor of ``source`` (converted to ``input``'s dtype).
        Default: 1.
    out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

Returns:
    Tensor: a new tensor.

Example::

    >>> x = genesis.zeros(3, 2)
    >>> genesis.index_add(x, 0, genesis.tensor([2, 0, 2]), genesis.ones(3, 2), alpha=2)
    tensor([[2., 2.],
            [0., 0.],
            [4., 4.]])
)doc";

inline constexpr const char* kIndexAddInplace =
    R"doc(The in-place ``index_add``; returns this tensor.

Args:
    dim (int): the dim to add along.
    index (Tensor): a 1-d (or 0-d) int32 or int64 tensor.
    source (Tensor): the slices to add, of this tensor's dtype.
    alpha (Number, optional): keyword-only factor of ``source``. Default: 1.

Returns:
    Tensor: this tensor.

Example::

    >>> genesis.zeros(3).index_add_(0, genesis.tensor([1, 1]), genesis.tensor([1.0, 2.0]))
    tensor([0., 3., 0.])
)doc";

inline constexpr const char* kIndexReduce =
    R"doc(A copy of ``input`` with the slices of ``source`` reduced into it at ``index`` along ``dim``,
with ``reduce`` one of ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"`` (as ``index_add`` is the
sum). ``include_self`` and ``"mean"`` work as in ``scatter_reduce``; PyTorch marks this function
beta.

Args:
    input (Tensor): the destination (``self`` for the method).
    dim (int): the dim to reduce along.
    index (Tensor): a 1-d (or 0-d) int32 or int64 tensor.
    source (Tensor): the slices, of ``input``'s dtype, ``len(index)`` entries at ``dim``.
    reduce (str): ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
    include_self (bool, optional): keyword-only; whether ``input``'s values take part.
        Default: True.
    out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

Returns:
    Tensor: a new tensor.

Example::

    >>> x = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.index_reduce(0, genesis.tensor([1, 1]), genesis.tensor([[5.0, 0.0], [1.0, 9.0]]), "amax")
    tensor([[1., 2.],
            [5., 9.]])
)doc";

inline constexpr const char* kIndexReduceInplace =
    R"doc(The in-place ``index_reduce``; returns this tensor.

Args:
    dim (int): the dim to reduce along.
    index (Tensor): a 1-d (or 0-d) int32 or int64 tensor.
    source (Tensor): the slices, of this tensor's dtype.
    reduce (str): ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
    include_self (bool, optional): keyword-only; whether this tensor's values take part.
        Default: True.

Returns:
    Tensor: this tensor.

Example::

    >>> x = genesis.tensor([2.0, 3.0])
    >>> x.index_reduce_(0, genesis.tensor([0, 0]), genesis.tensor([4.0, 6.0]), "mean", include_self=False)
    tensor([5., 3.])
)doc";

inline constexpr const char* kPut =
    R"doc(A copy of ``input`` with the values of ``source`` written at ``index``, ``input`` seen as 1-d
(``out.reshape(-1)[index] = source``). ``index`` is an int64 tensor of any shape and ``source``
has as many elements. With ``accumulate`` the values are added instead, duplicate indices all
counting; without, duplicates keep one of their values (which is undefined, as in PyTorch).
Negative indices count from the end; out-of-range ones raise IndexError.

Args:
    input (Tensor): the destination (``self`` for the method).
    index (Tensor): int64 indices into the flattened tensor.
    source (Tensor): the values, of ``input``'s dtype.
    accumulate (bool, optional): add instead of writing. Default: False.

Returns:
    Tensor: a new tensor.

Example::

    >>> x = genesis.zeros(2, 2)
    >>> genesis.put(x, genesis.tensor([3, 0, 3]), genesis.tensor([1.0, 2.0, 3.0]), accumulate=True)
    tensor([[2., 0.],
            [0., 4.]])
)doc";

inline constexpr const char* kPutInplace =
    R"doc(The in-place ``put``: writes (or with ``accumulate`` adds) the values of ``source`` at
``index`` into this tensor seen as 1-d; returns this tensor.

Args:
    index (Tensor): int64 indices into the flattened tensor.
    source (Tensor): the values, of this tensor's dtype.
    accumulate (bool, optional): add instead of writing. Default: False.

Returns:
    Tensor: this tensor.

Example::

    >>> genesis.zeros(3).put_(genesis.tensor([-1]), genesis.tensor([7.0]))
    tensor([0., 0., 7.])
)doc";

inline constexpr const char* kIndexPut =
    R"doc(A copy of ``input`` with ``values`` written at ``indices``: ``out[indices] = values``, one index
tensor per leading dim (int64, int32, or bool and uint8 masks), ``values`` broadcast to the
indexed shape. With ``accumulate`` the values are added instead, duplicate indices all
counting; without, duplicates keep one of their values (undefined, as in PyTorch). Index
checks and errors are those of ``x[indices] = values``.

Args:
    input (Tensor): the destination (``self`` for the method).
    indices (tuple of Tensor): the index tensors.
    values (Tensor): the values, of ``input``'s dtype.
    accumulate (bool, optional): add instead of writing. Default: False.

Returns:
    Tensor: a new tensor.

Example::

    >>> x = genesis.zeros(2, 3)
    >>> i, j = genesis.tensor([0, 0, 1]), genesis.tensor([2, 2, 0])
    >>> genesis.index_put(x, (i, j), genesis.tensor([1.0, 2.0, 3.0]), accumulate=True)
    tensor([[0., 0., 3.],
            [3., 0., 0.]])
)doc";

inline constexpr const char* kIndexPutInplace =
    R"doc(The in-place ``index_put``: ``self[indices] = values`` (or ``+=`` every value with
``accumulate``); returns this tensor.

Args:
    indices (tuple of Tensor): the index tensors.
    values (Tensor): the values, of this tensor's dtype.
    accumulate (bool, optional): add instead of writing. Default: False.

Returns:
    Tensor: this tensor.

Example::

    >>> genesis.zeros(3).index_put_((genesis.tensor([1, 1]),), genesis.tensor(2.0), True)
    tensor([0., 4., 0.])
)doc";

inline constexpr NamedDoc kIndexReduceDocs[] = {
    {"index_put", kIndexPut},
    {"index_put_", kIndexPutInplace},
    {"scatter_add", kScatterAdd},
    {"scatter_add_", kScatterAddInplace},
    {"scatter_reduce", kScatterReduce},
    {"scatter_reduce_", kScatterReduceInplace},
    {"index_add", kIndexAdd},
    {"index_add_", kIndexAddInplace},
    {"index_reduce", kIndexReduce},
    {"index_reduce_", kIndexReduceInplace},
    {"put", kPut},
    {"put_", kPutInplace},
};

}  // namespace genesis::python::docs
