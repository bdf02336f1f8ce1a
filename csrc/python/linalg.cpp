// Matrix products: genesis.matmul/mm/bmm, the Tensor methods and the @ operator.
#include "ops/matmul.h"
#include "python/bindings.h"

namespace genesis::python {

void init_linalg(py::module_& m, py::class_<Tensor>& cls) {
  m.def("matmul", &ops::matmul, py::arg("input"), py::arg("other"),
        "Matrix product with broadcasting (torch.matmul).");
  m.def("mm", &ops::mm, py::arg("input"), py::arg("mat2"), "Product of two 2-D tensors.");
  m.def("bmm", &ops::bmm, py::arg("input"), py::arg("mat2"),
        "Batched product of two 3-D tensors with equal batch sizes.");
  cls.def("matmul", &ops::matmul, py::arg("other"))
      .def("mm", &ops::mm, py::arg("mat2"))
      .def("bmm", &ops::bmm, py::arg("mat2"))
      // is_operator: an operand that is not a Tensor returns NotImplemented, so Python tries
      // the other side and finally raises TypeError.
      .def("__matmul__", &ops::matmul, py::is_operator())
      .def(
          "__rmatmul__",
          [](const Tensor& self, const Tensor& other) { return ops::matmul(other, self); },
          py::is_operator());
}

}  // namespace genesis::python
