"""Adam and AdamW: adaptive moment estimation, with L2 or decoupled weight decay and amsgrad."""

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
    _scalar,
)

__all__ = ["Adam", "AdamW"]


def _check_adam_options(lr: Any, betas: Any, eps: float, weight_decay: float) -> None:
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= _scalar(betas[0]) < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= _scalar(betas[1]) < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    if isinstance(betas[0], _C.Tensor) != isinstance(betas[1], _C.Tensor):
        raise ValueError("betas must be either both floats or both Tensors")


class Adam(_GroupStepOptimizer):
    """Adam, as ``torch.optim.Adam``.

    For each parameter with gradient g (negated under ``maximize``) at step t:
    ``g += weight_decay * p`` (or ``p *= 1 - lr * weight_decay`` under
    ``decoupled_weight_decay``), ``m = lerp(m, g, 1 - beta1)``,
    ``v = beta2 * v + (1 - beta2) * g * g`` (under ``amsgrad`` its running maximum is used),
    ``p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)``. Each group's step is
    one fused call (one kernel launch on CUDA; Note [Optimizer objects] in
    genesis/optim/optimizer.py). The state of a parameter: ``step`` (a 0-d float32 CPU tensor),
    ``exp_avg``, ``exp_avg_sq`` and, under amsgrad, ``max_exp_avg_sq``.

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): learning rate. Default: 1e-3.
        betas (tuple of two floats): decay rates of the first and second moments.
            Default: (0.9, 0.999).
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): weight decay. Default: 0.
        amsgrad (bool): use the running maximum of the second moment. Default: False.
        foreach (bool, optional): accepted for PyTorch's code; genesis has one implementation.
            Default: None.
        maximize (bool): maximize the objective instead. Default: False.
        capturable (bool): keep the step counts on the parameters' GPU and read a tensor
            ``lr`` there, so that the step can be captured in a CUDA graph (its parameters
            must be CUDA tensors). Default: False.
        differentiable (bool): not supported (must be False). Default: False.
        fused (bool, optional): accepted for PyTorch's code; every step is fused.
            Default: None.
        decoupled_weight_decay (bool): AdamW's weight decay. Default: False.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter (a genesis option). Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.Adam([p], lr=0.1)
        >>> p.grad = genesis.tensor([1.0, -1.0])
        >>> opt.step()
        >>> p
        Parameter containing:
        tensor([0.9000, 2.1000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 1e-3,
        betas: tuple[Any, Any] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
        master_weights: bool = False,
    ) -> None:
        _check_adam_options(lr, betas, eps, weight_decay)
        _check_implementation_flags(type(self).__name__, foreach, fused, differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        if master_weights:  # a genesis option: absent from the groups unless on
            defaults["master_weights"] = True
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
            group.setdefault("decoupled_weight_decay", isinstance(self, AdamW))

    def _state_shapes_checked(self) -> tuple[str, ...]:
        return ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused Adam call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        _check_capturable(type(self).__name__, group, params)
        amsgrad = group["amsgrad"]
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        for p, state in zip(targets, states):
            if "step" not in state or (amsgrad and "max_exp_avg_sq" not in state):
                _init_state(p, state, amsgrad, group)
        beta1, beta2 = group["betas"]
        _C._optim._adam_step(
            targets,
            grads,
            [s["exp_avg"] for s in states],
            [s["exp_avg_sq"] for s in states],
            [s["max_exp_avg_sq"] for s in states] if amsgrad else [],
            [s["step"] for s in states],
            **_lr_arguments(group, params, group["capturable"]),
            beta1=_scalar(beta1),
            beta2=_scalar(beta2),
            eps=group["eps"],
            weight_decay=_scalar(group["weight_decay"]),
            decoupled=group["decoupled_weight_decay"],
            amsgrad=amsgrad,
            maximize=group["maximize"],
            narrow=narrow,
        )


def _init_state(p: _C.Tensor, state: dict[str, Any], amsgrad: bool, group: dict[str, Any]) -> None:
    """A parameter's Adam state at its first step (what is missing of it)."""
    with no_grad():
        if "step" not in state:
            state["step"] = _new_step(p, group)
            state["exp_avg"] = _C.zeros_like(p)
            state["exp_avg_sq"] = _C.zeros_like(p)
        if amsgrad and "max_exp_avg_sq" not in state:
            state["max_exp_avg_sq"] = _C.zeros_like(p)


class AdamW(Adam):
    """AdamW, as ``torch.optim.AdamW``: Adam whose weight decay shrinks the parameters
    (``p *= 1 - lr * weight_decay``) instead of joining the gradient; its default weight decay
    is 0.01.

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): learning rate. Default: 1e-3.
        betas (tuple of two floats): decay rates of the first and second moments.
            Default: (0.9, 0.999).
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): decoupled weight decay. Default: 1e-2.
        amsgrad (bool): use the running maximum of the second moment. Default: False.
        maximize (bool): maximize the objective instead. Default: False.
        foreach (bool, optional): accepted for PyTorch's code. Default: None.
        capturable (bool): keep the step counts on the parameters' GPU and read a tensor
            ``lr`` there, so that the step can be captured in a CUDA graph (its parameters
            must be CUDA tensors). Default: False.
        differentiable (bool): not supported (must be False). Default: False.
        fused (bool, optional): accepted for PyTorch's code. Default: None.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter (a genesis option). Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.ones(2))
        >>> opt = genesis.optim.AdamW([p], lr=0.1, weight_decay=0.5)
        >>> p.grad = genesis.zeros(2)
        >>> opt.step()
        >>> p.tolist()
        [0.949999988079071, 0.949999988079071]
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 1e-3,
        betas: tuple[Any, Any] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        master_weights: bool = False,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
            master_weights=master_weights,
        )
