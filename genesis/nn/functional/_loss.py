"""The loss functions of torch.nn.functional, with PyTorch's signatures, defaults and numerics.

Every loss takes ``reduction`` ('none' | 'mean' | 'sum'; kl_div also 'batchmean') and, where
PyTorch still has them, the legacy ``size_average`` / ``reduce`` arguments, mapped as PyTorch
maps them (with its deprecation warning). 'mean' over an empty tensor is NaN, as in PyTorch.

The math is genesis's compiled ops, composed so that gradients flow through autograd (the
inputs', and the targets' where PyTorch differentiates them). ``cross_entropy`` never builds a
one-hot tensor for class-index targets: ``log_softmax`` (one compiled pass) and a ``gather`` of
each target's log-probability. Class indices out of range raise IndexError: at once on the CPU,
and on CUDA at the next synchronization, as every genesis index op does (Note [Deferred index
errors]).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from ..._C import (
    Tensor,
    _nn,
    arange,
    bfloat16,
    exp,
    float16,
    float32,
    float64,
    int64,
    log,
    log1p,
    log_softmax,
    minimum,
    norm,
    uint8,
    where,
)
from ..._C._nn import softplus
from ...amp._policies import autocast_policy
from ...autograd import Function, no_grad

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cross_entropy",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]

_REDUCTIONS = ("none", "mean", "sum")


# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------


def _legacy_get_string(size_average: bool | None, reduce: bool | None) -> str:
    """PyTorch's mapping of the deprecated ``size_average`` / ``reduce`` to a reduction (None
    reads as True), with its warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
        UserWarning,
        stacklevel=4,
    )
    return ret


def _reduction(
    op: str,
    size_average: bool | None,
    reduce: bool | None,
    reduction: str,
    allowed: Sequence[str] = _REDUCTIONS,
) -> str:
    """The reduction to apply: the legacy arguments win when given, as in PyTorch."""
    if size_average is not None or reduce is not None:
        return _legacy_get_string(size_average, reduce)
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            UserWarning,
            stacklevel=3,
        )
        return "mean"
    if reduction not in allowed:
        names = ", ".join(repr(a) for a in allowed)
        raise ValueError(
            f"[{op}] {reduction!r} is not a valid value for reduction (expected one of {names})"
        )
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _check_tensor(op: str, name: str, value: Any, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, Tensor):
        raise TypeError(f"[{op}] {name} must be a genesis.Tensor, got {type(value).__name__}")


def _check_float(op: str, name: str, value: Any) -> None:
    _check_tensor(op, name, value)
    if not value.dtype.is_floating_point:
        raise TypeError(f"[{op}] expected a floating point {name}, got {value.dtype}")


def _shape(t: Any) -> tuple[int, ...]:
    return tuple(t.shape)


