"""NAdam and RAdam: Adam with Nesterov momentum, and Adam with a rectified adaptive step."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import _C
from ..autograd import no_grad
from .adam import _check_adam_options
from .optimizer import (
    _check_capturable,
    _check_implementation_flags,
    _GroupStepOptimizer,
    _lr_arguments,
    _new_step,
)

__all__ = ["NAdam", "RAdam"]


def _init_moments(
    params: list[_C.Tensor], states: list[dict[str, Any]], nadam: bool, group: dict[str, Any]
) -> None:
    """The first step's state of the parameters that have none: PyTorch's keys and order."""
    with no_grad():
        for p, state in zip(params, states):
            if "step" not in state:
                state["step"] = _new_step(p, group)
                if nadam:  # beside the count: on the device when capturable
                    state["mu_product"] = _C.ones((), dtype=_C.float32, device=state["step"].device)
                state["exp_avg"] = _C.zeros_like(p)
                state["exp_avg_sq"] = _C.zeros_like(p)


class NAdam(_GroupStepOptimizer):
    """NAdam, as ``torch.optim.NAdam``: Adam with Nesterov momentum.

    At step t the momentum coefficient is ``mu_t = beta1 * (1 - 0.5 * 0.96^(t *
    momentum_decay))``, and with ``m`` and ``v`` Adam's moments (``v`` bias-corrected),
    ``p -= lr * (1 - mu_t) / (1 - prod mu) * g / (sqrt(v) + eps)
    + lr * mu_{t+1} / (1 - prod mu * mu_{t+1}) * m / (sqrt(v) + eps)``. Weight decay joins the
    gradient, or shrinks the parameter under ``decoupled_weight_decay``. A parameter's state:
    ``step``, ``mu_product`` (the product of the coefficients, a 0-d float32 tensor beside the
    step count, as in PyTorch), ``exp_avg`` and ``exp_avg_sq``. Each group's step is one fused
    call (Note [Optimizer objects] in genesis/optim/optimizer.py).

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): learning rate. Default: 2e-3.
        betas (tuple of two floats): decay rates of the moments. Default: (0.9, 0.999).
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): weight decay. Default: 0.
        momentum_decay (float): how fast the momentum coefficient warms up. Default: 4e-3.
        decoupled_weight_decay (bool): AdamW's weight decay. Default: False.
        foreach (bool, optional): accepted for PyTorch's code. Default: None.
        maximize (bool): maximize the objective instead. Default: False.
        capturable (bool): keep the step counts and ``mu_product`` on the parameters' GPU and
            read a tensor ``lr`` there, so that the step can be captured in a CUDA graph (its
            parameters must be CUDA tensors). Default: False.
        differentiable (bool): not supported (must be False). Default: False.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter (a genesis option). Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.NAdam([p], lr=0.1)
        >>> p.grad = genesis.tensor([1.0, -1.0])
        >>> opt.step()
        >>> p
        Parameter containing:
        tensor([0.8944, 2.1056], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        master_weights: bool = False,
    ) -> None:
        _check_adam_options(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _check_implementation_flags("NAdam", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        if master_weights:  # a genesis option: absent from the groups unless on
            defaults["master_weights"] = True
        super().__init__(params, defaults)

    def _state_shapes_checked(self) -> tuple[str, ...]:
        return ("exp_avg", "exp_avg_sq")

    def _scalar_state_keys(self) -> tuple[str, ...]:
        return ("step", "mu_product")

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused NAdam call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        _check_capturable("NAdam", group, params, "params, mu_products and state_steps")
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        _init_moments(targets, states, nadam=True, group=group)
        beta1, beta2 = group["betas"]
        _C._optim._nadam_step(
            targets,
            grads,
            [s["exp_avg"] for s in states],
            [s["exp_avg_sq"] for s in states],
            [s["mu_product"] for s in states],
            [s["step"] for s in states],
            **_lr_arguments(group, params, group["capturable"]),
            beta1=beta1,
            beta2=beta2,
            eps=group["eps"],
            weight_decay=group["weight_decay"],
            momentum_decay=group["momentum_decay"],
            decoupled=group["decoupled_weight_decay"],
            maximize=group["maximize"],
            narrow=narrow,
        )


class RAdam(_GroupStepOptimizer):
    """RAdam, as ``torch.optim.RAdam``: Adam whose adaptive step is rectified by the variance
    of its estimate.

    With Adam's moments and ``rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)``
    (``rho_inf = 2 / (1 - beta2) - 1``): while ``rho_t <= 5`` the step is momentum SGD,
    ``p -= lr * m / (1 - beta1^t)``; after that it is Adam's, scaled by the rectification
    ``sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))``. Weight decay
    joins the gradient, or shrinks the parameter under ``decoupled_weight_decay``. A parameter's
    state: ``step``, ``exp_avg`` and ``exp_avg_sq``. Each group's step is one fused call (Note
    [Optimizer objects] in genesis/optim/optimizer.py).

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): learning rate. Default: 1e-3.
        betas (tuple of two floats): decay rates of the moments. Default: (0.9, 0.999).
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): weight decay. Default: 0.
        decoupled_weight_decay (bool): AdamW's weight decay. Default: False.
        foreach (bool, optional): accepted for PyTorch's code. Default: None.
        maximize (bool): maximize the objective instead. Default: False.
        capturable (bool): keep the step counts on the parameters' GPU and read a tensor
            ``lr`` there, so that the step can be captured in a CUDA graph (its parameters
            must be CUDA tensors). Default: False.
        differentiable (bool): not supported (must be False). Default: False.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter (a genesis option). Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.RAdam([p], lr=0.1)
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
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        master_weights: bool = False,
    ) -> None:
        _check_adam_options(lr, betas, eps, weight_decay)
        _check_implementation_flags("RAdam", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        if master_weights:  # a genesis option: absent from the groups unless on
            defaults["master_weights"] = True
        super().__init__(params, defaults)

    def _state_shapes_checked(self) -> tuple[str, ...]:
        return ("exp_avg", "exp_avg_sq")

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused RAdam call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        _check_capturable("RAdam", group, params)
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        _init_moments(targets, states, nadam=False, group=group)
        beta1, beta2 = group["betas"]
        _C._optim._radam_step(
            targets,
            grads,
            [s["exp_avg"] for s in states],
            [s["exp_avg_sq"] for s in states],
            [s["step"] for s in states],
            **_lr_arguments(group, params, group["capturable"]),
            beta1=beta1,
            beta2=beta2,
            eps=group["eps"],
            weight_decay=group["weight_decay"],
            decoupled=group["decoupled_weight_decay"],
            maximize=group["maximize"],
            narrow=narrow,
        )
