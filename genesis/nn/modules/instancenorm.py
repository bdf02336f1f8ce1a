"""InstanceNorm1d, InstanceNorm2d and InstanceNorm3d, on PyTorch's ``_InstanceNorm`` structure
(a ``_NormBase``, so the parameters and buffers and their state_dict keys are BatchNorm's).
The lazy variants are in ``lazy.py``."""

from __future__ import annotations

import warnings
from typing import Any

from ..._C import Tensor
from .. import functional as F
from .batchnorm import _check_dim, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    """The forward of InstanceNorm1d/2d/3d: per-sample, per-channel statistics, an unbatched
    input taken as a batch of one."""

    _NAME = "_InstanceNorm"
    _DIMS: tuple[int, ...] = ()

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def _check_input_dim(self, input: Tensor) -> None:
        _check_dim(self._NAME, input, self._DIMS)

    def _get_no_batch_dim(self) -> int:
        return self._DIMS[0]

    def _handle_no_batch_input(self, input: Tensor) -> Tensor:
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        version = local_metadata.get("version", None)
        # Version 1 removed running_mean and running_var when track_running_stats=False.
        if version is None and not self.track_running_stats:
            keys = [prefix + n for n in ("running_mean", "running_var") if prefix + n in state_dict]
            if keys:
                name = type(self).__name__
                error_msgs.append(
                    "Unexpected running stats buffer(s) {names} for {klass} with "
                    "track_running_stats=False. If state_dict is a checkpoint saved before "
                    "0.4.0, this may be expected because {klass} does not track running stats "
                    "by default since 0.4.0. Please remove these keys from state_dict. If the "
                    "running stats are actually needed, instead set track_running_stats=True in "
                    "{klass} to enable them. See the documentation of {klass} for details.".format(
                        names=" and ".join(f'"{k}"' for k in keys), klass=name
                    )
                )
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"[{self._NAME}] expected input's size at dim={feature_dim} to match "
                    f"num_features ({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can silence "
                "this warning by not passing in num_features, which is not used because "
                "affine=False",
                stacklevel=2,
            )
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of an (N, C, L) or (C, L) input: each channel of each sample is
    normalized by its own mean and variance over L.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, the statistics per (sample, channel)
    (biased variance). With ``track_running_stats`` the running estimates are updated in
    training (the batch average of the per-instance statistics) and normalize in eval.

    Args:
        num_features (int): C, the number of channels.
        eps (float): added to the variance for numerical stability. Default: 1e-5.
        momentum (float): the weight of the new statistics in the running update. Default: 0.1.
        affine (bool): whether to learn ``weight`` (ones) and ``bias`` (zeros). Default: False.
        track_running_stats (bool): whether to keep running estimates for eval. Default: False.
        device, dtype: where and in which dtype the parameters and buffers are made.
        bias (bool): keyword-only: whether to learn the bias (with ``affine``). Default: True.

    Example::

        >>> norm = genesis.nn.InstanceNorm1d(3)
        >>> norm(genesis.randn(2, 3, 5)).shape
        genesis.Size([2, 3, 5])
    """

    _NAME = "InstanceNorm1d"
    _DIMS = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of an (N, C, H, W) or (C, H, W) input: each channel of each
    sample is normalized by its own mean and variance over H and W.

    Same arguments and behavior as :class:`InstanceNorm1d`.

    Example::

        >>> norm = genesis.nn.InstanceNorm2d(3, affine=True)
        >>> norm(genesis.randn(2, 3, 4, 4)).shape
        genesis.Size([2, 3, 4, 4])
    """

    _NAME = "InstanceNorm2d"
    _DIMS = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of an (N, C, D, H, W) or (C, D, H, W) input: each channel of each
    sample is normalized by its own mean and variance over D, H and W.

    Same arguments and behavior as :class:`InstanceNorm1d`.

    Example::

        >>> norm = genesis.nn.InstanceNorm3d(3)
        >>> norm(genesis.randn(2, 3, 2, 2, 2)).shape
        genesis.Size([2, 3, 2, 2, 2])
    """

    _NAME = "InstanceNorm3d"
    _DIMS = (4, 5)