def _broadcast_shape(op: str, **named: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of the named shapes, or a RuntimeError naming them."""
    ndim = max(len(s) for s in named.values())
    out = []
    for i in range(-ndim, 0):  # over dims, not elements
        sizes = {s[i] for s in named.values() if len(s) >= -i and s[i] != 1}
        if len(sizes) > 1:
            shown = ", ".join(f"{k} {v}" for k, v in named.items())
            raise RuntimeError(f"[{op}] the shapes do not broadcast: {shown}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _warn_size(input: Tensor, target: Tensor) -> None:
    if input.shape != target.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=4,
        )


def _check_class_weight(op: str, weight: Any, input: Tensor, n_classes: int) -> None:
    _check_tensor(op, "weight", weight, optional=True)
    if weight is None:
        return
    if weight.ndim != 1 or weight.shape[0] != n_classes:
        raise RuntimeError(
            f"[{op}] weight tensor should be defined either for all {n_classes} classes or no "
            f"classes but got weight tensor of shape: {_shape(weight)}"
        )
    if weight.dtype != input.dtype:
        raise RuntimeError(
            f"[{op}] expected weight of input's dtype {input.dtype}, got {weight.dtype}"
        )
    if weight.device != input.device:
        raise RuntimeError(
            f"[{op}] expected weight on input's device {input.device}, got {weight.device}"
        )


def _index_target(op: str, target: Tensor, input: Tensor) -> Tensor:
    """Checks a class-index target against an (N, C, d1, ...), (C,) input: its dtype and that its
    shape is (N, d1, ...) (() for a (C,) input). Returns it as int64, a (1,) target of a (C,)
    input as 0-d, as PyTorch reads it."""
    _check_tensor(op, "target", target)
    if target.dtype not in (int64, uint8):
        raise RuntimeError(
            f"[{op}] expected target dtype to be int64 (class indices) or uint8, but got "
            f"{target.dtype}"
        )
    if target.device != input.device:
        raise RuntimeError(
            f"[{op}] expected target on input's device {input.device}, got {target.device}"
        )
    if input.ndim == 1:
        expected: tuple[int, ...] = ()
        if _shape(target) == (1,):
            target = target.view(())
    else:
        expected = (input.shape[0], *input.shape[2:])
    if _shape(target) != expected:
        # PyTorch: ValueError when only the batch sizes differ, RuntimeError otherwise.
        batch_only = (
            input.ndim >= 2 and target.ndim == len(expected) and target.shape[1:] == expected[1:]
        ) or (input.ndim == 1 and target.ndim == 1)
        error = ValueError if batch_only else RuntimeError
        raise error(
            f"[{op}] expected target of shape {expected} for input {_shape(input)}, "
            f"got {_shape(target)}"
        )
    return target if target.dtype == int64 else target.long()


def _pick(
    op: str, values: Tensor, dim: int, target: Tensor, ignored: Tensor | None, n: int
) -> tuple[Tensor, Tensor]:
    """values gathered along dim at the target's indices (ignored entries read index 0; negative
    ones are sent out of range, as gather would wrap them): one per position of a target with
    one dim less than values, else one per target entry. Returns (picked, the indices)."""
    idx = target if ignored is None else target.masked_fill(ignored, 0)
    idx = idx.masked_fill(idx < 0, n)
    try:
        if idx.ndim == values.ndim:
            picked = values.gather(dim, idx)
        else:
            picked = values.gather(dim, idx.unsqueeze(dim)).squeeze(dim)
    except IndexError:
        bad = target if ignored is None else target[ignored.logical_not()]
        bad = bad[(bad < 0) | (bad >= n)]
        shown = bad.flatten()[0].item() if bad.numel() else "?"
        raise IndexError(f"[{op}] target {shown} is out of bounds for {n} classes") from None
    return picked, idx


def _class_shape(input: Tensor, class_dim: int, n: int) -> tuple[int, ...]:
    shape = [1] * input.ndim
    shape[class_dim] = n
    return tuple(shape)


# ----------------------------------------------------------------------------------------------
# Classification
# ----------------------------------------------------------------------------------------------


def _nll_indices(
    op: str,
    logp: Tensor,
    target: Tensor,
    weight: Tensor | None,
    ignore_index: int,
    reduction: str,
    label_smoothing: float = 0.0,
) -> Tensor:
    """The (smoothed) negative log-likelihood of class-index targets, given log-probabilities."""
    class_dim = 0 if logp.ndim == 1 else 1
    n = logp.shape[class_dim]
    ignored = target == ignore_index
    picked, idx = _pick(op, logp, class_dim, target, ignored, n)
    w_t = None if weight is None else weight.take(idx)
    loss = -picked if w_t is None else -(picked * w_t)
    if label_smoothing > 0.0:
        # The smoothing term: minus the (weighted) sum of the log-probabilities over classes.
        lsum = logp if weight is None else logp * weight.view(_class_shape(logp, class_dim, n))
        lsum = lsum.sum(class_dim)
        loss = loss * (1.0 - label_smoothing) - lsum * (label_smoothing / n)
    loss = where(ignored, 0.0, loss)
    if reduction == "none":
        return loss
    total = loss.sum()
    if reduction == "sum":
        return total
    # 'mean': divided by the summed weights of the targets that are not ignored (0/0 is NaN).
    if w_t is None:
        return total / ignored.logical_not().sum()
    return total / where(ignored, 0.0, w_t).sum()


@autocast_policy
def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The negative log-likelihood loss of class-index targets, given log-probabilities.

    ``loss[n, d...] = -weight[t] * input[n, t, d...]`` with ``t = target[n, d...]``, and 0
    where ``t == ignore_index``. 'mean' divides the sum by the summed weights of the targets
    that are not ignored (their count without ``weight``), so it is NaN when every target is
    ignored, as in PyTorch.

    Args:
        input (Tensor): log-probabilities, (N, C), (C,) or (N, C, d1, d2, ...).
        target (Tensor): int64 (or uint8) class indices in [0, C): (N,), () or (N, d1, ...).
        weight (Tensor, optional): (C,) per-class weights, in input's dtype. Default: None.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        ignore_index (int, optional): a target value that adds nothing to the loss nor to the
            'mean' divisor. Default: -100.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or target's shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> logp = genesis.tensor([[-0.5, -1.0, -2.0], [-3.0, -0.1, -2.5]])
        >>> F.nll_loss(logp, genesis.tensor([0, 1]), reduction="none")
        tensor([0.5000, 0.1000])
        >>> F.nll_loss(logp, genesis.tensor([0, -100]))
        tensor(0.5000)
    """
    op = "nll_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input", input)
    if input.ndim == 0:
        raise ValueError(f"[{op}] expected input with 1 or more dimensions, got 0")
    class_dim = 0 if input.ndim == 1 else 1
    _check_class_weight(op, weight, input, input.shape[class_dim])
    target = _index_target(op, target, input)
    return _nll_indices(op, input, target, weight, ignore_index, reduction)


