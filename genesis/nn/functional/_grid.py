"""affine_grid and grid_sample: sampling an input at arbitrary normalized coordinates.

Note [Sampling by gathers]: grid_sample turns each grid coordinate into pixel coordinates
(PyTorch's unnormalization and its border/reflection rules), then reads the neighbouring input
values with one ``gather`` per tap over the flattened spatial dims: 2^d taps for (bi/tri)linear,
one for nearest, 16 for bicubic. Each tap's weight is a product of per-dim weights that are
linear (cubic) in the coordinate, so the gradient reaches both the input (through the gathers)
and the grid (through the weights); taps outside the input count as zero in ``"zeros"`` padding.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

from ..._C import Tensor, arange, ones, stack
from ...amp._policies import autocast_policy

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


def _base(size: int, align_corners: bool, like: Tensor) -> Tensor:
    """The normalized coordinates of ``size`` pixel centres in [-1, 1]."""
    steps = arange(size, dtype=like.dtype, device=like.device)
    if size == 1:
        return steps * 0.0
    if align_corners:
        return steps * (2.0 / (size - 1)) - 1.0
    return (steps * 2.0 + 1.0) / size - 1.0


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of affine transforms ``theta`` for an output of ``size``: PyTorch's
    ``torch.nn.functional.affine_grid``.

    Args:
        theta (Tensor): (N, 2, 3) for 2-D or (N, 3, 4) for 3-D transforms.
        size (tuple): the output's (N, C, H, W) or (N, C, D, H, W).
        align_corners (bool, optional): whether -1 and 1 are the corner pixels' centres (True)
            or their outer edges (False). Default: None (False, with PyTorch's warning).

    Returns:
        Tensor: (N, H, W, 2) or (N, D, H, W, 3) coordinates (x first).

    Example::

        >>> import genesis.nn.functional as F
        >>> theta = genesis.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.affine_grid(theta, (1, 1, 1, 2), align_corners=True)
        tensor([[[[-1.,  0.],
                  [ 1.,  0.]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not isinstance(theta, Tensor) or not theta.is_floating_point():
        raise ValueError(
            f"[affine_grid] Expected theta to have floating point type, but got "
            f"{getattr(theta, 'dtype', type(theta).__name__)}"
        )
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[1:]) != (2, 3):
            raise ValueError(
                f"[affine_grid] Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                f"{size}. Got {list(theta.shape)}."
            )
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[1:]) != (3, 4):
            raise ValueError(
                f"[affine_grid] Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                f"{size}. Got {list(theta.shape)}."
            )
    else:
        raise NotImplementedError(
            f"[affine_grid] only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    if min(size) <= 0:
        raise ValueError(f"[affine_grid] Expected non-zero, positive output size. Got {size}")
    n, spatial = size[0], size[2:]
    nd = len(spatial)
    # (*spatial, nd + 1) homogeneous coordinates, x (the last dim) first.
    axes = [_base(s, align_corners, theta) for s in spatial]  # D, H, W order
    grids = []
    for i in range(nd):  # coordinate i is the (nd - 1 - i)-th spatial dim
        dim = nd - 1 - i
        shape = [1] * nd
        shape[dim] = spatial[dim]
        grids.append(axes[dim].view(shape).expand(*spatial))
    grids.append(ones(*spatial, dtype=theta.dtype, device=theta.device))
    base = stack(grids, -1).reshape(1, -1, nd + 1)
    out = base.matmul(theta.transpose(1, 2))  # (N, prod(spatial), nd)
    return out.view(n, *spatial, nd)


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1.0) / 2.0 * (size - 1)
    return ((coord + 1.0) * size - 1.0) / 2.0


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    if twice_low == twice_high:
        return coord * 0.0
    low = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    coord = (coord - low).abs()
    extra = coord.fmod(span)
    flips = (coord / span).floor()
    even = flips.fmod(2.0) == 0
    return (extra + low).where(even, span - extra + low)


def _source(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    x = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        return x.clamp(0, size - 1)
    if padding_mode == "reflection":
        if align_corners:
            x = _reflect(x, 0, 2 * (size - 1))
        else:
            x = _reflect(x, -1, 2 * size - 1)
        return x.clamp(0, size - 1)
    return x


def _cubic_weights(t: Tensor) -> list[Tensor]:
    a = -0.75

    def near(u: Tensor) -> Tensor:
        return ((a + 2) * u - (a + 3)) * u * u + 1

    def far(u: Tensor) -> Tensor:
        return ((a * u - 5 * a) * u + 8 * a) * u - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


@autocast_policy
def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """Samples ``input`` at the normalized coordinates of ``grid``: PyTorch's
    ``torch.nn.functional.grid_sample`` (Note [Sampling by gathers]).

    Args:
        input (Tensor): (N, C, H, W) or (N, C, D, H, W).
        grid (Tensor): (N, H_out, W_out, 2) or (N, D_out, H_out, W_out, 3), x first, in [-1, 1].
        mode (str, optional): ``"bilinear"`` (trilinear for 5-D), ``"nearest"`` or
            ``"bicubic"`` (4-D). Default: ``"bilinear"``.
        padding_mode (str, optional): what outside the input reads: ``"zeros"``, ``"border"``
            or ``"reflection"``. Default: ``"zeros"``.
        align_corners (bool, optional): whether -1 and 1 are the corner pixels' centres.
            Default: None (False, with PyTorch's warning).

    Returns:
        Tensor: (N, C, H_out, W_out) or (N, C, D_out, H_out, W_out).

    Example::

        >>> import genesis.nn.functional as F
        >>> image = genesis.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
        >>> F.grid_sample(image, genesis.zeros(1, 1, 1, 2), align_corners=False)
        tensor([[[[2.5000]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"[grid_sample] nn.functional.grid_sample(): expected mode to be 'bilinear', "
            f"'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            f"[grid_sample] nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
            f"'border', or 'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    for what, t in (("input", input), ("grid", grid)):
        if not isinstance(t, Tensor):
            raise TypeError(f"[grid_sample] {what} must be a genesis.Tensor")
    nd = input.dim() - 2
    if nd not in (2, 3) or grid.dim() != input.dim() or grid.shape[-1] != nd:
        raise RuntimeError(
            f"[grid_sample] expected 4-D or 5-D input and a grid of the same rank ending in its "
            f"spatial rank, got input {list(input.shape)} and grid {list(grid.shape)}"
        )
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            f"[grid_sample] expected grid and input to have same batch size, but got input with "
            f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("[grid_sample] bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype or input.device != grid.device:
        raise RuntimeError(
            f"[grid_sample] input is {input.dtype} on {input.device} but grid is {grid.dtype} on "
            f"{grid.device}"
        )
    n, c = input.shape[0], input.shape[1]
    sizes = list(reversed(input.shape[2:]))  # x (W), y (H), z (D)
    out_spatial = list(grid.shape[1:-1])
    flat = input.reshape(n, c, -1)
    points = grid.reshape(n, -1, nd)  # (N, P, nd)
    strides = [1]
    for s in sizes[:-1]:
        strides.append(strides[-1] * s)

    def tap(index_per_dim: list[Tensor], weight: Tensor) -> Tensor:
        """weight * input at the integer positions (N, P) per dim, zero outside."""
        valid = None
        linear = None
        for i, pos in enumerate(index_per_dim):
            inside = (pos >= 0) & (pos <= sizes[i] - 1)
            valid = inside if valid is None else valid & inside
            clamped = pos.clamp(0, sizes[i] - 1).to(dtype=arange(1).dtype)
            linear = clamped * strides[i] if linear is None else linear + clamped * strides[i]
        assert linear is not None and valid is not None
        values = flat.gather(2, linear.unsqueeze(1).expand(n, c, linear.shape[1]))
        return values * (weight * valid.to(weight.dtype)).unsqueeze(1)

    if mode == "bicubic":
        # Each of the 16 taps applies the padding rule to its own coordinate (PyTorch's order).
        raw = [_unnormalize(points[..., i], sizes[i], align_corners) for i in range(nd)]
        base = [r.floor() for r in raw]
        weights = [_cubic_weights(r - b) for r, b in zip(raw, base)]
        out = None
        for ox, oy in itertools.product(range(4), range(4)):
            pos = [base[0] + (ox - 1), base[1] + (oy - 1)]
            if padding_mode != "zeros":
                pos = [
                    _tap_position(p, sizes[i], padding_mode, align_corners)
                    for i, p in enumerate(pos)
                ]
            term = tap(pos, weights[0][ox] * weights[1][oy])
            out = term if out is None else out + term
    else:
        coords = [_source(points[..., i], sizes[i], padding_mode, align_corners) for i in range(nd)]
        if mode == "nearest":
            out = tap([x.round() for x in coords], ones(1, dtype=input.dtype, device=input.device))
        else:
            lows = [x.floor() for x in coords]
            fracs = [x - low for x, low in zip(coords, lows)]
            out = None
            for corner in itertools.product((0, 1), repeat=nd):
                pos = [low + k for low, k in zip(lows, corner)]
                weight = None
                for k, frac in zip(corner, fracs):
                    w = frac if k else 1.0 - frac
                    weight = w if weight is None else weight * w
                assert weight is not None
                term = tap(pos, weight)
                out = term if out is None else out + term
    assert out is not None
    return out.view(n, c, *out_spatial)


def _tap_position(pos: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """A bicubic tap's integer position under border or reflection padding."""
    if padding_mode == "border":
        return pos.clamp(0, size - 1)
    if align_corners:
        reflected = _reflect(pos, 0, 2 * (size - 1))
    else:
        reflected = _reflect(pos, -1, 2 * size - 1)
    return reflected.clamp(0, size - 1)
