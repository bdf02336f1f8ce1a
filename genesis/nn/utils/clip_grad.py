"""clip_grad_norm_, clip_grad_value_ and get_total_norm / clip_grads_with_norm_.

The total norm stays on the device (no host synchronization unless ``error_if_nonfinite``), and
the gradients are scaled by ``min(1, max_norm / (total + 1e-6))`` computed there, as PyTorch does.
Each gradient's norm is one genesis reduction; a fused multi-tensor pass over all gradients
comes with the optimizers' multi-tensor kernels (the training-loop issue).
"""

from __future__ import annotations

import math
from typing import Any

from ..._C import Tensor, stack
from ...autograd import no_grad
from ...linalg import vector_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _tensors(values: Any) -> list[Tensor]:
    if isinstance(values, Tensor):
        return [values]
    return list(values)


def get_total_norm(
    tensors: Any,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The ``norm_type`` norm of all the tensors together (as if concatenated into one vector)."""
    tensors = [t for t in _tensors(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        from ... import tensor

        return tensor(0.0)
    device = tensors[0].device
    with no_grad():
        norms = [vector_norm(t, norm_type).to(device) for t in tensors]
        total = vector_norm(stack(norms), norm_type)
        if error_if_nonfinite and not bool(total.isfinite()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
            )
    return total


def clip_grads_with_norm_(
    parameters: Any, max_norm: float, total_norm: Tensor, foreach: bool | None = None
) -> None:
    """Scales the gradients of ``parameters`` by ``min(1, max_norm / (total_norm + 1e-6))``."""
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(device=g.device, dtype=g.dtype))


def clip_grad_norm_(
    parameters: Any,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scales the gradients of ``parameters`` in place so that their total ``norm_type`` norm is
    at most ``max_norm``; returns the total norm before clipping (a 0-d tensor).

    Example::

        >>> p = genesis.nn.Parameter(genesis.zeros(2))
        >>> p.grad = genesis.tensor([3.0, 4.0])
        >>> genesis.nn.utils.clip_grad_norm_([p], 1.0)
        tensor(5.)
        >>> p.grad
        tensor([0.6000, 0.8000])
    """
    params = _tensors(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    if grads:
        clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters: Any, clip_value: float, foreach: bool | None = None) -> None:
    """Clamps every gradient of ``parameters`` in place to ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    if math.isnan(clip_value):
        raise ValueError("[clip_grad_value_] clip_value is NaN")
    with no_grad():
        for p in _tensors(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
