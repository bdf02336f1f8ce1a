"""custom_fwd / custom_bwd: a custom autograd Function's forward and backward under autocast,
as torch.amp.custom_fwd / custom_bwd."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .autocast_mode import autocast, get_autocast_dtype, is_autocast_enabled

__all__ = ["custom_fwd", "custom_bwd"]


def _cast(value: Any, device_type: str, dtype: Any) -> Any:
    """Floating tensors of ``device_type`` (float64 excepted) in ``value`` cast to ``dtype``."""
    from .. import _C

    if isinstance(value, _C.Tensor):
        eligible = (
            value.is_floating_point()
            and value.device.type == device_type
            and value.dtype != _C.float64
        )
        return value.to(dtype) if eligible else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, device_type, dtype) for k, v in value.items()}
    return value


def custom_fwd(
    fwd: Callable[..., Any] | None = None,
    *,
    device_type: str,
    cast_inputs: Any = None,
) -> Any:
    """Makes a custom autograd Function's forward behave under autocast, as
    ``torch.amp.custom_fwd``.

    Inside an enabled autocast region of ``device_type``, with ``cast_inputs`` given, the
    floating inputs are cast to it and forward runs with autocast off; without it, forward runs
    under the caller's autocast state, which ``custom_bwd`` restores for backward.

    Args:
        fwd (callable, optional): the forward staticmethod. Default: None (decorator factory).
        device_type (str): 'cuda' or 'cpu'.
        cast_inputs (genesis.dtype, optional): the dtype forward takes. Default: None.

    Returns:
        the decorated forward (or a decorator, without ``fwd``).

    Example::

        >>> class Square(genesis.autograd.Function):
        ...     @staticmethod
        ...     @genesis.amp.custom_fwd(device_type="cpu", cast_inputs=genesis.float32)
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     @genesis.amp.custom_bwd(device_type="cpu")
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * g
        >>> with genesis.autocast("cpu"):
        ...     y = Square.apply(genesis.ones(2, dtype=genesis.bfloat16))
        >>> y.dtype
        genesis.float32
    """
    if not isinstance(device_type, str):
        raise ValueError(
            f"custom_fwd: expected `device_type` of type `str`, got: `{type(device_type)}`"
        )
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(
                    *_cast(args, device_type, cast_inputs),
                    **_cast(kwargs, device_type, cast_inputs),
                )
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd: Callable[..., Any] | None = None, *, device_type: str) -> Any:
    """Makes a custom autograd Function's backward run under the autocast state its
    ``custom_fwd`` forward saw, as ``torch.amp.custom_bwd``.

    Args:
        bwd (callable, optional): the backward staticmethod. Default: None (decorator factory).
        device_type (str): 'cuda' or 'cpu'.

    Returns:
        the decorated backward (or a decorator, without ``bwd``).

    Example::

        >>> class Twice(genesis.autograd.Function):
        ...     @staticmethod
        ...     @genesis.amp.custom_fwd(device_type="cpu")
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     @genesis.amp.custom_bwd(device_type="cpu")
        ...     def backward(ctx, g):
        ...         return g * 2
        >>> Twice.apply(genesis.ones(1, requires_grad=True)).sum().backward()
    """
    if not isinstance(device_type, str):
        raise ValueError(
            f"custom_bwd: expected `device_type` of type `str`, got: `{type(device_type)}`"
        )
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
