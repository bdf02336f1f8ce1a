// The fused layer norm and RMS norm (Note [Fused row normalization] in ops/normalization.cpp) as
// _C._nn._layer_norm and _C._nn._rms_norm: genesis.nn.functional checks the arguments with
// PyTorch's messages and calls these for the inputs they take.
#include "autograd/ops.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

Tensor optional_tensor(py::handle obj, const char* op) {
  return obj.is_none() ? Tensor() : tensor_arg(obj, op);
}

}  // namespace

void init_normalization(py::module_& m) {
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
}

}  // namespace genesis::python
