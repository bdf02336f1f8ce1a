"""scaled_dot_product_attention and multi_head_attention_forward.

The exact, composed path: the scores are one ``matmul`` (the query scaled first, the cheaper
side), a mask is one ``masked_fill`` (boolean) or one add (float) over them, the softmax is
genesis's one-pass compiled softmax, and the result one more ``matmul``. Gradients flow through
the autograd of those ops, to the query, key, value and a float mask.

Rows whose keys are all masked follow PyTorch's math backend: ``scaled_dot_product_attention``
returns zeros there (with zero gradients), ``multi_head_attention_forward`` with
``need_weights=True`` (a plain softmax, as PyTorch's) returns NaN there.
"""

from __future__ import annotations

import math
import warnings

from ..._C import Tensor, bfloat16, cat, float16, float32, matmul, ones, softmax, zeros, zeros_like
from ..._C import bool as _bool
from ...amp._policies import autocast_policy
from ...backends import cuda as _backends_cuda
from ._attention_fused import fused
from ._dropout import dropout
from ._linear import linear

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]

_NEG_INF = float("-inf")


def _shape(t: Tensor) -> tuple:
    return tuple(t.shape)


def _broadcast(op: str, what: str, *shapes: tuple) -> tuple:
    """The broadcast of ``shapes`` (PyTorch's rule), or the op's RuntimeError naming ``what``."""
    ndim = max(len(s) for s in shapes)
    out = []
    for i in range(ndim):
        sizes = {s[i - ndim + len(s)] for s in shapes if i - ndim + len(s) >= 0} - {1}
        if len(sizes) > 1:
            raise RuntimeError(
                f"[{op}] {what} do not broadcast: shapes " + ", ".join(str(s) for s in shapes)
            )
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _check_sdpa(
    op: str,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    is_causal: bool,
    enable_gqa: bool,
) -> None:
    """PyTorch's checks of scaled_dot_product_attention's arguments, with the op's prefix."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"[{op}] {name} must be a genesis.Tensor, got {type(t).__name__}")
    if attn_mask is not None and not isinstance(attn_mask, Tensor):
        raise TypeError(
            f"[{op}] attn_mask must be a genesis.Tensor or None, got {type(attn_mask).__name__}"
        )
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            f"[{op}] Expected query, key, and value to all be at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead."
        )
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            f"[{op}] Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead."
        )
    if not query.is_floating_point():
        raise RuntimeError(
            f"[{op}] expected floating point query, key and value, got {query.dtype}"
        )
    if not (query.device == key.device == value.device):
        raise RuntimeError(
            f"[{op}] Expected query, key, and value to be on the same device, got "
            f"{query.device}, {key.device} and {value.device}"
        )
    if attn_mask is not None:
        if attn_mask.dtype not in (_bool, float32, query.dtype):
            raise RuntimeError(
                f"[{op}] Expected attn_mask dtype to be bool or float or to match query dtype, "
                "but got "
                f"attn_mask.dtype: {attn_mask.dtype} and query.dtype: {query.dtype} instead."
            )
        if attn_mask.device != query.device:
            raise RuntimeError(
                f"[{op}] Expected attn_mask on the query's device {query.device}, got "
                f"{attn_mask.device}"
            )
        if is_causal:
            raise RuntimeError(f"[{op}] Explicit attn_mask should not be set when is_causal=True")
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(
            f"[{op}] dropout probability has to be between 0 and 1, but got {dropout_p}"
        )
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(
            f"[{op}] query and key must have the same embedding size (last dim), got "
            f"{_shape(query)} and {_shape(key)}"
        )
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(
            f"[{op}] key and value must have the same sequence length (dim -2), got "
            f"{_shape(key)} and {_shape(value)}"
        )
    if enable_gqa:
        if query.dim() < 3 or key.dim() < 3 or value.dim() < 3:
            raise IndexError(
                f"[{op}] enable_gqa needs query, key and value of at least 3 dims (..., heads, "
                f"L, E), got {query.dim()}-D, {key.dim()}-D and {value.dim()}-D"
            )
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hk == 0 or hv == 0 or hq % hk or hq % hv:
            raise RuntimeError(
                f"[{op}] Number of heads in key and value must divide the number of heads in "
                f"query, got {hq} query heads, {hk} key heads and {hv} value heads"
            )


def _sdpa(
    op: str,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    is_causal: bool,
    scale: float | None,
    enable_gqa: bool,
) -> Tensor:
    """The math of scaled_dot_product_attention on checked arguments: the fused kernels where
    they apply (Note [When attention is fused]), else the composed ops."""
    if scale is None:
        E = query.shape[-1]
        scale = 1.0 / math.sqrt(E) if E > 0 else math.inf
    out = fused(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    if out is not None:
        return out
    if not _backends_cuda.math_sdp_enabled():
        raise RuntimeError(
            f"[{op}] no available kernel: the fused kernels do not take these inputs (Note "
            "[When attention is fused]) and the math path is disabled "
            "(genesis.backends.cuda.enable_math_sdp)"
        )
    if enable_gqa:
        hq = query.shape[-3]
        if key.shape[-3] != hq:
            key = key.repeat_interleave(hq // key.shape[-3], -3)
        if value.shape[-3] != hq:
            value = value.repeat_interleave(hq // value.shape[-3], -3)
    lead = _broadcast(
        op,
        "the batch dims of query, key and value",
        _shape(query)[:-2],
        _shape(key)[:-2],
        _shape(value)[:-2],
    )
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    if attn_mask is not None:
        _broadcast(op, "attn_mask and the attention weights", _shape(attn_mask), (*lead, L, S))
    out_dtype = query.dtype
    if out_dtype in (float16, bfloat16):
        # PyTorch's math backend keeps every intermediate in float32 for half inputs.
        query, key, value = query.to(float32), key.to(float32), value.to(float32)
    if attn_mask is not None and attn_mask.dtype not in (_bool, query.dtype):
        attn_mask = attn_mask.to(query.dtype)  # a float32 mask, as PyTorch accepts
    scores = matmul(query * scale, key.transpose(-2, -1))
    # Rows with every key masked: their scores stay finite (no NaN in the softmax or its
    # backward) and their output is zeroed, as the safe softmax of PyTorch's math backend.
    dead = None
    if is_causal:
        future = ones((L, S), dtype=_bool, device=query.device).triu(1)
        scores = scores.masked_fill(future, _NEG_INF)
    elif attn_mask is not None:
        if attn_mask.dtype == _bool:
            dead = attn_mask.any(-1, keepdim=True).logical_not()
            scores = scores.masked_fill((attn_mask | dead).logical_not(), _NEG_INF)
        else:
            dead = (attn_mask == _NEG_INF).all(-1, keepdim=True)
            scores = scores + attn_mask.masked_fill(dead, 0.0)
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    out = matmul(weights, value)
    if dead is not None:
        out = out.masked_fill(dead, 0.0)
    return out if out.dtype == out_dtype else out.to(out_dtype)


@autocast_policy
def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """Computes ``softmax(query @ key.T * scale + mask) @ value`` over the last two dims.

    PyTorch's ``torch.nn.functional.scaled_dot_product_attention`` with the numerics of its math
    backend: ``query`` (..., L, E), ``key`` (..., S, E) and ``value`` (..., S, Ev) give
    (..., L, Ev); the batch dims broadcast. A boolean ``attn_mask`` keeps the positions that are
    ``True``; a float one (of the query's dtype) is added to the scores; either broadcasts to
    (..., L, S). ``is_causal`` masks the upper triangle, aligned top-left as in PyTorch (query
    ``i`` sees keys ``0..i``). A query row whose keys are all masked gives zeros, with zero
    gradients, as PyTorch's math backend does. float16 and bfloat16 inputs are computed in
    float32 and rounded once. Dropout, when ``dropout_p > 0``, drops attention weights with
    genesis's generator (the masks differ from PyTorch's); it is applied whatever the mode, so
    pass ``0.0`` in evaluation. Gradients flow to query, key, value and a float mask.

    Args:
        query (Tensor): the (..., Hq, L, E) or (..., L, E) queries.
        key (Tensor): the (..., H, S, E) or (..., S, E) keys.
        value (Tensor): the (..., H, S, Ev) or (..., S, Ev) values.
        attn_mask (Tensor, optional): a boolean mask (``True`` takes part) or a float mask
            added to the scores, broadcastable to (..., L, S). Default: ``None``.
        dropout_p (float): the probability of dropping an attention weight. Default: 0.0.
        is_causal (bool): apply a top-left aligned causal mask; ``attn_mask`` must then be
            ``None``. Default: ``False``.
        scale (float, optional): the factor of the scores, keyword-only. Default: ``None``
            (``1 / sqrt(E)``).
        enable_gqa (bool): grouped-query attention: repeat each of the H key and value heads
            (dim -3) ``Hq // H`` times to match the query heads, keyword-only. Default:
            ``False``.

    Returns:
        Tensor: the (..., L, Ev) attention output.

    Example::

        >>> import genesis.nn.functional as F
        >>> q = genesis.tensor([[[1.0, 0.0], [0.0, 1.0]]])
        >>> v = genesis.tensor([[[1.0, 2.0], [3.0, 4.0]]])
        >>> F.scaled_dot_product_attention(q, q, v, is_causal=True)
        tensor([[[1.0000, 2.0000],
                 [2.3395, 3.3395]]])
        >>> keep = genesis.tensor([[True, False], [True, False]])
        >>> F.scaled_dot_product_attention(q, q, v, attn_mask=keep)
        tensor([[[1., 2.],
                 [1., 2.]]])
    """
    op = "scaled_dot_product_attention"
    _check_sdpa(op, query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    return _sdpa(op, query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


# --------------------------------------------------------------------------------------------
# multi_head_attention_forward


def _mha_shape_check(
    op: str,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    num_heads: int,
) -> bool:
    """Whether the input is batched; PyTorch's AssertionErrors for shapes that are neither."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"[{op}] {name} must be a genesis.Tensor, got {type(t).__name__}")
    for name, m in (("key_padding_mask", key_padding_mask), ("attn_mask", attn_mask)):
        if m is not None and not isinstance(m, Tensor):
            raise TypeError(
                f"[{op}] {name} must be a genesis.Tensor or None, got {type(m).__name__}"
            )
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                f"[{op}] For batched (3-D) `query`, expected `key` and `value` to be 3-D but "
                f"found {key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                f"[{op}] For batched (3-D) `query`, expected `key_padding_mask` to be `None` or "
                f"2-D but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"[{op}] For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or "
                f"3-D but found {attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                f"[{op}] For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but "
                f"found {key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                f"[{op}] For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` "
                f"or 1-D but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    f"[{op}] For unbatched (2-D) `query`, expected `attn_mask` to be `None`, "
                    f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead"
                )
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if _shape(attn_mask) != expected:
                    raise AssertionError(
                        f"[{op}] Expected `attn_mask` shape to be {expected} but got "
                        f"{_shape(attn_mask)}"
                    )
        return False
    raise AssertionError(
        f"[{op}] query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
        "query tensor"
    )


def _canonical_mask(
    op: str,
    mask: Tensor | None,
    mask_name: str,
    other: Tensor | None,
    other_name: str,
    target: Tensor,
    check_other: bool = True,
) -> Tensor | None:
    """A boolean mask (``True`` = masked out) as a float one (-inf there, 0 elsewhere) of the
    target's dtype; a float mask as it is. PyTorch's ``_canonical_mask``."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != _bool and not is_float:
        raise AssertionError(f"[{op}] only bool and floating types of {mask_name} are supported")
    if check_other and other is not None and other.dtype != mask.dtype:
        warnings.warn(
            f"[{op}] Support for mismatched {mask_name} and {other_name} is deprecated. Use "
            "same type for both instead.",
            stacklevel=3,
        )
    if mask.device != target.device:
        raise RuntimeError(
            f"[{op}] {mask_name} is on {mask.device} but query is on {target.device}"
        )
    if not is_float:
        return zeros_like(mask, dtype=target.dtype).masked_fill_(mask, _NEG_INF)
    if mask.dtype != target.dtype:
        raise RuntimeError(
            f"[{op}] a float {mask_name} must have the query's dtype {target.dtype}, got "
            f"{mask.dtype}"
        )
    return mask


def _check_proj(op: str, name: str, t: Tensor | None, shape: tuple, query: Tensor) -> None:
    if t is None:
        return
    if not isinstance(t, Tensor):
        raise TypeError(f"[{op}] {name} must be a genesis.Tensor, got {type(t).__name__}")
    if _shape(t) != shape:
        raise AssertionError(f"[{op}] expecting {name} shape of {shape}, but got {_shape(t)}")
    if t.dtype != query.dtype or t.device != query.device:
        raise RuntimeError(
            f"[{op}] query is {query.dtype} on {query.device} but {name} is {t.dtype} on "
            f"{t.device}; move one with .to()"
        )


def _separate_proj(op: str, name: str, w: Tensor | None) -> Tensor:
    """``w``, the ``{name}_proj_weight`` that use_separate_proj_weight=True needs."""
    if w is None:
        raise AssertionError(
            f"[{op}] use_separate_proj_weight is True but {name}_proj_weight is None"
        )
    return w


def _pad_last(t: Tensor | None) -> Tensor | None:
    """``t`` with one more column of zeros in its last dim (PyTorch's ``pad(t, (0, 1))``)."""
    if t is None:
        return None
    return cat([t, zeros((*_shape(t)[:-1], 1), dtype=t.dtype, device=t.device)], -1)


def _mha_forward(
    op: str,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool,
    key_padding_mask: Tensor | None,
    need_weights: bool,
    attn_mask: Tensor | None,
    use_separate_proj_weight: bool,
    q_proj_weight: Tensor | None,
    k_proj_weight: Tensor | None,
    v_proj_weight: Tensor | None,
    static_k: Tensor | None,
    static_v: Tensor | None,
    average_attn_weights: bool,
    is_causal: bool,
) -> tuple[Tensor, Tensor | None]:
    """multi_head_attention_forward with errors prefixed by ``op`` (the functional's name or the
    module's)."""
    is_batched = _mha_shape_check(op, query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    if not query.is_floating_point():
        raise RuntimeError(f"[{op}] expected a floating point query, got {query.dtype}")
    tgt_len, bsz, embed_dim = _shape(query)
    src_len = key.shape[0]

    key_padding_mask = _canonical_mask(
        op, key_padding_mask, "key_padding_mask", attn_mask, "attn_mask", query
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            f"[{op}] Need attn_mask if specifying the is_causal hint. You may use the "
            "Transformer module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        # The hint alone: the attention applies the causal mask itself (attn_mask is unused).
        attn_mask = None
    else:
        attn_mask = _canonical_mask(op, attn_mask, "attn_mask", None, "", query, False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is not causal any more

    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"[{op}] was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    if num_heads <= 0 or embed_dim % num_heads:
        raise AssertionError(f"[{op}] embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    head_dim = embed_dim // num_heads
    if use_separate_proj_weight:
        if _shape(key)[:2] != _shape(value)[:2]:
            raise AssertionError(
                f"[{op}] key's sequence and batch dims {_shape(key)[:2]} do not match value's "
                f"{_shape(value)[:2]}"
            )
    elif _shape(key) != _shape(value):
        raise AssertionError(
            f"[{op}] key shape {_shape(key)} does not match value shape {_shape(value)}"
        )

    # in-projection
    E = embed_dim
    if in_proj_bias is not None:
        _check_proj(op, "in_proj_bias", in_proj_bias, (3 * E,), query)
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError(
                f"[{op}] use_separate_proj_weight is False but in_proj_weight is None"
            )
        _check_proj(op, "in_proj_weight", in_proj_weight, (3 * E, E), query)
        if key is value:
            if query is key:  # self-attention: one product
                proj = linear(query, in_proj_weight, in_proj_bias).unflatten(-1, (3, E))
                q, k, v = proj[..., 0, :], proj[..., 1, :], proj[..., 2, :]
            else:  # encoder-decoder attention: key and value in one product
                b_q = b_kv = None
                if in_proj_bias is not None:
                    b_q, b_kv = in_proj_bias[:E], in_proj_bias[E:]
                q = linear(query, in_proj_weight[:E], b_q)
                kv = linear(key, in_proj_weight[E:], b_kv).unflatten(-1, (2, E))
                k, v = kv[..., 0, :], kv[..., 1, :]
        else:
            w_q, w_k, w_v = in_proj_weight.chunk(3)
            b_q = b_k = b_v = None
            if in_proj_bias is not None:
                b_q, b_k, b_v = in_proj_bias.chunk(3)
            q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)
    else:
        w_q = _separate_proj(op, "q", q_proj_weight)
        w_k = _separate_proj(op, "k", k_proj_weight)
        w_v = _separate_proj(op, "v", v_proj_weight)
        _check_proj(op, "q_proj_weight", w_q, (E, E), query)
        _check_proj(op, "k_proj_weight", w_k, (E, key.shape[-1]), query)
        _check_proj(op, "v_proj_weight", w_v, (E, value.shape[-1]), query)
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q = linear(query, w_q, b_q)
        k = linear(key, w_k, b_k)
        v = linear(value, w_v, b_v)

    # the attention mask as (1 or bsz, 1 or num_heads, tgt_len, src_len)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if _shape(attn_mask) != (tgt_len, src_len):
                raise RuntimeError(
                    f"[{op}] The shape of the 2D attn_mask is {_shape(attn_mask)}, but should be "
                    f"{(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.view(1, 1, tgt_len, src_len)
        elif attn_mask.dim() == 3:
            if _shape(attn_mask) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(
                    f"[{op}] The shape of the 3D attn_mask is {_shape(attn_mask)}, but should be "
                    f"{(bsz * num_heads, tgt_len, src_len)}."
                )
            attn_mask = attn_mask.view(bsz, num_heads, tgt_len, src_len)
        else:
            raise RuntimeError(f"[{op}] attn_mask's dimension {attn_mask.dim()} is not supported")

    # bias_k and bias_v: one more key and value for every sequence
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError(f"[{op}] bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError(f"[{op}] bias cannot be added to static value.")
        _check_proj(op, "bias_k", bias_k, (1, 1, E), query)
        _check_proj(op, "bias_v", bias_v, (1, 1, E), query)
        k = cat([k, bias_k.expand(1, bsz, E)])
        v = cat([v, bias_v.expand(1, bsz, E)])
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError(f"[{op}] bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError(f"[{op}] bias_v is set but bias_k is None")

    # heads: (seq, bsz, E) -> (bsz, num_heads, seq, head_dim)
    q = q.view(tgt_len, bsz, num_heads, head_dim).permute(1, 2, 0, 3)
    for name, static in (("static_k", static_k), ("static_v", static_v)):
        if static is not None:
            if not isinstance(static, Tensor):
                raise TypeError(f"[{op}] {name} must be a genesis.Tensor, got {type(static)}")
            if static.dim() != 3 or static.shape[0] != bsz * num_heads:
                raise AssertionError(
                    f"[{op}] expecting {name}.size(0) of {bsz * num_heads}, but got "
                    f"{_shape(static)[:1]}"
                )
            if static.shape[2] != head_dim:
                raise AssertionError(
                    f"[{op}] expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}"
                )
    if static_k is None:
        k = k.view(k.shape[0], bsz, num_heads, head_dim).permute(1, 2, 0, 3)
    else:
        k = static_k.view(bsz, num_heads, static_k.shape[1], head_dim)
    if static_v is None:
        v = v.view(v.shape[0], bsz, num_heads, head_dim).permute(1, 2, 0, 3)
    else:
        v = static_v.view(bsz, num_heads, static_v.shape[1], head_dim)

    if add_zero_attn:
        k = cat([k, zeros((bsz, num_heads, 1, head_dim), dtype=k.dtype, device=k.device)], 2)
        v = cat([v, zeros((bsz, num_heads, 1, head_dim), dtype=v.dtype, device=v.device)], 2)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)

    src_len = k.shape[2]
    if v.shape[2] != src_len:
        raise RuntimeError(
            f"[{op}] the keys ({src_len}) and values ({v.shape[2]}) differ in sequence length"
        )
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(
                f"[{op}] Expected key_padded_mask.shape[0] to be {bsz}, but got "
                f"{key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"[{op}] Expected key_padded_mask.shape[1] to be {src_len}, but got "
                f"{key_padding_mask.shape[1]}"
            )
        kpm = key_padding_mask.view(bsz, 1, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm

    if not training:
        dropout_p = 0.0
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(
            f"[{op}] dropout probability has to be between 0 and 1, but got {dropout_p}"
        )

    if need_weights:
        weights = matmul(q * math.sqrt(1.0 / float(head_dim)), k.transpose(-2, -1))
        if attn_mask is not None:
            weights = weights + attn_mask
        weights = softmax(weights, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        out = matmul(weights, v)
    else:
        weights = None
        out = _sdpa(op, q, k, v, attn_mask, dropout_p, is_causal, None, False)
    # (bsz, num_heads, tgt_len, head_dim) -> (tgt_len * bsz, embed_dim)
    out = out.permute(2, 0, 1, 3).reshape(tgt_len * bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.shape[1])
    if weights is not None and average_attn_weights:
        weights = weights.mean(dim=1)
    if not is_batched:
        out = out.squeeze(1)
        if weights is not None:
            weights = weights.squeeze(0)
    return out, weights


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Runs multi-head attention with projection weights given as tensors.

    PyTorch's ``torch.nn.functional.multi_head_attention_forward``, the computation of
    ``nn.MultiheadAttention``: ``query`` (L, N, E), ``key`` (S, N, Ek) and ``value``
    (S, N, Ev) (or unbatched (L, E), (S, Ek), (S, Ev)) are projected, split into
    ``num_heads`` heads of ``E // num_heads``, attended and projected out. Boolean masks are
    ``True`` where attention is *not* allowed (the opposite of ``scaled_dot_product_attention``);
    float masks are added to the scores. With ``need_weights`` the weights are computed
    explicitly (a query whose keys are all masked gives NaN, as in PyTorch); without, the
    attention is ``scaled_dot_product_attention`` (such a query gives zeros, as PyTorch's).

    Args:
        query (Tensor): (L, N, E) or (L, E) queries.
        key (Tensor): (S, N, Ek) or (S, Ek) keys.
        value (Tensor): (S, N, Ev) or (S, Ev) values.
        embed_dim_to_check (int): the expected E.
        num_heads (int): the number of heads; must divide E.
        in_proj_weight (Tensor, optional): the packed (3 * E, E) query, key and value
            projection, when not ``use_separate_proj_weight``.
        in_proj_bias (Tensor, optional): the packed (3 * E,) projection bias.
        bias_k (Tensor, optional): a (1, 1, E) key appended to every sequence (with
            ``bias_v``).
        bias_v (Tensor, optional): a (1, 1, E) value appended to every sequence.
        add_zero_attn (bool): append a zero key and value (per head) to every sequence.
        dropout_p (float): the dropout probability of the attention weights.
        out_proj_weight (Tensor): the (E, E) output projection.
        out_proj_bias (Tensor, optional): the (E,) output projection bias.
        training (bool): apply dropout. Default: ``True``.
        key_padding_mask (Tensor, optional): (N, S) or (S,), ``True`` (or the added float
            value) where a key is padding. Default: ``None``.
        need_weights (bool): also return the attention weights. Default: ``True``.
        attn_mask (Tensor, optional): (L, S) or (N * num_heads, L, S), ``True`` where
            attention is not allowed, or a float mask added to the scores. Default: ``None``.
        use_separate_proj_weight (bool): use ``q_proj_weight``, ``k_proj_weight`` and
            ``v_proj_weight`` instead of ``in_proj_weight``. Default: ``False``.
        q_proj_weight (Tensor, optional): the (E, E) query projection. Default: ``None``.
        k_proj_weight (Tensor, optional): the (E, Ek) key projection. Default: ``None``.
        v_proj_weight (Tensor, optional): the (E, Ev) value projection. Default: ``None``.
        static_k (Tensor, optional): (N * num_heads, S, E // num_heads) keys used as they are,
            instead of projected ones. Default: ``None``.
        static_v (Tensor, optional): (N * num_heads, S, E // num_heads) values used as they
            are. Default: ``None``.
        average_attn_weights (bool): average the returned weights over the heads.
            Default: ``True``.
        is_causal (bool): a hint that ``attn_mask`` is the causal mask; with no key padding
            mask and ``need_weights=False`` the causal mask is applied instead of
            ``attn_mask``. Default: ``False``.

    Returns:
        tuple: the (L, N, E) (or (L, E)) output, and the attention weights: (N, L, S) (or
        (L, S)) averaged, (N, num_heads, L, S) (or (num_heads, L, S)) per head, or ``None``
        without ``need_weights``.

    Example::

        >>> import genesis.nn.functional as F
        >>> x = genesis.tensor([[[1.0, 0.0]], [[0.0, 1.0]]])
        >>> w_in = genesis.cat([genesis.eye(2)] * 3)
        >>> out, w = F.multi_head_attention_forward(
        ...     x, x, x, 2, 1, w_in, None, None, None, False, 0.0, genesis.eye(2), None)
        >>> out.shape, w.shape
        (genesis.Size([2, 1, 2]), genesis.Size([1, 2, 2]))
        >>> w
        tensor([[[0.6698, 0.3302],
                 [0.3302, 0.6698]]])
    """
    return _mha_forward(
        "multi_head_attention_forward",
        query,
        key,
        value,
        embed_dim_to_check,
        num_heads,
        in_proj_weight,
        in_proj_bias,
        bias_k,
        bias_v,
        add_zero_attn,
        dropout_p,
        out_proj_weight,
        out_proj_bias,
        training,
        key_padding_mask,
        need_weights,
        attn_mask,
        use_separate_proj_weight,
        q_proj_weight,
        k_proj_weight,
        v_proj_weight,
        static_k,
        static_v,
        average_attn_weights,
        is_causal,
    )
