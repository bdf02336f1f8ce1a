"""Transformer, TransformerEncoder, TransformerDecoder, TransformerEncoderLayer and
TransformerDecoderLayer, with PyTorch's submodule names (so state_dicts load either way).

Always computed the ordinary way: PyTorch's fast paths (nested tensors for padded batches, the
fused encoder-layer kernel) are not used, so the output at padded positions is the computed
one, as PyTorch's own path in training or with gradients gives it.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Union

from ..._C import Tensor, full
from .. import functional as F
from ..functional._attention import _canonical_mask
from ..init import xavier_uniform_
from . import activation as _activation_layers
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = [
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
]

_Activation = Union[str, Callable[[Tensor], Tensor]]


def _generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
    """The (sz, sz) float causal mask: -inf above the diagonal, 0 on and below it."""
    return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(1)


def _get_seq_len(src: Tensor, batch_first: bool) -> int:
    if src.dim() == 2:  # unbatched: (S, E)
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(
    mask: Tensor | None, is_causal: bool | None = None, size: int | None = None
) -> bool:
    """``is_causal`` when given; otherwise whether ``mask`` is the square causal mask
    (PyTorch's ``_detect_is_causal_mask``)."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.shape[-2]
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        if tuple(mask.shape) == tuple(causal.shape):
            make_causal = bool((mask == causal).all())
        else:
            make_causal = False
    return make_causal


def _get_clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(layer: str, activation: str) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"[{layer}] activation should be relu/gelu, not {activation}")


def _relu_or_gelu(activation: Any) -> int:
    """PyTorch's ``activation_relu_or_gelu`` flag: 1 for ReLU, 2 for GELU, 0 otherwise."""
    relu_cls = getattr(_activation_layers, "ReLU", None)
    gelu_cls = getattr(_activation_layers, "GELU", None)
    if activation is F.relu or (relu_cls is not None and isinstance(activation, relu_cls)):
        return 1
    if activation is F.gelu or (gelu_cls is not None and isinstance(activation, gelu_cls)):
        return 2
    return 0


class Transformer(Module):
    """The encoder-decoder transformer of "Attention Is All You Need".

    PyTorch's ``torch.nn.Transformer``: a ``TransformerEncoder`` of ``num_encoder_layers``
    layers and a ``TransformerDecoder`` of ``num_decoder_layers`` layers, each followed by a
    LayerNorm; every parameter of more than one dim is drawn again with ``xavier_uniform_``.

    Args:
        d_model (int): the model dimension. Default: 512.
        nhead (int): the number of attention heads. Default: 8.
        num_encoder_layers (int): the number of encoder layers. Default: 6.
        num_decoder_layers (int): the number of decoder layers. Default: 6.
        dim_feedforward (int): the feed-forward network's hidden dimension. Default: 2048.
        dropout (float): the dropout probability. Default: 0.1.
        activation (str or callable): "relu", "gelu" or a callable. Default: ``F.relu``.
        custom_encoder (Module, optional): used instead of the built encoder. Default: None.
        custom_decoder (Module, optional): used instead of the built decoder. Default: None.
        layer_norm_eps (float): the LayerNorms' eps. Default: 1e-5.
        batch_first (bool): tensors are (N, S, E) instead of (S, N, E). Default: False.
        norm_first (bool): LayerNorm before attention and feed-forward (pre-norm).
            Default: False.
        bias (bool): learn the biases of the Linear and LayerNorm layers. Default: True.
        device, dtype: where and in which dtype the parameters are made.

    Example::

        >>> model = genesis.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1,
        ...                                num_decoder_layers=1, dim_feedforward=16)
        >>> model(genesis.randn(5, 2, 8), genesis.randn(3, 2, 8)).shape
        genesis.Size([3, 2, 8])
    """

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: _Activation = F.relu,
        custom_encoder: Any | None = None,
        custom_decoder: Any | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(
                d_model,
                nhead,
                dim_feedforward,
                dropout,
                activation,
                layer_norm_eps,
                batch_first,
                norm_first,
                bias,
                **factory,
            )
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(
                d_model,
                nhead,
                dim_feedforward,
                dropout,
                activation,
                layer_norm_eps,
                batch_first,
                norm_first,
                bias,
                **factory,
            )
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """Encodes ``src`` and decodes ``tgt`` against it; returns the decoder's output.

        ``src`` (S, N, E) and ``tgt`` (T, N, E) (``batch_first``: (N, S, E), (N, T, E);
        unbatched: (S, E), (T, E)). Masks as in the encoder and decoder: ``src_mask`` (S, S),
        ``tgt_mask`` (T, T), ``memory_mask`` (T, S), or 3-D per head; the key padding masks
        (N, S), (N, T), (N, S).
        """
        for name, t in (("src", src), ("tgt", tgt)):
            if not isinstance(t, Tensor):
                raise TypeError(f"[Transformer] {name} must be a genesis.Tensor, got {type(t)}")
        is_batched = src.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if is_batched and (tgt.dim() != 3 or src.shape[batch_dim] != tgt.shape[batch_dim]):
            raise RuntimeError("[Transformer] the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(
                "[Transformer] the feature number of src and tgt must be equal to d_model"
            )
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """The (sz, sz) causal mask: ``-inf`` above the diagonal and ``0.0`` elsewhere.

        Args:
            sz (int): the sequence length.
            device: where to make it. Default: None (the default device).
            dtype: its dtype. Default: None (the default float dtype).

        Returns:
            Tensor: the float mask.

        Example::

            >>> genesis.nn.Transformer.generate_square_subsequent_mask(3)
            tensor([[0., -inf, -inf],
                    [0., 0., -inf],
                    [0., 0., 0.]])
        """
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        """xavier_uniform_ on every parameter of more than one dim, as PyTorch's."""
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)


