// Matrix products: genesis.matmul/mm/bmm, the Tensor methods and the @ operator.
#include "autograd/ops.h"
#include "ops/matmul.h"
#include "python/bindings.h"

namespace genesis::python {

void init_linalg(py::module_& m, py::class_<Tensor>& cls) {
  m.def("matmul", &ag::matmul, py::arg("input"), py::arg("other"));
  m.def("mm", &ag::mm, py::arg("input"), py::arg("mat2"));
  m.def("bmm", &ag::bmm, py::arg("input"), py::arg("mat2"));
  cls.def("matmul", &ag::matmul, py::arg("other"))
      .def("mm", &ag::mm, py::arg("mat2"))
      .def("bmm", &ag::bmm, py::arg("mat2"))
      // is_operator: an operand that is not a Tensor returns NotImplemented, so Python tries
      // the other side and finally raises TypeError.
      .def("__matmul__", &ag::matmul, py::is_operator())
      .def(
          "__rmatmul__",
          [](const Tensor& self, const Tensor& other) { return ag::matmul(other, self); },
          py::is_operator());
}

}  // namespace genesis::python
