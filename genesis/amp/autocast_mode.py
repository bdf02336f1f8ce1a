"""genesis.autocast: regions in which listed ops run in a lower precision, as torch.autocast."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from .. import _C, cuda

__all__ = [
    "autocast",
    "is_autocast_available",
    "is_autocast_enabled",
    "set_autocast_enabled",
    "get_autocast_dtype",
    "set_autocast_dtype",
    "is_autocast_cache_enabled",
    "set_autocast_cache_enabled",
    "clear_autocast_cache",
    "autocast_increment_nesting",
    "autocast_decrement_nesting",
]

_DEVICE_TYPES = ("cuda", "cpu")
_F = TypeVar("_F", bound=Callable[..., Any])


def _device_type(device_type: Any, op: str) -> str:
    if not isinstance(device_type, str):
        raise ValueError(f"{op}: expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return device_type


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast works on a device type: 'cuda' and 'cpu' do.

    Args:
        device_type (str): a device type, as ``Tensor.device.type``.

    Returns:
        bool: True for 'cuda' and 'cpu'.

    Example::

        >>> genesis.amp.is_autocast_available("cpu")
        True
    """
    return device_type in _DEVICE_TYPES


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether this thread is inside an enabled autocast region of a device type.

    Args:
        device_type (str): 'cuda' or 'cpu'. Default: 'cuda'.

    Returns:
        bool: the region's ``enabled``, False outside every region.

    Example::

        >>> with genesis.autocast("cpu"):
        ...     genesis.is_autocast_enabled("cpu")
        True
    """
    return bool(_C._amp._is_enabled(_device_type(device_type, "is_autocast_enabled")))


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Turns autocast of a device type on or off for this thread, as ``autocast`` does on
    entry and exit.

    Args:
        device_type (str): 'cuda' or 'cpu'.
        enabled (bool): the new state.

    Returns:
        None

    Example::

        >>> genesis.set_autocast_enabled("cpu", True)
        >>> genesis.is_autocast_enabled("cpu")
        True
        >>> genesis.set_autocast_enabled("cpu", False)
    """
    _C._amp._set_enabled(_device_type(device_type, "set_autocast_enabled"), bool(enabled))


def get_autocast_dtype(device_type: str) -> Any:
    """The lower precision of a device type's autocast regions on this thread.

    Args:
        device_type (str): 'cuda' or 'cpu'.

    Returns:
        genesis.dtype: float16 for 'cuda' and bfloat16 for 'cpu' unless a region or
        ``set_autocast_dtype`` says otherwise.

    Example::

        >>> genesis.get_autocast_dtype("cpu")
        genesis.bfloat16
    """
    return _C._amp._get_dtype(_device_type(device_type, "get_autocast_dtype"))


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    """Sets the lower precision of a device type's autocast regions on this thread.

    Args:
        device_type (str): 'cuda' or 'cpu'.
        dtype (genesis.dtype): float16 or bfloat16.

    Returns:
        None

    Example::

        >>> genesis.set_autocast_dtype("cpu", genesis.float16)
        >>> genesis.get_autocast_dtype("cpu")
        genesis.float16
        >>> genesis.set_autocast_dtype("cpu", genesis.bfloat16)
    """
    _C._amp._set_dtype(_device_type(device_type, "set_autocast_dtype"), dtype)


def is_autocast_cache_enabled() -> bool:
    """Whether autocast regions reuse the casts of float32 weights on this thread.

    Returns:
        bool: True unless ``set_autocast_cache_enabled(False)`` or a region's
        ``cache_enabled=False`` turned it off.

    Example::

        >>> genesis.is_autocast_cache_enabled()
        True
    """
    return bool(_C._amp._is_cache_enabled())


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Turns the reuse of weight casts in autocast regions on or off for this thread.

    Args:
        enabled (bool): the new state.

    Returns:
        None

    Example::

        >>> genesis.set_autocast_cache_enabled(False)
        >>> genesis.is_autocast_cache_enabled()
        False
        >>> genesis.set_autocast_cache_enabled(True)
    """
    _C._amp._set_cache_enabled(bool(enabled))


def clear_autocast_cache() -> None:
    """Drops this thread's cached weight casts; the outermost region does it on exit.

    Returns:
        None

    Example::

        >>> genesis.clear_autocast_cache()
    """
    _C._amp._clear_cache()


def autocast_increment_nesting() -> int:
    """Counts an autocast region's entry on this thread, as ``autocast`` does.

    Returns:
        int: the depth after the entry.

    Example::

        >>> genesis.autocast_increment_nesting()
        1
        >>> genesis.autocast_decrement_nesting()
        0
    """
    return int(_C._amp._increment_nesting())


def autocast_decrement_nesting() -> int:
    """Counts an autocast region's exit on this thread, as ``autocast`` does.

    Returns:
        int: the depth left; at 0 the caller clears the cast cache.

    Example::

        >>> genesis.autocast_increment_nesting()
        1
        >>> genesis.autocast_decrement_nesting()
        0
    """
    return int(_C._amp._decrement_nesting())


class autocast:
    """A region (context manager or decorator) in which ops run in mixed precision, as
    ``torch.autocast``.

    Inside an enabled region, the ops on PyTorch's lists cast their floating inputs (float64
    excepted) on ``device_type``: matrix products, linear layers, convolutions and attention
    to ``dtype``; on CUDA exp, log, pow, softmax, sums, norms and the losses to float32; a few
    ops (addcmul, dot, cat on the CPU ...) to the widest of their inputs; other ops run in the
    dtypes they are given (Note [Autocast policies] in genesis/amp/_policies.py has the lists).
    The casts are recorded by autograd, so gradients reach float32 parameters in float32; call
    backward outside the region. Casts of float32 leaves that require grad (weights) are made
    once per outermost region. The state is per thread.

    Args:
        device_type (str): 'cuda' or 'cpu'.
        dtype (genesis.dtype, optional): the lower precision, float16 or bfloat16. Default:
            ``get_autocast_dtype(device_type)`` (float16 on CUDA, bfloat16 on the CPU).
        enabled (bool): whether the region casts. Default: True.
        cache_enabled (bool, optional): whether weight casts are reused within the region.
            Default: ``is_autocast_cache_enabled()``.

    Example::

        >>> w = genesis.nn.Parameter(genesis.randn(4, 3))
        >>> x = genesis.randn(2, 4)
        >>> with genesis.autocast("cpu"):
        ...     y = x @ w
        ...     s = y.float().sum()
        >>> y.dtype, s.dtype
        (genesis.bfloat16, genesis.float32)
    """

    def __init__(
        self,
        device_type: str,
        dtype: Any = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        self.device = _device_type(device_type, "autocast")
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = (
            is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        )
        if enabled:
            if self.device == "cuda" and not cuda.is_available():
                warnings.warn(
                    "CUDA is not available. Disabling autocast.",
                    stacklevel=2,
                )
                enabled = False
            elif self.fast_dtype not in (_C.bfloat16, _C.float16):
                name = self.device.upper()
                warnings.warn(
                    f"In {name} autocast, but the target dtype is not supported. Disabling "
                    f"autocast.\n{name} Autocast only supports dtypes of genesis.bfloat16, "
                    "genesis.float16 currently.",
                    stacklevel=2,
                )
                enabled = False
        self._enabled = bool(enabled)

    def __enter__(self) -> autocast:
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func: _F) -> _F:
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you "
                "mean to use autocast as a context manager? For example:\n"
                "    with genesis.autocast(device_type=...):\n"
                "        output = model(input)"
            )

        @functools.wraps(func)
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return decorated  # type: ignore[return-value]
