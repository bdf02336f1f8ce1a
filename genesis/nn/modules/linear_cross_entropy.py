"""LinearCrossEntropyLoss and LinearCrossEntropyOptions: torch.nn's module form of
``F.linear_cross_entropy`` (a Linear layer whose logits go straight into the cross entropy,
Note [Chunked linear cross-entropy]) and the options that set its chunk size."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

from ..._C import Tensor, bfloat16, float16, float32, float64
from .. import functional as F
from .linear import Linear
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]

_ACC_POLICIES = ("auto", "accurate", "balanced", "compact")


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How ``F.linear_cross_entropy`` cuts the rows into chunks (PyTorch's fields and checks).

    ``batch_chunk_size`` rows per chunk, or ``chunking_method``: ``"auto"`` (genesis's pick:
    about 128M logits a chunk), ``"aspect_ratio"`` (a chunk's logits as large as the input, to the
    next power of two of rows) or ``"aspect_ratio:N"`` (that divided by N), or ``None`` (use
    ``batch_chunk_size``, else one chunk). Both set and disagreeing raises ``ValueError`` at the
    call. ``allow_retain_graph``, ``acc_policy`` and ``acc_dtype`` are checked and kept, and do
    not change genesis's arithmetic: its chunked gradients for 'mean' and 'sum' are kept for any
    number of backward calls, and the weight's and bias's add up in float32 (float64 for float64
    inputs).

    Example::

        >>> opts = genesis.nn.LinearCrossEntropyOptions(batch_chunk_size=1024)
        >>> opts.batch_chunk_size
        1024
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if not (
            size is None or (isinstance(size, int) and not isinstance(size, bool) and size > 0)
        ):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in (
            float16,
            bfloat16,
            float32,
            float64,
        ):
            raise ValueError(
                "acc_dtype must be one of {None, genesis.float16, genesis.bfloat16, "
                f"genesis.float32, genesis.float64}}, got {self.acc_dtype!r}"
            )


class LinearCrossEntropyLoss(_WeightedLoss):
    """A Linear layer (``self.linear``, no bias by default) whose logits go into the cross entropy
    with ``target``: ``F.linear_cross_entropy``, chunked so that the logits never exist whole.

    ``out_features`` = (d1, ..., dK) makes a K-dimensional loss: the Linear maps to
    ``num_classes * d1 * ... * dK`` outputs, reshaped to (C, d1, ..., dK) per sample. The class
    weights are the buffer ``weight``, as in CrossEntropyLoss.

    Example::

        >>> loss = genesis.nn.LinearCrossEntropyLoss(4, 3)
        >>> loss(genesis.randn(5, 4), genesis.tensor([0, 1, 2, 0, 1])).ndim
        0
    """

    def __init__(
        self,
        in_features: int,
        num_classes: int,
        *,
        out_features: tuple[int, ...] = (),
        bias: bool = False,
        device: Any = None,
        dtype: Any = None,
        reduction: str = "mean",
        weight: Tensor | None = None,
        ignore_index: int | None = None,
        label_smoothing: float = 0.0,
        options: LinearCrossEntropyOptions | None = None,
    ) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(
                f"[LinearCrossEntropyLoss] expected weight shape to be {(num_classes,)}, got "
                f"{tuple(weight.shape)}"
            )
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(
                "[LinearCrossEntropyLoss] expected label_smoothing to be in range [0, 1], got "
                f"{label_smoothing}"
            )
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # Linear takes 2-D weights only: K-dimensional ones are stored flat and reshaped in
        # forward, as in PyTorch (so state_dicts match).
        self.linear = Linear(
            in_features,
            math.prod(out_features, start=num_classes),
            bias=bias,
            device=device,
            dtype=dtype,
        )
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        linear_weight = self.linear.weight.reshape(
            (self.num_classes, *self.out_features, self.linear.in_features)
        )
        bias = self.linear.bias
        linear_bias = None if bias is None else bias.reshape((self.num_classes, *self.out_features))
        return F.linear_cross_entropy(
            input,
            linear_weight,
            target,
            linear_bias=linear_bias,
            weight=self.weight,
            reduction=self.reduction,
            ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing,
            options=self.options,
        )

    def extra_repr(self) -> str:
        return (
            f"in_features={self.linear.in_features},"
            f" num_classes={self.num_classes},"
            f" out_features={self.out_features},"
            f" bias={self.linear.bias is not None},"
            f" reduction={self.reduction},"
            f" ignore_index={self.ignore_index},"
            f" label_smoothing={self.label_smoothing},"
            f" options={self.options}"
        )
