"""ASGD: SGD with a decaying step size and a running average of the parameters."""

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

__all__ = ["ASGD"]


class ASGD(_GroupStepOptimizer):
    """Averaged stochastic gradient descent, as ``torch.optim.ASGD``.

    Each parameter is stepped with its current step size ``eta`` (at first ``lr``):
    ``p *= 1 - lambd * eta``, ``p -= eta * g`` (g negated under ``maximize``, weight decay
    added to it), and its running average ``ax`` follows: ``ax += mu * (p - ax)`` (a copy of
    ``p`` while ``mu`` is 1). After step t, ``eta = lr / (1 + lambd * lr * t)^alpha`` and
    ``mu = 1 / max(1, t - t0)``: the average starts at step ``t0``. A parameter's state:
    ``step``, ``eta`` and ``mu`` (0-d float32 tensors: on the CPU, where PyTorch keeps them on
    the parameter's device and reads them back at each step, or under ``capturable`` on the
    parameter's GPU) and ``ax``. Each group's step is one
    fused call (one kernel launch on CUDA; Note [Optimizer objects] in
    genesis/optim/optimizer.py).

    Args:
        params (iterable): parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): learning rate. Default: 1e-2.
        lambd (float): the decay term. Default: 1e-4.
        alpha (float): the power of the step size's decay. Default: 0.75.
        t0 (float): the step at which averaging starts. Default: 1e6.
        weight_decay (float): weight decay (L2 penalty). Default: 0.
        foreach (bool, optional): accepted for PyTorch's code. Default: None.
        maximize (bool): maximize the objective instead. Default: False.
        differentiable (bool): not supported (must be False). Default: False.
        capturable (bool): keep the step counts, ``eta`` and ``mu`` on the parameters' GPU
            and read a tensor ``lr`` there, so that the step can be captured in a CUDA graph
            (its parameters must be CUDA tensors). Default: False.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and float32 states, step those and round the result into
            the parameter (a genesis option). Default: False.

    Example::

        >>> p = genesis.nn.Parameter(genesis.tensor([1.0, 2.0]))
        >>> opt = genesis.optim.ASGD([p], lr=0.1, lambd=0.0)
        >>> p.grad = genesis.tensor([0.5, -3.0])
        >>> opt.step()
        >>> p
        Parameter containing:
        tensor([0.9500, 2.3000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
        *,
        master_weights: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_implementation_flags("ASGD", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
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
        return ("ax",)

    def _scalar_state_keys(self) -> tuple[str, ...]:
        return ("step", "eta", "mu")

    def _step_group(self, group: dict[str, Any]) -> None:
        """One fused ASGD call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        _check_capturable("ASGD", group, params, "params, mus, etas, and state_steps")
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        with no_grad():
            for p, state in zip(targets, states):
                if "step" not in state:  # PyTorch's keys, in its order
                    state["step"] = step = _new_step(p, group)
                    lr = _scalar(group["lr"])  # the first eta
                    state["eta"] = _C.full((), lr, dtype=_C.float32, device=step.device)
                    state["mu"] = _C.ones((), dtype=_C.float32, device=step.device)
                    state["ax"] = _C.zeros_like(p)
        _C._optim._asgd_step(
            targets,
            grads,
            [s["ax"] for s in states],
            [s["step"] for s in states],
            [s["eta"] for s in states],
            [s["mu"] for s in states],
            **_lr_arguments(group, params, group["capturable"]),
            lambd=group["lambd"],
            alpha=group["alpha"],
            t0=group["t0"],
            weight_decay=group["weight_decay"],
            maximize=group["maximize"],
            narrow=narrow,
        )
