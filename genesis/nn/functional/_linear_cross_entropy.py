"""linear_cross_entropy: a linear layer and cross_entropy as one call, computed in chunks of rows
so that the (rows, classes) logits never exist whole.

Note [Chunked linear cross-entropy]
A language model's head multiplies 8192 tokens by a 768 x 50304 weight: the logits are 824 MB
in bfloat16 and 1.6 GB once cross_entropy casts them to float32, and their gradient as much
again. Here the rows are taken a chunk at a time: the chunk's logits (one product, in the
input's dtype or autocast's), its rows' losses and logit gradients (the fused cross-entropy,
Note [Fused cross-entropy], which computes in float32 from 16-bit logits), and at once the
chunk's share of the input's gradient (the logit gradient times the weight) and of the weight's
and bias's (added in float32 over the chunks; on CUDA the weight's product adds itself into the
float32 sum, cuBLASLt reading and writing it with beta 1 (the first chunk's product writes it,
beta 0, so the sum needs no zeros first), `_nn._mm_accumulate`: a 16-bit
product, its cast and the addition cost the GPT-2 head 1.2 of its 5.5 ms on an H200, the
accumulating product 0.43 ms more than the plain one). Only the chunk's logits and their
gradient are alive at a time. For 'mean' and 'sum' the gradient of the loss is a scalar, so
the forward computes the gradients for 1 and the backward scales them (a second backward reuses
them); for 'none' the backward recomputes the chunks with the given per-row gradients. Under
create_graph the backward runs the reference formula (linear, then cross_entropy) with its
graph recorded, so second derivatives are the reference's.

Class probabilities, multi-dimensional weights ((C, d1, ..., in) for K-dimensional losses) and
dtypes the fused cross-entropy does not take run the reference formula directly.
"""

from __future__ import annotations

from typing import Any

from ..._C import Tensor, _amp, _nn, bfloat16, empty, float16, float32, float64, int64, where, zeros
from ...amp.autocast_mode import autocast, get_autocast_dtype, is_autocast_enabled
from ...autograd import Function, enable_grad, grad, is_grad_enabled
from ._linear import linear
from ._loss import cross_entropy

__all__ = ["linear_cross_entropy"]

_OP = "linear_cross_entropy"
_FUSED = (float16, bfloat16, float32, float64)
# Logit items a chunk holds at most when genesis picks the chunks: 128M (256 MB of bfloat16
# logits, as much again for their gradient). tools/lce_chunk_probe.py on an H100 (GPT-2's head,
# forward + backward): 64M a chunk 4.99 ms, 128M 4.39 ms for 253 MiB more peak memory, 256M 4.12
# ms for 845 MiB more; the larger chunks' products keep the GPU busier. The rows split into equal
# chunks: GPT-2's 8192 tokens by 50304 classes make 4 of 2048 rows, never a last sliver whose
# weight-gradient product reads and writes the whole float32 sum for little work.
_CHUNK_ITEMS = 1 << 27


