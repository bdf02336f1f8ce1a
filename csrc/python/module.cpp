// genesis._C: one pybind11 module; each area binds itself in its own file.
#include "python/bindings.h"
#include "python/docs/tensor_docs.h"
#include "python/operand.h"
#include "python/tensor_object.h"

#ifndef GENESIS_VERSION
#define GENESIS_VERSION "0.0.0"
#endif

namespace gp = genesis::python;

PYBIND11_MODULE(_C, m) {
  m.doc() = "genesis C++/CUDA core";
  m.attr("__version__") = GENESIS_VERSION;
  gp::init_errors(m);
  gp::init_dtype(m);
  gp::init_device(m);
  py::class_<genesis::Tensor> tensor(m, "Tensor", gp::docs::kTensor, py::dynamic_attr());
  gp::set_tensor_type(tensor);
  gp::init_tensor(m, tensor);
  gp::init_linalg(m, tensor);
  gp::init_convert(m, tensor);
  gp::init_index(m, tensor);
  gp::init_numpy(m, tensor);
  gp::init_dlpack(m, tensor);
  gp::init_creation(m);
  gp::init_math(m, tensor);
  gp::init_reduce(m, tensor);
  gp::install_operator_slots(tensor);  // after every __op__ method is defined
  gp::install_index_slot(tensor);      // after __getitem__
  gp::init_join(m);
  gp::init_random(m);
  gp::init_cuda(m);
  gp::init_testing(m);
  gp::hide_pydoc_method_label(m, "tensor");  // Note [pydoc label]
}
