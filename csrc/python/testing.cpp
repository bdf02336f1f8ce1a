// genesis._C._testing: direct handles on C++ internals for the tests.
#include "core/half.h"
#include "core/scalar_type.h"
#include "core/shape.h"
#include "python/bindings.h"

namespace genesis::python {

void init_testing(py::module_& m) {
  py::module_ t = m.def_submodule("_testing", "C++ internals exposed for tests");
  t.def("float_to_half_bits", &float_to_half_bits);
  t.def("half_bits_to_float", &half_bits_to_float);
  t.def("float_to_bfloat16_bits", &float_to_bfloat16_bits);
  t.def("view_strides", [](const Shape& sizes, const Shape& strides, const Shape& new_sizes) {
    return view_strides(sizes, strides, new_sizes);
  });
  t.def("storage_use_count", [](const Tensor& x) { return x.storage().use_count(); });
  init_pool_testing(t);
  t.def("same_storage",
        [](const Tensor& a, const Tensor& b) { return a.storage().is_same(b.storage()); });
}

}  // namespace genesis::python
