"""Reverse-mode automatic differentiation (``torch.autograd``'s names and semantics).

The graph, the engine and every backward formula are C++ (``csrc/autograd/``, described in
``docs/architecture.md``), and so are ``backward`` and ``grad`` (``csrc/python/autograd.cpp``);
this package gathers them with the grad-mode context managers of ``grad_mode.py``, custom
differentiable ops (``function.py``: ``Function``) and the gradient checks of ``gradcheck.py``
(``gradcheck``, ``gradgradcheck``, ``GradcheckError``).
"""

from genesis._C._autograd import backward, grad
from genesis.autograd.function import Function, FunctionCtx, once_differentiable
from genesis.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from genesis.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "backward",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "is_grad_enabled",
    "no_grad",
    "once_differentiable",
    "set_grad_enabled",
]
