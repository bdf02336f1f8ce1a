// genesis.optim.Adafactor's step (Note [Adafactor steps] in ops/adafactor_step.cpp) as
// _C._optim._adafactor_step: the class checks the options with PyTorch's messages and calls it
// once per parameter group, under no_grad.
#include "core/errors.h"
#include "ops/adafactor_step.h"
#include "python/bindings.h"
#include "python/tensor_lists.h"

namespace genesis::python {

void init_optim_adafactor(py::module_& optim) {
  optim.def(
      "_adafactor_step",
      [](const py::list& params, const py::object& grads, const py::list& row_vars,
         const py::list& col_vars, const py::list& variances, const py::list& steps, double lr,
         double beta2_decay, std::optional<double> eps1, double eps2, double d, double weight_decay,
         bool maximize) {
        ops::AdafactorOptions options{lr, beta2_decay, eps1, eps2, d, weight_decay, maximize};
        ops::adafactor_step(owned_tensors(params, "adafactor_step", "param", true),
                            owned_tensors(grads, "adafactor_step", "grad", true),
                            owned_tensors(row_vars, "adafactor_step", "row_var", true),
                            owned_tensors(col_vars, "adafactor_step", "col_var", true),
                            owned_tensors(variances, "adafactor_step", "variance", true),
                            owned_tensors(steps, "adafactor_step", "step", true), options);
      },
      py::arg("params"), py::arg("grads"), py::arg("row_vars"), py::arg("col_vars"),
      py::arg("variances"), py::arg("steps"), py::arg("lr"), py::arg("beta2_decay"),
      py::arg("eps1"), py::arg("eps2"), py::arg("d"), py::arg("weight_decay"), py::arg("maximize"),
      "One Adafactor step over the lists in place; row_vars, col_vars and variances hold one\n"
      "entry per param, None where it keeps no such state (row_var and col_var for 2+ dims,\n"
      "else variance); step counts (0-d float32 CPU tensors) incremented first; eps1 None: the\n"
      "first param's dtype's machine epsilon.");
}

}  // namespace genesis::python
