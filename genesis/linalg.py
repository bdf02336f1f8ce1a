"""Linear algebra with torch.linalg's names.

The norms, ``norm``, ``vector_norm`` and ``matrix_norm`` (every order torch.linalg has),
``cross`` (along the last dim by default), and the decompositions: ``solve``, ``inv``,
``det``, ``slogdet``, ``cholesky``, ``qr``, ``svd``, ``svdvals``, ``eigh`` and ``eigvalsh`` on
batches of float32 and float64 matrices. They run on LAPACK on the CPU (NumPy's bundled
OpenBLAS, found at run time) and on cuSOLVER on CUDA; a matrix that cannot be factored raises
``LinAlgError``.

Example::

    >>> genesis.linalg.vector_norm(genesis.tensor([3.0, 4.0]))
    tensor(5.)
"""

import glob as _glob
import importlib.util as _importlib_util
import os as _os

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
    norm,
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
    "norm",
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
        spec = _importlib_util.find_spec("numpy")
    except (ImportError, ValueError):
        return []
    paths = []
    for location in (spec.submodule_search_locations or []) if spec else []:
        libs = _os.path.join(_os.path.dirname(_os.path.abspath(location)), "numpy.libs")
        paths += sorted(_glob.glob(_os.path.join(libs, "libscipy_openblas*.so*")))
        paths += sorted(_glob.glob(_os.path.join(libs, "libopenblas*.so*")))
    return paths


_set_lapack_paths(_numpy_lapack_paths())