def _chunk_rows(options: Any, rows: int, in_features: int, classes: int) -> int:
    """Rows per chunk: options' batch_chunk_size or chunking_method (PyTorch's rules), else
    genesis's pick (_CHUNK_ITEMS logits a chunk)."""
    size = None if options is None else options.batch_chunk_size
    method = "auto" if options is None else options.chunking_method
    if method == "auto" and size is not None:
        method = None
    if method == "auto":  # equal chunks of at most _CHUNK_ITEMS logits: no small last chunk
        most = max(1, min(rows, _CHUNK_ITEMS // max(classes, 1)))
        count = max(1, -(-rows // most))
        return max(1, -(-rows // count))
    if method is not None:  # "aspect_ratio" or "aspect_ratio:N"
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        target = -(-rows // -(-classes // max(in_features, 1)))
        picked = max(1, min((1 << max(target - 1, 0).bit_length()) // factor, rows))
        if size is not None and size != picked:
            raise ValueError(
                f"[{_OP}] batch_chunk_size (={size}) and chunking_method ('{method}') give "
                f"different chunk sizes ({size} vs {picked}); pass only one."
            )
        return picked
    return max(1, min(size if size is not None else rows, rows))


def _compute_dtype(input: Tensor):
    """The products' dtype: autocast's lower precision inside a region on input's device type
    (F.linear's policy), else the input's."""
    kind = input.device.type
    if _amp._active() and is_autocast_enabled(kind):
        return get_autocast_dtype(kind)
    return input.dtype


def _accumulator(x: Tensor):
    """The dtype the chunks' losses and the weight's and bias's gradients add up in."""
    return float64 if x.dtype == float64 else float32


def _chunks(
    x: Tensor,
    w: Tensor,
    b: Tensor | None,
    target: Tensor,
    class_weight: Tensor | None,
    ignore_index: int,
    smoothing: float,
    rows: int,
    row_grad: Tensor | None,
    wants: tuple[bool, bool, bool],
) -> tuple[Tensor, Tensor | None, Tensor | None, Tensor | None]:
    """Each row's loss (in the accumulator dtype) and, when row_grad (a 0-d or (N,) gradient of
    the rows' losses) is given, the gradients of x, w and b that `wants` asks for: x's in x's
    dtype, w's and b's in the accumulator dtype. x, w, b are in the products' dtype."""
    n = x.shape[0]
    acc = _accumulator(x)
    losses = zeros(n, dtype=acc, device=x.device)
    gx = (
        zeros(x.shape, dtype=x.dtype, device=x.device)
        if row_grad is not None and wants[0]
        else None
    )
    want_gw = row_grad is not None and wants[1]
    gw: Tensor | None = None  # made by the first chunk's product
    gb = None
    if row_grad is not None and wants[2] and b is not None:
        gb = zeros(b.shape, dtype=acc, device=b.device)
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        xs, ts = x[start:stop], target[start:stop]
        logits = linear(xs, w, b)
        if row_grad is None:
            losses[start:stop] = _nn._cross_entropy(
                logits, ts, class_weight, ignore_index, smoothing
            )
            continue
        logits.requires_grad_()
        with enable_grad():
            loss = _nn._cross_entropy(logits, ts, class_weight, ignore_index, smoothing)
            g = row_grad if row_grad.ndim == 0 else row_grad[start:stop]
            (dlogits,) = grad(loss, logits, g.to(loss.dtype).expand(loss.shape))
        losses[start:stop] = loss.detach()
        if gx is not None:
            gx[start:stop] = dlogits @ w
        # The weight's share, summed in float32 by the product itself (beta 1) where cuBLASLt
        # can, not rounded to the products' dtype and cast and added in passes of their own; the
        # first chunk's product writes the sum (beta 0), which needs no zeros first.
        if want_gw:
            if gw is None:
                gw = empty(w.shape, dtype=acc, device=w.device)
                if not _nn._mm_accumulate(gw, dlogits.t(), xs, accumulate=False):
                    gw = (dlogits.t() @ xs).to(acc)
            elif not _nn._mm_accumulate(gw, dlogits.t(), xs):
                gw += (dlogits.t() @ xs).to(acc)
        if gb is not None:
            gb += dlogits.sum(0, dtype=acc)
    if want_gw and gw is None:  # no rows
        gw = zeros(w.shape, dtype=acc, device=w.device)
    return losses, gx, gw, gb


class _ChunkedLinearCrossEntropy(Function):
    """The chunked forward and backward of Note [Chunked linear cross-entropy]; x (N, in), w
    (C, in), b (C,) or None, target (N,) int64, in the products' dtype already."""

    @staticmethod
    def forward(
        ctx: Any,
        x: Tensor,
        w: Tensor,
        b: Tensor | None,
        target: Tensor,
        class_weight: Tensor | None,
        ignore_index: int,
        smoothing: float,
        reduction: str,
        rows: int,
        divisor: Tensor | None,
    ) -> Tensor:
        wants = (ctx.needs_input_grad[0], ctx.needs_input_grad[1], ctx.needs_input_grad[2])
        ctx.args = (target, class_weight, ignore_index, smoothing, rows, wants, reduction, divisor)
        ctx.save_for_backward(x, w, b)
        ctx.grads = None
        # Scalar reductions: the gradients for a loss gradient of 1 on every row (exact in any
        # dtype), scaled in float32 by the backward (1 / divisor for 'mean').
        ones = x.new_ones((), dtype=_accumulator(x)) if reduction != "none" and any(wants) else None
        losses, *grads = _chunks(
            x, w, b, target, class_weight, ignore_index, smoothing, rows, ones, wants
        )
        if ones is not None:
            ctx.grads = grads
        if reduction == "none":
            return losses
        total = losses.sum()
        return total if divisor is None else total / divisor

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Tensor | None, ...]:
        x, w, b = ctx.saved_tensors
        target, class_weight, ignore_index, smoothing, rows, wants, reduction, divisor = ctx.args
        if is_grad_enabled():  # create_graph: the reference formula, recorded
            loss = _reference_rows(x, w, b, target, class_weight, ignore_index, smoothing)
            if reduction != "none":
                loss = loss.sum() if divisor is None else loss.sum() / divisor
            inputs = [t for t, want in zip((x, w, b), wants) if want and t is not None]
            found = iter(grad(loss, inputs, g, create_graph=True))
            return (
                *(
                    next(found) if want and t is not None else None
                    for t, want in zip((x, w, b), wants)
                ),
                *(None,) * 7,
            )
        if ctx.grads is None:  # 'none': the chunks again, with the rows' gradients
            _, *grads = _chunks(
                x, w, b, target, class_weight, ignore_index, smoothing, rows, g, wants
            )
        else:
            acc = _accumulator(x)
            factor = g.to(acc) if divisor is None else g.to(acc) / divisor
            grads = [None if t is None else t.to(acc) * factor for t in ctx.grads]
        gx, gw, gb = grads
        return (
            None if gx is None else gx.to(x.dtype),
            None if gw is None else gw.to(w.dtype),
            None if gb is None or b is None else gb.to(b.dtype),
            *(None,) * 7,
        )


def _reference_rows(
    x: Tensor,
    w: Tensor,
    b: Tensor | None,
    target: Tensor,
    class_weight: Tensor | None,
    ignore_index: int,
    smoothing: float,
) -> Tensor:
    logits = linear(x, w, b)
    return cross_entropy(
        logits,
        target,
        class_weight,
        ignore_index=ignore_index,
        reduction="none",
        label_smoothing=smoothing,
    ).to(_accumulator(x))


def _mean_divisor(target: Tensor, class_weight: Tensor | None, ignore_index: int, acc) -> Tensor:
    """'mean''s divisor, as cross_entropy's: the summed weights of the targets not ignored
    (their count without weights), in the accumulator dtype; 0 gives NaN, as in PyTorch."""
    ignored = target == ignore_index
    if class_weight is None:
        return ignored.logical_not().sum().to(acc)
    picked = class_weight.take(target.masked_fill(ignored, 0)).to(acc)
    return where(ignored, 0.0, picked).sum()


def linear_cross_entropy(
    input: Tensor,
    linear_weight: Tensor,
    target: Tensor,
    *,
    linear_bias: Tensor | None = None,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options: Any = None,
) -> Tensor:
    """The cross entropy of ``linear(input, linear_weight, linear_bias)`` against ``target``,
    without the logits ever existing whole (Note [Chunked linear cross-entropy]).

    PyTorch's ``torch.nn.functional.linear_cross_entropy``: equal to
    ``cross_entropy(linear(input, linear_weight, linear_bias), target, weight=weight,
    reduction=reduction, ignore_index=ignore_index, label_smoothing=label_smoothing)``. Unlike
    PyTorch, which chunks only when ``options`` is given, genesis chunks class-index targets
    whenever the weight is (C, in_features) and the dtypes are floating and alike (chunks of
    about 128M logits, or as ``options`` says); the rest runs that formula. Under autocast the
    products run in its lower precision and the loss is float32, as the formula's would be.

    Args:
        input (Tensor): (N, in_features) or (in_features,) samples.
        linear_weight (Tensor): (C, in_features), or (C, d1, ..., dK, in_features) for a
            K-dimensional loss (with a (N, d1, ..., dK) target).
        target (Tensor): int64 class indices, (N,) or (); or class probabilities.
        linear_bias (Tensor, optional): (C,) (or (C, d1, ..., dK)). Default: ``None``.
        weight (Tensor, optional): (C,) per-class weights. Default: ``None``.
        reduction (str, optional): 'none' | 'mean' | 'sum'. Default: 'mean'.
        ignore_index (int, optional): a class index that adds nothing to the loss nor to the
            'mean' divisor; ``None`` is -100 for class indices. Default: ``None``.
        label_smoothing (float, optional): in [0, 1]. Default: 0.0.
        options (LinearCrossEntropyOptions, optional): the chunk size (``batch_chunk_size`` or
            ``chunking_method``); its precision fields are accepted and do not change genesis's
            arithmetic (weight and bias gradients add up in float32). Default: ``None``.

    Returns:
        Tensor: the loss, 0-d, or per sample for 'none'.

    Example::

        >>> import genesis.nn.functional as F
        >>> x, w = genesis.ones(2, 3), genesis.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
        >>> F.linear_cross_entropy(x, w, genesis.tensor([0, 1]), reduction="none")
        tensor([0.3133, 1.3133])
    """
    for name, t in (("input", input), ("linear_weight", linear_weight), ("target", target)):
        if not isinstance(t, Tensor):
            raise TypeError(f"[{_OP}] {name} must be a genesis.Tensor, got {type(t).__name__}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"[{_OP}] {reduction} is not a valid value for reduction")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(
            f"[{_OP}] label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )
    if linear_weight.ndim < 2:
        raise RuntimeError(
            f"[{_OP}] expected linear_weight with 2 or more dimensions (C, ..., in_features), "
            f"got {linear_weight.ndim}"
        )
    in_features, classes = linear_weight.shape[-1], linear_weight.shape[0]
    if input.ndim not in (1, 2) or input.shape[-1] != in_features:
        raise RuntimeError(
            f"[{_OP}] expected input of shape (N, {in_features}) or ({in_features},), got "
            f"{list(input.shape)}"
        )
    probabilities = target.dtype.is_floating_point
    index = -100 if ignore_index is None else ignore_index
    if (
        probabilities
        or linear_weight.ndim > 2
        or not _chunked_fits(input, linear_weight, linear_bias, weight, target)
    ):
        return _reference(
            input, linear_weight, target, linear_bias, weight, reduction, index, label_smoothing
        )
    dtype = _compute_dtype(input)
    x = input if input.ndim == 2 else input.unsqueeze(0)
    t = target.reshape(-1)
    if t.shape[0] != x.shape[0]:
        raise ValueError(
            f"[{_OP}] expected target of {x.shape[0]} samples (input's), got {list(target.shape)}"
        )
    rows = _chunk_rows(options, x.shape[0], in_features, classes)
    divisor = _mean_divisor(t, weight, index, _accumulator(input)) if reduction == "mean" else None
    with autocast(input.device.type, enabled=False):
        loss = _ChunkedLinearCrossEntropy.apply(
            x.to(dtype),
            linear_weight.to(dtype),
            None if linear_bias is None else linear_bias.to(dtype),
            t,
            None if weight is None else weight.to(dtype),
            index,
            max(float(label_smoothing), 0.0),
            reduction,
            rows,
            divisor,
        )
    if reduction == "none" and input.ndim == 1:
        loss = loss.reshape(())
    out_dtype = float32 if dtype != input.dtype else input.dtype
    return loss.to(out_dtype)


def _chunked_fits(
    input: Tensor, w: Tensor, b: Tensor | None, class_weight: Tensor | None, target: Tensor
) -> bool:
    """Whether the chunked path takes these: floating tensors of one dtype on one device, a (C,)
    bias, a class weight that needs no gradient, int64 class indices."""
    if input.dtype not in _FUSED or w.dtype != input.dtype or target.dtype != int64:
        return False
    for t in (w, b, class_weight, target):
        if t is not None and t.device != input.device:
            return False
    if b is not None and (b.dtype != input.dtype or b.shape != (w.shape[0],)):
        return False
    return class_weight is None or (
        class_weight.dtype == input.dtype and not class_weight.requires_grad
    )


def _reference(
    input: Tensor,
    w: Tensor,
    target: Tensor,
    b: Tensor | None,
    class_weight: Tensor | None,
    reduction: str,
    ignore_index: int,
    smoothing: float,
) -> Tensor:
    """The formula itself; a (C, d1, ..., dK, in) weight gives (N, C, d1, ..., dK) logits."""
    extra = tuple(w.shape[1:-1])
    logits = linear(input, w.reshape(-1, w.shape[-1]))
    if extra:
        logits = logits.reshape(*input.shape[:-1], w.shape[0], *extra)
    if b is not None:
        logits = logits + (b.reshape(b.shape[0], *extra) if extra else b)
    return cross_entropy(
        logits,
        target,
        class_weight,
        ignore_index=ignore_index,
        reduction=reduction,
        label_smoothing=smoothing,
    )
