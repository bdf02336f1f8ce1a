"""genesis.backends.cuda: how matrix products run on CUDA, as ``torch.backends.cuda``.

``matmul.allow_tf32`` lets float32 products use TF32 tensor cores (off by default, as in
PyTorch); ``preferred_blas_library()`` picks cuBLASLt (the default) or cuBLAS. Both are
process-wide, read by the C++ core at each product, and can be set without a GPU (they then
change nothing).

Example::

    >>> genesis.backends.cuda.matmul.allow_tf32 = True  # float32 matmul may use TF32
    >>> genesis.backends.cuda.matmul.allow_tf32
    True
    >>> genesis.backends.cuda.matmul.allow_tf32 = False
    >>> genesis.backends.cuda.preferred_blas_library()
    'cublaslt'
"""

from __future__ import annotations

from .. import _C

__all__ = [
    "MatmulSettings",
    "cudnn_sdp_enabled",
    "enable_cudnn_sdp",
    "enable_flash_sdp",
    "enable_math_sdp",
    "flash_sdp_enabled",
    "math_sdp_enabled",
    "matmul",
    "preferred_blas_library",
]

_LIBRARIES = {"cublaslt": True, "cublas": False}


class MatmulSettings:
    """The settings of CUDA matrix products; ``genesis.backends.cuda.matmul`` is the one
    instance (PyTorch's ``torch.backends.cuda.matmul``).

    Its one attribute is ``allow_tf32``; setting any other raises ``AttributeError``, so a
    misspelt setting is not silently ignored.

    Example::

        >>> genesis.backends.cuda.matmul
        MatmulSettings(allow_tf32=False)
    """

    __slots__ = ()

    @property
    def allow_tf32(self) -> bool:
        """Whether float32 matrix products on CUDA may round their inputs to TF32 (10 bits of
        mantissa) to run on tensor cores: several times faster, with a relative error near
        1e-3 instead of float32's 1e-6. Applies to ``matmul``, ``@``, ``mm``, ``bmm``, the
        ``add*`` products and ``einsum``'s contractions; float16, bfloat16 and float64 are not
        affected. Default: ``False``, as in PyTorch. Setting it takes effect at the next product.

        Example::

            >>> genesis.backends.cuda.matmul.allow_tf32 = True
            >>> genesis.backends.cuda.matmul.allow_tf32
            True
            >>> genesis.backends.cuda.matmul.allow_tf32 = False
        """
        return _C._cuda.allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"[allow_tf32] expected a bool, got {type(value).__name__}")
        _C._cuda.set_allow_tf32(value)

    def __setattr__(self, name: str, value: object) -> None:
        if name != "allow_tf32":
            raise AttributeError(
                f"[backends.cuda.matmul] unknown setting {name!r}; the one setting is allow_tf32"
            )
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"MatmulSettings(allow_tf32={self.allow_tf32})"


matmul = MatmulSettings()

# Which scaled_dot_product_attention paths may run (Note [When attention is fused] in
# genesis/nn/functional/_attention_fused.py).
_sdp_paths = {"cudnn": True, "flash": True, "math": True}


def _set_sdp(op: str, path: str, enabled: bool) -> None:
    if not isinstance(enabled, bool):
        raise TypeError(f"[{op}] expected a bool, got {type(enabled).__name__}")
    _sdp_paths[path] = enabled


def enable_flash_sdp(enabled: bool) -> None:
    """Lets ``scaled_dot_product_attention`` use genesis's fused CUDA kernels (float16 and
    bfloat16 on sm_80 and later, head dims up to 256), or, with ``False``, keeps it on the
    composed path. Default: enabled, as in PyTorch.

    Args:
        enabled (bool): whether the fused kernels may run.

    Returns:
        None

    Example::

        >>> genesis.backends.cuda.enable_flash_sdp(False)
        >>> genesis.backends.cuda.flash_sdp_enabled()
        False
        >>> genesis.backends.cuda.enable_flash_sdp(True)
    """
    _set_sdp("enable_flash_sdp", "flash", enabled)


