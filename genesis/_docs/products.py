"""Docstrings of csrc/python/products.cpp: outer, dot, vdot, inner, the add*mm family, mv, kron,
cross, cdist, tensordot, einsum and genesis.linalg.cross.
"""

from ._fragments import (
    ALPHA_PRODUCT,
    BATCH1,
    BATCH2,
    BETA_INPUT,
    BETA_SELF,
    INPUT_FIRST,
    OTHER_TENSOR,
    OUT,
    RETURNS_THIS,
)

DOCS = {
    "Tensor.outer outer": f"""\
Returns the outer product of two 1-D tensors: ``out[i, j] = input[i] * vec2[j]``.

The dtypes promote as in ``mul``.

Args:
    input (Tensor): a 1-D tensor of size n.
    vec2 (Tensor): a 1-D tensor of size m.
{OUT}

Returns:
    Tensor: an (n, m) tensor.

Example::

    >>> genesis.outer(genesis.tensor([1, 2]), genesis.tensor([1, 10, 100]))
    tensor([[  1,  10, 100],
            [  2,  20, 200]])
""",
    "Tensor.dot dot": f"""\
Returns the dot product of two 1-D tensors of the same size and dtype.

Bool tensors are refused, and so are integer tensors on CUDA (as ``matmul``).

Args:
    input (Tensor): a 1-D tensor.
    tensor (Tensor): a 1-D tensor of the same size and dtype.
{OUT}

Returns:
    Tensor: a 0-d tensor, the sum of the products.

Example::

    >>> genesis.dot(genesis.tensor([1.0, 2.0, 3.0]), genesis.tensor([4.0, 5.0, 6.0]))
    tensor(32.)
""",
    "Tensor.vdot vdot": f"""\
Returns the dot product of two 1-D tensors, conjugating the first.

genesis has no complex dtypes, so this is ``dot``.

Args:
    input (Tensor): a 1-D tensor.
    other (Tensor): a 1-D tensor of the same size and dtype.
{OUT}

Returns:
    Tensor: a 0-d tensor.

Example::

    >>> genesis.vdot(genesis.tensor([1, 2]), genesis.tensor([3, 4]))
    tensor(11)
""",
    "Tensor.inner inner": f"""\
Returns the sum of products over the last dims of two tensors.

For shapes ``(..a, k)`` and ``(..b, k)`` the result has shape ``(..a, ..b)``. A 0-d operand
multiplies the other instead (with type promotion); otherwise the dtypes must match.

Args:
{INPUT_FIRST}
    other (Tensor): the second tensor; its last dim matches input's.
{OUT}

Returns:
    Tensor: the inner products.

Example::

    >>> a = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> genesis.inner(a, genesis.tensor([1.0, 1.0]))
    tensor([3., 7.])
""",
    "Tensor.addmm addmm": f"""\
Returns ``beta * input + alpha * (mat1 @ mat2)``.

``input`` broadcasts to the product's shape (n, p). With ``beta`` 0 its values are ignored
(a NaN in it does not reach the result). All three tensors need one dtype; integer tensors take
the integer part of ``beta`` and ``alpha``. On CUDA, a bias row (``input`` of shape (p,) or
(1, p)) with ``beta`` 1 is added by cuBLASLt as it writes the product: one call, no second pass.

Args:
    input (Tensor): the tensor added, broadcastable to (n, p).
    mat1 (Tensor): an (n, m) matrix.
    mat2 (Tensor): an (m, p) matrix.
{BETA_INPUT}
{ALPHA_PRODUCT}
{OUT}

Returns:
    Tensor: an (n, p) tensor.

Example::

    >>> m = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> genesis.addmm(genesis.ones(2), m, m, beta=2, alpha=0.5)
    tensor([[ 5.5000,  7.0000],
            [ 9.5000, 13.0000]])
""",
    "_addmm_activation": f"""\
Returns ``relu(beta * input + alpha * (mat1 @ mat2))``, or its GELU with ``use_gelu``.

PyTorch's ``torch._addmm_activation``, the fused linear + activation of its layers; like
PyTorch, genesis has no Tensor method for it and leaves it out of ``__all__``. ``input``,
``beta`` and ``alpha`` are as in ``addmm``. The GELU is PyTorch's for the device: the exact
(erf) GELU on CPU, the tanh approximation on CUDA (what cuBLASLt's epilogue computes), so
results match ``torch._addmm_activation`` on both. On CUDA, a bias row (``input`` of shape (p,)
or (1, p)) with ``beta`` 1 is one cuBLASLt call that adds the bias and applies the activation
as it writes the product; any other case is ``addmm`` followed by ``relu`` or ``gelu``. Unlike
PyTorch's op it is differentiable (in input, mat1 and mat2; with a gradient wanted, that GELU
call also keeps the pre-activation for the backward when p is a multiple of 8), and an empty
inner dimension still applies the activation (to ``beta * input``).

Args:
    input (Tensor): the tensor added, broadcastable to (n, p).
    mat1 (Tensor): an (n, m) matrix.
    mat2 (Tensor): an (m, p) matrix.
{BETA_INPUT}
{ALPHA_PRODUCT}
    use_gelu (bool): GELU instead of ReLU. Default: False.
{OUT}

Returns:
    Tensor: an (n, p) tensor.

Example::

    >>> m = genesis.tensor([[1.0, -2.0], [3.0, 4.0]])
    >>> genesis._addmm_activation(genesis.tensor([0.0, -1.0]), m, m)
    tensor([[ 0.,  0.],
            [15.,  9.]])
    >>> w = genesis.tensor([[0.0, 1.0], [-1.0, 2.0]])
    >>> genesis._addmm_activation(genesis.zeros(2), genesis.eye(2), w, use_gelu=True)
    tensor([[ 0.0000,  0.8413],
            [-0.1587,  1.9545]])
""",
    "Tensor.addmm_": f"""\
In-place ``addmm``: ``self = beta * self + alpha * (mat1 @ mat2)``.

The product must have self's shape.

Args:
    mat1 (Tensor): an (n, m) matrix.
    mat2 (Tensor): an (m, p) matrix.
{BETA_SELF}
{ALPHA_PRODUCT}

{RETURNS_THIS}

Example::

    >>> x = genesis.zeros(2, 2)
    >>> x.addmm_(genesis.ones(2, 3), genesis.ones(3, 2))
    tensor([[3., 3.],
            [3., 3.]])
""",
    "Tensor.addbmm addbmm": f"""\
Returns ``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``.

The batch of products is summed into one (n, p) matrix, computed as a single matrix product.

Args:
    input (Tensor): the tensor added, broadcastable to (n, p).
{BATCH1}
{BATCH2}
{BETA_INPUT}
    alpha (Number): the factor of the summed products. Default: 1.
{OUT}

Returns:
    Tensor: an (n, p) tensor.

Example::

    >>> genesis.addbmm(genesis.zeros(2, 2), genesis.ones(3, 2, 4), genesis.ones(3, 4, 2))
    tensor([[12., 12.],
            [12., 12.]])
""",
    "Tensor.addbmm_": f"""\
In-place ``addbmm``: ``self = beta * self + alpha * sum_b(batch1[b] @ batch2[b])``.

Args:
{BATCH1}
{BATCH2}
{BETA_SELF}
    alpha (Number): the factor of the summed products. Default: 1.

{RETURNS_THIS}

Example::

    >>> genesis.ones(1, 1).addbmm_(genesis.ones(2, 1, 3), genesis.ones(2, 3, 1), beta=0)
    tensor([[6.]])
""",
    "Tensor.baddbmm baddbmm": f"""\
Returns ``beta * input + alpha * bmm(batch1, batch2)``.

Args:
    input (Tensor): the tensor added, broadcastable to (b, n, p).
{BATCH1}
{BATCH2}
{BETA_INPUT}
    alpha (Number): the factor of the products. Default: 1.
{OUT}

Returns:
    Tensor: a (b, n, p) tensor.

Example::

    >>> genesis.baddbmm(genesis.ones(1), genesis.ones(2, 1, 3), genesis.ones(2, 3, 1)).shape
    genesis.Size([2, 1, 1])
""",
    "Tensor.baddbmm_": f"""\
In-place ``baddbmm``: ``self = beta * self + alpha * bmm(batch1, batch2)``.

Args:
{BATCH1}
{BATCH2}
{BETA_SELF}
    alpha (Number): the factor of the products. Default: 1.

{RETURNS_THIS}

Example::

    >>> genesis.ones(2, 1, 1).baddbmm_(genesis.ones(2, 1, 3), genesis.ones(2, 3, 1), alpha=2)
    tensor([[[7.]],
    <BLANKLINE>
            [[7.]]])
""",
    "Tensor.addmv addmv": f"""\
Returns ``beta * input + alpha * (mat @ vec)``.

Args:
    input (Tensor): the tensor added, broadcastable to (n,).
    mat (Tensor): an (n, m) matrix.
    vec (Tensor): a 1-D tensor of size m.
{BETA_INPUT}
{ALPHA_PRODUCT}
{OUT}

Returns:
    Tensor: a 1-D tensor of size n.

Example::

    >>> genesis.addmv(genesis.tensor([1.0, 2.0]), genesis.ones(2, 3), genesis.ones(3))
    tensor([4., 5.])
""",
    "Tensor.addmv_": f"""\
In-place ``addmv``: ``self = beta * self + alpha * (mat @ vec)``.

Args:
    mat (Tensor): an (n, m) matrix.
    vec (Tensor): a 1-D tensor of size m.
{BETA_SELF}
{ALPHA_PRODUCT}

{RETURNS_THIS}

Example::

    >>> genesis.zeros(2).addmv_(genesis.ones(2, 3), genesis.ones(3))
    tensor([3., 3.])
""",
    "Tensor.mv mv": f"""\
Returns the product of a matrix and a vector.

Args:
    input (Tensor): an (n, m) matrix.
    vec (Tensor): a 1-D tensor of size m, of input's dtype.
{OUT}

Returns:
    Tensor: a 1-D tensor of size n.

Example::

    >>> genesis.mv(genesis.tensor([[1, 2], [3, 4]]), genesis.tensor([1, 1]))
    tensor([3, 7])
""",
    "Tensor.kron kron": f"""\
Returns the Kronecker product of two tensors.

The tensor with fewer dims gains leading dims of size 1; the result's dim i has size
``input.shape[i] * other.shape[i]``. The dtypes promote as in ``mul``.

Args:
{INPUT_FIRST}
{OTHER_TENSOR}
{OUT}

Returns:
    Tensor: the Kronecker product.

Example::

    >>> genesis.kron(genesis.tensor([1, 2]), genesis.tensor([1, 10]))
    tensor([ 1, 10,  2, 20])
""",
    "Tensor.cross cross": f"""\
Returns the cross product of 3-vectors along a dim.

Both tensors have the same number of dims and dtype; their sizes broadcast. Without ``dim``
the first dim of size 3 is used (as torch.cross; ``genesis.linalg.cross`` defaults to -1).

Args:
{INPUT_FIRST}
{OTHER_TENSOR}
    dim (int, optional): the dim of size 3. Default: None.
{OUT}

Returns:
    Tensor: the cross products, of the broadcast shape.

Example::

    >>> genesis.cross(genesis.tensor([1.0, 0.0, 0.0]), genesis.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
""",
    "_linalg.cross": f"""\
Returns the cross product of 3-vectors along ``dim`` (the last by default).

Both tensors have the same number of dims and dtype; their sizes broadcast.

Args:
{INPUT_FIRST}
{OTHER_TENSOR}
    dim (int): the dim of size 3. Default: -1.
{OUT}

Returns:
    Tensor: the cross products.

Example::

    >>> genesis.linalg.cross(genesis.tensor([[0, 1, 0]]), genesis.tensor([[0, 0, 1]]))
    tensor([[1, 0, 0]])
""",
    "cdist": """\
Returns the p-norm distance between each row of x1 and each row of x2.

For x1 of shape ``(..., P, M)`` and x2 of shape ``(..., R, M)`` (batch dims broadcast) the
result has shape ``(..., P, R)``. ``p`` is any non-negative number or ``inf``; p = 0 counts the
differing coordinates. For p = 2 the distances can come from matrix products,
``|a|^2 + |b|^2 - 2 a.b`` (faster, a little less exact): always, never, or when P or R exceeds 25.

Args:
    x1 (Tensor): a floating point tensor of shape (..., P, M).
    x2 (Tensor): a tensor of x1's dtype, of shape (..., R, M).
    p (float): the norm's order. Default: 2.0.
    compute_mode (str): ``'use_mm_for_euclid_dist_if_necessary'``, ``'use_mm_for_euclid_dist'``
        or ``'donot_use_mm_for_euclid_dist'``. Default: 'use_mm_for_euclid_dist_if_necessary'.

Returns:
    Tensor: the distances.

Example::

    >>> genesis.cdist(genesis.tensor([[0.0, 0.0]]), genesis.tensor([[3.0, 4.0], [1.0, 0.0]]))
    tensor([[5., 1.]])
""",
    "tensordot": f"""\
Returns the contraction of two tensors over the given dims.

``dims`` is an int n (the last n dims of a against the first n of b) or a pair of dim lists
contracted pairwise. The result has a's other dims, then b's. Same dtype rules as ``matmul``.

Args:
    a (Tensor): the first tensor.
    b (Tensor): the second tensor.
    dims (int or tuple of two lists): the dims to contract. Default: 2.
{OUT}

Returns:
    Tensor: the contraction.

Example::

    >>> a = genesis.ones(3, 4, 5)
    >>> genesis.tensordot(a, genesis.ones(4, 3), dims=([1, 0], [0, 1]))
    tensor([12., 12., 12., 12., 12.])
""",
    "einsum": """\
Sums the products of the operands' elements over the indices of an equation.

The equation names each operand's dims with letters (``a-z``, ``A-Z``), comma-separated, and
optionally the output's after ``->``. Without ``->`` the output has the letters that appear once,
in alphabetical order (upper case first). ``...`` stands for the dims not named, which broadcast
between operands. A letter repeated in one operand takes the diagonal (``'ii->i'``); letters not
in the output are summed. The operands are contracted left to right, each pair as one batched
matrix product (or a broadcast multiply when no index is shared and summed). Dtypes follow
PyTorch's einsum: sums promote bool and integers to int64, multiplies promote, and a contraction
needs operands of one dtype (not bool; not integers on CUDA).

The sublist form ``einsum(op0, sublist0, op1, sublist1, ..., [output])`` names the dims with
ints instead (0-25 for ``A-Z``, 26-51 for ``a-z``) and ``...`` as ``Ellipsis``.

Args:
    equation (str): the subscripts, such as ``'ij,jk->ik'``.
    *operands (Tensor): the tensors, or a single list of them.

Returns:
    Tensor: the result.

Example::

    >>> a = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> genesis.einsum('ij,jk->ik', a, a)
    tensor([[ 7., 10.],
            [15., 22.]])
    >>> genesis.einsum('ii', a), genesis.einsum('ij->j', a)
    (tensor(5.), tensor([4., 6.]))
    >>> genesis.einsum(a, [0, 1], a, [1, 2], [0, 2]).tolist()  # the sublist form of 'ab,bc->ac'
    [[7.0, 10.0], [15.0, 22.0]]
""",
}
