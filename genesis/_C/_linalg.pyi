"""Type stubs for genesis._C._linalg, generated from the built module by
`python tools/generate_stubs.py`: do not edit by hand."""

import typing

import genesis._C

def cross(
    input: genesis._C.Tensor,
    other: genesis._C.Tensor,
    *,
    dim: typing.SupportsInt | typing.SupportsIndex = -1,
    out: object = None,
) -> typing.Any: ...
def matrix_norm(
    A: genesis._C.Tensor,
    ord: object = "fro",
    dim: object = ...,
    keepdim: bool = False,
    *,
    dtype: object = None,
) -> genesis._C.Tensor: ...
def vector_norm(
    x: genesis._C.Tensor,
    ord: object = 2,
    dim: object = None,
    keepdim: bool = False,
    *,
    dtype: object = None,
) -> genesis._C.Tensor: ...
