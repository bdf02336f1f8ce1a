"""Docstrings of genesis.linalg's decompositions (csrc/python/linalg_decomp.cpp)."""

from ._fragments import A_SQUARE, OUT

DOCS = {
    "_linalg.solve": f"""\
Solves the linear system ``A X = B`` (or ``X A = B`` with ``left=False``).

``A`` is a batch ``(..., n, n)`` of square float32 or float64 matrices. ``B`` has ``A``'s dtype
and is ``(..., n, k)``, or a vector: 1-D, or ``A``'s shape without its last dim. Batch dims
broadcast. The matrices are factored by LU with partial pivoting (LAPACK's getrf/getrs on the
CPU, cuSOLVER's on CUDA). A singular ``A`` raises ``genesis.linalg.LinAlgError``.

Args:
    A (Tensor): the coefficient matrices ``(..., n, n)``.
    B (Tensor): the right-hand sides ``(..., n, k)`` or vectors.
    left (bool): solve ``A X = B`` when True, ``X A = B`` when False. Default: True.
{OUT}

Returns:
    Tensor: X, of the broadcast shape of B.

Example::

    >>> A = genesis.tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> genesis.linalg.solve(A, genesis.tensor([2.0, 8.0]))
    tensor([1., 2.])
""",
    "_linalg.inv": f"""\
Returns the inverse of each square matrix of ``A``.

Computed as ``solve(A, I)``. A singular matrix raises ``genesis.linalg.LinAlgError``.

Args:
{A_SQUARE}
{OUT}

Returns:
    Tensor: the inverses, of A's shape.

Example::

    >>> genesis.linalg.inv(genesis.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
""",
    "_linalg.det": f"""\
Returns the determinant of each square matrix of ``A``.

From an LU factorization: the product of U's diagonal and the sign of the pivoting. A singular
matrix gives 0 (no error).

Args:
{A_SQUARE}
{OUT}

Returns:
    Tensor: the determinants, of A's batch shape (1 for n = 0).

Example::

    >>> genesis.linalg.det(genesis.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(-2.)
""",
    "_linalg.slogdet": f"""\
Returns the sign and the log of the absolute value of each determinant of ``A``.

More robust than ``log(det(A))`` when the determinant under- or overflows. A singular matrix
gives sign 0 and logabsdet ``-inf``.

Args:
{A_SQUARE}
    out (tuple of Tensors, optional): ``(sign, logabsdet)`` to write the results into.
        Default: None.

Returns:
    tuple: a named tuple ``(sign, logabsdet)`` of tensors of A's batch shape.

Example::

    >>> genesis.linalg.slogdet(genesis.tensor([[-2.0, 0.0], [0.0, 1.0]]))
    linalg_slogdet(sign=tensor(-1.), logabsdet=tensor(0.6931))
""",
    "_linalg.cholesky": f"""\
Returns the Cholesky factor of each symmetric positive-definite matrix of ``A``.

``L`` is lower triangular with ``A = L @ L.mT``, computed from ``A``'s lower triangle (the
other one is not read); with ``upper=True``, ``U`` is upper triangular with ``A = U.mT @ U``,
from ``A``'s upper triangle. A matrix that is not positive-definite raises
``genesis.linalg.LinAlgError``.

Args:
{A_SQUARE}
    upper (bool): return the upper factor instead of the lower one. Default: False.
{OUT}

Returns:
    Tensor: the triangular factors, of A's shape.

Example::

    >>> genesis.linalg.cholesky(genesis.tensor([[4.0, 2.0], [2.0, 5.0]]))
    tensor([[2., 0.],
            [1., 2.]])
""",
    "_linalg.qr": """\
Returns the QR decomposition ``A = Q @ R`` of each matrix of ``A`` (m x n).

``Q`` has orthonormal columns and ``R`` is upper triangular (Householder QR). With k =
min(m, n): ``'reduced'`` gives Q (m, k) and R (k, n), ``'complete'`` Q (m, m) and R (m, n), and
``'r'`` only R (k, n), Q being an empty tensor. The signs of Q's columns (and R's rows) are not
unique.

Args:
    A (Tensor): float32 or float64 matrices ``(..., m, n)``.
    mode (str): ``'reduced'``, ``'complete'`` or ``'r'``. Default: 'reduced'.
    out (tuple of Tensors, optional): ``(Q, R)`` to write the results into.
        Default: None.

Returns:
    tuple: a named tuple ``(Q, R)``.

Example::

    >>> A = genesis.tensor([[3.0, 1.0], [4.0, 2.0], [0.0, 5.0]])
    >>> Q, R = genesis.linalg.qr(A)
    >>> Q.shape, R.shape
    (genesis.Size([3, 2]), genesis.Size([2, 2]))
    >>> bool(((Q @ R) - A).abs().max() < 1e-5)
    True
""",
    "_linalg.svd": """\
Returns the singular value decomposition ``A = U @ diag(S) @ Vh`` of each matrix of ``A``.

For m x n matrices and k = min(m, n): S (k) is descending; with ``full_matrices`` U is (m, m)
and Vh (n, n), otherwise U (m, k) and Vh (k, n). LAPACK's gesdd on the CPU, cuSOLVER's gesvd
on CUDA. Singular vectors are unique only up to sign.

Args:
    A (Tensor): float32 or float64 matrices ``(..., m, n)``.
    full_matrices (bool): return the full square U and Vh. Default: True.
    out (tuple of Tensors, optional): ``(U, S, Vh)`` to write the results into.
        Default: None.

Returns:
    tuple: a named tuple ``(U, S, Vh)``.

Example::

    >>> U, S, Vh = genesis.linalg.svd(genesis.tensor([[3.0, 0.0], [0.0, -4.0]]))
    >>> S
    tensor([4., 3.])
""",
    "_linalg.svdvals": f"""\
Returns the singular values of each matrix of ``A``, descending.

The values of ``svd``, computed without the singular vectors.

Args:
    A (Tensor): float32 or float64 matrices ``(..., m, n)``.
{OUT}

Returns:
    Tensor: ``(..., min(m, n))`` singular values.

Example::

    >>> genesis.linalg.svdvals(genesis.tensor([[0.0, 2.0], [1.0, 0.0]]))
    tensor([2., 1.])
""",
    "_linalg.eigh": f"""\
Returns the eigenvalues and eigenvectors of each symmetric matrix of ``A``.

Only the triangle named by ``UPLO`` is read. The eigenvalues are ascending and the
eigenvectors are the columns of the second tensor, ``A = V @ diag(w) @ V.mT``; each vector's
sign is not unique. LAPACK's syevd on the CPU, cuSOLVER's on CUDA.

Args:
{A_SQUARE}
    UPLO (str): ``'L'`` to read the lower triangle, ``'U'`` the upper one. Default: 'L'.
    out (tuple of Tensors, optional): ``(eigenvalues, eigenvectors)`` to write the results into.
        Default: None.

Returns:
    tuple: a named tuple ``(eigenvalues, eigenvectors)``.

Example::

    >>> w, V = genesis.linalg.eigh(genesis.tensor([[2.0, 0.0], [0.0, 1.0]]))
    >>> w
    tensor([1., 2.])
""",
    "_linalg.eigvalsh": f"""\
Returns the eigenvalues of each symmetric matrix of ``A``, ascending.

The values of ``eigh``, computed without the eigenvectors.

Args:
{A_SQUARE}
    UPLO (str): ``'L'`` to read the lower triangle, ``'U'`` the upper one. Default: 'L'.
{OUT}

Returns:
    Tensor: ``(..., n)`` eigenvalues.

Example::

    >>> genesis.linalg.eigvalsh(genesis.tensor([[3.0, 0.0], [0.0, -1.0]]))
    tensor([-1.,  3.])
""",
}
