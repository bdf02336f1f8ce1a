"""Recurrent stacks on CUDA through cuDNN (Note [Recurrences through cuDNN] in
csrc/cuda/cudnn_rnn.cpp), used by RNNBase.forward when ``usable`` says so: one autograd Function
over the whole stack, whose backward is cuDNN's (no second derivative, as in PyTorch)."""

from __future__ import annotations

from typing import Any

from ..._C import Tensor, _nn, bfloat16, float16, float32, float64
from ...amp import is_autocast_enabled
from ...autograd import Function, is_grad_enabled
from ...backends import cudnn

__all__: list[str] = []  # helpers of rnn.py; no public names

_DTYPES = (float16, bfloat16, float32, float64)
_MODES = {"RNN_RELU": 0, "RNN_TANH": 1, "LSTM": 2, "GRU": 3}


def _weights(layer: Any) -> list[Tensor]:
    """The stack's weights, per layer and direction: w_ih, w_hh and, with bias, b_ih, b_hh."""
    out = []
    for k in range(layer.num_layers):
        for direction in range(2 if layer.bidirectional else 1):
            w_ih, w_hh, b_ih, b_hh, _ = layer._weights(k, direction)
            out += [w_ih, w_hh] + ([b_ih, b_hh] if layer.bias else [])
    return out


def usable(layer: Any, x: Tensor, *states: Tensor | None) -> bool:
    """Whether `layer` (an RNNBase) runs x (T, B, in, unpacked) with the initial `states` through
    cuDNN: a CUDA input of a floating dtype its weights and states share, no projection, no
    inter-layer dropout in training, no autocast region, cuDNN enabled and taking the
    configuration."""
    if not x.is_cuda or x.dtype not in _DTYPES or layer.proj_size != 0 or not cudnn.enabled:
        return False
    if any(s is not None and (s.dtype != x.dtype or s.device != x.device) for s in states):
        return False
    if layer.dropout > 0 and layer.training and layer.num_layers > 1:
        return False
    if is_autocast_enabled("cuda") or x.shape[0] == 0 or x.shape[1] == 0:
        return False
    if any(w.dtype != x.dtype or w.device != x.device for w in _weights(layer)):
        return False
    if not cudnn.is_available():
        return False
    return bool(
        _nn._cudnn_rnn_usable(
            x.dtype,
            _MODES[layer.mode],
            layer.input_size,
            layer.hidden_size,
            layer.num_layers,
            layer.bidirectional,
            layer.bias,
            bool(cudnn.allow_tf32),
            x.device.index or 0,
        )
    )


class _CudnnRNN(Function):
    """(y, h_n, c_n) of the whole stack for LSTM, (y, h_n) for the others (whose c0 is None)."""

    @staticmethod
    def forward(
        ctx: Any, x: Tensor, h0: Tensor, c0: Tensor | None, setup: tuple, *weights: Tensor
    ) -> Any:
        training = setup[-1]
        y, hy, cy, space, reserve = _nn._cudnn_rnn(x, h0, c0, list(weights), *setup)
        if training:
            ctx.save_for_backward(x, h0, c0, y, space, reserve, *weights)
        ctx.setup = setup[:-1]
        return (y, hy, cy) if cy is not None else (y, hy)

    @staticmethod
    def backward(
        ctx: Any, dy: Tensor | None, dhy: Tensor | None, dcy: Tensor | None = None
    ) -> tuple:
        x, h0, c0, y, space, reserve, *weights = ctx.saved_tensors
        if dy is None:
            dy = y.new_zeros(tuple(y.shape))
        dx, dh0, dc0, dweights = _nn._cudnn_rnn_backward(
            x,
            h0,
            c0,
            y,
            dy.contiguous(),
            None if dhy is None else dhy.contiguous(),
            None if dcy is None else dcy.contiguous(),
            weights,
            space,
            reserve,
            *ctx.setup,
        )
        return (dx, dh0, dc0, None, *dweights)


def run(layer: Any, x: Tensor, h0: Tensor, c0: Tensor | None) -> tuple:
    """(output, h_n, c_n) of `layer` over x (T, B, in) through cuDNN."""
    weights = [w.contiguous() for w in _weights(layer)]
    inputs = (x, h0, *([c0] if c0 is not None else []), *weights)
    training = is_grad_enabled() and any(t.requires_grad for t in inputs)
    setup = (
        _MODES[layer.mode],
        layer.hidden_size,
        layer.num_layers,
        layer.bidirectional,
        layer.bias,
        bool(cudnn.allow_tf32),
        training,
    )
    x, h0 = x.contiguous(), h0.contiguous()
    c0 = c0.contiguous() if c0 is not None else None
    out = _CudnnRNN.apply(x, h0, c0, setup, *weights)
    return (out[0], out[1], out[2] if c0 is not None else None)
