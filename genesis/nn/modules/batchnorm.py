"""BatchNorm1d, BatchNorm2d, BatchNorm3d and SyncBatchNorm, on PyTorch's ``_NormBase``/
``_BatchNorm`` structure.

``_NormBase`` holds what batch and instance norm share, with PyTorch's attribute names so the
state_dict keys match: the parameters ``weight`` and ``bias`` (with ``affine``) and the buffers
``running_mean``, ``running_var`` and ``num_batches_tracked`` (int64; with
``track_running_stats``). ``SyncBatchNorm`` takes its training statistics over the ranks of a
process group (Note [Batch statistics across ranks] in ``_sync_batch_norm.py``); the lazy
variants are in ``lazy.py``.
"""

from __future__ import annotations

from typing import Any

from ..._C import Tensor, empty, int64, ones, tensor, zeros
from ...autograd import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._sync_batch_norm import SyncBatchNormFunction
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


def _check_dim(layer: str, input: Any, dims: tuple[int, ...]) -> None:
    """input is a Tensor with one of the dims; PyTorch's ValueError wording, prefixed."""
    if not isinstance(input, Tensor):
        raise TypeError(f"[{layer}] input must be a genesis.Tensor, got {type(input).__name__}")
    if input.dim() not in dims:
        wanted = " or ".join(f"{d}D" for d in dims)
        raise ValueError(f"[{layer}] expected {wanted} input (got {input.dim()}D input)")


class _NormBase(Module):
    """Common base of _InstanceNorm and _BatchNorm: parameters, buffers, reset and repr."""

    _version = 2  # version 2 added num_batches_tracked (PyTorch's numbering)

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Sets the running mean to 0, the running variance to 1 and the batch count to 0."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Resets the running statistics, the weight to 1 and the bias to 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
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
        if (version is None or version < 2) and self.track_running_stats:
            # A state_dict from before version 2 has no num_batches_tracked: it counts from 0.
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (
                    self.num_batches_tracked
                    if self.num_batches_tracked is not None
                    else tensor(0, dtype=int64)
                )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class _BatchNorm(_NormBase):
    """The forward of BatchNorm1d/2d/3d: batch statistics in training (updating the running
    ones when tracked), running statistics in eval when they are tracked."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def _step(self) -> tuple[float, bool, bool]:
        """Counts the batch; (the running update's factor, whether batch statistics normalize,
        whether the running buffers are read or updated)."""
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        # Batch statistics in training, and in eval when no running statistics are kept.
        if self.training:
            use_batch_stats = True
        else:
            use_batch_stats = self.running_mean is None and self.running_var is None
        # The buffers are passed only where they are read or updated.
        return factor, use_batch_stats, not self.training or self.track_running_stats

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor, use_batch_stats, tracked = self._step()
        return F.batch_norm(
            input,
            self.running_mean if tracked else None,
            self.running_var if tracked else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization of an (N, C) or (N, C, L) input, each of the C features normalized
    over the batch (and length) with learned scale and shift.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``. In training the batch mean and biased
    variance normalize, and the running estimates (with ``track_running_stats``) are updated:
    ``running = (1 - momentum) * running + momentum * batch`` (the unbiased variance), or a
    cumulative average when ``momentum=None``. In eval the running estimates normalize.

    Args:
        num_features (int): C, the number of features (channels).
        eps (float): added to the variance for numerical stability. Default: 1e-5.
        momentum (float or None): the weight of the batch in the running update; None for a
            cumulative moving average. Default: 0.1.
        affine (bool): whether to learn ``weight`` (ones) and ``bias`` (zeros). Default: True.
        track_running_stats (bool): whether to keep running estimates (used in eval); without
            them batch statistics are used in both modes. Default: True.
        device, dtype: where and in which dtype the parameters and buffers are made.
        bias (bool): keyword-only: whether to learn the bias (with ``affine``). Default: True.

    Example::

        >>> bn = genesis.nn.BatchNorm1d(3)
        >>> bn(genesis.randn(8, 3)).shape
        genesis.Size([8, 3])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        _check_dim("BatchNorm1d", input, (2, 3))


class BatchNorm2d(_BatchNorm):
    """Batch normalization of an (N, C, H, W) input, each of the C channels normalized over
    the batch and spatial dims with learned scale and shift.

    Same arguments and behavior as :class:`BatchNorm1d`, for 4-D input.

    Example::

        >>> bn = genesis.nn.BatchNorm2d(3)
        >>> bn(genesis.randn(2, 3, 4, 4)).shape
        genesis.Size([2, 3, 4, 4])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        _check_dim("BatchNorm2d", input, (4,))


