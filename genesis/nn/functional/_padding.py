"""pad (constant, reflect, replicate, circular), pixel_shuffle and pixel_unshuffle.

Note [Padding by index]: every non-constant mode is one ``index_select`` per padded dim with an
index vector that says, for each output position, which input position it reads (reflect:
mirrored about the edge, replicate: clamped, circular: wrapped). The vectors are tiny (one entry
per output position of one dim), the gathers are compiled ops with gradients (repeated reads add
up), and negative pads are the same vectors cropped. Constant padding fills the result and copies
the input into its interior (Note [Constant padding in one copy]; negative pads narrow).
"""

from __future__ import annotations

from typing import Any

from ..._C import Tensor, arange, full
from ..._memory_format import _ORDER, _format_of
from ...amp._policies import autocast_policy
from ...autograd import Function

__all__ = ["channel_shuffle", "native_channel_shuffle", "pad", "pixel_shuffle", "pixel_unshuffle"]


def _check_tensor(name: str, input: Any) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"[{name}] input must be a genesis.Tensor, got {type(input).__name__}")


def _source_index(size: int, before: int, after: int, mode: str, device: Any) -> Tensor:
    """For each output position of one padded dim, the input position it copies."""
    positions = arange(-before, size + after, device=device)
    if mode == "replicate":
        return positions.clamp(0, size - 1)
    if mode == "circular":
        # Negative pads crop first; the wrap is over what remains (PyTorch's order).
        lo, hi = max(-before, 0), size - max(-after, 0)
        wrapped = arange(-max(before, 0), hi - lo + max(after, 0), device=device)
        return wrapped.remainder(hi - lo) + lo
    # reflect: mirror about the first and last element (period 2 * (size - 1))
    period = 2 * (size - 1)
    folded = positions.abs().remainder(period) if period else positions * 0
    return (period - folded).minimum(folded)


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pads the last dims of ``input`` by the amounts in ``pad``: PyTorch's
    ``torch.nn.functional.pad``.

    ``pad`` lists (before, after) pairs starting from the last dim: ``(left, right)`` pads the
    last dim, ``(left, right, top, bottom)`` the last two. Negative amounts crop. The modes other
    than ``"constant"`` pad the last 1, 2 or 3 dims of a batched or unbatched input, as PyTorch's
    (Note [Padding by index]).

    Args:
        input (Tensor): the tensor to pad.
        pad (tuple of ints): an even number of amounts, at most twice ``input.dim()``.
        mode (str, optional): ``"constant"``, ``"reflect"``, ``"replicate"`` or ``"circular"``.
            Default: ``"constant"``.
        value (float, optional): the fill of constant padding. Default: None (zero).

    Returns:
        Tensor: the padded tensor, with gradients to ``input``.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.pad(genesis.tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect")
        tensor([[3., 2., 1., 2., 3., 2.]])
    """
    _check_tensor("pad", input)
    if not isinstance(pad, (tuple, list)) or not all(
        isinstance(p, int) and not isinstance(p, bool) for p in pad
    ):
        raise TypeError(f"[pad] pad must be a tuple of ints, got {pad!r}")
    if len(pad) % 2:
        raise ValueError("[pad] Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise ValueError(
            "[pad] Padding length should be less than or equal to two times the input dimension"
        )
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]  # last dim first
    if mode == "constant":
        return _pad_constant(input, pairs, 0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(
            f"[pad] mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}"
        )
    if value is not None and value != 0:
        raise ValueError(f'[pad] Padding mode "{mode}" doesn\'t take in value argument')
    n_padded = len(pairs)
    if n_padded > 3 or input.dim() not in (n_padded + 1, n_padded + 2):
        raise NotImplementedError(
            f"[pad] {mode} padding of the last {n_padded} dims takes a {n_padded + 1}-D or "
            f"{n_padded + 2}-D input, got {input.dim()}-D"
        )
    # PyTorch's CPU autocast runs these in float32 (Note [Autocast policies]).
    if mode == "replicate":
        return _replication_pad(input, pairs)
    if mode == "reflect" and n_padded < 3:
        return _reflection_pad(input, pairs)
    return _pad_by_index(input, pairs, mode)


@autocast_policy
def _reflection_pad(input: Tensor, pairs: list[tuple[int, int]]) -> Tensor:
    return _pad_by_index(input, pairs, "reflect")


@autocast_policy
def _replication_pad(input: Tensor, pairs: list[tuple[int, int]]) -> Tensor:
    return _pad_by_index(input, pairs, "replicate")


def _pad_by_index(input: Tensor, pairs: list[tuple[int, int]], mode: str) -> Tensor:
    """Note [Padding by index]: one index_select per padded dim."""
    out = input
    for i, (before, after) in enumerate(pairs):
        dim = input.dim() - 1 - i
        size = out.shape[dim]
        if mode == "reflect" and (before >= size or after >= size):
            raise ValueError(
                f"[pad] reflect padding ({before}, {after}) must be smaller than the input's "
                f"dim {dim} of size {size}"
            )
        if mode == "circular" and (before > size or after > size):
            raise ValueError(
                f"[pad] circular padding ({before}, {after}) must be at most the input's dim "
                f"{dim} of size {size}"
            )
        if size == 0 and (before > 0 or after > 0):
            raise RuntimeError(f"[pad] {mode} padding of dim {dim}, which has size 0")
        if before == 0 and after == 0:
            continue
        out = out.index_select(dim, _source_index(size, before, after, mode, input.device))
    return out


def _pad_constant(input: Tensor, pairs: list[tuple[int, int]], value: float) -> Tensor:
    """pairs: (before, after) for the last dim first; negative amounts crop."""
    fmt = _format_of(input)  # the input's, before a crop makes it a slice
    out = input
    grow = []
    for i, (before, after) in enumerate(pairs):
        dim = input.dim() - 1 - i
        if before < 0:
            out = out.narrow(dim, -before, out.shape[dim] + before)
            before = 0
        if after < 0:
            out = out.narrow(dim, 0, out.shape[dim] + after)
            after = 0
        if out.shape[dim] + before + after < 0:
            raise RuntimeError(f"[pad] the padding makes dim {dim} negative")
        grow.append((before, after))
    if not any(before or after for before, after in grow):
        return out
    return _ConstantPad.apply(out, grow, value, _ORDER.get(fmt))


class _ConstantPad(Function):
    """Note [Constant padding in one copy]: the padded result is filled with the value and the
    input copied into its interior (a view), one pass each; the gradient is the interior of the
    output's gradient, a view. (A concatenation per padded dim copied everything once per dim.)
    A channels-last input gives a channels-last result."""

    @staticmethod
    def forward(
        ctx: Any, x: Tensor, grow: list[tuple[int, int]], value: float, order: tuple | None
    ) -> Tensor:
        shape, interior = list(x.shape), [slice(None)] * x.dim()
        for i, (before, after) in enumerate(grow):
            dim = x.dim() - 1 - i
            interior[dim] = slice(before, before + shape[dim])
            shape[dim] += before + after
        if order is None:
            out = full(shape, value, dtype=x.dtype, device=x.device)
        else:  # a channels-last input's: made in memory order, viewed back as (N, C, ...)
            made = full([shape[d] for d in order], value, dtype=x.dtype, device=x.device)
            out = made.permute(*[order.index(d) for d in range(x.dim())])
        ctx.interior = tuple(interior)
        out[ctx.interior] = x
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return grad[ctx.interior], None, None, None


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """Rearranges (*, C * r^2, H, W) into (*, C, H * r, W * r), ``r = upscale_factor``.

    Args:
        input (Tensor): the input, at least 3-D.
        upscale_factor (int): the factor ``r``.

    Returns:
        Tensor: the rearranged tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.pixel_shuffle(genesis.arange(4.0).view(1, 4, 1, 1), 2)
        tensor([[[[0., 1.],
                  [2., 3.]]]])
    """
    _check_tensor("pixel_shuffle", input)
    r = upscale_factor
    if input.dim() < 3:
        raise RuntimeError(
            f"[pixel_shuffle] expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"[pixel_shuffle] upscale_factor must be greater than 0, but got {r}")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            f"[pixel_shuffle] expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    oc = c // (r * r)
    x = input.reshape(-1, oc, r, r, h, w).permute(0, 1, 4, 2, 5, 3)
    return x.reshape(*batch, oc, h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """Rearranges (*, C, H * r, W * r) into (*, C * r^2, H, W), ``r = downscale_factor``; the
    inverse of :func:`pixel_shuffle`.

    Args:
        input (Tensor): the input, at least 3-D.
        downscale_factor (int): the factor ``r``.

    Returns:
        Tensor: the rearranged tensor.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.pixel_unshuffle(genesis.arange(4.0).view(1, 1, 2, 2), 2).flatten()
        tensor([0., 1., 2., 3.])
    """
    _check_tensor("pixel_unshuffle", input)
    r = downscale_factor
    if input.dim() < 3:
        raise RuntimeError(
            f"[pixel_unshuffle] expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(
            f"[pixel_unshuffle] downscale_factor must be greater than 0, but got {r}"
        )
    *batch, c, h, w = input.shape
    if h % r or w % r:
        raise RuntimeError(
            f"[pixel_unshuffle] expects height ({h}) and width ({w}) to be divisible by "
            f"downscale_factor ({r})"
        )
    x = input.reshape(-1, c, h // r, r, w // r, r).permute(0, 1, 3, 5, 2, 4)
    return x.reshape(*batch, c * r * r, h // r, w // r)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Rearranges the channels of (N, C, *) as ``groups`` groups read column by column
    (ShuffleNet's shuffle).

    Args:
        input (Tensor): (N, C, *), C divisible by ``groups``.
        groups (int): the number of groups.

    Returns:
        Tensor: the input with its channels shuffled.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.channel_shuffle(genesis.arange(4.0).view(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    _check_tensor("channel_shuffle", input)
    if input.dim() < 3:
        raise RuntimeError(
            f"[channel_shuffle] expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )
    if groups <= 0:
        raise RuntimeError(
            f"[channel_shuffle] Number of groups to divide channels in must be "
            f"positive. Value of groups:{groups}"
        )
    n, c = input.shape[0], input.shape[1]
    if c % groups:
        raise RuntimeError(
            f"[channel_shuffle] Number of channels must be divisible by groups. "
            f"Got {c} channels and {groups} groups."
        )
    rest = list(input.shape[2:])
    x = input.reshape(n, groups, c // groups, *rest).transpose(1, 2)
    return x.reshape(n, c, *rest)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """The same as :func:`channel_shuffle` (PyTorch's name for its native kernel).

    Args:
        input (Tensor): (N, C, *), C divisible by ``groups``.
        groups (int): the number of groups.

    Returns:
        Tensor: the input with its channels shuffled.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.native_channel_shuffle(genesis.arange(4.0).view(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    return channel_shuffle(input, groups)
