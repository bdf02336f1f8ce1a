// Tensor.resize_ (ops/resize.h).
#include "ops/resize.h"

#include "python/bindings.h"

namespace genesis::python {

void init_resize(py::module_& /*m*/, py::class_<Tensor>& cls) {
  cls.def("resize_", [](py::object self, py::args sizes) {
    ops::resize_(self.cast<Tensor&>(), to_sizes(sizes, "resize_"), "resize_");
    return self;
  });
}

}  // namespace genesis::python