@autocast_policy
def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """The cross entropy between the softmax of ``input`` (logits) and the target.

    ``target`` holds class indices (any shape but input's) or class probabilities (input's
    shape, floating point). For indices: ``log_softmax`` over the class dim (dim 1, or 0 for a
    (C,) input), then a ``gather`` of each target's log-probability, never a one-hot tensor:
    ``loss = -weight[t] * logp[t]``, 0 where ``t == ignore_index``, and 'mean' divides by the
    summed weights of the targets that are not ignored. With ``label_smoothing`` = s the loss
    is ``(1 - s) * that + s * (minus the mean over classes of weight[c] * logp[c])``. For
    probabilities: ``loss = -sum_c weight[c] * p[c] * logp[c]`` with ``p = (1 - s) * target +
    s / C``, and 'mean' divides by the number of samples (N * d1 * ...).

    Args:
        input (Tensor): logits, (N, C), (C,) or (N, C, d1, d2, ...).
        target (Tensor): int64 (or uint8) class indices in [0, C), (N,), () or (N, d1, ...);
            or class probabilities of input's shape.
        weight (Tensor, optional): (C,) per-class weights, in input's dtype. Default: None.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        ignore_index (int, optional): a target index that adds nothing to the loss nor to the
            'mean' divisor (class indices only). Default: -100.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.
        label_smoothing (float, optional): in [0, 1], the share of the target spread
            uniformly over the classes. Default: 0.0.

    Returns:
        Tensor: the loss, 0-d, or (N, d1, ...) (() for a (C,) input) for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> logits = genesis.tensor([[2.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
        >>> F.cross_entropy(logits, genesis.tensor([0, 2]), reduction="none")
        tensor([0.1698, 1.5514])
        >>> F.cross_entropy(logits, genesis.tensor([0, 2]), label_smoothing=0.1)
        tensor(0.9273)
    """
    op = "cross_entropy"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    if input.ndim == 0:
        raise ValueError(f"[{op}] expected input with 1 or more dimensions, got 0")
    class_dim = 0 if input.ndim == 1 else 1
    n = input.shape[class_dim]
    _check_class_weight(op, weight, input, n)
    if target.device != input.device:
        raise RuntimeError(
            f"[{op}] expected target on input's device {input.device}, got {target.device}"
        )
    if target.shape == input.shape:  # class probabilities, as PyTorch decides
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                f"[{op}] expected a floating point target for class probabilities (a target of "
                f"input's shape {_shape(input)}), got {target.dtype}"
            )
        if ignore_index >= 0:
            raise RuntimeError(f"[{op}] ignore_index is not supported for floating point target")
        if label_smoothing > 1.0:
            raise RuntimeError(
                f"[{op}] label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        logp = log_softmax(input, class_dim)
        if label_smoothing > 0.0:
            target = target * (1.0 - label_smoothing) + label_smoothing / n
        prod = logp * target
        if weight is not None:
            prod = prod * weight.view(_class_shape(input, class_dim, n))
        if reduction == "none":
            return -prod.sum(class_dim)
        total = -prod.sum()
        if reduction == "sum":
            return total
        return total / (input.numel() // n if n else 0)  # 0/0 is NaN, as in PyTorch
    if label_smoothing > 1.0:
        raise RuntimeError(
            f"[{op}] label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )
    target = _index_target(op, target, input)
    if _fused_fits(input, weight):
        return _fused_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)
    logp = log_softmax(input, class_dim)
    return _nll_indices(op, logp, target, weight, ignore_index, reduction, label_smoothing)


def _fused_fits(input: Tensor, weight: Tensor | None) -> bool:
    """Whether the fused kernel takes these (Note [Fused cross-entropy] in
    csrc/ops/cross_entropy.cpp): float16/bfloat16/float32/float64 logits and a class weight of
    their dtype and device that needs no gradient (PyTorch gives it none either way)."""
    if input.dtype not in (float16, bfloat16, float32, float64):
        return False
    return weight is None or (
        weight.dtype == input.dtype and weight.device == input.device and not weight.requires_grad
    )


def _fused_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None,
    ignore_index: int,
    reduction: str,
    label_smoothing: float,
) -> Tensor:
    """cross_entropy of class indices through the fused op: each row's loss, then the reduction
    ('mean' divides by the summed weights of the targets not ignored, NaN when all are).
    A negative label_smoothing is no smoothing, as in PyTorch."""
    label_smoothing = max(float(label_smoothing), 0.0)
    if input.ndim > 2:  # (N, C, d1, ...): the classes moved last, a row per position
        rows = input.movedim(1, -1).reshape(-1, input.shape[1])
        loss = _nn._cross_entropy(rows, target.reshape(-1), weight, ignore_index, label_smoothing)
        loss = loss.view(target.shape)
    else:
        loss = _nn._cross_entropy(input, target, weight, ignore_index, label_smoothing)
    if reduction == "none":
        return loss
    total = loss.sum()
    if reduction == "sum":
        return total
    if weight is None:
        return total / (target != ignore_index).sum()
    ignored = target == ignore_index
    return total / where(ignored, 0.0, weight.take(target.masked_fill(ignored, 0))).sum()


class _BinaryCrossEntropy(Function):
    """The elementwise binary cross entropy with PyTorch's gradients, which a composition of
    clamped logs cannot give where input is 0 or 1: ``(x - t) / max(x (1 - x), 1e-12)`` for the
    input and ``-logit(x)`` for the target."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, target: Tensor, weight: Tensor | None) -> Tensor:
        ctx.save_for_backward(input, target, weight)
        loss = (target - 1.0) * log1p(-input).clamp_min(-100.0) - target * log(input).clamp_min(
            -100.0
        )
        return loss if weight is None else loss * weight

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        input, target, weight = ctx.saved_tensors
        if weight is not None:
            grad = grad * weight
        grad_input = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_input = grad * (input - target) / ((1.0 - input) * input).clamp_min(1e-12)
        if ctx.needs_input_grad[1]:
            grad_target = grad * (log1p(-input) - log(input))
        return grad_input, grad_target, None


@autocast_policy
def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The binary cross entropy between probabilities ``input`` and targets in [0, 1].

    ``loss = -weight * (t * log(x) + (1 - t) * log(1 - x))``, each log clamped at -100 as in
    PyTorch (so an input of exactly 0 or 1 gives a finite loss), with PyTorch's gradients
    (``(x - t) / max(x (1 - x), 1e-12)`` for the input). On the CPU, inputs outside [0, 1]
    raise a RuntimeError; on CUDA (where that check would wait for the device) they give NaN.

    Args:
        input (Tensor): probabilities in [0, 1], any shape.
        target (Tensor): targets in [0, 1], input's shape and dtype.
        weight (Tensor, optional): weights that broadcast to input's shape. Default: None.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or input's shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> p = genesis.tensor([0.9, 0.2, 0.5])
        >>> F.binary_cross_entropy(p, genesis.tensor([1.0, 0.0, 1.0]), reduction="none")
        tensor([0.1054, 0.2231, 0.6931])
    """
    op = "binary_cross_entropy"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    _check_tensor(op, "weight", weight, optional=True)
    if target.shape != input.shape:
        raise ValueError(
            f"[{op}] expected a target of input's shape {_shape(input)}, got {_shape(target)}"
        )
    if target.dtype != input.dtype:
        raise RuntimeError(
            f"[{op}] expected a target of input's dtype {input.dtype}, got {target.dtype}"
        )
    if weight is not None and _broadcast_shape(
        op, weight=_shape(weight), target=_shape(target)
    ) != (_shape(target)):
        raise RuntimeError(
            f"[{op}] weight {_shape(weight)} does not broadcast to the target's shape "
            f"{_shape(target)}"
        )
    if input.device.type == "cpu" and input.numel():  # on CUDA this would wait for the device
        for name, t in (("input", input), ("target", target)):
            t = t.detach()
            if t.amin().item() < 0 or t.amax().item() > 1:
                raise RuntimeError(f"[{op}] all elements of {name} should be between 0 and 1")
    return _reduce(_BinaryCrossEntropy.apply(input, target, weight), reduction)


@autocast_policy
def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """The binary cross entropy between ``sigmoid(input)`` and targets, in a stable form.

    ``loss = weight * ((1 - t) * x + (1 + (pos_weight - 1) * t) * softplus(-x))``, which is
    ``-weight * (pos_weight * t * log(sigmoid(x)) + (1 - t) * log(1 - sigmoid(x)))`` without
    overflow for large ``|x|`` (PyTorch's form; ``softplus`` is one compiled pass).

    Args:
        input (Tensor): logits, any shape.
        target (Tensor): targets in [0, 1], input's shape.
        weight (Tensor, optional): weights that broadcast to input's shape. Default: None.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.
        pos_weight (Tensor, optional): weights of the positive targets that broadcast to
            input's shape (along the class dim: (C,) for (N, C) input). Default: None.

    Returns:
        Tensor: the loss, 0-d, or input's shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([2.0, -1.0, 0.0])
        >>> F.binary_cross_entropy_with_logits(x, genesis.tensor([1.0, 0.0, 1.0]), reduction="none")
        tensor([0.1269, 0.3133, 0.6931])
    """
    op = "binary_cross_entropy_with_logits"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    _check_tensor(op, "weight", weight, optional=True)
    _check_tensor(op, "pos_weight", pos_weight, optional=True)
    if target.shape != input.shape:
        raise ValueError(
            f"[{op}] target size {_shape(target)} must be the same as input size {_shape(input)}"
        )
    for name, w in (("weight", weight), ("pos_weight", pos_weight)):
        if w is not None and _broadcast_shape(op, **{name: _shape(w), "input": _shape(input)}) != (
            _shape(input)
        ):
            raise RuntimeError(
                f"[{op}] {name} {_shape(w)} does not broadcast to the input's shape {_shape(input)}"
            )
    sp = softplus(-input)  # -log(sigmoid(x))
    if pos_weight is not None:
        sp = sp * ((pos_weight - 1.0) * target + 1.0)
    loss = (1.0 - target) * input + sp
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


# ----------------------------------------------------------------------------------------------
# Regression
# ----------------------------------------------------------------------------------------------


def _pointwise_pair(op: str, input: Any, target: Any) -> None:
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    _warn_size(input, target)
    _broadcast_shape(op, input=_shape(input), target=_shape(target))


def _weighted(op: str, loss: Tensor, input: Tensor, weight: Any, reduction: str) -> Tensor:
    """PyTorch's per-element weights of mse_loss and l1_loss: 'mean' divides by their sum."""
    if weight is None:
        return _reduce(loss, reduction)
    _check_weight_like_input(op, weight, input)
    loss = loss * weight
    return loss.sum() / weight.sum() if reduction == "mean" else _reduce(loss, reduction)


def _check_weight_like_input(op: str, weight: Any, input: Tensor) -> None:
    _check_tensor(op, "weight", weight)
    if weight.shape != input.shape:
        raise ValueError(
            f"[{op}] weights and input must have the same size: weight {_shape(weight)}, input "
            f"{_shape(input)}"
        )


@autocast_policy
def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """The squared difference of input and target, elementwise, then reduced.

    Input and target broadcast (with PyTorch's warning when their shapes differ). With
    ``weight`` (input's shape) each squared error is multiplied by its weight and 'mean' divides
    the sum by the sum of the weights, as in PyTorch.

    Args:
        input (Tensor): predictions.
        target (Tensor): targets, broadcastable to input's shape.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.
        weight (Tensor, optional): per-element weights, input's shape. Default: None.

    Returns:
        Tensor: the loss, 0-d, or the broadcast shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.mse_loss(genesis.tensor([1.0, 2.0, 4.0]), genesis.tensor([1.0, 0.0, 1.0]))
        tensor(4.3333)
    """
    op = "mse_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _pointwise_pair(op, input, target)
    return _weighted(op, (input - target).square(), input, weight, reduction)


@autocast_policy
def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """The absolute difference of input and target, elementwise, then reduced.

    Input and target broadcast (with PyTorch's warning when their shapes differ). With
    ``weight`` (input's shape) each error is multiplied by its weight and 'mean' divides the
    sum by the sum of the weights, as in PyTorch. The gradient at ``input == target`` is 0.

    Args:
        input (Tensor): predictions.
        target (Tensor): targets, broadcastable to input's shape.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.
        weight (Tensor, optional): per-element weights, input's shape. Default: None.

    Returns:
        Tensor: the loss, 0-d, or the broadcast shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.l1_loss(genesis.tensor([1.0, 2.0, 4.0]), genesis.tensor([1.0, 0.0, 1.0]))
        tensor(1.6667)
    """
    op = "l1_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _pointwise_pair(op, input, target)
    return _weighted(op, (input - target).abs(), input, weight, reduction)


def _huber(input: Tensor, target: Tensor, delta: float) -> Tensor:
    """``0.5 d^2`` where ``|d| < delta``, ``delta (|d| - delta / 2)`` elsewhere, as
    ``h (|d| - h / 2)`` with ``h = min(|d|, delta)``."""
    diff = (input - target).abs()
    h = diff.clamp_max(delta)
    return h * (diff - 0.5 * h)


@autocast_policy
def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """The smooth L1 loss: squared below ``beta``, absolute above, elementwise, then reduced.

    ``loss = 0.5 d^2 / beta`` where ``|d| < beta`` and ``|d| - beta / 2`` elsewhere, with
    ``d = input - target``; ``beta = 0`` is ``l1_loss``.

    Args:
        input (Tensor): predictions.
        target (Tensor): targets, broadcastable to input's shape.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.
        beta (float, optional): the non-negative threshold between the two parts. Default: 1.0.

    Returns:
        Tensor: the loss, 0-d, or the broadcast shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([0.5, 2.0, -3.0])
        >>> F.smooth_l1_loss(x, genesis.zeros(3), reduction="none")
        tensor([0.1250, 1.5000, 2.5000])
    """
    op = "smooth_l1_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _pointwise_pair(op, input, target)
    if beta < 0:
        raise RuntimeError(f"[{op}] smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return _reduce((input - target).abs(), reduction)
    diff = (input - target).abs()
    h = diff.clamp_max(beta)
    return _reduce((h / beta) * (diff - 0.5 * h), reduction)


@autocast_policy
def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """The Huber loss: squared below ``delta``, delta-scaled absolute above, then reduced.

    ``loss = 0.5 d^2`` where ``|d| < delta`` and ``delta (|d| - delta / 2)`` elsewhere, with
    ``d = input - target``. With ``weight`` (input's shape) each element is multiplied by its
    weight and 'mean' is the plain mean of the products, as in PyTorch.

    Args:
        input (Tensor): predictions.
        target (Tensor): targets, broadcastable to input's shape.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.
        delta (float, optional): the positive threshold between the two parts. Default: 1.0.
        weight (Tensor, optional): per-element weights, input's shape. Default: None.

    Returns:
        Tensor: the loss, 0-d, or the broadcast shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([0.5, 2.0, -3.0])
        >>> F.huber_loss(x, genesis.zeros(3), reduction="none", delta=2.0)
        tensor([0.1250, 2.0000, 4.0000])
    """
    op = "huber_loss"
    reduction = _reduction(op, None, None, reduction)
    _pointwise_pair(op, input, target)
    if delta <= 0:
        raise RuntimeError(f"[{op}] huber_loss does not support non-positive values for delta.")
    loss = _huber(input, target, delta)
    if weight is not None:
        _check_weight_like_input(op, weight, input)
        loss = loss * weight
    return _reduce(loss, reduction)


@autocast_policy
def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """The Kullback-Leibler divergence of the target from the input distribution.

    ``input`` holds log-probabilities; ``target`` probabilities (log-probabilities with
    ``log_target``). Elementwise ``loss = t * (log(t) - x)`` (0 where ``t == 0``), or
    ``exp(t) * (t - x)`` with ``log_target``. 'batchmean' divides the sum by the batch size
    (input's first dim), which is the KL divergence of the math; 'mean' divides by the number
    of elements and, as in PyTorch, warns about it.

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities (or log-probabilities), broadcastable with input.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'batchmean' | 'sum' | 'mean'. Default: 'mean'.
        log_target (bool, optional): whether target holds log-probabilities. Default: False.

    Returns:
        Tensor: the loss, 0-d, or the broadcast shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> logq = genesis.tensor([[0.5, 0.5], [0.25, 0.75]]).log()
        >>> F.kl_div(logq, genesis.tensor([[0.5, 0.5], [0.5, 0.5]]), reduction="batchmean")
        tensor(0.0719)
    """
    op = "kl_div"
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    if size_average is not None or reduce is not None:
        red = _legacy_get_string(size_average, reduce)
    else:
        red = _reduction(op, None, None, reduction, ("none", "batchmean", "sum", "mean"))
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
                "major release.",
                UserWarning,
                stacklevel=2,
            )
    _broadcast_shape(op, input=_shape(input), target=_shape(target))
    if log_target:
        loss = exp(target) * (target - input)
    else:
        loss = where(target == 0, 0.0, target * log(target)) - target * input  # xlogy(t, t)
    if red == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.ndim else total
    return _reduce(loss, red)


@autocast_policy
def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: bool | None = None,
    eps: float = 1e-8,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The negative log-likelihood of targets drawn from Poisson distributions of mean input.

    ``loss = exp(x) - t * x`` with ``log_input`` (input is the log of the rate), else
    ``x - t * log(x + eps)``. ``full`` adds Stirling's approximation of ``log(t!)``,
    ``t log(t) - t + log(2 pi t) / 2``, where ``t > 1``.

    Args:
        input (Tensor): the expectations (or their logs).
        target (Tensor): the observed counts, broadcastable with input.
        log_input (bool, optional): whether input is the log of the rate. Default: True.
        full (bool, optional): add the Stirling term. Default: False.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        eps (float, optional): added to input before the log when not ``log_input``.
            Default: 1e-8.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or the broadcast shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.poisson_nll_loss(genesis.tensor([0.0, 1.0]), genesis.tensor([1.0, 3.0]),
        ...                    reduction="none")
        tensor([ 1.0000, -0.2817])
    """
    op = "poisson_nll_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    _broadcast_shape(op, input=_shape(input), target=_shape(target))
    loss = exp(input) - target * input if log_input else input - target * log(input + eps)
    if full:
        stirling = target * log(target) - target + 0.5 * log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """The negative log-likelihood of targets under Gaussians of mean input and variance var.

    ``loss = (log(v) + (input - target)^2 / v) / 2`` with ``v = max(var, eps)`` (the clamp is
    not differentiated, as in PyTorch), plus ``log(2 pi) / 2`` with ``full``. ``var`` is input's
    shape, or input's shape less its last dim, or input's shape with one dim of size 1, or a
    number. A negative variance raises a ValueError (which, on CUDA, waits for the device).

    Args:
        input (Tensor): the means.
        target (Tensor): the samples, broadcastable with input.
        var (Tensor or float): the non-negative variances.
        full (bool, optional): add the constant term. Default: False.
        eps (float, optional): the least variance used. Default: 1e-6.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or the broadcast shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.gaussian_nll_loss(genesis.tensor([0.0, 1.0]), genesis.tensor([1.0, 1.0]),
        ...                     genesis.tensor([1.0, 2.0]), reduction="none")
        tensor([0.5000, 0.3466])
    """
    op = "gaussian_nll_loss"
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ValueError(f"[{op}] var has negative entry/entries")
        v: Any = max(float(var), eps)
        log_v: Any = math.log(v) if v > 0 else -math.inf
    else:
        _check_tensor(op, "var", var)
        assert isinstance(var, Tensor)  # _check_tensor raised for a bool
        if var.shape != input.shape:
            if input.shape[:-1] == var.shape:
                var = var.unsqueeze(-1)
            elif not (
                input.ndim == var.ndim
                and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1
            ):
                raise ValueError(
                    f"[{op}] var is of incorrect size: {_shape(var)} for input {_shape(input)}"
                )
        if var.numel() and bool((var < 0).any()):
            raise ValueError(f"[{op}] var has negative entry/entries")
        v = var.clone()
        with no_grad():  # clamped without a gradient of its own, as in PyTorch
            v.clamp_(min=eps)
        log_v = log(v)
    reduction = _reduction(op, None, None, reduction)
    loss = 0.5 * (log_v + (input - target).square() / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# ----------------------------------------------------------------------------------------------
# Margins and embeddings
# ----------------------------------------------------------------------------------------------


@autocast_policy
def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """A loss on the cosine similarity of two inputs: pulled up for target 1, down for -1.

    ``cos = <x1, x2> / sqrt((|x1|^2 + 1e-12) (|x2|^2 + 1e-12))`` over the last dim; the loss is
    ``1 - cos`` where the target is 1, ``max(0, cos - margin)`` where it is -1, and 0 for any
    other target value, as in PyTorch.

    Args:
        input1 (Tensor): (N, D), or (D,) with a 0-d target.
        input2 (Tensor): input1's shape.
        target (Tensor): (N,) or 0-d, of 1 and -1.
        margin (float, optional): in [-1, 1]; 0 to 0.5 is suggested. Default: 0.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or target's shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> a = genesis.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> b = genesis.tensor([[0.0, 1.0], [1.0, 1.0]])
        >>> F.cosine_embedding_loss(a, b, genesis.tensor([1.0, -1.0]), reduction="none")
        tensor([1., 1.])
    """
    op = "cosine_embedding_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input1", input1)
    _check_float(op, "input2", input2)
    _check_tensor(op, "target", target)
    if target.ndim > 1:
        raise RuntimeError(
            f"[{op}] 0D or 1D target tensor expected, multi-target not supported (got target "
            f"{_shape(target)})"
        )
    want = target.ndim + 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(
            f"[{op}] {target.ndim}D target tensor expects {want}D input tensors, but found inputs "
            f"with sizes {_shape(input1)} and {_shape(input2)}."
        )
    prod = (input1 * input2).sum(-1)
    mag1 = input1.square().sum(-1) + 1e-12
    mag2 = input2.square().sum(-1) + 1e-12
    cos = prod / (mag1 * mag2).sqrt()
    loss = where(target == 1, 1.0 - cos, where(target == -1, (cos - margin).clamp_min(0.0), 0.0))
    return _reduce(loss, reduction)


@autocast_policy
def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """A loss that ranks input1 above input2 where the target is 1, below where it is -1.

    ``loss = max(0, -target * (input1 - input2) + margin)``, elementwise.

    Args:
        input1 (Tensor): the first scores.
        input2 (Tensor): the second scores, with as many dims as input1.
        target (Tensor): 1 or -1, with as many dims as input1.
        margin (float, optional): the margin. Default: 0.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or the broadcast shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.margin_ranking_loss(genesis.tensor([1.0, 0.0]), genesis.tensor([0.5, 0.5]),
        ...                       genesis.tensor([1.0, 1.0]), margin=1.0, reduction="none")
        tensor([0.5000, 1.5000])
    """
    op = "margin_ranking_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input1", input1)
    _check_tensor(op, "input2", input2)
    _check_tensor(op, "target", target)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(
            f"[{op}] all input tensors should have the same number of dimensions, but got "
            f"input1 {_shape(input1)}, input2 {_shape(input2)}, target {_shape(target)}"
        )
    _broadcast_shape(op, input1=_shape(input1), input2=_shape(input2), target=_shape(target))
    loss = ((input2 - input1) * target + margin).clamp_min(0.0)
    return _reduce(loss, reduction)


@autocast_policy
def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The triplet loss: the anchor nearer the positive than the negative by a margin.

    ``loss = max(0, margin + d(a, p) - d(a, n))`` with ``d(x, y) = ||x - y + eps||_p`` over the
    last dim (PyTorch's ``pairwise_distance``); with ``swap``, ``d(a, n)`` is replaced by
    ``min(d(a, n), d(p, n))``.

    Args:
        anchor (Tensor): (N, D) or (D,).
        positive (Tensor): as many dims as anchor, broadcastable.
        negative (Tensor): as many dims as anchor, broadcastable.
        margin (float, optional): a positive margin. Default: 1.0.
        p (float, optional): the norm's order. Default: 2.
        eps (float, optional): added to the differences, for a finite gradient. Default: 1e-6.
        swap (bool, optional): use the distance swap. Default: False.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or (N,) for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> a = genesis.tensor([[0.0, 0.0], [1.0, 1.0]])
        >>> F.triplet_margin_loss(a, a + 0.5, a + 1.0, reduction="none", eps=0.0)
        tensor([0.2929, 0.2929])
    """
    op = "triplet_margin_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    for name, t in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        _check_tensor(op, name, t)
    if margin <= 0:
        raise ValueError(f"[{op}] margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            f"[{op}] the anchor, positive, and negative tensors are expected to have the same "
            f"number of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, "
            f"and negative {negative.ndim}D inputs"
        )

    def distance(x1: Tensor, x2: Tensor) -> Tensor:
        return norm(x1 - x2 + eps, p, -1)

    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = minimum(d_neg, distance(positive, negative))
    return _reduce((d_pos - d_neg + margin).clamp_min(0.0), reduction)


@autocast_policy
def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The hinge embedding loss of distances ``input`` and targets 1 (similar) or -1.

    ``loss = x`` where the target is 1 and ``max(0, margin - x)`` where it is -1; any other
    target value gets the sum of both, as in PyTorch.

    Args:
        input (Tensor): distances, any shape.
        target (Tensor): 1 or -1, broadcastable with input.
        margin (float, optional): the margin. Default: 1.0.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or the broadcast shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.hinge_embedding_loss(genesis.tensor([0.3, 0.3, 2.0]),
        ...                        genesis.tensor([1.0, -1.0, -1.0]), reduction="none")
        tensor([0.3000, 0.7000, 0.0000])
    """
    op = "hinge_embedding_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    _broadcast_shape(op, input=_shape(input), target=_shape(target))
    loss = where(target != 1, (margin - input).clamp_min(0.0), 0.0) + where(
        target != -1, input, 0.0
    )
    return _reduce(loss, reduction)


@autocast_policy
def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The two-class logistic loss ``log(1 + exp(-target * input))``, elementwise.

    Computed as ``softplus(-target * input)`` (one compiled pass), which stays finite where
    PyTorch's ``log1p(exp(...))`` overflows to inf (``target * input`` below about -88 in
    float32); elsewhere the two agree.

    Args:
        input (Tensor): scores, any shape.
        target (Tensor): 1 or -1, broadcastable to input's shape.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or input's shape for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.soft_margin_loss(genesis.tensor([2.0, 0.0]), genesis.tensor([1.0, -1.0]),
        ...                    reduction="none")
        tensor([0.1269, 0.6931])
    """
    op = "soft_margin_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    if _broadcast_shape(op, input=_shape(input), target=_shape(target)) != _shape(input):
        raise RuntimeError(
            f"[{op}] target {_shape(target)} does not broadcast to the input's shape "
            f"{_shape(input)}"
        )
    loss = softplus(-(input * target))
    # PyTorch writes the elementwise loss into a tensor of the input's dtype (a float32 target
    # does not widen a bfloat16 input's loss), then reduces that.
    if loss.dtype != input.dtype:
        loss = loss.to(input.dtype)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-label one-versus-all logistic loss, averaged over the classes (last dim).

    ``loss = mean_c weight[c] * (t[c] * softplus(-x[c]) + (1 - t[c]) * softplus(x[c]))``, i.e.
    minus the log-likelihood of the targets under ``sigmoid(x)``.

    Args:
        input (Tensor): (N, C) scores (any shape with the classes last).
        target (Tensor): input's shape, 0 or 1 (or probabilities).
        weight (Tensor, optional): per-class weights that broadcast to input. Default: None.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or input's shape without its last dim for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> F.multilabel_soft_margin_loss(genesis.tensor([[2.0, -1.0]]),
        ...                               genesis.tensor([[1.0, 0.0]]), reduction="none")
        tensor([0.2201])
    """
    op = "multilabel_soft_margin_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    _check_tensor(op, "weight", weight, optional=True)
    if input.ndim == 0:
        raise IndexError(f"[{op}] expected input with a class dim (its last), got a 0-d input")
    _broadcast_shape(op, input=_shape(input), target=_shape(target))
    loss = target * softplus(-input) + (1.0 - target) * softplus(input)
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(-1) / input.shape[-1]
    return _reduce(loss, reduction)


def _margin_rows(op: str, input: Tensor, target: Tensor) -> tuple[int, int]:
    """(rows, classes) of a multi_margin / multilabel_margin input: (N, C), (C,) or 0-d."""
    if not (
        (input.ndim == 2 and input.shape[1] != 0)
        or (input.ndim == 1 and input.shape[0] != 0)
        or input.ndim == 0
    ):
        raise RuntimeError(
            f"[{op}] expected non-empty vector or matrix with optional 0-dim batch size, but "
            f"got: {_shape(input)}"
        )
    if target.dtype != int64:
        raise RuntimeError(f"[{op}] expected an int64 target, got {target.dtype}")
    rows = input.shape[0] if input.ndim == 2 else 1
    classes = input.shape[-1] if input.ndim else 1
    return rows, classes


@autocast_policy
def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-class hinge loss of scores and class-index targets.

    For a sample with target y: ``loss = sum_{i != y} w[y] * max(0, margin - x[y] + x[i])^p / C``.
    An out-of-range target raises IndexError (on CUDA, at the next synchronization).

    Args:
        input (Tensor): (N, C) or (C,) scores.
        target (Tensor): int64 class indices, (N,) or 0-d.
        p (int, optional): 1 or 2. Default: 1.
        margin (float, optional): the margin. Default: 1.0.
        weight (Tensor, optional): (C,) per-class weights. Default: None.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or (N,) for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> F.multi_margin_loss(x, genesis.tensor([3]))
        tensor(0.3250)
    """
    op = "multi_margin_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    _check_tensor(op, "weight", weight, optional=True)
    if p not in (1, 2):
        raise ValueError(f"[{op}] only p == 1 and p == 2 supported, got {p}")
    if weight is not None and weight.ndim != 1:
        raise ValueError(f"[{op}] weight must be one-dimensional, got {_shape(weight)}")
    rows, classes = _margin_rows(op, input, target)
    if target.ndim > 1 or target.numel() != rows:
        raise RuntimeError(
            f"[{op}] expected target of shape ({rows},) (one class index per sample) for input "
            f"{_shape(input)}, got {_shape(target)}"
        )
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(
            f"[{op}] inconsistent weight size, expected {classes} but got {_shape(weight)}"
        )
    x = input.reshape(rows, classes)
    y = target.reshape(rows)
    picked, idx = _pick(op, x, 1, y, None, classes)
    z = (margin - picked.unsqueeze(1) + x).clamp_min(0.0)
    if p == 2:
        z = z.square()
    if weight is not None:
        z = z * weight.take(idx).unsqueeze(1)
    z = where(arange(classes, device=x.device) == idx.unsqueeze(1), 0.0, z)  # i != y
    loss = z.sum(1) / classes
    if reduction == "none":
        return loss if target.ndim else loss.view(())
    return _reduce(loss, reduction)


