"""interpolate (nearest, nearest-exact, linear, bilinear, trilinear, bicubic, area) and the
upsample aliases.

Note [Separable resizing]: every mode but area resizes one spatial dim at a time. For a dim, a
few small vectors say, per output position, which input positions it reads and with what
weights (computed with PyTorch's source-index rules, in the input's float type or float32 for
16-bit input); the dim is then ``index_select`` of those positions, weighted and summed. The
vectors have one entry per output position of one dim; the data moves through compiled ops with
gradients. Area is adaptive average pooling.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..._C import Tensor, arange, float32, float64
from ...amp._policies import autocast_policy
from ._pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["interpolate", "upsample", "upsample_bilinear", "upsample_nearest"]

_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
_ADAPTIVE_AVG = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)
_DIMS_OF_MODE = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _source(
    out: int,
    size: int,
    scale: float | None,
    align_corners: bool,
    dtype: Any,
    device: Any,
    clamp_negative: bool,
) -> Tensor:
    """The fractional source position of each output position (PyTorch's rule)."""
    dst = arange(out, dtype=dtype, device=device)
    if align_corners:
        step = (size - 1) / (out - 1) if out > 1 else 0.0
        return dst * step
    step = (1.0 / scale) if scale is not None and scale > 0 else size / out
    src = (dst + 0.5) * step - 0.5
    return src.clamp(min=0.0) if clamp_negative else src


def _resize_dim(
    x: Tensor, dim: int, out: int, scale: float | None, mode: str, align_corners: bool
) -> Tensor:
    size = x.shape[dim]
    work = float64 if x.dtype == float64 else float32
    dev = x.device
    if mode in ("nearest", "nearest-exact"):
        step = (1.0 / scale) if scale is not None and scale > 0 else size / out
        dst = arange(out, dtype=work, device=dev)
        if mode == "nearest-exact":
            dst = dst + 0.5
        index = (dst * step).floor().to(dtype=arange(1).dtype).clamp(max=size - 1)
        return x.index_select(dim, index)
    shape = [1] * x.dim()
    shape[dim] = out
    if mode == "linear":
        src = _source(out, size, scale, align_corners, work, dev, clamp_negative=True)
        low = src.floor()
        frac = (src - low).to(x.dtype).view(shape)
        i0 = low.to(dtype=arange(1).dtype).clamp(max=size - 1)
        i1 = (i0 + 1).clamp(max=size - 1)
        v0, v1 = x.index_select(dim, i0), x.index_select(dim, i1)
        return v0 + (v1 - v0) * frac
    # bicubic: four taps with the cubic convolution kernel (A = -0.75), clamped at the edges
    src = _source(out, size, scale, align_corners, work, dev, clamp_negative=False)
    low = src.floor()
    t = src - low
    base = low.to(dtype=arange(1).dtype)
    a = -0.75

    def near(u: Tensor) -> Tensor:  # |u| <= 1
        return ((a + 2) * u - (a + 3)) * u * u + 1

    def far(u: Tensor) -> Tensor:  # 1 < |u| < 2
        return ((a * u - 5 * a) * u + 8 * a) * u - 4 * a

    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    result = None
    for offset, w in zip((-1, 0, 1, 2), weights):
        idx = (base + offset).clamp(0, size - 1)
        term = x.index_select(dim, idx) * w.to(x.dtype).view(shape)
        result = term if result is None else result + term
    assert result is not None  # four taps
    return result


def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resizes the spatial dims of ``input`` (N, C, *spatial) to ``size`` or by ``scale_factor``:
    PyTorch's ``torch.nn.functional.interpolate``.

    Computed one dim at a time (Note [Separable resizing]) with PyTorch's source-index rules, so
    values match PyTorch's; gradients flow to ``input``.

    Args:
        input (Tensor): (N, C, L), (N, C, H, W) or (N, C, D, H, W).
        size (int or tuple, optional): the output's spatial size. Default: None.
        scale_factor (float or tuple, optional): the multiplier of the spatial size (give
            ``size`` or this). Default: None.
        mode (str, optional): ``"nearest"``, ``"nearest-exact"``, ``"linear"`` (3-D input),
            ``"bilinear"``/``"bicubic"`` (4-D), ``"trilinear"`` (5-D) or ``"area"``.
            Default: ``"nearest"``.
        align_corners (bool, optional): for the linear and cubic modes, whether the corner
            pixels' centres line up. Default: None (False).
        recompute_scale_factor (bool, optional): whether to derive the scale from the computed
            output size instead of using ``scale_factor``. Default: None.
        antialias (bool, optional): not supported (True raises). Default: False.

    Returns:
        Tensor: the resized tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.interpolate(genesis.tensor([[[1.0, 2.0]]]), scale_factor=2, mode="linear")
        tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"[interpolate] input must be a genesis.Tensor, got {type(input).__name__}")
    if mode not in _MODES:
        raise NotImplementedError(
            f"[interpolate] Input Error: mode {mode!r} is not one of {', '.join(_MODES)}"
        )
    if antialias:
        raise NotImplementedError("[interpolate] antialias=True is not supported")
    nd = input.dim() - 2
    if nd < 1 or nd > 3:
        raise ValueError(
            f"[interpolate] expects a 3-D, 4-D or 5-D input (N, C, *spatial), got {input.dim()}-D"
        )
    if mode in _DIMS_OF_MODE and _DIMS_OF_MODE[mode] != nd:
        raise NotImplementedError(
            f"[interpolate] Got {input.dim()}D input, but {mode} mode needs "
            f"{_DIMS_OF_MODE[mode] + 2}D input"
        )
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError(
            "[interpolate] align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    align = bool(align_corners)
    if (size is None) == (scale_factor is None):
        raise ValueError("[interpolate] either size or scale_factor should be defined, not both")
    spatial = tuple(input.shape[2:])
    scales: list[float | None]
    if size is not None:
        sizes = [size] * nd if isinstance(size, int) else list(size)
        if len(sizes) != nd:
            raise ValueError(
                f"[interpolate] Input and output must have the same number of spatial dimensions, "
                f"but got input with spatial dimensions of {list(spatial)} and output size of "
                f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                "size in (o1, o2, ...,oK) format."
            )
        scales = [None] * nd
    else:
        factors = (
            [scale_factor] * nd if isinstance(scale_factor, (int, float)) else list(scale_factor)
        )
        if len(factors) != nd:
            raise ValueError(
                f"[interpolate] Input and scale_factor must have the same number of spatial "
                f"dimensions, but got input with spatial dimensions of {list(spatial)} and "
                f"scale_factor of shape {scale_factor}."
            )
        sizes = [int(math.floor(n * float(f))) for n, f in zip(spatial, factors)]
        scales = [None if recompute_scale_factor else float(f) for f in factors]
    if any(o <= 0 for o in sizes):
        raise RuntimeError(f"[interpolate] the output size {sizes} must be positive")
    if mode == "area":
        # Area is adaptive average pooling under that op's autocast policy, as in PyTorch.
        return _ADAPTIVE_AVG[nd - 1](input, tuple(sizes))
    kind = "linear" if mode in ("linear", "bilinear", "trilinear") else mode
    return _upsample(input, sizes, scales, kind, align)


@autocast_policy
def _upsample(
    input: Tensor, sizes: list[int], scales: list[float | None], kind: str, align: bool
) -> Tensor:
    """The resizing modes of interpolate: one op under autocast (PyTorch's upsample_* family,
    float32 on CUDA)."""
    spatial = tuple(input.shape[2:])
    nd = len(spatial)
    out = input
    for i in range(nd):
        if sizes[i] == spatial[i] and scales[i] in (None, 1.0) and kind != "bicubic":
            continue
        out = _resize_dim(out, 2 + i, sizes[i], scales[i], kind, align)
    return out if out is not input else input.clone()


def upsample(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """Deprecated alias of :func:`interpolate` (PyTorch warns the same).

    Args:
        input (Tensor): the input.
        size (int or tuple, optional): the output's spatial size. Default: None.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.
            Default: None.
        mode (str, optional): as for interpolate. Default: ``"nearest"``.
        align_corners (bool, optional): as for interpolate. Default: None.

    Returns:
        Tensor: the resized tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.interpolate(genesis.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
    """
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: nearest-neighbour :func:`interpolate`.

    Args:
        input (Tensor): the input.
        size (int or tuple, optional): the output's spatial size. Default: None.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.
            Default: None.

    Returns:
        Tensor: the resized tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.interpolate(genesis.tensor([[[1.0, 2.0]]]), size=3)
        tensor([[[1., 1., 2.]]])
    """
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: bilinear :func:`interpolate` with ``align_corners=True``.

    Args:
        input (Tensor): a 4-D input.
        size (int or tuple, optional): the output's spatial size. Default: None.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.
            Default: None.

    Returns:
        Tensor: the resized tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.interpolate(genesis.ones(1, 1, 1, 1), size=2, mode="bilinear").flatten()
        tensor([1., 1., 1., 1.])
    """
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
