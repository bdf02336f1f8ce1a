"""Recurrent layers: RNN, LSTM, GRU (layers, directions, projections, dropout, packed input)
and their cells, with PyTorch's parameters, initialization, shapes and reprs.

Note [Recurrence in steps]: each layer and direction projects the whole input sequence at once
(one matrix product for all time steps), then walks the time steps: per step one product with
the hidden state and the gate arithmetic, all genesis ops on the whole batch, so autograd
differentiates through time with their formulas (an LSTM step's gate arithmetic is one fused op
each way, Note [Fused LSTM cell] in csrc/ops/lstm_cell.cpp, and a plain LSTM layer's whole walk
one node, Note [LSTM recurrence as one node] below). Variable lengths (a PackedSequence) run on
the padded batch with a per-step mask: a sequence's state stays frozen where it has no element,
which is also what makes the reverse direction start at each sequence's own last element. On
CUDA the stacks cuDNN takes run as one cuDNN recurrence instead (_rnn_cudnn.py, Note
[Recurrences through cuDNN] in csrc/cuda/cudnn_rnn.cpp).
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from ..._C import Tensor, _nn, arange, cat, empty, stack, tensor, where, zeros
from ...autograd import Function, grad, is_grad_enabled
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence
from . import _rnn_cudnn
from .module import Module

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _lstm_ops(gi: Tensor, gh: Tensor, c: Tensor) -> tuple[Tensor, Tensor]:
    """The LSTM cell's gate arithmetic as ops: (h', c')."""
    i, f, g, o = (gi + gh).chunk(4, -1)
    c_new = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c_new.tanh(), c_new


def _lstm_cell(gi: Tensor, gh: Tensor, c: Tensor) -> tuple[Tensor, Tensor]:
    """(h', c') of an LSTM step: one fused op each way (Note [Fused LSTM cell] in
    csrc/ops/lstm_cell.cpp) where gi, gh and c share a dtype and device (autocast's 16-bit
    projections beside a float32 state take the ops)."""
    if gi.dtype == gh.dtype == c.dtype and gi.device == gh.device == c.device:
        return _nn._lstm_cell(gi, gh, c)
    return _lstm_ops(gi, gh, c)


# Note [LSTM recurrence as one node]: an LSTM layer's walk over time (one direction, no
# projection, no packed lengths, one dtype) is one autograd node instead of a dozen per step.
# Forward runs the steps with the fused cell (Note [Fused LSTM cell]) and keeps each step's
# activated gates and cell state; backward walks the steps back, the cell's fused backward
# then the hidden state's gradient (one product with W_hh a step); both walks are C++ loops
# (Note [LSTM recurrence in C++] in csrc/ops/lstm_sequence.cpp). It takes W_hh's and b_hh's
# gradients once over all steps: one (4H, T*B) x (T*B, H) product instead of T small products
# each added into the sum, which cost the CPU as much as the rest of the backward. The input
# projection's gradient is the gates' (T, B, 4H) gradient, which the layer's one input product
# takes back. Under create_graph the backward walks the steps again as recorded ops.
class _LstmRecurrence(Function):
    @staticmethod
    def forward(
        ctx: Any, gi: Tensor, h0: Tensor, c0: Tensor, w_hh: Tensor, b_hh: Any, reverse: bool
    ) -> tuple[Tensor, Tensor, Tensor]:
        # the steps in C++, written into the whole-sequence tensors (Note [LSTM recurrence in
        # C++] in csrc/ops/lstm_sequence.cpp)
        out, cells, gates = _nn._lstm_sequence(gi, h0, c0, w_hh, b_hh, reverse)
        ctx.save_for_backward(gi, h0, c0, w_hh, b_hh, out, cells, gates)
        ctx.reverse = reverse
        last = 0 if reverse else gi.shape[0] - 1
        return out, out[last].clone(), cells[last].clone()  # not views of out and cells

    @staticmethod
    def backward(ctx: Any, d_out: Tensor, d_h: Tensor, d_c: Tensor) -> tuple[Any, ...]:
        gi, h0, c0, w_hh, b_hh, out, cells, gates = ctx.saved_tensors
        reverse = ctx.reverse
        need = ctx.needs_input_grad
        if is_grad_enabled():  # create_graph: the steps again as recorded ops
            found = iter(
                grad(
                    _lstm_steps(gi, h0, c0, w_hh, b_hh, reverse),
                    [t for t, n in zip((gi, h0, c0, w_hh, b_hh), need) if n],
                    [d_out, d_h, d_c],
                    create_graph=True,
                    allow_unused=True,
                )
            )
            return (*(next(found) if n else None for n in need[:5]), None)
        dg, d_h0, d_c0 = _nn._lstm_sequence_backward(
            d_out, d_h, d_c, c0, w_hh, cells, gates, reverse
        )
        d_w = d_b = None
        if need[3]:  # the states each step started from, against their steps' gate gradients
            start = h0.unsqueeze(0)
            h_prev = cat([out[1:], start]) if reverse else cat([start, out[:-1]])
            d_w = dg.flatten(0, 1).t() @ h_prev.flatten(0, 1)
        if need[4] and b_hh is not None:
            d_b = dg.sum((0, 1))
        return dg if need[0] else None, d_h0, d_c0, d_w, d_b, None


