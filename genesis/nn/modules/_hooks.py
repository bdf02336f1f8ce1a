"""Hook handles and the autograd functions behind Module's full backward hooks.

Note [Full backward hooks]: a module's backward hooks see the gradients with respect to its
tensor inputs and outputs. ``Module.__call__`` passes the tensor inputs through one identity
autograd Function and the tensor outputs through another. In backward the outputs' Function runs
first: it records grad_output and runs the backward pre-hooks (which may replace it); then the
inputs' Function receives grad_input and runs the backward hooks (which may replace it). When no
input requires grad, the hooks run from the outputs' Function with grad_input all None, as in
PyTorch.
"""

from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict
from typing import Any

from ...autograd import Function

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """Removes the hook it was returned for from its dict(s): ``handle.remove()`` or ``with``."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict: OrderedDict, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)
        extras = extra_dict if isinstance(extra_dict, (list, tuple)) else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras if d is not None)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *args: object) -> None:
        self.remove()


def _flatten_tensors(values: Any) -> tuple[list[int], list]:
    """The positions and tensors among a tuple of values (a lone value counts as a tuple)."""
    from ..._C import Tensor

    items = values if isinstance(values, tuple) else (values,)
    where = [i for i, v in enumerate(items) if isinstance(v, Tensor)]
    return where, [items[i] for i in where]


class _HookState:
    """What the two identity functions of one call share."""

    def __init__(self, module: Any, n_inputs: int) -> None:
        self.module = module
        self.n_inputs = n_inputs
        self.grad_output: tuple | None = None
        self.inputs_require_grad = False


class _InputsIdentity(Function):
    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        state = ctx.state
        grads = _run_backward_hooks(state, tuple(grads))
        return (None, *grads)


class _OutputsIdentity(Function):
    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        state = ctx.state
        grads = tuple(grads)
        module = state.module
        for hook in list(module._backward_pre_hooks.values()):
            replaced = hook(module, grads)
            if replaced is not None:
                grads = _checked(replaced, grads, "backward pre-hook", "grad_output")
        state.grad_output = grads
        if not state.inputs_require_grad:
            _run_backward_hooks(state, (None,) * max(state.n_inputs, 1))
        return (None, *grads)


def _checked(replaced: Any, original: tuple, what: str, name: str) -> tuple:
    replaced = tuple(replaced) if isinstance(replaced, (tuple, list)) else (replaced,)
    if len(replaced) != len(original):
        raise RuntimeError(
            f"[Module] a {what} returned {len(replaced)} {name} values, expected {len(original)}"
        )
    return replaced


def _run_backward_hooks(state: _HookState, grad_input: tuple) -> tuple:
    module = state.module
    for hook in list(module._backward_hooks.values()):
        replaced = hook(module, grad_input, state.grad_output)
        if replaced is not None:
            grad_input = _checked(replaced, grad_input, "backward hook", "grad_input")
    return grad_input


def wrap_inputs(module: Any, args: tuple) -> tuple[tuple, _HookState]:
    """args with their tensors passed through the inputs' identity function."""
    from ...autograd import is_grad_enabled

    where, tensors = _flatten_tensors(args)
    state = _HookState(module, len(tensors))
    if not is_grad_enabled() or not any(t.requires_grad for t in tensors):
        return args, state
    state.inputs_require_grad = True
    outs = _InputsIdentity.apply(state, *tensors)
    outs = outs if isinstance(outs, tuple) else (outs,)
    new_args = list(args)
    for i, t in zip(where, outs):
        new_args[i] = t
    return tuple(new_args), state


def wrap_outputs(state: _HookState, result: Any) -> Any:
    """result with its tensors passed through the outputs' identity function."""
    from ...autograd import is_grad_enabled

    where, tensors = _flatten_tensors(result)
    if not is_grad_enabled() or not any(t.requires_grad for t in tensors):
        return result
    outs = _OutputsIdentity.apply(state, *tensors)
    outs = outs if isinstance(outs, tuple) else (outs,)
    if not isinstance(result, tuple):
        return outs[0]
    items = list(result)
    for i, t in zip(where, outs):
        items[i] = t
    return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
