"""scaled_dot_product_attention through fused CUDA kernels: cuDNN's, or genesis's own (Note
[Fused attention] in kernels/flash_attention_forward.cu); used by _attention.py when ``fused``
returns a result.

Note [When attention is fused]: two fused paths exist. cuDNN's fused attention (Note [Attention
through cuDNN] in csrc/cuda/cudnn_attention.cpp) runs first when
``genesis.backends.cuda.cudnn_sdp_enabled()``, the build has it, there is no mask and cuDNN
takes the problem; genesis's own kernels run the rest when ``flash_sdp_enabled()``. Both save
the same per-row log-sum-exp, and the backward goes the forward's way. The fused paths take
float16 / bfloat16 CUDA tensors (float32 too, on genesis's float32 kernels, when
``_kernel_float32`` allows) on an sm_80 or later device, equal head dims of query, key and
value up to 256, a causal flag or a mask (bool or float, broadcast by strides, never expanded),
and grouped or broadcast key heads (query head h reads key head h // (Hq / Hk)). ``dropout_p``
in (0, 1) runs cuDNN's attention with its own dropout when ``_cudnn_dropout`` allows (Note
[Dropout through cuDNN] in csrc/cuda/cudnn_attention.cpp), else genesis's kernels when
``_kernel_dropout`` allows (see there); they draw each weight's keep bit in the forward and
again in the backward from the same Philox counters of the default generator (Note [Dropout in
fused attention] in csrc/vocab/attention_dropout.h). Each path's draws differ from the others'
and from the composed path's. The rest goes to the composed path, which is exact for every
dtype: other dropout (``dropout_p`` 1, kernel dropout off, genesis's kernels switched off), a
float mask that needs a gradient, float64 (and float32 while its kernels are switched off),
batch dims in which the query is the one broadcast, and both switches off. The output and
gradients match the composed path within the rounding of 16-bit inputs: the scores and sums are
float32, and the attention weights meet the values rounded to the input dtype (PyTorch's fused
backends do the same). The fused backward is not itself differentiable: a double backward
through it raises, as PyTorch's fused backends do; turn both switches off for gradient
penalties through attention.
"""

from __future__ import annotations

from typing import Any

from ..._C import Tensor, _nn, bfloat16, float16, float32
from ..._C import bool as _bool
from ...autograd import Function, is_grad_enabled
from ...backends import cuda as _backends_cuda

__all__: list[str] = []  # helpers of _attention.py; no public names

_OP = "scaled_dot_product_attention"
_supported: dict[str, bool] = {}
# Whether dropout_p in (0, 1) takes genesis's kernels (passed tests/nn/test_attention_dropout.py
# on an H100 in session 51). A switch so that a test can compare both paths.
_kernel_dropout = True
# Whether dropout_p in (0, 1) may take cuDNN's attention, which then draws the masks itself (Note
# [Dropout through cuDNN] in csrc/cuda/cudnn_attention.cpp). Off until tests/nn/
# test_attention_cudnn_dropout.py passes on a GPU (written in session 51 after its GPU time was
# spent): until then such calls take genesis's kernels, and the tests switch it on.
_cudnn_dropout = False
# Whether float32 takes genesis's float32 kernels (Note [Fused attention in float32] in
# kernels/flash_attention_float.cu). Off until they have passed tests/nn/test_attention_float32.py
# on a GPU (written in session 51 after its GPU time was spent): until then float32 keeps the
# composed path, and the tests switch it on.
_kernel_float32 = False


def _device_supported(t: Tensor) -> bool:
    key = str(t.device)
    if key not in _supported:
        _supported[key] = bool(_nn._fused_attention_supported(t))
    return _supported[key]


def _as_4d(t: Tensor) -> Tensor:
    """(batch, heads, seq, dim): 2-D and 3-D inputs get leading unit dims, more than 4 dims
    fold the leading ones into the batch."""
    if t.dim() == 4:
        return t
    if t.dim() < 4:
        return t.reshape((1,) * (4 - t.dim()) + tuple(t.shape))
    return t.reshape((-1,) + tuple(t.shape[-3:]))


def _mask_4d(mask: Tensor, lead: tuple) -> Tensor | None:
    """The mask as a 4-D view over _as_4d's (batch, heads, L, S), or None when its batch dims
    do not fold the way the query's do (or would grow the output)."""
    n = len(lead)
    if mask.dim() > n + 2:
        return None
    shape = (1,) * (n + 2 - mask.dim()) + tuple(mask.shape)
    if n <= 2:
        return mask.reshape((1,) * (2 - n) + shape)
    front = shape[: n - 1]
    if all(s == 1 for s in front):
        return mask.reshape((1,) + shape[n - 1 :])
    if front == lead[:-1]:
        return mask.reshape((-1,) + shape[n - 1 :])
    return None


