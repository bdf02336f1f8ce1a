// genesis.optim.Adafactor's step (Note [Adafactor steps] in ops/adafactor_step.cpp) as
// _C._optim._adafactor_step: the class checks the options with PyTorch's messages and calls it
// once per parameter group, under no_grad.
#include "core/errors.h"
#include "ops/adafactor_step.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

// A list of tensors, None entries as undefined tensors (the states a parameter does not keep).
std::vector<Tensor> adafactor_list(const py::list& items, const char* what) {
  std::vector<Tensor> out;
  out.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    py::handle item = items[i];
    if (item.is_none()) {
      out.emplace_back();
      continue;
    }
    GENESIS_CHECK_TYPE(py::isinstance<Tensor>(item), "adafactor_step", "expected ", what, " ", i,
                       " to be a tensor, got ", type_name(item));
    out.push_back(item.cast<Tensor>());
  }
  return out;
}

}  // namespace

void init_optim_adafactor(py::module_& optim) {
  optim.def(
      "_adafactor_step",
      [](const py::list& params, const py::list& grads, const py::list& row_vars,
         const py::list& col_vars, const py::list& variances, const py::list& steps, double lr,
         double beta2_decay, std::optional<double> eps1, double eps2, double d, double weight_decay,
         bool maximize) {
        ops::AdafactorOptions options{lr, beta2_decay, eps1, eps2, d, weight_decay, maximize};
        ops::adafactor_step(
            adafactor_list(params, "param"), adafactor_list(grads, "grad"),
            adafactor_list(row_vars, "row_var"), adafactor_list(col_vars, "col_var"),
            adafactor_list(variances, "variance"), adafactor_list(steps, "step"), options);
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