def _lstm_steps(
    gi: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Any, reverse: bool
) -> tuple[Tensor, Tensor, Tensor]:
    """The recurrence as recorded steps: (output, h_T, c_T)."""
    steps = gi.shape[0]
    outs: list[Any] = [None] * steps
    for t in range(steps - 1, -1, -1) if reverse else range(steps):
        h, c = _lstm_cell(gi[t], F.linear(h, w_hh, b_hh), c)
        outs[t] = h
    return stack(outs, 0), h, c


def _step(
    mode: str,
    gi: Tensor,
    h: Tensor,
    c: Tensor | None,
    w_hh: Tensor,
    b_hh: Tensor | None,
    w_hr: Tensor | None,
) -> tuple[Tensor, Tensor | None]:
    """One time step: (h', c') from the input's projection gi and the state."""
    gh = F.linear(h, w_hh, b_hh)
    if mode == "LSTM":
        assert c is not None  # an LSTM step always has a cell state
        h_new, c_new = _lstm_cell(gi, gh, c)
        if w_hr is not None:
            h_new = F.linear(h_new, w_hr)
        return h_new, c_new
    if mode == "GRU":
        i_r, i_z, i_n = gi.chunk(3, -1)
        h_r, h_z, h_n = gh.chunk(3, -1)
        r = (i_r + h_r).sigmoid()
        z = (i_z + h_z).sigmoid()
        n = (i_n + r * h_n).tanh()
        return n + z * (h - n), None
    pre = gi + gh
    return (pre.tanh() if mode == "RNN_TANH" else pre.relu()), None


