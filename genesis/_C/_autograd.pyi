"""Type stubs for genesis._C._autograd, generated from the built module by
`python tools/generate_stubs.py`: do not edit by hand."""

import collections.abc
import typing

class _FunctionHandle:
    @property
    def saved_tensors(self) -> tuple: ...

def _record_function(
    name: str,
    backward: object,
    inputs: list,
    outputs: list,
    saved: list,
    saved_output: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    non_differentiable: collections.abc.Sequence[bool],
) -> _FunctionHandle: ...
def backward(
    tensors: object,
    grad_tensors: object = None,
    retain_graph: object = None,
    create_graph: bool = False,
    inputs: object = None,
) -> None: ...
def grad(
    outputs: object,
    inputs: object,
    grad_outputs: object = None,
    retain_graph: object = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple: ...
