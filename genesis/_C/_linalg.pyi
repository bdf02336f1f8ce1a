"""Type stubs for genesis._C._linalg, generated from the built module by
`python tools/generate_stubs.py`: do not edit by hand."""

import collections.abc
import typing

import genesis._C

class _Eigh(typing.NamedTuple):
    eigenvalues: genesis._C.Tensor
    eigenvectors: genesis._C.Tensor

class _QR(typing.NamedTuple):
    Q: genesis._C.Tensor
    R: genesis._C.Tensor

class _SVD(typing.NamedTuple):
    U: genesis._C.Tensor
    S: genesis._C.Tensor
    Vh: genesis._C.Tensor

class _Slogdet(typing.NamedTuple):
    sign: genesis._C.Tensor
    logabsdet: genesis._C.Tensor

def _lapack_library() -> str: ...
def _set_lapack_paths(paths: collections.abc.Sequence[str]) -> None: ...
def cholesky(
    A: genesis._C.Tensor, *, upper: bool = False, out: genesis._C.Tensor | None = None
) -> genesis._C.Tensor: ...
def cross(
    input: genesis._C.Tensor,
    other: genesis._C.Tensor,
    *,
    dim: typing.SupportsInt | typing.SupportsIndex = -1,
    out: genesis._C.Tensor | None = None,
) -> genesis._C.Tensor: ...
def det(A: genesis._C.Tensor, *, out: genesis._C.Tensor | None = None) -> genesis._C.Tensor: ...
def eigh(
    A: genesis._C.Tensor,
    UPLO: str = "L",
    *,
    out: collections.abc.Sequence[genesis._C.Tensor] | None = None,
) -> _Eigh: ...
def eigvalsh(
    A: genesis._C.Tensor, UPLO: str = "L", *, out: genesis._C.Tensor | None = None
) -> genesis._C.Tensor: ...
def inv(A: genesis._C.Tensor, *, out: genesis._C.Tensor | None = None) -> genesis._C.Tensor: ...
def matrix_norm(
    A: genesis._C.Tensor,
    ord: object = "fro",
    dim: object = ...,
    keepdim: bool = False,
    *,
    dtype: genesis._C._DTypeLike | None = None,
    out: genesis._C.Tensor | None = None,
) -> genesis._C.Tensor: ...
def norm(
    A: genesis._C.Tensor,
    ord: object = None,
    dim: object = None,
    keepdim: bool = False,
    *,
    dtype: genesis._C._DTypeLike | None = None,
    out: genesis._C.Tensor | None = None,
) -> genesis._C.Tensor: ...
def qr(
    A: genesis._C.Tensor,
    mode: str = "reduced",
    *,
    out: collections.abc.Sequence[genesis._C.Tensor] | None = None,
) -> _QR: ...
def slogdet(
    A: genesis._C.Tensor, *, out: collections.abc.Sequence[genesis._C.Tensor] | None = None
) -> _Slogdet: ...
def solve(
    A: genesis._C.Tensor,
    B: genesis._C.Tensor,
    *,
    left: bool = True,
    out: genesis._C.Tensor | None = None,
) -> genesis._C.Tensor: ...
def svd(
    A: genesis._C.Tensor,
    full_matrices: bool = True,
    *,
    out: collections.abc.Sequence[genesis._C.Tensor] | None = None,
) -> _SVD: ...
def svdvals(A: genesis._C.Tensor, *, out: genesis._C.Tensor | None = None) -> genesis._C.Tensor: ...
def vector_norm(
    x: genesis._C.Tensor,
    ord: object = 2,
    dim: object = None,
    keepdim: bool = False,
    *,
    dtype: genesis._C._DTypeLike | None = None,
    out: genesis._C.Tensor | None = None,
) -> genesis._C.Tensor: ...