class _FusedBackward(Function):
    """The fused backward as a node of its own when the graph of the backward pass is kept
    (create_graph): differentiating it again raises."""

    @staticmethod
    def forward(ctx: Any, grad: Tensor, q: Tensor, k: Tensor, v: Tensor, saved: tuple) -> tuple:
        return _gradients(grad, q, k, v, *saved)

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple:
        raise RuntimeError(
            f"[{_OP}] the fused attention backward is not differentiable; for a double "
            "backward through attention run it under "
            "genesis.nn.attention.sdpa_kernel(SDPBackend.MATH) (the composed path is)"
        )


def _gradients(
    grad: Tensor,
    q: Tensor,
    k: Tensor,
    v: Tensor,
    out: Tensor,
    lse: Tensor,
    mask: Tensor | None,
    scale: float,
    causal: bool,
    cudnn: bool,
    dropout_p: float,
    rng: Tensor | None,
) -> tuple:
    """The binding's (dq, dk, dv), its arguments named for the unpacked ``saved`` tuple."""
    return _nn._fused_attention_backward(
        grad, q, k, v, out, lse, mask, scale, causal, dropout_p, rng, cudnn, _OP
    )


class _FusedAttention(Function):
    """out = softmax(q k^T scale + mask) v on (B, H, L, E) operands."""

    @staticmethod
    def forward(
        ctx: Any, q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor, saved: tuple
    ) -> Tensor:
        # out and lse were computed before apply (the path may decline); saved holds
        # (mask, scale, causal, cudnn, dropout_p, rng)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.rest = saved
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        q, k, v, out, lse = ctx.saved_tensors
        saved = (out, lse, *ctx.rest)
        if is_grad_enabled():  # create_graph: keep a node that refuses a second backward
            dq, dk, dv = _FusedBackward.apply(grad, q, k, v, saved)
        else:
            dq, dk, dv = _gradients(grad, q, k, v, *saved)
        return dq, dk, dv, None, None, None


def fused(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    is_causal: bool,
    scale: float,
    enable_gqa: bool,
) -> Tensor | None:
    """The attention through the fused kernels, or None when Note [When attention is fused]
    sends it to the composed path. The arguments are checked (_check_sdpa)."""
    cudnn, own = _backends_cuda.cudnn_sdp_enabled(), _backends_cuda.flash_sdp_enabled()
    if dropout_p > 0.0:
        if dropout_p >= 1.0:
            return None
        cudnn = cudnn and _cudnn_dropout  # cuDNN's own draws (Note [Dropout through cuDNN])
        own = own and _kernel_dropout
    if query.dtype == float32:  # genesis's float32 kernels alone (cuDNN's graphs are 16-bit)
        if not (_kernel_float32 and own):
            return None
        cudnn = False
    if not (query.is_cuda and query.dtype in (float16, bfloat16, float32) and (own or cudnn)):
        return None
    E = query.shape[-1]
    if not (0 < E <= 256 and value.shape[-1] == E and query.dim() == key.dim() == value.dim()):
        return None
    if attn_mask is not None and attn_mask.requires_grad and attn_mask.dtype != _bool:
        return None
    if tuple(key.shape) != tuple(value.shape) or not _device_supported(query):
        return None
    lead, klead = tuple(query.shape[:-2]), tuple(key.shape[:-2])
    # key heads: equal, one (broadcast), or a divisor under enable_gqa; other batch dims equal
    # or broadcast from the key side
    if len(lead) >= 1:
        hq, hk = lead[-1], klead[-1]
        if not (hk == hq or hk == 1 or (enable_gqa and hk > 0 and hq % hk == 0)):
            return None
        if any(kd not in (1, qd) for qd, kd in zip(lead[:-1], klead[:-1])):
            return None
    q4 = _as_4d(query)
    kexp = key
    if len(lead) > 1 and klead[:-1] != lead[:-1]:
        kexp = key.expand(lead[:-1] + tuple(key.shape[-3:]))
    vexp = value if kexp is key else value.expand(lead[:-1] + tuple(value.shape[-3:]))
    k4, v4 = _as_4d(kexp), _as_4d(vexp)
    mask4 = None
    if attn_mask is not None:
        mask4 = _mask_4d(attn_mask, lead)
        want = (q4.shape[0], q4.shape[1], q4.shape[2], k4.shape[2])
        if mask4 is None or any(m not in (1, w) for m, w in zip(mask4.shape, want)):
            return None
        if mask4.requires_grad:
            mask4 = mask4.detach()
    out, lse, rng, path = _nn._fused_attention(
        q4.detach(),
        k4.detach(),
        v4.detach(),
        mask4,
        float(scale),
        bool(is_causal),
        float(dropout_p),
        cudnn,
        own,
        _OP,
    )
    if out is None:  # cuDNN declined and genesis's kernels are switched off
        return None
    saved = (mask4, float(scale), bool(is_causal), path == 2, float(dropout_p), rng)
    out = _FusedAttention.apply(q4, k4, v4, out, lse, saved)
    shape = tuple(query.shape[:-1]) + (E,)
    return out if tuple(out.shape) == shape else out.reshape(shape)
