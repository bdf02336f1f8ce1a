"""Adadelta: steps of the running RMS of past steps over the running RMS of the gradients."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import _C
from ..autograd import no_grad
from .optimizer import (
    _check_capturable,
    _check_implementation_flags,
    _check_lr,
    _GroupStepOptimizer,
    _lr_arguments,
    _new_step,
)

__all__ = ["Adadelta"]


class Adadelta(_GroupStepOptimizer):
    """Adadelta, as ``torch.optim.Adadelta``.

    For each parameter with gradient g (negated under ``maximize``): ``g += weight_decay * p``,
    ``v = rho * v + (1 - rho) * g * g``, ``delta = sqrt(u + eps) / sqrt(v + eps) * g``,
    ``u = rho * u + (1 - rho) * delta * delta``, ``p -= lr * delta``. Each group's step is one
    fused call (one kernel launch on CUDA; Note [Optimizer objects] in
    genesis/optim/optimizer.py). A parameter's state: ``step``, ``square_avg`` (v) and
    ``acc_delta`` (u).

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): scale of the steps. Default: 1.0.
        rho (float): decay rate of the running averages. Default: 0.9.
        eps (float): added inside the square roots. Default: 1e-6.
        weight_decay (float): L2 penalty. Default: 0.
        foreach (bool, optional): accepted for PyTorch's code. Default: None.
        capturable (bool): keep the step counts on the parameters' GPU and read a tensor
            ``lr`` there, so that the step can be captured in a CUDA graph (its parameters
            must be CUDA tensors). Default: False.
        maximize (bool): maximize the objective instead. Default: False.
        differentiable (bool): not supported (must be False). Default: False.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter (a genesis option). Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.Adadelta([p], lr=1.0)
        >>> p.grad = genesis.tensor([1.0, -1.0])
        >>> opt.step()
        >>> p
        Parameter containing:
        tensor([0.9968, 2.0032], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
        master_weights: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_implementation_flags("Adadelta", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        if master_weights:  # a genesis option: absent from the groups unless on
            defaults["master_weights"] = True
        super().__init__(params, defaults)

    def _state_shapes_checked(self) -> tuple[str, ...]:
        return ("square_avg", "acc_delta")

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused Adadelta call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        _check_capturable("Adadelta", group, params)
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        with no_grad():
            for p, state in zip(targets, states):
                if "step" not in state:
                    state["step"] = _new_step(p, group)
                    state["square_avg"] = _C.zeros_like(p)
                    state["acc_delta"] = _C.zeros_like(p)
        _C._optim._adadelta_step(
            targets,
            grads,
            [s["square_avg"] for s in states],
            [s["acc_delta"] for s in states],
            [s["step"] for s in states],
            **_lr_arguments(group, params, group["capturable"]),
            rho=group["rho"],
            eps=group["eps"],
            weight_decay=group["weight_decay"],
            maximize=group["maximize"],
            narrow=narrow,
        )
