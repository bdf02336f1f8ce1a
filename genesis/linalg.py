"""Linear algebra with torch.linalg's names.

The norms, ``vector_norm`` and ``matrix_norm`` (``'fro'``, 1, -1, inf, -inf), ``cross`` (along
the last dim by default), and the decompositions: ``solve``, ``inv``, ``det``, ``slogdet``,
``cholesky``, ``qr``, ``svd``, ``svdvals``, ``eigh`` and ``eigvalsh`` on batches of float32 and
float64 matrices. They run on LAPACK on the CPU (NumPy's bundled OpenBLAS, found at run time)
and on cuSOLVER on CUDA; a matrix that cannot be factored raises ``LinAlgError``. The norms
that need singular values are not implemented yet.

Example::

    >>> genesis.linalg.vector_norm(genesis.tensor([3.0, 4.0]))
    tensor(5.)
"""

import glob
import importlib.util
import os

from ._C import LinAlgError
from ._C._linalg import (
    _set_lapack_paths,
    cholesky,
    cross,
    det,
    eigh,
    eigvalsh,
    inv,
    matrix_norm,
    qr,
    slogdet,
    solve,
    svd,
    svdvals,
    vector_norm,
)

__all__ = [
    "LinAlgError",
    "cholesky",
    "cross",
    "det",
    "eigh",
    "eigvalsh",
    "inv",
    "matrix_norm",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "vector_norm",
]


def _numpy_lapack_paths():
    # Note [Loading LAPACK] (csrc/cpu/lapack.cpp): NumPy's wheels bundle an OpenBLAS with
    # LAPACK in site-packages/numpy.libs. find_spec locates NumPy without importing it.
    try:
        spec = importlib.util.find_spec("numpy")
    except (ImportError, ValueError):
        return []
    paths = []
    for location in (spec.submodule_search_locations or []) if spec else []:
        libs = os.path.join(os.path.dirname(os.path.abspath(location)), "numpy.libs")
        paths += sorted(glob.glob(os.path.join(libs, "libscipy_openblas*.so*")))
        paths += sorted(glob.glob(os.path.join(libs, "libopenblas*.so*")))
    return paths


_set_lapack_paths(_numpy_lapack_paths())
