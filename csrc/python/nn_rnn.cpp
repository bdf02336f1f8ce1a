// The recurrent layers' cuDNN path (Note [Recurrences through cuDNN] in cuda/cudnn_rnn.cpp) as
// _C._nn._cudnn_rnn_usable, _cudnn_rnn and _cudnn_rnn_backward: genesis.nn's RNNBase checks
// the configuration and calls these for the stacks cuDNN takes. And the fused LSTM cell of the
// step-by-step path (Note [Fused LSTM cell] in ops/lstm_cell.cpp): _lstm_cell and its backward,
// and a layer's whole walk (Note [LSTM recurrence in C++] in ops/lstm_sequence.cpp).
#include "autograd/ops.h"
#include "cuda/cudnn_rnn.h"
#include "ops/lstm_cell.h"
#include "ops/lstm_sequence.h"
#include "python/bindings.h"
#include "python/tensor_lists.h"

namespace genesis::python {

namespace {

cuda::CudnnRnn rnn_config(ScalarType dtype, int mode, int input_size, int hidden_size,
                          int num_layers, bool bidirectional, bool bias, bool allow_tf32,
                          int device) {
  cuda::CudnnRnn r;
  r.dtype = dtype;
  r.mode = mode;
  r.input_size = input_size;
  r.hidden_size = hidden_size;
  r.num_layers = num_layers;
  r.bidirectional = bidirectional;
  r.bias = bias;
  r.allow_tf32 = allow_tf32;
  r.device = device;
  return r;
}

const Tensor* tensor_or_null(const py::object& value) {
  return value.is_none() ? nullptr : &value.cast<const Tensor&>();
}

py::object tensor_or_none(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

}  // namespace

void init_nn_rnn(py::module_& m) {
  py::module_ nn = m.attr("_nn");
  nn.def(
      "_cudnn_rnn_usable",
      [](py::handle dtype, int mode, int input_size, int hidden_size, int num_layers,
         bool bidirectional, bool bias, bool allow_tf32, int device) {
        return cuda::cudnn_rnn_usable(
            rnn_config(to_dtype(dtype, "rnn"), mode, input_size, hidden_size, num_layers,
                       bidirectional, bias, allow_tf32, device),
            "rnn");
      },
      py::arg("dtype"), py::arg("mode"), py::arg("input_size"), py::arg("hidden_size"),
      py::arg("num_layers"), py::arg("bidirectional"), py::arg("bias"), py::arg("allow_tf32"),
      py::arg("device"),
      "Whether cuDNN takes this recurrent stack (mode: 0 relu, 1 tanh, 2 LSTM, 3 GRU).");
  nn.def(
      "_cudnn_rnn",
      [](const Tensor& x, const Tensor& hx, const py::object& cx, const py::list& weights, int mode,
         int hidden_size, int num_layers, bool bidirectional, bool bias, bool allow_tf32,
         bool training) {
        const char* op = "rnn";
        const auto r = rnn_config(x.dtype(), mode, static_cast<int>(x.sizes()[2]), hidden_size,
                                  num_layers, bidirectional, bias, allow_tf32, x.device().index);
        cuda::RnnForward f = cuda::cudnn_rnn_forward(
            r, x, hx, tensor_or_null(cx), borrowed_tensors(weights, op, "weight"), training, op);
        return py::make_tuple(f.y, f.hy, tensor_or_none(f.cy), f.weight_space,
                              tensor_or_none(f.reserve));
      },
      py::arg("input"), py::arg("hx"), py::arg("cx"), py::arg("weights"), py::arg("mode"),
      py::arg("hidden_size"), py::arg("num_layers"), py::arg("bidirectional"), py::arg("bias"),
      py::arg("allow_tf32"), py::arg("training"),
      "(y, hy, cy or None, packed weights, reserve or None) of the stack over input (T, B, in);\n"
      "contiguous CUDA tensors, weights per layer and direction (w_ih, w_hh[, b_ih, b_hh]).");
  nn.def(
      "_cudnn_rnn_backward",
      [](const Tensor& x, const Tensor& hx, const py::object& cx, const Tensor& y, const Tensor& dy,
         const py::object& dhy, const py::object& dcy, const py::list& weights,
         const Tensor& weight_space, const Tensor& reserve, int mode, int hidden_size,
         int num_layers, bool bidirectional, bool bias, bool allow_tf32) {
        const char* op = "rnn_backward";
        const auto r = rnn_config(x.dtype(), mode, static_cast<int>(x.sizes()[2]), hidden_size,
                                  num_layers, bidirectional, bias, allow_tf32, x.device().index);
        cuda::RnnBackward b = cuda::cudnn_rnn_backward(
            r, x, hx, tensor_or_null(cx), y, dy, tensor_or_null(dhy), tensor_or_null(dcy),
            borrowed_tensors(weights, op, "weight"), weight_space, reserve, op);
        py::list dweights;
        for (const Tensor& t : b.dweights) dweights.append(t);
        return py::make_tuple(b.dx, b.dhx, tensor_or_none(b.dcx), dweights);
      },
      py::arg("input"), py::arg("hx"), py::arg("cx"), py::arg("output"), py::arg("grad_output"),
      py::arg("grad_hy"), py::arg("grad_cy"), py::arg("weights"), py::arg("weight_space"),
      py::arg("reserve"), py::arg("mode"), py::arg("hidden_size"), py::arg("num_layers"),
      py::arg("bidirectional"), py::arg("bias"), py::arg("allow_tf32"),
      "(dx, dhx, dcx or None, [weight gradients]) of a training _cudnn_rnn.");
  nn.def(
      "_lstm_cell",
      [](const Tensor& gi, const Tensor& gh, const Tensor& c) {
        auto [h, c_new] = ag::lstm_cell(gi, gh, c);
        return py::make_tuple(h, c_new);
      },
      py::arg("gi"), py::arg("gh"), py::arg("c"),
      "(h, c_new) of an LSTM step from the input's and the hidden state's projections gi, gh\n"
      "(batch, 4 * hidden) and the cell state c (batch, hidden), one fused op each way.");
  nn.def(
      "_lstm_cell_forward",
      [](const Tensor& gi, const Tensor& gh, const Tensor& c) {
        ops::LstmCell r = ops::lstm_cell(gi, gh, c);
        return py::make_tuple(r.h, r.c_new, r.act);
      },
      py::arg("gi"), py::arg("gh"), py::arg("c"),
      "_lstm_cell without autograd: (h, c_new, activated gates), for a recurrence's own node.");
  nn.def(
      "_lstm_cell_backward",
      [](const py::object& dh, const py::object& dc, const Tensor& act, const Tensor& c,
         const Tensor& c_new) {
        ops::LstmCellGrads g = ops::lstm_cell_backward(
            dh.is_none() ? Tensor() : dh.cast<const Tensor&>(),
            dc.is_none() ? Tensor() : dc.cast<const Tensor&>(), act, c, c_new);
        return py::make_tuple(g.gates, g.c);
      },
      py::arg("dh"), py::arg("dc"), py::arg("act"), py::arg("c"), py::arg("c_new"),
      "(gradient of the gates, gradient of c) of _lstm_cell_forward from the gradients of h\n"
      "and c_new (None: zero).");
  nn.def(
      "_lstm_sequence",
      [](const Tensor& gi, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
         const py::object& b_hh, bool reverse) {
        ops::LstmSequence r = ops::lstm_sequence(
            gi, h0, c0, w_hh, b_hh.is_none() ? Tensor() : b_hh.cast<const Tensor&>(), reverse);
        return py::make_tuple(r.out, r.cells, r.gates);
      },
      py::arg("gi"), py::arg("h0"), py::arg("c0"), py::arg("w_hh"), py::arg("b_hh"),
      py::arg("reverse"),
      "(out, cells, gates) of an LSTM layer's walk over gi (T, B, 4H) without autograd: each\n"
      "step's h and c (T, B, H) and activated gates (T, B, 4H); reverse walks from the last step.");
  nn.def(
      "_lstm_sequence_backward",
      [](const Tensor& d_out, const Tensor& d_h, const Tensor& d_c, const Tensor& c0,
         const Tensor& w_hh, const Tensor& cells, const Tensor& gates, bool reverse) {
        ops::LstmSequenceGrads g =
            ops::lstm_sequence_backward(d_out, d_h, d_c, c0, w_hh, cells, gates, reverse);
        return py::make_tuple(g.gates, g.h0, g.c0);
      },
      py::arg("d_out"), py::arg("d_h"), py::arg("d_c"), py::arg("c0"), py::arg("w_hh"),
      py::arg("cells"), py::arg("gates"), py::arg("reverse"),
      "(gradient of the gates (T, B, 4H), of h0, of c0) of _lstm_sequence from the gradients\n"
      "of its output and of the final h and c.");
}

}  // namespace genesis::python
