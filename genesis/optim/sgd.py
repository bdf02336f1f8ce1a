"""SGD: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import _C
from .optimizer import (
    _check_implementation_flags,
    _check_lr,
    _GroupStepOptimizer,
    _lr_arguments,
    _scalar,
)

__all__ = ["SGD"]


class SGD(_GroupStepOptimizer):
    """Stochastic gradient descent, as ``torch.optim.SGD``.

    For each parameter with gradient g (negated under ``maximize``):
    ``g += weight_decay * p``; with momentum, ``buf = momentum * buf + (1 - dampening) * g``
    (``buf = g`` at its first step) and ``g = g + momentum * buf`` under ``nesterov``, else
    ``g = buf``; then ``p -= lr * g``. Each group's step is one fused call (one kernel launch
    on CUDA; Note [Optimizer objects] in genesis/optim/optimizer.py).

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): learning rate. Default: 1e-3.
        momentum (float): momentum factor. Default: 0.
        dampening (float): dampening of the momentum. Default: 0.
        weight_decay (float): L2 penalty. Default: 0.
        nesterov (bool): Nesterov momentum. Default: False.
        maximize (bool): maximize the objective instead. Default: False.
        foreach (bool, optional): accepted for PyTorch's code; genesis has one implementation.
            Default: None.
        differentiable (bool): not supported (must be False). Default: False.
        fused (bool, optional): accepted for PyTorch's code; every step is fused.
            Default: None.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter (a genesis option). Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.SGD([p], lr=0.1, momentum=0.9)
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
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
        master_weights: bool = False,
    ) -> None:
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if _scalar(weight_decay) < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_implementation_flags("SGD", foreach, fused, differentiable)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if master_weights:  # a genesis option: absent from the groups unless on
            defaults["master_weights"] = True
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("nesterov", False), ("maximize", False), ("foreach", None)):
                group.setdefault(key, default)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused SGD call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        momentum = group["momentum"]
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        buffers = [s.get("momentum_buffer") for s in states] if momentum else []
        stepped = _C._optim._sgd_step(
            targets,
            grads,
            buffers,
            **_lr_arguments(group, params, True),
            momentum=momentum,
            dampening=group["dampening"],
            weight_decay=_scalar(group["weight_decay"]),
            nesterov=group["nesterov"],
            maximize=group["maximize"],
            narrow=narrow,
        )
        if stepped is not None:  # buffers were made (the first step): the list of all
            for p, b in zip(params, stepped):
                self.state[p]["momentum_buffer"] = b
