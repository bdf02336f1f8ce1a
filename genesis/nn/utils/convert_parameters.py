"""parameters_to_vector and vector_to_parameters."""

from __future__ import annotations

from typing import Any

from ..._C import Tensor, cat
from ...autograd import no_grad

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Any) -> Tensor:
    """All parameters flattened and concatenated into one vector (on the first one's device).

    Example::

        >>> layer = genesis.nn.Linear(3, 2)
        >>> genesis.nn.utils.parameters_to_vector(layer.parameters()).shape
        genesis.Size([8])
    """
    params = list(parameters)
    if not params:
        raise RuntimeError("[parameters_to_vector] expected at least one parameter")
    device = params[0].device
    for p in params:
        if p.device != device:
            raise TypeError(
                "[parameters_to_vector] found two parameters on different devices, "
                f"{device} and {p.device}"
            )
    return cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec: Tensor, parameters: Any) -> None:
    """Copies consecutive slices of ``vec`` into the parameters (each reshaped to its shape)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected genesis.Tensor, but got: {type(vec).__name__}")
    params = list(parameters)
    total = sum(p.numel() for p in params)
    if vec.dim() != 1 or vec.numel() != total:
        raise RuntimeError(
            f"[vector_to_parameters] vec has shape {tuple(vec.shape)}; the parameters need a "
            f"1-D vector of {total} values"
        )
    offset = 0
    with no_grad():
        for p in params:
            n = p.numel()
            p.copy_(vec[offset : offset + n].view_as(p))
            offset += n
