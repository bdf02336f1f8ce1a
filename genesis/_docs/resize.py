"""Docstring of Tensor.resize_ (csrc/python/resize.cpp)."""

from ._fragments import RETURNS_SELF

DOCS = {
    "Tensor.resize_": f"""\
Resizes this tensor in place to the given sizes and returns it.

As PyTorch's ``resize_``: the tensor gets contiguous strides at its storage offset, and the
bytes already in its storage stay where they are, so a contiguous tensor keeps its leading
elements; any new elements are uninitialized. A storage too small for the new sizes is
replaced by a larger one holding a copy of the old bytes. Unlike PyTorch, genesis grows a
storage only when this tensor is its sole user: growing a storage that views or NumPy/DLPack
share is a RuntimeError (PyTorch moves the shared storage, or refuses NumPy's). Shrinking
never reallocates. ``size=`` may be given as a keyword, as in PyTorch. ``out=`` tensors of
another shape are resized this way (Note [out= arguments]).

Args:
    *sizes (int): the new sizes, as separate ints or one tuple or list; none negative.

{RETURNS_SELF}

Example::

    >>> x = genesis.tensor([1.0, 2.0, 3.0, 4.0])
    >>> x.resize_(2, 2)
    tensor([[1., 2.],
            [3., 4.]])
    >>> x.resize_(3).shape
    genesis.Size([3])
""",
}
