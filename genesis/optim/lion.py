"""Lion: the sign of an interpolated momentum as the step (beyond PyTorch's optimizers)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import _C
from ..autograd import no_grad
from .optimizer import _check_lr, _GroupStepOptimizer, _scalar

__all__ = ["Lion"]


class Lion(_GroupStepOptimizer):
    """Lion (Chen et al., 2023, "Symbolic Discovery of Optimization Algorithms"), which PyTorch
    users take from third-party packages; genesis has it with the fused step of the others.

    For each parameter with gradient g (negated under ``maximize``):
    ``p *= 1 - lr * weight_decay``, ``p -= lr * sign(beta1 * m + (1 - beta1) * g)``, then
    ``m = beta2 * m + (1 - beta2) * g``. Every element moves by exactly ``lr`` (or not at all),
    so Lion wants a learning rate 3-10x smaller than AdamW's and a weight decay as much larger.
    A parameter's state: ``exp_avg``. Each group's step is one fused call (one kernel launch on
    CUDA; Note [Optimizer objects] in genesis/optim/optimizer.py).

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): learning rate. Default: 1e-4.
        betas (tuple of two floats): the interpolation rate of the step and the momentum's
            decay rate. Default: (0.9, 0.99).
        weight_decay (float): decoupled weight decay. Default: 0.
        maximize (bool): maximize the objective instead. Default: False.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter. Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.Lion([p], lr=0.1)
        >>> p.grad = genesis.tensor([0.5, -3.0])
        >>> opt.step()
        >>> p
        Parameter containing:
        tensor([0.9000, 2.1000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 1e-4,
        betas: tuple[float, float] = (0.9, 0.99),
        weight_decay: float = 0.0,
        *,
        maximize: bool = False,
        master_weights: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": betas, "weight_decay": weight_decay, "maximize": maximize}
        if master_weights:
            defaults["master_weights"] = True
        super().__init__(params, defaults)

    def _state_shapes_checked(self) -> tuple[str, ...]:
        return ("exp_avg",)

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused Lion call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        with no_grad():
            for p, state in zip(targets, states):
                if "exp_avg" not in state:
                    state["exp_avg"] = _C.zeros_like(p)
        beta1, beta2 = group["betas"]
        _C._optim._lion_step(
            targets,
            grads,
            [s["exp_avg"] for s in states],
            lr=_scalar(group["lr"]),
            beta1=beta1,
            beta2=beta2,
            weight_decay=_scalar(group["weight_decay"]),
            maximize=group["maximize"],
            narrow=narrow,
        )
