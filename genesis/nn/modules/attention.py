"""MultiheadAttention (and NonDynamicallyQuantizableLinear, its output projection's class)."""

from __future__ import annotations

from typing import Any

from ..._C import Tensor, empty
from ..functional._attention import _mha_forward
from ..init import constant_, xavier_normal_, xavier_uniform_
from ..parameter import Parameter
from .linear import Linear
from .module import Module

__all__ = ["MultiheadAttention"]


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` under another name: MultiheadAttention's ``out_proj``, as in PyTorch.

    PyTorch uses the subclass to keep dynamic quantization away from the projection; here it
    only gives the same class name in ``repr`` (the parameters and math are Linear's).
    """


class MultiheadAttention(Module):
    """Multi-head attention: ``softmax(Q K^T / sqrt(head_dim)) V`` per head, projected in and out.

    PyTorch's ``torch.nn.MultiheadAttention``, always computed the ordinary way (no fast path
    over nested tensors); the math is ``genesis.nn.functional.multi_head_attention_forward``.

    Args:
        embed_dim (int): the model dimension E (of the queries and the output).
        num_heads (int): the number of heads; must divide ``embed_dim``.
        dropout (float): the dropout probability of the attention weights in training.
            Default: 0.0.
        bias (bool): learn the input and output projection biases. Default: True.
        add_bias_kv (bool): learn a key and a value appended to every sequence. Default: False.
        add_zero_attn (bool): append a zero key and value to every sequence. Default: False.
        kdim (int, optional): the keys' dimension. Default: None (``embed_dim``).
        vdim (int, optional): the values' dimension. Default: None (``embed_dim``).
        batch_first (bool): inputs and output are (N, L, E) instead of (L, N, E).
            Default: False.
        device, dtype: where and in which dtype the parameters are made.

    The parameters are PyTorch's: ``in_proj_weight`` (3E, E) (or ``q_proj_weight``,
    ``k_proj_weight`` and ``v_proj_weight`` when ``kdim`` or ``vdim`` differ from E), drawn
    with ``xavier_uniform_``; ``in_proj_bias`` (3E,) and ``out_proj.bias`` zeros;
    ``out_proj.weight`` as Linear's; ``bias_k`` and ``bias_v`` (1, 1, E) with
    ``xavier_normal_``.

    Example::

        >>> mha = genesis.nn.MultiheadAttention(8, 2, batch_first=True)
        >>> x = genesis.randn(3, 5, 8)
        >>> out, weights = mha(x, x, x)
        >>> out.shape, weights.shape
        (genesis.Size([3, 5, 8]), genesis.Size([3, 5, 5]))
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"[MultiheadAttention] embed_dim and num_heads must be greater than 0, got "
                f"embed_dim={embed_dim} and num_heads={num_heads} instead"
            )
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("[MultiheadAttention] embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **factory))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **factory))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **factory))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **factory)
        if add_bias_kv:
            self.bias_k: Parameter | None = Parameter(empty((1, 1, embed_dim), **factory))
            self.bias_v: Parameter | None = Parameter(empty((1, 1, embed_dim), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            xavier_uniform_(self.in_proj_weight)
        else:
            xavier_uniform_(self.q_proj_weight)
            xavier_uniform_(self.k_proj_weight)
            xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            constant_(self.in_proj_bias, 0.0)
            constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            xavier_normal_(self.bias_v)

    def __setstate__(self, state: dict) -> None:
        # Checkpoints of PyTorch 1.1 have no _qkv_same_embed_dim; PyTorch defaults it too.
        state.setdefault("_qkv_same_embed_dim", True)
        super().__setstate__(state)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """Attends ``query`` to ``key``/``value``; returns ``(output, weights or None)``.

        Shapes: (L, N, E) (``batch_first``: (N, L, E)) or unbatched (L, E). Boolean masks are
        ``True`` where attention is not allowed; float masks are added to the scores.
        ``key_padding_mask`` is (N, S) or (S,); ``attn_mask`` (L, S) or (N * num_heads, L, S).
        The weights, with ``need_weights``, are (N, L, S) averaged over the heads or
        (N, num_heads, L, S) with ``average_attn_weights=False``. ``is_causal`` is a hint that
        ``attn_mask`` is the causal mask.
        """
        is_batched = isinstance(query, Tensor) and query.dim() == 3
        if self.batch_first and is_batched:
            # Keep the "is" relations: self-attention projects q, k and v in one product.
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = _mha_forward(
            "MultiheadAttention",
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            self.training,
            key_padding_mask,
            need_weights,
            attn_mask,
            separate,
            self.q_proj_weight if separate else None,
            self.k_proj_weight if separate else None,
            self.v_proj_weight if separate else None,
            None,
            None,
            average_attn_weights,
            is_causal,
        )
        if self.batch_first and is_batched:
            out = out.transpose(1, 0)
        return out, weights

    def merge_masks(
        self, attn_mask: Tensor | None, key_padding_mask: Tensor | None, query: Tensor
    ) -> tuple[Tensor | None, int | None]:
        """Combines the masks of a batch-first self-attention call as PyTorch's fast path does.

        Returns ``(mask, mask_type)``: the key padding mask alone (type 1), or the attention
        mask expanded to (N, num_heads, L, L), plus the padding mask when both are given
        (type 2); ``(None, None)`` without masks. genesis does not need it itself.
        """
        mask_type: int | None = None
        merged: Tensor | None = None
        if key_padding_mask is not None:
            mask_type = 1
            merged = key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(
                    batch_size, self.num_heads, -1, -1
                )
            merged = expanded
            if key_padding_mask is not None:
                merged = expanded + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1
                )
        return merged, mask_type
