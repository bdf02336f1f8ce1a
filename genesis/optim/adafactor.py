"""Adafactor: steps scaled by a factored estimate of the gradients' second moment."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import _C
from ..autograd import no_grad
from .optimizer import _GroupStepOptimizer, _scalar

__all__ = ["Adafactor"]


class Adafactor(_GroupStepOptimizer):
    """Adafactor, as ``torch.optim.Adafactor``: Adam-like steps without a first moment, whose
    second moment is kept factored for parameters of two or more dims.

    For each parameter with gradient g (negated under ``maximize``) at step t, with
    ``1 - beta2_t = t ** beta2_decay``, ``rho = min(lr, 1 / sqrt(t))`` and
    ``alpha = max(eps2, RMS(p)) * rho``: ``p *= 1 - lr * weight_decay``; for two or more
    dims ``row_var`` and ``col_var`` move toward the mean of ``g * g`` over the last dim and
    over the one before it (``lerp`` by ``1 - beta2_t``) and the second moment is estimated as
    ``V = row_var * col_var / max(mean(row_var), eps1)`` (the mean over dim -2); otherwise
    ``variance`` moves toward ``g * g`` and ``V = variance``. Then
    ``U = g / max(sqrt(V), eps1)`` and ``p -= alpha * U / max(1, RMS(U) / d)``. Each group's
    step is one call into C++, composed of genesis's ops (Note [Adafactor steps] in
    csrc/ops/adafactor_step.cpp): the row and column means are reductions, which the one-kernel
    steps of the other optimizers cannot do. A parameter's state: ``step`` (a 0-d float32 CPU
    tensor) and ``row_var`` (the parameter's shape with the last dim 1) and ``col_var`` (dim
    -2 of 1), or, for 0 or 1 dims, ``variance``. Unlike PyTorch, which divides by zero there,
    a parameter without elements is left as it is (its step is counted).

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): the largest relative step size rho, and the weight decay's
            factor. Default: 1e-2.
        beta2_decay (float): the decay rate of beta2: ``1 - beta2_t = t ** beta2_decay``.
            Default: -0.8.
        eps (tuple of two floats): eps1, the floor of the second-moment estimate's square
            root (None: the machine epsilon of the dtype of the group's first parameter with a
            gradient, as PyTorch), and eps2, the floor of the parameter's RMS in the step
            size. Default: (None, 1e-3).
        d (float): the clipping threshold of the update's RMS. Default: 1.0.
        weight_decay (float): decoupled weight decay coefficient. Default: 0.
        foreach (bool, optional): accepted for PyTorch's code; genesis has one implementation.
            Default: None.
        maximize (bool): maximize the objective instead. Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.Adafactor([p])
        >>> p.grad = genesis.tensor([1.0, -1.0])
        >>> opt.step()
        >>> p
        Parameter containing:
        tensor([0.9842, 2.0158], requires_grad=True)
        >>> sorted(opt.state[p])
        ['step', 'variance']
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, _C.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _scalar(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)

    def _state_shapes_checked(self) -> tuple[str, ...]:
        return ("variance",)  # row_var and col_var are checked by the step, against theirs

    def _step_group(self, group: dict[str, Any]) -> None:
        """One Adafactor call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        states = [self.state[p] for p in params]
        for grad, state in zip(grads, states):
            if len(state) == 0:
                _init_state(grad, state)
        eps1, eps2 = group["eps"]
        _C._optim._adafactor_step(
            params,
            grads,
            [s.get("row_var") for s in states],
            [s.get("col_var") for s in states],
            [s.get("variance") for s in states],
            [s["step"] for s in states],
            lr=_scalar(group["lr"]),
            beta2_decay=group["beta2_decay"],
            eps1=eps1,
            eps2=eps2,
            d=group["d"],
            weight_decay=group["weight_decay"],
            maximize=group["maximize"],
        )


def _init_state(grad: _C.Tensor | None, state: dict[str, Any]) -> None:
    """A parameter's Adafactor state at its first step, shaped from its gradient."""
    assert grad is not None  # only parameters with a gradient are stepped
    with no_grad():
        state["step"] = _C.tensor(0.0, dtype=_C.float32)
        if grad.dim() > 1:
            state["row_var"] = grad.new_zeros((*grad.shape[:-1], 1))
            state["col_var"] = grad.new_zeros((*grad.shape[:-2], 1, grad.shape[-1]))
        else:
            state["variance"] = _C.zeros_like(grad)
