// The fused layer norm and RMS norm (Note [Fused row normalization] in ops/normalization.cpp) and
// cross-entropy (Note [Fused cross-entropy] in ops/cross_entropy.cpp) and batch norm (Note [Fused
// batch norm] in ops/batch_norm.cpp) and group norm (Note [Fused group norm] in
// ops/group_norm.cpp) as _C._nn._layer_norm, _rms_norm, _group_norm, _cross_entropy and
// _batch_norm: genesis.nn.functional checks the arguments with PyTorch's
// messages and calls these for the inputs they take.
#include <tuple>

#include "autograd/ops.h"
#include "cuda/cudnn_attention.h"
#include "cuda/cudnn_convolution_graph.h"
#include "ops/attention.h"
#include "ops/convolution.h"
#include "ops/dropout.h"
#include "ops/matmul.h"
#include "ops/max_pool.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

Tensor optional_tensor(py::handle obj, const char* op) {
  return obj.is_none() ? Tensor() : tensor_arg(obj, op);
}

ops::ConvolutionOptions conv_options(const Shape& padding, const Shape& stride,
                                     const Shape& dilation, int64_t groups, bool benchmark,
                                     bool deterministic, bool allow_tf32) {
  return {padding, stride, dilation, groups, benchmark, deterministic, allow_tf32};
}

}  // namespace

