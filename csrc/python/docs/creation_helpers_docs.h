#pragma once
// Docstrings of csrc/python/creation_helpers.cpp: Tensor.new_*, type_as, genesis.asarray/as_tensor
// and the small queries.

namespace genesis::python::docs {

inline constexpr const char* kNewEmpty =
    R"doc(Returns an uninitialised tensor of the given size, with this tensor's dtype and device.

Args:
    *size (int): the sizes, as separate ints or one tuple or list.
    dtype (genesis.dtype, optional): another dtype. Default: None (this tensor's).
    device (genesis.device, optional): another device. Default: None (this tensor's).

Returns:
    Tensor: a new tensor whose values are whatever the memory held.

Example::

    >>> genesis.zeros(2, dtype=genesis.int32).new_empty(3, 4).dtype
    genesis.int32
)doc";

inline constexpr const char* kNewZeros =
    R"doc(Returns a tensor of zeros of the given size, with this tensor's dtype and device.

Args:
    *size (int): the sizes, as separate ints or one tuple or list.
    dtype (genesis.dtype, optional): another dtype. Default: None (this tensor's).
    device (genesis.device, optional): another device. Default: None (this tensor's).

Returns:
    Tensor: a new tensor of zeros.

Example::

    >>> genesis.ones(2, dtype=genesis.float64).new_zeros((2, 2))
    tensor([[0., 0.],
            [0., 0.]], dtype=genesis.float64)
)doc";

inline constexpr const char* kNewOnes =
    R"doc(Returns a tensor of ones of the given size, with this tensor's dtype and device.

Args:
    *size (int): the sizes, as separate ints or one tuple or list.
    dtype (genesis.dtype, optional): another dtype. Default: None (this tensor's).
    device (genesis.device, optional): another device. Default: None (this tensor's).

Returns:
    Tensor: a new tensor of ones.

Example::

    >>> genesis.zeros(1, dtype=genesis.int64).new_ones(3)
    tensor([1, 1, 1])
)doc";

inline constexpr const char* kNewFull =
    R"doc(Returns a tensor of ``size`` filled with ``fill_value``, with this tensor's dtype and device.

Args:
    size (sequence of ints): the sizes.
    fill_value (number): the value of every element.
    dtype (genesis.dtype, optional): another dtype. Default: None (this tensor's).
    device (genesis.device, optional): another device. Default: None (this tensor's).

Returns:
    Tensor: a new filled tensor.

Example::

    >>> genesis.zeros(1).new_full((2,), 7)
    tensor([7., 7.])
)doc";

inline constexpr const char* kNewTensor =
    R"doc(Returns a copy of ``data`` as a tensor with this tensor's dtype and device.

``data`` is anything ``genesis.tensor`` takes; the result never shares memory with it.

Args:
    data (array_like): numbers, nested sequences, arrays or tensors.
    dtype (genesis.dtype, optional): another dtype. Default: None (this tensor's).
    device (genesis.device, optional): another device. Default: None (this tensor's).

Returns:
    Tensor: a new tensor.

Example::

    >>> genesis.zeros(1, dtype=genesis.int32).new_tensor([1.7, 2.2])
    tensor([1, 2], dtype=genesis.int32)
)doc";

inline constexpr const char* kTypeAs =
    R"doc(Returns this tensor converted to the dtype and device of ``other`` (this tensor itself when
it already has both), as PyTorch's ``self.type(other.type())``.

Args:
    other (Tensor): the tensor whose dtype and device to take.

Returns:
    Tensor: the converted tensor.

Example::

    >>> genesis.tensor([1, 2]).type_as(genesis.zeros(1)).dtype
    genesis.float32
)doc";

inline constexpr const char* kAsarray =
    R"doc(Converts ``obj`` to a tensor, sharing memory when it can (Python array API's asarray).

A genesis tensor, a NumPy array and any DLPack producer (PyTorch, CuPy, JAX) are shared when
neither ``dtype`` nor ``device`` asks for a change; other data (numbers, nested sequences) is
copied. ``copy=True`` always copies; ``copy=False`` raises ValueError when a copy is needed.

Args:
    obj (object): the data.
    dtype (genesis.dtype, optional): the dtype of the result. Default: None (the data's).
    device (genesis.device, optional): the device of the result. Default: None (the data's,
        the CPU for Python data).
    copy (bool, optional): True to copy, False to refuse copying, None to copy only when
        needed. Default: None.

Returns:
    Tensor: a tensor sharing or holding the data.

Example::

    >>> a = np.arange(3.0)
    >>> t = genesis.asarray(a)
    >>> t[0] = 5.0
    >>> a[0]
    np.float64(5.0)
    >>> genesis.asarray([1, 2], dtype=genesis.float32)
    tensor([1., 2.])
)doc";

inline constexpr const char* kAsTensor =
    R"doc(Converts ``data`` to a tensor, sharing memory when it can (PyTorch's as_tensor).

The same as ``genesis.asarray(data, dtype=dtype, device=device)``: tensors, NumPy arrays and
DLPack producers are shared when no conversion is asked for; other data is copied.

Args:
    data (object): the data.
    dtype (genesis.dtype, optional): the dtype of the result. Default: None (the data's).
    device (genesis.device, optional): the device of the result. Default: None.

Returns:
    Tensor: a tensor sharing or holding the data.

Example::

    >>> x = genesis.zeros(2)
    >>> genesis.as_tensor(x) is x
    True
)doc";

inline constexpr const char* kNumelFunction =
    R"doc(Returns the number of elements of ``input``.

Args:
    input (Tensor): the tensor.

Returns:
    int: the product of its sizes.

Example::

    >>> genesis.numel(genesis.zeros(2, 3))
    6
)doc";

inline constexpr const char* kCanCast =
    R"doc(Whether PyTorch's casting rules allow ``from_`` to be cast to ``to`` in an in-place op.

Floating to integral and anything but bool to bool are not allowed; everything else is.

Args:
    from_ (genesis.dtype): the source dtype.
    to (genesis.dtype): the target dtype.

Returns:
    bool: whether the cast is allowed.

Example::

    >>> genesis.can_cast(genesis.int32, genesis.float16), genesis.can_cast(genesis.float32, genesis.int64)
    (True, False)
)doc";

inline constexpr const char* kIsFloatingPointFunction =
    R"doc(Whether ``input``'s dtype is a floating point dtype.

Args:
    input (Tensor): the tensor.

Returns:
    bool: True for float16, bfloat16, float32 and float64.

Example::

    >>> genesis.is_floating_point(genesis.zeros(1)), genesis.is_floating_point(genesis.arange(2))
    (True, False)
)doc";

inline constexpr const char* kIsNonzero =
    R"doc(Whether a one-element tensor is non-zero (RuntimeError for any other number of elements).

Args:
    input (Tensor): a tensor with exactly one element.

Returns:
    bool: whether its value is not zero.

Example::

    >>> genesis.is_nonzero(genesis.tensor([0.5])), genesis.tensor(0).is_nonzero()
    (True, False)
)doc";

inline constexpr const char* kIsNonzeroMethod =
    R"doc(Whether this one-element tensor is non-zero (RuntimeError for any other element count).

Returns:
    bool: whether its value is not zero.

Example::

    >>> genesis.tensor(0).is_nonzero()
    False
)doc";

}  // namespace genesis::python::docs
