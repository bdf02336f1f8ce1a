"""genesis.amp: mixed precision, as torch.amp.

``autocast`` regions run matrix products, convolutions and attention in float16 or bfloat16
and precision-sensitive ops in float32 (Note [Autocast policies] in genesis/amp/_policies.py);
``GradScaler`` scales the loss so that float16 gradients do not underflow, and skips the steps
whose gradients overflow. ``custom_fwd`` and ``custom_bwd`` make a custom autograd Function
behave under autocast. The user guide's Training chapter shows a loop with both.

Example::

    >>> model = genesis.nn.Linear(4, 2)
    >>> with genesis.autocast("cpu", dtype=genesis.bfloat16):
    ...     out = model(genesis.randn(3, 4))
    >>> out.dtype
    genesis.bfloat16
"""

from . import _policies  # noqa: F401  (registers the op lists with the core)
from .autocast_mode import (
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_dtype,
    is_autocast_available,
    is_autocast_cache_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from .custom_functions import custom_bwd, custom_fwd
from .grad_scaler import GradScaler

__all__ = [
    "autocast",
    "custom_bwd",
    "custom_fwd",
    "GradScaler",
    "is_autocast_available",
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "clear_autocast_cache",
    "get_autocast_dtype",
    "is_autocast_cache_enabled",
    "is_autocast_enabled",
    "set_autocast_cache_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
]