def flash_sdp_enabled() -> bool:
    """Whether ``scaled_dot_product_attention`` may use the fused CUDA kernels.

    Returns:
        bool: the setting of ``enable_flash_sdp``.

    Example::

        >>> genesis.backends.cuda.flash_sdp_enabled()
        True
    """
    return _sdp_paths["flash"]


def enable_cudnn_sdp(enabled: bool) -> None:
    """Lets ``scaled_dot_product_attention`` use cuDNN's fused attention (float16 and bfloat16
    without a mask, head dims a multiple of 8 up to 256, in builds made with the cuDNN
    frontend and where cuDNN loads; Note [Attention through cuDNN]), tried before genesis's own
    fused kernels. Default: enabled, as in PyTorch.

    Args:
        enabled (bool): whether cuDNN's attention may run.

    Returns:
        None

    Example::

        >>> genesis.backends.cuda.enable_cudnn_sdp(False)
        >>> genesis.backends.cuda.cudnn_sdp_enabled()
        False
        >>> genesis.backends.cuda.enable_cudnn_sdp(True)
    """
    _set_sdp("enable_cudnn_sdp", "cudnn", enabled)


def cudnn_sdp_enabled() -> bool:
    """Whether ``scaled_dot_product_attention`` may use cuDNN's fused attention.

    Returns:
        bool: the setting of ``enable_cudnn_sdp``.

    Example::

        >>> genesis.backends.cuda.cudnn_sdp_enabled()
        True
    """
    return _sdp_paths["cudnn"]


def enable_math_sdp(enabled: bool) -> None:
    """Lets ``scaled_dot_product_attention`` use its composed (math) path, exact for every
    dtype and device; with ``False`` an input the fused kernels do not take raises
    ``RuntimeError``. Default: enabled.

    Args:
        enabled (bool): whether the composed path may run.

    Returns:
        None

    Example::

        >>> genesis.backends.cuda.enable_math_sdp(True)
        >>> genesis.backends.cuda.math_sdp_enabled()
        True
    """
    _set_sdp("enable_math_sdp", "math", enabled)


def math_sdp_enabled() -> bool:
    """Whether ``scaled_dot_product_attention`` may use its composed path.

    Returns:
        bool: the setting of ``enable_math_sdp``.

    Example::

        >>> genesis.backends.cuda.math_sdp_enabled()
        True
    """
    return _sdp_paths["math"]


def preferred_blas_library(backend: str | None = None) -> str:
    """Sets (or only reads, without an argument) the library CUDA matrix products go through.

    ``"cublaslt"`` (the default; ``"default"`` means it too): cuBLASLt with an algorithm chosen
    once per shape, dtype and layout and kept, falling back to cuBLAS where it has none (and for
    float64); only cuBLASLt fuses ``addmm``'s bias into the product. ``"cublas"``: cuBLAS only.
    Unlike PyTorch, which returns an enum, the name is returned as a string.

    Args:
        backend (str, optional): ``"cublaslt"``, ``"cublas"`` or ``"default"``; None leaves
            the setting as it is. Default: ``None``.

    Returns:
        str: the library in force after the call, ``"cublaslt"`` or ``"cublas"``.

    Example::

        >>> genesis.backends.cuda.preferred_blas_library("cublas")
        'cublas'
        >>> genesis.backends.cuda.preferred_blas_library("default")
        'cublaslt'
    """
    if backend is not None:
        if not isinstance(backend, str):
            raise TypeError(
                f"[preferred_blas_library] backend must be a str, got {type(backend).__name__}"
            )
        name = "cublaslt" if backend.lower() == "default" else backend.lower()
        if name not in _LIBRARIES:
            raise ValueError(
                f"[preferred_blas_library] unknown library {backend!r}; expected 'cublaslt', "
                "'cublas' or 'default'"
            )
        _C._cuda.set_prefer_cublaslt(_LIBRARIES[name])
    return "cublaslt" if _C._cuda.prefer_cublaslt() else "cublas"
