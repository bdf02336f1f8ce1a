"""Rprop: each element's own step size, grown or shrunk by the sign of its gradient."""

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
    _new_step,
    _scalar,
)

__all__ = ["Rprop"]


class Rprop(_GroupStepOptimizer):
    """Rprop (resilient backpropagation), as ``torch.optim.Rprop``.

    Each element keeps its own step size (starting at ``lr``): while its gradient g (negated
    under ``maximize``) keeps its sign the size grows by ``etaplus``, when the sign flips it
    shrinks by ``etaminus`` and that gradient is forgotten (stored as 0); the size stays within
    ``step_sizes``. The parameter then moves by its step size against the gradient's sign:
    ``p -= sign(g) * step_size``. A parameter's state: ``step``, ``prev`` (the last gradient)
    and ``step_size``. Each group's step is one fused call (one kernel launch on CUDA; Note
    [Optimizer objects] in genesis/optim/optimizer.py).

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): the initial step size. Default: 1e-2.
        etas (tuple of two floats): ``(etaminus, etaplus)``, the factors a step size shrinks
            and grows by, ``0 < etaminus < 1 < etaplus``. Default: (0.5, 1.2).
        step_sizes (tuple of two floats): the least and the largest step size.
            Default: (1e-6, 50).
        capturable (bool): keep the step counts on the parameters' GPU, so that the step
            can be captured in a CUDA graph (its parameters must be CUDA tensors).
            Default: False.
        foreach (bool, optional): accepted for PyTorch's code. Default: None.
        maximize (bool): maximize the objective instead. Default: False.
        differentiable (bool): not supported (must be False). Default: False.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter (a genesis option). Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.Rprop([p], lr=0.1)
        >>> p.grad = genesis.tensor([0.5, -3.0])
        >>> opt.step()
        >>> p
        Parameter containing:
        tensor([0.9000, 2.1000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        master_weights: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _check_implementation_flags("Rprop", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        if master_weights:  # a genesis option: absent from the groups unless on
            defaults["master_weights"] = True
        super().__init__(params, defaults)

    def _state_shapes_checked(self) -> tuple[str, ...]:
        return ("prev", "step_size")

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused Rprop call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        _check_capturable("Rprop", group, params)
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        with no_grad():
            for p, state in zip(targets, states):
                if "step" not in state:  # PyTorch's keys, in its order
                    state["step"] = _new_step(p, group)
                    state["prev"] = _C.zeros_like(p)
                    state["step_size"] = _C.full_like(p, _scalar(group["lr"]))
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        _C._optim._rprop_step(
            targets,
            grads,
            [s["prev"] for s in states],
            [s["step_size"] for s in states],
            [s["step"] for s in states],
            etaminus=etaminus,
            etaplus=etaplus,
            step_size_min=step_size_min,
            step_size_max=step_size_max,
            maximize=group["maximize"],
            narrow=narrow,
        )
