// genesis._C._cuda: device queries and build information.
#include "cuda/backend.h"
#include "python/bindings.h"

namespace genesis::python {

void init_cuda(py::module_& m) {
  py::module_ c = m.def_submodule("_cuda", "CUDA runtime bindings");
  c.def("is_compiled", &cuda::compiled);
  c.def("is_available", [] { return cuda::device_count() > 0; });
  c.def("device_count", &cuda::device_count);
  c.def("current_device", &cuda::current_device);
  c.def("set_device", &cuda::set_device);
  c.def("architectures", &cuda::architectures);
  c.def("runtime_version", &cuda::runtime_version);
}

}  // namespace genesis::python
