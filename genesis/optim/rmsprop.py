"""RMSprop: steps scaled by a running mean of squared gradients (centered: their variance)."""

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

__all__ = ["RMSprop"]


class RMSprop(_GroupStepOptimizer):
    """RMSprop, as ``torch.optim.RMSprop``.

    For each parameter with gradient g (negated under ``maximize``): ``g += weight_decay * p``,
    ``v = alpha * v + (1 - alpha) * g * g``; centered, ``m = lerp(m, g, 1 - alpha)`` and the
    denominator is ``sqrt(v - m * m) + eps``, else ``sqrt(v) + eps``; with momentum,
    ``buf = momentum * buf + g / denominator`` and ``p -= lr * buf``, else
    ``p -= lr * g / denominator``. Each group's step is one fused call (one kernel launch on
    CUDA; Note [Optimizer objects] in genesis/optim/optimizer.py). A parameter's state:
    ``step``, ``square_avg``, ``momentum_buffer`` (momentum > 0) and ``grad_avg`` (centered).

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): learning rate. Default: 1e-2.
        alpha (float): smoothing constant of the running mean. Default: 0.99.
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): L2 penalty. Default: 0.
        momentum (float): momentum factor. Default: 0.
        centered (bool): divide by the gradient's estimated variance. Default: False.
        capturable (bool): keep the step counts on the parameters' GPU and read a tensor
            ``lr`` there, so that the step can be captured in a CUDA graph (its parameters
            must be CUDA tensors). Default: False.
        foreach (bool, optional): accepted for PyTorch's code. Default: None.
        maximize (bool): maximize the objective instead. Default: False.
        differentiable (bool): not supported (must be False). Default: False.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter (a genesis option). Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.RMSprop([p], lr=0.01)
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
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        master_weights: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        _check_implementation_flags("RMSprop", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        if master_weights:  # a genesis option: absent from the groups unless on
            defaults["master_weights"] = True
        super().__init__(params, defaults)

    def _state_shapes_checked(self) -> tuple[str, ...]:
        return ("square_avg", "momentum_buffer", "grad_avg")

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused RMSprop call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        momentum, centered = group["momentum"], group["centered"]
        _check_capturable("RMSprop", group, params)
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        with no_grad():
            for p, state in zip(targets, states):
                if "step" not in state:
                    state["step"] = _new_step(p, group)
                    state["square_avg"] = _C.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _C.zeros_like(p)
                    if centered:
                        state["grad_avg"] = _C.zeros_like(p)
        _C._optim._rmsprop_step(
            targets,
            grads,
            [s["square_avg"] for s in states],
            [s["grad_avg"] for s in states] if centered else [],
            [s["momentum_buffer"] for s in states] if momentum > 0 else [],
            [s["step"] for s in states],
            **_lr_arguments(group, params, group["capturable"]),
            alpha=group["alpha"],
            eps=group["eps"],
            weight_decay=group["weight_decay"],
            momentum=momentum,
            centered=centered,
            maximize=group["maximize"],
            narrow=narrow,
        )
