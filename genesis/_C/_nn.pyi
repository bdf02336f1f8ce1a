"""Type stubs for genesis._C._nn, generated from the built module by
`python tools/generate_stubs.py`: do not edit by hand."""

import collections.abc
import typing

import genesis._C

def _attention_dropout_mask(
    bh: typing.SupportsInt | typing.SupportsIndex,
    L: typing.SupportsInt | typing.SupportsIndex,
    S: typing.SupportsInt | typing.SupportsIndex,
    dropout_p: typing.SupportsFloat | typing.SupportsIndex,
    seed: typing.SupportsInt | typing.SupportsIndex,
    offset: typing.SupportsInt | typing.SupportsIndex,
) -> genesis._C.Tensor: ...
def _batch_norm(
    input: object,
    running_mean: object,
    running_var: object,
    weight: object,
    bias: object,
    training: bool,
    momentum: typing.SupportsFloat | typing.SupportsIndex,
    eps: typing.SupportsFloat | typing.SupportsIndex,
) -> genesis._C.Tensor: ...
def _conv(
    input: genesis._C.Tensor,
    weight: genesis._C.Tensor,
    padding: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    stride: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    dilation: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    groups: typing.SupportsInt | typing.SupportsIndex,
    benchmark: bool,
    deterministic: bool,
    allow_tf32: bool,
    op: str,
) -> genesis._C.Tensor: ...
def _conv_backward_input(
    grad_output: genesis._C.Tensor,
    weight: genesis._C.Tensor,
    input_sizes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    padding: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    stride: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    dilation: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    groups: typing.SupportsInt | typing.SupportsIndex,
    benchmark: bool,
    deterministic: bool,
    allow_tf32: bool,
    op: str,
) -> genesis._C.Tensor: ...
def _conv_backward_weight(
    input: genesis._C.Tensor,
    grad_output: genesis._C.Tensor,
    weight_sizes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    padding: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    stride: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    dilation: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    groups: typing.SupportsInt | typing.SupportsIndex,
    benchmark: bool,
    deterministic: bool,
    allow_tf32: bool,
    op: str,
) -> genesis._C.Tensor: ...
def _cpu_conv_usable(
    dtype: genesis._C._DTypeLike,
    input_sizes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    weight_sizes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    stride: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    groups: typing.SupportsInt | typing.SupportsIndex,
) -> bool: ...
def _cross_entropy(
    input: object,
    target: object,
    weight: object,
    ignore_index: typing.SupportsInt | typing.SupportsIndex,
    label_smoothing: typing.SupportsFloat | typing.SupportsIndex,
) -> genesis._C.Tensor: ...
def _cudnn_attention_built() -> bool: ...
def _cudnn_graph_convolutions() -> tuple[int, int]: ...
def _cudnn_rnn(
    input: genesis._C.Tensor,
    hx: genesis._C.Tensor,
    cx: object,
    weights: list,
    mode: typing.SupportsInt | typing.SupportsIndex,
    hidden_size: typing.SupportsInt | typing.SupportsIndex,
    num_layers: typing.SupportsInt | typing.SupportsIndex,
    bidirectional: bool,
    bias: bool,
    allow_tf32: bool,
    training: bool,
) -> tuple[genesis._C.Tensor, genesis._C.Tensor, object, genesis._C.Tensor, object]: ...
def _cudnn_rnn_backward(
    input: genesis._C.Tensor,
    hx: genesis._C.Tensor,
    cx: object,
    output: genesis._C.Tensor,
    grad_output: genesis._C.Tensor,
    grad_hy: object,
    grad_cy: object,
    weights: list,
    weight_space: genesis._C.Tensor,
    reserve: genesis._C.Tensor,
    mode: typing.SupportsInt | typing.SupportsIndex,
    hidden_size: typing.SupportsInt | typing.SupportsIndex,
    num_layers: typing.SupportsInt | typing.SupportsIndex,
    bidirectional: bool,
    bias: bool,
    allow_tf32: bool,
) -> tuple[genesis._C.Tensor, genesis._C.Tensor, object, list]: ...
def _cudnn_rnn_usable(
    dtype: genesis._C._DTypeLike,
    mode: typing.SupportsInt | typing.SupportsIndex,
    input_size: typing.SupportsInt | typing.SupportsIndex,
    hidden_size: typing.SupportsInt | typing.SupportsIndex,
    num_layers: typing.SupportsInt | typing.SupportsIndex,
    bidirectional: bool,
    bias: bool,
    allow_tf32: bool,
    device: typing.SupportsInt | typing.SupportsIndex,
) -> bool: ...
def _dropout_masked_scale(
    grad: genesis._C.Tensor,
    mask: genesis._C.Tensor,
    scale: typing.SupportsFloat | typing.SupportsIndex,
) -> genesis._C.Tensor: ...
def _fused_attention(
    query: genesis._C.Tensor,
    key: genesis._C.Tensor,
    value: genesis._C.Tensor,
    mask: object,
    scale: typing.SupportsFloat | typing.SupportsIndex,
    causal: bool,
    dropout_p: typing.SupportsFloat | typing.SupportsIndex,
    cudnn: bool,
    own: bool,
    op: str,
) -> tuple: ...
def _fused_attention_backward(
    grad_output: genesis._C.Tensor,
    query: genesis._C.Tensor,
    key: genesis._C.Tensor,
    value: genesis._C.Tensor,
    out: genesis._C.Tensor,
    lse: genesis._C.Tensor,
    mask: object,
    scale: typing.SupportsFloat | typing.SupportsIndex,
    causal: bool,
    dropout_p: typing.SupportsFloat | typing.SupportsIndex,
    rng: object,
    cudnn: bool,
    op: str,
) -> tuple[genesis._C.Tensor, genesis._C.Tensor, genesis._C.Tensor]: ...
def _fused_attention_supported(like: genesis._C.Tensor) -> bool: ...
def _fused_dropout(
    input: genesis._C.Tensor, p: typing.SupportsFloat | typing.SupportsIndex
) -> tuple[genesis._C.Tensor, genesis._C.Tensor]: ...
def _group_norm(
    input: object,
    num_groups: typing.SupportsInt | typing.SupportsIndex,
    weight: object,
    bias: object,
    eps: typing.SupportsFloat | typing.SupportsIndex,
) -> genesis._C.Tensor: ...
def _layer_norm(
    input: object,
    normalized_ndim: typing.SupportsInt | typing.SupportsIndex,
    weight: object,
    bias: object,
    eps: typing.SupportsFloat | typing.SupportsIndex,
) -> genesis._C.Tensor: ...
def _lstm_cell(
    gi: genesis._C.Tensor, gh: genesis._C.Tensor, c: genesis._C.Tensor
) -> tuple[genesis._C.Tensor, genesis._C.Tensor]: ...
def _lstm_cell_backward(
    dh: object, dc: object, act: genesis._C.Tensor, c: genesis._C.Tensor, c_new: genesis._C.Tensor
) -> tuple[genesis._C.Tensor, genesis._C.Tensor]: ...
def _lstm_cell_forward(
    gi: genesis._C.Tensor, gh: genesis._C.Tensor, c: genesis._C.Tensor
) -> tuple[genesis._C.Tensor, genesis._C.Tensor, genesis._C.Tensor]: ...
def _lstm_sequence(
    gi: genesis._C.Tensor,
    h0: genesis._C.Tensor,
    c0: genesis._C.Tensor,
    w_hh: genesis._C.Tensor,
    b_hh: object,
    reverse: bool,
) -> tuple[genesis._C.Tensor, genesis._C.Tensor, genesis._C.Tensor]: ...
def _lstm_sequence_backward(
    d_out: genesis._C.Tensor,
    d_h: genesis._C.Tensor,
    d_c: genesis._C.Tensor,
    c0: genesis._C.Tensor,
    w_hh: genesis._C.Tensor,
    cells: genesis._C.Tensor,
    gates: genesis._C.Tensor,
    reverse: bool,
) -> tuple[genesis._C.Tensor, genesis._C.Tensor, genesis._C.Tensor]: ...
def _max_pool(
    input: genesis._C.Tensor,
    kernel: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    stride: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    padding: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    dilation: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    out: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
) -> tuple[genesis._C.Tensor, genesis._C.Tensor]: ...
def _mm_accumulate(
    out: genesis._C.Tensor, a: genesis._C.Tensor, b: genesis._C.Tensor, accumulate: bool = True
) -> bool: ...
def _rms_norm(
    input: object,
    normalized_ndim: typing.SupportsInt | typing.SupportsIndex,
    weight: object,
    eps: typing.SupportsFloat | typing.SupportsIndex,
) -> genesis._C.Tensor: ...
def elu(
    input: object, alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0, inplace: bool = False
) -> genesis._C.Tensor: ...
def elu_(
    input: object, alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0
) -> genesis._C.Tensor: ...
def gelu(input: genesis._C.Tensor, *, approximate: str = "none") -> genesis._C.Tensor: ...
def hardtanh(
    input: object, min_val: object = -1.0, max_val: object = 1.0, inplace: bool = False
) -> genesis._C.Tensor: ...
def hardtanh_(
    input: object, min_val: object = -1.0, max_val: object = 1.0
) -> genesis._C.Tensor: ...
def leaky_relu(
    input: object,
    negative_slope: typing.SupportsFloat | typing.SupportsIndex = 0.01,
    inplace: bool = False,
) -> genesis._C.Tensor: ...
def leaky_relu_(
    input: object, negative_slope: typing.SupportsFloat | typing.SupportsIndex = 0.01
) -> genesis._C.Tensor: ...
def mish(input: object, inplace: bool = False) -> genesis._C.Tensor: ...
def relu(input: object, inplace: bool = False) -> genesis._C.Tensor: ...
def silu(input: object, inplace: bool = False) -> genesis._C.Tensor: ...
def softplus(
    input: genesis._C.Tensor,
    beta: typing.SupportsFloat | typing.SupportsIndex = 1.0,
    threshold: typing.SupportsFloat | typing.SupportsIndex = 20.0,
) -> genesis._C.Tensor: ...