class RNNBase(Module):
    """The base of RNN, LSTM and GRU: parameters per layer and direction, named as PyTorch's
    (``weight_ih_l0``, ``bias_hh_l1_reverse``, ``weight_hr_l0`` ...)."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        if (
            not isinstance(dropout, numbers.Number)
            or isinstance(dropout, bool)
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                f"[{name}] dropout should be a number in range [0, 1] representing the "
                "probability of an element being zeroed"
            )
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError(f"[{name}] hidden_size must be a positive integer, got {hidden_size}")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError(f"[{name}] num_layers must be a positive integer, got {num_layers}")
        if proj_size < 0:
            raise ValueError(
                f"[{name}] proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError(f"[{name}] proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError(
                f"[{name}] proj_size argument is only supported for LSTM, not RNN or GRU"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=2,
            )
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes: list[tuple[str, tuple[int, ...]]] = [
                    ("weight_ih", (gate_size, layer_input)),
                    ("weight_hh", (gate_size, real_hidden)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for base, shape in shapes:
                    pname = f"{base}_l{layer}{suffix}"
                    setattr(self, pname, Parameter(empty(shape, device=device, dtype=dtype)))
                    names.append(pname)
                self._flat_weights_names += names
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draws every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as
        PyTorch's default."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def _weights(self, layer: int, direction: int) -> tuple:
        suffix = "_reverse" if direction == 1 else ""
        get = lambda base: getattr(self, f"{base}_l{layer}{suffix}", None)  # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), get("weight_hr")

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _check_input(self, input: Tensor, batched: bool) -> None:
        name = type(self).__name__
        expected = 3 if batched else 2
        if input.dim() != expected:
            raise ValueError(f"[{name}] input must have {expected} dimensions, got {input.dim()}")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"[{name}] input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.shape[-1]}"
            )
        w = self.weight_ih_l0
        if input.dtype != w.dtype or input.device != w.device:
            raise RuntimeError(
                f"[{name}] input is {input.dtype} on {input.device} but the weights are "
                f"{w.dtype} on {w.device}"
            )

    def _check_hidden(self, hx: Tensor, expected: tuple, what: str) -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(
                f"[{type(self).__name__}] Expected {what} size {expected}, got {list(hx.shape)}"
            )

    def _recur(
        self, x: Tensor, h0: Tensor, c0: Tensor | None, lengths: list[int] | None
    ) -> tuple[Tensor, Tensor, Tensor | None]:
        """The stack over x (T, B, in) step by step in ops (Note [Recurrence in steps]): the
        output (T, B, D * out), h_n and (LSTM) c_n; `lengths`: a packed input's, for the mask."""
        steps, batch = x.shape[0], x.shape[1]
        directions = 2 if self.bidirectional else 1
        out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        mask = None
        if lengths is not None:
            lens = tensor(lengths, device=x.device)
            mask = (arange(steps, device=x.device).view(-1, 1) < lens.view(1, -1)).unsqueeze(-1)
        layer_input = x
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, direction)
                k = layer * directions + direction
                h = h0[k]
                c = c0[k] if c0 is not None else None
                projected = F.linear(layer_input, w_ih, b_ih)  # all steps in one product
                if (
                    self.mode == "LSTM"
                    and mask is None
                    and w_hr is None
                    and steps > 0
                    and c is not None
                    and projected.dtype == h.dtype == c.dtype == w_hh.dtype
                ):  # Note [LSTM recurrence as one node]
                    seq, h, c = _LstmRecurrence.apply(projected, h, c, w_hh, b_hh, direction == 1)
                    outputs.append(seq)
                    h_n.append(h)
                    c_n.append(c)
                    continue
                # one view a step: unbind's backward stacks the steps' gradients in one op,
                # where gi[t] would add a full-size gradient per step
                gi = projected.unbind(0)
                out_steps: list[Tensor | None] = [None] * steps
                order = range(steps - 1, -1, -1) if direction == 1 else range(steps)
                for t in order:
                    h_new, c_new = _step(self.mode, gi[t], h, c, w_hh, b_hh, w_hr)
                    if mask is not None:
                        m = mask[t]
                        h = where(m, h_new, h)
                        c = where(m, c_new, c) if c is not None else None
                        out_steps[t] = where(m, h_new, 0.0)
                    else:
                        h, c = h_new, c_new
                        out_steps[t] = h_new
                outputs.append(
                    stack(out_steps, 0) if steps else layer_input.new_zeros((0, batch, out_size))
                )
                h_n.append(h)
                if c is not None:
                    c_n.append(c)
            layer_input = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        output = layer_input
        h_out = stack(h_n, 0)
        c_out = stack(c_n, 0) if c0 is not None else None
        return output, h_out, c_out

    def forward(self, input: Any, hx: Any = None) -> Any:
        name = type(self).__name__
        packed = isinstance(input, PackedSequence)
        sorted_indices = unsorted_indices = None
        lengths = None
        if packed:
            sorted_indices, unsorted_indices = input.sorted_indices, input.unsorted_indices
            # padded (T, B, *) in length order; the lengths give each step's mask
            padded, lengths_t = pad_packed_sequence(
                PackedSequence(input.data, input.batch_sizes, None, None)
            )
            lengths = [int(v) for v in lengths_t.tolist()]
            x = padded
            batched = True
        else:
            if not isinstance(input, Tensor):
                raise TypeError(
                    f"[{name}] input must be a genesis.Tensor or PackedSequence, "
                    f"got {type(input).__name__}"
                )
            batched = input.dim() == 3
            self._check_input(input, batched)
            x = input if batched else input.unsqueeze(1)
            if batched and self.batch_first:
                x = x.transpose(0, 1)
        batch = x.shape[1]
        directions = 2 if self.bidirectional else 1
        out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        h_shape = (self.num_layers * directions, batch, out_size)
        c_shape = (self.num_layers * directions, batch, self.hidden_size)
        is_lstm = self.mode == "LSTM"
        if hx is None:
            h0 = zeros(*h_shape, dtype=x.dtype, device=x.device)
            c0 = zeros(*c_shape, dtype=x.dtype, device=x.device) if is_lstm else None
        else:
            if is_lstm:
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise RuntimeError(f"[{name}] hx must be a tuple (h_0, c_0)")
                h0, c0 = hx
            else:
                h0, c0 = hx, None
            if not batched and not packed:
                if h0.dim() != 2:
                    raise RuntimeError(
                        f"[{name}] For unbatched 2-D input, hx should also be 2-D but got "
                        f"{h0.dim()}-D tensor"
                    )
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            if sorted_indices is not None:
                h0 = h0.index_select(1, sorted_indices)
                c0 = c0.index_select(1, sorted_indices) if c0 is not None else None
            self._check_hidden(h0, h_shape, "hidden")
            if c0 is not None:
                self._check_hidden(c0, c_shape, "cell")
        if not packed and _rnn_cudnn.usable(self, x, h0, c0):
            output, h_out, c_out = _rnn_cudnn.run(self, x, h0, c0)
        else:
            output, h_out, c_out = self._recur(x, h0, c0, lengths)
        if packed:
            if unsorted_indices is not None:
                h_out = h_out.index_select(1, unsorted_indices)
                c_out = c_out.index_select(1, unsorted_indices) if c_out is not None else None
            repacked = pack_padded_sequence(output, lengths)
            result: Any = PackedSequence(
                repacked.data, repacked.batch_sizes, sorted_indices, unsorted_indices
            )
        else:
            if not batched:
                output = output.squeeze(1)
                h_out = h_out.squeeze(1)
                c_out = c_out.squeeze(1) if c_out is not None else None
            elif self.batch_first:
                output = output.transpose(0, 1)
            result = output
        return (result, (h_out, c_out)) if is_lstm else (result, h_out)


