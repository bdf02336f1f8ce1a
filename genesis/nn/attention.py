"""genesis.nn.attention: which scaled_dot_product_attention paths may run, with
``torch.nn.attention``'s names.

genesis has three paths (Note [When attention is fused] in functional/_attention_fused.py):
cuDNN's fused attention, its own fused CUDA kernels and the composed (math) path.
``SDPBackend.CUDNN_ATTENTION`` names cuDNN's; ``FLASH_ATTENTION`` and ``EFFICIENT_ATTENTION``
genesis's kernels (standing for PyTorch's other two fused backends); ``MATH`` the composed path.
``sdpa_kernel`` sets ``genesis.backends.cuda.enable_cudnn_sdp`` / ``enable_flash_sdp`` /
``enable_math_sdp`` for the duration of a block.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from ..backends import cuda as _backends_cuda

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """The scaled_dot_product_attention backends, with PyTorch's names and values.

    Args:
        value (int): the backend's number, as in PyTorch (``MATH`` is 0).

    Example::

        >>> from genesis.nn.attention import SDPBackend
        >>> SDPBackend.FLASH_ATTENTION.value
        1
    """

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# genesis's own fused kernels stand for PyTorch's flash and memory-efficient backends
_GENESIS_KERNELS = (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION)


@contextmanager
def sdpa_kernel(
    backends: SDPBackend | Iterable[SDPBackend], set_priority: bool = False
) -> Iterator[None]:
    """Lets ``scaled_dot_product_attention`` use only the given backends inside the block;
    the previous settings come back at its end, also after an exception.

    ``FLASH_ATTENTION`` and ``EFFICIENT_ATTENTION`` allow genesis's fused CUDA kernels,
    ``CUDNN_ATTENTION`` cuDNN's fused attention, ``MATH`` the composed path; an input that no
    allowed path takes raises ``RuntimeError``. genesis tries cuDNN, then its own kernels, then
    the composed path, so ``set_priority`` (accepted for PyTorch's signature) changes nothing.

    Args:
        backends (SDPBackend or iterable of SDPBackend): the backends allowed.
        set_priority (bool): PyTorch's priority order flag; no effect. Default: False.

    Returns:
        contextlib.AbstractContextManager: the block's context.

    Example::

        >>> from genesis.nn.attention import SDPBackend, sdpa_kernel
        >>> with sdpa_kernel(SDPBackend.MATH):
        ...     genesis.backends.cuda.flash_sdp_enabled()
        False
        >>> genesis.backends.cuda.flash_sdp_enabled()
        True
    """
    chosen = [backends] if isinstance(backends, SDPBackend) else list(backends)
    for b in chosen:
        if not isinstance(b, SDPBackend):
            raise TypeError(
                f"[sdpa_kernel] backends must be SDPBackend values, got {type(b).__name__}"
            )
    if not isinstance(set_priority, bool):
        raise TypeError(f"[sdpa_kernel] set_priority must be a bool, got {type(set_priority)}")
    before = (
        _backends_cuda.flash_sdp_enabled(),
        _backends_cuda.cudnn_sdp_enabled(),
        _backends_cuda.math_sdp_enabled(),
    )
    _backends_cuda.enable_flash_sdp(any(b in _GENESIS_KERNELS for b in chosen))
    _backends_cuda.enable_cudnn_sdp(SDPBackend.CUDNN_ATTENTION in chosen)
    _backends_cuda.enable_math_sdp(SDPBackend.MATH in chosen)
    try:
        yield
    finally:
        _backends_cuda.enable_flash_sdp(before[0])
        _backends_cuda.enable_cudnn_sdp(before[1])
        _backends_cuda.enable_math_sdp(before[2])
