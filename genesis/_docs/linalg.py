"""Docstrings of the matrix products (csrc/python/linalg.cpp): matmul, mm, bmm and @."""

from ._fragments import RETURNS_CONTIGUOUS

DOCS = {
    "Tensor.matmul matmul": f"""\
Matrix product of ``input`` and ``other``, with PyTorch's rules for vectors and batches.

- 1-D @ 1-D: the dot product, a 0-d tensor;
- 2-D @ 2-D: the matrix product;
- 1-D @ 2-D and 2-D @ 1-D: the vector is taken as a row (or column) matrix, and that
  dimension is dropped from the result;
- more dimensions: a batch of matrices in the last two dimensions; the batch dimensions
  broadcast (a 1-D or 2-D operand is shared by the whole batch).

Both operands must have the same dtype (no promotion: cast first) and device; bool tensors
are a TypeError, 0-d tensors and mismatched shapes a RuntimeError. On the CPU every dtype but
bool works, on all cores (float16 and bfloat16 accumulate in float32, integers wrap). On CUDA
genesis calls cuBLAS, loaded at the first CUDA product: float32 runs in full precision (no
TF32), and integer dtypes are a TypeError. ``input @ other`` and ``input.matmul(other)`` are
the same.

Args:
    input (Tensor): the left operand (``self`` for the method).
    other (Tensor): the right operand.

{RETURNS_CONTIGUOUS}

Example::

    >>> a = genesis.arange(6.0).view(2, 3)
    >>> v = genesis.tensor([1.0, 0.0, -1.0])
    >>> genesis.matmul(v, v)
    tensor(2.)
    >>> a @ v
    tensor([-2., -2.])
    >>> a.matmul(a.T)
    tensor([[ 5., 14.],
            [14., 50.]])
    >>> (genesis.ones(4, 1, 2, 3) @ genesis.ones(5, 3, 2)).shape
    genesis.Size([4, 5, 2, 2])
""",
    "Tensor.mm mm": """\
Matrix product of two 2-D tensors (no broadcasting).

``input`` is ``(n, k)`` and ``mat2`` ``(k, m)``; the result is ``(n, m)``. Same dtype and
device rules as ``matmul``.

Args:
    input (Tensor): a 2-D tensor (``self`` for the method).
    mat2 (Tensor): a 2-D tensor.

Returns:
    Tensor: a new ``(n, m)`` tensor.

Example::

    >>> a = genesis.tensor([[1, 2], [3, 4]])
    >>> genesis.mm(a, a)
    tensor([[ 7, 10],
            [15, 22]])
""",
    "Tensor.bmm bmm": """\
Batched matrix product of two 3-D tensors with the same batch size (no broadcasting).

``input`` is ``(b, n, k)`` and ``mat2`` ``(b, k, m)``; the result is ``(b, n, m)``. Same dtype
and device rules as ``matmul``.

Args:
    input (Tensor): a 3-D tensor (``self`` for the method).
    mat2 (Tensor): a 3-D tensor.

Returns:
    Tensor: a new ``(b, n, m)`` tensor.

Example::

    >>> genesis.bmm(genesis.ones(4, 2, 3), genesis.ones(4, 3, 1)).shape
    genesis.Size([4, 2, 1])
""",
    "Tensor.__matmul__": "x @ other: ``matmul(x, other)``.",
    "Tensor.__rmatmul__": """\
other @ x, when the left operand does not handle ``@``: ``matmul(other, x)``.""",
}