class RNN(RNNBase):
    """An Elman RNN, ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu):
    PyTorch's ``nn.RNN`` (Note [Recurrence in steps]).

    Example::

        >>> rnn = genesis.nn.RNN(3, 5, num_layers=2)
        >>> out, h = rnn(genesis.zeros(7, 2, 3))
        >>> out.shape, h.shape
        (genesis.Size([7, 2, 5]), genesis.Size([2, 2, 5]))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"[RNN] Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.nonlinearity = nonlinearity
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(
            mode,
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            0,
            device,
            dtype,
        )


class LSTM(RNNBase):
    """A long short-term memory layer (gates i, f, g, o; optional projection ``proj_size``):
    PyTorch's ``nn.LSTM``; returns ``(output, (h_n, c_n))`` (Note [Recurrence in steps]).

    Example::

        >>> lstm = genesis.nn.LSTM(3, 4, batch_first=True, bidirectional=True)
        >>> out, (h, c) = lstm(genesis.zeros(2, 6, 3))
        >>> out.shape, h.shape, c.shape
        (genesis.Size([2, 6, 8]), genesis.Size([2, 2, 4]), genesis.Size([2, 2, 4]))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            "LSTM",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            proj_size,
            device,
            dtype,
        )


class GRU(RNNBase):
    """A gated recurrent unit layer (gates r, z, n): PyTorch's ``nn.GRU`` (Note [Recurrence in
    steps]).

    Example::

        >>> gru = genesis.nn.GRU(3, 4)
        >>> out, h = gru(genesis.zeros(5, 3))
        >>> out.shape, h.shape
        (genesis.Size([5, 4]), genesis.Size([1, 4]))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            "GRU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            0,
            device,
            dtype,
        )


class RNNCellBase(Module):
    """The base of the cells: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(
            empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype)
        )
        self.weight_hh = Parameter(
            empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype)
        )
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draws every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input: Tensor, hx: Any, is_lstm: bool) -> tuple:
        name = type(self).__name__
        if not isinstance(input, Tensor) or input.dim() not in (1, 2):
            raise ValueError(
                f"[{name}] Expected input to be 1D or 2D, got "
                f"{getattr(input, 'dim', lambda: None)()}D instead"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"[{name}] input has inconsistent input_size: got "
                f"{input.shape[-1]} expected {self.input_size}"
            )
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            h = zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)
            state: Any = (h, h) if is_lstm else h
        else:
            state = (
                tuple(s if batched else s.unsqueeze(0) for s in hx)
                if is_lstm
                else (hx if batched else hx.unsqueeze(0))
            )
        return x, state, batched


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: PyTorch's ``nn.RNNCell``.

    Example::

        >>> genesis.nn.RNNCell(3, 4)(genesis.zeros(2, 3)).shape
        genesis.Size([2, 4])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"[RNNCell] Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, h, batched = self._prepare(input, hx, False)
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        out, _ = _step(
            mode,
            F.linear(x, self.weight_ih, self.bias_ih),
            h,
            None,
            self.weight_hh,
            self.bias_hh,
            None,
        )
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM, returning ``(h', c')``: PyTorch's ``nn.LSTMCell``.

    Example::

        >>> h, c = genesis.nn.LSTMCell(3, 4)(genesis.zeros(2, 3))
        >>> h.shape, c.shape
        (genesis.Size([2, 4]), genesis.Size([2, 4]))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:
        x, (h, c), batched = self._prepare(input, hx, True)
        h_new, c_new = _step(
            "LSTM",
            F.linear(x, self.weight_ih, self.bias_ih),
            h,
            c,
            self.weight_hh,
            self.bias_hh,
            None,
        )
        assert c_new is not None
        if not batched:
            return h_new.squeeze(0), c_new.squeeze(0)
        return h_new, c_new


class GRUCell(RNNCellBase):
    """One step of a GRU: PyTorch's ``nn.GRUCell``.

    Example::

        >>> genesis.nn.GRUCell(3, 4)(genesis.zeros(3)).shape
        genesis.Size([4])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, h, batched = self._prepare(input, hx, False)
        out, _ = _step(
            "GRU",
            F.linear(x, self.weight_ih, self.bias_ih),
            h,
            None,
            self.weight_hh,
            self.bias_hh,
            None,
        )
        return out if batched else out.squeeze(0)
