"""Adagrad: steps scaled by the running sum of squared gradients."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import _C
from ..autograd import no_grad
from .optimizer import (
    _HALF_DTYPES,
    _check_implementation_flags,
    _check_lr,
    _GroupStepOptimizer,
    _scalar,
)

__all__ = ["Adagrad"]


class Adagrad(_GroupStepOptimizer):
    """Adagrad, as ``torch.optim.Adagrad``.

    For each parameter with gradient g (negated under ``maximize``) at step t:
    ``g += weight_decay * p``, ``sum += g * g``,
    ``p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(sum) + eps)``. As in PyTorch, every
    parameter's state (``step`` and ``sum``, filled with ``initial_accumulator_value``) is
    made with the optimizer. Each group's step is one fused call (one kernel launch on CUDA;
    Note [Optimizer objects] in genesis/optim/optimizer.py).

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): learning rate. Default: 1e-2.
        lr_decay (float): learning rate decay. Default: 0.
        weight_decay (float): L2 penalty. Default: 0.
        initial_accumulator_value (float): the sums' starting value. Default: 0.
        eps (float): added to the denominator. Default: 1e-10.
        foreach (bool, optional): accepted for PyTorch's code. Default: None.
        maximize (bool): maximize the objective instead. Default: False.
        differentiable (bool): not supported (must be False). Default: False.
        fused (bool, optional): accepted for PyTorch's code. Default: None.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter (a genesis option). Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.Adagrad([p], lr=0.1)
        >>> p.grad = genesis.tensor([1.0, -1.0])
        >>> opt.step()
        >>> p
        Parameter containing:
        tensor([0.9000, 2.1000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        master_weights: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_implementation_flags("Adagrad", foreach, fused, differentiable)
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        if master_weights:  # a genesis option: absent from the groups unless on
            defaults["master_weights"] = True
        super().__init__(params, defaults)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    state = self.state[p]
                    state["step"] = _C.tensor(0.0, dtype=_C.float32)
                    # float32 under master weights (Note [Master weights]).
                    half = p.dtype in _HALF_DTYPES
                    dtype = _C.float32 if half and group.get("master_weights") else p.dtype
                    state["sum"] = _C.full_like(p, group["initial_accumulator_value"], dtype=dtype)

    def _state_shapes_checked(self) -> tuple[str, ...]:
        return ("sum",)

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused Adagrad call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        _C._optim._adagrad_step(
            targets,
            grads,
            [s["sum"] for s in states],
            [s["step"] for s in states],
            lr=_scalar(group["lr"]),
            lr_decay=group["lr_decay"],
            eps=group["eps"],
            weight_decay=group["weight_decay"],
            maximize=group["maximize"],
            narrow=narrow,
        )
