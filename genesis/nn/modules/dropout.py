"""Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout and FeatureAlphaDropout."""

from __future__ import annotations

from ..._C import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "AlphaDropout",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "FeatureAlphaDropout",
]


class _DropoutNd(Module):
    """The shared constructor and ``extra_repr`` of the dropout layers."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(
                f"[{type(self).__name__}] dropout probability has to be between 0 and 1, but "
                f"got {p}"
            )
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes each element with probability ``p`` in training, scaling the rest by
    ``1 / (1 - p)``; the identity in eval mode.

    Args:
        p (float): the probability of an element to be zeroed. Default: 0.5.
        inplace (bool): do the operation in place. Default: False.

    The masks come from genesis's generator (see ``genesis.nn.functional.dropout``).

    Example::

        >>> layer = genesis.nn.Dropout(0.5)
        >>> layer.eval()(genesis.ones(3)).tolist()
        [1.0, 1.0, 1.0]
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of a (N, C, L) or (C, L) input with probability ``p`` in training,
    scaling the rest by ``1 / (1 - p)``.

    Args:
        p (float): the probability of a channel to be zeroed. Default: 0.5.
        inplace (bool): do the operation in place. Default: False.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of a (N, C, H, W) input with probability ``p`` in training,
    scaling the rest by ``1 / (1 - p)``.

    As in PyTorch, a 3-D input is taken as (N, C, L), with a warning.

    Args:
        p (float): the probability of a channel to be zeroed. Default: 0.5.
        inplace (bool): do the operation in place. Default: False.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of a (N, C, D, H, W) or (C, D, H, W) input with probability ``p``
    in training, scaling the rest by ``1 / (1 - p)``.

    Args:
        p (float): the probability of a channel to be zeroed. Default: 0.5.
        inplace (bool): do the operation in place. Default: False.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Applies alpha dropout in training: keeps the zero mean and unit variance of SELU
    activations (see ``genesis.nn.functional.alpha_dropout``).

    Args:
        p (float): the probability of an element to be dropped. Default: 0.5.
        inplace (bool): accepted for PyTorch's signature; as in PyTorch, the layer never works
            in place. Default: False.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Applies alpha dropout to whole channels of a (N, C, ...) input in training (see
    ``genesis.nn.functional.feature_alpha_dropout``).

    Args:
        p (float): the probability of a channel to be dropped. Default: 0.5.
        inplace (bool): accepted for PyTorch's signature; as in PyTorch, the layer never works
            in place. Default: False.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
