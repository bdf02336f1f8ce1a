"""Adamax: Adam with the infinity norm of the gradients in place of their second moment."""

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

__all__ = ["Adamax"]


class Adamax(_GroupStepOptimizer):
    """Adamax, as ``torch.optim.Adamax``.

    For each parameter with gradient g (negated under ``maximize``) at step t:
    ``g += weight_decay * p``, ``m = lerp(m, g, 1 - beta1)``,
    ``u = max(beta2 * u, |g| + eps)``, ``p -= lr / (1 - beta1^t) * m / u``. Each group's step
    is one fused call (one kernel launch on CUDA; Note [Optimizer objects] in
    genesis/optim/optimizer.py). A parameter's state: ``step``, ``exp_avg`` and ``exp_inf``.

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): learning rate. Default: 2e-3.
        betas (tuple of two floats): decay rates of the mean and of the infinity norm.
            Default: (0.9, 0.999).
        eps (float): added to the norm. Default: 1e-8.
        weight_decay (float): L2 penalty. Default: 0.
        foreach (bool, optional): accepted for PyTorch's code. Default: None.
        maximize (bool): maximize the objective instead. Default: False.
        differentiable (bool): not supported (must be False). Default: False.
        capturable (bool): keep the step counts on the parameters' GPU and read a tensor
            ``lr`` there, so that the step can be captured in a CUDA graph (its parameters
            must be CUDA tensors). Default: False.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter (a genesis option). Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.Adamax([p], lr=0.1)
        >>> p.grad = genesis.tensor([1.0, -1.0])
        >>> opt.step()
        >>> p
        Parameter containing:
        tensor([0.9000, 2.1000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
        master_weights: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_implementation_flags("Adamax", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        if master_weights:  # a genesis option: absent from the groups unless on
            defaults["master_weights"] = True
        super().__init__(params, defaults)

    def _state_shapes_checked(self) -> tuple[str, ...]:
        return ("exp_avg", "exp_inf")

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused Adamax call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        _check_capturable("Adamax", group, params)
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        with no_grad():
            for p, state in zip(targets, states):
                if "step" not in state:
                    state["step"] = _new_step(p, group)
                    state["exp_avg"] = _C.zeros_like(p)
                    state["exp_inf"] = _C.zeros_like(p)
        beta1, beta2 = group["betas"]
        _C._optim._adamax_step(
            targets,
            grads,
            [s["exp_avg"] for s in states],
            [s["exp_inf"] for s in states],
            [s["step"] for s in states],
            **_lr_arguments(group, params, group["capturable"]),
            beta1=beta1,
            beta2=beta2,
            eps=group["eps"],
            weight_decay=group["weight_decay"],
            maximize=group["maximize"],
            narrow=narrow,
        )