class TransformerEncoder(Module):
    """A stack of ``num_layers`` copies of ``encoder_layer``, then ``norm`` if given.

    PyTorch's ``torch.nn.TransformerEncoder``. ``enable_nested_tensor`` and ``mask_check`` are
    kept as attributes for compatibility; genesis has no nested-tensor path, so
    ``use_nested_tensor`` is always False and padded positions keep their computed values.

    Args:
        encoder_layer (TransformerEncoderLayer): the layer to copy (deep copies).
        num_layers (int): the number of layers.
        norm (Module, optional): applied to the last layer's output. Default: None.
        enable_nested_tensor (bool): PyTorch's fast-path switch, unused. Default: True.
        mask_check (bool): PyTorch's fast-path mask check, unused. Default: True.

    Example::

        >>> layer = genesis.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16)
        >>> encoder = genesis.nn.TransformerEncoder(layer, num_layers=2)
        >>> encoder(genesis.randn(5, 3, 8)).shape
        genesis.Size([5, 3, 8])
    """

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = False  # no nested tensors in genesis
        self.mask_check = mask_check

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        """Passes ``src`` through every layer, then the norm.

        ``mask`` (S, S) or (N * nhead, S, S); ``src_key_padding_mask`` (N, S) or (S,);
        ``is_causal``: ``None`` detects whether ``mask`` is the causal mask.
        """
        if not isinstance(src, Tensor):
            raise TypeError(
                f"[TransformerEncoder] src must be a genesis.Tensor, got {type(src).__name__}"
            )
        op = "TransformerEncoder"
        src_key_padding_mask = _canonical_mask(
            op, src_key_padding_mask, "src_key_padding_mask", mask, "mask", src
        )
        mask = _canonical_mask(op, mask, "mask", None, "", src, False)
        output = src
        if len(self.layers) == 0:
            return output if self.norm is None else self.norm(output)
        batch_first = self.layers[0].self_attn.batch_first
        seq_len = _get_seq_len(src, batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        for mod in self.layers:
            output = mod(
                output,
                src_mask=mask,
                is_causal=is_causal,
                src_key_padding_mask=src_key_padding_mask,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    """A stack of ``num_layers`` copies of ``decoder_layer``, then ``norm`` if given.

    PyTorch's ``torch.nn.TransformerDecoder``.

    Args:
        decoder_layer (TransformerDecoderLayer): the layer to copy (deep copies).
        num_layers (int): the number of layers.
        norm (Module, optional): applied to the last layer's output. Default: None.

    Example::

        >>> layer = genesis.nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16)
        >>> decoder = genesis.nn.TransformerDecoder(layer, num_layers=2)
        >>> decoder(genesis.randn(4, 3, 8), genesis.randn(5, 3, 8)).shape
        genesis.Size([4, 3, 8])
    """

    def __init__(
        self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None
    ) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """Passes ``tgt`` through every layer (each attending to ``memory``), then the norm.

        ``tgt_is_causal``: ``None`` detects whether ``tgt_mask`` is the causal mask.
        """
        if not isinstance(tgt, Tensor):
            raise TypeError(
                f"[TransformerDecoder] tgt must be a genesis.Tensor, got {type(tgt).__name__}"
            )
        output = tgt
        if len(self.layers):
            seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
            tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward network, each with a residual connection and LayerNorm.

    PyTorch's ``torch.nn.TransformerEncoderLayer``: post-norm
    ``x = norm1(x + sa(x)); x = norm2(x + ff(x))``, or pre-norm (``norm_first``)
    ``x = x + sa(norm1(x)); x = x + ff(norm2(x))``, with
    ``ff(x) = linear2(dropout(activation(linear1(x))))``.

    Args:
        d_model (int): the model dimension.
        nhead (int): the number of attention heads.
        dim_feedforward (int): the feed-forward network's hidden dimension. Default: 2048.
        dropout (float): the dropout probability. Default: 0.1.
        activation (str or callable): "relu", "gelu" or a callable (a module becomes a
            submodule). Default: ``F.relu``.
        layer_norm_eps (float): the LayerNorms' eps. Default: 1e-5.
        batch_first (bool): tensors are (N, S, E) instead of (S, N, E). Default: False.
        norm_first (bool): pre-norm instead of post-norm. Default: False.
        bias (bool): learn the biases of the Linear and LayerNorm layers. Default: True.
        device, dtype: where and in which dtype the parameters are made.

    Example::

        >>> layer = genesis.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16,
        ...                                            batch_first=True)
        >>> layer(genesis.randn(3, 5, 8)).shape
        genesis.Size([3, 5, 8])
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: _Activation = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **factory
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn("TransformerEncoderLayer", activation)
        self.activation_relu_or_gelu = _relu_or_gelu(activation)
        self.activation = activation

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        """Runs the layer on ``src`` ((S, N, E), (N, S, E) with ``batch_first``, or (S, E)).

        ``src_mask`` (S, S) or (N * nhead, S, S) and ``src_key_padding_mask`` (N, S): ``True``
        (bool) where attention is not allowed, or float values added to the scores.
        ``is_causal`` is a hint that ``src_mask`` is the causal mask.
        """
        if not isinstance(src, Tensor):
            raise TypeError(
                f"[TransformerEncoderLayer] src must be a genesis.Tensor, got {type(src).__name__}"
            )
        op = "TransformerEncoderLayer"
        src_key_padding_mask = _canonical_mask(
            op, src_key_padding_mask, "src_key_padding_mask", src_mask, "src_mask", src
        )
        src_mask = _canonical_mask(op, src_mask, "src_mask", None, "", src, False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(
        self,
        x: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        x = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    """Self-attention, attention to the encoder's memory and a feed-forward network, each with
    a residual connection and LayerNorm.

    PyTorch's ``torch.nn.TransformerDecoderLayer``: post-norm
    ``x = norm1(x + sa(x)); x = norm2(x + mha(x, memory)); x = norm3(x + ff(x))``, or pre-norm
    (``norm_first``) ``x = x + sa(norm1(x)); x = x + mha(norm2(x), memory);
    x = x + ff(norm3(x))``.

    Args:
        d_model (int): the model dimension.
        nhead (int): the number of attention heads.
        dim_feedforward (int): the feed-forward network's hidden dimension. Default: 2048.
        dropout (float): the dropout probability. Default: 0.1.
        activation (str or callable): "relu", "gelu" or a callable (a module becomes a
            submodule). Default: ``F.relu``.
        layer_norm_eps (float): the LayerNorms' eps. Default: 1e-5.
        batch_first (bool): tensors are (N, T, E) instead of (T, N, E). Default: False.
        norm_first (bool): pre-norm instead of post-norm. Default: False.
        bias (bool): learn the biases of the Linear and LayerNorm layers. Default: True.
        device, dtype: where and in which dtype the parameters are made.

    Example::

        >>> layer = genesis.nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16)
        >>> layer(genesis.randn(4, 3, 8), genesis.randn(5, 3, 8)).shape
        genesis.Size([4, 3, 8])
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: _Activation = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias, **factory
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias, **factory
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        if isinstance(activation, str):
            self.activation = _get_activation_fn("TransformerDecoderLayer", activation)
        else:
            self.activation = activation

    def __setstate__(self, state: dict) -> None:
        state.setdefault("activation", F.relu)
        super().__setstate__(state)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """Runs the layer on ``tgt`` (T, N, E) against ``memory`` (S, N, E) (``batch_first``:
        (N, T, E), (N, S, E); unbatched: (T, E), (S, E)).

        ``tgt_mask`` (T, T), ``memory_mask`` (T, S), the key padding masks (N, T) and (N, S);
        the ``*_is_causal`` flags are hints that the matching mask is the causal mask.
        """
        for name, t in (("tgt", tgt), ("memory", memory)):
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"[TransformerDecoderLayer] {name} must be a genesis.Tensor, got "
                    f"{type(t).__name__}"
                )
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(
                x
                + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            )
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(
        self,
        x: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        x = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            is_causal=is_causal,
            need_weights=False,
        )[0]
        return self.dropout1(x)

    def _mha_block(
        self,
        x: Tensor,
        mem: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        x = self.multihead_attn(
            x,
            mem,
            mem,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            is_causal=is_causal,
            need_weights=False,
        )[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)