@autocast_policy
def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-class multi-label hinge loss of scores and lists of target classes.

    Each row of ``target`` lists the sample's classes, ended by the first -1 (the rest ignored):
    ``loss = sum_{j in targets} sum_{i not in targets} max(0, 1 - (x[j] - x[i])) / C``. It
    compares every (target, class) pair, so it takes N * C * C memory. A target outside
    [-1, C) raises IndexError (on CUDA, at the next synchronization).

    Args:
        input (Tensor): (N, C) or (C,) scores.
        target (Tensor): int64, input's shape: class indices, then -1 padding.
        size_average (bool, optional): deprecated (see ``reduction``). Default: None.
        reduce (bool, optional): deprecated (see ``reduction``). Default: None.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or (N,) for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> F.multilabel_margin_loss(x, genesis.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    op = "multilabel_margin_loss"
    reduction = _reduction(op, size_average, reduce, reduction)
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    rows, classes = _margin_rows(op, input, target)
    if target.shape != input.shape:
        raise RuntimeError(
            f"[{op}] expected target of input's shape {_shape(input)}, got {_shape(target)}"
        )
    x = input.reshape(rows, classes)
    t = target.reshape(rows, classes)
    end = t == -1
    valid = end.cumsum(1) == 0  # the entries before the first -1
    picked, idx = _pick(op, x, 1, t, end, classes)  # x at each listed class: (rows, classes)
    listed = x.new_zeros((rows, classes)).scatter_add(1, idx, valid.to(x.dtype)) > 0
    pairs = (1.0 - picked.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0.0)  # [n, j, i]
    per_target = where(listed.unsqueeze(1), 0.0, pairs).sum(2)
    loss = where(valid, per_target, 0.0).sum(1) / classes
    if reduction == "none":
        return loss if input.ndim == 2 else loss.view(())
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Any = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """The triplet loss with any distance: ``max(0, margin + d(a, p) - d(a, n))``.

    Args:
        anchor (Tensor): the anchors.
        positive (Tensor): the positives, as many dims as anchor.
        negative (Tensor): the negatives, as many dims as anchor.
        distance_function (callable, optional): ``d(x, y)`` giving one distance per row.
            Default: None (``pairwise_distance``).
        margin (float, optional): a positive margin. Default: 1.0.
        swap (bool, optional): use ``min(d(a, n), d(p, n))`` for the negative distance.
            Default: False.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.

    Returns:
        Tensor: the loss, 0-d, or one value per row for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> a = genesis.tensor([[0.0, 0.0]])
        >>> F.triplet_margin_with_distance_loss(
        ...     a, a + 0.5, a + 1.0, distance_function=lambda x, y: (x - y).abs().sum(-1))
        tensor(0.)
    """
    op = "triplet_margin_with_distance_loss"
    reduction = _reduction(op, None, None, reduction)
    for name, t in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        _check_tensor(op, name, t)
    if margin <= 0:
        raise ValueError(f"[{op}] margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            f"[{op}] the anchor, positive, and negative tensors are expected to have the same "
            f"number of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, "
            f"and negative {negative.ndim}D inputs"
        )
    if distance_function is None:
        from ._distance import pairwise_distance

        distance_function = pairwise_distance
    d_pos = distance_function(anchor, positive)
    d_neg = distance_function(anchor, negative)
    if swap:
        d_neg = minimum(d_neg, distance_function(positive, negative))
    return _reduce((d_pos - d_neg + margin).clamp_min(0.0), reduction)
