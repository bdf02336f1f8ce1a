// genesis._amp_foreach_non_finite_check_and_unscale_ and genesis._amp_update_scale_, PyTorch's
// names for GradScaler's fused ops (Note [Gradient scaling] in ops/grad_scaling.cpp).
#include "ops/grad_scaling.h"
#include "python/bindings.h"

namespace genesis::python {

void init_grad_scaling(py::module_& m) {
  m.def(
      "_amp_foreach_non_finite_check_and_unscale_",
      [](const std::vector<Tensor>& grads, const Tensor& found_inf, const Tensor& inv_scale) {
        ops::non_finite_check_and_unscale_(grads, found_inf, inv_scale);
      },
      py::arg("self"), py::arg("found_inf"), py::arg("inv_scale"));
  m.def("_amp_update_scale_", &ops::update_scale_, py::arg("self"), py::arg("growth_tracker"),
        py::arg("found_inf"), py::arg("scale_growth_factor"), py::arg("scale_backoff_factor"),
        py::arg("growth_interval"));
}

}  // namespace genesis::python