void init_nn_fused(py::module_& m) {
  py::module_ nn = m.attr("_nn");
  nn.def(
      "_layer_norm",
      [](py::handle input, int64_t normalized_ndim, py::handle weight, py::handle bias,
         double eps) {
        const char* op = "layer_norm";
        return ag::row_norm(tensor_arg(input, op), normalized_ndim, optional_tensor(weight, op),
                            optional_tensor(bias, op), eps, false, op);
      },
      py::arg("input"), py::arg("normalized_ndim"), py::arg("weight"), py::arg("bias"),
      py::arg("eps"),
      "layer_norm over the last normalized_ndim dims as one fused op; weight and bias (or None)\n"
      "in the input's dtype, on its device.");
  nn.def(
      "_rms_norm",
      [](py::handle input, int64_t normalized_ndim, py::handle weight, double eps) {
        const char* op = "rms_norm";
        return ag::row_norm(tensor_arg(input, op), normalized_ndim, optional_tensor(weight, op),
                            Tensor(), eps, true, op);
      },
      py::arg("input"), py::arg("normalized_ndim"), py::arg("weight"), py::arg("eps"),
      "rms_norm over the last normalized_ndim dims as one fused op; weight (or None) in the\n"
      "input's dtype, on its device.");
  nn.def(
      "_group_norm",
      [](py::handle input, int64_t num_groups, py::handle weight, py::handle bias, double eps) {
        const char* op = "group_norm";
        return ag::group_norm(tensor_arg(input, op), num_groups, optional_tensor(weight, op),
                              optional_tensor(bias, op), eps);
      },
      py::arg("input"), py::arg("num_groups"), py::arg("weight"), py::arg("bias"), py::arg("eps"),
      "group_norm of an (N, C, *) input as one fused op (Note [Fused group norm]); weight and\n"
      "bias (or None) (C,) in the input's dtype, on its device.");
  nn.def(
      "_max_pool",
      [](const Tensor& input, const Shape& kernel, const Shape& stride, const Shape& padding,
         const Shape& dilation,
         const Shape& out) { return ops::max_pool(input, kernel, stride, padding, dilation, out); },
      py::arg("input"), py::arg("kernel"), py::arg("stride"), py::arg("padding"),
      py::arg("dilation"), py::arg("out"),
      "(values, int64 flat indices in the input plane) of max pooling an (N, C, *spatial)\n"
      "input, one kernel, stride, padding, dilation and output size per spatial dim; no\n"
      "gradient (genesis.nn.functional's _MaxPool gives it).");
  nn.def(
      "_batch_norm",
      [](py::handle input, py::handle running_mean, py::handle running_var, py::handle weight,
         py::handle bias, bool training, double momentum, double eps) {
        const char* op = "batch_norm";
        return ag::batch_norm(tensor_arg(input, op), optional_tensor(weight, op),
                              optional_tensor(bias, op), optional_tensor(running_mean, op),
                              optional_tensor(running_var, op), training, momentum, eps);
      },
      py::arg("input"), py::arg("running_mean"), py::arg("running_var"), py::arg("weight"),
      py::arg("bias"), py::arg("training"), py::arg("momentum"), py::arg("eps"),
      "batch_norm of an (N, C, *) input as fused kernels (Note [Fused batch norm]); every tensor\n"
      "(or None) in the input's dtype, on its device; the running statistics updated in place\n"
      "in training.");
  nn.def(
      "_cross_entropy",
      [](py::handle input, py::handle target, py::handle weight, int64_t ignore_index,
         double label_smoothing) {
        const char* op = "cross_entropy";
        return ag::cross_entropy(tensor_arg(input, op), tensor_arg(target, op),
                                 optional_tensor(weight, op), ignore_index, label_smoothing);
      },
      py::arg("input"), py::arg("target"), py::arg("weight"), py::arg("ignore_index"),
      py::arg("label_smoothing"),
      "Each row's cross-entropy of (N, C) or (C,) logits and int64 class indices, as one fused\n"
      "op (Note [Fused cross-entropy]); weight (or None) in the logits' dtype.");
  nn.def(
      "_mm_accumulate",
      [](const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate) {
        return ops::mm_accumulate(out, a, b, accumulate);
      },
      py::arg("out"), py::arg("a"), py::arg("b"), py::arg("accumulate") = true,
      "out += a @ b in one cuBLASLt call that reads and writes the float32 out (2-D CUDA a and b\n"
      "of one 16-bit or float32 dtype); out = a @ b with accumulate=False (out is only written);\n"
      "False, having done nothing, where that path does not apply: the caller composes it. No\n"
      "gradient.");
  // Convolution's passes, through cuDNN on CUDA (Note [Convolutions through cuDNN]) and as
  // products over shifted windows on the CPU (Note [Convolution over shifted windows] in
  // cpu/convolution.cpp), each differentiable (Note [Convolution's three passes] in
  // autograd/convolution.cpp).
  nn.def(
      "_cpu_conv_usable",
      [](py::handle dtype, const Shape& input_sizes, const Shape& weight_sizes, const Shape& stride,
         int64_t groups) {
        ops::ConvolutionOptions o;
        o.stride = stride;
        o.padding = Shape(stride.size(), 0);
        o.dilation = Shape(stride.size(), 1);
        o.groups = groups;
        return ops::cpu_convolution_usable(to_dtype(dtype, "conv"), input_sizes, weight_sizes, o);
      },
      py::arg("dtype"), py::arg("input_sizes"), py::arg("weight_sizes"), py::arg("stride"),
      py::arg("groups"),
      "Whether the CPU's passes take a convolution of this dtype, these input and weight sizes,\n"
      "strides and groups (1-D or 2-D, stride 1, one group, enough channels).");
  nn.def(
      "_conv",
      [](const Tensor& input, const Tensor& weight, const Shape& padding, const Shape& stride,
         const Shape& dilation, int64_t groups, bool benchmark, bool deterministic, bool allow_tf32,
         const char* op) {
        return ag::convolution(
            input, weight,
            conv_options(padding, stride, dilation, groups, benchmark, deterministic, allow_tf32),
            op);
      },
      py::arg("input"), py::arg("weight"), py::arg("padding"), py::arg("stride"),
      py::arg("dilation"), py::arg("groups"), py::arg("benchmark"), py::arg("deterministic"),
      py::arg("allow_tf32"), py::arg("op"),
      "The convolution of an (N, C, *spatial) input with a (K, C / groups, *kernel) weight,\n"
      "through cuDNN on CUDA, on the CPU where _cpu_conv_usable says so; symmetric padding,\n"
      "stride and dilation per spatial dim.");
  nn.def(
      "_conv_backward_input",
      [](const Tensor& grad_output, const Tensor& weight, const Shape& input_sizes,
         const Shape& padding, const Shape& stride, const Shape& dilation, int64_t groups,
         bool benchmark, bool deterministic, bool allow_tf32, const char* op) {
        return ag::convolution_backward_input(
            grad_output, weight, input_sizes,
            conv_options(padding, stride, dilation, groups, benchmark, deterministic, allow_tf32),
            op);
      },
      py::arg("grad_output"), py::arg("weight"), py::arg("input_sizes"), py::arg("padding"),
      py::arg("stride"), py::arg("dilation"), py::arg("groups"), py::arg("benchmark"),
      py::arg("deterministic"), py::arg("allow_tf32"), py::arg("op"),
      "The gradient of _conv's input (of size input_sizes) from its output's gradient:\n"
      "the transposed convolution.");
  nn.def(
      "_conv_backward_weight",
      [](const Tensor& input, const Tensor& grad_output, const Shape& weight_sizes,
         const Shape& padding, const Shape& stride, const Shape& dilation, int64_t groups,
         bool benchmark, bool deterministic, bool allow_tf32, const char* op) {
        return ag::convolution_backward_weight(
            input, grad_output, weight_sizes,
            conv_options(padding, stride, dilation, groups, benchmark, deterministic, allow_tf32),
            op);
      },
      py::arg("input"), py::arg("grad_output"), py::arg("weight_sizes"), py::arg("padding"),
      py::arg("stride"), py::arg("dilation"), py::arg("groups"), py::arg("benchmark"),
      py::arg("deterministic"), py::arg("allow_tf32"), py::arg("op"),
      "The gradient of _conv's weight (of size weight_sizes) from its input and its\n"
      "output's gradient.");
  // The fused attention (Note [Fused attention]): no gradient (genesis.nn.functional's
  // _attention_fused.py gives it).
  nn.def(
      "_fused_attention_supported",
      [](const Tensor& like) { return ops::fused_attention_supported(like); }, py::arg("like"),
      "Whether the fused attention kernels run on the device of CUDA tensor `like` (sm_80 and\n"
      "later, in this build).");
  nn.def(
      "_fused_attention",
      [](const Tensor& q, const Tensor& k, const Tensor& v, py::handle mask, double scale,
         bool causal, double dropout_p, bool cudnn, bool own, const char* op) -> py::tuple {
        ops::FusedAttention r = ops::fused_attention(q, k, v, optional_tensor(mask, op), scale,
                                                     causal, dropout_p, cudnn, own, op);
        if (r.path == ops::AttentionPath::kNone)
          return py::make_tuple(py::none(), py::none(), py::none(), 0);
        return py::make_tuple(r.out, r.lse, r.rng.defined() ? py::cast(r.rng) : py::none(),
                              static_cast<int>(r.path));
      },
      py::arg("query"), py::arg("key"), py::arg("value"), py::arg("mask"), py::arg("scale"),
      py::arg("causal"), py::arg("dropout_p"), py::arg("cudnn"), py::arg("own"), py::arg("op"),
      "(out, lse, rng, path) of softmax(query key^T * scale + mask) value for (B, H, L, E)\n"
      "query and (B, Hk, S, E) key and value (float16 / bfloat16, E <= 256, H a multiple of Hk),\n"
      "its weights dropped with probability dropout_p (0 <= dropout_p < 1); lse is each row's\n"
      "float32 log-sum-exp; rng the dropout's (seed, offset) as an int64 CUDA tensor of 2, or\n"
      "None without dropout; path 2: cuDNN ran it (when `cudnn` allows and cuDNN takes it; never\n"
      "with dropout), 1: genesis's kernels (when `own` allows), 0: neither (the rest None).");
  nn.def(
      "_fused_attention_backward",
      [](const Tensor& dout, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
         const Tensor& lse, py::handle mask, double scale, bool causal, double dropout_p,
         py::handle rng, bool cudnn, const char* op) {
        auto [dq, dk, dv] =
            ops::fused_attention_backward(dout, q, k, v, out, lse, optional_tensor(mask, op), scale,
                                          causal, dropout_p, optional_tensor(rng, op), cudnn, op);
        return py::make_tuple(dq, dk, dv);
      },
      py::arg("grad_output"), py::arg("query"), py::arg("key"), py::arg("value"), py::arg("out"),
      py::arg("lse"), py::arg("mask"), py::arg("scale"), py::arg("causal"), py::arg("dropout_p"),
      py::arg("rng"), py::arg("cudnn"), py::arg("op"),
      "(dq, dk, dv) of _fused_attention from its output's gradient; dk and dv are\n"
      "(B, Hk, S, E), summed over each group of query heads. cudnn: the forward's path was\n"
      "cuDNN (tried first; genesis's kernels when cuDNN does not take it); dropout_p and rng:\n"
      "the forward's.");
  nn.def(
      "_attention_dropout_mask",
      [](int64_t bh, int64_t L, int64_t S, double dropout_p, uint64_t seed, uint64_t offset) {
        return ops::attention_dropout_mask(bh, L, S, dropout_p, seed, offset);
      },
      py::arg("bh"), py::arg("L"), py::arg("S"), py::arg("dropout_p"), py::arg("seed"),
      py::arg("offset"),
      "The (bh, L, S) bool CPU keep mask of _fused_attention's dropout drawn from (seed, offset)\n"
      "(Note [Dropout in fused attention]): for tests.");
  nn.def(
      "_cudnn_attention_built", []() { return cuda::cudnn_attention_built(); },
      "Whether this build carries cuDNN's fused attention (built with the cuDNN frontend).");
  nn.def(
      "_fused_dropout",
      [](const Tensor& x, double p) {
        auto [out, mask] = ops::fused_dropout(x, p, "dropout");
        return std::make_tuple(out, mask);
      },
      py::arg("input"), py::arg("p"),
      "(out, mask) of dropout in one pass (Note [Fused dropout]): mask a bool tensor of the\n"
      "kept elements, drawn from the default generator; out = input / (1 - p) where kept, else\n"
      "input * 0. 0 < p < 1.");
  nn.def(
      "_dropout_masked_scale",
      [](const Tensor& grad, const Tensor& mask, double scale) {
        return ops::dropout_masked_scale(grad, mask, scale, "dropout_backward");
      },
      py::arg("grad"), py::arg("mask"), py::arg("scale"),
      "grad * scale where mask, else grad * 0: dropout's backward.");
  nn.def(
      "_cudnn_graph_convolutions",
      []() {
        auto [built, refused] = cuda::cudnn_graph_convolution_counts();
        return py::make_tuple(built, refused);
      },
      "(kept, refused): the convolution problems that have a cuDNN graph-API graph, and those\n"
      "cuDNN refused (which take the legacy calls).");
}

}  // namespace genesis::python
