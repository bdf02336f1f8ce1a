"""Muon: momentum orthogonalized by Newton-Schulz iterations, for 2-D parameters."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import _C
from ..autograd import no_grad
from .optimizer import _GroupStepOptimizer, _scalar

__all__ = ["Muon"]

# Keller Jordan's constants, as torch.optim.Muon has them.
EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


class Muon(_GroupStepOptimizer):
    """Muon, as ``torch.optim.Muon``: SGD momentum whose update is made nearly orthogonal by
    Newton-Schulz iterations, for the 2-D parameters of hidden layers (biases, embeddings and
    other parameters go to another optimizer such as AdamW).

    For each parameter with gradient g: ``buf = lerp(buf, g, 1 - momentum)``; the update is
    ``U = lerp(g, buf, momentum)`` under ``nesterov``, else ``buf``; ``O = NS(U)``: in
    bfloat16, U (transposed when it has more rows than columns) divided by
    ``max(norm(U), eps)``, then ``ns_steps`` times ``A = X @ X.T``, ``B = b * A + c * A @ A``,
    ``X = a * X + B @ X``; then ``p *= 1 - lr * weight_decay`` and ``p -= lr * ratio * O``,
    with ``ratio = sqrt(max(1, rows / cols))`` (``adjust_lr_fn`` None or "original") or
    ``0.2 * sqrt(max(rows, cols))`` ("match_rms_adamw"). Each group's step is one call into
    C++, composed of genesis's ops (Note [Muon steps] in csrc/ops/muon_step.cpp): matrix
    products, which the one-kernel steps of the other optimizers cannot do. The matrices of the
    iteration are bfloat16 as PyTorch's, with ``a * X + B @ X`` taken as ``(a * I + B) @ X``
    (summed in float32, then one product): O is as close to the exact (float64) iteration as
    PyTorch's, and within a few percent of PyTorch's own. A parameter's state:
    ``momentum_buffer``. As in PyTorch, without ``nesterov`` a bfloat16 buffer is divided by its
    norm at each step (PyTorch orthogonalizes the buffer itself, not a copy). Unlike PyTorch,
    which divides by zero for an (n, 0) parameter, a parameter without elements is left as it
    is, and a bad option or tensor raises before anything moves.

    Args:
        params (iterable): 2-D parameters, ``(name, parameter)`` pairs, or parameter groups.
        lr (float or Tensor): learning rate. Default: 1e-3.
        weight_decay (float): decoupled weight decay coefficient. Default: 0.1.
        momentum (float): momentum factor. Default: 0.95.
        nesterov (bool): Nesterov momentum. Default: True.
        ns_coefficients (tuple of three floats): the coefficients (a, b, c) of the
            Newton-Schulz polynomial. Default: (3.4445, -4.7750, 2.0315).
        eps (float): the floor of the norm U is divided by. Default: 1e-7.
        ns_steps (int): Newton-Schulz iterations, fewer than 100. Default: 5.
        adjust_lr_fn (str, optional): "original" or "match_rms_adamw" (None: "original").
            Default: None.
        master_weights (bool): for float16 and bfloat16 parameters, keep a float32 copy
            (state ``master_param``) and a float32 buffer, step those and round the result
            into the parameter. Default: False.

    Example::

        >>> w = genesis.nn.Parameter(genesis.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
        >>> opt = genesis.optim.Muon([w], lr=0.1)
        >>> w.grad = genesis.tensor([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
        >>> opt.step()
        >>> w
        Parameter containing:
        tensor([[0.8532, 0.0000],
                [0.0000, 0.9058],
                [0.9900, 0.9900]], requires_grad=True)
        >>> list(opt.state[w])
        ['momentum_buffer']
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: Any = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps: float = EPS,
        ns_steps: int = DEFAULT_NS_STEPS,
        adjust_lr_fn: str | None = None,
        *,
        master_weights: bool = False,
    ) -> None:
        if isinstance(lr, _C.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _scalar(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        if master_weights:
            defaults["master_weights"] = True
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}"
                    )

    def _state_shapes_checked(self) -> tuple[str, ...]:
        return ("momentum_buffer",)

    def _step_group(self, group: dict[str, Any]) -> None:
        """One Muon call over the group's parameters that have a gradient."""
        params, grads = self._params_and_grads(group)
        if not params:
            return
        states = [self.state[p] for p in params]
        targets, narrow = self._master_weights(group, params, states)
        with no_grad():
            for p, state in zip(targets, states):
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = _C.zeros_like(p)
        _C._optim._muon_step(
            targets,
            grads,
            [s["momentum_buffer"] for s in states],
            lr=_scalar(group["lr"]),
            weight_decay=group["weight_decay"],
            momentum=group["momentum"],
            nesterov=group["nesterov"],
            ns_coefficients=group["ns_coefficients"],
            eps=group["eps"],
            ns_steps=group["ns_steps"],
            adjust_lr_fn=group["adjust_lr_fn"],
            narrow=narrow,
        )
