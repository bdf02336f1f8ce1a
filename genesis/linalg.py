"""Linear algebra with torch.linalg's names.

So far the norms, ``vector_norm`` and ``matrix_norm`` (``'fro'``, 1, -1, inf, -inf), and
``cross`` (along the last dim by default). The
decompositions (``solve``, ``inv``, ``det``, ``cholesky``, ``qr``, ``svd``, ``eigh``) and the
norms that need singular values are not implemented yet.

Example::

    >>> genesis.linalg.vector_norm(genesis.tensor([3.0, 4.0]))
    tensor(5.)
"""

from ._C._linalg import cross, matrix_norm, vector_norm

__all__ = ["cross", "matrix_norm", "vector_norm"]
