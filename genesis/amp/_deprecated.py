"""The device-specific spellings PyTorch deprecated: genesis.cuda.amp.autocast / GradScaler and
genesis.cpu.amp.autocast, each with PyTorch's FutureWarning."""

from __future__ import annotations

import warnings
from typing import Any

from .autocast_mode import autocast
from .grad_scaler import GradScaler


def cuda_autocast(enabled: bool = True, dtype: Any = None, cache_enabled: bool = True) -> autocast:
    """``genesis.amp.autocast("cuda", ...)`` under its deprecated name."""
    warnings.warn(
        "`genesis.cuda.amp.autocast(args...)` is deprecated. Please use "
        "`genesis.amp.autocast('cuda', args...)` instead.",
        FutureWarning,
        stacklevel=2,
    )
    from .. import float16

    return autocast(
        "cuda",
        dtype=float16 if dtype is None else dtype,
        enabled=enabled,
        cache_enabled=cache_enabled,
    )


def cpu_autocast(enabled: bool = True, dtype: Any = None, cache_enabled: bool = True) -> autocast:
    """``genesis.amp.autocast("cpu", ...)`` under its deprecated name."""
    warnings.warn(
        "`genesis.cpu.amp.autocast(args...)` is deprecated. Please use "
        "`genesis.amp.autocast('cpu', args...)` instead.",
        FutureWarning,
        stacklevel=2,
    )
    from .. import bfloat16

    return autocast(
        "cpu",
        dtype=bfloat16 if dtype is None else dtype,
        enabled=enabled,
        cache_enabled=cache_enabled,
    )


def cuda_grad_scaler(
    init_scale: float = 2.0**16,
    growth_factor: float = 2.0,
    backoff_factor: float = 0.5,
    growth_interval: int = 2000,
    enabled: bool = True,
) -> GradScaler:
    """``genesis.amp.GradScaler("cuda", ...)`` under its deprecated name."""
    warnings.warn(
        "`genesis.cuda.amp.GradScaler(args...)` is deprecated. Please use "
        "`genesis.amp.GradScaler('cuda', args...)` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