class BatchNorm3d(_BatchNorm):
    """Batch normalization of an (N, C, D, H, W) input, each of the C channels normalized over
    the batch and spatial dims with learned scale and shift.

    Same arguments and behavior as :class:`BatchNorm1d`, for 5-D input.

    Example::

        >>> bn = genesis.nn.BatchNorm3d(3)
        >>> bn(genesis.randn(2, 3, 2, 2, 2)).shape
        genesis.Size([2, 3, 2, 2, 2])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        _check_dim("BatchNorm3d", input, (5,))


class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose training statistics are those of the whole batch across the
    ranks of a process group (data parallelism), for input (N, C, *).

    In training, when ``genesis.distributed`` is initialized and the group has more than one
    rank, each rank's batch contributes its count, mean and variance, gathered from every rank
    (unequal and empty batches weigh by their counts), and the input's gradient takes the
    group's sums (Note [Batch statistics across ranks]); the weight's and bias's gradients are
    the rank's own, which DistributedDataParallel averages. Otherwise (eval, one rank, no
    process group) it is :class:`BatchNorm1d`'s computation for any input of at least 2 dims.
    Unlike PyTorch, which raises for CPU input, CPU ranks over the "gloo" backend synchronize
    too.

    Args:
        num_features (int): C, the number of features (channels).
        eps, momentum, affine, track_running_stats: as :class:`BatchNorm1d`'s.
        process_group: the group whose ranks share statistics; None for the default group.
        device, dtype: where and in which dtype the parameters and buffers are made.
        bias (bool): keyword-only: whether to learn the bias (with ``affine``). Default: True.

    Example::

        >>> bn = genesis.nn.SyncBatchNorm(3)
        >>> bn(genesis.randn(4, 3, 5)).shape  # no process group: batch norm of this batch
        genesis.Size([4, 3, 5])
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group: Any = None,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if not isinstance(input, Tensor):
            raise TypeError(
                f"[SyncBatchNorm] input must be a genesis.Tensor, got {type(input).__name__}"
            )
        if input.dim() < 2:
            raise ValueError(
                f"[SyncBatchNorm] expected at least 2D input (got {input.dim()}D input)"
            )
        if input.shape[1] == 0:
            raise ValueError("[SyncBatchNorm] number of input channels should be non-zero")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor, use_batch_stats, tracked = self._step()
        running_mean = self.running_mean if tracked else None
        running_var = self.running_var if tracked else None
        from ... import distributed as dist  # here: genesis.distributed imports genesis.nn

        world_size = 1
        if use_batch_stats and self.training and dist.is_initialized():
            world_size = dist.get_world_size(self.process_group)
        if world_size < 2:
            return F.batch_norm(
                input,
                running_mean,
                running_var,
                self.weight,
                self.bias,
                use_batch_stats,
                factor,
                self.eps,
            )
        return SyncBatchNormFunction.apply(
            input,
            self.weight,
            self.bias,
            running_mean,
            running_var,
            self.eps,
            factor,
            self.process_group,
            world_size,
        )

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with every batch norm layer in it (itself included) replaced by a
        SyncBatchNorm that shares its parameters, buffers and mode; other modules are kept.

        Example::

            >>> net = genesis.nn.Sequential(genesis.nn.Linear(4, 3), genesis.nn.BatchNorm1d(3))
            >>> type(genesis.nn.SyncBatchNorm.convert_sync_batchnorm(net)[1]).__name__
            'SyncBatchNorm'
        """
        output = module
        if isinstance(module, _BatchNorm):
            output = SyncBatchNorm(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
                bias=module.bias is not None,
            )
            if module.affine:
                with no_grad():
                    output.weight = module.weight
                    output.bias = module.bias
            output.running_mean = module.running_mean
            output.running_var = module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return output
